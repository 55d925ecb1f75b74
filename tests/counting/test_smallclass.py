"""The count from the small label class: the enumeration oracle at small k, metamorphic
relations at large k, the dispatcher's choice and its memory refusal."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.counting import CountingTask, count_disentangled, optima, smallclass, support_states
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
    assert not smallclass.applies(two_points, (2,) * k, np.array([0, 3]), None)  # none seen
    assert smallclass.applies(two_points, (2,) * k, np.array([0, 9]), None)


def test_dispatcher_tries_the_small_class_then_the_search(monkeypatch):
    names = [state_str(row) for row in all_states(5)]
    task = CountingTask(make_knowledge("x1 & x2 & x3", 5), tuple(names[::3]) + ("11111",))
    first = count_disentangled(task)  # answered inside its trial
    assert first.engine == optima.SMALL_CLASS_ENGINE and first.subproblems > 1
    monkeypatch.setattr(optima, "TRIAL", 1)  # a trial of one sub-problem: the search answers
    monkeypatch.setattr(smallclass, "work_floor", lambda k: 0)
    second = count_disentangled(task)
    assert second.engine == optima.SEARCH_ENGINE
    assert (second.n_opt, second.n_distinct) == (first.n_opt, first.n_distinct)
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
