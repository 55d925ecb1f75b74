"""The shortcuts generate and count stages end to end (tmp dir, no Snakemake): the spec's table,
byte-identical reruns, claims and params checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.counting import ExactCounter, count_optima
from nesybench.errors import ClaimFailed, InputError
from nesybench.io import read_parquet
from nesybench.logic import all_states, from_dimacs, make_knowledge, state_str
from nesybench.params import validate_params
from nesybench.stages import run_job

SPEC_CNF = "(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)"


def states(k):
    return [state_str(s) for s in all_states(k)]


# ---- the generate and count stages end to end (tmp dir, no Snakemake) -------

REPO = Path(__file__).resolve().parents[2]


def shortcuts_params(**overrides):
    params = {
        "seed": 0,
        "noise": 0.25,
        "n_distractors": 2,
        "support_frac": 1.0,
        "support_fracs": [1.0, 0.75, 0.5],
        "tasks": {
            "xor2": {"knowledge": "xor", "k": 2},
            "xor3": {"knowledge": "xor", "k": 3},
            "cnf3": {"knowledge": SPEC_CNF, "k": 3},
        },
        "demo": {"task": "xor2", "n_train_per_state": 20, "n_test_per_state": 50, "bias_frac": 0.5},
        "count": {
            "extractors": ["joint", "disentangled"],
            "method": "auto",
            "epsilon": 0.8,
            "delta": 0.2,
        },
    }
    # generate also writes the concept models' datasets: take those sections from the repository's
    # params
    repo = yaml.safe_load((REPO / "params.yaml").read_text())["shortcuts"]
    params["models"] = repo["models"]
    params["incidence"] = {**repo["incidence"], "tasks": ["xor2"], "support_fracs": [1.0]}
    for key in (
        "n_seeds",
        "seed_block",
        "digits",
        "categorical",
        "claims",
        "exhibit",
    ):  # the model stages'
        params[key] = repo[key]
    params.update(overrides)
    return params


def run_stages(root, params, stages=("generate", "count")):
    for stage in stages:
        run_job("shortcuts", stage, params={"shortcuts": params}, root=root)


def test_stages_write_the_spec_table(tmp_path, capsys):
    run_stages(tmp_path, shortcuts_params())
    out = capsys.readouterr().out
    assert "support bias 0.5: train sees only {" in out and "concept dims carry their bit" in out
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    joint = table[table["extractor"] == "joint"].set_index(["task", "support_frac"])["n_opt"]
    assert [joint["xor2", f] for f in (1.0, 0.75, 0.5)] == ["16", "32", "64"]
    assert [joint["xor3", f] for f in (1.0, 0.75, 0.5)] == ["65536", "262144", "1048576"]
    assert joint["cnf3", 1.0] == "84375"
    # The CNF rows at partial support are the factored value of the kept states.
    knowledge = make_knowledge(SPEC_CNF, 3)
    for frac in (0.75, 0.5):
        kept = table[
            (table["task"] == "cnf3")
            & (table["support_frac"] == frac)
            & (table["extractor"] == "joint")
        ]["support"].item()
        assert joint["cnf3", frac] == str(count_optima(knowledge, kept.split(",")).n_opt)
    dis = table[table["extractor"] == "disentangled"].set_index(["task", "support_frac"])["n_opt"]
    assert dis["xor3", 1.0] == "24"  # 3! x 4 even negation sets
    # Every DIMACS artifact recounts to its recorded model count.
    dimacs = read_parquet(tmp_path / "data/count/shortcuts/dimacs.parquet")
    assert set(dimacs["formula"]) == {"knowledge", "optima"}
    for row in dimacs.itertuples(index=False):
        assert str(ExactCounter().count(from_dimacs(row.dimacs)).value) == row.model_count
    plot = (tmp_path / "reports/plots/shortcuts-n_opt.csv").read_text().splitlines()
    assert plot[0] == "support_frac,cnf3,xor2,xor3" and len(plot) == 4
    assert plot[1].startswith("1,16.") and plot[3].startswith("0.5,")  # rows from full support down


def test_stages_are_byte_identical_across_runs(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    run_stages(first, shortcuts_params())
    run_stages(second, shortcuts_params())
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    # generate: points, certificate, model_points, metrics; count: n_opt, dimacs, the two
    # categorical tables, metrics; the N_opt plot
    assert {p.name for p in files} >= {
        "points.parquet",
        "certificate.parquet",
        "model_points.parquet",
        "n_opt.parquet",
        "dimacs.parquet",
        "categorical_counts.parquet",
        "categorical_plans.parquet",
        "metrics.json",
        "shortcuts-n_opt.csv",
    } and len(files) == 10
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_count_stage_claim_fails_when_growth_breaks(tmp_path, monkeypatch):
    from nesybench.shortcuts import count_tables

    params = shortcuts_params(tasks={"xor2": {"knowledge": "xor", "k": 2}})
    run_stages(tmp_path, params, stages=("generate",))
    real = count_tables.count_optima

    def frozen(knowledge, support, **kwargs):  # a counter that ignores the support
        return real(knowledge, ["00", "01", "10", "11"], **kwargs)

    monkeypatch.setattr(count_tables, "count_optima", frozen)
    with pytest.raises(ClaimFailed):
        run_stages(tmp_path, params, stages=("count",))


def test_random3cnf_task_runs_through_the_stages(tmp_path):
    params = shortcuts_params(
        tasks={
            "xor2": {"knowledge": "xor", "k": 2},
            "r4": {"knowledge": "random3cnf", "k": 4, "m": 6},
        }
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    assert set(table["task"]) == {"xor2", "r4"}


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("support_frac",), 1.5, "shortcuts.support_frac must be <= 1, got 1.5"),
        (("support_frac",), 0, "shortcuts.support_frac must be > 0, got 0"),
        (("support_fracs",), [1.0, 1.0], "shortcuts.support_fracs must not repeat items"),
        (("tasks", "xor2", "k"), 0, "shortcuts.tasks.xor2.k must be >= 1, got 0"),
        (("count", "method"), "guess", "shortcuts.count.method must be one of"),
        (("count", "delta"), 1, "shortcuts.count.delta must be < 1, got 1"),
        (("noise",), -1, "shortcuts.noise must be >= 0, got -1"),
    ],
)
def test_schema_rejects_bad_params_with_one_line(tmp_path, path, value, message):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    shutil.copy(REPO / "workflow/schemas/shortcuts.schema.yaml", schemas)
    shutil.copy(REPO / "workflow/schemas/knobs.schema.yaml", schemas)
    (schemas / "params.schema.yaml").write_text(
        yaml.safe_dump(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"shortcuts": {"$ref": "shortcuts.schema.yaml"}},
            }
        )
    )
    params = shortcuts_params()
    target = params
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    validate_params({"shortcuts": shortcuts_params()}, schema_dir=schemas)  # the defaults pass
    with pytest.raises(InputError) as info:
        validate_params({"shortcuts": params}, schema_dir=schemas)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_count_stage_bad_task_knowledge_is_user_error(tmp_path):
    # refused at load time, naming the key: tests/core/test_params_checks.py
    with pytest.raises(InputError, match="knowledge: variable x4"):
        run_stages(
            tmp_path,
            shortcuts_params(
                tasks={
                    "xor2": {"knowledge": "xor", "k": 2},
                    "bad": {"knowledge": "(x1 | x4)", "k": 3},
                }
            ),
        )


def test_generate_stage_demo_at_half_support(tmp_path, capsys):
    # `dvc exp run -S shortcuts.support_frac=0.5` changes only the demo's support.
    run_stages(
        tmp_path,
        shortcuts_params(support_frac=0.5, support_fracs=[1.0, 0.75]),
        stages=("generate",),
    )
    out = capsys.readouterr().out
    assert "support 0.50 (2/4 states)" in out
    cert = read_parquet(tmp_path / "data/generate/shortcuts/certificate.parquet")
    demo = cert[(cert["task"] == "xor2") & (cert["support_frac"] == 0.5)].set_index("split")
    assert demo.loc["train", "n_states"] == 2 and demo.loc["ood", "n_states"] == 2
    assert demo.loc["ood", "points"] == 2 * 50


def test_count_stage_approx_method_marks_rows_inexact(tmp_path):
    params = shortcuts_params(
        tasks={"xor2": {"knowledge": "xor", "k": 2}},
        count={
            "extractors": ["joint", "disentangled"],
            "method": "approx",
            "epsilon": 0.8,
            "delta": 0.2,
        },
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    assert not table["exact"].any() and (table["method"] == "approx").all()
    assert (table["certified_by"] == "").all()  # estimates are reported, not certified


@pytest.mark.parametrize("method", ["exact", "enumerate"])
def test_count_stage_certifies_with_other_methods(tmp_path, method):
    params = shortcuts_params(
        tasks={"xor2": {"knowledge": "xor", "k": 2}},
        count={
            "extractors": ["joint", "disentangled"],
            "method": method,
            "epsilon": 0.8,
            "delta": 0.2,
        },
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet").set_index(
        ["extractor", "support_frac"]
    )
    assert (
        table.loc[("joint", 1.0), "n_opt"] == "16"
        and table.loc[("disentangled", 1.0), "n_opt"] == "4"
    )
    assert table.loc[("joint", 1.0), "method"] == method
    # The primary method never certifies itself.
    certified = table.loc[("joint", 1.0), "certified_by"].split(",")
    assert ("enumeration" in certified) == (method != "enumerate") and "factored" in certified
