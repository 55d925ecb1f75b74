"""Conformance, closed-form and edge-case tests of nesybench.metrics.calibration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

from nesybench.metrics.calibration import (
    accuracy_at_half,
    bin_edges,
    bin_index,
    bootstrap_interval,
    brier_decomposition,
    brier_score,
    calibration_summary,
    debiased_calibration_error,
    expected_calibration_error,
    l2_calibration_error,
    maximum_calibration_error,
    nll_from_probs,
    nll_from_scores,
    reliability_table,
    roc_auc,
    sigmoid,
)


def _continuous(seed, n=500):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=n)
    y = (rng.random(n) < p**1.5).astype(int)
    return y, p


def _sklearn_ece(y, p, n_bins):
    """Reference ECE from calibration_curve's per-bin statistics; counts via sklearn's own bin
    assignment."""
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    counts = np.bincount(ids, minlength=n_bins)
    counts = counts[counts > 0]
    return float(np.sum(counts / len(p) * np.abs(prob_true - prob_pred)))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_expected_calibration_error_matches_sklearn_calibration_curve(seed, n_bins):
    y, p = _continuous(seed)
    assert (
        abs(expected_calibration_error(y, p, n_bins=n_bins) - _sklearn_ece(y, p, n_bins)) <= 1e-12
    )
    assert (
        abs(
            expected_calibration_error(y, p, n_bins=n_bins, right_closed=True)
            - _sklearn_ece(y, p, n_bins)
        )
        <= 1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_reliability_table_matches_calibration_curve_bins(seed):
    y, p = _continuous(seed)
    table = reliability_table(y, p, n_bins=10)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy="uniform")
    full = table[table["count"] > 0]
    np.testing.assert_allclose(full["acc"], prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(full["conf"], prob_pred, rtol=0, atol=1e-12)
    assert table["count"].sum() == len(p) and len(table) == 10


@pytest.mark.parametrize("seed", range(5))
def test_roc_auc_matches_sklearn_with_and_without_ties(seed):
    y, p = _continuous(seed)
    assert abs(roc_auc(y, p) - roc_auc_score(y, p)) <= 1e-12
    tied = np.round(p, 1)  # many ties
    assert abs(roc_auc(y, tied) - roc_auc_score(y, tied)) <= 1e-12


def test_roc_auc_counts_ties_as_half():
    # pairs (pos, neg): (0.4 vs 0.1) win, (0.4 vs 0.4) tie, (0.9 vs both) win -> (3 + 0.5) / 4
    assert roc_auc([0, 1, 0, 1], [0.1, 0.4, 0.4, 0.9]) == 0.875
    assert roc_auc([0, 1, 0, 1], [0.3, 0.3, 0.3, 0.3]) == 0.5


def test_roc_auc_perfect_and_perfectly_wrong():
    assert roc_auc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0
    assert roc_auc([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9]) == 0.0
    with pytest.raises(ValueError, match="both classes"):
        roc_auc([1, 1], [0.2, 0.3])


@pytest.mark.parametrize("seed", range(5))
def test_brier_score_matches_sklearn(seed):
    y, p = _continuous(seed)
    assert abs(brier_score(y, p) - brier_score_loss(y, p)) <= 1e-15


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_brier_decomposition_sums_to_brier(seed, strategy):
    y, p = _continuous(seed)
    parts = brier_decomposition(y, p, n_bins=10, strategy=strategy)
    assert (
        parts["residual"] != 0.0
    )  # continuous forecasts: the two-term identity alone is not exact
    assert (
        abs(parts["calibration"] + parts["refinement"] + parts["residual"] - parts["brier"])
        <= 1e-12
    )
    assert parts["calibration"] >= 0 and parts["refinement"] >= 0


def test_brier_decomposition_residual_vanishes_when_bins_are_constant():
    y = np.array([1, 0, 1, 1, 0, 0, 0, 1])
    p = np.array([0.9, 0.9, 0.9, 0.9, 0.2, 0.2, 0.2, 0.2])
    parts = brier_decomposition(y, p)
    assert abs(parts["residual"]) <= 1e-15
    # bin 9: acc 3/4, conf 0.9; bin 2: acc 1/4, conf 0.2
    assert parts["calibration"] == pytest.approx(0.5 * 0.15**2 + 0.5 * 0.05**2, abs=1e-15)
    assert parts["refinement"] == pytest.approx(0.5 * 0.1875 + 0.5 * 0.1875, abs=1e-15)
    assert l2_calibration_error(y, p) == pytest.approx(np.sqrt(parts["calibration"]), abs=1e-15)


def test_ece_hand_computed_matches_spec_arithmetic():
    # The spec's hand computation: rows (count, |gap|) -> 0.0245 for its BEFORE table.
    counts = np.array([54, 1, 1, 7])
    gaps = np.array([0.0145, 0.1697, 0.5719, 0.0024])
    assert round(float(np.sum(counts / 63 * gaps)), 4) == 0.0245
    # and our ECE reproduces such a table exactly when every bin is constant
    y = np.r_[np.ones(1), np.zeros(53), np.zeros(1), np.ones(1), np.ones(7)]
    p = np.r_[np.full(54, 0.004), [0.1697], [0.4281], np.full(7, 0.9976)]
    expected = (54 * abs(1 / 54 - 0.004) + 0.1697 + abs(1 - 0.4281) + 7 * abs(1 - 0.9976)) / 63
    assert expected_calibration_error(y, p) == pytest.approx(expected, abs=1e-15)


def test_bin_index_edges_left_closed_and_right_closed():
    p = np.arange(11) / 10  # 0.0, 0.1, ..., 1.0 exactly on the edges b/10
    assert bin_index(p).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]
    assert bin_index(p, right_closed=True).tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    table = reliability_table(np.ones(11, dtype=int), p)
    assert table["count"].tolist() == [1, 1, 1, 1, 1, 1, 1, 1, 1, 2]


def test_saturated_probabilities_and_scores_are_finite():
    y = np.array([1, 0, 1, 0])
    p = np.array([1.0, 0.0, 0.0, 1.0])  # two perfectly right, two perfectly wrong
    assert bin_index(p).tolist() == [9, 0, 0, 9]
    assert expected_calibration_error(y, p) == 0.5  # each bin: half right, confidence 1.0 or 0.0
    nll = nll_from_probs(y, p)
    # clipped at eps = 1e-15 (1 - 1e-15 is not exact in binary, hence rel=1e-4)
    assert np.isfinite(nll) and nll == pytest.approx(0.5 * -np.log(1e-15), rel=1e-4)
    s = np.array([1e4, -1e4, -1e4, 1e4])
    assert nll_from_scores(y, s) == 5000.0
    assert nll_from_scores([1, 0], [1e4, -1e4]) == 0.0
    assert sigmoid(np.array([-1e4, 1e4])).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("seed", range(3))
def test_nll_from_scores_matches_sklearn_log_loss(seed):
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 3, 200)
    y = (rng.random(200) < sigmoid(s)).astype(int)
    assert nll_from_scores(y, s) == pytest.approx(log_loss(y, sigmoid(s)), rel=1e-12)
    assert nll_from_scores(y, s, temperature=2.0) == pytest.approx(
        log_loss(y, sigmoid(s / 2.0)), rel=1e-12
    )
    assert nll_from_probs(y, sigmoid(s)) == pytest.approx(nll_from_scores(y, s), rel=1e-9)


def test_constant_predictions():
    y = np.array([1, 0, 0, 0, 1, 0, 0, 0])
    p = np.full(8, 0.7)
    assert expected_calibration_error(y, p) == pytest.approx(0.45, abs=1e-15)
    assert maximum_calibration_error(y, p) == pytest.approx(0.45, abs=1e-15)
    assert roc_auc(y, p) == 0.5
    assert accuracy_at_half(y, p) == 0.25
    assert (
        abs(brier_decomposition(y, p)["residual"]) <= 1e-15
    )  # bin mean of 0.7s is 0.7 up to rounding


def test_maximum_calibration_error_ignores_empty_bins():
    assert maximum_calibration_error([1, 0, 0], [0.9, 0.9, 0.05]) == pytest.approx(0.4, abs=1e-15)


def test_accuracy_at_half_threshold_is_inclusive():
    assert accuracy_at_half([1, 0], [0.5, 0.4999999]) == 1.0


def test_debiased_calibration_error_is_below_plug_in_and_matches_formula():
    y, p = _continuous(0, n=300)
    plug = l2_calibration_error(y, p)
    deb = debiased_calibration_error(y, p)
    assert 0.0 <= deb < plug
    table = reliability_table(y, p)
    full = table[table["count"] > 0]
    w = full["count"] / len(p)
    expected = np.sum(
        w
        * (
            (full["acc"] - full["conf"]) ** 2
            - full["acc"] * (1 - full["acc"]) / (full["count"] - 1)
        )
    )
    assert deb == pytest.approx(np.sqrt(max(expected, 0.0)), abs=1e-15)


def test_quantile_strategy_gives_equal_mass_bins():
    p = (np.arange(100) + 0.5) / 100
    y = np.zeros(100, dtype=int)
    edges = bin_edges(p, n_bins=4, strategy="quantile")
    assert edges[0] == 0.0 and edges[-1] == 1.0
    table = reliability_table(y, p, n_bins=4, strategy="quantile")
    assert table["count"].tolist() == [25, 25, 25, 25]
    with pytest.raises(ValueError, match="strategy"):
        expected_calibration_error(y, p, strategy="kmeans")


def test_bootstrap_interval_is_seeded_and_brackets_estimate():
    y, p = _continuous(1, n=200)
    a = bootstrap_interval(brier_score, y, p, n_resamples=200, rng=np.random.default_rng(7))
    b = bootstrap_interval(brier_score, y, p, n_resamples=200, rng=np.random.default_rng(7))
    c = bootstrap_interval(brier_score, y, p, n_resamples=200, rng=np.random.default_rng(8))
    assert a == b and a != c
    assert a[0] < brier_score(y, p) < a[1]
    # stratified: the AUC stays defined even with very few positives
    y_rare = np.r_[np.ones(2, dtype=int), np.zeros(50, dtype=int)]
    lo, hi = bootstrap_interval(
        roc_auc, y_rare, np.linspace(0, 1, 52), n_resamples=100, rng=np.random.default_rng(0)
    )
    assert 0.0 <= lo <= hi <= 1.0


@pytest.mark.parametrize(
    "bad_y, bad_p, message",
    [
        ([0, 2], [0.1, 0.2], "only 0 and 1"),
        ([0, 1], [0.1, 1.2], r"y_prob must be probabilities in \[0, 1\], got 1.2$"),
        ([0, 1], [0.1, np.nan], "NaN"),
        ([0, 1, 1], [0.1, 0.2], "equal length"),
        ([], [], "empty"),
    ],
)
def test_metrics_reject_bad_input(bad_y, bad_p, message):
    with pytest.raises(ValueError, match=message):
        expected_calibration_error(bad_y, bad_p)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.floats(0, 1)), min_size=2, max_size=60),
    st.randoms(use_true_random=False),
)
def test_metrics_are_invariant_to_sample_order(pairs, rnd):
    y = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    order = list(range(len(pairs)))
    rnd.shuffle(order)
    a = calibration_summary(y, p)
    b = calibration_summary(y[order], p[order])
    for key in a:
        if np.isnan(a[key]):
            assert np.isnan(b[key])
        else:
            assert a[key] == pytest.approx(b[key], abs=1e-12), key
    parts = brier_decomposition(y, p)
    assert (
        abs(parts["calibration"] + parts["refinement"] + parts["residual"] - parts["brier"])
        <= 1e-12
    )
