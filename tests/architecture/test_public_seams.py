"""Fault injection goes through public seams: no test monkeypatches a ``_``-prefixed name.

A test that replaces a private helper (``monkeypatch.setattr(mod, "_count", ...)``) is
silently disabled when a refactor renames or inlines the helper: the patch still applies
(``raising`` aside) and the code under test no longer calls it.  Inject at a public function
the module calls, a documented hook or an input file instead.  ``ALLOWED`` lists the
exceptions, each with the reason it has no public seam (none today).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

ALLOWED: dict[str, str] = {}  # "<test file>:<patched name>" -> why no public seam exists

PATCHERS = {"setattr", "patch", "object", "setitem", "delattr"}


def _dotted(node: ast.AST) -> list[str]:
    """The names of an attribute chain, ``grid_mod._Shared`` -> ``["grid_mod", "_Shared"]``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return parts[::-1]


def private_patches(source: str) -> list[tuple[int, str]]:
    """(line, name) of every monkeypatch / mock.patch of a ``_``-prefixed name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in PATCHERS:
            continue
        names = []
        for arg in node.args[:2]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names += arg.value.split(".")  # "nesybench.x._y" or the attribute's name
            else:
                names += _dotted(arg)[1:]  # the object's path after its module alias
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private:
            found.append((node.lineno, ".".join(private)))
    return found


def test_no_test_monkeypatches_a_private_name():
    hits = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        for line, name in private_patches(path.read_text(encoding="utf-8")):
            if f"{rel}:{name}" not in ALLOWED:
                hits.append(f"tests/{rel}:{line}: patches private {name}")
    assert not hits, "\n".join(hits)


def test_the_scan_finds_each_form_of_private_patch():
    source = """
monkeypatch.setattr(categorical_counts, "_count", f)
monkeypatch.setattr(grid_mod._Shared, "surface", f)
monkeypatch.setattr("nesybench.axes.grid._build_theory", f)
mock.patch.object(mod, "_helper", f)
monkeypatch.setattr(grid_mod, "forward_chain", f)
monkeypatch.setattr(sys, "stderr", f)
"""
    assert [line for line, _ in private_patches(source)] == [2, 3, 4, 5]
