"""The count from the small label class swept over the inputs: the enumeration oracle at small
k, the search at k = 6 and 7, metamorphic relations at k = 12 and 14, the dispatcher's choice
and its budgets."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.counting import CountingTask, count_disentangled, inputsweep, optima, support_states
from nesybench.counting.search import MemoryTooLarge, SearchTooLarge, _Budget, disentangled_search
from nesybench.logic import TableKnowledge, all_states, make_knowledge, state_str, states_index
from nesybench.seeds import child_rng
from nesybench.shortcuts.tasks import random_3cnf

from .test_search import _renamed, random_cnf


def _random_task(seed: int, max_k: int = 5) -> CountingTask:
    """A random binary task: a random CNF or a few random points as the small class, on a
    random support (with or without observed points of the small class)."""
    rng = child_rng(seed, "test-inputsweep")
    k = int(rng.integers(1, max_k + 1))
    names = [state_str(row) for row in all_states(k)]
    if rng.integers(0, 2):
        knowledge = make_knowledge(random_cnf(k, int(rng.integers(1, 5 * k)), seed), k)
    else:
        codes = np.zeros(2**k, dtype=np.int64)
        codes[rng.choice(2**k, size=int(rng.integers(1, min(6, 2**k - 1) + 1)), replace=False)] = 1
        knowledge = TableKnowledge((2,) * k, codes, ("out", "in"))
    support = rng.choice(names, size=int(rng.integers(1, 2**k + 1)), replace=False)
    return CountingTask(knowledge, tuple(str(s) for s in support))


def _sweep(task: CountingTask, budget: _Budget | None = None):
    return inputsweep.disentangled_input_sweep(
        task.knowledge.labels(all_states(task.k)),
        task.k,
        states_index(task.observed_rows(), task.domains),
        budget=budget or _Budget(None, "count", "o"),
    )


def _applies(task: CountingTask) -> bool:
    codes = task.knowledge.labels(all_states(task.k))
    return inputsweep.applies(codes, task.domains, task.pinned_mask(), False)


def test_input_sweep_equals_enumeration():
    checked = unanchored = 0
    for seed in range(80):
        task = _random_task(seed)
        if not _applies(task):
            continue
        got = _sweep(task)
        oracle = count_disentangled(task, method="enumerate")
        assert got.n_pairs == oracle.n_opt, seed
        if oracle.n_distinct is not None:
            assert got.n_distinct == oracle.n_distinct, seed
        checked += 1
        codes = task.knowledge.labels(all_states(task.k))
        seen = codes[states_index(task.observed_rows(), task.domains)]
        unanchored += int(len(inputsweep._small_class(codes)) > 1 and len(set(seen)) == 1)
    assert checked >= 50
    assert unanchored >= 5  # the case the anchored count declines: no observed small point


def test_input_sweep_equals_the_search_at_k_6_and_7():
    checked = 0
    for seed in range(200, 240):
        task = _random_task(seed, max_k=7)
        if task.k < 6 or not _applies(task):
            continue
        codes = task.knowledge.labels(all_states(task.k))
        observed = states_index(task.observed_rows(), task.domains)
        want = disentangled_search(codes, task.domains, observed)
        got = _sweep(task)
        assert (got.n_pairs, got.n_distinct) == (want.n_pairs, want.n_distinct), seed
        checked += 1
    assert checked >= 8


def test_applies_declines_what_it_cannot_count():
    k = 4
    two_points = np.zeros(16, dtype=np.int64)
    two_points[[5, 9]] = 1
    assert inputsweep.applies(two_points, (2,) * k, None, False)
    assert not inputsweep.applies(two_points, (2,) * k, None, True)  # fixed permutation
    assert not inputsweep.applies(two_points, (2,) * k, np.array([True]), False)  # supervised
    assert not inputsweep.applies(two_points, (3,) * k, None, False)
    assert not inputsweep.applies(np.arange(16) % 3, (2,) * k, None, False)  # three labels
    assert not inputsweep.applies(np.zeros(16, dtype=np.int64), (2,) * k, None, False)
    parity = make_knowledge("xor", k).labels(all_states(k))  # a class of 8 points: counted
    assert inputsweep.applies(parity, (2,) * k, None, False)
    parity6 = make_knowledge("xor", 6).labels(all_states(6))  # 32 points: past MAX_CLASS
    assert not inputsweep.applies(parity6, (2,) * 6, None, False)


def _bench_task(k: int, frac: float) -> CountingTask:
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(0, "bench-sparse", k))
    return CountingTask(knowledge, support_states(k, frac, seed=0))


def test_dispatcher_chooses_the_sweep_for_a_wide_class_at_half_support():
    """The benchmark's k = 12 3-CNF at half support: six models over 11 of 12 outputs (not
    narrow), which the search and the anchored count both left past their budgets."""
    task = _bench_task(12, 0.5)
    result = count_disentangled(task)
    assert result.engine == optima.INPUT_SWEEP_ENGINE and result.exact
    perm = [int(v) for v in child_rng(4, "test-sweep-perm", 12).permutation(12)]
    for other in (_renamed(task, perm, set()), _renamed(task, perm, {0, 5, 11})):
        got = count_disentangled(other)
        assert (got.n_opt, got.n_distinct) == (result.n_opt, result.n_distinct)


def _relabelled(codes, observed, perm, flip: int):
    """The task with state bit b moved to bit perm[b] and the bits of ``flip`` negated."""
    states = np.arange(len(codes), dtype=np.int64)
    moved = np.zeros_like(states)
    for b, to in enumerate(perm):
        moved |= ((states >> b) & 1) << to
    moved ^= flip
    new_codes = np.empty_like(codes)
    new_codes[moved] = codes
    return new_codes, moved[observed]


def test_metamorphic_at_k_14():
    """Renaming and negating concepts keep the sweep's count at k = 14: a small class of three
    points, two of them observed with a quarter of the other states."""
    k = 14
    rng = child_rng(5, "test-sweep-points", k)
    codes = np.zeros(2**k, dtype=np.int64)
    codes[rng.choice(2**k, size=3, replace=False)] = 1
    observed = rng.choice(np.flatnonzero(codes == 0), size=2**k // 4, replace=False)
    observed = np.append(observed, np.flatnonzero(codes == 1)[:2])

    def count(codes, observed):
        found = inputsweep.disentangled_input_sweep(
            codes, k, observed, budget=_Budget(None, "count", "o")
        )
        return found.n_pairs, found.n_distinct

    base = count(codes, observed)
    assert base[0] > 0
    perm = [int(v) for v in child_rng(6, "test-sweep-perm", k).permutation(k)]
    for flip in (0, 1 << 3, 2**k - 1):
        assert count(*_relabelled(codes, observed, perm, flip)) == base
    # observing the third point of the class keeps at most as many maps
    more = np.append(observed, np.flatnonzero(codes == 1)[2:])
    assert 0 < count(codes, more)[0] <= base[0]


def test_budget_and_memory_refusals_name_their_options():
    task = _bench_task(12, 0.5)
    with pytest.raises(SearchTooLarge, match="passed 100 sub-problems at the table of the subcube"):
        _sweep(task, _Budget(100, "sweep", "--max-subproblems"))
    budget = _Budget(None, "sweep", "o", memory_limit=2**20, memory_option="--max-memory")
    with pytest.raises(MemoryTooLarge, match=r"above the limit of about 1 MB.*--max-memory"):
        _sweep(task, budget)
    assert budget.held > budget.memory_limit  # charged before the states were built


def test_dispatcher_sweeps_a_class_with_no_observed_point():
    """The k = 8 3-CNF of the benchmark's stream, seed 1, at 1% support: seven models, none
    observed (three or more, so no closed form).  The sweep answers before the search, with
    the search's count, and renaming and negating concepts does not change it."""
    knowledge = random_3cnf(8, round(4.26 * 8), child_rng(1, "bench-sparse", 8))
    task = CountingTask(knowledge, support_states(8, 0.01, seed=1))
    codes = knowledge.labels(all_states(8))
    observed = states_index(task.observed_rows(), task.domains)
    assert int(codes[observed].sum()) == 0 and int(codes.sum()) >= 3
    result = count_disentangled(task)
    assert result.engine == optima.INPUT_SWEEP_ENGINE and result.exact
    searched = disentangled_search(codes, task.domains, observed, max_subproblems=None)
    assert (result.n_opt, result.n_distinct) == (searched.n_pairs, searched.n_distinct)
    perm = [int(v) for v in child_rng(5, "test-sweep-perm", 8).permutation(8)]
    got = count_disentangled(_renamed(task, perm, {1, 6}))
    assert (got.n_opt, got.n_distinct) == (result.n_opt, result.n_distinct)


