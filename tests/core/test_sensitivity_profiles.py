"""The sensitivity profile and the full profile measure the same knob levels, and both merge
into valid params whose variant jobs reuse the default run's seeds."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.artifacts import registry
from nesybench.params import job_params, load_params, params_hash
from nesybench.sensitivity import knobs, variant_tokens

REPO = Path(__file__).resolve().parents[2]
PROFILES = REPO / "workflow" / "profiles"
INSTRUMENTS = ("shortcuts", "calibration", "nli", "axes")


def _apply(path: Path, params: Path) -> None:
    script = REPO / "workflow" / "scripts" / "apply_overrides.py"
    spec = importlib.util.spec_from_file_location("apply_overrides", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main([str(path), "--params", str(params)]) == 0


@pytest.fixture
def scratch(tmp_path):
    shutil.copytree(REPO / "workflow" / "schemas", tmp_path / "workflow" / "schemas")
    shutil.copy(REPO / "params.yaml", tmp_path / "params.yaml")
    return tmp_path / "params.yaml"


def _levels(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    return {i: (data.get(i) or {}).get("knobs") for i in INSTRUMENTS}


def test_the_full_profile_measures_the_sensitivity_profiles_levels():
    assert _levels(PROFILES / "full" / "params-overrides.yaml") == _levels(
        PROFILES / "sensitivity" / "params-overrides.yaml"
    )


def test_the_sensitivity_profile_measures_every_instrument_beyond_the_default(scratch):
    default = load_params(REPO / "params.yaml")
    _apply(PROFILES / "sensitivity" / "params-overrides.yaml", scratch)
    merged = load_params(scratch)
    for instrument in INSTRUMENTS:
        before = {k.path: k for k in knobs(default[instrument])}
        after = knobs(merged[instrument])
        assert [k.provenance for k in after] == [before[k.path].provenance for k in after]
        assert len(variant_tokens(merged[instrument])) > len(variant_tokens(default[instrument])), (
            instrument
        )


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_adding_a_level_reruns_no_finished_job(scratch, instrument):
    """Every per-seed job (variants included) has the same params with and without the
    profile's levels: adding levels only adds jobs."""
    default = load_params(REPO / "params.yaml")[instrument]
    _apply(PROFILES / "sensitivity" / "params-overrides.yaml", scratch)
    merged = load_params(scratch)[instrument]
    reg = registry(instrument)
    for job in reg.jobs.values():
        if job.per_seed:
            assert params_hash(job_params(default, job)) == params_hash(job_params(merged, job))
    variant = reg.job(*next(k for k in reg.jobs if k[1] == "variant"))
    old = {tuple(sorted(i.items())) for i in variant.expand(default)}
    new = {tuple(sorted(i.items())) for i in variant.expand(merged)}
    assert old <= new
