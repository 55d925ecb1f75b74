"""Axis 2, termination: when "eventually complete" never arrives.

A restricted chase with one existential rule (every researcher was advised by
some researcher) mints a fresh null per firing and never saturates: with a step
budget of s firings the instance holds 1 + 2s atoms.  A terminating control
(every student has some professor advisor: the minted advisors are not
students) saturates after a few firings and stays fixed as the budget grows.

Triggers are matched and heads checked with the shared join engine
(:func:`nesybench.reasoning.chainer.query`); the chase itself is the
existential step Datalog does not have.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import check_claim
from ...reasoning.chainer import query
from ...reasoning.terms import Atom, Literal, substitute


@dataclass(frozen=True)
class ExistentialRule:
    """``body -> exists Y. head``: body over X, head atoms over X and the existential Y."""

    body: tuple[Literal, ...]
    head: tuple[Atom, ...]
    existential: str = "Y"


@dataclass(frozen=True)
class ChaseRun:
    budget: int
    atoms: int
    firings: int
    saturated: bool


def restricted_chase(facts: list[Atom], rules: list[ExistentialRule], *, budget: int) -> ChaseRun:
    """Fire active triggers (body holds, head not yet satisfied) breadth first, at most ``budget``
    times."""
    instance = list(dict.fromkeys(facts))
    firings, nulls = 0, 0
    while True:
        fired_this_round = False
        for rule in rules:
            bindings, _ = query(rule.body, instance)
            for binding in sorted(bindings, key=lambda b: sorted(b.items())):
                # restricted chase: skip a trigger whose head is already satisfied
                head = [Literal(substitute(a, binding)) for a in rule.head]
                if query(head, instance)[0]:
                    continue
                if firings == budget:
                    return ChaseRun(budget, len(instance), firings, saturated=False)
                nulls += 1
                # a lower-case name: a constant to the join engine, not a variable
                binding = {**binding, rule.existential: f"null{nulls}"}
                instance.extend(
                    a for a in (substitute(h, binding) for h in rule.head) if a not in instance
                )
                firings += 1
                fired_this_round = True
        if not fired_this_round:
            return ChaseRun(budget, len(instance), firings, saturated=True)


def regress_program() -> tuple[list[Atom], list[ExistentialRule]]:
    """researcher(X) -> exists Y. advisedBy(X, Y), researcher(Y)."""
    rule = ExistentialRule(
        (Literal(Atom("researcher", ("X",))),),
        (Atom("advised_by", ("X", "Y")), Atom("researcher", ("Y",))),
    )
    return [Atom("researcher", ("alice",))], [rule]


def control_program() -> tuple[list[Atom], list[ExistentialRule]]:
    """student(X) -> exists Y. advisedBy(X, Y), professor(Y): minted professors trigger nothing."""
    rule = ExistentialRule(
        (Literal(Atom("student", ("X",))),),
        (Atom("advised_by", ("X", "Y")), Atom("professor", ("Y",))),
    )
    facts = [Atom("student", (s,)) for s in ("carol", "dave", "erin")] + [
        Atom("professor", ("alice",))
    ]
    return facts, [rule]


def run(budgets=(10, 20, 40)) -> dict[str, list[ChaseRun]]:
    return {
        "regress": [restricted_chase(*regress_program(), budget=b) for b in budgets],
        "control": [restricted_chase(*control_program(), budget=b) for b in budgets],
    }


def check(result: dict[str, list[ChaseRun]]) -> None:
    regress, control = result["regress"], result["control"]
    sizes = [r.atoms for r in regress]
    check_claim(
        not any(r.saturated for r in regress),
        f"termination: the regress chase must not saturate, got {regress}",
    )
    check_claim(
        all(x < y for x, y in zip(sizes, sizes[1:])),
        f"termination: sizes must grow strictly, got {sizes}",
    )
    check_claim(
        all(r.saturated for r in control), f"termination: the control must saturate, got {control}"
    )
    check_claim(
        len({r.atoms for r in control}) == 1,
        f"termination: the control must stay fixed, got {[r.atoms for r in control]}",
    )
