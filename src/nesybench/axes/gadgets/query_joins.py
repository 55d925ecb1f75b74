"""Axis 4, query joins: difficulty that lives in the question.

Boolean cycle queries q_k = exists x1..xk. edge(x1, x2), ..., edge(xk, x1)
over one frozen graph -- the complete loop-free digraph on 3 nodes, adjacency
M = J - I, no rules.  Witnesses are closed k-walks, tr(M^k) = 2^k + 2(-1)^k;
the answer is "yes" for every k, while the join probes grow with k and their
successive ratios fall towards the out-degree 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import check_claim
from ...reasoning.chainer import query
from ...reasoning.terms import Atom, Literal

NODES = ("n0", "n1", "n2")


@dataclass(frozen=True)
class CycleRow:
    k: int
    probes: int
    witnesses: int
    trace: int
    closed_form: int
    answer: bool


def graph() -> list[Atom]:
    return [Atom("edge", (x, y)) for x in NODES for y in NODES if x != y]


def cycle_query(k: int) -> list[Literal]:
    v = [f"X{i + 1}" for i in range(k)]
    return [Literal(Atom("edge", (v[i], v[(i + 1) % k]))) for i in range(k)]


def run(ks=range(2, 8)) -> list[CycleRow]:
    edges = graph()
    index = {n: i for i, n in enumerate(NODES)}
    m = np.zeros((len(NODES), len(NODES)), dtype=np.int64)
    for e in edges:
        m[index[e.args[0]], index[e.args[1]]] = 1
    rows = []
    for k in ks:
        bindings, probes = query(cycle_query(k), edges)
        trace = int(np.trace(np.linalg.matrix_power(m, k)))
        rows.append(CycleRow(k, probes, len(bindings), trace, 2**k + 2 * (-1) ** k, bool(bindings)))
    return rows


def check(rows: list[CycleRow]) -> None:
    for r in rows:
        check_claim(
            r.witnesses == r.trace == r.closed_form,
            f"query joins: witnesses of q_{r.k} must equal tr(M^k) = {r.closed_form}, got "
            f"{r.witnesses} (trace {r.trace})",
        )
        check_claim(r.answer, f"query joins: q_{r.k} must be answered yes")
    probes = [r.probes for r in rows]
    check_claim(
        all(x < y for x, y in zip(probes, probes[1:])),
        f"query joins: probes must grow with k, got {probes}",
    )
    ratios = [y / x for x, y in zip(probes, probes[1:])]
    check_claim(
        all(x > y > 2 for x, y in zip(ratios, ratios[1:])),
        f"query joins: probe ratios must fall towards 2, got {[round(q, 3) for q in ratios]}",
    )
