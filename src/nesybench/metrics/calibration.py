"""Calibration metrics: the one reliability table and the one ECE of nesybench.

Binning convention (default, ``strategy="uniform"``): ``B`` equal-width bins
with edges ``b / B`` computed exactly (not ``linspace``); bin ``b`` is
left-closed ``[b/B, (b+1)/B)`` and the last bin is closed, so a probability of
exactly 1.0 lands in bin ``B - 1``.  ``right_closed=True`` switches to
scikit-learn's ``calibration_curve`` convention ``(b/B, (b+1)/B]`` with 0.0 in
bin 0.  ``strategy="quantile"`` uses equal-mass bins whose edges are the
``b/B`` quantiles of the probabilities themselves (same open/closed rule).

Every metric here takes ``(y_true, y_prob)`` (or ``(y_true, y_score)`` for
raw scores) positionally and its options keyword-only.  Labels are 0/1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ..constraints import Boolean, Interval, Options, check, validate_params
from ..errors import InputError
from . import MAX_BINS, plain
from .stats import wilson_interval

STRATEGIES = ("uniform", "quantile")

# The binning keywords every metric of a reliability table takes, declared once.
N_BINS = Interval(int, 1, MAX_BINS, closed="both")
BINNING = {"n_bins": N_BINS, "right_closed": Boolean(), "strategy": Options(STRATEGIES)}
TEMPERATURE = Interval(float, 0, None, closed="neither")
EPS = Interval(float, 0, 0.5, closed="neither")  # the clip of a probability away from 0 and 1


# ---------------------------------------------------------------- validation
def check_labels(y_true, n: int | None = None) -> np.ndarray:
    """``y_true`` as a 1-D float array of 0/1 labels (``n`` of them when given).

    Raises :class:`~nesybench.errors.InputError` naming the defect: not 1-D, a
    length other than ``n``, empty, or a value other than 0 and 1.
    """
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise InputError(f"y_true must be 1-D, got shape {y_true.shape}")
    if n is not None and y_true.shape[0] != n:
        raise InputError(
            f"y_true and the predictions must have equal length, got {y_true.shape[0]} and {n}"
        )
    if y_true.size == 0:
        raise InputError("y_true must be non-empty (at least one label), got 0 labels")
    values = np.unique(y_true)
    if not np.all(np.isin(values, [0, 1])):
        raise InputError(
            f"y_true must contain only 0 and 1, got {[plain(v) for v in values.tolist()]}"
        )
    return y_true.astype(float)


def check_scores(y_true, y_score, *, name: str = "y_score") -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, y_score)`` as float arrays: 0/1 labels and finite 1-D real scores (logits)."""
    try:
        y_score = np.asarray(y_score, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must be an array of real numbers, got {type(y_score).__name__}"
        ) from None
    if y_score.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {y_score.shape}")
    y = check_labels(y_true, y_score.shape[0])
    if not np.all(np.isfinite(y_score)):
        bad = y_score[~np.isfinite(y_score)][0]
        raise InputError(f"{name} must be finite (no NaN or inf), got {plain(bad)}")
    return y, y_score


