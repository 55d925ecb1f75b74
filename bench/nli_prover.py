"""Benchmark: the SLD prover against the forward chainer on the same goals.

Prints, per workload, the time to enumerate every answer of one goal by SLD
resolution and the time of one full forward closure (the baseline measured in
the same run) and their ratio; both answer sets are checked equal first.
Run from the repo root:  python bench/nli_prover.py
"""

from __future__ import annotations

import time

from nesybench.reasoning.chainer import forward_chain
from nesybench.reasoning.grammar.prontoqa import make_rule
from nesybench.reasoning.prover import Prover
from nesybench.reasoning.terms import Atom, Literal, Rule


def chain_program(hops: int, fanout: int):
    """A subclass chain with ``fanout`` dead-end distractors per hop (PrOntoQA shape)."""
    rules = []
    for i in range(hops):
        rules += [make_rule(f"c{i}", f"x{i}_{j}") for j in range(fanout)]
        rules.append(make_rule(f"c{i}", f"c{i + 1}"))
    return [Atom("c0", ("sam",))], rules, Atom(f"c{hops}", ("sam",))


def path_program(n: int):
    """Left-recursive transitive closure over a directed cycle of ``n`` nodes."""
    facts = [Atom("edge", (f"n{i}", f"n{(i + 1) % n}")) for i in range(n)]
    rules = [
        Rule(Atom("path", ("X", "Y")), (Literal(Atom("edge", ("X", "Y"))),)),
        Rule(
            Atom("path", ("X", "Z")),
            (Literal(Atom("path", ("X", "Y"))), Literal(Atom("edge", ("Y", "Z")))),
        ),
    ]
    return facts, rules, Atom("path", ("n0", f"n{n - 1}"))


def tree_program(depth: int):
    """Right-recursive ancestor over a binary tree; the goal asks for every descendant."""
    facts = [Atom("parent", (f"t{i}", f"t{2 * i + c}")) for i in range(1, 2**depth) for c in (0, 1)]
    rules = [
        Rule(Atom("anc", ("X", "Y")), (Literal(Atom("parent", ("X", "Y"))),)),
        Rule(
            Atom("anc", ("X", "Z")),
            (Literal(Atom("parent", ("X", "Y"))), Literal(Atom("anc", ("Y", "Z")))),
        ),
    ]
    return facts, rules, Atom("anc", ("t1", "W"))


def best_of(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    print(f"{'workload':32s} {'prove (ms)':>11s} {'closure (ms)':>13s} {'ratio':>7s}")
    workloads = [
        (f"chain hops={h} fanout={f}", chain_program(h, f)) for h, f in ((5, 1), (50, 1), (200, 4))
    ]
    workloads += [(f"left-recursive path n={n}", path_program(n)) for n in (10, 30)]
    workloads += [(f"all descendants, tree depth={d}", tree_program(d)) for d in (6, 9)]
    for name, (facts, rules, goal) in workloads:
        closure = forward_chain(facts, rules)
        expected = {
            a
            for a in closure.atoms
            if a.pred == goal.pred
            and all(g == x or g[0].isupper() for g, x in zip(goal.args, a.args))
        }
        assert {p.atom for p in Prover(facts, rules).solutions(goal)} == expected
        tp = best_of(lambda f=facts, r=rules, g=goal: list(Prover(f, r).solutions(g)))
        tc = best_of(lambda f=facts, r=rules: forward_chain(f, r))
        print(f"{name:32s} {tp * 1e3:11.2f} {tc * 1e3:13.2f} {tp / tc:7.2f}")


if __name__ == "__main__":
    main()
