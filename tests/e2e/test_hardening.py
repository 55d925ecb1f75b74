"""The pipeline under hostile input: bad params, and missing or corrupt artifacts.

Each test copies the session's shared finished run of the tiny profile (``copy``, in
conftest.py), breaks something and checks what a researcher must see: one `error:` line and exit
2 before any job for bad params, nothing deleted, and a plain rerun that rebuilds what is missing
or corrupt to the same bytes.  Hostile runs (kills, two runners, stale params, edited sources)
are tests/e2e/test_hardening_runs.py: two files, so the two test workers share them.
"""

from __future__ import annotations

import re

import pytest
import yaml

from .conftest import (
    artifact_hashes,
    one_error_line,
    run,
    snakemake_in,
)

pytestmark = pytest.mark.slow

LABELLED = "data/generate/calibration/seed/seed-0/labelled.parquet"


def _set(path: list[str], value):
    """An edit that sets one key through YAML (the workspace's params.yaml has no comments)."""

    def edit(text: str) -> str:
        params = yaml.safe_load(text)
        node = params
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return yaml.safe_dump(params, sort_keys=False)

    return edit


def _indent_with_a_tab(text: str) -> str:
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("  "))
    lines[i] = "\t" + lines[i][2:]
    return "\n".join(lines) + "\n"


BAD_PARAMS = [
    ("nan", _set(["shortcuts", "support_frac"], float("nan")), r"finite number"),
    (
        "unknown-task",
        _set(["shortcuts", "demo", "task"], "nosuch"),
        r"demo\.task must name a key of shortcuts\.tasks",
    ),
    ("syntax", lambda t: t + "\nbroken: [1, 2\n", r"not valid YAML at line \d+"),
    ("tabs", _indent_with_a_tab, r"not valid YAML at line \d+.*tabs"),
    ("empty", lambda t: "", r"got an empty file"),
    ("top-level-list", lambda t: "- a\n- b\n", r"must be a mapping"),
    (
        "python-tag",
        lambda t: t + "\nx: !!python/object/apply:os.system ['touch pwned.txt']\n",
        r"only plain YAML",
    ),
    (
        "yte",
        lambda t: (
            "__use_yte__: true\n"
            + _set(["report", "title"], "?__import__('os').system('touch pwned.txt') or 'x'")(t)
        ),
        r"__use_yte__ is not supported",
    ),
]


@pytest.mark.parametrize(
    "edit, message", [(e, m) for _, e, m in BAD_PARAMS], ids=[i for i, _, _ in BAD_PARAMS]
)
def test_bad_params_stop_snakemake_before_any_job_with_one_line(copy, edit, message):
    root, hashes = copy
    params = root / "params.yaml"
    text = params.read_text()
    params.write_text(edit(text))
    assert params.read_text() != text
    proc = snakemake_in(root)
    line = one_error_line(proc)
    assert "params.yaml" in line and re.search(message, line), line
    assert not (root / "pwned.txt").exists(), "params.yaml ran code"
    assert artifact_hashes(root) == hashes, "a bad params file deleted or changed artifacts"


def test_bad_params_stop_dvc_repro_before_any_output_is_deleted(copy):
    root, hashes = copy
    params = root / "params.yaml"
    params.write_text(_set(["shortcuts", "support_frac"], float("nan"))(params.read_text()))
    proc = run(["dvc", "repro"], root, check=False)
    assert proc.returncode != 0
    assert "finite number" in proc.stdout + proc.stderr
    missing = [k for k in hashes if k.startswith("data/") and not (root / k).exists()]
    assert not missing, f"dvc repro deleted outputs before validating params: {missing[:5]}"


def test_a_truncated_artifact_is_named_removed_and_a_plain_rerun_rebuilds_it(copy):
    """Also the missing-artifact case: after the failed run the artifact is gone, and a plain
    rerun rebuilds it to the same bytes (one rebuild of the chain serves both checks)."""
    root, hashes = copy
    path = root / LABELLED
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    first = snakemake_in(root, "--forcerun", "calibration_count")
    assert first.returncode != 0
    assert f"{LABELLED}: unreadable artifact removed" in first.stdout + first.stderr
    assert not path.exists()
    second = snakemake_in(root)
    assert second.returncode == 0, second.stderr[-3000:]
    assert artifact_hashes(root) == hashes
