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


def test_every_snakemake_job_is_a_dvc_stage_with_the_same_command():
    import yaml

    from nesybench.dvc_export import snakemake_jobs

    jobs, _ = snakemake_jobs(ROOT)
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    assert {j["name"] for j in jobs} | {"validate"} == set(stages)
    for job in jobs:
        stage = stages[job["name"]]
        assert stage["cmd"] == job["cmd"]
        assert stage.get("deps", []) == ["data/validate/params.ok", *job["deps"]]
        assert stage.get("params", []) == job["params"]
        outs = [
            next(iter(o)) if isinstance(o, dict) else o
            for kind in ("outs", "metrics", "plots")
            for o in stage.get(kind, [])
        ]
        assert sorted(outs) == job["outs"]
