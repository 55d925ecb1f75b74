"""The grid as the pipeline uses it: the default grid from params, the reference systems scored,
the degradation tables, and the claims they make.

A stage would read (``axes.seed``, ``axes.grid``, ``axes.soft_reasoner``), call
:func:`run_benchmark`, write the frames it returns, and call :func:`check_claims`;
every piece here is a plain function so that wiring stays thin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..errors import InputError
from ..progress import log
from .grid import GridQuestion, GridSpec, generate_grid
from .references import SYSTEMS, fit_soft_reasoner, reference_predictions
from .scoring import Grid, grid_from_records, score
from .soft_reasoner import SoftReasoner


def grid_spec(axes_params: Mapping) -> GridSpec:
    """The evaluation grid of an ``axes`` params section (``axes.grid``), cross-checked:
    ``depth_cap`` must leave at least one depth level beyond it."""
    grid = axes_params["grid"]
    spec = GridSpec.from_params(grid)
    cap = grid["depth_cap"]
    if not 0 <= cap < max(spec.depth):
        raise InputError(
            f"params.yaml: axes.grid.depth_cap must be in [0, max depth level) = "
            f"[0, {max(spec.depth)}) so that some depth lies beyond it, got {cap}"
        )
    return spec


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


@dataclass(frozen=True)
class BenchmarkRun:
    """What :func:`run_benchmark` produced."""

    questions: list[GridQuestion]
    grid: Grid
    model: SoftReasoner
    predictions: dict[str, dict[str, str | None]]  # system -> id -> label or None
    scores: dict[str, dict]  # system -> :func:`nesybench.axes.scoring.score` output


def run_benchmark(axes_params: Mapping) -> BenchmarkRun:
    """Generate the default grid, train the soft reasoner on the training grid, answer the grid
    with the three reference systems and score each like a user's predictions."""
    seed = axes_params["seed"]
    spec = grid_spec(axes_params)
    questions = generate_grid(spec, seed=seed, split="eval")
    train = generate_grid(train_spec(axes_params, spec), seed=seed, split="train")
    records = [q.record() for q in questions]
    sr = axes_params["soft_reasoner"]
    model = fit_soft_reasoner(
        [q.record() for q in train], C=sr["C"], max_depth=sr["train_max_depth"]
    )
    log(f"reference systems on {len(records):,} grid questions")
    predictions = reference_predictions(records, model=model, cap=axes_params["grid"]["depth_cap"])
    grid = grid_from_records(list(enumerate(records, start=1)), source="grid")
    sc = axes_params["grid"]["score"]
    scores = {
        system: score(
            grid,
            predictions[system],
            resamples=sc["resamples"],
            level=sc["level"],
            C=sc["C"],
            seed=seed,
        )
        for system in SYSTEMS
    }
    return BenchmarkRun(questions, grid, model, predictions, scores)


# --------------------------------------------------------------------------- tables


def profile_frame(scores: Mapping[str, dict]) -> pd.DataFrame:
    """The degradation profiles: one row per (system, axis, level); ``level`` as text."""
    rows = [
        {"system": system, "axis": axis, "level": level, **stats}
        for system, result in scores.items()
        for axis, levels in result["per_axis"].items()
        for level, stats in levels.items()
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
        if co["intercept"] is not None:
            rows.append({"system": system, "axis": "(intercept)", "level": "", **co["intercept"]})
        rows += [{"system": system, **t, "level": str(t["level"])} for t in co["terms"]]
    return pd.DataFrame(rows, columns=["system", "axis", "level", "coef", "lo", "hi"])
