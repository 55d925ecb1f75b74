"""What the pinned numeric environment costs: every job of the pipeline, pinned vs native.

    python bench/numeric_env.py [--params-override tests/profiles/tiny.yaml] [--rules a,b,...]

Two throw-away copies of the repository run the same stage commands (dvc.yaml's, one per
rule: ``--all-instances`` runs every seed of a rule in one process), in dependency order:

* pinned: the pipeline as it runs (nesybench.numeric_env: one BLAS thread, the OpenBLAS
  Nehalem kernel, numpy's baseline loops, libm without FMA, one re-exec per process);
* native: ``NESYBENCH_NUMERIC_ENV=native`` with the thread pins kept (one BLAS/OpenMP thread:
  the pipeline before the pin), so the difference is the kernel, the loops, libm and the
  re-exec, not oversubscription.

The two commands of a rule run back to back, the order alternating from rule to rule, so
both see the same load.  Prints CPU seconds (user + system of the job and its children) per
rule and in all, the ratio pinned/native, and the re-exec alone (a stage entry's start-up,
best of several), multiplied out over the Snakemake jobs of a run (each job is a process and
re-executes once).  Also how many artifacts the pin changes on this machine, against native;
with ``--factors N``, the N rules the pin costs most rerun with one pinned factor at a time
(the kernel, numpy's loops, libm) on top of native, to say where the cost comes from.

The machine is shared: read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from pipeline import _copy  # noqa: E402  (a throw-away copy of the repository)

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
PINNING = (
    *ONE_THREAD,
    "OPENBLAS_CORETYPE",
    "NPY_ENABLE_CPU_FEATURES",
    "NPY_DISABLE_CPU_FEATURES",
    "GLIBC_TUNABLES",
    "NESYBENCH_NUMERIC_ENV",
    "_NESYBENCH_NUMERIC_ENV_PINNED",
)
MODES = {"pinned": {}, "native": {"NESYBENCH_NUMERIC_ENV": "native", **ONE_THREAD}}
# One pinned factor at a time on top of native (--factors): which of them the cost comes from.
FACTORS = {
    "native + Nehalem kernel": {"OPENBLAS_CORETYPE": "Nehalem"},
    "native + baseline loops": {"NPY_ENABLE_CPU_FEATURES": "X86_V2"},
    "native + libm without FMA": {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-FMA,-FMA4"},
}
REEXEC_PROBE = "from nesybench.numeric_env import pin_numeric_environment as p; p()"


def _env(mode: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PINNING}
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if mode in FACTORS:
        return {**env, **MODES["native"], **FACTORS[mode]}
    return {**env, **MODES[mode]}


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], cwd: Path, mode: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one command run to completion."""
    cpu0, wall0 = _cpu_children(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(mode), capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, _cpu_children() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{mode}: {' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return cpu, wall


def _stages_in_order(root: Path, only: set[str] | None) -> list[tuple[str, str]]:
    """dvc.yaml's stages (but validate) as (name, cmd), every stage after those it reads."""
    stages = yaml.safe_load((root / "dvc.yaml").read_text())["stages"]
    stages.pop("validate")

    def reads(a: dict, b: dict) -> bool:  # does stage a read an output of stage b?
        outs = [next(iter(o)) if isinstance(o, dict) else o for o in b.get("outs", [])]
        return any(d == o or d.startswith(o.rstrip("/") + "/") for d in a["deps"] for o in outs)

    order, placed = [], set()
    while len(placed) < len(stages):
        ready = [
            n
            for n, s in stages.items()
            if n not in placed
            and not any(reads(s, stages[m]) for m in stages if m not in placed and m != n)
        ]
        if not ready:
            raise SystemExit("dvc.yaml: the stages read each other in a cycle")
        order.extend(ready)
        placed.update(ready)
    missing = (only or set()) - set(stages)
    if missing:
        raise SystemExit(f"--rules: no such dvc.yaml stage: {sorted(missing)}")
    return [(n, stages[n]["cmd"]) for n in order if only is None or n in only]


def _snakemake_jobs(root: Path) -> int:
    """How many processes a cold Snakemake run starts (its jobs, but the target rule ``all``)."""
    dry = subprocess.run(
        ["snakemake", "--cores", "1", "-n", "--forceall"],
        cwd=root,
        env=_env("pinned"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = dict(re.findall(r"^([a-z][a-z0-9_]*)\s+(\d+)$", dry, re.M))
    return int(counts["total"]) - int(counts.get("all", 0))


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.md5(p.read_bytes()).hexdigest()
        for base in ("data", "reports/metrics", "reports/plots")
        for p in sorted((root / base).rglob("*"))
        if p.is_file()
    } | {"reports/report.md": _md5(root / "reports/report.md")}


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest() if path.exists() else ""


def _reexec_cost(root: Path, repeats: int) -> tuple[float, float]:
    """Best CPU seconds of the pin call in a fresh interpreter: (pinned, native)."""
    best = {mode: float("inf") for mode in MODES}
    for _ in range(repeats):
        for mode in MODES:
            cpu, _ = _timed([sys.executable, "-c", REEXEC_PROBE], root, mode)
            best[mode] = min(best[mode], cpu)
    return best["pinned"], best["native"]


def _factors(stages: list[tuple[str, str]], cpu: dict, root: Path, n: int) -> None:
    """Rerun the ``n`` costliest rules once per mode and per single factor, in turn."""
    cost = {name: cpu["pinned"][name] - cpu["native"][name] for name, _ in stages}
    worst = sorted(stages, key=lambda stage: -cost[stage[0]])[:n]
    modes = [*MODES, *FACTORS]
    print(f"\n{'rule, CPU-s':<34}" + "".join(f" {m:>26}" for m in modes))
    for i, (name, cmd) in enumerate(worst):
        got = {}
        for mode in modes[:: 1 if i % 2 == 0 else -1]:
            got[mode], _ = _timed(cmd.split(), root, mode)
        base = got["native"]
        cells = "".join(f" {got[m]:18.2f} ({got[m] / base:4.2f}x)" for m in modes)
        print(f"{name:<34}{cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params-override", type=Path, default=None)
    parser.add_argument("--rules", default=None, help="comma-separated dvc.yaml stage names")
    parser.add_argument("--reexec-repeats", type=int, default=15)
    parser.add_argument(
        "--factors",
        type=int,
        default=0,
        metavar="N",
        help="then rerun the N rules the pin costs most, pinned, native and native with one "
        "pinned factor each (on the pinned run's inputs)",
    )
    args = parser.parse_args(argv)
    only = set(args.rules.split(",")) if args.rules else None
    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        roots = {m: _copy(Path(tmp) / m, args.params_override) for m in MODES}
        for root in roots.values():
            shutil.rmtree(root / "data", ignore_errors=True)
        stages = _stages_in_order(roots["pinned"], only)
        cpu = {m: {} for m in MODES}
        wall = dict.fromkeys(MODES, 0.0)
        print(f"{'rule':<34} {'pinned CPU-s':>12} {'native CPU-s':>12} {'ratio':>7}")
        for i, (name, cmd) in enumerate(stages):
            for mode in list(MODES)[:: 1 if i % 2 == 0 else -1]:
                cpu[mode][name], w = _timed(cmd.split(), roots[mode], mode)
                wall[mode] += w
            p, n = cpu["pinned"][name], cpu["native"][name]
            print(f"{name:<34} {p:12.2f} {n:12.2f} {p / n:6.2f}x")
        total = {m: sum(cpu[m].values()) for m in MODES}
        print(
            f"{'all ' + str(len(stages)) + ' rules':<34} {total['pinned']:12.1f} "
            f"{total['native']:12.1f} {total['pinned'] / total['native']:6.2f}x"
            f"   (wall, one job at a time: {wall['pinned']:.1f} s vs {wall['native']:.1f} s)"
        )

        pinned_start, native_start = _reexec_cost(roots["pinned"], args.reexec_repeats)
        reexec = pinned_start - native_start
        print(
            f"re-exec alone: {pinned_start * 1000:.0f} ms vs {native_start * 1000:.0f} ms CPU per "
            f"process start (+{reexec * 1000:.0f} ms)"
        )
        if only is not None:
            return 0
        jobs = _snakemake_jobs(roots["pinned"])
        extra = reexec * (jobs - len(stages))  # the rules above re-executed once each, not per job
        run_pinned, run_native = total["pinned"] + extra, total["native"]
        print(
            f"a Snakemake run of these params ({jobs} jobs, each a process that re-executes once):"
            f" {run_pinned:.1f} vs {run_native:.1f} CPU-s; the pin costs "
            f"{run_pinned - run_native:+.1f} CPU-s ({run_pinned / run_native:.2f}x), "
            f"{reexec * jobs:.1f} CPU-s of it the re-exec; on 2 cores about "
            f"{(run_pinned - run_native) / 2:+.1f} s of wall time"
        )
        if args.factors:
            _factors(stages, cpu, roots["pinned"], args.factors)
        a, b = _hashes(roots["pinned"]), _hashes(roots["native"])
        moved = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        committed = [k for k in moved if k.startswith("reports/")]
        print(
            f"artifacts the pin changes on this machine (vs native): {len(moved)} of "
            f"{len(a)}; committed files among them: {', '.join(committed) or 'none'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
