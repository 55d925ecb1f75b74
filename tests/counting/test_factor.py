"""The structure-factoring layer: every rule against the engines on the same task listed whole."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nesybench.counting import (
    CountingTask,
    count_disentangled,
    count_joint,
    count_shared,
    plan_supervision,
)
from nesybench.counting.factor import (
    AllEqual,
    CountRefused,
    Outputs,
    Table,
    count_structure,
    plan_structure,
    split_support,
)
from nesybench.logic.knowledge import TableKnowledge
from nesybench.logic.states import all_states, state_str


def _listed(node, supervised=()) -> CountingTask:
    """The node as one knowledge table and support: what the engines count directly."""
    table = node.table()
    dims = table.domains
    grid = all_states(dims)
    support = None if table.support is None else [state_str(grid[i], dims) for i in table.support]
    knowledge = TableKnowledge(dims, table.codes, table.names)
    return CountingTask(knowledge, support, tuple(supervised))


def _random_table(rng, dims, n_labels, support_frac=1.0) -> Table:
    n = math.prod(dims)
    labels = rng.integers(0, n_labels, size=n).tolist()
    support = None if support_frac >= 1 else rng.random(n) < support_frac
    if support is not None and not support.any():
        support[0] = True
    return Table.from_labels(dims, labels, support=support)


def _pins(node, rng, n) -> list[str]:
    table = node.table()
    grid = all_states(table.domains)
    rows = grid if table.support is None else grid[table.support]
    pick = rng.choice(len(rows), size=min(n, len(rows)), replace=False)
    return [state_str(rows[i], table.domains) for i in sorted(pick.tolist())]


@pytest.mark.parametrize("seed", range(6))
def test_count_structure_outputs_disentangled_matches_the_listed_engine(seed):
    rng = np.random.default_rng(seed)
    node = Outputs(
        (_random_table(rng, (2, 2, 2), 3), _random_table(rng, (2, 2, 2), 2, support_frac=0.8))
    )
    pins = _pins(node, rng, seed % 3)
    got = count_structure(node, "disentangled", supervised=pins)
    want = count_disentangled(_listed(node, pins))
    assert (got.n_opt, got.n_distinct) == (want.n_opt, want.n_distinct)


def test_count_structure_outputs_uses_the_product_rule_only_when_every_concept_matters():
    # each part's label is its first concept; its second concept matters nowhere, so pi may
    # swap the two idle concepts across the parts: 2 x 4 x 4 pairs, not (4 per part)^2
    part = Table.from_labels((2, 2), [0, 0, 1, 1])
    node = Outputs((part, part))
    got = count_structure(node, "disentangled")
    want = count_disentangled(_listed(node))
    naive = count_disentangled(_listed(part)).n_opt ** 2
    assert (got.n_opt, naive) == (want.n_opt, 16) and want.n_opt == 32
    assert "product over independent outputs" not in got.engine


def test_count_structure_outputs_takes_one_constant_part():
    rng = np.random.default_rng(7)
    node = Outputs((_random_table(rng, (3, 3), 4), Table.from_labels((3, 3), [0] * 9)))
    got = count_structure(node, "disentangled")
    want = count_disentangled(_listed(node))
    assert (got.n_opt, got.n_distinct) == (want.n_opt, want.n_distinct)
    assert got.engine.startswith("product over independent outputs")


@pytest.mark.parametrize("seed", range(4))
def test_count_structure_joint_matches_the_engine_on_every_node_kind(seed):
    rng = np.random.default_rng(10 + seed)
    part = _random_table(rng, (2, 3), 3, support_frac=0.7)
    for node in (
        Outputs((part, _random_table(rng, (3, 2), 2))),
        AllEqual(part, 2),
        AllEqual(_random_table(rng, (2, 2), 3), 3),
    ):
        pins = _pins(node, rng, 2)
        got = count_structure(node, "joint", supervised=pins)
        want = count_joint(_listed(node, pins))
        assert got.n_opt == want.n_opt and got.log2_n_opt == pytest.approx(want.log2_n_opt)


def test_count_structure_joint_past_any_table_is_exact_factors():
    digits = Table.from_labels((10, 10), [a + b for a in range(10) for b in range(10)])
    node = Outputs((AllEqual(digits, 2), AllEqual(digits, 2)))  # 10^8 states
    result = count_structure(node, "joint")
    assert result.exact and result.n_opt is None and result.factors
    # label classes of one part: a + b = c + d on sum_s n_s^2 = 670 of its 10^4 states
    assert sum((min(s, 18 - s) + 1) ** 2 for s in range(19)) == 670
    per_part = [10**4 - 670, 670]
    sizes = {a * b for a in per_part for b in per_part}
    assert {b for b, _ in result.factors} == sizes
    assert sum(e for _, e in result.factors) == 10**8
    assert result.log2_n_opt == pytest.approx(sum(e * math.log2(b) for b, e in result.factors))


@pytest.mark.parametrize("seed", range(4))
def test_count_structure_shared_rules_match_the_engine(seed):
    rng = np.random.default_rng(20 + seed)
    binary = Outputs((_random_table(rng, (2, 2, 2), 3), _random_table(rng, (2, 2), 2)))
    same = _random_table(rng, (3, 3), 3)
    merged = Outputs((same, _random_table(rng, (3, 3), 2)))  # same concepts: one merged table
    pattern = AllEqual(_random_table(rng, (3, 3), 4), 3)  # 3 copies: the pattern rule
    for node in (binary, merged, pattern):
        pins = _pins(node, rng, seed % 2)
        got = count_structure(node, "shared", supervised=pins)
        want = count_shared(_listed(node, pins))
        assert got.n_opt == want.n_opt, node.describe()


def test_count_structure_shared_pattern_rule_is_used_past_a_table():
    part = Table.from_labels((3, 3), [a * 3 + b for a in range(3) for b in range(3)])
    node = AllEqual(part, 8)  # 3^16 states
    result = count_structure(node, "shared")
    assert result.n_opt == 6  # a map keeps every distinct pair of values apart: a bijection
    assert "maps checked" in result.engine


def test_split_support_keeps_products_structured_and_lists_the_rest():
    part = Table.from_labels((2, 2), [0, 1, 1, 0])
    node = Outputs((part, part))
    grid = all_states((2, 2))
    product = np.array([np.r_[a, b] for a in grid[:3] for b in grid[1:]])
    kept = split_support(node, product)
    assert isinstance(kept, Outputs) and kept.n_observed == 9
    assert count_structure(kept, "disentangled").n_opt == count_disentangled(_listed(kept)).n_opt
    listed = split_support(node, product[:-1])
    assert isinstance(listed, Table) and listed.n_observed == 8
    copies = split_support(AllEqual(part, 2), np.array([[0, 0, 0, 1], [0, 1, 0, 0]]))
    assert isinstance(copies, Table)  # the copies do not see the same states: no product


def test_count_structure_refuses_with_what_the_count_involves():
    part = Table.from_labels((3,) * 6, [v % 5 for v in range(3**6)])
    node = AllEqual(part, 3)  # 3^18 states, one rule over every concept
    with pytest.raises(CountRefused) as info:
        count_structure(node, "disentangled")
    message = str(info.value)
    assert "387,420,489 states" in message and "permutations" in message
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("seed", range(3))
def test_plan_structure_on_outputs_matches_the_plan_of_the_listed_task(seed):
    rng = np.random.default_rng(30 + seed)
    node = Outputs((_random_table(rng, (2, 2, 2), 3), _random_table(rng, (2, 2), 3)))
    listed = _listed(node)
    budget = 4
    got = plan_structure(node, budget)
    want = plan_supervision(listed, budget, extractor="disentangled", exact_max_subsets=0)
    assert got.n_opt == want.n_opt
    # each pick leaves the N_opt it claims
    for step, state in enumerate(got.picks, start=1):
        pinned = listed.with_supervised(got.picks[:step])
        assert count_disentangled(pinned).n_opt == got.n_opt[step], state
