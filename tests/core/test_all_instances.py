"""`--all-instances`, the command of a DVC stage that stands for a rule with wildcards: it runs
every instance params.yaml declares into the job's instance folder, with the bytes of the
one-instance jobs Snakemake runs, and refuses what it cannot mean with one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.e2e.conftest import deep_merge

ROOT = Path(__file__).resolve().parents[2]


def _root(tmp_path: Path, n_seeds: int) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params = deep_merge(params, yaml.safe_load((ROOT / "tests/profiles/tiny.yaml").read_text()))
    params["nli"]["n_seeds"] = n_seeds
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(ROOT / "workflow" / "schemas", tmp_path / "workflow" / "schemas")
    return tmp_path


def _stage(root: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cmd = [sys.executable, *argv, "--params", str(root / "params.yaml")]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)


def test_every_instance_lands_in_the_jobs_folder_with_the_single_jobs_bytes(tmp_path):
    every = _root(tmp_path / "every", n_seeds=3)
    proc = _stage(every, "stages/generate.py", "nli", "seed", "--all-instances")
    assert proc.returncode == 0, proc.stderr[-2000:]
    folder = every / "data/generate/nli/seed"
    assert sorted(p.name for p in folder.iterdir()) == ["seed-0", "seed-1", "seed-2"]
    one = _root(tmp_path / "one", n_seeds=3)
    assert _stage(one, "stages/generate.py", "nli", "seed", "--arg", "seed=2").returncode == 0
    for name in ("prontoqa.parquet", "folio.parquet", "metrics_seed.json"):
        rel = f"data/generate/nli/seed/seed-2/{name}"
        assert (every / rel).read_bytes() == (one / rel).read_bytes(), rel


def test_all_instances_refuses_a_job_without_wildcards_and_an_instance_argument(tmp_path):
    root = _root(tmp_path, n_seeds=2)
    for argv, expected in (
        (("stages/count.py", "nli", "--all-instances"), "has no wildcards"),
        (("stages/generate.py", "nli", "seed", "--all-instances", "--arg", "seed=0"), "give no"),
    ):
        proc = _stage(root, *argv)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 2, proc.stderr
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines
    assert not (root / "data").exists()
