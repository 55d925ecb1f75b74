"""End-to-end: the pipeline on the tiny profile, run the ways researchers run it, and its report
in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from .conftest import (
    OTHER_MACHINE,
    ROOT,
    artifact_hashes,
    clean,
    copy_of,
    differing,
    git,
    run,
)

# `make test` runs each file on one xdist worker (--dist loadfile); the cold run every file
# starts from (`shared_run`) is built once for all of them.
pytestmark = pytest.mark.slow

# What the promise covers: every artifact (Parquet included) and the committed outputs.
COMMITTED = ("reports/metrics/", "reports/plots/", "reports/report.md")


def test_cold_run_writes_parquet_and_reports(shared_run):
    root, hashes = shared_run
    assert any(k.startswith("data/") and k.endswith(".parquet") for k in hashes)
    assert "reports/report.html" in hashes and "reports/report.md" in hashes
    assert any(k.startswith("reports/metrics/") for k in hashes)
    assert any(k.startswith("reports/plots/") for k in hashes)


def test_another_machine_at_4_cores_gives_the_committed_bytes_and_nightly_agrees(
    shared_run, tmp_path
):
    """`make nightly` on "another machine": its --forceall rerun at --cores 4, under another
    BLAS kernel, 4 BLAS threads, numpy without AVX2 loops and libm without FMA, matches the
    committed metrics exactly (canonical form) and every artifact of the cold --cores 1 run
    byte for byte.  (That the environment moves the numbers when unpinned is shown in
    tests/core/test_numeric_env.py.)"""
    root, hashes = shared_run
    ws = copy_of(root, tmp_path / "ws")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "the committed results")
    ok = run(["python", "workflow/scripts/nightly.py", "--cores", "4"], ws, extra_env=OTHER_MACHINE)
    assert "nightly: OK" in ok.stdout
    again = artifact_hashes(ws)
    assert not differing(hashes, again), differing(hashes, again)[:20]
    assert any(k.startswith(COMMITTED) for k in again)


def test_every_artifact_and_report_gets_the_umask_mode(shared_run):
    """Artifacts others can read: the mode the umask gives (0644 under 022), not mkstemp's 0600."""
    import os
    import stat

    root, hashes = shared_run
    mask = os.umask(0o022)
    os.umask(mask)
    expected = 0o666 & ~mask
    if expected == 0o600:
        pytest.skip("under umask 077 the umask's mode is mkstemp's: nothing to tell apart")
    modes = {rel: stat.S_IMODE((root / rel).stat().st_mode) for rel in hashes}
    wrong = {rel: oct(mode) for rel, mode in modes.items() if mode != expected}
    assert len(modes) > 20 and not wrong, wrong


