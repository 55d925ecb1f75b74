"""Categorical concepts: the three families against literal enumeration and closed forms."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nesybench.counting import (
    CountingTask,
    class_sizes,
    count_disentangled,
    count_joint,
    count_optima,
    count_shared,
    enumerate_disentangled,
    enumerate_joint,
    enumerate_joint_images,
    enumerate_shared,
)
from nesybench.counting.bypermutation import disentangled_by_permutation
from nesybench.counting.search import disentangled_search, shared_search
from nesybench.errors import InputError
from nesybench.logic import (
    SumKnowledge,
    TableKnowledge,
    all_states,
    make_knowledge,
    state_str,
    states_index,
)

EVEN_ODD = [
    "0:6", "6:0", "2:8", "8:2", "4:6", "6:4", "4:8", "8:4",
    "1:5", "5:1", "3:7", "7:3", "1:9", "9:1", "3:9", "9:3",
]  # fmt: skip

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, equal_domains: bool = False):
    """A random labelled task: k <= 3 concepts, domains 2..3, labels, support, supervision."""
    k = draw(st.integers(1, 3))
    if equal_domains:
        dims = (draw(st.integers(2, 3)),) * k
    else:
        dims = tuple(draw(st.lists(st.integers(2, 3), min_size=k, max_size=k)))
    n = math.prod(dims)
    n_labels = draw(st.integers(1, 4))
    labels = draw(st.lists(st.integers(0, n_labels - 1), min_size=n, max_size=n))
    names = [state_str(row, dims) for row in all_states(dims)]
    support = draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(n, 5), unique=True))
    supervised = draw(st.lists(st.sampled_from(support), max_size=2, unique=True))
    return CountingTask(TableKnowledge.from_labels(dims, labels), tuple(support), tuple(supervised))


# ---- the three families against enumeration -------------------------------------


@PROPERTY
@given(tables())
def test_count_joint_matches_enumeration(task):
    assume(task.n_states ** len(task.support) <= 100_000)  # image tuples checked one by one
    expected = enumerate_joint_images(task.knowledge, task.support, supervised=task.supervised)
    assert count_joint(task).n_opt == expected
    if task.n_states <= 4:  # every map G -> G, one by one
        assert enumerate_joint(task.knowledge, task.support, supervised=task.supervised) == expected


@PROPERTY
@given(tables(), st.booleans())
def test_count_disentangled_matches_enumeration(task, fixed):
    pairs, distinct = enumerate_disentangled(
        task.knowledge,
        task.support,
        supervised=task.supervised,
        fixed_permutation=fixed,
        distinct=True,
    )
    result = count_disentangled(task, fixed_permutation=fixed)
    assert (result.n_opt, result.n_distinct) == (pairs, distinct)


@PROPERTY
@given(tables(), st.booleans())
def test_both_disentangled_engines_match_enumeration(task, fixed):
    """The search with shared sub-problems and the per-permutation component search, directly."""
    pairs, distinct = enumerate_disentangled(
        task.knowledge,
        task.support,
        supervised=task.supervised,
        fixed_permutation=fixed,
        distinct=True,
    )
    codes = task.knowledge.codes
    rows = task.observed_rows()
    pinned = task.pinned_mask()
    found = disentangled_search(
        codes,
        task.domains,
        states_index(rows, task.domains),
        pinned=pinned,
        fixed_permutation=fixed,
    )
    assert (found.n_pairs, found.n_distinct) == (pairs, distinct)
    by_perm = disentangled_by_permutation(
        codes, task.domains, rows, pinned=pinned, fixed_permutation=fixed
    )
    assert by_perm[:2] == (pairs, distinct)


@PROPERTY
@given(tables(equal_domains=True))
def test_count_shared_matches_enumeration(task):
    expected = enumerate_shared(task.knowledge, task.support, supervised=task.supervised)
    assert count_shared(task).n_opt == expected == count_shared(task).n_distinct


@PROPERTY
@given(tables(equal_domains=True))
def test_shared_optima_are_disentangled_optima(task):
    # pi = identity with f_j = f for every j is a disentangled pair: shared <= disentangled.
    assert count_shared(task).n_opt <= count_disentangled(task).n_opt


@PROPERTY
@given(tables())
def test_distinct_maps_sit_between_the_families(task):
    dis = count_disentangled(task)
    assert 1 <= dis.n_distinct <= dis.n_opt
    assert dis.n_distinct <= count_joint(task).n_opt  # every disentangled map is a joint map


def test_unshown_values_count_in_closed_form():
    # One observed state 0:0 of sum over two digits 0-9: f_j(0) is constrained, the other
    # nine values of each concept are free (10^9 maps each), in closed form.
    task = CountingTask(SumKnowledge((10, 10)), ["0:0"])
    result = count_disentangled(task)
    # pi in {id, swap}; f_1(0) + f_2(0) = 0 forces both to 0: 2 * 10^9 * 10^9 pairs
    assert result.n_opt == 2 * 10**18
    assert count_shared(task).n_opt == 10**9


# ---- closed forms: MNIST-Addition ---------------------------------------------


def test_mnist_addition_two_digits_full_support():
    task = CountingTask(make_knowledge("sum", (10, 10)))
    assert count_shared(task).n_opt == 1
    dis = count_disentangled(task)
    assert (dis.n_opt, dis.n_distinct) == (2, 2)  # the identity and the swap
    # joint: prod over sums s of c_s^c_s, c_s = min(s, 18 - s) + 1 pairs with sum s
    closed = math.prod((min(s, 18 - s) + 1) ** (min(s, 18 - s) + 1) for s in range(19))
    assert count_joint(task).n_opt == closed


def test_mnist_addition_three_digits_full_support():
    task = CountingTask(make_knowledge("sum", (10, 10, 10)))
    assert count_shared(task).n_opt == 1
    assert count_disentangled(task).n_opt == math.factorial(3)


def test_rsbench_even_odd_support_shared_closed_form():
    # f(4) = 10 - f(6), f(8) = 2 + f(6), f(2) = 8 - f(6), f(0) = 6 - f(6) with every value in
    # 0..9 leaves f(6) in 1..6; the odd digits likewise leave f(1) in 1..6: 6 * 6 maps.
    task = CountingTask(make_knowledge("sum", (10, 10)), EVEN_ODD)
    assert count_shared(task).n_opt == 36
    shared = shared_search(SumKnowledge((10, 10)).labels(all_states((10, 10))), 10, 2, [
        i for i, row in enumerate(all_states((10, 10))) if state_str(row, (10, 10)) in EVEN_ODD
    ])  # fmt: skip
    assert shared.n_pairs == 36


def test_both_engines_agree_on_mnist_supports():
    dims = (10, 10)
    grid = all_states(dims)
    codes = grid.sum(axis=1)
    for support in (EVEN_ODD, [state_str(r, dims) for r in grid if (r[0] - r[1]) % 2 == 0]):
        rows = np.array([[int(v) for v in s.split(":")] for s in support])
        found = disentangled_search(codes, dims, states_index(rows, dims))
        by_perm = disentangled_by_permutation(codes, dims, rows)
        assert (found.n_pairs, found.n_distinct) == by_perm[:2]


def test_class_sizes_of_sum_table_and_parity():
    assert class_sizes(SumKnowledge((10, 10))) == {s: min(s, 18 - s) + 1 for s in range(19)}
    assert class_sizes(make_knowledge("xor", 3)) == {0: 4, 1: 4}
    table = TableKnowledge.from_labels((2, 3), ["a", "b", "a", "a", "c", "b"])
    assert class_sizes(table) == {0: 3, 1: 2, 2: 1}


# ---- options and bad input ------------------------------------------------------


def test_shared_needs_equal_domains():
    task = CountingTask(make_knowledge("sum", (10, 3)), ["1:2"])
    with pytest.raises(InputError, match="needs equal domains, got \\[10, 3\\]"):
        count_shared(task)


def test_categorical_knowledge_refuses_binary_only_methods():
    task = CountingTask(make_knowledge("sum", (3, 3)), ["1:2"])
    with pytest.raises(InputError, match="method approx: model-counts a CNF encoding"):
        count_disentangled(task, method="approx")
    with pytest.raises(InputError, match="method exact: the encoding exists for binary"):
        count_joint(task, method="exact")


def test_search_tabulation_is_refused_with_the_size_and_the_option():
    task = CountingTask(make_knowledge("xor", 30), ["0" * 30])
    with pytest.raises(InputError, match=r"2\^30 = 1,073,741,824 states.*--max-states"):
        count_disentangled(task)


def test_search_budget_is_refused_with_the_option():
    task = CountingTask(make_knowledge("sum", (10, 10, 10)), ["0:0:1", "3:4:5", "9:9:8"])
    with pytest.raises(InputError, match="--max-subproblems N"):
        count_disentangled(task, max_subproblems=2)


def test_supervision_pins_categorical_states():
    task = CountingTask(make_knowledge("sum", (10, 10)))
    assert count_disentangled(task.with_supervised(["0:1"])).n_opt == 1  # the swap moves 0:1
    assert count_disentangled(task.with_supervised(["3:3"])).n_opt == 2  # it fixes 3:3


def test_count_optima_takes_a_task():
    task = CountingTask(make_knowledge("sum", (10, 10)), EVEN_ODD)
    assert count_optima(task, extractor="shared").n_opt == 36
    with pytest.raises(InputError, match="a CountingTask carries its own"):
        count_optima(task, ["0:6"], extractor="shared")


def test_enumeration_method_reports_distinct_maps():
    task = CountingTask(make_knowledge("xor", 2), ["00", "01", "10", "11"])
    enumerated = count_disentangled(task, method="enumerate")
    assert (enumerated.n_opt, enumerated.n_distinct) == (4, 4)
    one = CountingTask(make_knowledge("xor", 2), ["00"])
    pairs = count_disentangled(one, method="enumerate")
    # constant outputs collapse: (pi, f) pairs outnumber the maps they induce
    assert pairs.n_distinct < pairs.n_opt == count_disentangled(one).n_opt
    assert pairs.n_distinct == count_disentangled(one).n_distinct


def test_per_permutation_method_counts_pairs_only():
    task = CountingTask(make_knowledge("xor", 3), ["000", "011"])
    result = count_disentangled(task, method="permutations")
    assert result.n_opt == count_disentangled(task).n_opt
    assert result.n_distinct is None and "pairs only" in result.n_distinct_reason
    assert result.to_json()["n_distinct"] is None


def test_distinct_maps_by_hand_for_one_state():
    # K = x1 over two bits, one observed state 00 (label 0), pi in {id, swap}:
    # alpha must send 00 to a state with first bit 0: output 1 is f_1(g_pi(1)) with f_1(0) = 0.
    task = CountingTask(make_knowledge("(x1)", 2), ["00"])
    maps = set()
    for perm in itertools.permutations(range(2)):
        for f in itertools.product(itertools.product((0, 1), repeat=2), repeat=2):
            if f[0][0] != 0:
                continue
            image = tuple(
                tuple(f[j][g[perm[j]]] for j in range(2))
                for g in itertools.product((0, 1), repeat=2)
            )
            maps.add(image)
    assert count_disentangled(task).n_distinct == len(maps)
