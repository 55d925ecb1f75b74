"""Axis 1, soundness: errors completeness cannot see.

An over-generalising subsumption predictor over a small academic TBox says
``A is subsumed by B`` when it is true, or when A and B share a subsumer other
than top, A and B.  Its predictions contain the truth, so recall is exactly 1
(completeness pinned); precision is not, and every fabricated pair is listed.

    recall = tp / |truth|,   precision = tp / |pred|
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import check_claim
from ...reasoning.chainer import forward_chain
from ...reasoning.terms import Atom, Literal, Rule

TOP = "Thing"
#: told subsumptions (child, parent); Thing is the top concept
TBOX = (
    ("Person", TOP),
    ("Organization", TOP),
    ("Researcher", "Person"),
    ("Professor", "Researcher"),
    ("Student", "Researcher"),
    ("FullProfessor", "Professor"),
    ("AssistantProfessor", "Professor"),
    ("PhDStudent", "Student"),
)


@dataclass(frozen=True)
class SoundnessResult:
    n_truth: int
    n_pred: int
    true_positives: int
    recall: float
    precision: float
    fabricated: tuple[tuple[str, str], ...]


def subsumers(tbox=TBOX) -> dict[str, set[str]]:
    """Reflexive-transitive told subsumers of every concept, via the forward chainer."""
    facts = [Atom("told", (a.lower(), b.lower())) for a, b in tbox]
    names = sorted({c for pair in tbox for c in pair})
    facts += [Atom("concept", (c.lower(),)) for c in names]
    rules = [
        # sub(A, A) :- concept(A).
        Rule(Atom("sub", ("A", "A")), (Literal(Atom("concept", ("A",))),)),
        # sub(A, C) :- told(A, B), sub(B, C).
        Rule(
            Atom("sub", ("A", "C")),
            (Literal(Atom("told", ("A", "B"))), Literal(Atom("sub", ("B", "C")))),
        ),
    ]
    closure = forward_chain(facts, rules)
    by_lower = {c.lower(): c for c in names}
    out: dict[str, set[str]] = {c: set() for c in names}
    for a, b in closure.relation("sub"):
        out[by_lower[a]].add(by_lower[b])
    return out


def run(tbox=TBOX, *, top: str = TOP) -> SoundnessResult:
    S = subsumers(tbox)
    names = sorted(c for c in S if c != top)
    truth = {(a, b) for a in names for b in names if a != b and b in S[a]}
    pred = {
        (a, b)
        for a in names
        for b in names
        if a != b and (b in S[a] or (S[a] & S[b]) - {top, a, b})
    }
    tp = len(truth & pred)
    return SoundnessResult(
        len(truth), len(pred), tp, tp / len(truth), tp / len(pred), tuple(sorted(pred - truth))
    )


def check(result: SoundnessResult) -> None:
    check_claim(
        result.recall == 1.0, f"soundness: recall must be pinned at 1.0, got {result.recall}"
    )
    check_claim(
        result.precision < 1.0 and result.fabricated,
        f"soundness: the predictor must fabricate subsumptions, got precision {result.precision}",
    )
    check_claim(
        ("Professor", "Student") in result.fabricated,
        "soundness: Professor below Student (via the shared Researcher) must be among the "
        "fabrications",
    )
