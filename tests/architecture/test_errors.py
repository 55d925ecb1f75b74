"""One way to fail on bad input: one error class (``nesybench.errors.InputError``, a
``ValueError``) and one message template, ``<where>: <name> must be <constraint>, got <value>``.

Parse errors keep the parser's form (``<where>: <position>: expected <token>, got <token>``)
in the modules that parse text; declarations of the project's own structure (a job, a
table schema, a CLI epilog) are programming errors and stay ``ValueError``.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from nesybench.errors import InputError, bad_value

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "nesybench"

PARSERS = {"logic/cnf.py", "logic/states.py", "nli/logiclm_semantics.py", "nli/logiclm_folio.py"}
DECLARATIONS = {
    "artifacts.py",
    "tables.py",
    "cli_args.py",
    "report/pipeline.py",
    "io.py",
    "metric_keys.py",  # a key the code makes is the code's slip, not the user's
}
RAISED = {"InputError", "SearchTooLarge", "CountRefused", "ProgramError", "FolSyntaxError"}


def _message(call: ast.Call) -> str | None:
    if not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in arg.values)
    return None


def offences(source: str, rel: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "UserError":
            found.append(f"{rel}:{node.lineno}: a second bad-input class UserError")
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        func = node.exc.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name == "ValueError" and rel not in DECLARATIONS:
            found.append(f"{rel}:{node.lineno}: raise ValueError (bad input is InputError)")
        text = _message(node.exc)
        if name not in RAISED or text is None:
            continue
        if re.search(r"[\w\]'}]: must ", text):
            found.append(f"{rel}:{node.lineno}: '<name>: must' (template: '<name> must be')")
        if rel not in PARSERS and re.search(r"^[-\w.\[\]{}']+: expected .*, got", text):
            found.append(f"{rel}:{node.lineno}: '<name>: expected X, got' (template: must be)")
    return found


def test_every_bad_input_raise_follows_the_one_class_and_template():
    hits = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        hits += offences(path.read_text(encoding="utf-8"), rel)
    assert not hits, "\n".join(hits)


def test_no_tracked_file_names_the_old_class():
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.smk"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    this = Path(__file__).relative_to(ROOT).as_posix()
    named = [f for f in files if f != this and re.search(r"\bUserError\b", (ROOT / f).read_text())]
    assert not named, named


@pytest.mark.parametrize(
    "snippet, rel",
    [
        ("class UserError(Exception): pass", "errors.py"),
        ("raise ValueError(f'n must be >= 1, got {n}')", "axes/design.py"),
        ("raise InputError(f'extractor: must be one of a, b, got {x!r}')", "counting/optima.py"),
        ("raise InputError(f'levels.depth: expected integers, got {v!r}')", "axes/grid.py"),
    ],
)
def test_the_check_sees_each_kind_of_slip(snippet, rel):
    assert len(offences(snippet, rel)) == 1


def test_a_parser_keeps_its_form_and_a_declaration_its_value_error():
    assert offences("raise InputError(f'f: expected a variable, got {t!r}')", "logic/cnf.py") == []
    assert offences("raise ValueError(f'Job: stage must be one of {S}')", "artifacts.py") == []


def test_the_template_and_the_class():
    error = bad_value("n_bins", "an integer in [1, 10000]", 0, where="ece")
    assert isinstance(error, InputError) and isinstance(error, ValueError)
    assert str(error) == "ece: n_bins must be an integer in [1, 10000], got 0"


def test_a_library_slip_is_caught_as_a_value_error_with_the_template():
    from nesybench.counting import count_optima
    from nesybench.logic import make_knowledge

    with pytest.raises(ValueError, match=r"^extractor must be one of .*, got 'bogus'$"):
        count_optima(make_knowledge("xor", 2), extractor="bogus")
