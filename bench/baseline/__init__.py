"""The landed code beside the working tree, for benchmarks that print ratios against it.

The performance work on the grid, start-up and training is measured against main before it (commit
``643ae62``): :func:`landed_tree` exports that commit's files (``git archive``) into a
throw-away folder, and :func:`run_python` runs a snippet under either tree's sources
(``PYTHONPATH=<tree>/src``; the package installed in the venv is the working tree's, so the
path decides which code runs). Both trees run in the same benchmark, one after the other, so
machine load cancels out of the ratio as far as it can.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: main before the grid, start-up and training speed-ups
LANDED = "643ae62"
#: what a stage job of each instrument imports besides the stage runner
INSTRUMENT_PIPELINES = (
    "nesybench.shortcuts.pipeline",
    "nesybench.calibration.pipeline",
    "nesybench.nli.pipeline",
    "nesybench.axes.pipeline",
    "nesybench.report.pipeline",
)


def landed_tree(dest: Path, commit: str = LANDED) -> Path:
    """The files of ``commit`` under ``dest/landed-<commit>`` (exported once per ``dest``)."""
    tree = dest / f"landed-{commit}"
    if not tree.exists():
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
        ).stdout
        with tempfile.TemporaryFile() as fh:
            fh.write(archive)
            fh.seek(0)
            with tarfile.open(fileobj=fh) as tar:
                tar.extractall(tree, filter="data")
    return tree


def tree_env(tree: Path) -> dict:
    """The environment that makes ``python`` and ``snakemake`` run ``tree``'s sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree / "src")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_python(tree: Path, code: str, *args: str) -> dict:
    """Run ``code`` (a script that prints one JSON object last) under ``tree``'s sources."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tree,
        env=tree_env(tree),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark snippet failed under {tree}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
