"""Multi-class calibration metrics, built on the one ECE and the one binning of nesybench.

A K-way head is scored from ``y_true`` (``n`` integer class indices in
``0..K-1``) and either its probabilities ``y_prob`` (``(n, K)``, rows on the
simplex) or its logits (``(n, K)``, any finite reals, read as ``softmax``).
Every binned number goes through :func:`nesybench.metrics.calibration.expected_calibration_error`
and :func:`~nesybench.metrics.calibration.reliability_table`, so the bin
convention (``n_bins``, ``right_closed``, ``strategy``) is the project's one
convention (see :mod:`nesybench.metrics.calibration`).

========================  ===================================================================
``top_label_ece``         ECE of the top-label reading: confidence ``max_k p_ik``, correctness
                          ``[argmax_k p_ik = y_i]`` (first maximum on ties)
``classwise_ece``         ``(1/K) sum_k ECE([y = k], p[:, k])``, every one of the K columns
``multiclass_nll``        ``-(1/n) sum_i log p_{i, y_i}`` (probabilities clipped at ``eps``)
``nll_from_logits``       ``(1/n) sum_i [logsumexp_k(z_ik / tau) - z_{i y_i} / tau]`` (exact)
``multiclass_brier``      ``(1/n) sum_i sum_k (p_ik - [y_i = k])^2`` (in ``[0, 2]``)
``multiclass_accuracy``   ``(1/n) sum_i [argmax_k p_ik = y_i]``
========================  ===================================================================
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from ..constraints import validate_params
from ..errors import InputError
from . import plain
from .calibration import (
    BINNING,
    EPS,
    TEMPERATURE,
    expected_calibration_error,
    reliability_table,
)

SUM_TOL = 1e-6  # how far a probability row may sum away from 1


# ---------------------------------------------------------------- validation
def check_class_labels(y_true, n: int, n_classes: int, *, name: str = "y_true") -> np.ndarray:
    """``y_true`` as an int64 array of ``n`` class indices in ``[0, n_classes - 1]``.

    The error names the parameter (``name``), the first offending row and its value.
    """
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {y.shape}")
    if y.shape[0] != n:
        raise InputError(
            f"{name} and the predictions must have equal length, got {y.shape[0]} and {n}"
        )
    if n == 0:
        raise InputError(f"{name} must be non-empty (at least one row), got 0 rows")
    if y.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(y) | (y != np.round(y)))
        if bad.size:
            raise InputError(
                f"{name} row {int(bad[0])} must be a class index in [0, {n_classes - 1}], "
                f"got {plain(y[bad[0]])}"
            )
        y = y.astype(np.int64)
    elif y.dtype.kind not in "iu":
        raise InputError(f"{name} must hold integer class indices, got dtype {y.dtype}")
    bad = np.flatnonzero((y < 0) | (y >= n_classes))
    if bad.size:
        raise InputError(
            f"{name} row {int(bad[0])} must be a class index in [0, {n_classes - 1}] "
            f"(the predictions have {n_classes} classes), got {plain(y[bad[0]])}"
        )
    return y.astype(np.int64)


def _as_matrix(values, name: str) -> np.ndarray:
    try:
        m = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must be an (n, K) array of real numbers, got {type(values).__name__}"
        ) from None
    if m.ndim != 2:
        raise InputError(f"{name} must be 2-D (n, K), got shape {m.shape}")
    if m.shape[1] < 2:
        raise InputError(f"{name} must have at least 2 classes (columns), got {m.shape[1]}")
    if not np.all(np.isfinite(m)):
        row = int(np.flatnonzero(~np.isfinite(m).all(axis=1))[0])
        raise InputError(f"{name} row {row} must be finite (no NaN or inf), got {m[row].tolist()}")
    return m


def check_logits(y_true, logits, *, name: str = "y_true") -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, logits)``: int64 class indices and an ``(n, K)`` float array of finite logits.

    ``name`` is the caller's name for ``y_true`` (used in the error message).
    """
    z = _as_matrix(logits, "logits")
    return check_class_labels(y_true, z.shape[0], z.shape[1], name=name), z


