"""rsbench's named tasks: their knowledge as rsbench's code states it, their counts against
enumeration oracles on the exported tables, and the exporters paired with the readers."""

from __future__ import annotations

import itertools
import math
import os
import re

import numpy as np
import pytest

from nesybench.counting import (
    CountingTask,
    count_disentangled,
    count_shared,
    enumerate_disentangled,
    enumerate_shared,
)
from nesybench.counting.factor import CountRefused
from nesybench.counting.tasks import (
    TASKS,
    count_task,
    get_task,
    knowledge_frame,
    plan_task,
    support_frame,
)
from nesybench.errors import InputError
from nesybench.logic.knowledge import TableKnowledge, read_knowledge_table
from nesybench.logic.states import all_states, parse_state, state_str
from nesybench.shortcuts.cli import _support_file

REQUIRED = [
    "mnadd",
    "mnadd-evenodd",
    "mnadd-half",
    "mnmath",
    "mnlogic",
    "xor",
    "kandinsky",
    "sdd-oia",
    "bdd-oia",
    "clevr",
]
SMALL = [
    "rsbench/mnadd",
    "rsbench/mnadd-evenodd",
    "rsbench/mnadd-half",
    "rsbench/mnlogic",
    "rsbench/xor",
]


def _label(task, values):
    node = task.structure
    return node.label_names(np.array([values], dtype=np.int64))[0]


def test_every_required_task_is_named_with_a_source():
    assert [n.removeprefix("rsbench/") for n in TASKS] == REQUIRED
    for task in TASKS.values():
        assert task.structure.domains == task.domains
        assert task.source.startswith(("rsseval/", "rsscount/", "rssgen/")), task.name
        first_file = re.split("[:,]", task.source)[0]
        assert os.path.basename(first_file) in task.build.__doc__, task.name  # cited there too
        assert task.n_observed <= task.n_states


def test_get_task_accepts_the_short_name_and_refuses_unknown_names():
    assert get_task("xor") is get_task("rsbench/xor")
    with pytest.raises(InputError, match="unknown task 'nope'"):
        get_task("nope")


def test_mnadd_family_knowledge_and_supports_follow_rsbench():
    assert _label(get_task("mnadd"), (3, 5)) == 8
    evenodd = support_frame("rsbench/mnadd-evenodd").values.tolist()
    assert len(evenodd) == 16 and [0, 6] in evenodd and [6, 0] in evenodd and [1, 3] not in evenodd
    assert all((a + b) in (6, 10, 12) for a, b in evenodd)
    half = support_frame("rsbench/mnadd-half").values.tolist()
    assert half == [[0, 0], [0, 1], [1, 0], [2, 3], [2, 4], [3, 2], [4, 2]]


def test_mnmath_reads_a_sum_equation_and_a_product_equation():
    task = get_task("mnmath")
    assert _label(task, (1, 2, 3, 0, 2, 3, 6, 1)) == "sum_equal=1 product_equal=1"
    assert _label(task, (1, 2, 3, 1, 2, 3, 6, 2)) == "sum_equal=0 product_equal=0"


def test_mnlogic_is_even_parity_and_xor_odd_parity():
    assert _label(get_task("mnlogic"), (0, 0, 0, 0)) == 1
    assert _label(get_task("mnlogic"), (1, 0, 0, 0)) == 0
    assert _label(get_task("xor"), (1, 0, 0)) == 1


def test_kandinsky_compares_the_three_figures_patterns():
    task = get_task("kandinsky")
    same_pair = (0, 0, 0, 1, 1, 2)  # shapes all the same, colours a pair
    other = (0, 1, 2, 1, 1, 2)  # shapes all different
    assert _label(task, same_pair * 3) == 1
    assert _label(task, (1, 1, 1, 0, 2, 0) * 3) == 1  # the same pattern with other values
    assert _label(task, same_pair * 2 + other) == 0


def test_sdd_oia_actions_follow_rsbench_world_query_matrices():
    task = get_task("sdd-oia")
    zero = [0] * 21
    assert _label(task, zero) == "forward=0 stop=0 left=0.5 right=0.5"
    green = zero.copy()
    green[0] = 1
    assert _label(task, green) == "forward=1 stop=0 left=0.5 right=0.5"
    green_and_car = green.copy()
    green_and_car[5] = 1
    assert _label(task, green_and_car) == "forward=0 stop=1 left=0.5 right=0.5"
    both_lights = green.copy()
    both_lights[3] = 1
    assert _label(task, both_lights).startswith("forward=? stop=?")
    left_lane_blocked = zero.copy()
    left_lane_blocked[9] = left_lane_blocked[13] = 1  # left lane and a left obstacle
    assert "left=1" in _label(task, left_lane_blocked)  # L reads no stop concept
    right_lane_blocked = zero.copy()
    right_lane_blocked[15] = right_lane_blocked[19] = 1
    assert "right=0" in _label(task, right_lane_blocked)  # R does
    assert task.n_observed == 835_584 == 204 * 64 * 64
    assert (
        get_task("bdd-oia").structure.table().codes.tolist()
        == task.structure.table().codes.tolist()
    )


