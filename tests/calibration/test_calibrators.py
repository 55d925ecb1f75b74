"""Platt, isotonic and temperature calibrators; measured invariances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from nesybench.calibration.audit import audit, ledger_table, repair
from nesybench.metrics.calibration import sigmoid
from nesybench.metrics.calibrators import (
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    invariances,
    make_calibrator,
)


def _data(seed=0, n=3000, a=0.5, b=-1.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 4, n)
    y = (rng.random(n) < sigmoid(a * s + b)).astype(int)
    return s, y


def test_platt_recovers_generating_parameters():
    s, y = _data()
    cal = PlattCalibrator().fit(s, y)
    assert cal.a_ == pytest.approx(0.5, abs=0.05)
    assert cal.b_ == pytest.approx(-1.0, abs=0.15)


def test_platt_shift_can_move_decisions_and_invariances_say_so():
    s, y = _data()
    p_after = PlattCalibrator().fit(s, y).predict_proba(s)
    inv = invariances(s, sigmoid(s), p_after, y)
    assert not inv["decisions"]  # b = -1 moves the 0.5 threshold from s = 0 to s = 2
    assert inv["argsort"] and inv["auc"]  # a > 0: order kept


def test_temperature_keeps_every_invariance():
    s, y = _data(1, n=500)
    cal = TemperatureCalibrator().fit(s, y)
    inv = invariances(s, sigmoid(s), cal.predict_proba(s), y)
    assert all(inv.values()), inv


def test_isotonic_is_sklearn_with_clipping_and_merges_ties():
    s, y = _data(2, n=400)
    cal = IsotonicCalibrator().fit(s, y)
    ref = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(s, y)
    probe = np.array([-1e3, -1.0, 0.0, 2.5, 1e3])  # outside the fitted range: clipped, no NaN
    np.testing.assert_array_equal(cal.predict_proba(probe), ref.predict(probe))
    p = cal.predict_proba(s)
    assert np.all(np.diff(p[np.argsort(s)]) >= 0)
    inv = invariances(s, sigmoid(s), p, y)
    assert not inv["no_new_ties"]  # the step function merges distinct scores


def test_make_calibrator_rejects_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        make_calibrator("beta")


def test_repair_and_ledger_measure_what_moved():
    s, y = _data(3, n=600, a=0.4, b=0.0)
    is_cal = np.arange(len(s)) % 2 == 0
    before = audit(y[~is_cal], sigmoid(s[~is_cal]), logits=s[~is_cal]).summary
    reps = [repair(m, s, y, is_cal) for m in ("temperature", "platt", "isotonic")]
    led = ledger_table(before, reps).set_index("metric")
    assert not led.loc["acc", "moved_temperature"] and not led.loc["auc", "moved_temperature"]
    assert led.loc["ece", "moved_temperature"] and led.loc["nll", "moved_temperature"]
    assert (
        led.loc["nll", "temperature"] < led.loc["nll", "before"]
    )  # inflated scores: softening helps
    assert reps[0].params["tau"] > 1


def test_saturated_scores_break_the_float_invariance_and_it_is_detected():
    # sigmoid(40) == sigmoid(50) == 1.0 in float64; tau = 2 separates them, so the
    # stable argsort changes: the real-number theorem needs the check in code.
    s = np.array([50.0, 40.0, -3.0, 2.0])
    y = np.array([1, 1, 0, 1])
    assert sigmoid(s)[0] == sigmoid(s)[1] == 1.0
    inv = invariances(s, sigmoid(s), sigmoid(s / 2.0), y)
    assert inv["decisions"] and not inv["argsort"]
    # ... yet no pair changes order: the tie is broken, not reversed, and the check says so
    assert inv["order"] and not inv["same_ties"]


def test_a_sharp_sigmoid_makes_ties_without_reversing_any_pair():
    """tau < 1 saturates: 10 and 11 both round to 1.0 after dividing by 0.2 (a seed of the
    calibration sweep does exactly this), so the argsort changes but the order holds."""
    s = np.array([11.0, 10.0, -3.0, 2.0])
    y = np.array([1, 1, 0, 1])
    after = sigmoid(s / 0.2)
    assert after[0] == after[1] == 1.0 and sigmoid(s)[0] != sigmoid(s)[1]
    inv = invariances(s, sigmoid(s), after, y)
    assert inv["order"] and not inv["argsort"] and not inv["no_new_ties"]


def test_a_reversed_pair_fails_the_order_invariance():
    s = np.array([1.0, 2.0, 3.0])
    inv = invariances(s, sigmoid(s), np.array([0.7, 0.6, 0.9]), np.array([0, 1, 1]))
    assert not inv["order"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-3000, 3000), min_size=2, max_size=80, unique=True),
    st.floats(0.05, 20.0),
    st.randoms(use_true_random=False),
)
def test_temperature_invariance_holds_on_unsaturated_scores(centi_scores, tau, rnd):
    s = np.array(centi_scores) / 100.0  # |s| <= 30: sigmoid does not saturate, scores 0.01 apart
    assume(np.abs(s).max() / tau <= 30.0)  # nor after sharpening (tau < 1)
    y = np.array([rnd.randint(0, 1) for _ in s])
    y[0], y[1] = 0, 1
    inv = invariances(s, sigmoid(s), sigmoid(s / tau), y)
    assert inv["decisions"] and inv["accuracy"] and inv["argsort"] and inv["auc"], (tau, inv)
    assert inv["order"] and inv["same_ties"], (tau, inv)
