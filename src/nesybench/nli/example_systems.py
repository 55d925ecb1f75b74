"""Two deliberately limited systems whose predictions ship with nesybench as worked examples.

They make the traps of ``score-nli`` visible on real benchmark questions:

* :func:`closed_world_predictions` (ProofWriter): read the theory, chain
  forward (the same open-world derivations as the reference labeler), and
  answer by the closed world: True if the statement is derived, False
  otherwise.  It never says Unknown, so on a benchmark with a third of Unknown questions its
  accuracy is capped at two thirds whatever its reasoning.
* :func:`greedy_prontoqa_predictions` (PrOntoQA): the first-applicable greedy
  reasoner of the nli instrument (:func:`~nesybench.nli.systems.greedy_reason`)
  with its trace as the explanation: every step is sound, but it fires only
  positive rules and answers a statement it did not reach by the closed world,
  so many labels are right for the wrong reason -- the step checker's proof
  accuracy shows it.

``python -m nesybench.nli.example_systems BENCHMARKS_DIR`` rewrites the files in
``BENCHMARKS_DIR/predictions/`` from the vendored samples.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..io import atomic_write_text
from ..reasoning.chainer import forward_chain
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.terms import complement, is_negated
from .readers import Benchmark, read_benchmark
from .systems import greedy_reason

#: name -> (benchmark, gold file, predictions file), relative to the benchmarks folder
SHIPPED = {
    "proofwriter-closed-world": (
        "proofwriter",
        "proofwriter/dev-sample.json",
        "predictions/proofwriter-closed-world.jsonl",
    ),
    "prontoqa-greedy": (
        "prontoqa",
        "prontoqa/dev-sample.json",
        "predictions/prontoqa-greedy.jsonl",
    ),
}
GREEDY_CAP = 9


def closed_world_predictions(bench: Benchmark) -> list[dict]:
    """``{"id", "prediction"}`` per question: True iff the statement is derived, else False."""
    out = []
    for q in bench.questions:
        theory = parse_context(q.context, dialect="proofwriter")
        statement = parse_sentence(q.question, dialect="proofwriter")
        if not theory.ok or statement.kind != "question":
            continue  # a system that cannot read a question makes no prediction
        closure = forward_chain(theory.facts, theory.rules, world="open")
        out.append({"id": q.id, "prediction": "True" if closure.holds(statement.atom) else "False"})
    return out


def greedy_prontoqa_predictions(bench: Benchmark, *, cap: int = GREEDY_CAP) -> list[dict]:
    """``{"id", "prediction", "explanation"}`` per question from the greedy reasoner."""
    out = []
    for q in bench.questions:
        theory = parse_context(q.context)
        question = parse_sentence(q.question)
        if not theory.ok or question.kind != "question":
            continue
        atom = question.atom
        entity = atom.args[0]
        axioms = [f for f in theory.facts if f.args == (entity,)]
        if not axioms:
            continue
        positive = not is_negated(atom.pred)
        goal = atom if positive else complement(atom)
        answer, _ = greedy_reason(
            axioms[0],
            theory.rules,
            goal,
            positive_query=positive,
            cap=cap,
            adjectives=theory.adjectives,
        )
        out.append({"id": q.id, "prediction": answer.label, "explanation": list(answer.trace)})
    return out


def render_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)


def build_shipped(benchmarks_dir: str | Path) -> dict[str, str]:
    """The text of every shipped predictions file, keyed by its path relative to the folder."""
    root = Path(benchmarks_dir)
    texts = {}
    for benchmark, gold, target in SHIPPED.values():
        bench = read_benchmark(root / gold, benchmark=benchmark)
        rows = (
            closed_world_predictions(bench)
            if benchmark == "proofwriter"
            else greedy_prontoqa_predictions(bench)
        )
        texts[target] = render_jsonl(rows)
    return texts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else "benchmarks")
    for rel, text in build_shipped(root).items():
        atomic_write_text(root / rel, text)
        print(f"wrote {root / rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
