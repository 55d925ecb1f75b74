"""A cross-key params problem stops both runners at load time, before any job: Snakemake's
dry run, a DVC stage's entry point, the validate stage and the dvc.yaml export each exit 2
with the one line of the instrument's check_params, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from .conftest import make_workspace, run

LINE = (
    "error: params.yaml: nli.worked_example_hops must be one of nli.prontoqa.hops [1, 3, 5], got 4"
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = make_workspace(tmp_path_factory.mktemp("params-load"))
    params = yaml.safe_load((root / "params.yaml").read_text())
    assert params["nli"]["prontoqa"]["hops"] == [1, 3, 5]
    params["nli"]["worked_example_hops"] = 4  # the schema accepts it; check_params does not
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


@pytest.mark.parametrize(
    "command",
    [
        ["snakemake", "--cores", "2", "-n"],
        ["python", "stages/generate.py", "nli", "seed", "--arg", "seed=0"],
        ["python", "stages/generate.py", "nli", "seed", "--all-instances"],
        ["python", "stages/validate.py"],
        ["python", "-m", "nesybench.dvc_export"],
    ],
    ids=["snakemake-n", "stage", "stage-all-instances", "validate", "dvc-export"],
)
def test_a_cross_key_problem_stops_before_any_job(workspace, command):
    dvc_yaml = (workspace / "dvc.yaml").read_bytes()
    proc = run(command, workspace, check=False)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert lines == [LINE], proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "rule " not in proc.stdout  # Snakemake planned no job
    assert not (workspace / "data").exists()
    assert (workspace / "dvc.yaml").read_bytes() == dvc_yaml
