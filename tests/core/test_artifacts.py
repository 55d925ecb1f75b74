"""The artifact registry: one path convention, wildcards that round-trip every params value."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nesybench import INSTRUMENTS
from nesybench.artifacts import (
    WILDCARD_PATTERN,
    Job,
    Registry,
    artifact_path,
    registry,
    wildcard_token,
)


@given(st.floats(min_value=0, max_value=1, exclude_min=True, allow_subnormal=True))
def test_wildcard_token_round_trips_every_support_fraction(value):
    token = wildcard_token(value)
    assert re.fullmatch(WILDCARD_PATTERN, token)
    assert float(token) == value


@given(st.integers(min_value=0, max_value=10**6))
def test_wildcard_token_round_trips_seeds(seed):
    token = wildcard_token(seed)
    assert re.fullmatch("[0-9]+", token) and int(token) == seed


def test_wildcard_token_refuses_what_a_path_cannot_carry():
    for bad in ("", "a/b", "..", True):
        with pytest.raises((ValueError, TypeError)):
            wildcard_token(bad)


def test_artifact_path_convention():
    assert artifact_path("score", "nli", "traces") == "data/score/nli/traces.parquet"
    cell = {"task": "xor2", "support": 1e-05}
    assert (
        artifact_path("train", "shortcuts", "runs", wildcards=cell, step="cells")
        == "data/train/shortcuts/cells/task-xor2/support-1e-05/runs.parquet"
    )
    with pytest.raises(ValueError, match="needs a step"):
        artifact_path("train", "shortcuts", "runs", wildcards=cell)
    with pytest.raises(ValueError, match="needs a step"):
        Job("train", tables=("runs",), wildcards=("seed",))


def test_registry_paths_outputs_and_metrics_of_steps():
    reg = Registry(
        "calibration",
        [
            Job("train", tables=("world",)),
            Job("train", "seed", tables=("scores",), wildcards=("seed",)),
            Job("train", "aggregate", tables=("summary",), plots=("curve",)),
        ],
    )
    assert (
        reg.path("train", "scores", seed=3) == "data/train/calibration/seed/seed-3/scores.parquet"
    )
    assert reg.instance_folder("train", "seed") == "data/train/calibration/seed"
    assert reg.instance_folder("train") is None
    assert reg.metrics_path("train") == "data/train/calibration/metrics.json"
    assert reg.metrics_path("train", "aggregate") == "data/train/calibration/metrics_aggregate.json"
    assert reg.outputs("train", "seed") == {
        "scores": "data/train/calibration/seed/seed-{seed}/scores.parquet",
        "metrics": "data/train/calibration/seed/seed-{seed}/metrics_seed.json",
    }
    assert reg.outputs("train", "aggregate")["plot_curve"] == "reports/plots/calibration-curve.csv"
    paths = [p for _, _, p in reg.all_paths({"n_seeds": 2})]
    assert "data/train/calibration/seed/seed-1/scores.parquet" in paths and len(paths) == 8
    # the keys that decide which instances exist, read off the instance function itself
    assert reg.job("train", "seed").instance_params({"n_seeds": 2, "model": {}}) == ("n_seeds",)
    assert reg.job("train").instance_params({"n_seeds": 2}) == ()
    with pytest.raises(KeyError, match="takes wildcards"):
        reg.path("train", "scores")
    with pytest.raises(KeyError, match="declares no artifact"):
        reg.path("train", "nosuch")


def test_registry_refuses_ambiguous_declarations():
    with pytest.raises(ValueError, match="declared by two jobs"):
        Registry(
            "nli",
            [Job("score", tables=("x",)), Job("score", "seed", tables=("x",), wildcards=("seed",))],
        )
    with pytest.raises(ValueError, match="declared twice"):
        Registry("nli", [Job("score"), Job("score")])
    with pytest.raises(ValueError, match="snake_case"):
        Job("score", tables=("Bad-Name",))
    with pytest.raises(ValueError, match="need instances"):
        Job("score", "cell", wildcards=("task",))


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_every_instrument_registry_matches_its_stage_table(instrument):
    """Each declared job has a stage function and each stage function a declared job."""
    import importlib

    from nesybench import INSTRUMENT_MODULES

    reg = registry(instrument)
    table = importlib.import_module(INSTRUMENT_MODULES[instrument]["pipeline"]).STAGE_FUNCTIONS
    assert set(table) == set(reg.jobs), instrument
