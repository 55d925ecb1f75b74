"""Modules split so that each does one job stay split, checked on the import graph.

* The command modules are wiring: no library code (``src/nesybench``, ``bench/``, ``stages/``,
  ``workflow/``) imports from ``nesybench.cli`` (the dispatcher, which loads each command's
  module by name) or from ``nesybench.nli.cli``.  What a command computes lives in a library
  module (``check-trace``'s verdicts: ``nesybench.nli.trace_check``).
* The grammar is one module per job (``nesybench.reasoning.grammar.sentence``, ``.prontoqa``,
  ``.proofwriter``, ``.reading``): every name imported from one of them anywhere in the
  repository is defined in it, never passed through from ``nesybench.reasoning.terms`` or a
  sibling, and the package's ``__init__`` holds only its docstring.  One name per thing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "nesybench"
GRAMMAR = SRC / "reasoning" / "grammar"
LIBRARY = [SRC, ROOT / "bench", ROOT / "stages", ROOT / "workflow"]
COMMAND_MODULES = ("nesybench.cli", "nesybench.nli.cli")


def _package(path: Path) -> tuple[str, ...]:
    """The package a file's relative imports start from (empty outside ``src/nesybench``)."""
    if SRC not in path.parents:
        return ()
    return ("nesybench", *path.relative_to(SRC).parent.parts)


def imported_modules(source: str, package: tuple[str, ...]) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` of every import, relative ones made absolute; ``from a import
    b`` also yields ``(a.b, [], line)`` for a name that may be a submodule."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names = [alias.name for alias in node.names]
            found.append((module, names, node.lineno))
            found.extend((f"{module}.{name}", [], node.lineno) for name in names)
        elif isinstance(node, ast.Import):
            found.extend((alias.name, [], node.lineno) for alias in node.names)
    return found


def _files(roots: list[Path]) -> list[Path]:
    return sorted(p for root in roots if root.exists() for p in root.rglob("*.py"))


def _imports(path: Path):
    return imported_modules(path.read_text(encoding="utf-8"), _package(path))


def test_the_walker_resolves_relative_and_absolute_imports():
    src = "from ..cli import run\nfrom nesybench.nli import cli\nimport nesybench.cli\n"
    modules = {m for m, _, _ in imported_modules(src, ("nesybench", "nli"))}
    assert {"nesybench.cli", "nesybench.nli.cli"} <= modules
    src = "from .prontoqa import make_rule\nfrom ..terms import Atom\n"
    found = {m: n for m, n, _ in imported_modules(src, ("nesybench", "reasoning", "grammar"))}
    assert found["nesybench.reasoning.grammar.prontoqa"] == ["make_rule"]
    assert found["nesybench.reasoning.terms"] == ["Atom"]


@pytest.mark.parametrize("path", _files(LIBRARY), ids=lambda p: str(p.relative_to(ROOT)))
def test_library_code_never_imports_a_command_module(path):
    bad = [
        f"line {line}: {module}"
        for module, _, line in _imports(path)
        if module in COMMAND_MODULES or module.startswith(tuple(m + "." for m in COMMAND_MODULES))
    ]
    assert not bad, (
        f"{path.relative_to(ROOT)} imports a command module ({'; '.join(bad)}): move what it "
        "needs into a library module and import that"
    )


def _defined(path: Path) -> set[str]:
    """The names a module's top level defines (def, class, assignment)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


GRAMMAR_MODULES = {
    f"nesybench.reasoning.grammar.{p.stem}": _defined(p)
    for p in sorted(GRAMMAR.glob("*.py"))
    if p.stem != "__init__"
}


def test_the_grammar_is_one_module_per_job():
    assert set(GRAMMAR_MODULES) == {
        f"nesybench.reasoning.grammar.{m}"
        for m in ("sentence", "prontoqa", "proofwriter", "reading")
    }
    init = ast.parse((GRAMMAR / "__init__.py").read_text(encoding="utf-8")).body
    assert len(init) == 1 and isinstance(init[0], ast.Expr), "grammar/__init__.py: docstring only"


@pytest.mark.parametrize("module", sorted(GRAMMAR_MODULES))
def test_a_grammar_module_exports_only_what_it_defines(module):
    path = GRAMMAR / f"{module.rsplit('.', 1)[1]}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exported = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "") == "__all__" for t in node.targets)
    )
    assert not set(exported) - GRAMMAR_MODULES[module], f"{module}.__all__ re-exports names"


@pytest.mark.parametrize(
    "path", _files([SRC, ROOT / "bench", ROOT / "tests"]), ids=lambda p: str(p.relative_to(ROOT))
)
def test_names_are_imported_from_the_grammar_module_that_defines_them(path):
    bad = []
    for module, names, line in _imports(path):
        if module in GRAMMAR_MODULES:
            bad += [f"line {line}: {module}.{n}" for n in names if n not in GRAMMAR_MODULES[module]]
        elif module == "nesybench.reasoning.grammar" and names:
            bad += [
                f"line {line}: {module}.{n} (the package holds only its modules)"
                for n in names
                if f"{module}.{n}" not in GRAMMAR_MODULES
            ]
    assert not bad, f"{path.relative_to(ROOT)}: " + "; ".join(bad)
