"""The exact disentangled search on binary knowledge: against the previous per-permutation path,
closed forms, and metamorphic relations at k = 8 (beyond any enumeration)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesybench.counting import (
    CountingTask,
    count_disentangled,
    count_disentangled_per_permutation,
    support_states,
)
from nesybench.counting.bypermutation import count_solutions, disentangled_by_permutation
from nesybench.counting.search import SearchTooLarge, disentangled_search, shared_search
from nesybench.logic import TableKnowledge, all_states, make_knowledge, state_str
from nesybench.seeds import child_rng


def random_cnf(k: int, m: int, seed: int) -> str:
    """m random 3-clauses (2-clauses at k = 2) over x1..xk, as text."""
    rng = child_rng(seed, "test-cnf", k, m)
    clauses = []
    for _ in range(m):
        width = min(3, k)
        variables = rng.choice(k, size=width, replace=False) + 1
        signs = rng.integers(0, 2, size=width)
        clauses.append(
            "(" + " | ".join(("~" if s else "") + f"x{v}" for v, s in zip(variables, signs)) + ")"
        )
    return " & ".join(clauses)


@st.composite
def binary_tasks(draw, max_k=5):
    k = draw(st.integers(1, max_k))
    spec = draw(st.sampled_from(["xor", "cnf"]))
    if spec == "cnf":
        spec = random_cnf(k, draw(st.integers(1, 3 * k)), draw(st.integers(0, 10**6)))
    names = [state_str(row) for row in all_states(k)]
    support = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
    supervised = draw(st.lists(st.sampled_from(support), max_size=2, unique=True))
    return CountingTask(make_knowledge(spec, k), tuple(support), tuple(supervised))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binary_tasks(), st.booleans())
def test_search_equals_the_per_permutation_path(task, fixed):
    landed = count_disentangled_per_permutation(
        task.knowledge, task.support, supervised=task.supervised, fixed_permutation=fixed
    )
    assert count_disentangled(task, fixed_permutation=fixed).n_opt == landed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binary_tasks(max_k=4))
def test_per_permutation_engine_equals_the_search_on_binary_knowledge(task):
    codes = task.knowledge.labels(all_states(task.k))
    found = disentangled_search(codes, task.domains, _index(task), pinned=task.pinned_mask())
    by_perm = disentangled_by_permutation(
        codes, task.domains, task.observed_rows(), pinned=task.pinned_mask()
    )
    assert by_perm[:2] == (found.n_pairs, found.n_distinct)


def _index(task):
    from nesybench.logic import states_index

    return states_index(task.observed_rows(), task.domains)


@pytest.mark.parametrize("k", [4, 6, 8, 10])
def test_parity_full_support_closed_form(k):
    # count-rss: k! permutations x 2^(k-1) even sets of negations; no constant map survives.
    task = CountingTask(make_knowledge("xor", k), support_states(k, 1.0, seed=0))
    result = count_disentangled(task)
    assert result.n_opt == math.factorial(k) * 2 ** (k - 1) == result.n_distinct


# ---- metamorphic relations at k = 8 --------------------------------------------


def _rename(spec: str, k: int, sigma) -> str:
    """x_i -> x_sigma(i) in a CNF text."""
    import re

    return re.sub(r"x([0-9]+)", lambda m: f"x{sigma[int(m.group(1)) - 1] + 1}", spec)


def _negate(spec: str, i: int) -> str:
    """Flip the sign of every literal of x_i (0-based i)."""
    import re

    def flip(m):
        neg, var = m.group(1), int(m.group(2))
        if var != i + 1:
            return m.group(0)
        return f"x{var}" if neg else f"~x{var}"

    return re.sub(r"(~?)x([0-9]+)", flip, spec)


def _permute_state(state: str, sigma) -> str:
    # concept i of the old state becomes concept sigma(i)
    out = [""] * len(state)
    for i, ch in enumerate(state):
        out[sigma[i]] = ch
    return "".join(out)


def _flip_state(state: str, i: int) -> str:
    return state[:i] + ("0" if state[i] == "1" else "1") + state[i + 1 :]


@pytest.mark.parametrize(
    "spec, n_clauses, frac, seed",
    [("xor", 0, 0.25, 0), ("cnf", 12, 0.05, 0), ("cnf", 6, 0.05, 1), ("cnf", 20, 0.25, 0)],
)
def test_metamorphic_rename_and_negate_at_k8(spec, n_clauses, frac, seed):
    k = 8
    rng = child_rng(seed, "metamorphic", spec)
    knowledge = "xor" if spec == "xor" else random_cnf(k, n_clauses, seed)
    support = list(support_states(k, frac, seed=seed))
    supervised = [support[0]]
    base = count_disentangled(CountingTask(make_knowledge(knowledge, k), support, supervised))
    assert base.n_opt > 1  # an informative count (constant maps collapse unless it is parity)
    assert spec == "xor" or base.n_distinct < base.n_opt

    sigma = [int(v) for v in rng.permutation(k)]
    renamed_k = knowledge if spec == "xor" else _rename(knowledge, k, sigma)
    renamed = count_disentangled(
        CountingTask(
            make_knowledge(renamed_k, k),
            [_permute_state(s, sigma) for s in support],
            [_permute_state(s, sigma) for s in supervised],
        )
    )
    assert (renamed.n_opt, renamed.n_distinct) == (base.n_opt, base.n_distinct)

    i = int(rng.integers(0, k))
    if spec == "xor":  # K'(g) = K(g xor e_i) = 1 - parity(g), as a table
        labels = 1 - (all_states(k).sum(axis=1) % 2)
        negated_k = TableKnowledge.from_labels((2,) * k, labels.tolist())
    else:
        negated_k = make_knowledge(_negate(knowledge, i), k)
    negated_support = [_flip_state(s, i) for s in support]
    negated = count_disentangled(
        CountingTask(negated_k, negated_support, [_flip_state(s, i) for s in supervised])
    )
    assert (negated.n_opt, negated.n_distinct) == (base.n_opt, base.n_distinct)


def test_metamorphic_relations_detect_a_changed_task():
    # The relations are not vacuous: renaming the knowledge but not the support (or flipping a
    # bit of the support only) changes the count.
    k = 8
    spec = random_cnf(k, 6, 1)
    support = list(support_states(k, 0.1, seed=1))
    base = count_disentangled(CountingTask(make_knowledge(spec, k), support)).n_opt
    sigma = [1, 0, 2, 3, 4, 5, 6, 7]
    renamed_only = CountingTask(make_knowledge(_rename(spec, k, sigma), k), support)
    flipped_only = CountingTask(make_knowledge(spec, k), [_flip_state(s, 2) for s in support])
    assert (base, count_disentangled(renamed_only).n_opt) == (8, 12)
    assert count_disentangled(flipped_only).n_opt == 16


# ---- the building blocks --------------------------------------------------------


def test_count_solutions_by_hand():
    ne = ~np.eye(3, dtype=bool)
    # proper 3-colourings of a path of four vertices: 3 * 2 * 2 * 2
    path = [((0, 1), ne), ((1, 2), ne), ((2, 3), ne)]
    assert count_solutions({0: 3, 1: 3, 2: 3, 3: 3}, path) == 24
    # a variable in no constraint counts its domain
    assert count_solutions({0: 3, 1: 3, 2: 3, 3: 3, 4: 5}, path) == 120


def test_search_budget_stops_the_search():
    codes = all_states(6).sum(axis=1) % 2
    with pytest.raises(SearchTooLarge, match="max_subproblems N"):
        disentangled_search(codes, (2,) * 6, np.arange(0, 64, 3), max_subproblems=3)


def test_shared_search_binary_parity():
    # one bit map f for every concept of k-bit parity at full support: identity, and
    # negation when k is even
    for k, expected in ((3, 1), (4, 2)):
        codes = all_states(k).sum(axis=1) % 2
        assert shared_search(codes, 2, k, np.arange(2**k)).n_pairs == expected


# ---- the three shared engines, against enumeration and each other ------------------------


@st.composite
def shared_tasks(draw):
    d = draw(st.integers(2, 4))
    k = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["sum", "table"]))
    dims = (d,) * k
    if kind == "sum":
        knowledge = make_knowledge("sum", dims)
    else:
        labels = draw(st.lists(st.integers(0, 2), min_size=d**k, max_size=d**k))
        knowledge = TableKnowledge.from_labels(dims, labels)
    names = [state_str(row, dims) for row in all_states(dims)]
    support = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
    supervised = draw(st.lists(st.sampled_from(support), max_size=1, unique=True))
    return CountingTask(knowledge, tuple(support), tuple(supervised))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shared_tasks())
def test_shared_engines_agree_with_enumeration(task):
    from nesybench.counting import enumerate_shared
    from nesybench.counting.bypermutation import shared_by_constraints
    from nesybench.counting.search import _Budget, shared_all_maps, shared_by_completion
    from nesybench.logic.states import states_index

    d, k = task.domains[0], task.k
    codes = task.knowledge.labels(all_states(task.domains))
    rows, pinned = task.observed_rows(), task.pinned_mask()
    index = states_index(rows, task.domains)
    expected = enumerate_shared(task.knowledge, list(task.support), supervised=task.supervised)
    budget = _Budget(None, "test", "o")
    assert shared_by_constraints(codes, d, k, rows, pinned=pinned, budget=budget) == expected
    assert shared_search(codes, d, k, index, pinned=pinned).n_pairs == expected
    assert shared_by_completion(codes, d, k, index, pinned=pinned, budget=budget).n_pairs == (
        expected
    )
    assert shared_all_maps(codes, d, k, index, pinned=pinned, budget=budget).n_pairs == expected


def test_shared_two_states_of_six_digits_is_the_sum_class_closed_form():
    # Both states show 1..6 once: one constraint f(1) + ... + f(6) = 21, and 0, 7, 8, 9 free.
    from nesybench.counting import count_shared
    from nesybench.logic import SumKnowledge

    knowledge = SumKnowledge((10,) * 6)
    task = CountingTask(knowledge, ["1:2:3:4:5:6", "6:5:4:3:2:1"])
    assert count_shared(task).n_opt == knowledge.class_size(21) * 10**4 == 396_620_000


def test_sum_class_sizes_against_brute_force():
    import itertools

    from nesybench.logic import SumKnowledge

    for dims in [(3, 3), (2, 5, 3), (4, 4, 2, 7), (10, 10, 10)]:
        knowledge = SumKnowledge(dims)
        brute: dict[int, int] = {}
        for values in itertools.product(*[range(d) for d in dims]):
            brute[sum(values)] = brute.get(sum(values), 0) + 1
        assert knowledge.class_sizes() == brute
        assert [knowledge.class_size(s) for s in range(-1, knowledge.n_classes + 1)] == [
            brute.get(s, 0) for s in range(-1, knowledge.n_classes + 1)
        ]


def test_memory_limit_refuses_before_allocating():
    from nesybench.counting import count_disentangled, count_shared

    task = CountingTask(make_knowledge("sum", (10,) * 5), ["1:2:3:4:5"])
    for count in (count_shared, count_disentangled):
        with pytest.raises(SearchTooLarge, match="above the limit of about 1 MB.*max-memory"):
            count(task, max_memory=2**20)


# ---- metamorphic checks at large k (beyond enumeration) ----------------------------------


def _renamed(task: CountingTask, perm: list[int], negate: set[int]) -> CountingTask:
    """The same task with concept i renamed perm[i] and the concepts in ``negate`` negated:
    both the formula and the observed states are rewritten."""
    k = task.k

    def literal(match) -> str:
        neg, i = match.group(1) == "~", int(match.group(2)) - 1
        return ("~" if neg != (i in negate) else "") + f"x{perm[i] + 1}"

    import re

    spec = re.sub(r"(~?)x(\d+)", literal, task.knowledge.spec)

    def state(text: str) -> str:
        out = ["0"] * k
        for i, bit in enumerate(text):
            out[perm[i]] = str(int(bit) ^ (i in negate))
        return "".join(out)

    return CountingTask(make_knowledge(spec, k), [state(s) for s in task.observed_states()])


@pytest.mark.parametrize("k", [14, 16])
def test_shared_counts_survive_renaming_and_negating_every_concept(k):
    from nesybench.counting import count_shared
    from nesybench.shortcuts.tasks import random_3cnf

    for frac in (0.01, 0.5):
        knowledge = random_3cnf(k, round(4.26 * k), child_rng(1, "test-meta", k))
        task = CountingTask(knowledge, support_states(k, frac, seed=1))
        perm = [int(v) for v in child_rng(2, "test-meta-perm", k).permutation(k)]
        base = count_shared(task).n_opt
        assert count_shared(_renamed(task, perm, set())).n_opt == base
        # negating every concept conjugates f by negation: a bijection of the shared family
        assert count_shared(_renamed(task, perm, set(range(k)))).n_opt == base


@pytest.mark.parametrize("k", [11, 12])
def test_disentangled_counts_survive_renaming_and_negating_a_concept(k):
    from nesybench.shortcuts.tasks import random_3cnf

    knowledge = random_3cnf(k, round(4.26 * k), child_rng(1, "test-meta", k))
    task = CountingTask(knowledge, support_states(k, 1.0, seed=1))
    perm = [int(v) for v in child_rng(2, "test-meta-perm", k).permutation(k)]
    base = count_disentangled(task, max_subproblems=0)
    assert base.n_opt > 0
    for negate in (set(), {0}, {1, k - 1}):
        other = count_disentangled(_renamed(task, perm, negate), max_subproblems=0)
        assert (other.n_opt, other.n_distinct) == (base.n_opt, base.n_distinct)
