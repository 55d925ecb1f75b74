"""The grid as the pipeline runs it, one seed at a time: the default grid of params, the three
reference systems trained and scored on it, and the tables each seed contributes.

One seed's path (each step a plain function, so the stage functions stay thin):

* :func:`grid_spec` / :func:`train_spec` -- the evaluation grid of ``axes.grid`` (its limits
  checked at load time) and the soft reasoner's clean, shallow training grid;
* :func:`generate_grids` -- both grids of a seed (labels re-derived, balance asserted);
* :func:`fit_grid_reasoner` -- the soft reasoner fitted on the training grid's records;
* :func:`answer_grid` / :func:`score_systems` -- the three systems' answers, each scored like a
  user's predictions (:func:`nesybench.axes.scoring.score`); the logistic regression is left
  to the sweep (``regress=False``), which fits it on every seed at once;
* the frames (:func:`profile_frame`, :func:`interaction_frame`, :func:`cell_frame`,
  :func:`answers_frame`, :func:`coefficient_frame`) and :func:`grid_numbers`, the seed's row
  of numbers the chapter's grid claims are judged on;
* :func:`coefficients` -- the regression of correctness on the axes, per system (run by the
  sweep on every seed's answers).

:func:`run_benchmark` strings them together for one seed (benchmarks, tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..progress import log
from .grid import GridQuestion, GridSpec, generate_grid
from .references import SYSTEMS, fit_soft_reasoner, reference_predictions
from .scoring import Grid, grid_from_records, regression, score
from .soft_reasoner import SoftReasoner


def grid_spec(axes_params: Mapping) -> GridSpec:
    """The evaluation grid of an ``axes`` params section (``axes.grid``; its ``depth_cap``
    leaves a depth level beyond it: :mod:`nesybench.axes.params_checks`)."""
    return GridSpec.from_params(axes_params["grid"])


def train_spec(axes_params: Mapping, spec: GridSpec) -> GridSpec:
    """The soft reasoner's training grid: depths up to ``soft_reasoner.train_max_depth``, no
    distractors, canonical order, no synonyms; the evaluation grid's negation and vocabulary
    levels; ``grid.train_per_cell`` questions per cell (drawn from the ``train`` stream)."""
    max_depth = axes_params["soft_reasoner"]["train_max_depth"]
    return GridSpec(
        depth=tuple(range(max_depth + 1)),
        distractors=(0,),
        order=("canonical",),
        negation=spec.negation,
        vocabulary=spec.vocabulary,
        synonyms=(0.0,),
        per_cell=axes_params["grid"]["train_per_cell"],
    )


def generate_grids(
    axes_params: Mapping, *, seed: int
) -> tuple[list[GridQuestion], list[GridQuestion]]:
    """The seed's evaluation and training grids (every label re-derived from its text, every
    cell's balance asserted, by :func:`nesybench.axes.grid.generate_grid`)."""
    spec = grid_spec(axes_params)
    questions = generate_grid(spec, seed=seed, split="eval")
    train = generate_grid(train_spec(axes_params, spec), seed=seed, split="train")
    return questions, train


def fit_grid_reasoner(train_records: Sequence[Mapping], axes_params: Mapping) -> SoftReasoner:
    """The soft reasoner of the grid, fitted on the training grid (``axes.soft_reasoner``)."""
    sr = axes_params["soft_reasoner"]
    return fit_soft_reasoner(train_records, C=sr["C"], max_depth=sr["train_max_depth"])


def answer_grid(
    records: Sequence[Mapping], model: SoftReasoner, axes_params: Mapping
) -> dict[str, dict[str, str | None]]:
    """``system -> {id: label or None}``: the three reference systems on the grid's records."""
    log(f"reference systems on {len(records):,} grid questions")
    return reference_predictions(records, model=model, cap=axes_params["grid"]["depth_cap"])


def score_systems(
    grid: Grid,
    predictions: Mapping[str, Mapping[str, str | None]],
    axes_params: Mapping,
    *,
    seed: int,
    regress: bool = True,
) -> dict[str, dict]:
    """Each system's answers scored like a user's (``axes.grid.score`` options)."""
    sc = axes_params["grid"]["score"]
    return {
        system: score(
            grid,
            predictions[system],
            resamples=sc["resamples"],
            level=sc["level"],
            C=sc["C"],
            seed=seed,
            regress=regress,
        )
        for system in SYSTEMS
    }


@dataclass(frozen=True)
class BenchmarkRun:
    """What :func:`run_benchmark` produced for one seed."""

    questions: list[GridQuestion]
    grid: Grid
    model: SoftReasoner
    predictions: dict[str, dict[str, str | None]]  # system -> id -> label or None
    scores: dict[str, dict]  # system -> :func:`nesybench.axes.scoring.score` output


def run_benchmark(axes_params: Mapping, *, seed: int, regress: bool = True) -> BenchmarkRun:
    """One seed end to end: both grids, the soft reasoner, the three systems, their scores."""
    questions, train = generate_grids(axes_params, seed=seed)
    records = [q.record() for q in questions]
    model = fit_grid_reasoner([q.record() for q in train], axes_params)
    predictions = answer_grid(records, model, axes_params)
    grid = grid_from_records(list(enumerate(records, start=1)), source="grid")
    scores = score_systems(grid, predictions, axes_params, seed=seed, regress=regress)
    return BenchmarkRun(questions, grid, model, predictions, scores)


