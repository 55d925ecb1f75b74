"""Benchmark: the shortcuts seed sweep, its batching and its parallel speed-up.

Prints
  0. one block's digit models (every support x mitigation x seed of the default params)
     trained by the landed code (``bench/baseline``: main before the speed-ups) and by this
     tree, in CPU seconds, the speed-up, and whether the weights are the same bytes;
  1. the concept nets' throughput: one net alone vs a block of seeds trained as one batch
     (label-only nets and their twins), in model-epochs/s, and the batching speed-up;
  2. the cost per seed of every block job (train / score / calibrate, concept nets and digit
     models), in CPU seconds, measured by running the jobs in-process on the default params;
  3. the sweep's block jobs (one block per seed) on a pool of 1 and of 2 worker processes:
     wall time of each and the ratio (target: at least 1.7x on 2 idle cores).

Run from the repository root:  python bench/shortcuts_training.py [--seeds N]
Writes only under a temporary directory.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one BLAS thread per process: the sweep parallelises over processes

import argparse  # noqa: E402
import multiprocessing as mp  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from contextlib import redirect_stderr, redirect_stdout  # noqa: E402
from pathlib import Path  # noqa: E402

import yaml  # noqa: E402

from nesybench.io import read_parquet  # noqa: E402
from nesybench.shortcuts import concept_sweep as cs  # noqa: E402
from nesybench.shortcuts.artifacts import ARTIFACTS  # noqa: E402
from nesybench.shortcuts.tasks import certified_tasks  # noqa: E402
from nesybench.stages import run_job  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BLOCK_JOBS = [
    ("train", "concepts"),
    ("train", "digits"),
    ("score", "concepts"),
    ("score", "digits"),
    ("calibrate", "concepts"),
    ("calibrate", "digits"),
]


def _section(n_seeds: int) -> dict:
    with open(ROOT / "params.yaml", encoding="utf-8") as handle:
        section = yaml.safe_load(handle)["shortcuts"]
    section.update(n_seeds=n_seeds, seed_block=1)
    return section


def _job(root, section, stage, step, **args) -> float:
    """Run one job in this process (its console tables and log lines muted); its CPU seconds."""
    start = time.process_time()
    with open(os.devnull, "w") as sink, redirect_stdout(sink), redirect_stderr(sink):
        run_job(
            "shortcuts",
            stage,
            step,
            params={"shortcuts": section},
            root=Path(root),
            args={k: str(v) for k, v in args.items()},
        )
    return time.process_time() - start


def _generated(root, section) -> None:
    _job(root, section, "generate", None)
    _job(root, section, "generate", "digits")


def throughput(section: dict) -> None:
    with tempfile.TemporaryDirectory() as root:
        _generated(root, section)
        points = read_parquet(Path(root) / "data/generate/shortcuts/model_points.parquet")
        tasks = certified_tasks(
            read_parquet(Path(root) / ARTIFACTS.path("generate", "certificate"))
        )
    models = section["models"]
    data = cs.load_dataset(points, tasks[models["task"]], models["support_frac"])
    config = cs.model_config(models)
    rates = {}
    for n_seeds in (1, 5, 20):
        start = time.perf_counter()
        _, keys = cs.train_block(
            data, seeds=range(n_seeds), config=config, twin_points=models["concept_sup_points"]
        )
        elapsed = time.perf_counter() - start
        rates[n_seeds] = len(keys) * config.epochs / elapsed
        print(
            f"  {n_seeds:3d} seed(s) = {len(keys):3d} nets x {config.epochs} epochs: "
            f"{elapsed:6.2f} s  {rates[n_seeds]:9.0f} model-epochs/s  "
            f"({rates[n_seeds] / rates[1]:.1f}x one seed)"
        )


def cost_per_seed(section: dict) -> None:
    with tempfile.TemporaryDirectory() as root:
        _generated(root, section)
        cpu = {job: _job(root, section, *job, block=0) for job in BLOCK_JOBS}
    print("  CPU s per seed (one block of one seed, in-process, imports already loaded):")
    for (stage, step), seconds in cpu.items():
        print(f"    {stage:9s} {step:8s} {seconds:6.2f}")
    print(f"    {'total':18s} {sum(cpu.values()):6.2f}")


def _block(job) -> float:
    root, section, block = job
    start = time.perf_counter()
    for stage, step in BLOCK_JOBS:
        _job(root, section, stage, step, block=block)
    return time.perf_counter() - start


def sweep(section: dict, workers: int) -> float:
    with tempfile.TemporaryDirectory() as root:
        _generated(root, section)  # not timed: the sweep is the per-seed work
        jobs = [(root, section, b) for b in range(section["n_seeds"])]
        start = time.perf_counter()
        with mp.get_context("fork").Pool(workers) as pool:
            pool.map(_block, jobs, chunksize=1)
        return time.perf_counter() - start


#: run under either tree: one block of digit models (the default params' digits section)
DIGITS_SNIPPET = r"""
import hashlib, json, os, sys, time
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"
import yaml
from nesybench.shortcuts.digits import sweep as ds
try:
    from nesybench.shortcuts.digits.mitigations import mitigation_names
except ImportError:  # a tree from before the names had their own module
    mitigation_names = ds.mitigation_names

section = yaml.safe_load(open("params.yaml"))["shortcuts"]
d, seeds = section["digits"], list(range(int(sys.argv[1])))
tasks = ds.generate_tasks(d, seed=int(section["seed"]))
started = time.process_time()
weights, labels = ds.train_block(
    tasks, mitigations=mitigation_names(d), seeds=seeds, config=ds.config_from_params(d)
)
cpu = time.process_time() - started
digest = hashlib.md5(weights.to_csv(index=False).encode() + labels.to_csv(index=False).encode())
print(json.dumps({"cpu": cpu, "md5": digest.hexdigest(), "models": int(len(weights))}))
"""


def digits_against_landed(seeds: int) -> None:
    from baseline import ROOT as TREE
    from baseline import landed_tree, run_python

    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        old = run_python(landed_tree(Path(tmp)), DIGITS_SNIPPET, str(seeds))
        new = run_python(TREE, DIGITS_SNIPPET, str(seeds))
    same = "yes" if old["md5"] == new["md5"] else f"NO ({old['md5']} vs {new['md5']})"
    print(
        f"one block of digit models ({seeds} seeds): landed {old['cpu']:.1f} CPU s, this "
        f"{new['cpu']:.1f} CPU s, speed-up {old['cpu'] / new['cpu']:.2f}x; same weights: {same}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="seeds (= blocks) in the sweep")
    parser.add_argument("--digit-seeds", type=int, default=5, help="seeds of the digit block")
    args = parser.parse_args()
    digits_against_landed(args.digit_seeds)
    section = _section(args.seeds)
    print("concept nets: one seed alone vs a block of seeds as one batch (default params):")
    throughput(section)
    print("cost per seed of the block jobs (default params):")
    cost_per_seed(section)
    one = sweep(section, 1)
    two = sweep(section, 2)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"the sweep's block jobs, {args.seeds} seeds: 1 worker {one:.1f} s, 2 workers {two:.1f} s, "
        f"speed-up {one / two:.2f}x (load average {load} on {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
