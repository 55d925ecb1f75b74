"""Multi-class calibration metrics against scikit-learn, closed forms and a brute-force binning."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, log_loss

from nesybench.errors import InputError
from nesybench.metrics.calibration import expected_calibration_error, reliability_table
from nesybench.metrics.multiclass import (
    classwise_ece,
    multiclass_accuracy,
    multiclass_brier,
    multiclass_nll,
    multiclass_reliability,
    multiclass_summary,
    nll_from_logits,
    softmax,
    top_label_ece,
)
from nesybench.seeds import child_rng


def _head(seed=0, n=500, k=4, inflate=2.0):
    rng = child_rng(seed, "test_multiclass")
    z = rng.normal(0, 1.5, (n, k))
    p = softmax(z)
    y = np.array([rng.choice(k, p=row) for row in p])
    return y, inflate * z


def _brute_ece(correct, conf, n_bins):
    """ECE by a loop over bins written from the definition (left-closed, last bin closed)."""
    total = 0.0
    for b in range(n_bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        inside = [
            i
            for i in range(len(conf))
            if (lo <= conf[i] < hi) or (b == n_bins - 1 and conf[i] == 1.0)
        ]
        if inside:
            acc = sum(correct[i] for i in inside) / len(inside)
            mean_conf = sum(conf[i] for i in inside) / len(inside)
            total += len(inside) / len(conf) * abs(acc - mean_conf)
    return total


def test_top_label_ece_matches_brute_force_binning():
    y, z = _head()
    p = softmax(z)
    pred = p.argmax(axis=1)
    expected = _brute_ece((pred == y).astype(int), p.max(axis=1), 10)
    assert top_label_ece(y, p) == pytest.approx(expected, abs=1e-12)


def test_classwise_ece_is_the_mean_of_one_vs_rest_eces():
    y, z = _head(k=5)
    p = softmax(z)
    expected = np.mean([_brute_ece((y == k).astype(int), p[:, k], 15) for k in range(5)])
    assert classwise_ece(y, p, n_bins=15) == pytest.approx(expected, abs=1e-12)


def test_classwise_ece_counts_a_class_absent_from_the_labels():
    # class 2 never occurs; the head puts 0.2 on it everywhere: its ECE is 0.2.
    y = np.array([0, 1, 0, 1])
    p = np.array([[0.8, 0.0, 0.2], [0.0, 0.8, 0.2], [0.8, 0.0, 0.2], [0.0, 0.8, 0.2]])
    # classes 0 and 1: bin [0.8, 0.9) holds 2 of 4 rows, both of the class: (2/4) |1 - 0.8| = 0.1;
    # bin 0 holds the other 2 at p = 0, none of the class: 0.
    per_class = [0.1, 0.1, 0.2]
    assert classwise_ece(y, p) == pytest.approx(np.mean(per_class), abs=1e-12)


def test_multiclass_nll_matches_sklearn_log_loss():
    y, z = _head(k=6)
    p = softmax(z)
    assert multiclass_nll(y, p) == pytest.approx(log_loss(y, p, labels=range(6)), rel=1e-12)
    assert nll_from_logits(y, z) == pytest.approx(log_loss(y, p, labels=range(6)), rel=1e-9)


def test_nll_from_logits_is_exact_where_softmax_underflows():
    z = np.array([[0.0, 2000.0], [1000.0, 0.0]])
    assert nll_from_logits([0, 0], z) == pytest.approx(1000.0, rel=1e-15)
    assert nll_from_logits([0, 0], z, temperature=2.0) == pytest.approx(500.0, rel=1e-15)
    assert math.isfinite(multiclass_nll([0, 0], softmax(z)))  # clipped at 1e-15


def test_multiclass_brier_matches_closed_form_and_extremes():
    y, z = _head(k=3)
    p = softmax(z)
    closed = np.mean(1.0 - 2.0 * p[np.arange(y.size), y] + (p**2).sum(axis=1))
    assert multiclass_brier(y, p) == pytest.approx(closed, abs=1e-12)
    eye = np.eye(3)
    assert multiclass_brier([0, 1, 2], eye) == 0.0
    assert multiclass_brier([1, 2, 0], eye) == 2.0


def test_multiclass_accuracy_matches_sklearn_and_breaks_ties_to_the_first_class():
    y, z = _head(k=4)
    p = softmax(z)
    assert multiclass_accuracy(y, p) == accuracy_score(y, p.argmax(axis=1))
    assert multiclass_accuracy([0, 1], [[0.5, 0.5], [0.5, 0.5]]) == 0.5


def test_top_label_ece_of_two_classes_equals_the_binary_top_label_reading():
    y, z = _head(k=2)
    p = softmax(z)
    pred = p.argmax(axis=1)
    assert top_label_ece(y, p) == expected_calibration_error((pred == y).astype(int), p.max(axis=1))


def test_multiclass_summary_and_reliability_agree_with_the_parts():
    y, z = _head(k=3)
    p = softmax(z)
    s = multiclass_summary(y, p, logits=z, n_bins=12, right_closed=True)
    assert s["ece_top"] == top_label_ece(y, p, n_bins=12, right_closed=True)
    assert s["ece_classwise"] == classwise_ece(y, p, n_bins=12, right_closed=True)
    assert s["nll"] == nll_from_logits(y, z) and s["n"] == y.size
    assert multiclass_summary(y, p)["nll"] == multiclass_nll(y, p)
    rel = multiclass_reliability(y, p, n_bins=12, right_closed=True)
    assert list(rel.columns[:3]) == ["target", "class", "bin"]
    assert len(rel) == 12 * 4
    for k in range(3):
        part = rel[rel["class"] == k].drop(columns=["target", "class"]).reset_index(drop=True)
        expected = reliability_table((y == k).astype(int), p[:, k], n_bins=12, right_closed=True)
        assert part.equals(expected)
    assert rel.groupby("class")["count"].sum().tolist() == [y.size] * 4


@pytest.mark.parametrize(
    "y, p, message",
    [
        ([0, 1], [[0.5, 0.5]], "equal length"),
        ([0, 3], [[0.5, 0.5], [0.5, 0.5]], r"y_true row 1 must be a class index in \[0, 1\]"),
        ([0, -1], [[0.5, 0.5], [0.5, 0.5]], "row 1"),
        ([0, 0.5], [[0.5, 0.5], [0.5, 0.5]], "got 0.5"),
        (
            [0, 1],
            [[0.5, 0.5], [0.5, float("nan")]],
            r"y_prob row 1 must be finite \(no NaN or inf\), got \[0.5, nan\]$",
        ),
        ([0, 1], [[0.5, 0.5], [0.5, 0.6]], "row 1 must sum to 1 within 1e-06, got 1.1$"),
        ([0, 1], [[1.5, -0.5], [0.5, 0.5]], r"row 0 must be probabilities in \[0, 1\], got 1.5$"),
        ([0], [[1.0]], "at least 2 classes"),
        ([], np.zeros((0, 2)), "empty"),
        ([0, 1], [0.5, 0.5], "2-D"),
    ],
)
def test_multiclass_metrics_reject_bad_input(y, p, message):
    with pytest.raises(InputError, match=message):
        multiclass_summary(y, p)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 5),
    st.lists(st.integers(0, 10_000), min_size=2, max_size=40),
    st.randoms(use_true_random=False),
)
def test_multiclass_summary_is_invariant_to_sample_order(k, seeds, rnd):
    rows = [child_rng(s, "row").normal(0, 3, k) for s in seeds]
    z = np.array(rows)
    y = np.array([s % k for s in seeds])
    order = list(range(len(seeds)))
    rnd.shuffle(order)
    a = multiclass_summary(y, softmax(z), logits=z)
    b = multiclass_summary(y[order], softmax(z[order]), logits=z[order])
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-12), key
