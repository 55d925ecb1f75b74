"""Axis 7, scale: the same logic, a growing bill.

Transitive closure over citation chains of m edges, evaluated naively (every
wave re-joins every rule against the whole store) and semi-naively (every wave
seeded by the previous wave's delta).  Both closures equal an independent
oracle of size C(m + 1, 2) + m (every ordered pair along the chain plus the m
base edges) and take m waves; the naive bill grows like waves x store ~ m^3,
the semi-naive one slower, so their ratio grows roughly linearly in m.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from ...errors import check_claim
from ...reasoning.chainer import forward_chain
from ...reasoning.terms import Atom, Literal, Rule


@dataclass(frozen=True)
class ScaleRow:
    m: int
    closure: int
    expected: int
    waves_naive: int
    waves_semi: int
    probes_naive: int
    probes_semi: int
    oracle_equal: bool

    @property
    def ratio(self) -> float:
        return self.probes_naive / self.probes_semi


def chain(m: int) -> tuple[list[Atom], list[Rule]]:
    facts = [Atom("cites", (f"p{i}", f"p{i + 1}")) for i in range(m)]
    rules = [
        # reaches(X, Y) :- cites(X, Y).
        Rule(Atom("reaches", ("X", "Y")), (Literal(Atom("cites", ("X", "Y"))),)),
        # reaches(X, Z) :- cites(X, Y), reaches(Y, Z).
        Rule(
            Atom("reaches", ("X", "Z")),
            (Literal(Atom("cites", ("X", "Y"))), Literal(Atom("reaches", ("Y", "Z")))),
        ),
    ]
    return facts, rules


def oracle(m: int) -> set[Atom]:
    """The closure written down directly: every i < j along the chain, plus the edges."""
    out = {Atom("cites", (f"p{i}", f"p{i + 1}")) for i in range(m)}
    out |= {Atom("reaches", (f"p{i}", f"p{j}")) for i in range(m + 1) for j in range(i + 1, m + 1)}
    return out


def run(ms=(8, 16, 32)) -> list[ScaleRow]:
    rows = []
    for m in ms:
        facts, rules = chain(m)
        naive = forward_chain(facts, rules, strategy="naive")
        semi = forward_chain(facts, rules, strategy="semi-naive")
        equal = set(naive.atoms) == set(semi.atoms) == oracle(m) and naive.atoms == semi.atoms
        rows.append(
            ScaleRow(
                m,
                len(semi),
                comb(m + 1, 2) + m,
                naive.rounds,
                semi.rounds,
                naive.probes,
                semi.probes,
                equal,
            )
        )
    return rows


def check(rows: list[ScaleRow]) -> None:
    for r in rows:
        check_claim(
            r.oracle_equal and r.closure == r.expected,
            f"scale: m={r.m}: both closures must equal the oracle of size {r.expected}, got "
            f"{r.closure}",
        )
        check_claim(
            r.waves_naive == r.waves_semi == r.m,
            f"scale: m={r.m}: waves must be equal (= m), got {r.waves_naive}, {r.waves_semi}",
        )
        check_claim(r.probes_semi < r.probes_naive, f"scale: m={r.m}: semi-naive must probe less")
    ratios = [r.ratio for r in rows]
    check_claim(
        all(x < y for x, y in zip(ratios, ratios[1:])),
        f"scale: probe ratio must grow with m, got {ratios}",
    )
    for a, b in zip(rows, rows[1:]):
        # "roughly linear in m": doubling m should about double the ratio (within 25%)
        growth = (b.ratio / a.ratio) / (b.m / a.m)
        check_claim(
            0.75 <= growth <= 1.25,
            f"scale: ratio growth {b.ratio / a.ratio:.2f} is not roughly m-proportional "
            f"({b.m / a.m:.2f})",
        )
