"""Benchmark of exact counts on sparse supports (not a test): the ratio to the landed code is
measured in this run.

    python bench/counting_sparse.py [--ks 12,14,16] [--fracs 0.01,0.1,0.5,0.9,1]
                                    [--families disentangled] [--timeout 30]
                                    [--landed d7f09c5] [--seed 0] [--fallback none]
    python bench/counting_sparse.py --seeds 0-19 [--ks ...] [--fracs ...] [--timeout 12]
    python bench/counting_sparse.py --seeds 0-19 --plan [--ks ...] [--fracs ...]

The target: exact disentangled and shared counts of random 3-CNFs near the
satisfiability threshold (m = round(4.26 k) clauses, ``random_3cnf``), k = 12, 14, 16, at
each support fraction (``support_states``), within 10 s each.

Each count runs in a process of its own under a 4 GiB address-space limit and a wall-clock
limit of ``--timeout`` seconds, once on this checkout and once on the landed code (the
commit ``--landed``, by default main with the count from the small label class reverted, exported
by ``bench/baseline``'s ``landed_tree`` and put first on
PYTHONPATH); only the count is timed (not start-up, not building the task).  Where both
finish, their counts are asserted equal.  The ratio column is landed / new; ``>`` marks a
landed run that was stopped at the time limit (or refused at its budget), so the ratio is a
lower bound.

Whether a count meets the target depends on the seed (how many models the formula has and
whether the support observes one), so ``--seeds A-B`` runs this checkout alone on every seed
of the range and prints, per cell, on how many seeds the count finished within the target,
with its Wilson 95% interval, the median time, and how the seeds that missed were made
(models of the formula, models observed).  It times this checkout only: its figures are a
distribution, not a ratio.

``--plan`` counts nothing: per cell it prints how the sweep over the inputs would take each
seed's groups of class points (``inputsweep.plan``): on how many seeds every group has a
closed form or fits the cells, and, for the others, the groups left to the sweep (points
over outputs spanned), the ones that decide whether a seed meets the target at low support.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from baseline import landed_tree

ROOT = Path(__file__).resolve().parent.parent
AS_LIMIT = 4 * 2**30
TARGET_S = 10.0
LANDED = "d7f09c5"  # main with the count from the small label class reverted

WORKER = r"""
import json, sys, time
from nesybench.counting import CountingTask, count_disentangled, count_shared, support_states
from nesybench.logic import all_states
from nesybench.seeds import child_rng
from nesybench.shortcuts.tasks import random_3cnf

k, frac, family, seed = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
options = {"fallback": sys.argv[5]} if sys.argv[5] != "none" else {}
knowledge = random_3cnf(k, round(4.26 * k), child_rng(seed, "bench-sparse", k))
task = CountingTask(knowledge, support_states(k, frac, seed=seed))
n1 = int(knowledge.labels(all_states(k)).sum())
o1 = int(knowledge.labels(task.observed_rows()).sum())
print(json.dumps({"n1": n1, "o1": o1}), flush=True)  # the task, before a count that may not end
count = count_disentangled if family == "disentangled" else count_shared
started = time.perf_counter()
try:
    result = count(task, **options)
    out = {"n_opt": str(result.n_opt), "engine": result.engine, "exact": result.exact}
except Exception as exc:  # the landed search refuses at its budget
    out = {"refused": str(exc)[:160]}