def _cube_group(rng, k: int) -> list[int]:
    """Points agreeing outside d random outputs and covering the d-cube there, or, at d = 2,
    three of its four points."""
    d = int(rng.integers(0, min(k, 3) + 1))
    outputs = rng.choice(k, d, replace=False)
    base = int(rng.integers(0, 2**k))
    for j in outputs:
        base &= ~(1 << int(j))
    group = [
        base | sum(1 << int(j) for n, j in enumerate(outputs) if m >> n & 1) for m in range(2**d)
    ]
    if d == 2 and rng.integers(0, 2):
        group.pop(int(rng.integers(0, 4)))
    return sorted(group)


def test_cube_shaped_groups_in_closed_form_equal_the_sweep():
    """A group covering the cube of the outputs where it differs (one point included), or a
    square less a point, with no observed point of S*: the closed form over the subcube table
    gives the sweep's placements for every number of left-over columns."""
    rng = child_rng(11, "test-cube-groups")
    checked = {"cube": 0, "square less a point": 0}
    for _ in range(150):
        k = int(rng.integers(2, 7))
        group = _cube_group(rng, k)
        rest = np.setdiff1d(np.arange(2**k), group)
        if len(rest) == 0:
            continue
        seen = np.sort(rng.choice(rest, size=int(rng.integers(1, len(rest) + 1)), replace=False))
        subcubes = inputsweep._Subcubes(k, seen, _Budget(None, "count", "o"))
        closed = inputsweep._cube_group(k, group, subcubes)
        swept = inputsweep._sweep(k, group, seen, [], _Budget(None, "count", "o"))
        assert {c: w for c, w in closed.items() if w} == {c: w for c, w in swept.items() if w}
        checked[inputsweep._cube_shape(group)] += 1
    assert min(checked.values()) >= 20, checked


