"""Reference labelers: the gold label of a benchmark question, re-derived by a real reasoner.

* **ProofWriter** -- the context through the grammar's ``proofwriter`` dialect,
  then open-world forward chaining with explicit negative facts
  (:func:`~nesybench.reasoning.chainer.forward_chain` with ``world="open"``):
  True if the statement is derived, False if its negation is, Unknown otherwise;
  the proof is the derivation tree of the statement (or of its negation) and
  its depth the number of rule applications on its longest branch.
* **PrOntoQA** -- the same, through the ``prontoqa`` dialect.
* **FOLIO** -- the FOL annotations through :func:`~nesybench.reasoning.fol.parse_formula`
  and the dual query on z3 (:func:`~nesybench.reasoning.fol.dual_query`), with a
  time limit per solver call; "Inconsistent" (premises without a model) and
  "Undecided" (the solver gave up) are outcomes of their own.

A sentence or formula the parser cannot read makes the question *unparsed*
(``derived`` is None and ``reason`` quotes it): it is counted, never labeled by
a guess.  LogicBench has no reference labeler (its contexts are free text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import InputError
from ..reasoning.chainer import Closure, forward_chain
from ..reasoning.fol import FolSyntaxError, dual_query, parse_formula
from ..reasoning.grammar.prontoqa import render_fact
from ..reasoning.grammar.proofwriter import render_proofwriter
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.terms import Atom, Theory, base_pred, complement
from .readers import Benchmark, Question

LABELED = ("prontoqa", "proofwriter", "folio")
OUTCOMES = ("True", "False", "Unknown", "Inconsistent", "Undecided")


@dataclass(frozen=True)
class Labeling:
    """The reference labeler's verdict on one question.

    ``derived`` is one of :data:`OUTCOMES`, or None when the question did not
    parse (``reason`` says which sentence and why); ``depth`` is the proof depth
    of the decisive atom for True/False (None otherwise); ``proof`` the
    derivation, premises first, one sentence per step.
    """

    id: str
    gold: str
    derived: str | None
    depth: int | None = None
    reason: str = ""
    proof: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def parsed(self) -> bool:
        return self.derived is not None

    @property
    def agrees(self) -> bool:
        return self.derived == self.gold

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "gold": self.gold,
            "derived": self.derived,
            "depth": self.depth,
            "parsed": self.parsed,
            "agrees": self.agrees,
            "reason": self.reason,
            "proof": list(self.proof),
        }


# ---------------------------------------------------------------- rule-language benchmarks
@dataclass
class _TheoryCache:
    """Closures by context text: ProofWriter asks many questions of one theory."""

    dialect: str
    closures: dict[str, tuple[Theory, Closure | None]] = field(default_factory=dict)

    def get(self, context: str) -> tuple[Theory, Closure | None]:
        hit = self.closures.get(context)
        if hit is None:
            theory = parse_context(context, dialect=self.dialect)
            closure = None
            if theory.ok:
                closure = forward_chain(theory.facts, theory.rules, world="open", proofs=True)
            hit = self.closures[context] = (theory, closure)
        return hit


def _render(atom: Atom, dialect: str, theory: Theory) -> str:
    if dialect == "proofwriter":
        return render_proofwriter(atom)
    if len(atom.args) == 1:
        return render_fact(atom, adjective=base_pred(atom.pred) in theory.adjectives)
    return str(atom)


def _render_rule(rule, dialect: str) -> str:
    if dialect == "proofwriter":
        try:
            return render_proofwriter(rule)
        except ValueError:
            pass
    return str(rule)


def label_rule_question(question: Question, *, cache: _TheoryCache) -> Labeling:
    """ProofWriter / PrOntoQA: parse, chain forward in the open world, read the label off."""
    theory, closure = cache.get(question.context)
    if not theory.ok:
        sentence, why = theory.failures[0]
        more = f" (and {len(theory.failures) - 1} more)" if len(theory.failures) > 1 else ""
        return Labeling(
            question.id,
            question.gold,
            None,
            reason=f"context sentence does not parse ({why}): {sentence!r}{more}",
        )
    q = parse_sentence(question.question, dialect=cache.dialect)
    if q.kind not in ("question", "fact"):
        return Labeling(
            question.id,
            question.gold,
            None,
            reason=f"question does not parse ({q.reason}): {question.question!r}",
        )
    assert closure is not None
    derived = closure.label(q.atom)
    decisive = q.atom if derived == "True" else complement(q.atom) if derived == "False" else None
    depth = None
    steps: tuple[str, ...] = ()
    if decisive is not None:
        proof = closure.proof(decisive)
        depth = proof.depth
        steps = tuple(
            _render(s.fact, cache.dialect, theory)
            + ("" if s.rule is None else f"  [by: {_render_rule(s.rule, cache.dialect)}]")
            for s in proof.steps()
        )
    reason = ""
    if derived == "Inconsistent":
        reason = f"the theory derives both {q.atom} and {complement(q.atom)}"
    return Labeling(question.id, question.gold, derived, depth, reason, steps)


# ---------------------------------------------------------------- FOLIO
def label_folio_question(question: Question, *, time_limit: float = 10.0) -> Labeling:
    """FOLIO: parse the FOL annotations and run the dual query on z3."""
    if question.premises_fol is None or question.conclusion_fol is None:
        missing = "premises-FOL" if question.premises_fol is None else "conclusion-FOL"
        return Labeling(question.id, question.gold, None, reason=f"no {missing} annotation")
    formulas = []
    for k, text in enumerate((*question.premises_fol, question.conclusion_fol)):
        what = f"premise {k + 1}" if k < len(question.premises_fol) else "the conclusion"
        try:
            formulas.append(parse_formula(text))
        except FolSyntaxError as exc:
            return Labeling(
                question.id,
                question.gold,
                None,
                reason=f"{what} does not parse ({exc}): {text!r}",
            )
    *premises, conclusion = formulas
    result = dual_query(premises, conclusion, time_limit=time_limit)
    reason = ""
    if result.label == "Undecided":
        reason = f"z3 answered {'/'.join(result.calls)} within {time_limit:g} s per call"
    elif result.label == "Inconsistent":
        reason = "the premises have no model"
    return Labeling(question.id, question.gold, result.label, reason=reason, seconds=result.seconds)


# ---------------------------------------------------------------- whole benchmarks
def labeler_for(benchmark: str, *, time_limit: float = 10.0) -> Callable[[Question], Labeling]:
    """The reference labeler of ``benchmark`` as a function of one question."""
    if benchmark in ("proofwriter", "prontoqa"):
        cache = _TheoryCache(benchmark)
        return lambda q: label_rule_question(q, cache=cache)
    if benchmark == "folio":
        return lambda q: label_folio_question(q, time_limit=time_limit)
    raise InputError(
        f"benchmark: a reference labeler exists for {', '.join(LABELED)}, got {benchmark!r}"
    )


def label_questions(
    questions: Iterable[Question], benchmark: str, *, time_limit: float = 10.0
) -> list[Labeling]:
    """:func:`labeler_for` applied to every question, in order."""
    labeler = labeler_for(benchmark, time_limit=time_limit)
    return [labeler(q) for q in questions]


def summarize_labelings(labelings: list[Labeling]) -> dict:
    """``n``, ``parsed``, ``parse_rate``, ``n_agree``, ``agreement`` (over parsed), outcome counts.

    ``agreement = #(derived == gold) / #parsed`` (None when nothing parsed).
    """
    n = len(labelings)
    parsed = [x for x in labelings if x.parsed]
    agree = sum(x.agrees for x in parsed)
    outcomes = {o: sum(x.derived == o for x in parsed) for o in OUTCOMES}
    return {
        "n": n,
        "parsed": len(parsed),
        "parse_rate": len(parsed) / n if n else None,
        "n_agree": agree,
        "agreement": agree / len(parsed) if parsed else None,
        "outcomes": outcomes,
    }


def label_benchmark(bench: Benchmark, *, time_limit: float = 10.0, progress=None) -> list[Labeling]:
    """Label every question of a read benchmark (``progress`` wraps the iteration if given)."""
    questions = bench.questions if progress is None else progress(bench.questions)
    return label_questions(questions, bench.name, time_limit=time_limit)