def check_probs(y_true, y_prob) -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, y_prob)`` as float arrays: 0/1 labels and probabilities in [0, 1]."""
    y, y_prob = check_scores(y_true, y_prob, name="y_prob")
    if y_prob.min() < 0 or y_prob.max() > 1:
        bad = y_prob[(y_prob < 0) | (y_prob > 1)][0]
        raise InputError(f"y_prob must be probabilities in [0, 1], got {plain(bad)}")
    return y, y_prob


def check_n_bins(n_bins) -> int:
    """``n_bins`` as an int in ``[1, MAX_BINS]`` (the declared :data:`N_BINS`; for CLI parsers)."""
    return int(check("n_bins", n_bins, N_BINS))


# ---------------------------------------------------------------- binning
@validate_params({"n_bins": N_BINS, "strategy": BINNING["strategy"]})
def bin_edges(y_prob=None, *, n_bins: int = 10, strategy: str = "uniform") -> np.ndarray:
    """The ``n_bins + 1`` bin edges, from 0.0 to 1.0.

    ``uniform``: ``b / n_bins`` by exact division.  ``quantile`` (equal mass):
    the ``b / n_bins`` quantiles of ``y_prob`` (linear interpolation), outer
    edges pinned to 0 and 1; repeated probabilities can make bins empty.
    """
    if strategy == "uniform":
        return np.arange(n_bins + 1) / n_bins
    if y_prob is None:
        raise InputError("y_prob must be given for strategy='quantile', got None")
    edges = np.quantile(np.asarray(y_prob, dtype=float), np.arange(n_bins + 1) / n_bins)
    edges[0], edges[-1] = 0.0, 1.0
    return edges


@validate_params({"n_bins": N_BINS, "right_closed": Boolean()})
def bin_index(y_prob, *, n_bins: int = 10, right_closed: bool = False, edges=None) -> np.ndarray:
    """Bin of each probability under the module's convention (see module docstring).

    ``edges`` (``n_bins + 1`` values, from :func:`bin_edges`) overrides the
    equal-width edges; only its interior values matter.
    """
    y_prob = np.asarray(y_prob, dtype=float)
    interior = (
        np.arange(1, n_bins) / n_bins if edges is None else np.asarray(edges, dtype=float)[1:-1]
    )
    # side="right" puts a value equal to an edge into the bin above (left-closed);
    # side="left" into the bin below (right-closed, scikit-learn's choice).
    return np.searchsorted(interior, y_prob, side="left" if right_closed else "right")


def _bin_sums(y, p, *, n_bins, right_closed, strategy):
    edges = bin_edges(p, n_bins=n_bins, strategy=strategy)
    idx = bin_index(p, n_bins=n_bins, right_closed=right_closed, edges=edges)
    counts = np.bincount(idx, minlength=n_bins)
    sum_p = np.bincount(idx, weights=p, minlength=n_bins)
    sum_y = np.bincount(idx, weights=y, minlength=n_bins)
    return edges, idx, counts, sum_p, sum_y


@validate_params(BINNING)
def reliability_table(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> pd.DataFrame:
    """Per-bin reliability statistics; every bin is kept, empty ones included.

    Columns: ``bin, lo, hi, count, conf`` (mean probability), ``acc`` (fraction
    of positives), ``gap = acc - conf``, ``acc_lo, acc_hi`` (95% Wilson interval
    on ``acc``).  Empty bins have NaN ``conf``/``acc``/``gap`` and interval (0, 1).

    Notes
    -----
    ``conf_b = (1/n_b) sum_{i in b} p_i`` and ``acc_b = (1/n_b) sum_{i in b} y_i``.
    """
    y, p = check_probs(y_true, y_prob)
    edges, _, counts, sum_p, sum_y = _bin_sums(
        y, p, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    rows = []
    for b in range(n_bins):
        n = int(counts[b])
        conf = sum_p[b] / n if n else float("nan")
        acc = sum_y[b] / n if n else float("nan")
        lo, hi = wilson_interval(int(round(sum_y[b])), n)
        rows.append(
            {
                "bin": b,
                "lo": float(edges[b]),
                "hi": float(edges[b + 1]),
                "count": n,
                "conf": conf,
                "acc": acc,
                "gap": acc - conf,
                "acc_lo": lo,
                "acc_hi": hi,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- calibration errors
@validate_params(BINNING)
def expected_calibration_error(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Expected calibration error (plug-in estimate).

    Notes
    -----
    ``ECE = sum_b (n_b / n) * |acc(b) - conf(b)|`` where ``acc(b)`` is the mean
    of ``y_true`` and ``conf(b)`` the mean of ``y_prob`` over bin ``b``; empty
    bins contribute 0.  For a multi-class head, pass correctness of the argmax
    as ``y_true`` and the top probability as ``y_prob`` (top-label ECE).

    >>> expected_calibration_error([1, 0, 1, 1], [0.9, 0.9, 0.9, 0.9])
    0.15000000000000002
    """
    y, p = check_probs(y_true, y_prob)
    _, _, counts, sum_p, sum_y = _bin_sums(
        y, p, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    # n_b * |acc_b - conf_b| = |sum_y - sum_p|: no division for empty bins.
    return float(np.abs(sum_y - sum_p).sum() / counts.sum())


@validate_params(BINNING)
def maximum_calibration_error(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Maximum calibration error: the worst gap over non-empty bins.

    Notes
    -----
    ``MCE = max_{b : n_b > 0} |acc(b) - conf(b)|``.

    >>> maximum_calibration_error([1, 0, 0], [0.9, 0.9, 0.05])
    0.4
    """
    table = reliability_table(
        y_true, y_prob, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    gaps = table.loc[table["count"] > 0, "gap"].abs()
    return float(gaps.max())


@validate_params(BINNING)
def debiased_calibration_error(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Debiased L2 calibration error (Kumar, Liang & Ma 2019), next to the plug-in one.

    Notes
    -----
    The plug-in squared error ``sum_b (n_b/n) (acc_b - conf_b)^2`` is biased
    upward: ``acc_b`` carries sampling variance ``acc_b (1 - acc_b) / n_b``.
    Subtracting its unbiased estimate ``acc_b (1 - acc_b) / (n_b - 1)`` gives::

        CE2_debiased^2 = sum_b (n_b/n) [ (acc_b - conf_b)^2 - acc_b (1 - acc_b) / (n_b - 1) ]

    (bins with ``n_b < 2`` keep their plug-in term).  Returned is the square
    root of ``max(0, CE2_debiased^2)``, on the same scale as
    :func:`l2_calibration_error`.
    """
    y, p = check_probs(y_true, y_prob)
    _, _, counts, sum_p, sum_y = _bin_sums(
        y, p, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    total = 0.0
    n = counts.sum()
    for b in range(n_bins):
        nb = counts[b]
        if nb == 0:
            continue
        acc, conf = sum_y[b] / nb, sum_p[b] / nb
        term = (acc - conf) ** 2
        if nb >= 2:
            term -= acc * (1 - acc) / (nb - 1)
        total += nb / n * term
    return float(np.sqrt(max(0.0, total)))


@validate_params(BINNING)
def l2_calibration_error(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> float:
    """Plug-in L2 calibration error ``sqrt(sum_b (n_b/n) (acc_b - conf_b)^2)``.

    It is the square root of the calibration term of :func:`brier_decomposition`.
    """
    parts = brier_decomposition(
        y_true, y_prob, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    return float(np.sqrt(parts["calibration"]))


# ---------------------------------------------------------------- Brier
@validate_params({})  # no options; names itself in its array errors
def brier_score(y_true, y_prob) -> float:
    """Brier score, the mean squared error of probability forecasts.

    Notes
    -----
    ``BS = (1/n) sum_i (p_i - y_i)^2``.

    >>> brier_score([1, 0], [0.75, 0.25])
    0.0625
    """
    y, p = check_probs(y_true, y_prob)
    return float(np.mean((p - y) ** 2))


@validate_params(BINNING)
def brier_decomposition(
    y_true, y_prob, *, n_bins: int = 10, right_closed: bool = False, strategy: str = "uniform"
) -> dict[str, float]:
    """Brier score split into calibration, refinement and within-bin residual.

    Returns ``{"brier", "calibration", "refinement", "residual"}`` with
    ``calibration + refinement + residual == brier`` up to rounding.

    Notes
    -----
    Write ``p_i = conf_b + d_i`` for ``i`` in bin ``b`` (so ``sum_{i in b} d_i = 0``)::

        calibration = sum_b (n_b/n) (conf_b - acc_b)^2
        refinement  = sum_b (n_b/n) acc_b (1 - acc_b)
        residual    = (1/n) sum_b sum_{i in b} d_i (d_i - 2 y_i)

    Expanding ``(p_i - y_i)^2 = ((conf_b - acc_b) + (acc_b - y_i) + d_i)^2``,
    the cross terms ``(conf_b - acc_b) sum (acc_b - y_i)`` and
    ``(conf_b - acc_b) sum d_i`` vanish, ``sum (acc_b - y_i)^2 = n_b acc_b (1 - acc_b)``
    because ``y_i^2 = y_i``, and ``2 sum d_i (acc_b - y_i) = -2 sum d_i y_i``.
    The residual is 0 when every forecast in a bin equals the bin mean; the
    classical two-term decomposition assumes exactly that.

    >>> parts = brier_decomposition([1, 0, 1, 1], [0.9, 0.9, 0.9, 0.9])
    >>> round(parts["calibration"], 4), round(parts["refinement"], 4), parts["residual"]
    (0.0225, 0.1875, 0.0)
    """
    y, p = check_probs(y_true, y_prob)
    _, idx, counts, sum_p, sum_y = _bin_sums(
        y, p, n_bins=n_bins, right_closed=right_closed, strategy=strategy
    )
    n = counts.sum()
    safe = np.maximum(counts, 1)
    conf, acc = sum_p / safe, sum_y / safe
    d = p - conf[idx]
    return {
        "brier": float(np.mean((p - y) ** 2)),
        "calibration": float(np.sum(counts * (conf - acc) ** 2) / n),
        "refinement": float(np.sum(counts * acc * (1 - acc)) / n),
        "residual": float(np.sum(d * (d - 2 * y)) / n),
    }


# ---------------------------------------------------------------- likelihood
def sigmoid(z) -> np.ndarray:
    """``1 / (1 + exp(-z))`` without overflow (``scipy.special.expit``)."""
    from scipy.special import expit

    return expit(np.asarray(z, dtype=float))


@validate_params({"temperature": TEMPERATURE})
def nll_from_scores(y_true, y_score, *, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood of 0/1 labels under ``p = sigmoid(s / tau)``.

    Notes
    -----
    With signed labels ``y± = 2y - 1``::

        NLL(tau) = (1/n) sum_i softplus(-y±_i s_i / tau),   softplus(z) = log(1 + e^z)

    computed as ``logaddexp(0, z)``, exact and finite for ``|s| / tau`` up to
    ~1e308 (no ``log(sigmoid)``, which underflows to ``log 0`` beyond |s| ~ 745).

    >>> round(nll_from_scores([1, 0], [0.0, 0.0]), 6)
    0.693147
    >>> nll_from_scores([0], [1e4])
    10000.0
    """
    y, s = check_scores(y_true, y_score)
    signed = 2.0 * y - 1.0
    return float(np.mean(np.logaddexp(0.0, -signed * s / temperature)))


@validate_params({"eps": EPS})
def nll_from_probs(y_true, y_prob, *, eps: float = 1e-15) -> float:
    """Mean negative log-likelihood of 0/1 labels under probabilities ``y_prob``.

    Probabilities are clipped to ``[eps, 1 - eps]`` (a calibrator that outputs
    exactly 0 or 1 would otherwise score ``inf`` on one wrong point), turned
    into logits and passed to :func:`nll_from_scores`, the one NLL kernel.

    Notes
    -----
    ``NLL = -(1/n) sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)]``.
    """
    y, p = check_probs(y_true, y_prob)
    p = np.clip(p, eps, 1.0 - eps)
    return nll_from_scores(y, np.log(p) - np.log1p(-p))


# ---------------------------------------------------------------- ranking and decisions
@validate_params({})
def roc_auc(y_true, y_score) -> float:
    """Area under the ROC curve as the Mann-Whitney fraction, ties counted 1/2.

    Notes
    -----
    ``AUC = (1 / (n+ n-)) sum_{i: y=1} sum_{j: y=0} ([s_i > s_j] + 1/2 [s_i = s_j])``
    computed from average ranks: ``(R+ - n+ (n+ + 1) / 2) / (n+ n-)`` where
    ``R+`` is the rank sum of the positives.  Depends on the order of the
    scores only, so any strictly increasing map of the scores leaves it unchanged.

    >>> roc_auc([0, 1, 0, 1], [0.1, 0.4, 0.4, 0.9])
    0.875
    """
    y, s = check_scores(y_true, y_score)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise InputError(
            f"y_true must hold both classes for an AUC, got {n_pos} positives and {n_neg} negatives"
        )
    from scipy.stats import rankdata  # lazy: scipy.stats takes ~1 s to import

    ranks = rankdata(s, method="average")
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


@validate_params({})
def accuracy_at_half(y_true, y_prob) -> float:
    """Accuracy of the decisions ``p >= 0.5``: ``(1/n) sum_i [ [p_i >= 0.5] == y_i ]``.

    >>> accuracy_at_half([1, 0, 1], [0.5, 0.2, 0.4])
    0.6666666666666666
    """
    y, p = check_probs(y_true, y_prob)
    return float(np.mean((p >= 0.5) == (y == 1)))


# ---------------------------------------------------------------- summaries
@validate_params(BINNING)
def calibration_summary(
    y_true,
    y_prob,
    *,
    y_score=None,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
) -> dict[str, float]:
    """Every metric of this module on one set of predictions.

    ``nll`` is computed from the raw scores ``y_score`` when given (exact for
    any magnitude), else from the clipped probabilities.  ``auc`` is computed
    on ``y_prob`` (equal to the score AUC unless the sigmoid saturated).
    """
    y, p = check_probs(y_true, y_prob)
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    parts = brier_decomposition(y, p, **opts)
    n_pos = int(y.sum())
    return {
        "n": int(y.size),
        "positives": n_pos,
        "ece": expected_calibration_error(y, p, **opts),
        "mce": maximum_calibration_error(y, p, **opts),
        "ce2": float(np.sqrt(parts["calibration"])),
        "ce2_debiased": debiased_calibration_error(y, p, **opts),
        "brier": parts["brier"],
        "brier_calibration": parts["calibration"],
        "brier_refinement": parts["refinement"],
        "brier_residual": parts["residual"],
        "nll": nll_from_scores(y, y_score) if y_score is not None else nll_from_probs(y, p),
        "auc": roc_auc(y, p) if 0 < n_pos < y.size else float("nan"),
        "acc": accuracy_at_half(y, p),
    }


@validate_params(
    {
        "n_resamples": Interval(int, 1, None, closed="left"),
        "level": Interval(float, 0, 1, closed="neither"),
    }
)
def bootstrap_interval(
    metric: Callable[[np.ndarray, np.ndarray], float],
    y_true,
    y_pred,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``metric(y_true, y_pred)``.

    Resampling is stratified by class: positives and negatives are each drawn
    with replacement at their own count, so every resample keeps the class mix
    (and the AUC stays defined).  ``rng`` must be a seeded
    ``numpy.random.Generator``; the same generator state gives the same interval.

    Notes
    -----
    ``(q_{(1-level)/2}, q_{(1+level)/2})`` of ``{metric(y*, p*)}`` over
    ``n_resamples`` stratified resamples (linear-interpolated quantiles).
    """
    y = check_labels(y_true)
    pred = np.asarray(y_pred, dtype=float)
    if pred.shape != y.shape:
        raise InputError(f"y_pred must have the shape of y_true {y.shape}, got {pred.shape}")
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    values = np.empty(n_resamples)
    for r in range(n_resamples):
        take = np.concatenate(
            [
                rng.choice(pos, size=pos.size, replace=True) if pos.size else pos,
                rng.choice(neg, size=neg.size, replace=True) if neg.size else neg,
            ]
        )
        values[r] = metric(y[take], pred[take])
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
