"""Seed sweeps: distributions, claim rates, the exhibit seed, the flat metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nesybench.errors import ClaimFailed, InputError
from nesybench.metrics.stats import wilson_interval
from nesybench.sweep import (
    Metric,
    SeedClaim,
    bootstrap_mean_interval,
    check_claims,
    claim_table,
    describe_exhibit,
    distribution_table,
    pick_exhibit,
    sweep_metrics,
)

SUMMARY = pd.DataFrame(
    {
        "seed": [0, 1, 2, 3, 4],
        "x": [0.1, 0.4, 0.2, 0.5, 0.3],
        "good": [True, True, False, True, True],
    }
)
CLAIMS = (SeedClaim("good", "x is good", metric="x"),)


def test_distribution_table_is_the_mean_sd_and_a_bootstrap_interval():
    dist = distribution_table(SUMMARY, [Metric("x", "the x")]).iloc[0]
    assert dist["mean"] == pytest.approx(0.3) and dist["sd"] == pytest.approx(
        np.std(SUMMARY["x"], ddof=1)
    )
    assert dist["lo"] <= 0.3 <= dist["hi"] and dist["min"] == 0.1 and dist["max"] == 0.5
    assert dist["n_seeds"] == 5
    # seeded by the metric's name: the same interval twice
    assert bootstrap_mean_interval(SUMMARY["x"].to_numpy(), name="x") == (dist["lo"], dist["hi"])


def test_claim_rates_use_wilson_and_enforcement_follows_params():
    table = claim_table(SUMMARY, CLAIMS, {"good": {"min_rate": 0.8, "enforce": True}})
    row = table.iloc[0]
    assert (row["holds_on"], row["n_seeds"], row["rate"]) == (4, 5, 0.8)
    assert (row["rate_lo"], row["rate_hi"]) == wilson_interval(4, 5)
    assert row["verdict"] == "holds (asserted)" and row["failing_seeds"] == "2"
    check_claims(table, where="t")  # holds: no exception
    strict = claim_table(SUMMARY, CLAIMS, {"good": {"min_rate": 0.9, "enforce": True}})
    with pytest.raises(ClaimFailed, match="holds on 4 of 5 seeds .80%., below the declared 90%"):
        check_claims(strict, where="t")
    finding = claim_table(SUMMARY, CLAIMS, {"good": {"min_rate": 0.9, "enforce": False}})
    check_claims(finding, where="t")  # reported, not enforced
    assert finding.iloc[0]["verdict"] == "finding: below the chapter's claim"


def test_pick_exhibit_rules_and_ranks():
    assert pick_exhibit(SUMMARY, metric="x")["seed"] == 4  # median 0.3
    assert pick_exhibit(SUMMARY, metric="x", rule="min") == {
        "seed": 0,
        "rank": 1,
        "n_seeds": 5,
        "value": 0.1,
        "rule": "min",
        "metric": "x",
    }
    assert pick_exhibit(SUMMARY, metric="x", rule="max")["seed"] == 3
    first = pick_exhibit(SUMMARY, metric="x", rule="first")
    assert first["seed"] == 0 and first["rank"] == 1
    assert "seed 4: the median x over 5 seeds (rank 3 of 5" in describe_exhibit(
        pick_exhibit(SUMMARY, metric="x")
    )
    with pytest.raises(InputError, match="exhibit rule"):
        pick_exhibit(SUMMARY, metric="x", rule="best")


def test_sweep_metrics_are_flat_and_name_the_claim_rate_after_its_metric():
    dist = distribution_table(SUMMARY, [Metric("x", "the x")])
    claims = claim_table(SUMMARY, CLAIMS, {"good": {"min_rate": 0.8, "enforce": False}})
    metrics = sweep_metrics(dist, claims, CLAIMS)
    assert set(metrics) == {"x.mean", "x.lo", "x.hi", "x.n_seeds", "x.claim_rate"}
    assert metrics["x.claim_rate"] == 0.8


def test_bad_summaries_are_input_errors():
    with pytest.raises(InputError, match="seed appears twice"):
        distribution_table(pd.concat([SUMMARY, SUMMARY]), [Metric("x", "x")])
    with pytest.raises(InputError, match="missing column 'y'"):
        distribution_table(SUMMARY, [Metric("y", "y")])
    with pytest.raises(InputError, match="thresholds must hold every claim's entry .*'good'"):
        claim_table(SUMMARY, CLAIMS, {})
