"""The count from the small label class: the enumeration oracle at small k, metamorphic
relations at large k, the dispatcher's choice and its memory refusal."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.counting import (
    CountingTask,
    count_disentangled,
    inputsweep,
    optima,
    smallclass,
    support_states,
)
from nesybench.counting.search import MemoryTooLarge, SearchTooLarge, _Budget
from nesybench.logic import TableKnowledge, all_states, make_knowledge, state_str, states_index
from nesybench.seeds import child_rng
from nesybench.shortcuts.tasks import random_3cnf

from .test_search import _renamed, random_cnf


def _random_task(seed: int) -> CountingTask:
    """A random binary task (k <= 5): a random CNF or a small class of random points, on a
    random support."""
    rng = child_rng(seed, "test-smallclass")
    k = int(rng.integers(1, 6))
    names = [state_str(row) for row in all_states(k)]
    if rng.integers(0, 2):
        knowledge = make_knowledge(random_cnf(k, int(rng.integers(1, 5 * k)), seed), k)
    else:
        codes = np.zeros(2**k, dtype=np.int64)
        codes[rng.choice(2**k, size=int(rng.integers(0, min(4, 2**k) + 1)), replace=False)] = 1
        knowledge = TableKnowledge((2,) * k, codes, ("out", "in"))
    support = rng.choice(names, size=int(rng.integers(1, 2**k + 1)), replace=False)
    return CountingTask(knowledge, tuple(str(s) for s in support))


def _applies(task: CountingTask) -> bool:
    codes = task.knowledge.labels(all_states(task.k))
    observed = states_index(task.observed_rows(), task.domains)
    return smallclass.applies(codes, task.domains, observed, task.pinned_mask())


def test_small_class_count_equals_enumeration():
    checked = 0
    for seed in range(70):
        task = _random_task(seed)
        if not _applies(task):
            continue
        for fixed in (False, True):
            got = smallclass.disentangled_small_class(
                task.knowledge.labels(all_states(task.k)),
                task.k,
                states_index(task.observed_rows(), task.domains),
                fixed_permutation=fixed,
                budget=_Budget(None, "count", "o"),
            )
            oracle = count_disentangled(task, fixed_permutation=fixed, method="enumerate")
            assert got.n_pairs == oracle.n_opt, seed
            if oracle.n_distinct is not None:  # listed when the maps fit the enumeration
                assert got.n_distinct == oracle.n_distinct, seed
                checked += 1
    assert checked >= 40  # most random tasks have an observed state in the small class


def test_applies_declines_what_it_cannot_count():
    k = 4
    parity = make_knowledge("xor", k)  # two classes of 8: none small, but both within the limit
    codes = parity.labels(all_states(k))
    assert smallclass.applies(codes, (2,) * k, np.array([0, 3]), None)
    assert not smallclass.applies(codes, (2,) * k, np.array([0, 3]), np.array([True, False]))
    assert not smallclass.applies(codes, (3,) * k, np.array([0]), None)
    assert not smallclass.applies(np.arange(16) % 3, (2,) * k, np.array([0]), None)
    two_points = np.zeros(16, dtype=np.int64)
    two_points[[5, 9]] = 1
    assert smallclass.applies(two_points, (2,) * k, np.array([0, 3]), None)  # the closed form
    assert smallclass.two_point_closed_form(two_points, np.array([0, 3]))
    assert smallclass.applies(two_points, (2,) * k, np.array([0, 9]), None)
    assert not smallclass.two_point_closed_form(two_points, np.array([0, 9]))  # anchored
    three_points = two_points.copy()
    three_points[12] = 1
    assert not smallclass.applies(three_points, (2,) * k, np.array([0, 3]), None)  # none seen


def _two_point_task(rng, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels with a class of two random points and a random support outside it."""
    codes = np.zeros(2**k, dtype=np.int64)
    codes[rng.choice(2**k, size=2, replace=False)] = 1
    others = np.flatnonzero(codes == 0)
    seen = rng.choice(others, size=int(rng.integers(1, len(others) + 1)), replace=False)
    return codes, np.sort(seen)