out.update(seconds=time.perf_counter() - started, n1=n1, o1=o1, n_observed=task.n_observed)
print(json.dumps(out))
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def run(
    pythonpath: Path, k: int, frac: float, family: str, seed: int, timeout: float, fallback="none"
) -> dict:
    env = dict(os.environ, PYTHONPATH=str(pythonpath), OMP_NUM_THREADS="1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        done = subprocess.run(
            [sys.executable, "-c", WORKER, str(k), str(frac), family, str(seed), fallback],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_limit,
        )
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout
        first = (out or "").strip().splitlines()[:1]  # the task's line, printed before counting
        return {"timeout": timeout, **(json.loads(first[0]) if first else {})}
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1][:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(result: dict) -> tuple[str, float | None, bool]:
    """(text, seconds, finished)."""
    if "timeout" in result:
        return f">{result['timeout']:g} (stopped)", result["timeout"], False
    if "failed" in result:
        return "failed", None, False
    if "refused" in result:
        return f"{result['seconds']:.2f} (refused)", result["seconds"], False
    return f"{result['seconds']:.3f}", result["seconds"], True


def _engine(result: dict) -> str:
    """The engine that answered on this checkout, shortened; ``~`` marks an estimate."""
    engine = result.get("engine", "")
    short = engine.split(":")[0].split(" with ")[0]
    if short.startswith("count from the small label class ("):  # which of its counts
        short = "small class, " + short.split("(", 1)[1].rstrip(")")
    return ("" if result.get("exact", True) else "~") + short


def _title(args, what: str) -> None:
    print(
        f"random 3-CNF, m = round(4.26 k); {what}; time limit {args.timeout:g} s per count; "
        f"target {TARGET_S:g} s"
    )


def _cells(args, ks: list[int], fracs: list[float]):
    """(family, k, support fraction, fallback) of every cell, in the table's order."""
    for family in args.families.split(","):
        for k in ks:
            for frac in fracs:
                yield family, k, frac, args.fallback if family == "disentangled" else "none"


def _seed_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def seeds_table(args, ks: list[int], fracs: list[float]) -> int:
    """Per cell: the seeds whose count finished within the target, over ``--seeds``."""
    from nesybench.metrics.stats import wilson_interval

    seeds = _seed_range(args.seeds)
    _title(args, f"this checkout only; seeds {seeds[0]}-{seeds[-1]}")
    print(
        f"  {'family':>12} {'k':>3} {'frac':>5} {'met':>7} {'95% interval':>14} "
        f"{'median (s)':>10}  missed seeds (models, observed)  engines that answered"
    )
    for family, k, frac, fallback in _cells(args, ks, fracs):
        met, times, missed, engines = 0, [], [], {}
        for seed in seeds:
            result = run(ROOT / "src", k, frac, family, seed, args.timeout, fallback)
            _, seconds, finished = cell(result)
            times.append(seconds if seconds is not None else args.timeout)
            if finished and seconds < TARGET_S:
                met += 1
                name = _engine(result)
                engines[name] = engines.get(name, 0) + 1
            else:
                missed.append(f"{seed} ({result.get('n1', '?')}, {result.get('o1', '?')})")
        lo, hi = wilson_interval(met, len(seeds))
        used = ", ".join(f"{name} {n}" for name, n in sorted(engines.items()))
        print(
            f"  {family:>12} {k:>3} {frac:>5g} {met:>3}/{len(seeds):<3} "
            f"{f'[{lo:.2f}, {hi:.2f}]':>14} {sorted(times)[len(times) // 2]:>10.2f}  "
            f"{' '.join(missed) or '-'}  {used or '-'}",
            flush=True,
        )
    return 0


def plan_table(ks: list[int], fracs: list[float], seeds: list[int]) -> int:
    """Per cell: how the sweep over the inputs would count each seed's groups (no count)."""
    from nesybench.counting import CountingTask, inputsweep, support_states
    from nesybench.logic import all_states, states_index
    from nesybench.seeds import child_rng
    from nesybench.shortcuts.tasks import random_3cnf

    print(
        f"random 3-CNF, m = round(4.26 k); the sweep's plan, seeds {seeds[0]}-{seeds[-1]}: "
        "seeds whose groups all have a closed form or fit the cells; the others' groups left "
        "to the sweep (points/span)"
    )
    print(f"  {'k':>3} {'frac':>5} {'all closed':>10} {'other engine':>12}  swept groups by seed")
    for k in ks:
        for frac in fracs:
            closed, other, swept = 0, 0, []
            for seed in seeds:
                knowledge = random_3cnf(k, round(4.26 * k), child_rng(seed, "bench-sparse", k))
                task = CountingTask(knowledge, support_states(k, frac, seed=seed))
                codes = knowledge.labels(all_states(k))
                observed = states_index(task.observed_rows(), task.domains)
                if not inputsweep.applies(codes, task.domains, None, False):
                    other += 1
                    continue
                left = [
                    (g, d) for how, g, d in inputsweep.plan(codes, k, observed) if how == "sweep"
                ]
                if not left:
                    closed += 1
                    continue
                largest = max(g for g, _ in left)
                spans = sorted({d for _, d in left})
                swept.append(
                    f"{seed}: {len(left)} (largest {largest} points; spans {spans[0]}-{spans[-1]})"
                )
            print(
                f"  {k:>3} {frac:>5g} {closed:>6}/{len(seeds):<3} {other:>12}  "
                f"{'; '.join(swept) or '-'}",
                flush=True,
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ks", default="12,14,16")
    parser.add_argument("--fracs", default="0.01,0.1,0.5,0.9,1")
    parser.add_argument("--families", default="disentangled")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--landed", default=LANDED)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--fallback",
        default="none",
        choices=("none", "ganak", "approx"),
        help="count_disentangled's fallback on this checkout (the landed code has none)",
    )
    parser.add_argument(
        "--seeds",
        default=None,
        help="A-B: this checkout alone on every seed of the range, the share meeting the target",
    )
    parser.add_argument(
        "--plan",
        action="store_true",
        help="with --seeds: how each seed's groups would be counted (nothing is counted)",
    )
    args = parser.parse_args(argv)
    ks = [int(v) for v in args.ks.split(",")]
    fracs = [float(v) for v in args.fracs.split(",")]
    if args.plan:
        return plan_table(ks, fracs, _seed_range(args.seeds or str(args.seed)))
    if args.seeds is not None:
        return seeds_table(args, ks, fracs)
    with tempfile.TemporaryDirectory(prefix="nesybench-landed-") as tmp:
        landed = landed_tree(Path(tmp), args.landed) / "src"
        new = ROOT / "src"
        _title(args, f"landed = {args.landed}")
        print(
            f"  {'family':>12} {'k':>3} {'frac':>5} {'|S1|':>5} {'|O1|':>5} {'N_opt':>24} "
            f"{'new (s)':>16} {'landed (s)':>18} {'landed/new':>11}  target  new engine"
        )
        for family, k, frac, fallback in _cells(args, ks, fracs):
            a = run(new, k, frac, family, args.seed, args.timeout, fallback)
            b = run(landed, k, frac, family, args.seed, args.timeout)
            a_text, a_s, a_ok = cell(a)
            b_text, b_s, b_ok = cell(b)
            if a_ok and b_ok and a.get("exact", True):
                assert a["n_opt"] == b["n_opt"], (family, k, frac, a, b)
            if a_s and b_s:
                ratio = f"{'' if b_ok else '>'}{b_s / max(a_s, 1e-4):,.1f}x"
            else:
                ratio = "-"
            met = "ok" if a_ok and a_s < TARGET_S else "MISSED"
            info = a if "n1" in a else b
            print(
                f"  {family:>12} {k:>3} {frac:>5g} {info.get('n1', '?'):>5} "
                f"{info.get('o1', '?'):>5} {a.get('n_opt', '-'):>24} {a_text:>16} "
                f"{b_text:>18} {ratio:>11}  {met}  {_engine(a)}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
