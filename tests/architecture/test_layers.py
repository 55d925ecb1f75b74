"""The layers of DESIGN.md, enforced on the import graph of src/nesybench (read with ast).

ground -> engines -> stages and report -> instruments -> cli: a module imports only from its
own layer or below, and no instrument imports another instrument.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "nesybench"

INSTRUMENTS = ("shortcuts", "calibration", "nli", "axes")
LAYERS = {
    # top-level module or package name -> layer (lower imports nothing higher)
    "__init__": 0,
    "errors": 0,
    "constraints": 0,
    "progress": 0,
    "seeds": 0,
    "console": 0,
    "io": 0,
    "canonical": 0,
    "metric_keys": 0,
    "numeric_env": 0,
    "images": 0,
    "tables": 0,
    "metrics": 0,
    "logic": 1,
    "reasoning": 1,
    "counting": 1,
    "params": 1,
    "predictions": 1,
    "artifacts": 2,
    "runlock": 2,
    "workflow_code": 2,
    "sweep": 2,
    "sensitivity": 2,
    "stages": 2,
    "cli_args": 2,
    "report": 2,
    "dvc_export": 2,
    **{name: 3 for name in INSTRUMENTS},
    "cli": 4,
}


def _unit(path: Path) -> str:
    """The top-level module or package a source file belongs to."""
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imported_units(path: Path) -> set[tuple[str, int]]:
    """(unit, line) of every nesybench unit the file imports, relative or absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(SRC).parent.parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                parts = [*base, *(node.module.split(".") if node.module else [])]
                if not parts:  # `from . import x` at the package root: x is the unit
                    found.update((alias.name, node.lineno) for alias in node.names)
                    continue
                found.add((parts[0], node.lineno))
            elif node.module and node.module.split(".")[0] == "nesybench":
                parts = node.module.split(".")[1:]
                if parts:
                    found.add((parts[0], node.lineno))
                else:
                    found.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "nesybench" and len(parts) > 1:
                    found.add((parts[1], node.lineno))
    return found


SOURCES = sorted(SRC.rglob("*.py"))


def test_every_unit_has_a_layer():
    units = {_unit(p) for p in SOURCES}
    missing = sorted(units - set(LAYERS))
    assert not missing, (
        f"give these modules a layer in tests/architecture/test_layers.py: {missing}"
    )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_down_the_layers(path):
    unit = _unit(path)
    if unit not in LAYERS:
        pytest.skip(f"{unit} has no layer (see test_every_unit_has_a_layer)")
    problems = []
    for other, line in sorted(_imported_units(path)):
        if other == unit or other not in LAYERS:
            continue
        if unit in INSTRUMENTS and other in INSTRUMENTS:
            problems.append(f"line {line}: instrument {unit} imports instrument {other}")
        elif LAYERS[other] > LAYERS[unit]:
            problems.append(
                f"line {line}: {unit} (layer {LAYERS[unit]}) imports "
                f"{other} (layer {LAYERS[other]})"
            )
    assert not problems, f"{path.relative_to(SRC)}: " + "; ".join(problems)


def test_the_import_walker_sees_relative_and_absolute_imports(tmp_path):
    """The walker itself: an instrument -> instrument edge written either way is found."""
    pkg = SRC / "shortcuts"
    fake = pkg / "_probe_for_test.py"
    assert not fake.exists()
    fake.write_text("from ..calibration import x\nimport nesybench.nli.checker\n")
    try:
        units = {u for u, _ in _imported_units(fake)}
    finally:
        fake.unlink()
    assert {"calibration", "nli"} <= units