def test_two_point_groups_in_closed_form_equal_the_sweep():
    """A group of two points at any distance d (1 to k) with no observed point of S*: the
    closed form over the pair spectrum of the subcube table gives the sweep's placements for
    every number of left-over columns (at d = 1, an edge, the cube's closed form's too)."""
    rng = child_rng(13, "test-pair-groups")
    distances, whole = set(), 0  # whole: the two points differ on every output
    for _ in range(120):
        k = int(rng.integers(2, 8))
        s = int(rng.integers(0, 2**k))
        apart = rng.choice(k, int(rng.integers(1, k + 1)), replace=False)
        group = sorted([s, s ^ sum(1 << int(j) for j in apart)])
        rest = np.setdiff1d(np.arange(2**k), group)
        seen = np.sort(rng.choice(rest, size=int(rng.integers(1, len(rest) + 1)), replace=False))
        subcubes = inputsweep._Subcubes(k, seen, _Budget(None, "count", "o"))
        closed = inputsweep._pair_group(k, group, subcubes)
        swept = inputsweep._sweep(k, group, seen, [], _Budget(None, "count", "o"))
        assert {c: w for c, w in closed.items() if w} == {c: w for c, w in swept.items() if w}
        d = inputsweep.span_of(group).bit_count()
        if d == 1:
            assert closed == inputsweep._cube_group(k, group, subcubes)
        distances.add(d)
        whole += d == k
    assert set(range(1, 7)) <= distances and whole >= 5


