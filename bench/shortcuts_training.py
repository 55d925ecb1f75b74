"""Benchmark: concept-model training throughput and the incidence sweep's parallel speed-up.

Prints
  1. epochs/s of the default model (one network, full batch) and of a batched
     sweep (all seeds of one incidence cell trained side by side), with the
     batching speed-up in model-epochs/s;
  2. the wall time of the whole default incidence sweep (every task x support
     cell of params.yaml) on a pool of 1 and of 2 worker processes, and the ratio.

Run from the repository root:  python bench/shortcuts_training.py [--cells N]
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
from pathlib import Path  # noqa: E402

import yaml  # noqa: E402

from nesybench.shortcuts import model_stages, pipeline  # noqa: E402
from nesybench.shortcuts.incidence import init_seed  # noqa: E402
from nesybench.shortcuts.model import init_params, train  # noqa: E402
from nesybench.stages import StageContext  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _section() -> dict:
    with open(ROOT / "params.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)["shortcuts"]


def _generated(root: Path, section: dict, stage: str = "generate") -> StageContext:
    """Run the generate stage into `root` (the models read its datasets); return a context for
    `stage`."""
    pipeline.generate(
        StageContext(
            stage="generate",
            instrument="shortcuts",
            params={"shortcuts": section},
            root=root,
            args={},
            step=None,
        )
    )
    return StageContext(
        stage=stage,
        instrument="shortcuts",
        params={"shortcuts": section},
        root=root,
        args={},
        step=None,
    )


def throughput(section: dict) -> None:
    models = section["models"]
    config = model_stages._model_config(models)
    with tempfile.TemporaryDirectory() as root:
        ctx = _generated(Path(root), section, "train")
        knowledge, task = model_stages._concept_task(
            ctx, models["task"], models["support_frac"], field="models.task"
        )
    kb = model_stages._knowledge_table(knowledge)
    X, G, Y = model_stages._splits(task)["train"]
    for n_models in (1, int(section["incidence"]["seeds"])):
        p0 = init_params(
            [init_seed(0, "bench", i) for i in range(n_models)],
            n_inputs=X.shape[1],
            n_concepts=kb.n_concepts,
            config=config,
        )
        start = time.perf_counter()
        train(p0, X, Y, G, kb, config=config)
        elapsed = time.perf_counter() - start
        print(
            f"  {n_models:3d} model(s) x {config.epochs} epochs on {len(Y)} points: "
            f"{elapsed:6.2f} s  "
            f"{config.epochs / elapsed:8.1f} epochs/s  {n_models * config.epochs / elapsed:9.1f} "
            "model-epochs/s"
        )


def _cell(job) -> float:
    root, section, task, token = job
    ctx = StageContext(
        stage="train",
        instrument="shortcuts",
        params={"shortcuts": section},
        root=Path(root),
        args={"task": task, "support": token},
        step="incidence",
    )
    start = time.perf_counter()
    model_stages.train_incidence(ctx)
    return time.perf_counter() - start


def sweep(section: dict, workers: int, cells: list[tuple[str, str]]) -> float:
    with tempfile.TemporaryDirectory() as root:
        _generated(Path(root), section)  # not timed: the sweep is the training
        jobs = [(root, section, task, token) for task, token in cells]
        start = time.perf_counter()
        with mp.get_context("fork").Pool(workers) as pool:
            pool.map(_cell, jobs, chunksize=1)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cells", type=int, default=None, help="only the first N sweep cells (default: all)"
    )
    args = parser.parse_args()
    section = _section()
    print("training throughput (default model params):")
    throughput(section)
    inc = section["incidence"]
    cells = [(t, repr(float(s))) for t in inc["tasks"] for s in inc["support_fracs"]][: args.cells]
    print(
        f"incidence sweep: {len(cells)} cells x {inc['seeds']} seeds x "
        f"{section['models']['epochs']} epochs"
    )
    times = {w: sweep(section, w, cells) for w in (1, 2)}
    for w, t in times.items():
        print(f"  {w} worker(s): {t:6.1f} s wall")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"  speed-up 2 vs 1 workers: {times[1] / times[2]:.2f}x  (on {os.cpu_count()} cores; load "
        f"average {load}: "
        "other processes on the machine lower the ratio)"
    )


if __name__ == "__main__":
    main()
