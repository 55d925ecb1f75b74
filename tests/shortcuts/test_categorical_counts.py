"""The MNIST-Addition count tables: the numbers, their certification, and the claims that fail."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from nesybench.counting import CountingTask
from nesybench.errors import ClaimFailed, InputError
from nesybench.shortcuts import categorical_counts
from nesybench.shortcuts.categorical_counts import (
    RSBENCH_EVEN_ODD_PAIRS,
    categorical_count_tables,
    named_support,
)

REPO = Path(__file__).resolve().parents[2]


def default_params() -> dict:
    return yaml.safe_load((REPO / "params.yaml").read_text())["shortcuts"]["categorical"]


@pytest.fixture(scope="module")
def tables():
    return categorical_count_tables(default_params())


def _count(tables, support, extractor):
    row = tables.counts.set_index(["support", "extractor"]).loc[(support, extractor)]
    return row


def test_rsbench_even_odd_support_is_the_sixteen_listed_pairs():
    states = named_support("rsbench_evenodd", (10, 10))
    assert len(RSBENCH_EVEN_ODD_PAIRS) == 8 and len(states) == 16
    for a, b in RSBENCH_EVEN_ODD_PAIRS:
        assert f"{a}:{b}" in states and f"{b}:{a}" in states
        assert a % 2 == b % 2  # even-even or odd-odd: the bias of MNAdd-EvenOdd
    with pytest.raises(InputError, match="two digits 0-9"):
        named_support("rsbench_evenodd", (10, 10, 10))


def test_default_tables_closed_forms(tables):
    assert (
        _count(tables, "full", "shared")["n_opt"],
        _count(tables, "full", "disentangled")["n_opt"],
    ) == ("1", "2")
    assert _count(tables, "evenodd", "shared")["n_opt"] == "36"
    assert _count(tables, "evenodd", "disentangled")["n_opt"] == "2592"
    joint = math.prod((min(s, 18 - s) + 1) ** (min(s, 18 - s) + 1) for s in range(19))
    assert _count(tables, "full", "joint")["n_opt"] == str(joint)
    assert set(tables.counts["support"]) == {"full", "same_parity", "evenodd"}
    assert len(tables.counts) == 9


def test_every_row_is_certified(tables):
    for row in tables.counts.itertuples(index=False):
        assert row.certified_by, (row.support, row.extractor)
    assert "both_engines" in _count(tables, "evenodd", "disentangled")["certified_by"]
    assert "enumeration_by_component" in _count(tables, "same_parity", "shared")["certified_by"]


def test_plans_reach_the_identity_on_the_even_odd_support(tables):
    plans = tables.plans.set_index(["support", "extractor", "step"])
    assert plans.loc[("evenodd", "shared", 2), "n_opt"] == "1"
    assert list(tables.plans.columns) == categorical_counts.PLAN_COLUMNS
    assert (tables.plans["gap"].dropna() == "0").all()
    assert tables.metrics["categorical.mnadd2.evenodd.shared.n_opt"] == 36


def test_a_wrong_count_fails_a_claim(monkeypatch):
    # injected at the public counting engine the tables call (count_shared), not a private helper
    real = categorical_counts.count_shared

    def off_by_one(task: CountingTask):
        from dataclasses import replace

        result = real(task)
        return replace(result, n_opt=result.n_opt + 1, n_distinct=result.n_distinct + 1)

    monkeypatch.setattr(categorical_counts, "count_shared", off_by_one)
    params = {**default_params(), "extractors": ["shared"]}
    with pytest.raises(ClaimFailed, match="shared"):
        categorical_count_tables(params)


def test_explicit_support_lists_and_bad_states():
    params = {
        "extractors": ["shared", "disentangled"],
        "budget": 1,
        "tasks": {
            "mnadd2": {"knowledge": "sum", "domains": [10, 10], "supports": {"few": ["0:6", "6:0"]}}
        },
    }
    tables = categorical_count_tables(params)
    assert _count(tables, "few", "shared")["n_opt"] == str(7 * 10**8)  # f(0) + f(6) = 6
    bad = {**params, "tasks": {"t": {**params["tasks"]["mnadd2"], "supports": {"x": ["0:66"]}}}}
    with pytest.raises(InputError, match=r"out of range"):  # params.yaml names the key: load time
        categorical_count_tables(bad)


def test_three_digits_full_support():
    params = {
        "extractors": ["disentangled", "shared"],
        "budget": 1,
        "tasks": {
            "mnadd3": {"knowledge": "sum", "domains": [10, 10, 10], "supports": {"full": "all"}}
        },
    }
    tables = categorical_count_tables(params)
    assert _count(tables, "full", "disentangled")["n_opt"] == "6"
    assert _count(tables, "full", "shared")["n_opt"] == "1"
