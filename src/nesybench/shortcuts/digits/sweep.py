"""The mitigation sweep on real digits, one block of seeds at a time: train, score, calibrate.

A cell is (digit support, mitigation, seed).  Every mitigation of a seed starts from the
same encoder weights and sees the same batches (:mod:`nesybench.shortcuts.digits.nesy`), so the
label-only model and its mitigated twins are paired.  The train step stores each digit
model's weights and the neural baseline's predicted labels; score and calibrate rebuild the
models from them (float64 round-trips through Parquet exactly, so the predictions are those
of the trained object).

Functions here compute; the stage functions in :mod:`.pipeline` read, call and write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ...errors import InputError
from ..heads import calibrate_heads, repair_row
from ..weights import read_weights, weights_table
from .evaluation import (
    digit_confusion,
    evaluate,
    model_arrays,
    model_from_arrays,
    predict,
    predictions_from_labels,
    train_models,
)
from .mitigations import NEURAL
from .nesy import NesyConfig
from .tasks import SPLITS, DigitTask, make_digit_task, task_tables

__all__ = [
    "WEIGHT_KEYS",
    "config_from_params",
    "generate_tasks",
    "generated_tables",
    "train_block",
    "block_predictions",
    "score_block",
    "calibrate_block",
]

WEIGHT_KEYS = ["support", "mitigation", "seed"]
LABEL_COLUMNS = ["support", "seed", "split", "point", "y_pred"]


def config_from_params(digits: Mapping) -> NesyConfig:
    """The digit model's size and optimiser, from ``shortcuts.digits.model``."""
    m = digits["model"]
    return NesyConfig(
        hidden=int(m["hidden"]),
        epochs=int(m["epochs"]),
        batch_size=int(m["batch_size"]),
        lr=float(m["lr"]),
        init_scale=float(m["init_scale"]),
    )


def generate_tasks(digits: Mapping, *, seed: int) -> dict[str, DigitTask]:
    """Every digit support's task (named by its params key), from the root ``seed``."""
    tasks = {}
    for name, spec in digits["supports"].items():
        task = make_digit_task(
            knowledge=digits["knowledge"],
            n_digits=int(spec["n_digits"]),
            n_positions=int(digits["n_positions"]),
            support=spec["support"],
            n_tuples={k: int(v) for k, v in digits["n_tuples"].items()},
            image_fracs=[float(f) for f in digits["image_fracs"]],
            seed=seed,
            images=digits.get("images"),
        )
        tasks[name] = replace(task, support_name=name)
    return tasks


def generated_tables(tasks: Mapping[str, DigitTask]) -> dict[str, pd.DataFrame]:
    """The generate step's ``tuples``, ``pools`` and ``supports`` tables of every task."""
    parts: dict[str, list] = {"tuples": [], "pools": [], "supports": []}
    for task in tasks.values():
        for key, frame in task_tables(task).items():
            parts[key].append(frame)
    return {key: pd.concat(frames, ignore_index=True) for key, frames in parts.items()}