# --------------------------------------------------------------------------- tables


def profile_frame(scores: Mapping[str, dict]) -> pd.DataFrame:
    """The degradation profiles: one row per (system, axis, level); ``level`` as text, ``order``
    its position among the axis's levels (declared order)."""
    rows = [
        {"system": system, "axis": axis, "order": order, "level": level, **stats}
        for system, result in scores.items()
        for axis, levels in result["per_axis"].items()
        for order, (level, stats) in enumerate(levels.items())
    ]
    return pd.DataFrame(rows)


def interaction_frame(scores: Mapping[str, dict]) -> pd.DataFrame:
    """The depth x distractors tables: one row per (system, depth, distractors)."""
    rows = [
        {"system": system, **row}
        for system, result in scores.items()
        if result["interaction"] is not None
        for row in result["interaction"]["table"]
    ]
    return pd.DataFrame(rows)


def cell_frame(scores: Mapping[str, dict]) -> pd.DataFrame:
    """Per system and cell: the axis levels, counts, accuracies and chance (1 / labels)."""
    rows = [
        {"system": system, **row["cell"], **{k: v for k, v in row.items() if k != "cell"}}
        for system, result in scores.items()
        for row in result["per_cell"]
    ]
    return pd.DataFrame(rows)


def coefficient_frame(scores: Mapping[str, dict]) -> pd.DataFrame:
    """The logistic-regression coefficients with their bootstrap intervals, per system."""
    rows = []
    for system, result in scores.items():
        co = result["coefficients"]
        if co is None:
            continue
        if co["intercept"] is not None:
            rows.append({"system": system, "axis": "(intercept)", "level": "", **co["intercept"]})
        rows += [{"system": system, **t, "level": str(t["level"])} for t in co["terms"]]
    return pd.DataFrame(rows, columns=["system", "axis", "level", "coef", "lo", "hi"])


def coefficients(
    grid: Grid,
    predictions: Mapping[str, Mapping[str, str | None]],
    axes_params: Mapping,
    *,
    seed: int,
    resamples: int = 0,
) -> pd.DataFrame:
    """Per system, the logistic regression of correctness on the axis levels
    (:func:`nesybench.axes.scoring.regression`; ``resamples`` bootstrap fits, 0 for the point
    estimates alone), as :func:`coefficient_frame` rows."""
    sc = axes_params["grid"]["score"]
    fits = {}
    for system in SYSTEMS:
        correct = np.array([predictions[system].get(q) == grid.gold[q] for q in grid.ids])
        fits[system] = {
            "coefficients": regression(
                grid, correct, resamples=resamples, level=sc["level"], C=sc["C"], seed=seed
            )
        }
    return coefficient_frame(fits)


def answers_frame(grid: Grid, predictions: Mapping[str, Mapping[str, str | None]]) -> pd.DataFrame:
    """One row per (system, question): ``prediction`` ('' for an abstention) and ``correct``."""
    rows = [
        {
            "system": system,
            "id": qid,
            "prediction": answers.get(qid) or "",
            "correct": answers.get(qid) == grid.gold[qid],
        }
        for system, answers in predictions.items()
        for qid in grid.ids
    ]
    return pd.DataFrame(rows)


def predictions_from_frame(answers: pd.DataFrame) -> dict[str, dict[str, str | None]]:
    """The inverse of :func:`answers_frame`: ``system -> {id: label or None}``."""
    out: dict[str, dict[str, str | None]] = {}
    for system, qid, prediction in answers[["system", "id", "prediction"]].itertuples(index=False):
        out.setdefault(str(system), {})[str(qid)] = str(prediction) or None
    return out


def _accuracy(cells: list[dict]) -> float:
    return sum(c["correct"] for c in cells) / sum(c["n"] for c in cells)


def grid_numbers(scores: Mapping[str, dict], axes_params: Mapping) -> dict[str, float]:
    """The seed's numbers the grid's claims are judged on.

    Per system: ``grid_<system>_accuracy`` and ``_coverage``; the depth-capped system's
    accuracy beyond its cap and chance there; the soft reasoner's accuracy at the depths it
    was trained on with the fewest and the most distractors per hop, and the drop between
    them (``grid_soft_distractor_drop``).
    """
    out: dict[str, float] = {}
    for system, result in scores.items():
        out[f"grid_{system}_accuracy"] = float(result["accuracy"])
        out[f"grid_{system}_coverage"] = float(result["coverage"])
    cap = axes_params["grid"]["depth_cap"]
    beyond = [c for c in scores["depth_capped"]["per_cell"] if c["cell"]["depth"] > cap]
    out["grid_capped_beyond_cap"] = _accuracy(beyond)
    out["grid_chance_beyond_cap"] = sum(c["chance"] * c["n"] for c in beyond) / sum(
        c["n"] for c in beyond
    )
    max_depth = axes_params["soft_reasoner"]["train_max_depth"]
    shallow = [c for c in scores["soft_reasoner"]["per_cell"] if c["cell"]["depth"] <= max_depth]
    levels = sorted({c["cell"]["distractors"] for c in shallow})
    clean = _accuracy([c for c in shallow if c["cell"]["distractors"] == levels[0]])
    busy = _accuracy([c for c in shallow if c["cell"]["distractors"] == levels[-1]])
    out |= {
        "grid_soft_clean": clean,
        "grid_soft_busy": busy,
        "grid_soft_distractor_drop": clean - busy,
    }
    return out
