"""The digit pipeline's tables over seeds, built from the blocks' rows (no I/O, no printing).

The digit head-to-head (one row per seed), the mitigation sweep per (support, mitigation),
digit shortcut incidence beside the counter's log2 N_opt, the digit exhibit (picked by its
declared rule) and the digit heads' calibration table.  The concept nets' tables and the
helpers both use are in :mod:`..summaries`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import InputError
from ...metrics.stats import wilson_interval
from ...sweep import Metric, bootstrap_mean_interval
from ..claims import digit_seed_claims
from ..summaries import by_seed, panel_word

__all__ = [
    "CALIBRATION_READINGS",
    "DIGIT_METRICS",
    "SWEEP_METRICS",
    "digit_calibration_table",
    "digit_exhibit_panel",
    "digit_incidence",
    "digit_summary",
    "digit_sweep",
    "pick_digit_exhibit",
]


DIGIT_PANEL = ("acc_y", "acc_y_ood", "acc_c", "f1_c", "cls_c", "ece_c")
DIGIT_METRICS = (
    *(Metric(f"label_only_{panel_word(k)}", f"label-only {k}") for k in DIGIT_PANEL),
    *(Metric(f"sup_{panel_word(k)}", f"concept-supervised {k}") for k in DIGIT_PANEL),
    Metric("task_accuracy_gap", "AccY label-only - supervised (test)"),
    Metric("task_accuracy_ood_gap", "AccY-OOD supervised - label-only"),
)

# The numbers of the mitigation sweep, per (support, mitigation) cell.
SWEEP_METRICS = ("acc_y", "acc_y_ood", "acc_c", "f1_c", "cls_c", "cls_c_digits", "ece_c")


def digit_summary(
    runs: pd.DataFrame, *, support: str, supervised: str, thresholds: Mapping
) -> pd.DataFrame:
    """One row per seed of the digit head-to-head on ``support``: the label-only and the
    ``supervised`` model's numbers, the paired gaps and the claims' verdicts."""
    at = runs[runs["support"] == support]
    lo = by_seed(at[at["mitigation"] == "label_only"], "label-only digit runs")
    sup = by_seed(at[at["mitigation"] == supervised], f"{supervised} digit runs")
    rows = []
    for seed in sorted(lo.index):
        row = {"seed": int(seed)}
        row.update({f"label_only_{panel_word(k)}": float(lo.loc[seed, k]) for k in DIGIT_PANEL})
        row.update({f"sup_{panel_word(k)}": float(sup.loc[seed, k]) for k in DIGIT_PANEL})
        row.update(
            task_accuracy_gap=row["label_only_task_accuracy"] - row["sup_task_accuracy"],
            task_accuracy_ood_gap=row["sup_task_accuracy_ood"]
            - row["label_only_task_accuracy_ood"],
            label_only_shortcut=bool(lo.loc[seed, "shortcut"]),
            sup_shortcut=bool(sup.loc[seed, "shortcut"]),
            label_only_map=str(lo.loc[seed, "digit_map"]),
            sup_map=str(sup.loc[seed, "digit_map"]),
        )
        row.update(digit_seed_claims(row, thresholds))
        rows.append(row)
    return pd.DataFrame(rows)


def digit_sweep(runs: pd.DataFrame, *, supports: Sequence[str], mitigations: Sequence[str]):
    """The mitigation sweep: per (support, mitigation) and metric, the mean over seeds, the
    standard deviation and a 95% bootstrap interval of the mean (resampling seeds; the stream
    is named after the cell and metric)."""
    rows = []
    for order, (support, mitigation) in enumerate((s, m) for s in supports for m in mitigations):
        cell = runs[(runs["support"] == support) & (runs["mitigation"] == mitigation)]
        for metric in SWEEP_METRICS:
            values = cell[metric].to_numpy(dtype=float)
            finite = values[np.isfinite(values)]
            if len(finite) == 0:
                continue  # the baseline has no concepts; the full support has no ood split
            lo, hi = bootstrap_mean_interval(finite, name=f"{support}/{mitigation}/{metric}")
            rows.append(
                {
                    "order": order,
                    "support": support,
                    "mitigation": mitigation,
                    "metric": metric,
                    "mean": float(finite.mean()),
                    "sd": float(finite.std(ddof=1)) if len(finite) > 1 else 0.0,
                    "lo": lo,
                    "hi": hi,
                    "n_seeds": int(len(finite)),
                }
            )
    return pd.DataFrame(rows)


def _count(values) -> int | None:
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return int(sum(bool(v) for v in values)) if values else None


def digit_incidence(
    runs: pd.DataFrame,
    *,
    supports: Sequence[str],
    mitigations: Sequence[str],
    sizes: Mapping[str, int],
    counts: Mapping[str, Mapping],
) -> pd.DataFrame:
    """Per (support, mitigation): how many seeds land label-perfect, on the identity map
    (label-perfect or not), on a shortcut (rate with a 95% Wilson interval) and on one of the
    counter's optima, beside the support's size and its ``log2 N_opt`` and ``n_distinct`` from
    the counter (NaN for a support ``counts`` does not name)."""
    rows = []
    for support in supports:
        counted = counts.get(support, {})
        for mitigation in mitigations:
            cell = runs[(runs["support"] == support) & (runs["mitigation"] == mitigation)]
            n = len(cell)
            short = _count(cell["shortcut"])
            lo, hi = wilson_interval(short or 0, n) if short is not None else (np.nan, np.nan)
            optimum = _count(cell["map_is_optimum"])
            rows.append(
                {
                    "order": len(rows),
                    "support": support,
                    "mitigation": mitigation,
                    "n_support": int(sizes[support]),
                    "log2_n_opt": float(counted.get("log2_n_opt", np.nan)),
                    "n_distinct": float(counted.get("n_distinct", np.nan)),
                    "n_seeds": n,
                    "n_label_perfect": int(cell["label_perfect"].astype(bool).sum()),
                    "n_identity_map": _count(cell["map_identity"]),
                    "n_shortcut": short,
                    "rate": short / n if short is not None and n else np.nan,
                    "rate_lo": lo,
                    "rate_hi": hi,
                    "n_map_is_optimum": optimum,
                }
            )
    table = pd.DataFrame(rows)
    for col in ("n_identity_map", "n_shortcut", "n_map_is_optimum"):
        table[col] = table[col].astype("Int64")
    return table


def pick_digit_exhibit(summary: pd.DataFrame, *, rule: str) -> dict:
    """The digit exhibit seed: rule ``first_shortcut`` is the first seed whose label-only model
    lands on a shortcut (seed 0 if none does, stated); ``first`` is seed 0.  Its rank is by
    label-only AccC among the seeds (1 = lowest; ties by seed)."""
    n = len(summary)
    ordered = summary.sort_values(["label_only_concept_accuracy", "seed"], kind="mergesort")[
        "seed"
    ].tolist()
    hits = summary[summary["label_only_shortcut"].astype(bool)].sort_values("seed")
    if rule == "first_shortcut" and len(hits):
        seed = int(hits["seed"].iloc[0])
        statement = (
            f"the first of seeds 0..{n - 1} whose label-only digit model lands on a shortcut"
        )
    elif rule in ("first_shortcut", "first"):
        seed = int(summary["seed"].min())
        statement = (
            f"seed {seed}: no seed of 0..{n - 1} lands on a shortcut, so the first seed"
            if rule == "first_shortcut"
            else "the first seed"
        )
    else:
        raise InputError(f"exhibit.digits must be first_shortcut or first, got {rule!r}")
    value = float(summary.set_index("seed").loc[seed, "label_only_concept_accuracy"])
    return {
        "rule": rule,
        "statement": statement,
        "seed": seed,
        "rank": ordered.index(seed) + 1,
        "n_seeds": n,
        "n_shortcut": int(len(hits)),
        "metric": "label_only_concept_accuracy",
        "value": value,
    }


# ---- calibration ----------------------------------------------------------------------------

CALIBRATION_READINGS = ("ece_top", "ece_classwise", "nll", "brier", "acc")


def digit_calibration_table(
    digits: pd.DataFrame, *, supports: Sequence[str], mitigations: Sequence[str]
) -> pd.DataFrame:
    """Per (support, mitigation, method) and metric: the mean before and after over seeds and
    the mean change with its 95% bootstrap interval (resampling seeds), in params order."""
    rows = []
    methods = list(dict.fromkeys(digits["method"]))
    cells = [(s, m, k) for s in supports for m in mitigations for k in methods]
    for order, key in enumerate(cells):
        cell = digits[
            (digits["support"] == key[0])
            & (digits["mitigation"] == key[1])
            & (digits["method"] == key[2])
        ]
        if cell.empty:
            continue  # the neural baseline has no digit heads
        for metric in CALIBRATION_READINGS:
            before = cell[f"{metric}_before"].to_numpy(dtype=float)
            after = cell[f"{metric}_after"].to_numpy(dtype=float)
            change = after - before
            lo, hi = bootstrap_mean_interval(change, name="/".join([*key, metric]))
            rows.append(
                {
                    "order": order,
                    "support": key[0],
                    "mitigation": key[1],
                    "method": key[2],
                    "metric": metric,
                    "before": float(before.mean()),
                    "after": float(after.mean()),
                    "change": float(change.mean()),
                    "change_lo": lo,
                    "change_hi": hi,
                    "n_seeds": int(len(cell)),
                    "tau_at_edge": int(cell["at_bracket_edge"].sum()),
                }
            )
    return pd.DataFrame(rows)


# ---- exhibits ------------------------------------------------------------------------------

DIGIT_EXHIBIT_ROWS = {
    "acc_y": "AccY in distribution (test)",
    "acc_y_ood": "AccY out of distribution (ood)",
    "acc_c": "AccC (digit acc, test)",
    "f1_c": "F1(C) macro",
    "cls_c": "Cls(C) collapse over digit pairs",
    "cls_c_digits": "Cls(C) collapse over digits",
    "ece_c": "ECE(C)",
}


def digit_exhibit_panel(runs: pd.DataFrame, *, support: str, seed: int, models: Sequence[str]):
    """The digit exhibit's panel: one row per metric, one column per model (label-only and the
    supervised twin of seed ``seed`` on ``support``), then the maps and their verdicts."""
    at = runs[(runs["support"] == support) & (runs["seed"] == seed)].set_index("mitigation")
    rows = [
        {"row": i, "metric": name, "key": key, **{m: float(at.loc[m, key]) for m in models}}
        for i, (key, name) in enumerate(DIGIT_EXHIBIT_ROWS.items())
    ]
    panel = pd.DataFrame(rows)
    maps = pd.DataFrame(
        [
            {
                "model": m,
                "digit_map": str(at.loc[m, "digit_map"]),
                "label_perfect": bool(at.loc[m, "label_perfect"]),
                "map_identity": bool(at.loc[m, "map_identity"]),
                "map_injective": bool(at.loc[m, "map_injective"]),
                "shortcut": bool(at.loc[m, "shortcut"]),
                "map_is_optimum": at.loc[m, "map_is_optimum"],
            }
            for m in models
        ]
    )
    maps["map_is_optimum"] = maps["map_is_optimum"].astype("boolean")
    return panel, maps