def test_two_point_groups_of_a_k_12_task_equal_the_sweep():
    """The benchmark's k = 12 3-CNF of seed 0 at 1% support: six models, none observed, and
    groups of two points 7 and 9 outputs apart (past the cells' span, so they were swept):
    the pair closed form gives the sweep's placements for each."""
    task = _bench_seed(12, 0.01, 0)
    codes = task.knowledge.labels(all_states(12))
    observed = states_index(task.observed_rows(), task.domains)
    points, seen_small, seen_other = inputsweep.observed_by_class(codes, observed)
    assert len(seen_small) == 0
    subcubes = inputsweep._Subcubes(12, seen_other, _Budget(None, "count", "o"))
    spans = []
    for mask in inputsweep._groups(12, points):
        group = [int(points[i]) for i in range(len(points)) if mask >> i & 1]
        d = inputsweep.span_of(group).bit_count()
        if len(group) == 2 and d > inputsweep.MAX_CELLS_SPAN:
            swept = inputsweep._sweep(12, group, seen_other, [], _Budget(None, "count", "o"))
            closed = inputsweep._pair_group(12, group, subcubes)
            assert {c: w for c, w in closed.items() if w} == {c: w for c, w in swept.items() if w}
            spans.append(d)
    assert sorted(spans) == [7, 9]


def test_sweep_counts_cube_shaped_groups_at_k_12_the_same_renamed():
    """The benchmark's k = 12 3-CNF of seed 9 at 10% support: three models, none observed,
    every group of a cube shape (three single points, two edges, a square less a point), so
    no group is swept; renaming and negating concepts keeps the count."""
    knowledge = random_3cnf(12, round(4.26 * 12), child_rng(9, "bench-sparse", 12))
    task = CountingTask(knowledge, support_states(12, 0.1, seed=9))
    result = count_disentangled(task)
    assert result.engine == optima.INPUT_SWEEP_ENGINE and result.exact
    perm = [int(v) for v in child_rng(6, "test-sweep-perm", 12).permutation(12)]
    got = count_disentangled(_renamed(task, perm, {0, 4, 7}))
    assert (got.n_opt, got.n_distinct) == (result.n_opt, result.n_distinct)


def test_subcube_tables_are_charged_before_they_are_built():
    """The cube-shaped groups' tables (about 11 bytes a subcube at k = 12: 5.8 MB) stop at a
    4 MB limit with the memory message, before the sums are allocated."""
    knowledge = random_3cnf(12, round(4.26 * 12), child_rng(9, "bench-sparse", 12))
    task = CountingTask(knowledge, support_states(12, 0.1, seed=9))
    codes = knowledge.labels(all_states(12))
    observed = states_index(task.observed_rows(), task.domains)
    budget = _Budget(None, "count", "o", memory_limit=4 * 2**20, memory_option="--max-memory")
    with pytest.raises(MemoryTooLarge, match="the sums over the 3\\^12 subcubes"):
        inputsweep.disentangled_input_sweep(codes, 12, observed, budget=budget)


def test_cells_of_any_group_equal_the_sweep():
    """Any group of at most six points spanning at most MAX_CELLS_SPAN outputs, with no, one
    or two observed states of S*: the count over the cells of the d-sets of inputs gives the
    sweep's placements for every number of left-over columns."""
    rng = child_rng(12, "test-cell-groups")
    checked = {"none observed": 0, "observed": 0, "span 5 or 6": 0, "none observed, span >= 5": 0}
    for trial in range(300):
        k = int(rng.integers(2, 8))
        size = int(rng.integers(1, min(6, 2**k - 2) + 1))
        group = sorted(int(x) for x in rng.choice(2**k, size, replace=False))
        span = inputsweep.span_of(group)
        rest = np.setdiff1d(np.arange(2**k), group)
        if len(rest) < 2 or not inputsweep.cells_fit(k, span.bit_count()):
            continue
        seen = np.sort(rng.choice(rest, size=int(rng.integers(1, len(rest))), replace=False))
        free = np.setdiff1d(np.arange(2**k), seen)
        small = rng.choice(free, size=min(len(free), trial % 3), replace=False)
        subcubes = inputsweep._Subcubes(k, seen, _Budget(None, "count", "o"))
        codes = inputsweep._cell_codes(
            k, span.bit_count(), subcubes, small, _Budget(None, "count", "o")
        )
        cells = inputsweep._cells_group(k, group, *codes, _Budget(None, "count", "o"))
        swept = inputsweep._sweep(k, group, seen, small, _Budget(None, "count", "o"))
        assert {c: w for c, w in cells.items() if w} == {c: w for c, w in swept.items() if w}
        checked["observed" if len(small) else "none observed"] += 1
        checked["span 5 or 6"] += int(span.bit_count() >= 5)
        checked["none observed, span >= 5"] += int(span.bit_count() >= 5 and not len(small))
    assert min(checked.values()) >= 15 and sum(checked.values()) >= 200, checked


