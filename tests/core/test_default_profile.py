"""`snakemake` run at the repository root picks up workflow/profiles/default.

Snakemake looks for a workflow profile in ``profiles/default`` beside the Snakefile (here the
repository root), not in ``workflow/profiles/default``: ``profiles/default`` is a link to it.
Without it the greedy scheduler and the scheduler subsample (a large part of Snakemake's own CPU
on the full profile: bench/pipeline.py) were silently not used.
"""

import os
from pathlib import Path

import yaml
from snakemake.cli import parse_args

ROOT = Path(__file__).resolve().parents[2]


def test_snakemake_at_the_root_reads_the_default_profile(monkeypatch):
    monkeypatch.chdir(ROOT)
    settings = yaml.safe_load((ROOT / "workflow/profiles/default/config.yaml").read_text())
    _, args = parse_args(["--cores", "2", "-n"])
    assert args.scheduler == settings["scheduler"] == "greedy"
    assert args.scheduler_subsample == settings["scheduler-subsample"]
    assert {t.name.lower() for t in args.rerun_triggers} == set(settings["rerun-triggers"])


def test_the_root_profile_is_the_workflow_profile():
    assert os.path.samefile(ROOT / "profiles/default", ROOT / "workflow/profiles/default")
