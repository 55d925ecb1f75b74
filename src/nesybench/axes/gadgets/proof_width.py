"""Axis 3, proof width: the same depth, a 2^k bill.

A propositional ladder with k rungs, a_i -> b_i -> a_{i+1}, and its disjunctive
twin a_i -> b_i v c_i, b_i -> a_{i+1}, c_i -> a_{i+1}.  A case-splitting
prover must reach a_k in every branch of every disjunction: the open branches
double per rung, L(i + 1) = 2 L(i), so L(k) = 2^k leaves, while each branch
pays one split and one definite firing per rung: depth 2k in both ladders
(the Horn depth is read from the forward chainer).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import check_claim
from ...reasoning.chainer import forward_chain
from ...reasoning.terms import Atom, Literal, Rule

Clause = tuple[str, tuple[str, ...]]  # premise -> disjunction of conclusions


def ladder(k: int, *, disjunctive: bool) -> list[Clause]:
    clauses: list[Clause] = []
    for i in range(k):
        if disjunctive:
            clauses.append((f"a{i}", (f"b{i}", f"c{i}")))
            clauses.append((f"c{i}", (f"a{i + 1}",)))
        else:
            clauses.append((f"a{i}", (f"b{i}",)))
        clauses.append((f"b{i}", (f"a{i + 1}",)))
    return clauses


def case_split(clauses: list[Clause], start: str, goal: str) -> tuple[int, list[int]]:
    """Leaves of the case-splitting proof of ``goal`` from ``start`` and each branch's depth.

    A step is one definite firing (a clause with one conclusion not yet known)
    or, when none applies, one split on the first applicable disjunction.
    """
    leaves, depths = 0, []
    stack = [(frozenset({start}), 0)]
    while stack:
        known, depth = stack.pop()
        if goal in known:
            leaves += 1
            depths.append(depth)
            continue
        definite = next(
            (c[0] for p, c in clauses if len(c) == 1 and p in known and c[0] not in known), None
        )
        if definite is not None:
            stack.append((known | {definite}, depth + 1))
            continue
        split = next(
            (c for p, c in clauses if len(c) > 1 and p in known and not set(c) & known), None
        )
        if split is None:
            raise RuntimeError(f"{goal} is not entailed: a branch closed without it")
        for choice in reversed(split):
            stack.append((known | {choice}, depth + 1))
    return leaves, depths


@dataclass(frozen=True)
class WidthResult:
    k: int
    horn_leaves: int
    horn_depth: int
    horn_chainer_depth: int
    disjunctive_leaves: int
    disjunctive_depths: tuple[int, ...]


def run(k: int = 10) -> WidthResult:
    horn = ladder(k, disjunctive=False)
    h_leaves, h_depths = case_split(horn, "a0", f"a{k}")
    d_leaves, d_depths = case_split(ladder(k, disjunctive=True), "a0", f"a{k}")
    # The Horn ladder is Datalog: its depth must agree with the forward chainer's.
    rules = [Rule(Atom(c[0]), (Literal(Atom(p)),)) for p, c in horn]
    chainer_depth = forward_chain([Atom("a0")], rules).depth(Atom(f"a{k}"))
    return WidthResult(
        k, h_leaves, h_depths[0], chainer_depth, d_leaves, tuple(sorted(set(d_depths)))
    )


def check(r: WidthResult) -> None:
    check_claim(
        r.horn_leaves == 1 and r.horn_depth == r.horn_chainer_depth == 2 * r.k,
        f"proof width: the Horn ladder must close in one leaf at depth 2k = {2 * r.k}, got {r}",
    )
    check_claim(
        r.disjunctive_depths == (r.horn_depth,),
        f"proof width: every disjunctive branch must have the Horn depth {r.horn_depth}, got "
        f"{r.disjunctive_depths}",
    )
    check_claim(
        r.disjunctive_leaves == 2**r.k,
        f"proof width: the disjunctive ladder must need 2^k = {2**r.k} leaves, got "
        f"{r.disjunctive_leaves}",
    )
