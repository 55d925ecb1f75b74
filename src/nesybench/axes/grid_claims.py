"""The claims the grid's tables make about the three reference systems, each raising
``ClaimFailed`` with the numbers it was checked on.

* :func:`check_pipeline_exact`: the prover-backed pipeline answers every question it
  parses correctly, in every cell (its failures are abstentions, never wrong answers);
* :func:`check_capped_at_chance`: the depth-capped reasoner is exact up to its cap and
  scores exactly chance (1 / number of labels) in every cell beyond it;
* :func:`check_distractors_move_soft_not_prover`: at the depths the soft reasoner was
  trained on, its accuracy with the most distractors lies at least ``drop_min`` below
  its accuracy with the fewest, while the pipeline's accuracy on what it answers is 1.0
  at every distractor level.

Inputs are :func:`nesybench.axes.scoring.score` outputs, one per system.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import check_claim

_EPS = 1e-12


def _cells(score: Mapping) -> list[dict]:
    return list(score["per_cell"])


def check_pipeline_exact(pipeline: Mapping) -> None:
    """Accuracy on answered questions is 1.0 in every cell that answered any; some answered."""
    answered = [c for c in _cells(pipeline) if c["answered"]]
    check_claim(bool(answered), "the pipeline must answer some questions of the grid, got none")
    wrong = [c for c in answered if c["correct"] != c["answered"]]
    check_claim(
        not wrong,
        f"the prover-backed pipeline must be exact on every question it parses; {len(wrong)} "
        f"cell(s) are not, first {wrong[0]['cell'] if wrong else None} with "
        f"{wrong[0]['correct'] if wrong else 0}/{wrong[0]['answered'] if wrong else 0} correct",
    )


def check_capped_at_chance(capped: Mapping, *, cap: int) -> None:
    """Every cell with depth <= cap: accuracy 1.0; every cell beyond: accuracy == chance."""
    beyond = [c for c in _cells(capped) if c["cell"]["depth"] > cap]
    within = [c for c in _cells(capped) if c["cell"]["depth"] <= cap]
    check_claim(bool(beyond), f"the grid must hold depths beyond the cap {cap} to test it")
    off = [c for c in beyond if c["chance"] is None or abs(c["accuracy"] - c["chance"]) > _EPS]
    check_claim(
        not off,
        f"the depth-capped reasoner (cap {cap}) must score chance in every cell beyond its cap; "
        f"{len(off)} cell(s) do not, first {off[0]['cell'] if off else None}: accuracy "
        f"{off[0]['accuracy'] if off else None} vs chance {off[0]['chance'] if off else None}",
    )
    missed = [c for c in within if c["accuracy"] != 1.0]
    check_claim(
        not missed,
        f"the depth-capped reasoner (cap {cap}) must be exact up to its cap; {len(missed)} "
        f"cell(s) are not, first {missed[0]['cell'] if missed else None}",
    )


def _accuracy(cells: list[dict]) -> float:
    n = sum(c["n"] for c in cells)
    return sum(c["correct"] for c in cells) / n


def check_distractors_move_soft_not_prover(
    soft: Mapping, pipeline: Mapping, *, max_depth: int, drop_min: float
) -> dict[str, float]:
    """The soft reasoner's drop from the fewest to the most distractors at depths <= max_depth
    is >= ``drop_min``; the pipeline's accuracy on answered questions is 1.0 at every distractor
    level.  Returns the numbers checked."""
    levels = [c["cell"]["distractors"] for c in _cells(soft)]
    check_claim(
        len(set(levels)) >= 2, "the grid must hold two distractor levels or more to test them"
    )
    lo, hi = min(levels), max(levels)
    shallow = [c for c in _cells(soft) if c["cell"]["depth"] <= max_depth]
    check_claim(bool(shallow), f"the grid must hold depths <= {max_depth} (the soft reasoner's)")
    clean = _accuracy([c for c in shallow if c["cell"]["distractors"] == lo])
    busy = _accuracy([c for c in shallow if c["cell"]["distractors"] == hi])
    check_claim(
        clean - busy >= drop_min,
        f"distractors must move the soft reasoner: at depths <= {max_depth} its accuracy must "
        f"drop by >= {drop_min} from {lo} to {hi} distractors per hop, got {clean:.4f} -> "
        f"{busy:.4f}",
    )
    per_level = pipeline["per_axis"]["distractors"]
    for level, stats in per_level.items():
        check_claim(
            stats["answered"] > 0 and stats["accuracy_answered"] == 1.0,
            f"distractors must not move the prover: the pipeline's accuracy on answered "
            f"questions must be 1.0 at {level} distractors per hop, got "
            f"{stats['accuracy_answered']} on {stats['answered']} answered",
        )
    return {"soft_clean": clean, "soft_busy": busy, "soft_drop": clean - busy}


def check_claims(scores: Mapping[str, Mapping], axes_params: Mapping) -> dict[str, float]:
    """The three claims on a :class:`~nesybench.axes.benchmark.BenchmarkRun`'s scores."""
    grid = axes_params["grid"]
    check_pipeline_exact(scores["pipeline"])
    check_capped_at_chance(scores["depth_capped"], cap=grid["depth_cap"])
    return check_distractors_move_soft_not_prover(
        scores["soft_reasoner"],
        scores["pipeline"],
        max_depth=axes_params["soft_reasoner"]["train_max_depth"],
        drop_min=grid["claims"]["soft_distractor_drop_min"],
    )