def test_nightly_shows_a_diff_after_a_param_change(shared_run, tmp_path):
    ws = copy_of(shared_run[0], tmp_path / "ws")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "metrics to compare with")
    params = yaml.safe_load((ws / "params.yaml").read_text())
    params["nli"]["n_seeds"] += 1
    (ws / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run(["snakemake", "--cores", "2"], ws)  # the new seed's two jobs and the gathers
    drift = run(["python", "workflow/scripts/nightly.py", "--no-run"], ws, check=False)
    assert drift.returncode == 1
    assert "nightly: DRIFT" in drift.stdout and "nli:score.deep_label_gap.n_seeds" in drift.stdout
    assert "shortcuts:" not in drift.stdout  # what the change did not touch did not move
    assert "committed" in drift.stdout and "fresh" in drift.stdout  # the diff table's header


def test_snakemake_report_renders(shared_run, tmp_path):
    ws = copy_of(shared_run[0], tmp_path / "ws")
    dry = run(["snakemake", "--cores", "1", "-n"], ws)  # nothing to do after the cold run
    assert "Nothing to be done" in dry.stdout + dry.stderr
    run(["snakemake", "--report", "reports/snakemake-report.html"], ws)
    page = ws / "reports" / "snakemake-report.html"
    assert page.exists() and page.stat().st_size > 10_000


def _metrics_diff(ws, *revs: str) -> dict:
    diff = run(["dvc", "metrics", "diff", "--json", *revs], ws)
    return json.loads(diff.stdout or "{}")


def test_dvc_repro_matches_snakemake_then_experiments_over_the_sweep_size(shared_run, tmp_path):
    """`dvc repro` from a clean tree, on yet another machine, gives Snakemake's bytes.  On top
    of it, `dvc exp run -S calibration.n_seeds=3` is one command (the committed dvc.yaml runs
    every seed params.yaml declares), reruns what the override touches, leaves exactly seeds
    0..2, and `dvc metrics diff` shows the change; a queued experiment over another sweep size
    runs too."""
    root, hashes = shared_run
    ws = copy_of(root, tmp_path / "ws")
    clean(ws)
    machine = {**OTHER_MACHINE, "OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "3"}
    run(["dvc", "repro", "--quiet"], ws, extra_env=machine)
    assert not differing(hashes, artifact_hashes(ws)), differing(hashes, artifact_hashes(ws))[:20]
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "baseline")

    run(["dvc", "exp", "run", "-S", "calibration.n_seeds=3"], ws)
    seeds = sorted(p.name for p in (ws / "data/calibrate/calibration/seed").iterdir())
    assert seeds == ["seed-0", "seed-1", "seed-2"]
    changes = _metrics_diff(ws)["reports/metrics/calibration.json"]
    assert changes["calibrate.accuracy.n_seeds"] == {"old": 2, "new": 3, "diff": 1}
    assert changes["count.seeds_checked"] == {"old": 2, "new": 3, "diff": 1}
    assert "reports/metrics/shortcuts.json" not in _metrics_diff(ws)  # nothing else moved
    # the seeds both sweeps share are the same bytes: only the new seed and the gathers ran
    grown = artifact_hashes(ws)
    seed_1 = "data/train/calibration/seed/seed-1/scores.parquet"
    assert grown[seed_1] == hashes[seed_1]

    git(ws, "checkout", "--", ".")
    run(["dvc", "checkout", "--quiet"], ws)
    run(["dvc", "exp", "run", "--queue", "-n", "nli-3-seeds", "-S", "nli.n_seeds=3"], ws)
    run(["dvc", "exp", "run", "--run-all"], ws)  # in a temporary copy of the repository
    assert "nli-3-seeds" in run(["dvc", "exp", "show", "--json"], ws).stdout
    nli = _metrics_diff(ws, "HEAD", "nli-3-seeds")["reports/metrics/nli.json"]
    assert nli["score.deep_label_gap.n_seeds"] == {"old": 2, "new": 3, "diff": 1}


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


def _chromium(common: list[str], *args: str) -> subprocess.CompletedProcess:
    """Headless Chromium on the page: a few seconds; ten minutes means it hangs."""
    try:
        return subprocess.run([*common, *args], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hang: chromium {args[0]} still running after 600 s") from None


@pytest.mark.browser
def test_report_renders_every_section_table_and_figure_without_console_errors(shared_run, tmp_path):
    browser = chromium()
    root, _ = shared_run
    page = root / "reports" / "report.html"
    url = page.resolve().as_uri()
    common = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = _chromium(common, "--dump-dom", url)
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
    proc = _chromium(common, f"--screenshot={shot}", "--window-size=1280,2400", url)
    assert proc.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000


def test_no_figure_of_the_report_prints_labels_over_each_other(shared_run):
    """Every figure as the report builds it from a real run: no two drawn texts overlap."""
    import importlib

    from nesybench import INSTRUMENT_MODULES
    from nesybench.artifacts import registry
    from nesybench.report.blocks import Figure
    from nesybench.report.figures import figure_style
    from nesybench.report.loader import ReportLoader

    from ..report.legibility import overlapping_texts

    root, _ = shared_run
    params = yaml.safe_load((root / "params.yaml").read_text())
    checked, crowded = [], {}
    with figure_style():
        for instrument, modules in INSTRUMENT_MODULES.items():
            report = importlib.import_module(modules["report"])
            loader = ReportLoader(root, registry(instrument), params[instrument])
            for block in report.section(loader):
                if isinstance(block, Figure):
                    checked.append(block.name)
                    if hits := overlapping_texts(block.figure):
                        crowded[block.name] = hits[:5]
    assert crowded == {}, f"texts printed over each other: {crowded}"
    assert len(checked) == len(list((root / "reports" / "figures").glob("*.png"))) >= 10