def test_two_point_closed_form_equals_enumeration():
    """Two points in the small class and none observed: the transform of the subcube table
    (module docstring) against the enumeration oracle, pairs and distinct maps, free and fixed
    permutation."""
    rng = child_rng(0, "test-smallclass-two-points")
    names = {k: [state_str(row) for row in all_states(k)] for k in range(3, 7)}
    distinct_checked = 0
    for _ in range(30):
        k = int(rng.integers(3, 7))  # k >= 3: two points are the smaller class
        codes, seen = _two_point_task(rng, k)
        task = CountingTask(
            TableKnowledge((2,) * k, codes, ("out", "in")), tuple(names[k][i] for i in seen)
        )
        observed = states_index(task.observed_rows(), task.domains)
        assert smallclass.two_point_closed_form(codes, observed)
        for fixed in (False, True):
            got = smallclass.disentangled_small_class(
                codes, k, observed, fixed_permutation=fixed, budget=_Budget(None, "count", "o")
            )
            oracle = count_disentangled(task, fixed_permutation=fixed, method="enumerate")
            assert got.n_pairs == oracle.n_opt
            if oracle.n_distinct is not None:  # listed when the maps fit the enumeration
                assert got.n_distinct == oracle.n_distinct
                distinct_checked += 1
    assert distinct_checked >= 15


def test_two_point_closed_form_equals_the_search_beyond_the_oracle():
    """k = 7, 8: the search over (pi(j), f_j) certifies the closed form where enumerating the
    4^k k! pairs would not finish."""
    from nesybench.counting.search import disentangled_search

    rng = child_rng(1, "test-smallclass-two-points")
    for k in (7, 8):
        codes, seen = _two_point_task(rng, k)
        seen = seen[: max(1, len(seen) // 8)]  # sparse: what the closed form is for
        for fixed in (False, True):
            got = smallclass.disentangled_small_class(
                codes, k, seen, fixed_permutation=fixed, budget=_Budget(None, "count", "o")
            )
            ref = disentangled_search(codes, (2,) * k, seen, fixed_permutation=fixed)
            assert (got.n_pairs, got.n_distinct) == (ref.n_pairs, ref.n_distinct)


def test_the_dispatcher_counts_two_unobserved_points_in_closed_form():
    """A 3-CNF of the benchmark's kind with two models, none observed (k = 14, 1%): the
    closed form answers (the search passes any budget there)."""
    k = 14
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(6, "bench-sparse", k))
    assert int(knowledge.labels(all_states(k)).sum()) == 2
    task = CountingTask(knowledge, support_states(k, 0.01, seed=6))
    got = count_disentangled(task)
    assert got.engine == optima.CLOSED_FORM_ENGINE and got.exact
    perm = [int(v) for v in child_rng(4, "test-meta-perm", k).permutation(k)]
    other = count_disentangled(_renamed(task, perm, {2, 5}))
    assert (other.n_opt, other.n_distinct) == (got.n_opt, got.n_distinct)


def test_dispatcher_tries_the_small_class_the_sweep_then_the_search(monkeypatch):
    names = [state_str(row) for row in all_states(5)]
    task = CountingTask(make_knowledge("x1 & x2 & x3", 5), tuple(names[::3]) + ("11111",))
    first = count_disentangled(task)  # answered inside its trial
    assert first.engine == optima.SMALL_CLASS_ENGINE and first.subproblems > 1
    monkeypatch.setattr(optima, "TRIAL", 1)  # a trial of one sub-problem: the sweep answers
    monkeypatch.setattr(smallclass, "work_floor", lambda k: 0)
    second = count_disentangled(task)
    assert second.engine == optima.INPUT_SWEEP_ENGINE
    assert (second.n_opt, second.n_distinct) == (first.n_opt, first.n_distinct)
    monkeypatch.setattr(inputsweep, "applies", lambda *args: False)  # then the search
    third = count_disentangled(task)
    assert third.engine == optima.SEARCH_ENGINE
    assert (third.n_opt, third.n_distinct) == (first.n_opt, first.n_distinct)
    with pytest.raises(SearchTooLarge, match="--fallback ganak"):  # every engine past 1
        count_disentangled(task, max_subproblems=1)


@pytest.mark.parametrize(("k", "narrow"), [(12, False), (14, True), (16, True)])
def test_the_trial_is_kept_for_narrow_classes(k, narrow):
    """The benchmark's 3-CNFs: k = 12 has six models over 11 of 12 outputs (the search goes
    first, as before), k = 14 eleven over 6, k = 16 one (the closed form or a zero span)."""
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, 1.0, seed=0))
    codes = knowledge.labels(all_states(k))
    observed = states_index(task.observed_rows(), task.domains)
    assert smallclass.applies(codes, task.domains, observed, None)
    assert smallclass.narrow(codes, observed) is narrow


