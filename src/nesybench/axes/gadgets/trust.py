"""Axis 6, trust: the right answer about the wrong thing.

Two concept extractors over the five people of the academic world: a faithful
one reads the true professor/student concepts, a swapped one exchanges them.
The downstream task researcher(X) if professor(X) or student(X) is symmetric
in the two concepts, so both extractors score task accuracy 1.0 while their
concept accuracies are 1.0 and 0.0 -- the k = 2 case of the k! label
permutations a reasoning shortcut can hide behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError, check_claim
from ...reasoning.chainer import forward_chain
from ...reasoning.terms import Atom
from . import academic

SWAP = {"professor": "student", "student": "professor"}


@dataclass(frozen=True)
class TrustRow:
    extractor: str
    task_accuracy: float
    concept_accuracy: float


def extract(extractor: str) -> list[Atom]:
    truth = [a for a in academic.facts() if a.pred in SWAP]
    if extractor == "faithful":
        return truth
    if extractor == "swapped":
        return [Atom(SWAP[a.pred], a.args) for a in truth]
    raise InputError(f"extractor must be 'faithful' or 'swapped', got {extractor!r}")


def run() -> list[TrustRow]:
    truth = {a for a in academic.facts() if a.pred in SWAP}
    task_rules = academic.horn_rules()[
        :2
    ]  # researcher(X) :- professor(X).  researcher(X) :- student(X).
    gold = set(forward_chain(sorted(truth), task_rules).relation("researcher"))
    rows = []
    for name in ("faithful", "swapped"):
        concepts = extract(name)
        task = set(forward_chain(concepts, task_rules).relation("researcher"))
        task_acc = sum(((p,) in task) == ((p,) in gold) for p in academic.PEOPLE) / len(
            academic.PEOPLE
        )
        concept_acc = sum(a in truth for a in concepts) / len(concepts)
        rows.append(TrustRow(name, task_acc, concept_acc))
    return rows


def check(rows: list[TrustRow]) -> None:
    by = {r.extractor: r for r in rows}
    check_claim(
        by["faithful"].task_accuracy == by["swapped"].task_accuracy == 1.0,
        f"trust: both extractors must score task accuracy 1.0, got {rows}",
    )
    check_claim(
        by["faithful"].concept_accuracy == 1.0 and by["swapped"].concept_accuracy == 0.0,
        f"trust: concept accuracy must be 1.0 vs 0.0, got {rows}",
    )