def check_class_probs(y_true, y_prob) -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, y_prob)``: class indices and an ``(n, K)`` array whose rows lie on the simplex.

    Entries must be in ``[0, 1]`` and each row must sum to 1 within :data:`SUM_TOL`.
    """
    p = _as_matrix(y_prob, "y_prob")
    y = check_class_labels(y_true, p.shape[0], p.shape[1])
    outside = (p < 0) | (p > 1)
    if outside.any():
        row = int(np.flatnonzero(outside.any(axis=1))[0])
        bad = plain(p[row][outside[row]][0])
        raise InputError(f"y_prob row {row} must be probabilities in [0, 1], got {bad}")
    sums = p.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOL
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise InputError(
            f"y_prob row {row} must sum to 1 within {SUM_TOL:g}, got {plain(sums[row])}"
        )
    return y, p


# ---------------------------------------------------------------- readings
@validate_params({"temperature": TEMPERATURE})
def softmax(logits, *, temperature: float = 1.0) -> np.ndarray:
    """Row-wise ``softmax(z / tau)``, computed stably (``scipy.special.softmax``).

    >>> softmax([[0.0, 0.0]]).tolist()
    [[0.5, 0.5]]
    """
    from scipy.special import softmax as _softmax

    return _softmax(np.asarray(logits, dtype=float) / temperature, axis=1)


def top_label(y_prob) -> tuple[np.ndarray, np.ndarray]:
    """``(argmax, max)`` of each row: the predicted class (first maximum) and its probability."""
    p = np.asarray(y_prob, dtype=float)
    pred = np.argmax(p, axis=1)
    return pred, p[np.arange(p.shape[0]), pred]


# ---------------------------------------------------------------- metrics
@validate_params(BINNING)
def top_label_ece(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Top-label expected calibration error of a K-way head.

    Notes
    -----
    ``ECE_top = ECE(c, q)`` with ``q_i = max_k p_ik`` and ``c_i = [argmax_k p_ik = y_i]``,
    ``ECE`` the one of :mod:`nesybench.metrics.calibration`.

    >>> top_label_ece([0, 1, 1, 1], [[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]])
    0.15000000000000002
    """
    y, p = check_class_probs(y_true, y_prob)
    pred, conf = top_label(p)
    return expected_calibration_error(
        (pred == y).astype(int), conf, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )


@validate_params(BINNING)
def classwise_ece(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Classwise ECE: the mean over the K classes of the one-vs-rest ECE.

    Notes
    -----
    ``ECE_cw = (1/K) sum_{k=0}^{K-1} ECE([y = k], p[:, k])``.  Every column
    counts, also a class absent from ``y_true`` (its ECE is then the mean
    probability the head puts on it, binned).

    >>> classwise_ece([0, 1], [[1.0, 0.0], [0.0, 1.0]])
    0.0
    """
    y, p = check_class_probs(y_true, y_prob)
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    per_class = [
        expected_calibration_error((y == k).astype(int), p[:, k], **opts) for k in range(p.shape[1])
    ]
    return float(np.mean(per_class))


@validate_params({"eps": EPS})
def multiclass_nll(y_true, y_prob, *, eps: float = 1e-15) -> float:
    """Mean negative log-likelihood of the true class, ``-(1/n) sum_i log max(p_{i y_i}, eps)``.

    ``eps`` keeps an exact 0 on the true class (isotonic maps output them)
    finite, as :func:`nesybench.metrics.calibration.nll_from_probs` does.

    >>> round(multiclass_nll([0, 1], [[0.5, 0.5], [0.5, 0.5]]), 6)
    0.693147
    """
    y, p = check_class_probs(y_true, y_prob)
    return float(-np.mean(np.log(np.clip(p[np.arange(y.size), y], eps, 1.0))))


@validate_params({"temperature": TEMPERATURE})
def nll_from_logits(y_true, logits, *, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood of the true class under ``softmax(z / tau)``, exact.

    Notes
    -----
    ``NLL(tau) = (1/n) sum_i [logsumexp_k(z_ik / tau) - z_{i y_i} / tau]``, finite
    for any finite logits (no ``log(softmax)`` underflow).

    >>> round(nll_from_logits([0, 1], [[0.0, 0.0], [0.0, 0.0]]), 6)
    0.693147
    """
    y, z = check_logits(y_true, logits)
    z = z / temperature
    return float(np.mean(logsumexp(z, axis=1) - z[np.arange(len(y)), y]))


@validate_params({})  # no options; names itself in its array errors
def multiclass_brier(y_true, y_prob) -> float:
    """Multi-class Brier score ``(1/n) sum_i sum_k (p_ik - [y_i = k])^2``.

    Notes
    -----
    Equal to ``(1/n) sum_i (1 - 2 p_{i y_i} + sum_k p_ik^2)``; 0 for a perfect
    confident head, 2 for a confident head that is always wrong.

    >>> multiclass_brier([0, 1], [[1.0, 0.0], [1.0, 0.0]])
    1.0
    """
    y, p = check_class_probs(y_true, y_prob)
    onehot = np.zeros_like(p)
    onehot[np.arange(y.size), y] = 1.0
    return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))


