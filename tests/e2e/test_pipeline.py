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


def test_nightly_passes_on_a_clean_tree_and_fails_with_a_diff_after_a_param_change(first_run):
    root, _, _ = first_run
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    run([*git, "checkout", "--", "."], root)  # undo what earlier tests applied (e.g. dvc exp)
    clean(root)
    run(["snakemake", "--cores", "2"], root)
    run([*git, "add", "-A"], root)
    run([*git, "commit", "-qm", "metrics to compare with", "--allow-empty"], root)

    ok = run(["python", "workflow/scripts/nightly.py", "--cores", "2"], root)
    assert "nightly: OK" in ok.stdout

    params = (root / "params.yaml").read_text()
    assert "support_frac: 1.0" in params
    (root / "params.yaml").write_text(params.replace("support_frac: 1.0", "support_frac: 0.5", 1))
    drift = run(["python", "workflow/scripts/nightly.py", "--cores", "2"], root, check=False)
    assert drift.returncode == 1
    assert "nightly: DRIFT" in drift.stdout and "shortcuts:" in drift.stdout
    assert "committed" in drift.stdout and "fresh" in drift.stdout  # the diff table's header
    (root / "params.yaml").write_text(params)


def test_snakemake_report_renders(first_run):
    root, _, _ = first_run
    run(["snakemake", "--cores", "1"], root)  # make sure every output is present and up to date
    run(["snakemake", "--report", "reports/snakemake-report.html"], root)
    page = root / "reports" / "snakemake-report.html"
    assert page.exists() and page.stat().st_size > 10_000
