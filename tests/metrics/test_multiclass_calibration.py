"""Multi-class calibrators against independent scipy / scikit-learn fits, and the repair audit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from scipy.special import logsumexp
from sklearn.isotonic import IsotonicRegression

from nesybench.errors import ClaimFailed, InputError
from nesybench.metrics import multiclass_calibration as mc
from nesybench.metrics.calibrators import (
    MulticlassIsotonicCalibrator,
    MulticlassMatrixCalibrator,
    MulticlassTemperatureCalibrator,
    MulticlassVectorCalibrator,
    make_multiclass_calibrator,
    ranking_invariances,
)
from nesybench.metrics.multiclass import SUMMARY_KEYS, multiclass_summary, softmax
from nesybench.metrics.multiclass_calibration import calibrate_multiclass
from nesybench.seeds import child_rng


def _head(seed=0, n=600, k=4, inflate=3.0, shift=0.0):
    """Labels drawn from softmax(z); the model reports inflate * z + shift (miscalibrated)."""
    rng = child_rng(seed, "test_calibration_multiclass")
    z = rng.normal(0, 1.2, (n, k))
    y = np.array([rng.choice(k, p=row) for row in softmax(z)])
    bias = shift * np.arange(k)
    return y, inflate * z + bias, np.arange(n) % 2 == 0


def _penalised_nll(theta, z, y, reg, apply, ident):
    """The documented objective, written anew: mean NLL + (reg/2) ||theta - identity||^2."""
    s = apply(theta, z)
    nll = np.mean(logsumexp(s, axis=1) - s[np.arange(len(y)), y])
    d = theta - ident
    return nll + 0.5 * reg * d @ d


def test_temperature_scaling_matches_brute_force_scipy_minimisation():
    y, z, _ = _head()
    fit = MulticlassTemperatureCalibrator().fit(z, y)
    ref = minimize_scalar(
        lambda t: np.mean(logsumexp(z / t, axis=1) - z[np.arange(len(y)), y] / t),
        bounds=(0.05, 20.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert fit.tau_ == pytest.approx(ref.x, rel=1e-6)
    assert fit.tau_ > 1  # logits inflated 3x
    np.testing.assert_allclose(fit.predict_proba(z), softmax(z / fit.tau_), rtol=0, atol=0)


@pytest.mark.parametrize("seed", range(2))
def test_vector_scaling_matches_an_independent_scipy_fit(seed):
    y, z, _ = _head(seed, k=3, shift=0.7)
    reg = 1e-3
    fit = MulticlassVectorCalibrator(reg=reg).fit(z, y)
    k = 3

    def apply(theta, z):
        return z * theta[:k] + theta[k:]

    ident = np.r_[np.ones(k), np.zeros(k)]
    ref = minimize(
        _penalised_nll,
        ident,
        args=(z, y, reg, apply, ident),
        method="BFGS",
        options={"gtol": 1e-9},
    )  # fmt: skip (numerical gradient: independent of the fit's analytic one)
    ours = _penalised_nll(fit.theta_, z, y, reg, apply, ident)
    assert ours <= ref.fun + 1e-10
    np.testing.assert_allclose(fit.theta_, ref.x, atol=1e-4)
    assert fit.converged_
    # The NLL ignores a common shift of b; the L2 term picks the shift with sum(b) = 0.
    assert abs(fit.theta_[k:].sum()) < 1e-6
    p = fit.params()
    assert set(p) == {"w", "b", "reg", "converged"} and len(p["w"]) == len(p["b"]) == k


def test_matrix_scaling_matches_an_independent_scipy_fit_and_is_stationary():
    y, z, _ = _head(1, k=3, shift=0.5)
    reg = 1e-2
    fit = MulticlassMatrixCalibrator(reg=reg).fit(z, y)
    k = 3

    def apply(theta, z):
        return z @ theta[: k * k].reshape(k, k).T + theta[k * k :]

    ident = np.r_[np.eye(k).ravel(), np.zeros(k)]
    ref = minimize(_penalised_nll, ident, args=(z, y, reg, apply, ident), method="BFGS")
    assert _penalised_nll(fit.theta_, z, y, reg, apply, ident) <= ref.fun + 1e-10
    np.testing.assert_allclose(fit.theta_, ref.x, atol=1e-4)
    # central finite differences of the independent objective vanish at the fit
    h = 1e-6
    grad = [
        (
            _penalised_nll(fit.theta_ + h * e, z, y, reg, apply, ident)
            - _penalised_nll(fit.theta_ - h * e, z, y, reg, apply, ident)
        )
        / (2 * h)
        for e in np.eye(fit.theta_.size)
    ]
    assert np.max(np.abs(grad)) < 1e-6
    assert np.array(fit.params()["W"]).shape == (k, k)


def test_affine_scalings_start_from_identity_and_improve_nll():
    y, z, is_cal = _head(2, k=4, shift=1.0)
    for cls in (MulticlassVectorCalibrator, MulticlassMatrixCalibrator):
        fit = cls().fit(z[is_cal], y[is_cal])
        ev = ~is_cal
        before = multiclass_summary(y[ev], softmax(z[ev]), logits=z[ev])["nll"]
        after = multiclass_summary(y[ev], fit.predict_proba(z[ev]))["nll"]
        assert after < before, cls.__name__


def test_affine_scaling_rejects_a_bad_regulariser_and_shape():
    with pytest.raises(
        InputError, match="MulticlassVectorCalibrator: reg must be a real number > 0, got 0"
    ):
        MulticlassVectorCalibrator(reg=0)
    y, z, _ = _head(k=3, n=40)
    fit = MulticlassMatrixCalibrator().fit(z, y)
    with pytest.raises(InputError, match=r"shape \(n, 3\)"):
        fit.predict_proba(np.zeros((2, 4)))


def test_isotonic_one_vs_rest_equals_sklearn_per_class_then_renormalised():
    y, z, is_cal = _head(3, k=4)
    fit = MulticlassIsotonicCalibrator().fit(z[is_cal], y[is_cal])
    p_cal, p_all = softmax(z[is_cal]), softmax(z)
    raw = np.column_stack(
        [
            IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")
            .fit(p_cal[:, k], (y[is_cal] == k).astype(float))
            .predict(p_all[:, k])
            for k in range(4)
        ]
    )
    expected = raw / raw.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(fit.predict_proba(z), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fit.predict_proba(z).sum(axis=1), 1.0, atol=1e-12)
    assert len(fit.params()["steps"]) == 4


def test_isotonic_one_vs_rest_gives_uniform_rows_where_every_map_is_zero():
    # Cal rows: class 0 only where p_0 is high, class 1 only where p_1 is high; a class-2 head
    # that never fires maps to 0; an eval row below every class's lowest positive maps to 0.
    z = np.array([[5.0, 0.0, 0.0], [0.0, 5.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]])
    y = np.array([0, 1, 0, 1])
    fit = MulticlassIsotonicCalibrator().fit(z, y)
    q = fit.predict_proba(np.array([[0.0, 0.0, 9.0]]))
    np.testing.assert_array_equal(q, np.full((1, 3), 1 / 3))


def test_ranking_invariances_detect_a_swap_and_ignore_underflow_ties():
    z = np.array([[0.0, -800.0, -900.0]])
    assert ranking_invariances(z, softmax(z)) == {"argmax": True, "ranking": True}
    assert softmax(z)[0, 1] == softmax(z)[0, 2] == 0.0  # merged by underflow: still kept
    assert ranking_invariances([[1.0, 2.0]], [[0.6, 0.4]]) == {"argmax": False, "ranking": False}


@pytest.mark.parametrize("method", ["temperature", "vector", "matrix", "isotonic"])
def test_calibrate_multiclass_audits_the_eval_rows_of_a_cal_fit(method):
    y, z, is_cal = _head(4, k=4, shift=0.3)
    rep = calibrate_multiclass(z, y, is_cal, method=method, n_bins=15)
    ev = ~is_cal
    direct = make_multiclass_calibrator(method).fit(z[is_cal], y[is_cal])
    np.testing.assert_array_equal(rep.probs_after, direct.predict_proba(z))
    assert rep.params == direct.params()
    assert rep.before == multiclass_summary(y[ev], softmax(z[ev]), logits=z[ev], n_bins=15)
    after_logits = None if direct.predict_logits is None else direct.predict_logits(z[ev])
    assert rep.after == multiclass_summary(
        y[ev], rep.probs_after[ev], logits=after_logits, n_bins=15
    )
    flipped = y.copy()
    flipped[ev] = (flipped[ev] + 1) % 4  # eval labels cannot move the fit
    assert calibrate_multiclass(z, flipped, is_cal, method=method).params == rep.params
    table = rep.table()
    assert table["metric"].tolist() == list(SUMMARY_KEYS)
    assert table["before"].tolist() == [rep.before[k] for k in SUMMARY_KEYS]
    rel = rep.reliability
    assert set(rel["reading"]) == {"before", "after"}
    assert len(rel) == 2 * 15 * (1 + 4)
    assert (rel.groupby(["reading", "class"])["count"].sum() == ev.sum()).all()


def test_calibrate_multiclass_temperature_keeps_argmax_and_ranking_and_improves():
    y, z, is_cal = _head(5, k=10, n=1000)
    rep = calibrate_multiclass(z, y, is_cal, method="temperature")
    assert rep.invariance == {"argmax": True, "ranking": True}
    assert rep.after["acc"] == rep.before["acc"]
    assert rep.after["nll"] < rep.before["nll"]
    assert rep.after["ece_top"] < rep.before["ece_top"]


def test_calibrate_multiclass_asserts_the_temperature_invariance(monkeypatch):
    y, z, is_cal = _head(k=3, n=60)
    monkeypatch.setattr(mc, "ranking_invariances", lambda z, q: {"argmax": True, "ranking": False})
    with pytest.raises(ClaimFailed, match="keeps every row's argmax and class ranking"):
        calibrate_multiclass(z, y, is_cal, method="temperature")
    calibrate_multiclass(z, y, is_cal, method="vector")  # reported, not asserted


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda y, z, c: (np.zeros_like(y), z, c), "split 'cal' has only class 0"),
        (lambda y, z, c: (y, z, np.ones_like(c)), "split 'eval' is empty"),
        (lambda y, z, c: (y, z, np.zeros_like(c)), "split 'cal' is empty"),
        (lambda y, z, c: (np.where(np.arange(y.size) == 7, 4, y), z, c), "labels row 7"),
        (lambda y, z, c: (y, np.where(np.arange(y.size)[:, None] == 3, np.inf, z), c), "row 3"),
        (lambda y, z, c: (y[:-1], z, c), "equal length"),
    ],
)
def test_calibrate_multiclass_rejects_bad_input(change, message):
    y, z, is_cal = _head(k=4, n=40)
    y, z, is_cal = change(y, z, is_cal)
    with pytest.raises(InputError, match=message):
        calibrate_multiclass(z, y, is_cal, method="vector")


def test_make_multiclass_calibrator_rejects_unknown_method():
    with pytest.raises(
        InputError,
        match="make_multiclass_calibrator: method must be one of 'temperature', 'vector', 'matrix'",
    ):
        make_multiclass_calibrator("platt")
