"""The report in a real browser: headless Chromium renders reports/report.html."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
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
