"""Corrupted chains of thought in PrOntoQA's native format, for PrOntoQA's own evaluator.

Every corruption kind of ``nesybench.nli.prontoqa_eval.CORRUPTIONS`` applied to every gold
chain of a source, written as ``{"<kind>|<id>": {"test_example": {"question", "query",
"chain_of_thought", "answer"}, "model_output": ...}}`` (the gold chain with its label last,
as PrOntoQA's logs have it; the model output is the corrupted chain followed by its answer).
bench/peer_prontoqa.py runs PrOntoQA's ``evaluate_response`` on the file.

Sources:
  --dev FILE     a Logic-LM-style PrOntoQA file (``context, question, answer, explanation``),
                 e.g. ../shared/external/prontoqa-dev.json
  --lite N       N chains from nesybench's own PrOntoQA-lite generator (seed 0; hops 3-6),
                 rendered as fact, rule, fact, ... chains (not in ../shared/external)
Run: python bench/make_prontoqa_corruptions.py (--dev FILE | --lite N) --out OUT.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nesybench.nli.prontoqa_eval import CORRUPTIONS, corrupted_examples
from nesybench.reasoning.grammar import parse_context, parse_sentence


def dev_examples(path: Path) -> list[tuple]:
    out = []
    for r in json.loads(path.read_text(encoding="utf-8")):
        answer = {"A": "True", "B": "False"}[r["answer"]]
        theory = parse_context(r["context"])
        question = parse_sentence(r["question"]).atom
        out.append((r["id"], theory, question, r["explanation"], answer, r["context"]))
    return out


def lite_examples(n: int) -> list[tuple]:
    """Gold chains from PrOntoQA-lite: its context, and the chain written out with its rules."""
    from nesybench.nli.prontoqa_lite import generate_example
    from nesybench.reasoning.grammar import make_rule, render_fact, render_rule
    from nesybench.reasoning.terms import Atom

    out = []
    for i in range(n):
        ex = generate_example(3 + i % 4, i, seed=0, corrupt_prob=0.0)
        chain = [render_fact(Atom(ex.chain[0], (ex.name,)))]
        for a, b in zip(ex.chain, ex.chain[1:]):
            chain += [render_rule(make_rule(a, b)), render_fact(Atom(b, (ex.name,)))]
        theory = parse_context(ex.context)
        question = parse_sentence(ex.question).atom
        out.append((ex.id, theory, question, chain, ex.gold_label, ex.context))
    return out


def native(examples) -> dict:
    contexts = {e[0]: e[5] for e in examples}
    gold = {e[0]: (e[3], e[4]) for e in examples}
    doc = {}
    stripped = [e[:5] for e in examples]
    for kind, key, _, _, trace, stated, _ in corrupted_examples(stripped, CORRUPTIONS):
        chain, answer = gold[key]
        doc[f"{kind}|{key}"] = {
            "test_example": {
                "question": contexts[key],
                # PrOntoQA reads the context up to "True or false:"; the statement is not used
                "query": "True or false: " + chain[-1],
                "chain_of_thought": [*chain, answer],
                "answer": answer,
            },
            "model_output": " ".join(trace) + " " + stated,
        }
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--dev", type=Path)
    src.add_argument("--lite", type=int)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    examples = dev_examples(args.dev) if args.dev else lite_examples(args.lite)
    doc = native(examples)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{args.out}: {len(doc)} chains ({len(examples)} gold chains x {len(CORRUPTIONS)} kinds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
