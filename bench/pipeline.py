"""The pipeline as a whole, against the landed code: a cold run (CPU per job, Snakemake's own
CPU, the wall on idle cores), a no-op rerun, a one-param change, and the seed sweep at 1 vs 2
cores, each tree in a throw-away copy.

    python bench/pipeline.py [--profile NAME | --params-override FILE] [--repeat 3]
                             [--sweep-seeds 8] [--no-landed | --landed COMMIT]
                             [--cold-only] [--nice N] [--top 12]
    python bench/pipeline.py [--profile NAME] --snakemake-alone [--nice N]

Prints seconds and ratios measured in the same run:

* both trees (``bench/baseline``: main before the speed-ups, and this one): a cold
  ``snakemake --cores 2``: its wall, its CPU (Snakemake and every job), each job's CPU (a
  measuring ``python`` on PATH), Snakemake's own share, and the wall the measured jobs would
  take on 2 idle cores (list scheduling over the DAG); the rules that cost most, landed vs
  this; then the no-op rerun, best of ``--repeat`` (target: under 3 s);
* this tree: a one-param change (``calibration.bootstrap.resamples``), which jobs rerun and how
  long; the calibration seed sweep at ``--cores 1`` and ``--cores 2`` (target: at least 1.7x).

``--profile full --no-landed --cold-only`` measures the full profile (about 1,230 jobs) in a
throw-away copy with ``workflow/profiles/full/params-overrides.yaml`` applied by the copy's own
``workflow/scripts/apply_overrides.py`` (validated, as a user applies it); ``--cold-only`` skips
the one-param change and the seed sweep, ``--nice 10`` runs Snakemake and its jobs niced.
``--snakemake-alone`` measures Snakemake's own cost on the DAG instead: every job a stand-in that
only creates its outputs, without the workflow profile and with it. The
landed tree on the full profile is hours of CPU. The machine is shared: read the ratios, the CPU
seconds and the load average printed beside the wall.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from baseline import LANDED, ROOT, landed_tree, tree_env
from baseline.jobs import dag_jobs, job_cpu, job_shim, makespan, run_measured, stand_in_shim


def _run(cmd: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=tree_env(cwd), capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return elapsed, proc.stdout + proc.stderr


def _copy(dest: Path, override: Path | None, source: Path = ROOT) -> Path:
    """A copy of ``source`` (this tree's tracked files, or a landed tree) under ``dest`` with
    ``override`` applied to its params.yaml by the copy's own apply_overrides.py."""
    if source == ROOT:
        files = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        for rel in files:
            src = ROOT / rel
            if src.is_symlink() or src.is_file():  # profiles/default is a link
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel, follow_symlinks=False)
    else:
        shutil.copytree(source, dest)
    if override:
        script = dest / "workflow" / "scripts" / "apply_overrides.py"
        _run([sys.executable, str(script), str(override.resolve())], dest)
    return dest


def _jobs(dry_run: str) -> dict[str, int]:
    counts = {}
    for line in dry_run.splitlines():
        m = re.fullmatch(r"([a-z][a-z0-9_]*)\s+(\d+)", line.strip())
        if m and m.group(1) not in ("total", "job"):
            counts[m.group(1)] = int(m.group(2))
    return counts


def _set(root: Path, section: str, path: list[str], value) -> None:
    params = yaml.safe_load((root / "params.yaml").read_text())
    node = params[section]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def cold_and_noop(name: str, tree: Path, tmp: Path, repeat: int, nice: int = 0) -> dict:
    """A cold run with every job's CPU measured, then the no-op rerun, best of ``repeat``."""
    shim = job_shim(tmp / f"shim-{name}")
    cmd = ["nice", "-n", str(nice)] * bool(nice) + ["snakemake", "--cores", "2"]
    cold = run_measured(cmd, tree, shim, tmp / f"jobs-{name}.log")
    dag = dag_jobs(tree)
    seconds = job_cpu(dag, cold["jobs"])
    wall2, critical = makespan(dag, seconds, cores=2)
    jobs_cpu = sum(cold["jobs"].values())
    own = cold["cpu"] - jobs_cpu
    noops = [_run(["snakemake", "--cores", "2"], tree)[0] for _ in range(repeat)]
    by_rule: dict[str, float] = {}
    n_by_rule: dict[str, int] = {}
    rule_of = {job["cmd"].removeprefix("python ").strip(): job["rule"] for job in dag}
    for command, cpu in cold["jobs"].items():
        rule = rule_of.get(command, command)
        by_rule[rule] = by_rule.get(rule, 0.0) + cpu
        n_by_rule[rule] = n_by_rule.get(rule, 0) + 1
    return {
        "wall": cold["wall"],
        "cpu": cold["cpu"],
        "jobs_cpu": jobs_cpu,
        "n_jobs": len(cold["jobs"]),
        "own": own,
        # Snakemake's own CPU shares the cores with the jobs
        "idle_wall": wall2 + own / 2,
        "critical": critical,
        "noop": min(noops),
        "noops": noops,
        "by_rule": by_rule,
        "n_by_rule": n_by_rule,
        "load_mean": cold["load_mean"],
        "load_max": cold["load_max"],
    }


