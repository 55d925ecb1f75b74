"""Benchmark: naive vs semi-naive forward chaining vs clingo on citation chains.

    python bench/axes_closure.py [--max-m 512] [--max-naive-m 256]

Transitive closure of a chain of m citations (closure C(m+1, 2) + m atoms,
m waves).  Prints, per m, the probe counts of both strategies of the shared
chainer and their ratio, and wall-clock ratios against semi-naive measured in
the same run: naive / semi-naive and semi-naive / clingo (clingo grounds and
solves the same program; it is an independent engine, used here as the
baseline, and its atom count is checked against ours).  Not a test: timings
vary by machine; the ratios are what to read.
"""

from __future__ import annotations

import argparse
import sys
import time

import clingo

from nesybench.axes.gadgets.scale import chain
from nesybench.progress import log
from nesybench.reasoning.chainer import forward_chain


def clingo_closure(m: int) -> tuple[int, float]:
    program = "".join(f"cites(p{i},p{i + 1}).\n" for i in range(m))
    program += "reaches(X,Y) :- cites(X,Y).\nreaches(X,Z) :- cites(X,Y), reaches(Y,Z).\n"
    started = time.perf_counter()
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    atoms: list[int] = []
    ctl.solve(on_model=lambda model: atoms.append(len(model.symbols(atoms=True))))
    return atoms[0], time.perf_counter() - started


def timed(facts, rules, strategy):
    started = time.perf_counter()
    closure = forward_chain(facts, rules, strategy=strategy)
    return closure, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-m", type=int, default=512)
    parser.add_argument(
        "--max-naive-m", type=int, default=256, help="skip naive above this m (its cost is ~m^3)"
    )
    args = parser.parse_args(argv)
    ms = [m for m in (8, 16, 32, 64, 128, 256, 512, 1024) if m <= args.max_m]
    header = (
        f"{'m':>5} {'closure':>8} {'waves':>6} {'probes naive':>14} {'probes semi':>12} "
        f"{'probe ratio':>11} "
        f"{'t naive/semi':>12} {'t semi/clingo':>13}"
    )
    print(header)
    for m in ms:
        facts, rules = chain(m)
        log(f"m = {m}: semi-naive")
        semi, t_semi = timed(facts, rules, "semi-naive")
        log(f"m = {m}: clingo")
        n_clingo, t_clingo = clingo_closure(m)
        if n_clingo != len(semi):
            print(
                f"m = {m}: clingo finds {n_clingo} atoms, the chainer {len(semi)}", file=sys.stderr
            )
            return 1
        if m <= args.max_naive_m:
            log(f"m = {m}: naive")
            naive, t_naive = timed(facts, rules, "naive")
            if naive.atoms != semi.atoms or naive.rounds != semi.rounds:
                print(f"m = {m}: naive and semi-naive disagree", file=sys.stderr)
                return 1
            naive_cols = (
                f"{naive.probes:>14,} {semi.probes:>12,} {naive.probes / semi.probes:>10.1f}x "
                f"{t_naive / t_semi:>11.1f}x"
            )
        else:
            naive_cols = f"{'-':>14} {semi.probes:>12,} {'-':>11} {'-':>12}"
        print(
            f"{m:>5} {len(semi):>8,} {semi.rounds:>6} {naive_cols} {t_semi / t_clingo:>12.1f}x",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
