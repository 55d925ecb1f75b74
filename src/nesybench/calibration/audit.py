"""One audit of one set of predictions, shared by the pipeline stages and the CLI.

``audit`` bundles every metric of :mod:`nesybench.metrics.calibration` for
``(labels, probabilities)``; ``repair`` fits a calibrator on the calibration
half and audits the evaluation half before and after; ``ledger_table`` lays the
results side by side with which metrics each method actually moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics.calibration import (
    calibration_summary,
    expected_calibration_error,
    reliability_table,
    sigmoid,
)
from ..metrics.calibrators import invariances, make_calibrator

# metric -> what it measures (the ledger's second column)
LEDGER_METRICS = {
    "ece": "mean |acc - conf| over bins, count-weighted",
    "mce": "worst bin |acc - conf|",
    "ce2": "plug-in L2 calibration error",
    "ce2_debiased": "debiased L2 calibration error",
    "ece_equal_mass": "ECE with equal-mass bins",
    "nll": "negative log-likelihood of the labels",
    "brier": "squared error = calibration + refinement + residual",
    "brier_calibration": "Brier calibration term",
    "brier_refinement": "Brier refinement term",
    "brier_residual": "Brier within-bin residual",
    "acc": "accuracy of the 0.5-threshold decisions",
    "auc": "pairwise ranking (Mann-Whitney, ties 1/2)",
}


@dataclass
class Audit:
    summary: dict[str, float]
    reliability: pd.DataFrame


def audit(
    labels,
    probs,
    *,
    logits=None,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
) -> Audit:
    """Summary metrics and the reliability table of one reading ``probs`` of ``labels``.

    ``logits`` (when the reading is ``sigmoid(logits)``) makes the NLL exact.
    ``ece_equal_mass`` is always added beside the chosen binning.
    """
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    summary = calibration_summary(labels, probs, y_score=logits, **opts)
    summary["ece_equal_mass"] = expected_calibration_error(
        labels, probs, n_bins=n_bins, right_closed=right_closed, strategy="quantile"
    )
    return Audit(summary, reliability_table(labels, probs, **opts))


@dataclass
class Repair:
    method: str
    calibrator: object
    params: dict[str, float]
    p_all: np.ndarray  # calibrated probability of every row
    after: Audit  # on the evaluation rows
    invariance: dict[str, bool]  # over every row (both halves)


def repair(
    method: str,
    scores,
    labels,
    is_cal,
    *,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
    lo: float = 0.05,
    hi: float = 20.0,
    tol: float = 1e-8,
    trace_every: int = 10,
    platt_c: float = 1e6,
) -> Repair:
    """Fit ``method`` on the rows where ``is_cal``; audit the other rows; measure invariances on all
    rows."""
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels)
    is_cal = np.asarray(is_cal, dtype=bool)
    cal = make_calibrator(
        method, lo=lo, hi=hi, tol=tol, trace_every=trace_every, platt_c=platt_c
    ).fit(scores[is_cal], labels[is_cal])
    p_all = cal.predict_proba(scores)
    logits = cal.predict_logits(scores) if cal.predict_logits is not None else None
    ev = ~is_cal
    after = audit(
        labels[ev],
        p_all[ev],
        logits=None if logits is None else logits[ev],
        n_bins=n_bins,
        right_closed=right_closed,
        strategy=strategy,
    )
    inv = invariances(scores, sigmoid(scores), p_all, labels)
    return Repair(method, cal, cal.params(), p_all, after, inv)


def ledger_table(before: dict[str, float], repairs: list[Repair]) -> pd.DataFrame:
    """One row per metric: before, after per method, and whether each method moved it (bitwise)."""
    rows = []
    for order, (metric, what) in enumerate(LEDGER_METRICS.items()):
        row = {"order": order, "metric": metric, "measures": what, "before": before[metric]}
        for rep in repairs:
            row[rep.method] = rep.after.summary[metric]
        for rep in repairs:
            row[f"moved_{rep.method}"] = bool(rep.after.summary[metric] != before[metric])
        rows.append(row)
    return pd.DataFrame(rows)
