"""Post-hoc calibrators of a K-way head, and the before/after audit of its evaluation rows.

Each calibrator reads a row of logits ``z`` (``K`` finite reals; the model's own
reading is ``softmax(z)``), is fitted on the calibration rows only, and has the
interface ``fit(logits, labels)`` / ``predict_proba(logits)`` / ``params()``:

* :class:`TemperatureScaling`: ``softmax(z / tau)``, one parameter, fitted by the
  golden-section search of :mod:`nesybench.metrics.temperature`.  Dividing by
  ``tau > 0`` keeps the order of the logits in every row, so the argmax and the
  per-example ranking of the classes cannot move; both are measured and asserted.
* :class:`VectorScaling`: ``softmax(w * z + b)`` (``w``, ``b`` in ``R^K``, per-class).
* :class:`MatrixScaling`: ``softmax(W z + b)`` (``W`` in ``R^{K x K}``).
  Both are fitted by minimising, with ``scipy.optimize.minimize`` (L-BFGS-B, exact
  gradient), the mean NLL on the calibration rows plus the stated regulariser

      ``(reg / 2) (||w - 1||^2 + ||b||^2)``  or  ``(reg / 2) (||W - I||_F^2 + ||b||^2)``,

  an L2 pull towards the identity map (the uncalibrated model); ``reg > 0`` makes
  the objective strictly convex, so the minimiser is unique and finite even when
  the calibration rows are separable.
* :class:`IsotonicOneVsRest`: for each class ``k`` a non-decreasing step map
  ``g_k`` from ``softmax(z)_k`` to the frequency of class ``k`` (scikit-learn
  ``IsotonicRegression``, ``out_of_bounds="clip"``), then renormalised:
  ``q_k = g_k(p_k) / sum_j g_j(p_j)``; a row where every ``g_j`` is 0 gets the
  uniform distribution ``1/K``.

:func:`calibrate_multiclass` fits one method on the calibration rows and
returns the before/after summary (``ece_top``, ``ece_classwise``, ``nll``,
``brier``, ``acc``; :mod:`nesybench.metrics.multiclass`) on the evaluation rows,
the per-class reliability data, the fitted parameters and the invariances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import logsumexp
from scipy.special import softmax as _softmax

from ..constraints import Boolean, Interval, Options, validate_params
from ..errors import InputError, check_claim
from . import MULTICLASS_METHODS
from .calibration import BINNING
from .multiclass import (
    SUMMARY_KEYS,
    check_logits,
    multiclass_reliability,
    multiclass_summary,
    softmax,
)
from .temperature import fit_temperature_softmax

DEFAULT_REG = 1e-3
REG = Interval(float, 0, None, closed="neither")  # the L2 pull towards the identity map


def _onehot(y: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((y.size, k))
    out[np.arange(y.size), y] = 1.0
    return out


class TemperatureScaling:
    """``softmax(z / tau)`` with ``tau`` minimising the mean NLL (golden-section search)."""

    def __init__(self, *, lo: float = 0.05, hi: float = 20.0, tol: float = 1e-8):
        self.lo, self.hi, self.tol = lo, hi, tol

    def fit(self, logits, labels) -> TemperatureScaling:
        self.fit_ = fit_temperature_softmax(logits, labels, lo=self.lo, hi=self.hi, tol=self.tol)
        self.tau_ = self.fit_.tau
        return self

    def predict_logits(self, logits) -> np.ndarray:
        return np.asarray(logits, dtype=float) / self.tau_

    def predict_proba(self, logits) -> np.ndarray:
        return softmax(self.predict_logits(logits))

    def params(self) -> dict:
        return {"tau": self.tau_}


class _AffineScaling:
    """Shared fit of ``softmax(A(z))`` for an affine map ``A`` by penalised NLL (L-BFGS-B)."""

    @validate_params({"reg": REG, "max_iter": Interval(int, 1, None)})
    def __init__(self, *, reg: float = DEFAULT_REG, max_iter: int = 2000):
        self.reg, self.max_iter = float(reg), max_iter

    # subclasses: _unpack(theta, k) -> (A, b); _apply(z, A, b); _grad(z, g, A, b) -> theta grad;
    # _identity(k) -> theta of the identity map
    def fit(self, logits, labels) -> _AffineScaling:
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


class VectorScaling(_AffineScaling):
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


class MatrixScaling(_AffineScaling):
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


class IsotonicOneVsRest:
    """One isotonic map per class on ``softmax(z)_k``, then rows renormalised to sum to 1.

    A class absent from the calibration rows maps to 0 everywhere, so it gets probability 0.
    """

    def fit(self, logits, labels) -> IsotonicOneVsRest:
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
        return TemperatureScaling()
    if method == "vector":
        return VectorScaling(reg=reg)
    if method == "matrix":
        return MatrixScaling(reg=reg)
    if method == "isotonic":
        return IsotonicOneVsRest()
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


@dataclass
class MulticlassRepair:
    """One method fitted on the calibration rows and audited on the evaluation rows.

    ``before``/``after``: :func:`~nesybench.metrics.multiclass.multiclass_summary`
    of the evaluation rows under ``softmax(z)`` and under the calibrator;
    ``probs_after``: the calibrated probabilities of every row;
    ``reliability``: per-reading (``before``/``after``) top-label and per-class
    reliability tables of the evaluation rows; ``invariance``: over every row.
    """

    method: str
    calibrator: object
    params: dict
    n_classes: int
    probs_after: np.ndarray
    before: dict
    after: dict
    invariance: dict[str, bool]
    reliability: pd.DataFrame

    def table(self) -> pd.DataFrame:
        """The before/after table: one row per metric (``ece_top`` ... ``acc``)."""
        return pd.DataFrame(
            {
                "metric": list(SUMMARY_KEYS),
                "before": [self.before[k] for k in SUMMARY_KEYS],
                "after": [self.after[k] for k in SUMMARY_KEYS],
                "method": self.method,
            }
        )


def check_calibration_split(labels, is_cal) -> None:
    """Both halves non-empty and at least two classes among the calibration rows."""
    y = np.asarray(labels)
    is_cal = np.asarray(is_cal, dtype=bool)
    if is_cal.shape != y.shape:
        raise InputError(
            f"is_cal must have one entry per label, got {is_cal.shape[0]} and {y.shape[0]}"
        )
    for name, mask in (("cal", is_cal), ("eval", ~is_cal)):
        if not mask.any():
            raise InputError(f"split {name!r} is empty; need rows with split == {name!r}")
    present = np.unique(y[is_cal])
    if present.size < 2:
        raise InputError(
            f"split 'cal' has only class {int(present[0])} ({int(is_cal.sum())} rows); "
            "fitting a calibrator needs at least two classes"
        )


@validate_params(
    {**BINNING, "method": Options(MULTICLASS_METHODS), "reg": REG, "reliability": Boolean()}
)
def calibrate_multiclass(
    logits,
    labels,
    is_cal,
    *,
    method: str,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
    reg: float = DEFAULT_REG,
    reliability: bool = True,
) -> MulticlassRepair:
    """Fit ``method`` on the rows where ``is_cal``; audit the other rows before and after.

    ``logits`` ``(n, K)``, ``labels`` ``(n,)`` class indices, ``is_cal`` ``(n,)`` booleans.
    ``reliability=False`` skips the per-class reliability tables (``reliability`` is then
    an empty frame): a sweep that audits hundreds of heads draws diagrams for few of them.
    For ``temperature`` the argmax and per-row class ranking are asserted unchanged
    (:func:`ranking_invariances`; a failure is a :class:`~nesybench.errors.ClaimFailed`).

    >>> z = [[2.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 1.0]]
    >>> rep = calibrate_multiclass(z, [0, 1, 1, 1, 0, 0], [1, 1, 1, 1, 0, 0], method="temperature")
    >>> rep.params["tau"] > 1, rep.invariance
    (True, {'argmax': True, 'ranking': True})
    """
    y, z = check_logits(labels, logits, name="labels")
    is_cal = np.asarray(is_cal, dtype=bool)
    check_calibration_split(y, is_cal)
    calibrator = make_multiclass_calibrator(method, reg=reg).fit(z[is_cal], y[is_cal])
    q = calibrator.predict_proba(z)
    ev = ~is_cal
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    p0 = softmax(z)
    after_logits = calibrator.predict_logits(z) if calibrator.predict_logits is not None else None
    before = multiclass_summary(y[ev], p0[ev], logits=z[ev], **opts)
    after = multiclass_summary(
        y[ev], q[ev], logits=None if after_logits is None else after_logits[ev], **opts
    )
    invariance = ranking_invariances(z, q)
    if method == "temperature":
        check_claim(
            invariance["argmax"] and invariance["ranking"],
            f"temperature scaling (tau = {calibrator.tau_:.6g}) keeps every row's argmax and class "
            f"ranking, got {invariance}",
        )
    if reliability:
        tables = pd.concat(
            [
                multiclass_reliability(y[ev], p0[ev], **opts).assign(reading="before"),
                multiclass_reliability(y[ev], q[ev], **opts).assign(reading="after"),
            ],
            ignore_index=True,
        )
        tables = tables[["reading"] + [c for c in tables.columns if c != "reading"]]
    else:
        tables = pd.DataFrame()
    return MulticlassRepair(
        method=method,
        calibrator=calibrator,
        params=calibrator.params(),
        n_classes=int(z.shape[1]),
        probs_after=q,
        before=before,
        after=after,
        invariance=invariance,
        reliability=tables,
    )