def test_clevr_ignores_size():
    task = get_task("clevr")
    same = (0, 1, 1, 0, 1, 1, 0, 2)  # colour, shape, material of both objects; sizes last
    assert _label(task, same) == "1 0"
    assert _label(task, (0, 1, 1, 1, 1, 1, 0, 0)) == "0 0"


# ---- counts against oracles on the exported tables ------------------------------------------


def _exported(task, tmp_path, suffix=".csv"):
    """The task written by the exporters and read back by the readers of --knowledge-table and
    --support-file: the knowledge and the support state strings."""
    k_path, s_path = tmp_path / f"k{suffix}", tmp_path / f"s{suffix}"
    for frame, path in ((knowledge_frame(task), k_path), (support_frame(task), s_path)):
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path, index=False)
    knowledge = read_knowledge_table(k_path)
    return knowledge, _support_file(str(s_path), knowledge.domains)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("name", SMALL)
def test_exported_tables_read_back_into_the_same_task(name, suffix, tmp_path):
    task = get_task(name)
    knowledge, support = _exported(task, tmp_path, suffix)
    grid = all_states(task.domains)
    assert knowledge.domains == task.domains
    assert [knowledge.label_name(c) for c in knowledge.labels(grid)] == task.structure.label_names(
        grid
    )
    rows = task.support_rows()
    own = grid if rows is None else rows
    assert support == [state_str(r, task.domains) for r in own]


def _joint_tally(knowledge, support) -> int:
    """prod over observed g of |class(K(g))| * |G|^unobserved, tallied from every state."""
    grid = all_states(knowledge.domains)
    codes = knowledge.labels(grid)
    sizes = np.bincount(codes)
    rows = np.array([parse_state(s, knowledge.domains) for s in support], dtype=np.int64)
    observed = knowledge.labels(rows)
    return math.prod(int(sizes[c]) for c in observed.tolist()) * len(grid) ** (
        len(grid) - len(support)
    )


def _two_digit_pairs(knowledge, support, d) -> int:
    """Disentangled pairs of a 2-concept task by brute force over f_1 (f_2 then forced)."""
    rows = [parse_state(s, knowledge.domains) for s in support]
    grid = all_states((d, d))
    table = dict(zip(map(tuple, grid.tolist()), knowledge.labels(grid).tolist()))
    labels = [table[r] for r in rows]
    total = 0
    for swap in (False, True):
        for f1 in itertools.product(range(d), repeat=d):
            ways = 1
            for v in range(d):  # f_2(v): the values that give every observed state its label
                need = [(a, b, y) for (a, b), y in zip(rows, labels) if (a if swap else b) == v]
                ok = [
                    w
                    for w in range(d)
                    if all(table[(f1[b if swap else a], w)] == y for a, b, y in need)
                ]
                ways *= len(ok)
                if not ways:
                    break
            total += ways
    return total


@pytest.mark.parametrize("name", ["rsbench/xor", "rsbench/mnlogic"])
def test_binary_task_counts_match_enumeration_on_the_exported_tables(name, tmp_path):
    task = get_task(name)
    knowledge, support = _exported(task, tmp_path)
    for family in ("joint", "disentangled", "shared"):
        got = count_task(task, family)
        if family == "joint":
            assert got.n_opt == _joint_tally(knowledge, support)
        elif family == "disentangled":
            pairs, distinct = enumerate_disentangled(knowledge, support, distinct=True)
            assert (got.n_opt, got.n_distinct) == (pairs, distinct)
        else:
            assert got.n_opt == enumerate_shared(knowledge, support)


def test_mnadd_half_counts_match_enumeration_on_the_exported_tables(tmp_path):
    task = get_task("mnadd-half")
    knowledge, support = _exported(task, tmp_path)
    assert count_task(task, "joint").n_opt == _joint_tally(knowledge, support)
    assert count_task(task, "shared").n_opt == enumerate_shared(knowledge, support) == 3
    assert count_task(task, "disentangled").n_opt == _two_digit_pairs(knowledge, support, 5) == 18