def test_parity_is_not_a_small_class():
    """k-bit parity's classes have 2^(k-1) points: the small-class count declines (it ran one
    anchored search per point, 0.25 s -> 335 s at k = 12 on one observed state)."""
    codes = make_knowledge("xor", 12).labels(all_states(12))
    assert not smallclass.applies(codes, (2,) * 12, np.array([0]), None)
    result = count_disentangled(CountingTask(make_knowledge("xor", 12), ("0" * 12,)))
    assert result.engine == optima.SEARCH_ENGINE


def test_memory_limit_refuses_before_the_subcube_table():
    k = 16
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, 1.0, seed=0))
    codes = knowledge.labels(all_states(k))
    observed = states_index(task.observed_rows(), task.domains)
    budget = _Budget(None, "count", "o", memory_limit=40 * 2**20, memory_option="--max-memory")
    with pytest.raises(MemoryTooLarge, match=r"\d+ MB .*3\^16 subcubes.*--max-memory"):
        smallclass.disentangled_small_class(codes, k, observed, budget=budget)
    assert budget.held > budget.memory_limit  # refused on the estimate, before allocating
    assert smallclass.memory_estimate(k) > 40 * 2**20  # so the dispatcher does not choose it


def test_two_point_closed_form_charges_its_transformed_table_first():
    """k = 16, two models, none observed: under 300 MB the table of subcubes fits but its
    transform does not, and the count stops before allocating it."""
    k = 16
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(3, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, 0.01, seed=3))
    codes = knowledge.labels(all_states(k))
    observed = states_index(task.observed_rows(), task.domains)
    assert smallclass.two_point_closed_form(codes, observed)
    limit = 300 * 2**20
    budget = _Budget(None, "count", "o", memory_limit=limit, memory_option="--max-memory")
    with pytest.raises(MemoryTooLarge, match=r"transformed subcube table.*--max-memory"):
        smallclass.disentangled_small_class(codes, k, observed, budget=budget)
    assert smallclass.memory_estimate(k) < limit < smallclass.memory_estimate(k, True)


def _clauses_permuted(task: CountingTask, seed: int) -> CountingTask:
    """The same task with the CNF's clauses in another order."""
    clauses = task.knowledge.spec.split(" & ")
    order = child_rng(seed, "test-meta-clauses", len(clauses)).permutation(len(clauses))
    spec = " & ".join(clauses[int(i)] for i in order)
    return CountingTask(make_knowledge(spec, task.k), task.support)


@pytest.mark.parametrize(
    ("k", "frac"), [(14, 1.0), (16, 0.01), pytest.param(16, 0.5, marks=pytest.mark.slow)]
)
def test_large_k_counts_survive_renaming_negating_and_permuting_clauses(k, frac):
    """Metamorphic checks where no oracle reaches: renaming the concepts, negating some and
    reordering the clauses give the same counts.  A budget of 48,000 sub-problems keeps the
    small-class count's share short."""
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, frac, seed=0))
    base = count_disentangled(task)
    assert base.n_opt > 0 and base.exact
    perm = [int(v) for v in child_rng(2, "test-meta-perm", k).permutation(k)]
    variants = (_renamed(task, perm, {0}), _clauses_permuted(_renamed(task, perm, {1, k - 1}), 3))
    for other in variants:
        got = count_disentangled(other)
        assert (got.n_opt, got.n_distinct) == (base.n_opt, base.n_distinct)
