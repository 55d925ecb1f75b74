"""End-to-end: the pipeline on the tiny profile, run the ways researchers run it, and its report
in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from .conftest import ROOT, artifact_hashes, clean, run

# `make test` runs each file on one xdist worker (--dist loadfile): the first run is built once
pytestmark = pytest.mark.slow


def test_cold_run_writes_parquet_and_reports(first_run):
    root, hashes, _ = first_run
    assert any(k.startswith("data/") and k.endswith(".parquet") for k in hashes)
    assert "reports/report.html" in hashes and "reports/report.md" in hashes
    assert any(k.startswith("reports/metrics/") for k in hashes)


def test_every_artifact_and_report_gets_the_umask_mode(first_run):
    """Artifacts others can read: the mode the umask gives (0644 under 022), not mkstemp's 0600."""
    import os
    import stat

    root, hashes, _ = first_run
    mask = os.umask(0o022)
    os.umask(mask)
    expected = 0o666 & ~mask
    if expected == 0o600:
        pytest.skip("under umask 077 the umask's mode is mkstemp's: nothing to tell apart")
    modes = {rel: stat.S_IMODE((root / rel).stat().st_mode) for rel in hashes}
    wrong = {rel: oct(mode) for rel, mode in modes.items() if mode != expected}
    assert len(modes) > 20 and not wrong, wrong


def test_two_cold_runs_at_1_and_4_cores_are_byte_identical(first_run):
    root, hashes, _ = first_run
    clean(root)
    run(["snakemake", "--cores", "4"], root)
    second = artifact_hashes(root)
    assert second == hashes


def test_dvc_yaml_has_not_drifted_from_the_rules(workspace):
    run(["python", "-m", "nesybench.dvc_export", "--check"], workspace)


def test_snakemake_report_renders(first_run):
    root, _, _ = first_run
    run(["snakemake", "--cores", "1"], root)  # a no-op after the cold runs: nothing is missing
    run(["snakemake", "--report", "reports/snakemake-report.html"], root)
    page = root / "reports" / "snakemake-report.html"
    assert page.exists() and page.stat().st_size > 10_000


def test_nightly_passes_on_a_clean_tree_and_fails_with_a_diff_after_a_param_change(first_run):
    root, _, _ = first_run
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    run(["snakemake", "--cores", "2"], root)  # a no-op: the cold runs above left every output
    run([*git, "add", "-A"], root)
    run([*git, "commit", "-qm", "metrics to compare with", "--allow-empty"], root)

    ok = run(["python", "workflow/scripts/nightly.py", "--cores", "2"], root)
    assert "nightly: OK" in ok.stdout

    params = (root / "params.yaml").read_text()
    assert "support_frac: 1.0" in params
    (root / "params.yaml").write_text(params.replace("support_frac: 1.0", "support_frac: 0.5", 1))
    # the forceall path ran above; here rerun only what the change touches, then compare
    run(["snakemake", "--cores", "2"], root)
    drift = run(["python", "workflow/scripts/nightly.py", "--no-run"], root, check=False)
    assert drift.returncode == 1
    assert "nightly: DRIFT" in drift.stdout and "shortcuts:" in drift.stdout
    assert "committed" in drift.stdout and "fresh" in drift.stdout  # the diff table's header
    (root / "params.yaml").write_text(params)


def test_dvc_repro_matches_snakemake_then_an_experiment_moves_the_metrics(first_run):
    """`dvc repro` from a clean tree gives Snakemake's bytes; `dvc exp run -S` on top of it
    reruns what the override touches and `dvc metrics diff` shows the change."""
    root, hashes, _ = first_run
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    run([*git, "checkout", "--", "."], root)  # undo what earlier tests changed
    clean(root)
    run(["dvc", "repro", "--quiet"], root)
    assert artifact_hashes(root) == hashes
    run([*git, "add", "-A"], root)
    run([*git, "commit", "-qm", "baseline"], root)
    run(["dvc", "exp", "run", "-S", "shortcuts.support_frac=0.5"], root)
    diff = run(["dvc", "metrics", "diff", "--json"], root)
    changes = json.loads(diff.stdout or "{}")
    assert changes, "support_frac=0.5 should move at least one metric"
    assert any(path.startswith("reports/metrics/") for path in changes)


# ---- the report in a real browser (last: it reads what the runs above left) ----

ARTIFACTS = ROOT / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "headless Chromium is not installed (Debian: apt-get install chromium); .ci/run installs it"
    )


@pytest.mark.browser
def test_report_renders_every_section_table_and_figure_without_console_errors(first_run, tmp_path):
    browser = chromium()
    root, _, _ = first_run
    page = root / "reports" / "report.html"
    url = page.resolve().as_uri()
    common = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], f"the page logged to the console: {console}"

    html = dom.stdout
    landed = sorted(p.stem for p in (root / "reports" / "metrics").glob("*.json"))
    sections = re.findall(r'<section id="([^"]+)" class="instrument">', html)
    # one section per instrument that landed, then the provenance appendix last
    assert len(sections) == len(landed) + 1 and len(landed) >= 1
    assert sections[-1] == "provenance"
    markdown = (root / "reports" / "report.md").read_text()
    n_tables_md = sum(
        1 for line in markdown.splitlines() if line.startswith("|") and set(line) <= set("|-: ")
    )
    assert html.count('<table class="nb-table">') == n_tables_md >= len(landed)
    n_figures = len(list((root / "reports" / "figures").glob("*.png")))
    assert html.count('<figure class="nb-figure"') == n_figures >= 1
    assert html.count("<svg") >= n_figures
    assert "params.yaml sha256:" in html

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report.png"
    proc = subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1280,2400", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000
