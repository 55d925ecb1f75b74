"""``nesybench tasks``, ``count --task``, ``plan-supervision --task`` and the exports: the numbers
through the command line, the tables the exporters write read back by the readers, and every
bad input as one error line with exit 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from nesybench.cli import main
from nesybench.counting.tasks import TASKS, count_task
from tests.cli_cases import Case, parametrize, run_case


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_tasks_lists_every_task_with_its_source(capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    for name, task in TASKS.items():
        assert name in out and task.source.split(":")[0].split(",")[0] in out
    records = _json(capsys, "tasks", "--json")
    assert [r["name"] for r in records] == list(TASKS)
    sdd = next(r for r in records if r["name"] == "rsbench/sdd-oia")
    assert sdd["outputs"] == ["forward", "stop", "left", "right"]
    assert (sdd["n_states"], sdd["n_observed"], len(sdd["concepts"])) == (2**21, 835_584, 21)
    assert "free choice" in sdd["support"]


def test_tasks_name_shows_every_concept(capsys):
    assert main(["tasks", "rsbench/kandinsky"]) == 0
    out = capsys.readouterr().out
    assert "figure_3_colour_3" in out and "{red, yellow, blue}" in out


@pytest.mark.parametrize(
    ("name", "extractor", "n_opt"),
    [
        ("rsbench/mnadd-evenodd", "shared", "36"),
        ("rsbench/mnadd-evenodd", "disentangled", "2592"),
        ("rsbench/mnadd-half", "disentangled", "18"),
        ("rsbench/xor", "disentangled", "24"),
        ("rsbench/sdd-oia", "disentangled", "31104"),
        ("rsbench/mnmath", "shared", "1"),
    ],
)
def test_count_task_json_gives_the_api_count(capsys, name, extractor, n_opt):
    record = _json(capsys, "count", "--task", name, "--extractor", extractor, "--json")
    assert record["n_opt"] == n_opt == str(count_task(name, extractor).n_opt)
    assert record["task"] == name and record["exact"] is True


def test_count_task_astronomical_counts_are_exact_factors(capsys):
    record = _json(capsys, "count", "--task", "rsbench/mnmath", "--extractor", "joint", "--json")
    assert record["n_opt"] is None and record["n_observed"] == 10**8
    assert sum(e for _, e in record["n_opt_factors"]) == 10**8
    assert record["log2_n_opt"] > 2.5e9
    assert main(["count", "--task", "rsbench/mnmath", "--extractor", "joint"]) == 0
    out = capsys.readouterr().out
    assert "^" in out.splitlines()[0] and "log2 N_opt = 2590537850" in out


def test_count_task_exports_read_back_as_knowledge_table_and_support_file(capsys, tmp_path):
    k, s = tmp_path / "k.csv", tmp_path / "s.parquet"
    record = _json(
        capsys,
        "count",
        "--task",
        "rsbench/mnadd-evenodd",
        "--extractor",
        "disentangled",
        "--export-knowledge",
        str(k),
        "--export-support",
        str(s),
        "--json",
    )
    assert len(pd.read_csv(k)) == 100 and len(pd.read_parquet(s)) == 16
    again = _json(
        capsys,
        "count",
        "--knowledge-table",
        str(k),
        "--support-file",
        str(s),
        "--extractor",
        "disentangled",
        "--json",
    )
    assert again["n_opt"] == record["n_opt"] == "2592"
    assert again["support"] == record["support"]


def test_count_task_with_a_given_support_exports_that_support(capsys, tmp_path):
    s = tmp_path / "s.csv"
    record = _json(
        capsys,
        "count",
        "--task",
        "rsbench/mnadd",
        "--support",
        "6:0,0:6",
        "--extractor",
        "shared",
        "--export-support",
        str(s),
        "--json",
    )
    assert record["support"] == ["0:6", "6:0"] and record["n_observed"] == 2
    assert pd.read_csv(s).values.tolist() == [[0, 6], [6, 0]]


def test_count_task_engine_methods_run_on_the_listed_table(capsys):
    record = _json(
        capsys,
        "count",
        "--task",
        "rsbench/mnlogic",
        "--extractor",
        "disentangled",
        "--method",
        "enumerate",
        "--json",
    )
    assert record["n_opt"] == "192" and record["method"] == "enumerate"


def test_plan_supervision_task_reaches_one_optimum(capsys):
    record = _json(
        capsys, "plan-supervision", "--task", "rsbench/mnadd-evenodd", "--budget", "8", "--json"
    )
    assert record["n_opt_before"] == "2592" and record["picks"][-1]["n_opt"] == "1"
    assert record["stopped_early"] is True and record["task"] == "rsbench/mnadd-evenodd"
    sdd = _json(capsys, "plan-supervision", "--task", "rsbench/sdd-oia", "--budget", "3", "--json")
    assert sdd["n_opt_before"] == "31104" and sdd["picks"][-1]["n_opt"] == "1"


TASK = ["count", "--task"]
CASES = [
    Case("unknown-task", [*TASK, "rsbench/nope"], err="unknown task 'rsbench/nope'"),
    Case("task-and-knowledge", [*TASK, "xor", "--knowledge", "xor"], err="not allowed"),
    Case("task-and-k", [*TASK, "xor", "--k", "3"], err="--k: a named task brings"),
    Case("task-and-domains", [*TASK, "xor", "--domains", "2,2,2"], err="--domains: a named"),
    Case("task-bad-support", [*TASK, "xor", "--support", "0102"], err="support"),
    Case("task-support-outside", [*TASK, "mnadd-half", "--support", "7:0"], err="out of range"),
    Case(
        "task-refused",
        [*TASK, "rsbench/kandinsky", "--extractor", "disentangled"],
        err="387,420,489 states.*permutations",
    ),
    Case(
        "task-budget-refused",
        [*TASK, "rsbench/mnmath", "--extractor", "disentangled", "--max-subproblems", "500"],
        err="stopped without finishing",
    ),
    Case(
        "task-shared-unequal-domains",
        [*TASK, "rsbench/clevr", "--extractor", "shared"],
        err="equal domains",
    ),
    Case(
        "task-export-too-large",
        [*TASK, "rsbench/kandinsky", "--extractor", "joint", "--export-knowledge", "k.csv"],
        err="above the 4,194,304",
        out="k.csv",
    ),
    Case(
        "task-export-into-directory",
        [*TASK, "xor", "--export-knowledge", "{tmp}"],
        err="is a directory",
    ),
    Case(
        "export-without-task",
        ["count", "--knowledge", "xor", "--k", "2", "--support", "00", "--export-support", "s"],
        err="give --task",
        out="s",
    ),
    Case("task-supervised-outside", [*TASK, "mnadd-evenodd", "--supervised", "1:1"], err="not in"),
    Case(
        "plan-task-budget-too-large",
        ["plan-supervision", "--task", "xor", "--budget", "9"],
        err="only 8 observed",
    ),
    Case(
        "plan-task-refused",
        ["plan-supervision", "--task", "kandinsky", "--budget", "1"],
        err="387,420,489 states",
    ),
    Case("tasks-unknown", ["tasks", "nope"], err="unknown task"),
    Case(
        "ok-task-shared",
        [*TASK, "rsbench/mnadd-evenodd", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 36 ",
    ),
]


@parametrize(CASES)
def test_task_cli_case(case, tmp_path):
    run_case(case, tmp_path)
