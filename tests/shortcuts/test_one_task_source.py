"""A concept task is built once, by the generate stage, and loaded one way after it.

The generate stage builds every task from params.yaml and certifies it; every later stage
loads it from the certificate it wrote (``tasks.generated_tasks``), and the score aggregate
reads N_opt from the count stage's table instead of counting again.  Three guards: the
stage code constructs tasks only inside the generate stage (read with ast); a certificate
that disagrees with params.yaml is what every downstream stage follows; the rules declare
the certificate and the count table as inputs (dvc.yaml, generated from them, shows it).
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from nesybench.artifacts import registry
from nesybench.counting import count_optima
from nesybench.errors import ClaimFailed
from nesybench.io import read_parquet
from nesybench.logic.knowledge import make_knowledge
from tests.shortcuts.jobs import run_shortcuts

ROOT = Path(__file__).resolve().parents[2]
SHORTCUTS = ROOT / "src" / "nesybench" / "shortcuts"

# What builds a task or its formula from params, and the only functions allowed to call it.
BUILDERS = {"resolve_knowledge", "make_task", "random_3cnf", "make_knowledge", "certified_tasks"}
ALLOWED = {
    ("tasks.py", "resolve_knowledge"),  # the params -> formula builder itself
    ("tasks.py", "random_3cnf"),
    ("tasks.py", "certified_tasks"),  # the certificate -> formula loader
    ("tasks.py", "generated_tasks"),  # the one loader stage code calls
    ("pipeline.py", "_task_from_params"),  # the generate stage
}
# Modules that build tasks for a purpose other than a stage after generate.
OTHER_USES = {
    "cli.py",  # the user's own tasks on the command line
    "named_tasks.py",
    "categorical_counts.py",  # MNIST-Addition count tables (no concept task)
    "rsbench_counts.py",
    "digits/tasks.py",  # the digit pipeline's own task (sum of digits)
    "digits/evaluation.py",
    "digits/nesy.py",
    "params_checks.py",  # load time: that every task's knowledge builds, before any job runs
}


def _calls(path: Path):
    """(enclosing top-level function, called name) of every call in a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for top in tree.body:
        if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                yield top.name, name


def test_only_the_generate_stage_and_the_one_loader_build_tasks():
    found = []
    for path in sorted(SHORTCUTS.rglob("*.py")):
        rel = path.relative_to(SHORTCUTS).as_posix()
        if rel in OTHER_USES:
            continue
        for func, name in _calls(path):
            if name in BUILDERS and (Path(rel).name, func) not in ALLOWED:
                found.append(f"shortcuts/{rel}: {func} calls {name}")
    assert not found, "load a task with tasks.generated_tasks(ctx):\n" + "\n".join(found)


def test_the_ast_walk_sees_a_second_builder(tmp_path):
    probe = tmp_path / "pipeline.py"
    probe.write_text("def score(ctx):\n    return resolve_knowledge('xor2', {}, seed=0)\n")
    assert ("score", "resolve_knowledge") in set(_calls(probe))


# ---- a certificate that disagrees with params.yaml is what every stage follows ---------


def _section() -> dict:
    section = copy.deepcopy(yaml.safe_load((ROOT / "params.yaml").read_text())["shortcuts"])
    section.update(n_seeds=1, seed_block=1, tasks={"xor2": {"knowledge": "xor", "k": 2}})
    section["demo"]["task"] = "xor2"
    section["models"].update(task="xor2", epochs=20, exhibit_scan=1)
    section["incidence"] = {"tasks": ["xor2"], "support_fracs": [1.0, 0.5]}
    return section


FORMULAS = ("xor", "(x1 | x2)")  # what generate certified, what params.yaml says afterwards
DOWNSTREAM = (("count", None, {}), ("train", "concepts", {"block": 0}))
SCORED = ("score", "concepts", {"block": 0})


