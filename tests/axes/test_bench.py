"""The axes benchmarks run and print what they measure: one line per case, the counts the
library computes, and a ratio against a baseline measured in the same run.  Benchmarks print
timings; nothing here asserts one."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
RATIO = re.compile(r"^\d+\.\dx$")  # e.g. 5.2x


def _load(name: str, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the benches import bench/baseline as a script does
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _count(token: str) -> int:
    return int(token.replace(",", ""))


def test_bench_axes_closure_prints_the_chainer_s_counts_and_ratios(capsys, monkeypatch):
    from nesybench.axes.gadgets.scale import chain
    from nesybench.reasoning.chainer import forward_chain

    module = _load("axes_closure", monkeypatch)
    assert module.main(["--max-m", "16", "--max-naive-m", "8"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert "probe ratio" in header and "t semi/clingo" in header
    assert [int(row.split()[0]) for row in rows] == [8, 16]  # one line per chain length
    for row in rows:
        m, closure, waves, naive_probes, semi_probes, probe_ratio, t_naive, t_clingo = row.split()
        semi = forward_chain(*chain(int(m)), strategy="semi-naive")
        assert (_count(closure), int(waves), _count(semi_probes)) == (
            len(semi),
            semi.rounds,
            semi.probes,
        )
        assert RATIO.match(t_clingo), row  # against clingo, timed in the same run
        if int(m) <= 8:
            naive = forward_chain(*chain(int(m)), strategy="naive")
            assert _count(naive_probes) == naive.probes
            assert probe_ratio == f"{naive.probes / semi.probes:.1f}x"
            assert RATIO.match(t_naive), row
        else:  # above --max-naive-m the naive strategy is skipped, and says so
            assert naive_probes == probe_ratio == t_naive == "-"


def test_bench_axes_grid_prints_a_ratio_per_step(capsys, monkeypatch):
    from nesybench.axes.bank import BankConfig, build_bank
    from nesybench.axes.grid import DEFAULT_LEVELS, DEFAULT_SEED, GridSpec

    per_cell = 1
    module = _load("axes_grid", monkeypatch)
    argv = ["--per-cell", str(per_cell), "--resamples", "5", "--bank-theories", "4"]
    assert module.main([*argv, "--skip-landed"]) == 0
    first, header, *rows = capsys.readouterr().out.splitlines()
    spec = GridSpec.from_params({"levels": DEFAULT_LEVELS, "per_cell": per_cell})
    _, bank, _ = build_bank(BankConfig(n_train_theories=1, n_eval_theories=4), seed=DEFAULT_SEED)
    n_grid = len(spec.cells()) * spec.cell_size
    assert first == f"{n_grid:,} grid questions; {len(bank):,} bank questions"
    assert header.split()[0] == "what" and header.split()[-1] == "ratio"
    assert [row.split()[0] for row in rows] == ["generate", "three", "score"]
    assert all(RATIO.match(row.split()[-1]) for row in rows), rows
