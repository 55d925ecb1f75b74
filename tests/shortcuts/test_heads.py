"""Calibrating concept heads: fitted on the calibration rows only, audited on the evaluation rows;
temperature keeps every argmax; ``repair_row`` flattens a repair into one row of columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp, softmax

from nesybench.metrics.multiclass import SUMMARY_KEYS
from nesybench.shortcuts.heads import calibrate_heads, repair_row

# two classes, the head's top class right in half the rows: the NLL falls as tau grows, so the
# fit runs to the top of the bracket (20)
Z_COIN = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
Y_COIN = [0, 1, 0, 1]
# the top class always right: the NLL falls as tau shrinks, so the fit runs to the bottom (0.05)
Z_SURE = np.array([[1.0, 0.0], [0.0, 1.0]])
Y_SURE = [0, 1]


@pytest.fixture(scope="module")
def noisy():
    """Four-way logits, the label equal to the argmax in ~60% of the rows (overconfident)."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(60, 4)) * 4.0
    y = z.argmax(axis=1)
    swap = rng.random(60) < 0.4
    y[swap] = rng.integers(0, 4, size=int(swap.sum()))
    return z, y


def test_temperature_keeps_every_rows_argmax_and_class_ranking(noisy):
    z, y = noisy
    rep = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature")
    tau = rep.params["tau"]
    assert tau > 1  # overconfident head: softened
    assert rep.probs_after.shape == (60, 4)
    np.testing.assert_allclose(rep.probs_after.sum(axis=1), 1.0)
    assert np.array_equal(rep.probs_after.argmax(axis=1), z.argmax(axis=1))
    assert np.array_equal(np.argsort(-rep.probs_after, axis=1), np.argsort(-z, axis=1))
    np.testing.assert_allclose(rep.probs_after, softmax(z / tau, axis=1), rtol=1e-12)
    assert rep.after["acc"] == rep.before["acc"]
    assert rep.invariance == {"argmax": True, "ranking": True}


def test_temperature_lowers_the_nll_on_the_evaluation_rows_of_an_overconfident_head(noisy):
    z, y = noisy
    rep = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature")
    assert rep.after["nll"] < rep.before["nll"]


def test_the_fit_reads_the_calibration_rows_only():
    # the same evaluation rows, two calibration sets: opposite ends of the bracket
    soft = calibrate_heads(Z_COIN, Y_COIN, Z_SURE, Y_SURE, method="temperature")
    sharp = calibrate_heads(Z_SURE, Y_SURE, Z_SURE, Y_SURE, method="temperature")
    assert soft.params["tau"] == pytest.approx(20.0, abs=1e-6)
    assert sharp.params["tau"] == pytest.approx(0.05, abs=1e-6)
    assert soft.before == sharp.before  # the audit reads the evaluation rows only
    assert soft.after["nll"] > soft.before["nll"] > sharp.after["nll"]


def test_the_audit_reads_the_evaluation_rows_only():
    # one evaluation row: softmax([log 3, 0]) = (0.75, 0.25), label 0
    rep = calibrate_heads(Z_COIN, Y_COIN, [[math.log(3.0), 0.0]], [0], method="temperature")
    assert rep.before["n"] == 1
    assert rep.before["acc"] == 1.0
    assert rep.before["nll"] == pytest.approx(-math.log(0.75), rel=1e-12)
    assert rep.before["brier"] == pytest.approx(2 * 0.25**2, rel=1e-12)
    assert rep.before["ece_top"] == pytest.approx(0.25, rel=1e-12)


def test_calibrate_heads_returns_reliability_tables_only_when_asked(noisy):
    z, y = noisy
    quiet = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature")
    assert isinstance(quiet.reliability, pd.DataFrame) and quiet.reliability.empty
    full = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature", reliability=True)
    assert set(full.reliability["reading"]) == {"before", "after"}
    assert full.before == quiet.before and full.after == quiet.after


def test_calibrate_heads_passes_n_bins_to_the_binned_metrics_only(noisy):
    z, y = noisy
    ten = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature", reliability=True)
    five = calibrate_heads(
        z[:40], y[:40], z[40:], y[40:], method="temperature", reliability=True, n_bins=5
    )
    assert set(five.reliability["bin"]) <= set(range(5))
    assert max(ten.reliability["bin"]) >= 5
    assert five.params == ten.params  # the fit does not bin
    for key in ("nll", "brier", "acc"):
        assert five.before[key] == ten.before[key] and five.after[key] == ten.after[key]


def test_repair_row_columns_and_exact_values_for_the_coin_head():
    rep = calibrate_heads(Z_COIN, Y_COIN, Z_COIN, Y_COIN, method="temperature")
    row = repair_row(rep)
    assert list(row) == [
        "method",
        "tau",
        "at_bracket_edge",
        *(f"{k}_{when}" for k in SUMMARY_KEYS for when in ("before", "after")),
        "n_eval",
    ]
    assert row["method"] == "temperature" and row["n_eval"] == 4
    assert row["tau"] == rep.params["tau"] == pytest.approx(20.0, abs=1e-6)
    assert row["at_bracket_edge"] is True
    # every row has confidence sigmoid(1) and half are right
    p = 1.0 / (1.0 + math.exp(-1.0))
    assert row["acc_before"] == row["acc_after"] == 0.5
    assert row["ece_top_before"] == pytest.approx(p - 0.5, rel=1e-12)
    assert row["nll_before"] == pytest.approx(
        0.5 * (math.log1p(math.exp(-1.0)) + math.log1p(math.exp(1.0))), rel=1e-12
    )
    assert row["brier_before"] == pytest.approx(0.5 * (2 * (1 - p) ** 2 + 2 * p**2), rel=1e-12)
    zt = Z_COIN / row["tau"]  # after: the exact NLL of softmax(z / tau)
    nll_after = np.mean(logsumexp(zt, axis=1) - zt[np.arange(4), Y_COIN])
    assert row["nll_after"] == pytest.approx(nll_after, rel=1e-12)
    assert all(
        isinstance(row[f"{k}_{w}"], float) for k in SUMMARY_KEYS for w in ("before", "after")
    )


def test_repair_row_flags_the_bottom_edge_and_an_interior_fit(noisy):
    sharp = repair_row(calibrate_heads(Z_SURE, Y_SURE, Z_SURE, Y_SURE, method="temperature"))
    assert sharp["at_bracket_edge"] is True and sharp["tau"] < 1
    z, y = noisy
    inner = repair_row(calibrate_heads(z[:40], y[:40], z[40:], y[40:], method="temperature"))
    assert inner["at_bracket_edge"] is False and 1 < inner["tau"] < 20


@pytest.mark.parametrize("method", ["vector", "matrix", "isotonic"])
def test_repair_row_of_other_methods_has_nan_tau_and_no_bracket(noisy, method):
    z, y = noisy
    rep = calibrate_heads(z[:40], y[:40], z[40:], y[40:], method=method)
    row = repair_row(rep)
    assert row["method"] == method and math.isnan(row["tau"])
    assert row["at_bracket_edge"] is False
    assert row["n_eval"] == 20
    assert row["acc_before"] == rep.before["acc"] and row["nll_after"] == rep.after["nll"]
