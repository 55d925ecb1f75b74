"""Console tables of the nli stages: shapes the report shares."""

from __future__ import annotations

import pandas as pd

from nesybench.nli.printing import depth_display, interval_display, per_seed_counts


def test_per_seed_counts_fill_missing_cells_with_zero():
    table = pd.DataFrame(
        {"seed": [0, 0, 1], "dataset": ["f", "f", "f"], "depth": [1, 4, 1], "n": [3, 1, 5]}
    )
    out = per_seed_counts(table, ["dataset", "depth"])
    assert out.columns.tolist() == ["dataset", "depth", "seed 0", "seed 1"]
    assert out["seed 1"].tolist() == [5, 0] and out["seed 0"].dtype.kind == "i"


def test_interval_display_spells_mean_and_interval():
    dist = pd.DataFrame(
        {
            "system": ["a", "a"],
            "metric": ["label_acc", "proof_acc"],
            "mean": [0.5, 0.25],
            "lo": [0.4, 0.125],
            "hi": [0.6, 0.375],
        }
    )
    out = interval_display(dist, ["system"])
    assert out.to_dict("records") == [
        {"system": "a", "label_acc": "0.500 [0.400, 0.600]", "proof_acc": "0.250 [0.125, 0.375]"}
    ]


def test_depth_display_puts_both_systems_side_by_side():
    per_depth = pd.DataFrame(
        {
            "system": ["greedy", "translate-then-prove"],
            "hops": [3, 3],
            "label_acc": [1.0, 0.7],
            "proof_acc": [0.0, 0.7],
        }
    )
    row = depth_display(per_depth).iloc[0]
    assert (row["pipeline label"], row["greedy label"], row["greedy proof"]) == (0.7, 1.0, 0.0)
