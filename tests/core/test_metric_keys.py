"""The metric-key naming rule (nesybench.metric_keys) and the writer that enforces it."""

from __future__ import annotations

import json

import pytest

from nesybench.io import metrics_bytes, write_metrics
from nesybench.metric_keys import (
    PROVENANCE_KEY,
    check_metric_key,
    check_metric_keys,
    key_segment,
    knob_segment,
)

GOOD = [
    "count.seeds",
    "score.head_to_head.label_only_concept_accuracy.mean",
    "score.head_to_head.label_only_concept_accuracy.lo",
    "score.systems.prontoqa_greedy.accuracy.value",
    "score.incidence.xor2.support_0p5.rate.hi",
    "count.categorical.mnadd2.full.disentangled.log2_n_opt",
    "calibrate.concept_heads.digits_label_only_ece_change.claim_rate",
    # a sensitivity key keeps params.yaml's claim and knob names
    "score.sensitivity.h2h_acc_c_separates.models_min_acc_y_0p99.claim_rate",
    "calibrate.optima.default.models_min_acc_y_0p99.collapse_rate",
    # things named before the metric (here a params-chosen support) follow the syntax only
    "generate.digits.hi_contrast.n_support",
    PROVENANCE_KEY,
]

BAD = {
    # the old spellings this rule replaced, each with the reason it is refused
    "score.systems.prontoqa-greedy.accuracy": "not lower snake_case",
    "score.head_to_head.lo_acc_c.lo": "spell 'lo' as label_only",
    "score.head_to_head.label_only_acc_c.mean": "spell 'acc' as accuracy",
    "score.incidence.xor2.support_0p5.rate_lo": "spell 'lo'",
    "score.systems.s.accuracy_hi": "spell 'hi'",
    "calibrate.calibration.tau.mean": "repeats the stage 'calibrate'",
    "score.score_nli.s.accuracy": "repeats the stage 'score'",
    "score.digits.digits.n": "repeats the one before it",
    "score.headToHead.accuracy": "not lower snake_case",
    "score.Accuracy": "not lower snake_case",
    "score.per_depth.h1.lo.mean": "must be the last segment",
    "score.per_depth.h1.greedy.label_acc.mean": "spell 'acc' as accuracy",
    "score.agreement.folio.parse_rate_lo": "spell 'lo'",
    "score.head_to_head.models.min_acc_y=0.99.lo": "not lower snake_case",
    "score.a__b": "not lower snake_case",
    "score.x_": "not lower snake_case",
    "score..x": "not lower snake_case",
    "accuracy": "expected <stage>",
    "scoring.accuracy": "is not a stage",
    "_provenance.other": "is not a stage",
}


@pytest.mark.parametrize("key", GOOD)
def test_keys_that_follow_the_rule_pass(key):
    check_metric_key(key)


@pytest.mark.parametrize("key, why", sorted(BAD.items()))
def test_each_broken_rule_is_refused_with_its_reason(key, why):
    with pytest.raises(ValueError, match="metric key") as excinfo:
        check_metric_key(key)
    assert why in str(excinfo.value) and repr(key) in str(excinfo.value)


def test_check_metric_keys_stops_at_the_first_bad_key():
    check_metric_keys(GOOD)
    with pytest.raises(ValueError, match="lo_acc_c"):
        check_metric_keys([*GOOD, "score.head_to_head.lo_acc_c.mean"])


@pytest.mark.parametrize(
    "value, segment",
    [
        ("proofwriter-closed-world", "proofwriter_closed_world"),
        (0.75, "0p75"),
        (1e-05, "1e_05"),
        (-0.5, "minus_0p5"),
        (3, "3"),
        (False, "false"),
        ("concept_sup=0.1+entropy=1", "concept_sup_0p1_and_entropy_1"),
        ("Platt", "platt"),
    ],
)
def test_key_segment_spells_values_as_one_valid_segment(value, segment):
    assert key_segment(value) == segment
    check_metric_key(f"score.t.{segment}.mean")


def test_key_segment_refuses_a_value_with_no_spelling():
    with pytest.raises(ValueError, match="no spelling"):
        key_segment("//")


def test_knob_segment_joins_path_and_level():
    assert knob_segment("models.min_acc_y", "0.99") == "models_min_acc_y_0p99"
    assert knob_segment("bootstrap.resamples", "1e-05") == "bootstrap_resamples_1e_05"


def test_the_metrics_writer_refuses_a_bad_key_and_writes_nothing(tmp_path):
    path = tmp_path / "metrics.json"
    with pytest.raises(ValueError, match="prontoqa-greedy"):
        write_metrics(path, {"score": {"systems": {"prontoqa-greedy": {"n": 3}}}})
    assert not path.exists()
    # nested dicts are flattened to dotted keys before the check
    write_metrics(path, {"score": {"systems": {"prontoqa_greedy": {"n": 3}}}})
    assert json.loads(path.read_text()) == {"score.systems.prontoqa_greedy.n": 3}


def test_metrics_bytes_checks_every_key():
    with pytest.raises(ValueError, match="calibrate.calibration"):
        metrics_bytes({"calibrate.calibration.tau.mean": 1.0})