def train_block(
    tasks: Mapping[str, DigitTask],
    *,
    mitigations: Sequence[str],
    seeds: Sequence[int],
    config: NesyConfig,
    log: Callable[[str], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train every (support, mitigation, seed) model of a block.

    Returns the digit models' weights (keys support, mitigation, seed) and the neural
    baseline's predicted labels on every split (support, seed, split, point, y_pred).
    """
    weights, labels = {}, []
    for support, task in tasks.items():
        for mitigation in mitigations:
            models = train_models(task, mitigation, seeds=seeds, config=config)
            for seed, model in zip(seeds, models):
                if mitigation == NEURAL:
                    pred = predict(task, model, seed=seed)
                    for split in SPLITS:
                        y_pred = pred.splits[split].y_pred
                        labels.append(
                            pd.DataFrame(
                                {
                                    "support": support,
                                    "seed": int(seed),
                                    "split": split,
                                    "point": np.arange(len(y_pred), dtype=np.int64),
                                    "y_pred": y_pred.astype(np.int64),
                                }
                            )
                        )
                else:
                    weights[(support, mitigation, int(seed))] = model_arrays(model)
            if log:
                log(f"{support} / {mitigation}: {len(seeds)} seeds trained")
    label_table = (
        pd.concat(labels, ignore_index=True) if labels else pd.DataFrame(columns=LABEL_COLUMNS)
    )
    return weights_table(weights, keys=WEIGHT_KEYS), label_table


def block_predictions(
    tasks: Mapping[str, DigitTask],
    weights: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    mitigations: Sequence[str],
    seeds: Sequence[int],
    config: NesyConfig,
):
    """Every model of a block rebuilt from the train step's tables, as
    ``(support, mitigation, seed, Predictions)``."""
    arrays = read_weights(weights, keys=WEIGHT_KEYS)
    for support, task in tasks.items():
        for mitigation in mitigations:
            for seed in seeds:
                if mitigation == NEURAL:
                    own = labels[(labels["support"] == support) & (labels["seed"] == seed)]
                    y_pred = {
                        split: part.sort_values("point")["y_pred"].to_numpy(dtype=np.int64)
                        for split, part in own.groupby("split")
                    }
                    pred = predictions_from_labels(task, y_pred, seed=seed)
                else:
                    key = (support, mitigation, int(seed))
                    if key not in arrays:
                        raise InputError(f"no trained digit weights for {key}; rerun train digits")
                    model = model_from_arrays(
                        arrays[key], task=task, mitigation=mitigation, config=config
                    )
                    pred = predict(task, model, seed=seed)
                yield support, mitigation, int(seed), pred


def score_block(
    predictions,
    *,
    min_acc_y: float,
    n_bins: int,
    is_optimum=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score every model of a block: one row per model (:func:`~.evaluation.evaluate`) and
    the digit confusion matrix of every digit model (test and ood images pooled)."""
    rows, confusion = [], []
    for support, mitigation, seed, pred in predictions:
        row = evaluate(pred, is_optimum=is_optimum, min_acc_y=min_acc_y, n_bins=n_bins)
        rows.append({"support": support, "mitigation": mitigation, "seed": seed, **row})
        if pred.has_concepts:
            counts = digit_confusion(pred)
            V = counts.shape[0]
            confusion.append(
                pd.DataFrame(
                    {
                        "support": support,
                        "mitigation": mitigation,
                        "seed": seed,
                        "true_digit": np.repeat(np.arange(V), V),
                        "predicted_digit": np.tile(np.arange(V), V),
                        "count": counts.ravel(),
                    }
                )
            )
    runs = pd.DataFrame(rows)
    for col in ("map_identity", "map_injective", "shortcut", "map_is_optimum"):
        runs[col] = runs[col].astype("boolean")
    return runs, pd.concat(confusion, ignore_index=True)


def _head_rows(pred, split: str) -> tuple[np.ndarray, np.ndarray]:
    """A split's digit heads pooled over positions (point-major, as
    :func:`~.evaluation.concept_frame` lists them): logits ``(n * k, V)`` and gold digits."""
    data = pred.splits[split]
    V = data.digit_logits.shape[-1]
    return data.digit_logits.reshape(-1, V), data.digits.reshape(-1)


def calibrate_block(
    predictions,
    *,
    methods: Sequence[str],
    n_bins: int,
    reliability_for: set[tuple[str, str]],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Calibrate every digit model's heads: each method fitted on the val split's digit heads
    (positions pooled), audited on the test split's.  Returns one row per (model, method) and
    the per-class reliability tables (before and after) of the models in ``reliability_for``
    ((support, mitigation) pairs)."""
    rows, reliability = [], []
    for support, mitigation, seed, pred in predictions:
        if not pred.has_concepts:
            continue
        z_cal, y_cal = _head_rows(pred, "val")
        z_eval, y_eval = _head_rows(pred, "test")
        diagram = (support, mitigation) in reliability_for
        for method in methods:
            rep = calibrate_heads(
                z_cal, y_cal, z_eval, y_eval, method=method, n_bins=n_bins, reliability=diagram
            )
            rows.append(
                {"support": support, "mitigation": mitigation, "seed": seed, **repair_row(rep)}
            )
            if diagram:
                reliability.append(
                    rep.reliability.assign(
                        support=support, mitigation=mitigation, seed=seed, method=method
                    )
                )
    table = pd.DataFrame(rows)
    rel = pd.concat(reliability, ignore_index=True) if reliability else pd.DataFrame()
    return table, rel
