"""Metric modules compute on arrays; reading and unpacking tables happens in another module.

``shortcuts/panel.py`` (the concept-quality panel) takes numpy arrays and returns numbers:
it imports no pandas and none of the table, I/O or stage layers, so the same functions score
the pipeline's models, a user's predictions and a test's constructed arrays.  Its long-format
table is read and written by ``shortcuts/concept_table.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "nesybench"

PURE = ("shortcuts/panel.py",)
# What a module on arrays must not import: data frames, tables, files, stage plumbing.
FORBIDDEN = {"pandas", "pyarrow", "tables", "io", "stages", "artifacts", "concept_table"}


def _imported(source: str) -> set[str]:
    """The last dotted part of every module a source imports (``..tables`` -> tables)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
            names.update(alias.name.split(".")[-1] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.module:
                names.update({node.module.split(".")[0], node.module.split(".")[-1]})
            else:  # from . import x
                names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("rel", PURE)
def test_metric_modules_import_no_tables(rel):
    found = sorted(_imported((SRC / rel).read_text(encoding="utf-8")) & FORBIDDEN)
    assert not found, f"{rel} computes on arrays; move the table code out (imports {found})"


@pytest.mark.parametrize(
    "snippet",
    ["import pandas as pd", "from ..tables import validate_table", "from .concept_table import x"],
)
def test_the_check_sees_a_table_import(snippet):
    assert _imported(snippet) & FORBIDDEN
