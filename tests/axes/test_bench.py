"""The closure benchmark runs (tiny sizes) and prints the probe ratios of the chainer."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "axes_closure.py"


def test_bench_axes_closure_smoke(capsys):
    spec = importlib.util.spec_from_file_location("axes_closure", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--max-m", "16", "--max-naive-m", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:6] == ["8", "44", "8", "1,776", "340", "5.2x"]
    assert lines[2].split()[:5] == ["16", "152", "16", "-", "2,344"]


def test_bench_axes_grid_smoke(capsys):
    spec = importlib.util.spec_from_file_location("axes_grid", BENCH.parent / "axes_grid.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--per-cell", "1", "--resamples", "5", "--bank-theories", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1,152 grid questions")
    assert [line.split()[0] for line in lines[2:]] == ["generate", "three", "score"]
    assert all(line.rstrip().endswith("x") for line in lines[2:])
