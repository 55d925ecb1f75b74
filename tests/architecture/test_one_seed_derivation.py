"""Every random stream is derived in one place: nesybench.seeds (child_seed / child_rng)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "nesybench"


def _offences(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name in ("child_rng", "child_seed"):
            found.append(f"{path.name}:{node.lineno}: defines {node.name}")
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("SeedSequence", "RandomState", "seed"):
                found.append(f"{path.name}:{node.lineno}: calls {name}")
    return found


def test_streams_are_derived_only_by_nesybench_seeds():
    hits = [
        hit
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "seeds.py"
        for hit in _offences(path)
    ]
    assert not hits, "\n".join(hits)


def test_the_check_sees_a_second_derivation(tmp_path):
    copy = tmp_path / "tasks.py"
    copy.write_text(
        "import numpy as np\n"
        "def child_rng(seed, *names):\n"
        "    return np.random.default_rng(np.random.SeedSequence(seed))\n"
    )
    assert len(_offences(copy)) == 2
