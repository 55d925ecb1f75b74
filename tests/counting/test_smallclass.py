"""The count from the small label class: the enumeration oracle at small k, metamorphic
relations at large k, the dispatcher's choice and its memory refusal."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.counting import CountingTask, count_disentangled, optima, smallclass, support_states
from nesybench.counting.search import SearchTooLarge
from nesybench.logic import TableKnowledge, all_states, make_knowledge, state_str, states_index
from nesybench.seeds import child_rng
from nesybench.shortcuts.tasks import random_3cnf

from .test_search import _renamed, random_cnf

SMALL = "small label class"


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
    for seed in range(150):
        task = _random_task(seed)
        if not _applies(task):
            continue
        for fixed in (False, True):
            got = count_disentangled(task, fixed_permutation=fixed)
            assert SMALL in got.engine
            oracle = count_disentangled(task, fixed_permutation=fixed, method="enumerate")
            assert got.n_opt == oracle.n_opt, seed
            if oracle.n_distinct is not None:  # listed when the maps fit the enumeration
                assert got.n_distinct == oracle.n_distinct, seed
                checked += 1
    assert checked >= 100  # most random tasks have an observed state in the small class


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


def test_dispatcher_falls_back_to_the_search_past_its_share(monkeypatch):
    names = [state_str(row) for row in all_states(5)]
    task = CountingTask(make_knowledge("x1 & x2 & x3", 5), tuple(names[::3]) + ("11111",))
    first = count_disentangled(task)
    assert SMALL in first.engine and first.subproblems > 1
    monkeypatch.setattr(optima, "SMALL_CLASS_SHARE", 10**9)  # a share of one sub-problem
    second = count_disentangled(task)
    assert "search over (pi(j), f_j)" in second.engine
    assert (second.n_opt, second.n_distinct) == (first.n_opt, first.n_distinct)


def test_memory_limit_refuses_before_the_subcube_table():
    k = 16
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, 1.0, seed=0))
    with pytest.raises(SearchTooLarge, match=r"about \d+ MB .*3\^16 subcubes.*--max-memory"):
        count_disentangled(task, max_memory=40 * 2**20)


@pytest.mark.parametrize(("k", "frac"), [(14, 0.75), (16, 0.5), (16, 1.0)])
def test_large_k_counts_survive_renaming_and_negating_a_concept(k, frac):
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    task = CountingTask(knowledge, support_states(k, frac, seed=0))
    base = count_disentangled(task)
    assert SMALL in base.engine and base.n_opt > 0
    perm = [int(v) for v in child_rng(2, "test-meta-perm", k).permutation(k)]
    for negate in (set(), {0}, {1, k - 1}):
        other = count_disentangled(_renamed(task, perm, negate))
        assert (other.n_opt, other.n_distinct) == (base.n_opt, base.n_distinct)
