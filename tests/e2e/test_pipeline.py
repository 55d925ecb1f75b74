"""End-to-end: the pipeline on the tiny profile, run the ways researchers run it."""

from __future__ import annotations

import json

import pytest

from .conftest import artifact_hashes, clean, run

pytestmark = pytest.mark.slow


def test_cold_run_writes_parquet_and_reports(first_run):
    root, hashes, _ = first_run
    assert any(k.startswith("data/") and k.endswith(".parquet") for k in hashes)
    assert "reports/report.html" in hashes and "reports/report.md" in hashes
    assert any(k.startswith("reports/metrics/") for k in hashes)


def test_two_cold_runs_at_1_and_4_cores_are_byte_identical(first_run):
    root, hashes, _ = first_run
    clean(root)
    run(["snakemake", "--cores", "4"], root)
    second = artifact_hashes(root)
    assert second == hashes


def test_dvc_repro_matches_snakemake_byte_for_byte(first_run):
    root, hashes, _ = first_run
    clean(root)
    run(["dvc", "repro", "--quiet"], root)
    assert artifact_hashes(root) == hashes


def test_dvc_exp_run_with_a_param_override_and_metrics_diff(first_run):
    root, _, _ = first_run
    clean(root)
    run(["dvc", "repro", "--quiet"], root)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"], root)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "baseline"], root)
    run(["dvc", "exp", "run", "-S", "shortcuts.support_frac=0.5"], root)
    diff = run(["dvc", "metrics", "diff", "--json"], root)
    changes = json.loads(diff.stdout or "{}")
    assert changes, "support_frac=0.5 should move at least one metric"
    assert any(path.startswith("reports/metrics/") for path in changes)


def test_dvc_yaml_has_not_drifted_from_the_rules(workspace):
    run(["python", "-m", "nesybench.dvc_export", "--check"], workspace)