def _downstream_tables(root: Path, section: dict) -> dict[str, pd.DataFrame]:
    """Every table of the downstream jobs (their data: the files also record the job's
    params, which differ here by design)."""
    for stage, step, args in (*DOWNSTREAM, SCORED):
        run_shortcuts(root, section, stage, step, **args)
    reg = registry("shortcuts")
    out = {}
    for stage, step, args in (*DOWNSTREAM, SCORED):
        for name in reg.job(stage, step).tables:
            path = reg.path(stage, name, **args)
            out[path] = read_parquet(root / path)
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """generate run once with xor2 as parity; the downstream stages run with its params."""
    root = tmp_path_factory.mktemp("certified")
    section = _section()
    run_shortcuts(root, section, "generate")
    return root, section, _downstream_tables(root, section)


def test_downstream_stages_follow_the_certificate_not_params(generated, tmp_path):
    """params.yaml now says xor2 is x1 | x2, after generate certified it as parity: count,
    train and score still work on parity, table for table (the params' formula would count other
    optima and train on other labels)."""
    import shutil

    root, section, expected = generated
    moved = copy.deepcopy(section)
    moved["tasks"]["xor2"] = {"knowledge": FORMULAS[1], "k": 2}
    copy_root = tmp_path / "run"
    shutil.copytree(root / "data" / "generate", copy_root / "data" / "generate")
    got = _downstream_tables(copy_root, moved)
    assert list(got) == list(expected)
    for path, table in expected.items():
        pd.testing.assert_frame_equal(got[path], table, obj=path)
    n_opt = read_parquet(copy_root / registry("shortcuts").path("count", "n_opt"))
    row = n_opt[(n_opt["support_frac"] == 0.5) & (n_opt["extractor"] == "joint")].iloc[0]
    support = row["support"].split(",")
    parity, moved_to = (count_optima(make_knowledge(f, 2), support).n_opt for f in FORMULAS)
    assert row["n_opt"] == str(parity) and parity != moved_to  # the perturbation matters


def test_score_aggregate_reads_n_opt_from_the_count_table(generated, monkeypatch):
    """The incidence cells take log2 N_opt from count's table: a count table whose support
    differs from the model dataset's is refused, not silently recounted."""
    from nesybench.shortcuts import pipeline

    root, section, _ = generated
    table = read_parquet(root / registry("shortcuts").path("count", "n_opt"))
    table.loc[table["support_frac"] == 0.5, "support"] = "00,01,10,11"

    class Ctx:
        registry = registry("shortcuts")

        def read_table(self, name, *, stage):
            assert (name, stage) == ("n_opt", "count")
            return table

    cells = [("xor2", 1.0, 2, ("00", "01", "10", "11")), ("xor2", 0.5, 2, ("00", "11"))]
    with pytest.raises(ClaimFailed, match="the count of xor2 at support 0.5 is of support"):
        pipeline._counted_log2(Ctx(), cells)
    good = read_parquet(root / registry("shortcuts").path("count", "n_opt"))
    Ctx.read_table = lambda self, name, *, stage: good
    support = good[(good["support_frac"] == 0.5) & (good["extractor"] == "joint")].iloc[0]
    cells[1] = ("xor2", 0.5, 2, tuple(support["support"].split(",")))
    got = pipeline._counted_log2(Ctx(), cells)
    assert got[("xor2", 0.5)] == float(support["log2_n_opt"])


# ---- the edges are declared: dvc.yaml (generated from the rules) shows them -------------

CERTIFICATE = "data/generate/shortcuts/certificate.parquet"
N_OPT = "data/count/shortcuts/n_opt.parquet"
TASK_READERS = (
    "shortcuts_count",
    "shortcuts_train_concepts",
    "shortcuts_train_exhibit",
    "shortcuts_score_concepts",
    "shortcuts_score_aggregate",
    "shortcuts_calibrate_concepts",
    "shortcuts_calibrate_variant",
    "shortcuts_calibrate_sensitivity",
)


def test_the_rules_declare_the_certificate_and_the_count_table():
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    registry_paths = registry("shortcuts")
    assert str(registry_paths.path("generate", "certificate")) == CERTIFICATE
    assert str(registry_paths.path("count", "n_opt")) == N_OPT
    missing = [name for name in TASK_READERS if CERTIFICATE not in stages[name]["deps"]]
    assert not missing, f"these stages load tasks but do not depend on {CERTIFICATE}: {missing}"
    assert N_OPT in stages["shortcuts_score_aggregate"]["deps"]
