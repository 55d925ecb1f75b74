"""The axes tables: over-seed summaries, the seed summary, the profile in declared order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nesybench.axes.summaries import (
    SEED_METRICS,
    depth_mix,
    design_frame,
    design_metrics,
    mixture_tables,
    over_seeds,
    profile_wide,
    seed_summary,
)


def test_over_seeds_mean_sd_and_interval_per_group():
    frames = {
        0: pd.DataFrame({"g": ["a", "b"], "v": [0.2, 1.0]}),
        1: pd.DataFrame({"g": ["a", "b"], "v": [0.4, 1.0]}),
        2: pd.DataFrame({"g": ["a", "b"], "v": [0.6, np.nan]}),
    }
    out = over_seeds(frames, ["g"], "v").set_index("g")
    assert out.loc["a", "mean"] == pytest.approx(0.4)
    assert out.loc["a", "sd"] == pytest.approx(0.2)  # ddof = 1
    assert out.loc["a", "lo"] >= 0.2 and out.loc["a", "hi"] <= 0.6
    assert out.loc["a", "n_seeds"] == 3
    # a constant value: the interval collapses; a NaN seed is left out
    b = out.loc["b"]
    assert (b["mean"], b["lo"], b["hi"], b["n_seeds"]) == (1.0, 1.0, 1.0, 2)
    assert list(out.index) == ["a", "b"]  # groups keep their first order


def test_over_seeds_is_deterministic_and_ignores_the_order_of_seeds():
    frames = {s: pd.DataFrame({"g": ["a"], "v": [s / 10]}) for s in range(5)}
    one = over_seeds(frames, ["g"], "v")
    two = over_seeds(dict(reversed(list(frames.items()))), ["g"], "v")
    assert one.equals(two)


def test_profile_wide_keeps_declared_axis_and_level_order():
    rows = [
        {"system": s, "axis": axis, "order": i, "level": level, "mean": m}
        for s, m in (("soft_reasoner", 0.5), ("pipeline", 1.0))
        for axis, levels in (("vocabulary", ["8", "32"]), ("depth", ["0", "10", "2"]), ("x", ["a"]))
        for i, level in enumerate(levels)
    ]
    wide = profile_wide(pd.DataFrame(rows))
    # the grid's axes in their declared order (depth first), then any other axis
    assert wide["axis"].tolist() == ["depth"] * 3 + ["vocabulary"] * 2 + ["x"]
    assert wide["level"].tolist() == ["0", "10", "2", "8", "32", "a"]
    assert list(wide.columns) == ["axis", "level", "soft_reasoner", "pipeline"]


def test_seed_summary_has_every_metric_and_refuses_a_missing_one():
    numbers = {m.name: 0.5 for m in SEED_METRICS}
    table = seed_summary(3, numbers, {"extra": 1.0})
    assert table.columns.tolist() == ["seed", *[m.name for m in SEED_METRICS]]
    assert table["seed"].tolist() == [3]
    numbers.pop("grid_soft_busy")
    with pytest.raises(KeyError, match="grid_soft_busy"):
        seed_summary(3, numbers)


def test_depth_mix_is_n_over_total_per_split():
    questions = pd.DataFrame({"split": ["eval"] * 4 + ["train"] * 2, "depth": [0, 0, 0, 1, 0, 1]})
    mix = depth_mix(questions)
    ev = mix[mix["split"] == "eval"]
    assert ev["n"].tolist() == [3, 1] and ev["pi"].tolist() == [0.75, 0.25]


def test_design_metrics_are_the_chapters_numbers():
    design = design_frame({"axes": 7, "levels": 3, "half_width": 0.05, "p": 0.5, "z": 1.96})
    assert design_metrics(design) == {
        "ofat_cells": 15,
        "factorial_cells": 2187,
        "questions_per_cell": 385,
        "questions_total": 841_995,
    }


def test_mixture_tables_count_winners_and_ties():
    per_depth = pd.DataFrame(
        {"depth": [0, 1], "n": [10, 10], "soft_reasoner": [1.0, 0.5], "overall": [0.8, 0.9]}
    )
    table, numbers, ties = mixture_tables(per_depth)
    assert numbers["mixture_soft_first"] == 1 and numbers["mixture_pipeline_first"] == 1
    assert numbers["mixture_n_ties"] == 1
    assert numbers["mixture_tie_01_pi0"] == pytest.approx(2 / 3)
    assert numbers["mixture_aggregate_soft"] == pytest.approx(0.75)
    assert set(table["kind"]) == {"tie", "pure"} and len(ties) == 1
