"""Every metric key a cold tiny-profile run writes follows the naming rule (nesybench.metric_keys).

The writer already refuses a bad key; this reads the files back, so a key written by any
other path (or a writer that stopped checking) fails here too.
"""

from __future__ import annotations

import json

import pytest

from nesybench.metric_keys import PROVENANCE_KEY, check_metric_key

pytestmark = pytest.mark.slow

# one key of each renamed family, in the files the report writes
RENAMED = {
    "shortcuts": [
        "score.head_to_head.label_only_concept_accuracy.mean",
        "score.head_to_head.sup_task_accuracy.lo",
        "score.digits.task_accuracy_gap.claim_rate",
        "calibrate.concept_heads.label_only_ece_change.mean",
    ],
    "nli": [
        "score.systems.prontoqa_greedy.accuracy.value",
        "score.systems.prontoqa_greedy.accuracy.lo",
        "score.greedy_label_accuracy.mean",
        "score.per_depth.h1.greedy.proof_accuracy.mean",
    ],
    "calibration": ["calibrate.accuracy.mean"],
    "axes": ["score.accuracy_on_parsed.mean"],
}


def _metrics_files(root):
    return sorted(root.glob("reports/metrics/*.json")) + sorted(root.glob("data/**/metrics*.json"))


def test_every_written_metric_key_follows_the_rule(shared_run):
    root, _ = shared_run
    files = _metrics_files(root)
    assert len(files) > 4  # the report's four files and the jobs' own
    n_keys = 0
    for path in files:
        for key in json.loads(path.read_text()):
            check_metric_key(key)
            n_keys += 1
    assert n_keys > 500


def test_the_report_metrics_carry_the_renamed_keys(shared_run):
    root, _ = shared_run
    for instrument, keys in RENAMED.items():
        metrics = json.loads((root / "reports" / "metrics" / f"{instrument}.json").read_text())
        assert PROVENANCE_KEY not in metrics
        missing = [k for k in keys if k not in metrics]
        assert not missing, (instrument, missing)


def test_the_sensitivity_keys_spell_a_knob_level_as_one_segment(shared_run):
    root, _ = shared_run
    keys = [
        key
        for path in root.glob("data/**/metrics_sensitivity.json")
        for key in json.loads(path.read_text())
        if ".sensitivity." in key
    ]
    assert keys
    for key in keys:
        stage, table, claim, level, stat = key.split(".")
        assert table == "sensitivity" and "=" not in level
        assert stat in ("claim_rate", "lo", "hi", "n_seeds")
