"""`calibration.audit`: the one audit, the repair on the calibration half, the ledger."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nesybench.calibration.audit import LEDGER_METRICS, audit, ledger_table, repair
from nesybench.metrics.calibration import (
    calibration_summary,
    expected_calibration_error,
    reliability_table,
    sigmoid,
)
from nesybench.metrics.calibrators import make_calibrator
from nesybench.seeds import child_rng


def _scores(n=300, inflate=2.5):
    rng = child_rng(0, "test_audit")
    logit = rng.normal(0, 1.5, n)
    y = (rng.random(n) < sigmoid(logit)).astype(int)
    is_cal = np.arange(n) % 2 == 0
    return inflate * logit, y, is_cal


def test_audit_bundles_the_summary_and_the_table():
    s, y, _ = _scores()
    p = sigmoid(s)
    result = audit(y, p, logits=s, n_bins=8, right_closed=True)
    expected = calibration_summary(y, p, y_score=s, n_bins=8, right_closed=True)
    for key, value in expected.items():
        assert result.summary[key] == value, key
    assert result.summary["ece_equal_mass"] == expected_calibration_error(
        y, p, n_bins=8, right_closed=True, strategy="quantile"
    )
    pd.testing.assert_frame_equal(
        result.reliability, reliability_table(y, p, n_bins=8, right_closed=True)
    )


def test_audit_nll_is_exact_with_logits_and_clipped_without():
    y = np.array([1, 0])
    s = np.array([-50.0, 50.0])  # confidently wrong: sigmoid saturates
    with_logits = audit(y, sigmoid(s), logits=s).summary["nll"]
    without = audit(y, sigmoid(s)).summary["nll"]
    assert with_logits == pytest.approx(50.0, rel=1e-12)
    assert without < with_logits  # probabilities clipped at 1e-15: -log(1e-15) = 34.5
    assert without == pytest.approx(-np.log(1e-15), rel=1e-4)  # 1 - 1e-15 rounds in float64


@pytest.mark.parametrize("method", ["temperature", "platt", "isotonic"])
def test_repair_fits_on_the_calibration_half_only(method):
    s, y, is_cal = _scores()
    rep = repair(method, s, y, is_cal)
    flipped = y.copy()
    flipped[~is_cal] = 1 - flipped[~is_cal]  # eval labels must not move the fit
    assert repair(method, s, flipped, is_cal).params == rep.params
    direct = make_calibrator(method).fit(s[is_cal], y[is_cal])
    np.testing.assert_array_equal(rep.p_all, direct.predict_proba(s))
    ev = ~is_cal
    expected = audit(
        y[ev],
        rep.p_all[ev],
        logits=None if direct.predict_logits is None else direct.predict_logits(s)[ev],
    )
    assert rep.after.summary == expected.summary


def test_repair_temperature_keeps_every_invariance():
    s, y, is_cal = _scores()
    rep = repair("temperature", s, y, is_cal)
    assert rep.params["tau"] > 1  # scores inflated 2.5x: overconfident
    assert all(rep.invariance.values()), rep.invariance
    assert rep.after.summary["ece"] < audit(y[~is_cal], sigmoid(s[~is_cal])).summary["ece"]


def test_repair_isotonic_merges_scores_into_ties():
    s, y, is_cal = _scores()
    rep = repair("isotonic", s, y, is_cal)
    assert rep.invariance["no_new_ties"] is False  # a step function merges distinct scores


def test_ledger_table_lists_every_metric_and_what_moved():
    s, y, is_cal = _scores()
    ev = ~is_cal
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev]).summary
    reps = [repair(m, s, y, is_cal) for m in ("temperature", "isotonic")]
    table = ledger_table(before, reps)
    assert table["metric"].tolist() == list(LEDGER_METRICS)
    assert table["order"].tolist() == list(range(len(LEDGER_METRICS)))
    for row in table.itertuples():
        for rep in reps:
            after = rep.after.summary[row.metric]
            assert getattr(row, rep.method) == after
            assert getattr(row, f"moved_{rep.method}") == (after != before[row.metric])
    auc = table.set_index("metric").loc["auc"]
    assert not auc["moved_temperature"]  # a monotone map cannot move the AUC
    assert auc["moved_isotonic"]  # ties created by the step function move it