@pytest.mark.parametrize("name", ["rsbench/mnadd", "rsbench/mnadd-evenodd"])
def test_mnadd_counts_match_both_engines_and_the_closed_forms(name, tmp_path):
    from nesybench.counting.bypermutation import disentangled_by_permutation
    from nesybench.counting.search import disentangled_search
    from nesybench.logic.states import states_index
    from nesybench.shortcuts.categorical_counts import _shared_by_components

    task = get_task(name)
    knowledge, support = _exported(task, tmp_path)
    listed = CountingTask(knowledge, tuple(support))
    grid = all_states(task.domains)
    codes = knowledge.labels(grid)
    rows = listed.observed_rows()
    search = disentangled_search(codes, task.domains, states_index(rows, task.domains))
    by_perm = disentangled_by_permutation(codes, task.domains, rows)
    dis = count_task(task, "disentangled")
    assert (dis.n_opt, dis.n_distinct) == (search.n_pairs, search.n_distinct) == by_perm[:2]
    by_components = _shared_by_components(listed)  # None when one component has 10^10 maps
    assert by_components in (None, count_task(task, "shared").n_opt)
    assert count_task(task, "joint").n_opt == _joint_tally(knowledge, support)
    full = name == "rsbench/mnadd"
    assert (dis.n_opt, count_task(task, "shared").n_opt) == ((2, 1) if full else (2592, 36))


def test_sdd_oia_turn_blocks_match_enumeration():
    """The left and right blocks (6 concepts) enumerated pair by pair; their product with the
    forward/stop block is the factored count."""
    node = get_task("sdd-oia").structure
    counts = []
    for part in node.parts:
        table = part.table()
        grid = all_states(table.domains)
        kn = TableKnowledge(table.domains, table.codes, table.names)
        rows = grid if table.support is None else grid[table.support]
        support = [state_str(r, table.domains) for r in rows]
        engine = count_disentangled(CountingTask(kn, tuple(support))).n_opt
        if table.k <= 6:
            assert engine == enumerate_disentangled(kn, support)
        counts.append(engine)
    assert count_task("sdd-oia", "disentangled").n_opt == math.prod(counts) == 24 * 36 * 36


@pytest.mark.slow
def test_sdd_oia_factored_count_matches_the_engine_on_all_2_21_states():
    """The product rule against the engine's search over all 21! permutations (about a minute)."""
    from nesybench.counting.search import disentangled_search

    task = get_task("sdd-oia")
    table = task.structure.table()
    search = disentangled_search(
        table.codes,
        task.domains,
        table.support,
        pinned=np.zeros(len(table.support), dtype=bool),
        max_subproblems=0,
    )
    got = count_task(task, "disentangled")
    assert (search.n_pairs, search.n_distinct) == (got.n_opt, got.n_distinct) == (31104, 31104)


def test_large_tasks_count_exactly_or_refuse_in_one_line():
    kand = get_task("kandinsky")
    assert count_task(kand, "shared").n_opt == 6
    joint = count_task(kand, "joint")
    assert joint.n_opt is None and joint.factors and joint.log2_n_opt > 1e10
    with pytest.raises(CountRefused, match="387,420,489 states"):
        count_task(kand, "disentangled")
    assert count_task("mnmath", "shared").n_opt == 1
    with pytest.raises(CountRefused, match="stopped without finishing"):
        count_task("mnmath", "disentangled", max_subproblems=2000)


def test_count_task_on_a_given_support_and_supervision():
    evenodd = [state_str(r, (10, 10)) for r in support_frame("mnadd-evenodd").values]
    assert count_task("mnadd", "shared", support=evenodd).n_opt == 36
    assert count_task("mnadd-evenodd", "shared", supervised=["0:6"]).n_opt < 36
    sdd = count_task("sdd-oia", "disentangled", supervised=["000001" + "0" * 15])  # a car
    assert sdd.n_opt < 31104


def test_plan_task_reaches_one_optimum_on_mnadd_evenodd():
    plan = plan_task("mnadd-evenodd", 16)
    assert plan.n_opt[0] == 2592 and plan.n_opt[-1] == 1 and plan.stopped_early
    listed = CountingTask(
        get_task("mnadd-evenodd").knowledge(),
        tuple(state_str(r, (10, 10)) for r in support_frame("mnadd-evenodd").values),
    )
    for step in range(1, len(plan.picks) + 1):
        pinned = listed.with_supervised(plan.picks[:step])
        assert count_disentangled(pinned).n_opt == plan.n_opt[step]
    assert count_shared(listed).n_opt == 36


def test_export_refuses_tasks_past_a_knowledge_table():
    with pytest.raises(InputError, match="above the 4,194,304"):
        knowledge_frame("kandinsky")
