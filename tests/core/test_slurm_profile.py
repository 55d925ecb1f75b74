"""The slurm profile without a cluster: Snakemake accepts every key of it, and its per-rule
resources name rules that exist (a misspelt rule name would be ignored silently). The real
cluster run is tests/e2e/test_slurm.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "workflow" / "profiles" / "slurm" / "config.yaml"


def test_slurm_profile_is_accepted_and_names_existing_rules():
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        ["snakemake", "--profile", "workflow/profiles/slurm", "--list-rules"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rules = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    profile = yaml.safe_load(PROFILE.read_text())
    assert profile["executor"] == "slurm"
    assert {"slurm_partition", "mem_mb", "runtime"} <= set(profile["default-resources"])
    assert set(profile["set-resources"]) <= rules
    assert set(profile["set-resources"])
