"""The fitted calibrators of nesybench, binary and K-way, with one interface and one naming rule.

Naming: a calibrator of one score per row (a binary head's logit) is ``<Method>Calibrator``;
a calibrator of a row of ``K`` logits is ``Multiclass<Method>Calibrator``; ``<Method>`` is
the method's name in :data:`nesybench.metrics.METHODS` or
:data:`~nesybench.metrics.MULTICLASS_METHODS`, and :func:`make_calibrator` /
:func:`make_multiclass_calibrator` build them from that name.  Every one is fitted on the
calibration rows only and has ``fit(x, labels)``, ``predict_proba(x)``, ``predict_logits(x)``
(``None`` for the isotonic maps, which have no finite logit where they output 0 or 1) and
``params()``.

Binary (one raw score ``s`` per row):

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

K-way (a row of logits ``z``, ``K`` finite reals; the model's own reading is ``softmax(z)``):

* :class:`MulticlassTemperatureCalibrator`: ``softmax(z / tau)``, one parameter, fitted by the
  golden-section search of :mod:`nesybench.metrics.temperature`.  Dividing by
  ``tau > 0`` keeps the order of the logits in every row, so the argmax and the
  per-example ranking of the classes cannot move (:func:`ranking_invariances`).
* :class:`MulticlassVectorCalibrator`: ``softmax(w * z + b)`` (``w``, ``b`` in ``R^K``).
* :class:`MulticlassMatrixCalibrator`: ``softmax(W z + b)`` (``W`` in ``R^{K x K}``).
  Both are fitted by minimising, with ``scipy.optimize.minimize`` (L-BFGS-B, exact
  gradient), the mean NLL on the calibration rows plus the stated regulariser

      ``(reg / 2) (||w - 1||^2 + ||b||^2)``  or  ``(reg / 2) (||W - I||_F^2 + ||b||^2)``,

  an L2 pull towards the identity map (the uncalibrated model); ``reg > 0`` makes
  the objective strictly convex, so the minimiser is unique and finite even when
  the calibration rows are separable.
* :class:`MulticlassIsotonicCalibrator`: for each class ``k`` a non-decreasing step map
  ``g_k`` from ``softmax(z)_k`` to the frequency of class ``k`` (scikit-learn
  ``IsotonicRegression``, ``out_of_bounds="clip"``), then renormalised:
  ``q_k = g_k(p_k) / sum_j g_j(p_j)``; a row where every ``g_j`` is 0 gets the
  uniform distribution ``1/K``.

The before/after audits that use them are :mod:`nesybench.calibration.audit` (binary) and
:mod:`nesybench.metrics.multiclass_calibration` (K-way).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp
from scipy.special import softmax as _softmax

from ..constraints import Interval, Options, validate_params
from ..errors import InputError
from . import METHODS, MULTICLASS_METHODS
from .calibration import accuracy_at_half, check_scores, roc_auc, sigmoid
from .multiclass import check_logits, softmax
from .temperature import fit_temperature, fit_temperature_softmax

DEFAULT_REG = 1e-3
REG = Interval(float, 0, None, closed="neither")  # the L2 pull towards the identity map


# ---------------------------------------------------------------- binary: one score per row
class TemperatureCalibrator:
    """``p = sigmoid(s / tau)``, ``tau`` minimising the NLL (:func:`fit_temperature`)."""

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

    def predict_logits(self, scores) -> np.ndarray:
        return np.asarray(scores, dtype=float) / self.tau_

    def predict_proba(self, scores) -> np.ndarray:
        return sigmoid(self.predict_logits(scores))

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

    def predict_logits(self, scores) -> np.ndarray:
        return self.a_ * np.asarray(scores, dtype=float) + self.b_

    def predict_proba(self, scores) -> np.ndarray:
        return sigmoid(self.predict_logits(scores))

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

    predict_logits = None  # a step function has no finite logit where it outputs 0 or 1

    def predict_proba(self, scores) -> np.ndarray:
        return np.asarray(self.model_.predict(np.asarray(scores, dtype=float)), dtype=float)

    def params(self) -> dict[str, float]:
        return {"steps": float(len(self.model_.X_thresholds_))}


@validate_params({"method": Options(METHODS)})
def make_calibrator(
    method: str,
    *,
    lo: float = 0.05,
    hi: float = 20.0,
    tol: float = 1e-8,
    trace_every: int = 10,
    platt_c: float = 1e6,
):
    """The calibrator named ``method`` (one of :data:`nesybench.metrics.METHODS`)."""
    if method == "temperature":
        return TemperatureCalibrator(lo=lo, hi=hi, tol=tol, trace_every=trace_every)
    if method == "platt":
        return PlattCalibrator(C=platt_c)
    if method == "isotonic":
        return IsotonicCalibrator()
    raise AssertionError(method)  # unreachable: the declared Options


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


# ---------------------------------------------------------------- K-way: a row of logits per row
def _onehot(y: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((y.size, k))
    out[np.arange(y.size), y] = 1.0
    return out


class MulticlassTemperatureCalibrator:
    """``softmax(z / tau)`` with ``tau`` minimising the mean NLL (golden-section search)."""

    def __init__(self, *, lo: float = 0.05, hi: float = 20.0, tol: float = 1e-8):
        self.lo, self.hi, self.tol = lo, hi, tol

    def fit(self, logits, labels) -> MulticlassTemperatureCalibrator:
        self.fit_ = fit_temperature_softmax(logits, labels, lo=self.lo, hi=self.hi, tol=self.tol)
        self.tau_ = self.fit_.tau
        return self

    def predict_logits(self, logits) -> np.ndarray:
        return np.asarray(logits, dtype=float) / self.tau_

    def predict_proba(self, logits) -> np.ndarray:
        return softmax(self.predict_logits(logits))

    def params(self) -> dict:
        return {"tau": self.tau_}


class _MulticlassAffineCalibrator:
    """Shared fit of ``softmax(A(z))`` for an affine map ``A`` by penalised NLL (L-BFGS-B)."""

    @validate_params({"reg": REG, "max_iter": Interval(int, 1, None)})
    def __init__(self, *, reg: float = DEFAULT_REG, max_iter: int = 2000):
        self.reg, self.max_iter = float(reg), max_iter

    # subclasses: _unpack(theta, k) -> (A, b); _apply(z, A, b); _grad(z, g, A, b) -> theta grad;
    # _identity(k) -> theta of the identity map
    def fit(self, logits, labels) -> _MulticlassAffineCalibrator:
        y, z = check_logits(labels, logits, name="labels")
        k = z.shape[1]
        onehot = _onehot(y, k)
        theta0 = self._identity(k)
        ident = theta0.copy()
        n = y.size

        def objective(theta):
            a, b = self._unpack(theta, k)
            s = self._apply(z, a, b)
            lse = logsumexp(s, axis=1)
            nll = float(np.mean(lse - s[np.arange(n), y]))
            d = theta - ident
            g = (_softmax(s, axis=1) - onehot) / n  # d mean-NLL / d s
            return nll + 0.5 * self.reg * float(d @ d), self._grad(z, g) + self.reg * d

        result = minimize(
            objective,
            theta0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": 1e-10, "ftol": 1e-15},
        )
        self.theta_ = result.x
        self.n_classes_ = k
        self.converged_ = bool(result.success)
        self.iterations_ = int(result.nit)
        self.objective_ = float(result.fun)
        return self

    def predict_logits(self, logits) -> np.ndarray:
        z = np.asarray(logits, dtype=float)
        if z.ndim != 2 or z.shape[1] != self.n_classes_:
            raise InputError(
                f"logits must have shape (n, {self.n_classes_}) as in the fit, got {z.shape}"
            )
        a, b = self._unpack(self.theta_, self.n_classes_)
        return self._apply(z, a, b)

    def predict_proba(self, logits) -> np.ndarray:
        return softmax(self.predict_logits(logits))


class MulticlassVectorCalibrator(_MulticlassAffineCalibrator):
    """``softmax(w * z + b)``: one scale and one offset per class (``2K`` parameters)."""

    @staticmethod
    def _identity(k):
        return np.concatenate([np.ones(k), np.zeros(k)])

    @staticmethod
    def _unpack(theta, k):
        return theta[:k], theta[k:]

    @staticmethod
    def _apply(z, w, b):
        return z * w + b

    @staticmethod
    def _grad(z, g):
        return np.concatenate([(g * z).sum(axis=0), g.sum(axis=0)])

    def params(self) -> dict:
        w, b = self._unpack(self.theta_, self.n_classes_)
        return {"w": w.tolist(), "b": b.tolist(), "reg": self.reg, "converged": self.converged_}


class MulticlassMatrixCalibrator(_MulticlassAffineCalibrator):
    """``softmax(W z + b)``: a full affine map of the logits (``K^2 + K`` parameters)."""

    @staticmethod
    def _identity(k):
        return np.concatenate([np.eye(k).ravel(), np.zeros(k)])

    @staticmethod
    def _unpack(theta, k):
        return theta[: k * k].reshape(k, k), theta[k * k :]

    @staticmethod
    def _apply(z, w, b):
        return z @ w.T + b

    @staticmethod
    def _grad(z, g):
        return np.concatenate([(g.T @ z).ravel(), g.sum(axis=0)])

    def params(self) -> dict:
        w, b = self._unpack(self.theta_, self.n_classes_)
        return {"W": w.tolist(), "b": b.tolist(), "reg": self.reg, "converged": self.converged_}


class MulticlassIsotonicCalibrator:
    """One isotonic map per class on ``softmax(z)_k``, then rows renormalised to sum to 1.

    A class absent from the calibration rows maps to 0 everywhere, so it gets probability 0.
    """

    def fit(self, logits, labels) -> MulticlassIsotonicCalibrator:
        from sklearn.isotonic import IsotonicRegression

        y, z = check_logits(labels, logits, name="labels")
        p = softmax(z)
        self.n_classes_ = z.shape[1]
        self.models_ = [
            IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(
                p[:, k], (y == k).astype(float)
            )
            for k in range(self.n_classes_)
        ]
        return self

    predict_logits = None  # a step map has no logit where it outputs 0

    def predict_proba(self, logits) -> np.ndarray:
        p = softmax(np.asarray(logits, dtype=float))
        q = np.column_stack([m.predict(p[:, k]) for k, m in enumerate(self.models_)])
        total = q.sum(axis=1, keepdims=True)
        uniform = np.full_like(q, 1.0 / self.n_classes_)
        return np.where(total > 0, q / np.where(total > 0, total, 1.0), uniform)

    def params(self) -> dict:
        return {"steps": [int(len(m.X_thresholds_)) for m in self.models_]}


@validate_params({"method": Options(MULTICLASS_METHODS), "reg": REG})
def make_multiclass_calibrator(method: str, *, reg: float = DEFAULT_REG):
    """The calibrator named ``method`` (one of :data:`nesybench.metrics.MULTICLASS_METHODS`)."""
    if method == "temperature":
        return MulticlassTemperatureCalibrator()
    if method == "vector":
        return MulticlassVectorCalibrator(reg=reg)
    if method == "matrix":
        return MulticlassMatrixCalibrator(reg=reg)
    if method == "isotonic":
        return MulticlassIsotonicCalibrator()
    raise AssertionError(method)  # unreachable: the declared Options


def ranking_invariances(logits, probs_after) -> dict[str, bool]:
    """Whether the calibrated probabilities keep each row's argmax and its ranking of the classes.

    ``argmax``: ``argmax_k q_ik == argmax_k z_ik`` in every row (first maximum).
    ``ranking``: no pair of classes is reversed in any row: ``z_ij > z_ik`` implies
    ``q_ij >= q_ik`` (measured on the probabilities as returned; two tiny
    probabilities that underflow to the same float count as kept, a swap does not).

    >>> ranking_invariances([[3.0, 1.0, 2.0]], [[0.5, 0.2, 0.3]])
    {'argmax': True, 'ranking': True}
    >>> ranking_invariances([[3.0, 1.0, 2.0]], [[0.5, 0.3, 0.2]])
    {'argmax': True, 'ranking': False}
    """
    z = np.asarray(logits, dtype=float)
    q = np.asarray(probs_after, dtype=float)
    # Classes by logit (descending), ties among equal logits by probability (descending):
    # the probabilities then never increase along a row iff no strictly ordered pair swapped.
    order = np.lexsort((-q, -z), axis=1)
    q_in_z_order = np.take_along_axis(q, order, axis=1)
    return {
        "argmax": bool(np.array_equal(np.argmax(z, axis=1), np.argmax(q, axis=1))),
        "ranking": bool(np.all(np.diff(q_in_z_order, axis=1) <= 0)),
    }
