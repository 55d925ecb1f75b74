"""The nli tables: per-seed builders and the distribution over seeds (closed forms)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.nli.scoring import folio_per_label, score_folio, score_prontoqa
from nesybench.nli.summaries import (
    DIST_COLUMNS,
    SEED_METRICS,
    corpora,
    depth_mix_table,
    label_mix_table,
    metric_trap_table,
    over_seeds,
    per_depth_metrics,
    per_depth_plot,
    per_depth_table,
    seed_summary,
    stack_seeds,
    worked_example,
)
from nesybench.params import load_params
from nesybench.sweep import bootstrap_mean_interval

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def params() -> dict:
    return load_params(REPO / "params.yaml")["nli"]


@pytest.fixture(scope="module")
def seed0(params):
    pronto, folio = corpora(params, seed=0)
    pdf = pd.DataFrame([e.as_record() for e in pronto])
    fdf = pd.DataFrame([e.as_record() for e in folio])
    traces = score_prontoqa(pronto, cap=params["prontoqa"]["greedy_cap"])
    return pronto, pdf, fdf, traces


def test_over_seeds_matches_the_closed_forms():
    frame = pd.DataFrame(
        {
            "seed": [0, 1, 2, 0, 1, 2],
            "system": ["a", "a", "a", "b", "b", "b"],
            "acc": [0.2, 0.4, 0.9, 1.0, np.nan, 0.5],
        }
    )
    out = over_seeds(frame, keys=["system"], values=["acc"]).set_index("system")
    assert list(out.reset_index().columns) == ["system", *DIST_COLUMNS]
    a = np.array([0.2, 0.4, 0.9])
    assert out.loc["a", "mean"] == pytest.approx(a.mean())
    assert out.loc["a", "sd"] == pytest.approx(a.std(ddof=1))
    assert (out.loc["a", "min"], out.loc["a", "max"], out.loc["a", "n_seeds"]) == (0.2, 0.9, 3)
    assert (out.loc["a", "lo"], out.loc["a", "hi"]) == bootstrap_mean_interval(a, name="a:acc")
    # a NaN (not applicable on that seed) is left out of the statistics and of n_seeds
    assert out.loc["b", "mean"] == pytest.approx(0.75) and out.loc["b", "n_seeds"] == 2


def test_over_seeds_all_nan_gives_nan_statistics_and_zero_seeds():
    frame = pd.DataFrame({"seed": [0, 1], "k": ["x", "x"], "v": [np.nan, np.nan]})
    row = over_seeds(frame, keys=["k"], values=["v"]).iloc[0]
    assert np.isnan(row["mean"]) and row["n_seeds"] == 0


def test_over_seeds_single_seed_has_a_degenerate_interval():
    frame = pd.DataFrame({"seed": [0], "k": ["x"], "v": [0.3]})
    row = over_seeds(frame, keys=["k"], values=["v"]).iloc[0]
    assert (row["mean"], row["sd"], row["lo"], row["hi"]) == (0.3, 0.0, 0.3, 0.3)


def test_over_seeds_names_a_missing_column():
    with pytest.raises(InputError, match="missing column 'seed'"):
        over_seeds(pd.DataFrame({"k": [1]}), keys=["k"], values=[])


def test_stack_seeds_orders_by_seed_and_replaces_the_seed_column():
    frames = {2: pd.DataFrame({"seed": [9], "x": [1]}), 0: pd.DataFrame({"x": [5]})}
    out = stack_seeds(frames)
    assert out.to_dict("list") == {"seed": [0, 2], "x": [5, 1]}


def test_corpora_are_a_function_of_the_seed(params):
    a, b = corpora(params, seed=4), corpora(params, seed=4)
    assert [e.context for e in a[0]] == [e.context for e in b[0]]
    assert [e.context for e in a[1]] == [e.context for e in b[1]]
    c = corpora(params, seed=5)
    assert [e.context for e in a[0]] != [e.context for e in c[0]]


def test_label_and_depth_mix_count_every_example(seed0):
    _, pdf, fdf, _ = seed0
    mix = label_mix_table(pdf, fdf)
    for dataset, df in (("prontoqa", pdf), ("folio", fdf)):
        rows = mix[mix["dataset"] == dataset]
        assert rows["n"].sum() == len(df) and rows["frac"].sum() == pytest.approx(1.0)
    depth = depth_mix_table(pdf, fdf)
    pq = depth[depth["dataset"] == "prontoqa"]
    assert pq["n_corrupted"].sum() == pdf["is_corrupted"].sum()
    assert depth[depth["dataset"] == "folio"]["n"].sum() == len(fdf)


def test_seed_summary_identities(seed0):
    pronto, pdf, fdf, traces = seed0
    per_depth = per_depth_table(traces)
    table = folio_per_label(score_folio(fdf))
    row = seed_summary(0, traces, per_depth, table, pronto=pdf, folio=fdf).iloc[0]
    assert set(row.index) == {"seed", *(m.name for m in SEED_METRICS)}
    trap = metric_trap_table(traces).set_index("system")
    assert row["label_gap"] == pytest.approx(
        trap.loc["greedy", "label_acc"] - trap.loc["translate-then-prove", "label_acc"]
    )
    assert row["proof_gap"] == pytest.approx(
        trap.loc["translate-then-prove", "proof_acc"] - trap.loc["greedy", "proof_acc"]
    )
    deep = per_depth[per_depth["hops"] == 5].set_index("system")["label_acc"]
    assert row["deep_label_gap"] == pytest.approx(deep["greedy"] - deep["translate-then-prove"])
    assert row["prontoqa_corrupted_frac"] == pytest.approx(
        sum(e.corrupted >= 0 for e in pronto) / len(pronto)
    )


def test_worked_example_follows_its_rule(seed0):
    pronto, _, _, traces = seed0
    rows, text, meta = worked_example(pronto, traces, hops=3)
    ex = next(e for e in pronto if e.id == meta["example_id"])
    # On a clean 3-hop example both systems are right and only greedy's trace is not strict
    # (asserted per seed), so the rule picks the first clean 3-hop example by id.
    assert ex.id == min(e.id for e in pronto if e.hops == 3 and e.corrupted < 0)
    t = traces[traces["id"] == ex.id].set_index("system")
    assert t["correct"].all() and t.loc["translate-then-prove", "strict"]
    assert not t.loc["greedy", "strict"]
    assert text["text"].iloc[-1] == f"(gold label: {ex.gold_label})"
    assert set(rows["system"]) == {"translate-then-prove", "greedy"}


def test_per_depth_plot_and_metrics_from_the_distribution():
    dist = pd.DataFrame(
        {
            "system": ["greedy", "greedy", "translate-then-prove", "translate-then-prove"],
            "hops": [1, 1, 1, 1],
            "metric": ["label_acc", "proof_acc", "label_acc", "abstention"],
            "mean": [1.0, 0.5, 0.7, 0.3],
            "sd": [0.0] * 4,
            "lo": [1.0, 0.4, 0.6, 0.2],
            "hi": [1.0, 0.6, 0.8, 0.4],
            "min": [1.0, 0.4, 0.6, 0.2],
            "max": [1.0, 0.6, 0.8, 0.4],
            "n_seeds": [3] * 4,
        }
    )
    plot = per_depth_plot(dist)
    assert plot.columns[0] == "hops" and plot.loc[0, "greedy_proof_acc_lo"] == 0.4
    assert "pipeline_abstention" not in plot.columns
    m = per_depth_metrics(dist)
    assert m["per_depth.h1.pipeline.label_accuracy.mean"] == 0.7
    assert m["per_depth.h1.greedy.proof_accuracy.n_seeds"] == 3
    assert not any("abstention" in k for k in m)