def snakemake_alone(tree: Path, tmp: Path, nice: int = 0) -> None:
    """Snakemake's own cost on ``tree``'s DAG: every job replaced by a stand-in that only
    creates its outputs, without the workflow profile (``--workflow-profile none``: the ILP
    scheduler, no subsample) and with it (profiles/default), one after the other."""
    import os

    dag = dag_jobs(tree)
    folder, outs = stand_in_shim(tmp / "stand-in", dag)
    env = tree_env(tree)
    env["PATH"] = f"{folder}{os.pathsep}{env['PATH']}"
    env["NESYBENCH_STAND_IN_OUTS"] = str(outs)
    print(f"Snakemake alone on {len(dag)} stand-in jobs, --cores 2:")
    for label, extra in (("without the workflow profile", ["--workflow-profile", "none"]),
                         ("with profiles/default", [])):  # fmt: skip
        for stale in ("data", ".snakemake"):
            shutil.rmtree(tree / stale, ignore_errors=True)
        cmd = ["nice", "-n", str(nice)] * bool(nice) + ["snakemake", "--cores", "2", *extra]
        cpu0, t0, load0 = _children_cpu(), time.perf_counter(), os.getloadavg()[0]
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
        print(f"  {label:<32} wall {wall:7.1f} s  CPU {cpu:7.1f} s  "
              f"(load {load0:.1f} -> {os.getloadavg()[0]:.1f})")  # fmt: skip


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _print_trees(results: dict[str, dict], top: int) -> None:
    names = list(results)
    print(f"{'cold run, --cores 2':<44}" + "".join(f"{n:>14}" for n in names) + "   ratio")
    rows = [
        ("wall (this machine, loaded)", "wall", "s"),
        ("CPU, Snakemake and every job", "cpu", "s"),
        ("CPU of the jobs", "jobs_cpu", "s"),
        ("CPU of Snakemake itself", "own", "s"),
        ("critical path of the jobs (CPU)", "critical", "s"),
        ("wall on 2 idle cores (estimate)", "idle_wall", "s"),
        ("load average during the cold run (mean)", "load_mean", " "),
        ("load average during the cold run (max)", "load_max", " "),
        ("no-op rerun, best of the repeats", "noop", "s"),
    ]
    for label, key, unit in rows:
        values = [results[n][key] for n in names]
        ratio = f"{values[0] / values[-1]:7.2f}x" if len(values) > 1 and values[-1] else ""
        print(f"{label:<44}" + "".join(f"{v:>13.1f}{unit}" for v in values) + f"  {ratio}")
    print(f"{'jobs':<44}" + "".join(f"{results[n]['n_jobs']:>14}" for n in names))
    print("no-op reruns: " + "; ".join(
        f"{n} " + ", ".join(f"{t:.2f}" for t in results[n]["noops"]) for n in names
    ) + " s (target: under 3 s)")  # fmt: skip
    last = results[names[-1]]["by_rule"]
    first = results[names[0]]["by_rule"]
    ranked = sorted(set(first) | set(last), key=lambda r: -first.get(r, last.get(r, 0.0)))
    total = sum(last.values()) or 1.0
    print(f"\n{'CPU by rule (s)':<44}" + "".join(f"{n:>14}" for n in names) + "   ratio"
          + f"{'jobs':>7}{'s/job':>8}{'share':>7}")  # fmt: skip
    for rule in ranked[:top]:
        values = [results[n]["by_rule"].get(rule, 0.0) for n in names]
        ratio = f"{values[0] / values[-1]:7.2f}x" if len(values) > 1 and values[-1] else " " * 8
        n_jobs = results[names[-1]]["n_by_rule"].get(rule, 0)
        per_job = values[-1] / n_jobs if n_jobs else 0.0
        print(f"{rule:<44}" + "".join(f"{v:>14.1f}" for v in values) + f"  {ratio}"
              + f"{n_jobs:>7}{per_job:>8.2f}{values[-1] / total:>7.1%}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--profile", default=None, help="e.g. full: workflow/profiles/NAME's "
                       "params-overrides.yaml applied in the copies")  # fmt: skip
    which.add_argument("--params-override", type=Path, default=None)
    parser.add_argument("--sweep-seeds", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="no-op reruns (best is printed)")
    parser.add_argument("--no-landed", action="store_true", help="this tree only")
    parser.add_argument("--landed", default=LANDED, help=f"the commit to compare with ({LANDED})")
    parser.add_argument("--top", type=int, default=12, help="rules listed by CPU")
    parser.add_argument(
        "--cold-only", action="store_true", help="no one-param change, no seed sweep"
    )
    parser.add_argument("--nice", type=int, default=0, help="run snakemake under nice -n N")
    parser.add_argument(
        "--snakemake-alone",
        action="store_true",
        help="only Snakemake's own cost on the DAG (stand-in jobs), without and with the profile",
    )
    args = parser.parse_args()
    if args.profile:
        args.params_override = (
            ROOT / "workflow" / "profiles" / args.profile / "params-overrides.yaml"
        )
        if not args.params_override.is_file():
            parser.error(f"--profile must name a folder of workflow/profiles with a "
                         f"params-overrides.yaml, got {args.profile!r}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        tmp = Path(tmp)
        if args.snakemake_alone:
            snakemake_alone(_copy(tmp / "repo", args.params_override), tmp, args.nice)
            return 0
        trees = {}
        if not args.no_landed:
            trees["landed"] = _copy(
                tmp / "landed", args.params_override, landed_tree(tmp, args.landed)
            )
        trees["this"] = _copy(tmp / "repo", args.params_override)
        results = {
            name: cold_and_noop(name, tree, tmp, args.repeat, args.nice)
            for name, tree in trees.items()
        }
        _print_trees(results, args.top)
        if args.cold_only:
            return 0
        root = trees["this"]
        cold = results["this"]["wall"]

        resamples = yaml.safe_load((root / "params.yaml").read_text())["calibration"]["bootstrap"]
        _set(root, "calibration", ["bootstrap", "resamples"], resamples["resamples"] + 1)
        _, dry = _run(["snakemake", "--cores", "2", "-n"], root)
        changed, _ = _run(["snakemake", "--cores", "2"], root)
        print(
            f"one-param change (calibration.bootstrap.resamples): {changed:.1f} s "
            f"({changed / cold:.2f} of cold); reran {_jobs(dry)}"
        )

        _set(root, "calibration", ["n_seeds"], args.sweep_seeds)
        seed_rules = [
            "calibration_generate_seed",
            "calibration_train_seed",
            "calibration_score_seed",
            "calibration_calibrate_seed",
        ]
        timings = {}
        for cores in (1, 2):
            shutil.rmtree(root / "data" / "generate" / "calibration", ignore_errors=True)
            for stage in ("train", "score", "calibrate"):
                shutil.rmtree(root / "data" / stage / "calibration", ignore_errors=True)
            targets = [
                f"data/calibrate/calibration/seed/seed-{s}/summary.parquet"
                for s in range(args.sweep_seeds)
            ]
            timings[cores], _ = _run(["snakemake", "--cores", str(cores), *targets], root)
        speedup = timings[1] / timings[2]
        print(
            f"seed sweep ({args.sweep_seeds} seeds x {len(seed_rules)} jobs): "
            f"{timings[1]:.1f} s at 1 core, {timings[2]:.1f} s at 2 cores: speed-up {speedup:.2f}x "
            f"(target >= 1.7x); {timings[1] / args.sweep_seeds:.1f} s per seed at 1 core"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