def test_folded_codes_are_the_cells_of_each_d_set():
    """With no observed point of S* the codes are folded out of the table: for every d-set V
    (in the order of ``itertools.combinations``) and every subcube w free on V, bit p is set
    exactly when the cell w + (V <- p) is empty, V's first input the top bit of p, as the
    cells read one by one, each d-set once."""
    import itertools

    rng = child_rng(3, "test-folded-codes")
    for k in range(2, 8):
        seen = rng.choice(2**k, size=int(rng.integers(1, 2**k)), replace=False)
        subcubes = inputsweep._Subcubes(k, seen, _Budget(None, "count", "o"))
        for d in range(1, min(k, inputsweep.MAX_CELLS_SPAN) + 1):
            folded = list(inputsweep._folded_codes(subcubes.empty, k, d))
            assert len(folded) == len(list(itertools.combinations(range(k), d)))
            by_set = {}
            for inputs in itertools.combinations(range(k), d):
                rest = [axis for axis in range(k) if axis not in inputs]
                codes = []
                for w in itertools.product(range(3), repeat=k - d):
                    code = 0
                    for p in range(2**d):
                        digits = dict(zip(rest, w))
                        digits.update({a: p >> (d - 1 - i) & 1 for i, a in enumerate(inputs)})
                        code |= int(subcubes.empty[tuple(digits[a] for a in range(k))]) << p
                    codes.append(code)
                by_set[inputs] = codes
            got = {inputs: [int(c) for c in codes] for inputs, codes in folded}
            assert got == by_set, (k, d)


def _bench_seed(k: int, frac: float, seed: int) -> CountingTask:
    knowledge = random_3cnf(k, round(4.26 * k), child_rng(seed, "bench-sparse", k))
    return CountingTask(knowledge, support_states(k, frac, seed=seed))


def test_cells_count_a_k_12_task_the_same_renamed():
    """The benchmark's k = 12 3-CNF of seed 7 at 1% support: four models, none observed,
    groups of span 2, 3 and 4 that are not cube-shaped, so they are counted over the cells
    (the sweep took past 5 s on the group of four); renaming and negating concepts keeps the
    count, and observing a model keeps at most as many maps."""
    task = _bench_seed(12, 0.01, 7)
    codes = task.knowledge.labels(all_states(12))
    observed = states_index(task.observed_rows(), task.domains)
    points, seen_small, _ = inputsweep.observed_by_class(codes, observed)
    spans = set()
    for mask in inputsweep._groups(12, points):
        group = [int(points[i]) for i in range(len(points)) if mask >> i & 1]
        if inputsweep._cube_shape(group) is None:
            spans.add(inputsweep.span_of(group).bit_count())
    assert len(seen_small) == 0 and len(points) == 4 and {3, 4} <= spans
    result = count_disentangled(task)
    assert result.engine == optima.INPUT_SWEEP_ENGINE and result.exact and result.n_opt > 0
    perm = [int(v) for v in child_rng(7, "test-sweep-perm", 12).permutation(12)]
    got = count_disentangled(_renamed(task, perm, {2, 9}))
    assert (got.n_opt, got.n_distinct) == (result.n_opt, result.n_distinct)
    more = np.append(observed, points[:1])
    found = inputsweep.disentangled_input_sweep(codes, 12, more, budget=_Budget(None, "count", "o"))
    assert 0 < found.n_pairs <= result.n_opt