@validate_params({})
def multiclass_accuracy(y_true, y_prob) -> float:
    """Accuracy of the argmax (first maximum on ties): ``(1/n) sum_i [argmax_k p_ik = y_i]``.

    >>> multiclass_accuracy([0, 1, 1], [[0.6, 0.4], [0.6, 0.4], [0.2, 0.8]])
    0.6666666666666666
    """
    y, p = check_class_probs(y_true, y_prob)
    return float(np.mean(np.argmax(p, axis=1) == y))


SUMMARY_KEYS = ("ece_top", "ece_classwise", "nll", "brier", "acc")


@validate_params(BINNING)
def multiclass_summary(
    y_true,
    y_prob,
    *,
    logits=None,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
) -> dict[str, float]:
    """``n`` and every metric of this module on one reading: ``ece_top``, ``ece_classwise``,
    ``nll``, ``brier``, ``acc``.

    ``nll`` comes from ``logits`` when given (exact), else from the clipped probabilities.
    """
    y, p = check_class_probs(y_true, y_prob)
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    return {
        "n": int(y.size),
        "ece_top": top_label_ece(y, p, **opts),
        "ece_classwise": classwise_ece(y, p, **opts),
        "nll": nll_from_logits(y, logits) if logits is not None else multiclass_nll(y, p),
        "brier": multiclass_brier(y, p),
        "acc": multiclass_accuracy(y, p),
    }


@validate_params(BINNING)
def multiclass_reliability(
    y_true,
    y_prob,
    *,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
) -> pd.DataFrame:
    """The reliability tables of a K-way head: the top-label one and one per class (one-vs-rest).

    Columns: ``target`` (``"top"`` or ``"class"``), ``class`` (-1 for the top-label
    rows, else the class index), then the columns of
    :func:`nesybench.metrics.calibration.reliability_table` (``bin, lo, hi, count,
    conf, acc, gap, acc_lo, acc_hi``).  The per-class rows are the data of a
    per-class reliability diagram: ``conf`` is the mean ``p[:, k]`` in the bin,
    ``acc`` the fraction of its rows whose class is ``k``.
    """
    y, p = check_class_probs(y_true, y_prob)
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    pred, conf = top_label(p)
    parts = [
        reliability_table((pred == y).astype(int), conf, **opts).assign(
            target="top", **{"class": -1}
        )
    ]
    for k in range(p.shape[1]):
        parts.append(
            reliability_table((y == k).astype(int), p[:, k], **opts).assign(
                target="class", **{"class": k}
            )
        )
    table = pd.concat(parts, ignore_index=True)
    first = ["target", "class"]
    return table[first + [c for c in table.columns if c not in first]]
