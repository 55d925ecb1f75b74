"""dvc.yaml is generated from the Snakemake rules; this fails on any drift between the two."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_committed_dvc_yaml_matches_the_snakemake_rules():
    proc = subprocess.run(
        [sys.executable, "-m", "nesybench.dvc_export", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def _dvc_stages() -> dict[str, dict]:
    """Every stage as DVC itself expands dvc.yaml (matrix stages included)."""
    from dvc.repo import Repo

    with Repo(str(ROOT)) as repo:
        return {
            stage.name: {
                "cmd": stage.cmd,
                "deps": [d.def_path for d in stage.deps],
                "params": sorted(
                    key for d in stage.deps if hasattr(d, "params") for key in (d.params or [])
                ),
                "outs": sorted(o.def_path for o in stage.outs),
            }
            for stage in repo.index.stages
        }


def test_every_snakemake_job_is_a_dvc_stage_with_the_same_command():
    from nesybench.dvc_export import snakemake_jobs

    jobs, _ = snakemake_jobs(ROOT)
    stages = _dvc_stages()
    assert "validate" in stages
    by_command = {stage["cmd"]: name for name, stage in stages.items()}
    assert len(by_command) == len(stages)
    assert len(jobs) + 1 == len(stages)
    for job in jobs:
        name = by_command.get(job["cmd"])
        assert name is not None, f"no DVC stage runs {job['cmd']!r}"
        stage = stages[name]
        deps = [d for d in stage["deps"] if d != "params.yaml"]
        assert deps == ["data/validate/params.ok", *job["deps"]], name
        assert stage["params"] == job["params"], name
        assert stage["outs"] == job["outs"], name


def test_seed_jobs_become_dvc_matrix_stages():
    import yaml

    text = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    per_seed = [name for name, stage in text.items() if "seed" in stage.get("matrix", {})]
    assert per_seed, "per-seed rules should be written as DVC matrix stages"


def test_dvc_yaml_for_other_sweep_sizes_is_refused_with_one_line(tmp_path):
    import shutil

    import pytest

    from nesybench.dvc_export import check_matrices
    from nesybench.errors import UserError
    from nesybench.params import load_params

    shutil.copy(ROOT / "dvc.yaml", tmp_path / "dvc.yaml")
    params = load_params(ROOT / "params.yaml")
    check_matrices(tmp_path, params)  # the committed dvc.yaml follows params.yaml
    params["calibration"]["n_seeds"] += 2
    with pytest.raises(UserError, match=r"stage calibration_\w+ was generated for .*regenerate it"):
        check_matrices(tmp_path, params)
