"""Benchmark of the optima counter (not a test): every ratio is measured in this run.

    python bench/counting_optima.py [--max-k-disentangled 8] [--seed 0]

1. joint N_opt of random 3-CNFs at k = 10, 20, 30, full support: one Ganak
   call for the class sizes, against enumerating the 2^k states (the baseline,
   where it fits in memory).
2. disentangled N_opt of k-bit parity at k = 4..8, full support: exact (the
   search of nesybench.counting; see bench/counting_disentangled.py for the
   comparison with the previous per-permutation path), approximate
   (ApproxMC on the single DIMACS formula), and literal enumeration of every
   (pi, f) where it runs.  The closed form k! * 2^(k-1) checks all three.  At k <= 5 it times
   Ganak on the single DIMACS formula with pi as variables (the artifact).
3. disentangled N_opt of random 3-CNFs at k = 4..6, support 0.75: exact (the
   search), approximate, and enumeration.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from nesybench.counting import (  # noqa: E402
    ExactCounter,
    count_optima,
    disentangled_encoding,
    enumerate_disentangled,
    label_class_sizes,
    support_states,
)
from nesybench.logic import all_states, make_knowledge, state_str  # noqa: E402
from nesybench.progress import log  # noqa: E402
from nesybench.seeds import child_rng  # noqa: E402
from nesybench.shortcuts.tasks import random_3cnf  # noqa: E402

STATE_ENUMERATION_MAX_K = 22  # 2^22 x 22 ints ~ 740 MB is the most this baseline may take


def timed(func, *args, **kwargs):
    started = time.perf_counter()
    value = func(*args, **kwargs)
    return value, time.perf_counter() - started


def enumerate_class_size(knowledge) -> int:
    """Baseline: label every one of the 2^k states (in chunks) and count label 1."""
    k = knowledge.k
    total = 0
    chunk_bits = min(k, 18)
    low = all_states(chunk_bits) if k > chunk_bits else None
    if low is None:
        return int(knowledge.labels(all_states(k)).sum())
    for high in range(2 ** (k - chunk_bits)):
        prefix = np.array([int(b) for b in format(high, f"0{k - chunk_bits}b")], dtype=np.int64)
        block = np.hstack([np.broadcast_to(prefix, (len(low), k - chunk_bits)), low])
        total += int(knowledge.labels(block).sum())
    return total


def bench_joint(seed: int) -> None:
    print("\n1. joint N_opt, random 3-CNF (m = 3k clauses), full support")
    print(
        f"  {'k':>3} {'#SAT(K)':>12} {'log2 N_opt':>16} {'count (s)':>10} {'states enum (s)':>16} "
        f"{'ratio':>8}"
    )
    for k in (10, 20, 30):
        knowledge = random_3cnf(k, 3 * k, child_rng(seed, "bench", k))
        result, seconds = timed(count_optima, knowledge, None)
        n0, n1 = label_class_sizes(knowledge)
        if k <= STATE_ENUMERATION_MAX_K:
            baseline, base_seconds = timed(enumerate_class_size, knowledge)
            assert baseline == n1, (baseline, n1)
            base, ratio = f"{base_seconds:.3f}", f"{base_seconds / seconds:.1f}x"
        else:
            base, ratio = "not run", "-"
        print(
            f"  {k:>3} {n1:>12,} {result.log2_n_opt:>16.6g} {seconds:>10.3f} {base:>16} {ratio:>8}",
            flush=True,
        )
        print(f"      N_opt = {n1:,}^{n1:,} * {n0:,}^{n0:,}   K = {knowledge.spec[:70]}...")


def bench_disentangled(max_k: int, seed: int) -> None:
    print("\n2. disentangled N_opt, k-bit parity, full support (closed form k! * 2^(k-1))")
    header = (
        f"  {'k':>3} {'N_opt':>10} {'exact (s)':>10} {'approx':>10} {'approx (s)':>11}"
        f" {'enum (s)':>9} {'enum/exact':>11} {'enum/approx':>12} {'1-formula (s)':>14}"
    )
    print(header)
    for k in range(4, max_k + 1):
        knowledge = make_knowledge("xor", k)
        support = [state_str(s) for s in all_states(k)]
        closed = math.factorial(k) * 2 ** (k - 1)
        exact, exact_s = timed(
            count_optima, knowledge, support, extractor="disentangled", method="exact"
        )
        approx, approx_s = timed(
            count_optima, knowledge, support, extractor="disentangled", method="approx", seed=seed
        )
        assert exact.n_opt == closed, (k, exact.n_opt, closed)
        within = closed / 1.8 <= approx.estimate <= closed * 1.8
        if k <= 6:
            enumerated, enum_s = timed(enumerate_disentangled, knowledge, support)
            assert enumerated == closed
            enum, r_exact, r_approx = (
                f"{enum_s:.3f}",
                f"{enum_s / exact_s:.1f}x",
                f"{enum_s / approx_s:.1f}x",
            )
        else:
            enum, r_exact, r_approx = "not run", "-", "-"
        if k <= 5:
            # Ganak on the single formula with pi as variables: what per-permutation counting
            # avoids.
            whole, whole_s = timed(
                lambda kn=knowledge, s=support: (
                    ExactCounter().count(disentangled_encoding(kn, s)).value
                )
            )
            assert whole == closed
            single = f"{whole_s:.3f}"
        else:
            single = "not run"
        print(
            f"  {k:>3} {exact.n_opt:>10,} {exact_s:>10.3f} "
            f"{approx.estimate:>10,}{'' if within else '!'} {approx_s:>11.3f} "
            f"{enum:>9} {r_exact:>11} {r_approx:>12} {single:>14}",
            flush=True,
        )
    print(
        "  approx: ApproxMC, (epsilon, delta) = (0.8, 0.2); '!' marks an estimate outside the "
        "factor 1 + epsilon"
    )
    print(
        "  reference (quoted, not measured here): the public rsbench counter needed about 293 s "
        "to encode and enumerate 4-bit XOR"
    )


def bench_disentangled_cnf(seed: int) -> None:
    print(
        "\n3. disentangled N_opt, random 3-CNF (m = k clauses), support fraction 0.75 (exact = "
        "the search)"
    )
    print(
        f"  {'k':>3} {'N_opt':>8} {'exact (s)':>10} {'approx':>8} {'approx (s)':>11} "
        f"{'enum (s)':>9} {'enum/exact':>11}"
    )
    for k in (4, 5, 6):
        knowledge = random_3cnf(k, k, child_rng(seed, "bench-dis", k))
        support = list(support_states(k, 0.75, seed=seed))
        exact, exact_s = timed(
            count_optima, knowledge, support, extractor="disentangled", method="exact"
        )
        approx, approx_s = timed(
            count_optima, knowledge, support, extractor="disentangled", method="approx", seed=seed
        )
        enumerated, enum_s = timed(enumerate_disentangled, knowledge, support)
        assert enumerated == exact.n_opt, (k, enumerated, exact.n_opt)
        print(
            f"  {k:>3} {exact.n_opt:>8,} {exact_s:>10.3f} {approx.estimate:>8,} {approx_s:>11.3f} "
            f"{enum_s:>9.3f} {enum_s / exact_s:>10.1f}x",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-k-disentangled", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    log("bench: joint counts at k = 10, 20, 30")
    bench_joint(args.seed)
    log(f"bench: disentangled counts at k = 4..{args.max_k_disentangled}")
    bench_disentangled(args.max_k_disentangled, args.seed)
    log("bench: disentangled counts of random 3-CNFs at k = 4..6")
    bench_disentangled_cnf(args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
