"""``bench/counting_sparse.py --seeds``: the share of seeds whose count meets the target, per
cell, with its interval and the seeds that missed.  Nothing here asserts a timing."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the bench imports bench/baseline as a script does
    spec = importlib.util.spec_from_file_location("counting_sparse", BENCH / "counting_sparse.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seed_range_reads_a_range_or_one_seed(monkeypatch):
    module = _load(monkeypatch)
    assert module._seed_range("3-5") == [3, 4, 5]
    assert module._seed_range("7") == [7]


def test_seeds_table_counts_every_seed_of_each_cell(capsys, monkeypatch):
    module = _load(monkeypatch)
    assert module.main(["--seeds", "0-2", "--ks", "6", "--fracs", "0.5", "--timeout", "120"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "seeds 0-2" in lines[0]
    (row,) = [line for line in lines if line.split()[:3] == ["disentangled", "6", "0.5"]]
    met, total = row.split()[3].split("/")
    assert int(total) == 3 and 0 <= int(met) <= 3
    lo, hi = (float(v) for v in row.split("[", 1)[1].split("]", 1)[0].split(","))
    assert 0 <= lo <= int(met) / 3 <= hi <= 1
    missed = re.findall(r"\b(\d) \((\d+), (\d+)\)", row)  # seed (models, observed)
    assert len(missed) == 3 - int(met)


def test_plan_accounts_for_every_seed_without_counting(capsys, monkeypatch):
    """``--plan`` places every seed of a cell once: all groups closed or in the cells, other
    engines, or listed with its swept groups; with no observed model (k = 12, 1%) pairs and
    cube shapes have closed forms, so a swept group has at least three points."""
    module = _load(monkeypatch)
    monkeypatch.setattr(module, "run", None)  # nothing is counted: a count would fail here
    assert module.main(["--plan", "--seeds", "0-3", "--ks", "12", "--fracs", "0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "seeds 0-3" in lines[0]
    (row,) = [line for line in lines if line.split()[:2] == ["12", "0.01"]]
    closed, total = (int(v) for v in row.split()[2].split("/"))
    other = int(row.split()[3])
    swept = re.findall(r"(\d+): (\d+) \(largest (\d+) points; spans (\d+)-(\d+)\)", row)
    assert total == 4 and closed + other + len(swept) == 4
    assert swept  # seed 0: six models, groups of three to six points over 8 to 11 outputs
    for _seed, groups, largest, low, high in swept:
        assert int(groups) >= 1 and int(largest) >= 3 and int(low) <= int(high) <= 12