def test_dispatcher_sweeps_a_narrow_class_the_anchored_trial_leaves():
    """The benchmark's k = 12 3-CNF of seed 8 at 10% support: four models, one observed, a
    narrow class whose anchored trial passes its budget (the search then passed 600,000
    sub-problems in about a minute); the sweep answers next, counting its groups over the
    cells, and the count is kept under renaming and negation."""
    task = _bench_seed(12, 0.1, 8)
    result = count_disentangled(task)
    assert result.engine == optima.INPUT_SWEEP_ENGINE and result.exact
    perm = [int(v) for v in child_rng(8, "test-sweep-perm", 12).permutation(12)]
    got = count_disentangled(_renamed(task, perm, {0, 3, 10, 11}))
    assert (got.n_opt, got.n_distinct) == (result.n_opt, result.n_distinct)


def test_cell_codes_are_charged_before_they_are_built():
    """The codes of the cells at k = 12 with no observed model (folded out of the table: a
    chunk of 2^22 keys and its copy, 67 MB at span 3) stop at a 40 MB limit with the memory
    message, after the subcube tables (7.5 MB) and the pair spectrum (27 MB, released) fit."""
    task = _bench_seed(12, 0.01, 7)
    codes = task.knowledge.labels(all_states(12))
    observed = states_index(task.observed_rows(), task.domains)
    budget = _Budget(None, "count", "o", memory_limit=40 * 2**20, memory_option="--max-memory")
    with pytest.raises(MemoryTooLarge, match=r"the codes of the cells of the \d-sets of inputs"):
        inputsweep.disentangled_input_sweep(codes, 12, observed, budget=budget)


def test_every_way_of_counting_a_group_gives_the_sweeps_count(monkeypatch):
    """The count takes each group the way :func:`inputsweep.how_counted` names: with every
    group forced to the sweep it gives the same maps on random tasks (both closed forms and
    the cells met; at k <= MAX_CELLS_SPAN every group fits the cells, so the sweep is the
    reference alone), so a way that miscounted, or a dispatch that took one way for another,
    would show."""
    ways_met, real = set(), inputsweep.how_counted
    for seed in range(120):
        task = _random_task(seed, max_k=6)
        if not _applies(task):
            continue
        codes = task.knowledge.labels(all_states(task.k))
        observed = states_index(task.observed_rows(), task.domains)
        ways_met |= {how for how, *_ in inputsweep.plan(codes, task.k, observed)}
        expected = _sweep(task)
        monkeypatch.setattr(inputsweep, "how_counted", lambda *_: "sweep")
        swept = _sweep(task)
        monkeypatch.setattr(inputsweep, "how_counted", real)
        assert (swept.n_pairs, swept.n_distinct) == (expected.n_pairs, expected.n_distinct), seed
    assert ways_met == {"cube", "pair", "cells"}


def test_plan_names_each_group_by_its_shape_and_span():
    """``plan`` lists every group of the k = 14 benchmark task of seed 1 at 1% (six models,
    none observed): closed forms only for cube shapes and pairs, the cells only where they
    fit, the rest swept; observing a model takes the closed forms away."""
    task = _bench_seed(14, 0.01, 1)
    codes = task.knowledge.labels(all_states(14))
    observed = states_index(task.observed_rows(), task.domains)
    points, seen_small, _ = inputsweep.observed_by_class(codes, observed)
    assert len(seen_small) == 0
    found = inputsweep.plan(codes, 14, observed)
    assert len(found) == len(inputsweep._groups(14, points))
    for how, g, d in found:
        if how == "cube":
            assert g == 2**d or (d, g) == (2, 3)
        elif how == "pair":
            assert g == 2 and g != 2**d
        else:
            assert g > 2 and (how == "cells") == inputsweep.cells_fit(14, d, ())
    assert {how for how, *_ in found} >= {"cube", "pair", "sweep"}
    seen = inputsweep.plan(codes, 14, np.append(observed, points[:1]))
    assert {how for how, *_ in seen} <= {"cells", "sweep"}
