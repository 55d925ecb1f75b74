"""The grid in the pipeline's hands: default grid from params, reference systems, tables, claims."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from nesybench.axes.benchmark import (
    answers_frame,
    cell_frame,
    coefficient_frame,
    coefficients,
    grid_numbers,
    grid_spec,
    interaction_frame,
    predictions_from_frame,
    profile_frame,
    run_benchmark,
    train_spec,
)
from nesybench.axes.claims import (
    check_capped_at_chance,
    check_grid,
    check_pipeline_exact,
    check_prover_immune_to_distractors,
)
from nesybench.errors import ClaimFailed

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def axes_params():
    return yaml.safe_load((REPO / "params.yaml").read_text())["axes"]


@pytest.fixture(scope="module")
def run(axes_params):
    return run_benchmark(axes_params, seed=0)


def test_run_benchmark_scores_three_systems_on_the_default_grid(run):
    assert set(run.scores) == {"soft_reasoner", "pipeline", "depth_capped"}
    assert len(run.questions) == len(run.grid) == 1152
    for result in run.scores.values():
        assert result["n"] == 1152 and len(result["per_cell"]) == 192


def test_default_grid_claims_hold(run, axes_params):
    check_grid(run.scores, axes_params, seed=0)
    numbers = grid_numbers(run.scores, axes_params)
    min_drop = axes_params["claims"]["grid_distractors_move_soft"]["min_drop"]
    assert numbers["grid_soft_distractor_drop"] >= min_drop
    assert (
        numbers["grid_soft_distractor_drop"]
        == numbers["grid_soft_clean"] - numbers["grid_soft_busy"]
    )
    # the capped reasoner beyond its cap: chance on a balanced cell, exactly
    assert numbers["grid_capped_beyond_cap"] == numbers["grid_chance_beyond_cap"]
    assert numbers["grid_pipeline_accuracy"] == numbers["grid_pipeline_coverage"]
    assert run.scores["pipeline"]["accuracy_answered"] == 1.0
    assert run.scores["pipeline"]["coverage"] < 1.0  # the surface axis costs coverage
    capped = run.scores["depth_capped"]["per_axis"]["depth"]
    assert capped["3"]["accuracy"] == pytest.approx((1 / 2 + 1 / 3) / 2)


def test_frames_have_one_row_per_system_and_level(run):
    profile = profile_frame(run.scores)
    levels = sum(len(v) for v in run.scores["pipeline"]["per_axis"].values())
    assert len(profile) == 3 * levels and set(profile["level"].map(type)) == {str}
    inter = interaction_frame(run.scores)
    assert len(inter) == 3 * 4 * 3 and {"contrast", "accuracy"} <= set(inter.columns)
    assert len(cell_frame(run.scores)) == 3 * 192
    co = coefficient_frame(run.scores)
    assert set(co["system"]) == {"soft_reasoner", "pipeline", "depth_capped"}
    assert set(profile["order"]) == {0, 1, 2, 3}  # levels keep their declared position


def test_answers_frame_round_trips_and_coefficients_refit_the_same_model(run, axes_params):
    answers = answers_frame(run.grid, run.predictions)
    assert len(answers) == 3 * len(run.grid)
    assert predictions_from_frame(answers) == run.predictions
    pipeline = answers[answers["system"] == "pipeline"]
    assert pipeline["correct"].mean() == run.scores["pipeline"]["accuracy"]
    point = coefficients(run.grid, run.predictions, axes_params, seed=0, resamples=0)
    same = coefficient_frame(run.scores)
    assert point[["system", "axis", "level"]].equals(same[["system", "axis", "level"]])
    assert (point["coef"] - same["coef"]).abs().max() < 1e-9
    assert point["lo"].isna().all()  # no bootstrap: point estimates only


def test_check_pipeline_exact_fails_on_a_wrong_parsed_answer(run):
    broken = copy.deepcopy(run.scores["pipeline"])
    broken["per_cell"][0]["correct"] -= 1
    with pytest.raises(ClaimFailed, match="seed 3: the prover-backed pipeline must be exact"):
        check_pipeline_exact(broken, seed=3)
    none = copy.deepcopy(run.scores["pipeline"])
    for cell in none["per_cell"]:
        cell["answered"] = 0
    with pytest.raises(ClaimFailed, match="must answer some"):
        check_pipeline_exact(none)


def test_check_capped_at_chance_fails_off_chance_or_inexact(run):
    capped = run.scores["depth_capped"]
    check_capped_at_chance(capped, cap=2)
    inexact = copy.deepcopy(capped)
    inexact["per_cell"][0]["accuracy"] = 0.5  # a depth-0 cell
    with pytest.raises(ClaimFailed, match="must be exact up to its cap"):
        check_capped_at_chance(inexact, cap=2)
    with pytest.raises(ClaimFailed, match="chance in every cell beyond"):
        check_capped_at_chance(capped, cap=1)  # depth 2 is exact, not chance
    with pytest.raises(ClaimFailed, match="depths beyond the cap"):
        check_capped_at_chance(capped, cap=5)


def test_check_prover_immune_to_distractors_fails_on_a_wrong_answer(run):
    check_prover_immune_to_distractors(run.scores["pipeline"], seed=0)
    with pytest.raises(ClaimFailed, match="seed 4: distractors must not move the prover"):
        check_prover_immune_to_distractors(run.scores["soft_reasoner"], seed=4)


def test_train_spec_is_clean_and_shallow(axes_params):
    spec = train_spec(axes_params, grid_spec(axes_params))
    assert spec.depth == (0, 1) and spec.distractors == (0,) and spec.synonyms == (0.0,)
    assert spec.order == ("canonical",) and spec.per_cell == 24
