"""Post-hoc calibrators with one interface: ``fit(scores, labels)`` then ``predict_proba(scores)``.

All three map a raw score (a logit) to a probability and are fitted on the
calibration half only:

* :class:`TemperatureCalibrator`: ``p = sigmoid(s / tau)``, one parameter,
  strictly increasing and sign-preserving, so in exact arithmetic decisions,
  order and AUC cannot move.  In float64 the sigmoid saturates to 1.0 above
  s ~ 37, and saturated ties can be split by tau > 1: that is why the
  invariances are measured bitwise (:func:`invariances`) and asserted, not assumed.
* :class:`PlattCalibrator`: ``p = sigmoid(a s + b)``, two parameters, fitted by
  scikit-learn ``LogisticRegression`` on the score; ``b`` can move the 0.5 threshold.
* :class:`IsotonicCalibrator`: a non-decreasing step function fitted by
  scikit-learn ``IsotonicRegression(out_of_bounds="clip")``; it keeps order but
  can merge distinct scores into ties and outputs exact 0s and 1s.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..metrics.calibration import check_scores, sigmoid
from ..metrics.temperature import fit_temperature
from .methods import METHODS


class TemperatureCalibrator:
    """``p = sigmoid(s / tau)`` with ``tau`` minimising the NLL (:func:`fit_temperature`)."""

    def __init__(
        self, *, lo: float = 0.05, hi: float = 20.0, tol: float = 1e-8, trace_every: int = 10
    ):
        self.lo, self.hi, self.tol, self.trace_every = lo, hi, tol, trace_every

    def fit(self, scores, labels) -> TemperatureCalibrator:
        self.fit_ = fit_temperature(
            scores, labels, lo=self.lo, hi=self.hi, tol=self.tol, trace_every=self.trace_every
        )
        self.tau_ = self.fit_.tau
        return self

    def predict_logit(self, scores) -> np.ndarray:
        return np.asarray(scores, dtype=float) / self.tau_

    def predict_proba(self, scores) -> np.ndarray:
        return sigmoid(self.predict_logit(scores))

    def params(self) -> dict[str, float]:
        return {"tau": self.tau_}


class PlattCalibrator:
    """``p = sigmoid(a s + b)`` (Platt 1999) fitted by logistic regression of labels on the score.

    ``C`` is scikit-learn's inverse L2 strength on ``a``; the large default
    keeps the fit essentially unpenalised while staying finite when the
    calibration half is separable.
    """

    def __init__(self, *, C: float = 1e6):
        self.C = C

    def fit(self, scores, labels) -> PlattCalibrator:
        from sklearn.linear_model import LogisticRegression  # lazy: most jobs never fit one

        y, s = check_scores(labels, scores)
        self.model_ = LogisticRegression(C=self.C, solver="lbfgs", max_iter=10_000).fit(
            s[:, None], y.astype(int)
        )
        self.a_ = float(self.model_.coef_[0, 0])
        self.b_ = float(self.model_.intercept_[0])
        return self

    def predict_logit(self, scores) -> np.ndarray:
        return self.a_ * np.asarray(scores, dtype=float) + self.b_

    def predict_proba(self, scores) -> np.ndarray:
        return sigmoid(self.predict_logit(scores))

    def params(self) -> dict[str, float]:
        return {"a": self.a_, "b": self.b_}


class IsotonicCalibrator:
    """Non-decreasing step map from score to probability (scikit-learn ``IsotonicRegression``)."""

    def fit(self, scores, labels) -> IsotonicCalibrator:
        from sklearn.isotonic import IsotonicRegression  # lazy: most jobs never fit one

        y, s = check_scores(labels, scores)
        self.model_ = IsotonicRegression(
            y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip"
        ).fit(s, y)
        return self

    predict_logit = None  # a step function has no finite logit where it outputs 0 or 1

    def predict_proba(self, scores) -> np.ndarray:
        return np.asarray(self.model_.predict(np.asarray(scores, dtype=float)), dtype=float)

    def params(self) -> dict[str, float]:
        return {"steps": float(len(self.model_.X_thresholds_))}


def make_calibrator(
    method: str,
    *,
    lo: float = 0.05,
    hi: float = 20.0,
    tol: float = 1e-8,
    trace_every: int = 10,
    platt_c: float = 1e6,
):
    """The calibrator named ``method`` (one of :data:`METHODS`)."""
    if method == "temperature":
        return TemperatureCalibrator(lo=lo, hi=hi, tol=tol, trace_every=trace_every)
    if method == "platt":
        return PlattCalibrator(C=platt_c)
    if method == "isotonic":
        return IsotonicCalibrator()
    raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def invariances(scores, p_before, p_after, labels) -> dict[str, bool]:
    """Which decision/ranking invariances held between two probability readings of the same scores.

    Measured exactly (bitwise), not assumed: ``decisions`` (``p >= 0.5``
    identical), ``accuracy`` (equal floats), ``order`` (no two scores change order: both
    readings are non-decreasing along the scores' own order), ``argsort`` (identical stable
    argsort of the probabilities), ``auc`` (equal floats), ``no_new_ties`` (no two distinct
    scores share a probability after but not before), ``same_ties`` (as many distinct
    probabilities after as before: with ``order``, the same ties).

    A strictly increasing map keeps the order of real numbers, but floats saturate: a sharp
    sigmoid (tau < 1) rounds several large scores to the same probability, which ties them
    (``no_new_ties`` False) and so changes the stable ``argsort`` without reversing any pair.
    ``order`` is the invariance that holds in floating point; ``argsort`` and ``auc`` are
    bit-identical when, besides, no ties are made or broken (``same_ties``).
    """
    from ..metrics.calibration import accuracy_at_half, roc_auc

    y = np.asarray(labels)
    before, after = np.asarray(p_before, dtype=float), np.asarray(p_after, dtype=float)
    both = 0 < y.sum() < y.size
    by_score = np.argsort(np.asarray(scores, dtype=float), kind="stable")
    return {
        "decisions": bool(np.array_equal(before >= 0.5, after >= 0.5)),
        "accuracy": accuracy_at_half(y, before) == accuracy_at_half(y, after),
        "order": bool(
            np.all(np.diff(before[by_score]) >= 0) and np.all(np.diff(after[by_score]) >= 0)
        ),
        "argsort": bool(
            np.array_equal(np.argsort(before, kind="stable"), np.argsort(after, kind="stable"))
        ),
        "auc": bool(both and roc_auc(y, before) == roc_auc(y, after)),
        "no_new_ties": len(np.unique(after)) >= len(np.unique(before)),
        "same_ties": len(np.unique(after)) == len(np.unique(before)),
    }
