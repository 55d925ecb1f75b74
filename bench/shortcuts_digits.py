"""Benchmark: training time of the digit models, and the chapter's claims over seeds on real digits.

Prints
  1. seconds per model trained (median over a few seeds) for every variant of the digit model
     and for the neural baseline, at the default sizes, with two ratios against baselines
     measured in the same run: one forward/backward pass of the digit model over the whole
     training set, and scikit-learn's MLPClassifier fitted on the same tuples (the neural
     baseline itself);
  2. with --seeds N (default 10): every (support x mitigation) cell over seeds 0..N-1 (no seed
     is searched or dropped), the mean panel per cell, and the fraction of seeds on which each
     of the chapter's directional claims holds (concept supervision lowers shortcut incidence;
     in-distribution AccY cannot tell the label-only and supervised models apart; OOD AccY can).

Run from the repository root:  python bench/shortcuts_digits.py [--seeds N] [--timing-only]
Writes nothing.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one BLAS thread, as the stage scripts pin it

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from nesybench.console import format_table  # noqa: E402
from nesybench.progress import log  # noqa: E402
from nesybench.shortcuts.digits.evaluation import (  # noqa: E402
    counter_is_optimum,
    directional_claims,
    sweep_cell,
)
from nesybench.shortcuts.digits.nesy import (  # noqa: E402
    DEFAULT_CONFIG,
    Variant,
    init_encoder,
    knowledge_table,
    loss_and_grads,
    one_blas_thread,
)
from nesybench.shortcuts.digits.tasks import make_digit_task  # noqa: E402

MODELS = (
    "label_only",
    "concept_sup=0.01",
    "concept_sup=0.1",
    "entropy=1",
    "multitask=product",
    "neural",
)
SUPPORTS = (("evenodd", 10), ("same_parity", 10), ("full", 10), ("half", 5))
ID_TOLERANCE = 0.05  # |AccY_label_only - AccY_supervised| at or below this: "cannot tell apart"
OOD_MARGIN = 0.2  # AccY-OOD_supervised - AccY-OOD_label_only at or above this: "OOD can"
MIN_ACC_Y = 0.9  # test AccY for "label-perfect on the support"


def _forward_backward_seconds(task, repeats: int = 20) -> float:
    """One full-batch forward/backward pass of the digit model over the training split."""
    train = task.splits["train"]
    X = train.pixels(task.images)
    kb = knowledge_table(task.knowledge, n_digits=task.n_digits, n_positions=task.n_positions)
    params = init_encoder(0, n_inputs=X.shape[-1], n_values=task.n_digits, config=DEFAULT_CONFIG)
    times = []
    with one_blas_thread():
        for _ in range(repeats):
            start = time.perf_counter()
            loss_and_grads(params, X, train.y, kb=kb, digits=train.digits, variant=Variant())
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def timing(seeds: int) -> None:
    task = make_digit_task(support="evenodd", seed=0)
    n_train = len(task.splits["train"])
    config = DEFAULT_CONFIG
    fb = _forward_backward_seconds(task)
    wall, cpu = {}, {}
    for name in MODELS:
        walls, cpus = [], []
        for seed in range(seeds):
            start, start_cpu = time.perf_counter(), time.process_time()
            sweep_cell(task, name, seed=seed, config=config)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - start_cpu)
        wall[name], cpu[name] = statistics.median(walls), statistics.median(cpus)
    mlp = wall["neural"]
    rows = [
        [
            name,
            f"{wall[name]:.3f}",
            f"{cpu[name]:.3f}",
            f"{wall[name] / fb:.0f}x",
            f"{wall[name] / mlp:.2f}x",
        ]
        for name in MODELS
    ]
    print(
        f"seconds per model (median of {seeds} seeds; train + predict + score), default sizes: "
        f"{n_train} training tuples, hidden {config.hidden}, {config.epochs} epochs, "
        f"batch {config.batch_size}, one BLAS thread"
    )
    print(f"  baseline: one full-batch forward/backward pass over the training set = {fb:.4f} s")
    headers = ["model", "wall s", "CPU s", "vs one fwd/bwd pass", "vs sklearn MLPClassifier"]
    print(_table(headers, rows))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  (on {os.cpu_count()} cores, load average {load}: other processes inflate wall time)")


def _table(headers, rows) -> str:
    return format_table(pd.DataFrame(rows, columns=headers))


def _mean(rows, key) -> str:
    values = [r[key] for r in rows if r[key] is not None and not np.isnan(r[key])]
    return f"{np.mean(values):.3f}" if values else "-"


def _count(rows, key) -> str:
    values = [r[key] for r in rows if r[key] is not None]
    return f"{sum(bool(v) for v in values)}/{len(values)}" if values else "-"


def claims(n_seeds: int) -> None:
    print(f"\nsweep: {len(SUPPORTS)} supports x {len(MODELS)} models x seeds 0..{n_seeds - 1}")
    table, cells = [], {}
    for support, n_digits in SUPPORTS:
        task = make_digit_task(support=support, n_digits=n_digits, seed=0)
        for name in MODELS:
            start = time.perf_counter()
            rows = [
                sweep_cell(
                    task,
                    name,
                    seed=seed,
                    config=DEFAULT_CONFIG,
                    is_optimum=counter_is_optimum,
                    min_acc_y=MIN_ACC_Y,
                )
                for seed in range(n_seeds)
            ]
            cells[support, name] = rows
            log(f"  {support} / {name}: {time.perf_counter() - start:.1f} s")
            table.append(
                [
                    support,
                    name,
                    _mean(rows, "acc_y"),
                    _mean(rows, "acc_y_ood"),
                    _mean(rows, "acc_c"),
                    _mean(rows, "f1_c"),
                    _mean(rows, "cls_c_digits"),
                    _mean(rows, "ece_c"),
                    _count(rows, "label_perfect"),
                    _count(rows, "map_identity"),
                    _count(rows, "shortcut"),
                    _count(rows, "map_is_optimum"),
                ]
            )
    print(
        _table(
            [
                "support",
                "model",
                "AccY",
                "AccY-OOD",
                "AccC",
                "F1(C)",
                "Cls(digits)",
                "ECE(C)",
                "label-perfect",
                "identity map",
                "shortcut",
                "map is optimum*",
            ],
            table,
        )
    )
    print(
        "  means over seeds; counts are seeds/total.  label-perfect: test AccY >= "
        f"{MIN_ACC_Y}; shortcut: label-perfect and map != identity.\n"
        "  * the counter's membership test (nesybench.counting.is_optimum, shared family)"
    )
    print(
        f"\nclaims per support (paired seeds; AccY indistinguishable: |diff| <= {ID_TOLERANCE}; "
        f"OOD separates: supervised - label-only >= {OOD_MARGIN})"
    )
    rows = []
    for support, _ in SUPPORTS:
        for sup in ("concept_sup=0.01", "concept_sup=0.1"):
            c = directional_claims(
                cells[support, "label_only"],
                cells[support, sup],
                id_tolerance=ID_TOLERANCE,
                ood_margin=OOD_MARGIN,
            )
            lo, su = c["incidence_label_only"], c["incidence_supervised"]
            same, ood = c["acc_y_indistinguishable"], c["ood_separates"]
            rows.append(
                [
                    support,
                    sup,
                    f"{lo['hits']}/{lo['n']} -> {su['hits']}/{su['n']}",
                    "yes" if c["supervision_lowers_incidence"] else "no",
                    f"{same['hits']}/{same['n']}",
                    f"{ood['hits']}/{ood['n']}",
                ]
            )
    print(
        _table(
            [
                "support",
                "supervised twin",
                "incidence label-only -> twin",
                "lowers?",
                "AccY cannot tell apart",
                "OOD separates",
            ],
            rows,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per sweep cell (default 10)")
    parser.add_argument("--timing-seeds", type=int, default=3, help="seeds timed per model")
    parser.add_argument("--timing-only", action="store_true", help="skip the sweep over seeds")
    args = parser.parse_args()
    timing(args.timing_seeds)
    if not args.timing_only:
        claims(args.seeds)


if __name__ == "__main__":
    main()
