"""Params are checked once, at load time: a message about a params.yaml key is written only
by ``nesybench.params`` (the schema) and an instrument's ``params_checks`` module (the
cross-key checks its ``check_params`` runs inside ``load_params``), never inside a job.

Read with ast: any string literal, or f-string, in another module that starts with
``params.yaml:`` (a check a job would run after the run has started) fails this test.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from nesybench import INSTRUMENTS

SRC = Path(__file__).resolve().parents[2] / "src" / "nesybench"
CHECKERS = {"params.py", *(f"{name}/params_checks.py" for name in INSTRUMENTS)}
PREFIX = "params.yaml:"


def _leading_text(node: ast.AST) -> str | None:
    """The literal text a string expression starts with (an f-string's first constant part)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _leading_text(node.values[0])
    return None


def params_messages(path: Path) -> list[int]:
    """Lines of the strings in ``path`` that start with ``params.yaml:`` (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and id(node) not in docstrings
        ):
            text = _leading_text(node)
            if text is not None and text.startswith(PREFIX):
                lines.append(node.lineno)
    return sorted(set(lines))


MODULES = sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).as_posix() not in CHECKERS)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_job_module_writes_a_params_yaml_message(path):
    found = params_messages(path)
    assert not found, (
        f"{path.relative_to(SRC)} lines {found}: a params.yaml check belongs in "
        "nesybench/<instrument>/params_checks.py (check_params, run by load_params)"
    )


def test_the_scan_finds_a_params_message(tmp_path):
    """The rule can fail: an in-job check of either form is found, a docstring is not."""
    job = tmp_path / "job.py"
    job.write_text(
        '"""params.yaml: the docstring may say so."""\n'
        "def f(x):\n"
        '    raise ValueError("params.yaml: x must be 1, got 2")\n'
        "def g(k):\n"
        '    raise ValueError(f"params.yaml: shortcuts.{k} must be 1, got 2")\n',
        encoding="utf-8",
    )
    assert params_messages(job) == [3, 5]


def test_every_instrument_has_its_checker():
    for name in INSTRUMENTS:
        assert (SRC / name / "params_checks.py").is_file(), name


# Loading params.yaml runs every check_params in the Snakemake process (at each DAG build,
# a no-op rerun included) and at the start of every job: the checks must not pull in the
# training and scoring stack, which a job that needs it imports anyway.
HEAVY = ("scipy.optimize", "scipy.special", "sklearn", "pyganak", "pyapproxmc", "z3")


def test_load_params_imports_no_training_or_scoring_stack():
    code = (
        "import sys\n"
        "from nesybench.params import load_params\n"
        f"load_params({str(SRC.parents[1] / 'params.yaml')!r})\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "", f"load_params imported {done.stdout.strip()}"
