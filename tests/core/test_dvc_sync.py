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


def test_every_snakemake_job_is_run_by_the_dvc_stage_of_its_rule():
    """A rule without wildcards is one job and one stage, with the same command, deps, params
    and outs.  A rule with wildcards is one stage that runs every instance into the job's
    instance folder; each of its jobs' inputs is a dep (or inside a dep folder), each output
    inside the stage's folder."""
    from nesybench.dvc_export import ALL_INSTANCES, snakemake_jobs

    jobs, _ = snakemake_jobs(ROOT)
    stages = _dvc_stages()
    assert set(stages) == {"validate", *(job["rule"] for job in jobs)}

    def covered(path: str, paths: list[str]) -> bool:
        return any(path == p or path.startswith(p + "/") for p in paths)

    rule_deps: dict[str, set[str]] = {}
    for job in jobs:
        rule_deps.setdefault(job["rule"], set()).update(job["deps"])
    for job in jobs:
        stage = stages[job["rule"]]
        deps = [d for d in stage["deps"] if d != "params.yaml"]
        assert deps[0] == "data/validate/params.ok", job["rule"]
        # every input is a dep or inside one (an instance folder), and no dep is extra
        assert all(covered(d, deps) for d in job["deps"]), job["rule"]
        assert all(any(covered(d, [dep]) for d in rule_deps[job["rule"]]) for dep in deps[1:])
        if not job["wildcards"]:
            assert stage["cmd"] == job["cmd"]
            assert stage["params"] == job["params"], job["rule"]
            assert stage["outs"] == job["outs"], job["rule"]
            continue
        instance_args = " ".join(f"--arg {k}={v}" for k, v in job["wildcards"].items())
        assert job["cmd"].replace(f" {instance_args}", "") + f" {ALL_INSTANCES}" == stage["cmd"]
        (folder,) = stage["outs"]
        assert all(o.startswith(folder + "/") for o in job["outs"]), job["rule"]
        # the stage reruns when the job's params change, or the sweep's size
        assert set(job["params"]) <= set(stage["params"]), job["rule"]
        assert any(p.endswith(".n_seeds") for p in stage["params"]), job["rule"]


def test_dvc_yaml_is_the_same_for_every_sweep_size(tmp_path):
    """`dvc exp run -S <instrument>.n_seeds=N` needs no regenerated dvc.yaml: the committed
    one is what the rules give under other sweep sizes too."""
    import shutil

    import yaml

    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for rel in files:
        if (ROOT / rel).is_file():
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, tmp_path / rel)
    params = yaml.safe_load((tmp_path / "params.yaml").read_text())
    params["calibration"]["n_seeds"] = 3
    params["nli"]["n_seeds"] = 7
    params["axes"]["n_seeds"] = 1
    params["shortcuts"]["n_seeds"] = 3 * params["shortcuts"]["seed_block"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    proc = subprocess.run(
        [sys.executable, "-m", "nesybench.dvc_export", "--check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
