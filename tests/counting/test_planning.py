"""The supervision planner: greedy picks against brute force, early stop, the joint optimum."""

from __future__ import annotations

import itertools
import json

import pytest

from nesybench.cli import main
from nesybench.counting import (
    CountingTask,
    count_disentangled,
    count_joint,
    count_shared,
    plan_supervision,
)
from nesybench.counting.search import SearchTooLarge
from nesybench.errors import InputError
from nesybench.logic import TableKnowledge, make_knowledge

EVEN_ODD = [
    "0:6", "6:0", "2:8", "8:2", "4:6", "6:4", "4:8", "8:4",
    "1:5", "5:1", "3:7", "7:3", "1:9", "9:1", "3:9", "9:3",
]  # fmt: skip


def test_plan_even_odd_shared_reaches_the_identity_in_two_labels():
    task = CountingTask(make_knowledge("sum", (10, 10)), EVEN_ODD)
    plan = plan_supervision(task, 3, extractor="shared")
    # one label fixes the even map (6 left: the odd digits' 6 maps), a second the odd one
    assert plan.n_opt == (36, 6, 1) and plan.stopped_early
    assert count_shared(task.with_supervised(plan.picks)).n_opt == 1
    assert plan.optimum[0][1] == 6 and plan.gap(1) == 0 and plan.gap(2) == 0


def test_greedy_picks_recount_to_the_reported_numbers():
    task = CountingTask(make_knowledge("xor", 3), ["000", "011", "101", "110", "111"])
    plan = plan_supervision(task, 2, extractor="disentangled")
    for b in range(1, len(plan.picks) + 1):
        recount = count_disentangled(task.with_supervised(plan.picks[:b])).n_opt
        assert recount == plan.n_opt[b]
    assert all(a >= b for a, b in zip(plan.n_opt, plan.n_opt[1:]))


def test_exact_optimum_is_the_brute_force_minimum_and_bounds_greedy():
    labels = [0, 1, 1, 2, 0, 2, 1, 0, 2]
    task = CountingTask(
        TableKnowledge.from_labels((3, 3), labels), ["0:0", "0:1", "1:2", "2:0", "2:2"]
    )
    plan = plan_supervision(task, 2, extractor="disentangled")
    for b in (1, 2):
        brute = min(
            count_disentangled(task.with_supervised(s)).n_opt
            for s in itertools.combinations(task.support, b)
        )
        assert plan.optimum[b - 1][1] == brute <= plan.n_opt[b]
    assert len(plan.picks) == 2


def test_greedy_can_fall_short_of_the_optimum():
    # Found by search over small tables: labelling 0:0 first leaves 18 optima (the best single
    # label), but the best pair is 0:1 with 1:0 (3 left), which greedy misses (6 left).
    labels = [1, 1, 0, 1, 0, 0, 1, 1, 0]
    task = CountingTask(TableKnowledge.from_labels((3, 3), labels), ["0:0", "0:1", "0:2", "1:0"])
    plan = plan_supervision(task, 2, extractor="disentangled")
    assert plan.picks == ("0:0", "1:0") and plan.n_opt == (102, 18, 6)
    assert plan.optimum[1] == (("0:1", "1:0"), 3) and plan.gap(2) == 3


def test_joint_greedy_is_optimal():
    task = CountingTask(make_knowledge("sum", (3, 3)), ["0:0", "1:1", "0:2", "2:2"])
    plan = plan_supervision(task, 2, extractor="joint")
    # the two states with the largest label classes (sum 2: 3 states) ... then sum 1 or 3
    assert plan.picks[0] in ("1:1", "0:2")
    assert all(plan.gap(b) == 0 for b in (1, 2))
    assert plan.n_opt[2] == count_joint(task.with_supervised(plan.picks)).n_opt


def test_exact_optimum_skipped_when_too_many_subsets():
    task = CountingTask(make_knowledge("xor", 3), ["000", "011", "101", "110", "111"])
    plan = plan_supervision(task, 2, extractor="disentangled", exact_max_subsets=3)
    assert plan.optimum[0] is None and "subsets" in plan.optimum_reason


def test_plan_budget_is_checked():
    task = CountingTask(make_knowledge("sum", (10, 10)), ["0:6", "6:0"], ["0:6"])
    with pytest.raises(InputError, match="only 1 observed state can still be labelled"):
        plan_supervision(task, 2)
    with pytest.raises(InputError, match="budget must be an integer >= 1, got 0"):
        plan_supervision(task, 0)


def test_cli_plan_supervision_json(capsys):
    assert (
        main(
            [
                "plan-supervision",
                "--knowledge",
                "sum",
                "--domains",
                "10,10",
                "--support",
                ",".join(EVEN_ODD),
                "--budget",
                "2",
                "--extractor",
                "shared",
                "--json",
            ]
        )
        == 0
    )
    record = json.loads(capsys.readouterr().out)
    assert record["n_opt_before"] == "36"
    assert [p["n_opt"] for p in record["picks"]] == ["6", "1"]
    assert record["greedy_gap"] == [0, 0] and record["stopped_early"] is False


def test_a_plan_whose_worst_case_passes_the_budget_runs_when_its_picks_stay_within_it():
    """Refusal is decided by the first pick (one recount per candidate), not candidates x
    picks: a full-budget plan on sum 10x10 is 10,000 counts at worst but stops after one
    pick; 99 candidates past the budget are refused at once, naming the option."""
    task = CountingTask(make_knowledge("sum", (10, 10)))
    plan = plan_supervision(task, task.n_observed, max_subproblems=5000)
    assert plan.n_opt == (2, 1) and len(plan.picks) == 1
    with pytest.raises(SearchTooLarge, match=r"each of 100 candidates.*--max-subproblems N"):
        plan_supervision(task, 2, max_subproblems=99)
