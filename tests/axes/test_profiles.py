"""The full profile: valid params, at least 20 seeds, a larger grid; the overrides script."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.artifacts import registry
from nesybench.axes.benchmark import grid_spec
from nesybench.params import job_params, load_params, params_hash

REPO = Path(__file__).resolve().parents[2]
FULL = REPO / "workflow" / "profiles" / "full" / "params-overrides.yaml"


def _script():
    path = REPO / "workflow" / "scripts" / "apply_overrides.py"
    spec = importlib.util.spec_from_file_location("apply_overrides", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def scratch(tmp_path):
    shutil.copytree(REPO / "workflow" / "schemas", tmp_path / "workflow" / "schemas")
    shutil.copy(REPO / "params.yaml", tmp_path / "params.yaml")
    return tmp_path / "params.yaml"


def test_full_profile_merges_into_valid_params_with_a_larger_axes_sweep(scratch):
    assert _script().main([str(FULL), "--params", str(scratch)]) == 0
    full = load_params(scratch)["axes"]
    default = load_params(REPO / "params.yaml")["axes"]
    assert full["n_seeds"] >= 20 and default["n_seeds"] >= 5
    spec, small = grid_spec(full), grid_spec(default)
    assert len(spec.cells()) == 7 * 5 * 2 * 2 * 3 * 4
    assert spec.n_questions == 1680 * 24 > 30 * small.n_questions
    # everything the profile leaves alone is the default
    assert full["bank"] == default["bank"] and full["claims"] == default["claims"]
    assert full["gadgets"] == default["gadgets"]


def test_full_profile_seed_jobs_do_not_depend_on_the_sweep_size(scratch):
    assert _script().main([str(FULL), "--params", str(scratch)]) == 0
    full = load_params(scratch)["axes"]
    job = registry("axes").job("generate", "seed")
    assert params_hash(job_params(full, job)) == params_hash(job_params(dict(full, n_seeds=5), job))
    assert len(job.expand(full)) == full["n_seeds"]


def test_apply_overrides_refuses_invalid_overrides_and_leaves_params_alone(scratch, capsys):
    before = scratch.read_bytes()
    bad = scratch.parent / "bad.yaml"
    bad.write_text(yaml.safe_dump({"axes": {"n_seeds": 0}}))
    assert _script().main([str(bad), "--params", str(scratch)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "axes.n_seeds must be >= 1, got 0" in err
    bad.write_text("- not a mapping\n")
    assert _script().main([str(bad), "--params", str(scratch)]) == 2
    assert "must be a mapping" in capsys.readouterr().err
    assert scratch.read_bytes() == before


def test_deep_merge_merges_mappings_and_replaces_everything_else():
    merge = _script().deep_merge
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 3}
    assert merge(base, {"a": {"c": [9]}, "e": 4}) == {"a": {"b": 1, "c": [9]}, "d": 3, "e": 4}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 3}  # not mutated
