"""Calibration metrics: the one reliability table and the one ECE of nesybench.

Binning convention (default): ``B`` equal-width bins with edges ``b / B``
computed exactly (not ``linspace``); bin ``b`` is left-closed
``[b/B, (b+1)/B)`` and the last bin is closed, so a probability of exactly 1.0
lands in bin ``B - 1``.  ``right_closed=True`` switches to scikit-learn's
``calibration_curve`` convention ``(b/B, (b+1)/B]`` with 0.0 in bin 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import wilson_interval


def _check_binary(y_true, y_prob):
    y_true = np.asarray(y_true)
    y_prob = np.asarray(y_prob, dtype=float)
    if y_true.shape != y_prob.shape or y_true.ndim != 1:
        raise ValueError(f"y_true and y_prob must be 1-D of equal length, got {y_true.shape} and {y_prob.shape}")
    if y_true.size == 0:
        raise ValueError("y_true is empty")
    if not np.all(np.isfinite(y_prob)):
        raise ValueError("y_prob contains NaN or infinite values")
    if y_prob.min() < 0 or y_prob.max() > 1:
        bad = y_prob[(y_prob < 0) | (y_prob > 1)][0]
        raise ValueError(f"y_prob contains values outside [0, 1]: {bad}")
    values = np.unique(y_true)
    if not np.all(np.isin(values, [0, 1])):
        raise ValueError(f"y_true must contain only 0 and 1, got {values.tolist()}")
    return y_true.astype(float), y_prob


def bin_index(y_prob, *, n_bins: int = 10, right_closed: bool = False) -> np.ndarray:
    """Bin of each probability under the module's convention (see module docstring)."""
    y_prob = np.asarray(y_prob, dtype=float)
    edges = np.arange(1, n_bins) / n_bins  # interior edges b/B, exact division
    if right_closed:
        return np.searchsorted(edges, y_prob, side="left")
    return np.searchsorted(edges, y_prob, side="right")


def reliability_table(y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False) -> pd.DataFrame:
    """Per-bin reliability statistics; every bin is kept, empty ones included.

    Columns: ``bin, lo, hi, count, conf`` (mean probability), ``acc`` (fraction
    of positives), ``gap = acc - conf``, ``acc_lo, acc_hi`` (95% Wilson interval
    on ``acc``).  Empty bins have NaN ``conf``/``acc``/``gap`` and interval (0, 1).
    """
    y, p = _check_binary(y_true, y_prob)
    idx = bin_index(p, n_bins=n_bins, right_closed=right_closed)
    counts = np.bincount(idx, minlength=n_bins)
    sum_p = np.bincount(idx, weights=p, minlength=n_bins)
    sum_y = np.bincount(idx, weights=y, minlength=n_bins)
    rows = []
    for b in range(n_bins):
        n = int(counts[b])
        conf = sum_p[b] / n if n else float("nan")
        acc = sum_y[b] / n if n else float("nan")
        lo, hi = wilson_interval(int(round(sum_y[b])), n)
        rows.append({"bin": b, "lo": b / n_bins, "hi": (b + 1) / n_bins, "count": n,
                     "conf": conf, "acc": acc, "gap": acc - conf, "acc_lo": lo, "acc_hi": hi})
    return pd.DataFrame(rows)


def expected_calibration_error(y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False) -> float:
    """Expected calibration error with equal-width bins.

    Notes
    -----
    ``ECE = sum_b (n_b / n) * |acc(b) - conf(b)|`` where ``acc(b)`` is the mean
    of ``y_true`` and ``conf(b)`` the mean of ``y_prob`` over bin ``b``.  For a
    multi-class head, pass correctness of the argmax as ``y_true`` and the top
    probability as ``y_prob`` (top-label ECE).

    >>> expected_calibration_error([1, 0, 1, 1], [0.9, 0.9, 0.9, 0.9])
    0.15000000000000002
    """
    y, p = _check_binary(y_true, y_prob)
    idx = bin_index(p, n_bins=n_bins, right_closed=right_closed)
    counts = np.bincount(idx, minlength=n_bins)
    gaps = np.abs(np.bincount(idx, weights=y, minlength=n_bins) - np.bincount(idx, weights=p, minlength=n_bins))
    return float(gaps.sum() / counts.sum())
