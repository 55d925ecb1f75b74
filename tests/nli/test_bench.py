"""The labeler benchmark runs and reports agreement and questions per second."""

import runpy
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "nli_labelers.py"


def test_bench_nli_labelers_smoke():
    module = runpy.run_path(str(BENCH))
    root = BENCH.parents[1] / "benchmarks"
    row = module["bench_file"]("proofwriter", root / "proofwriter" / "dev-sample.json", repeat=1)
    assert row["n"] == 120 and row["agree"] == "120/120"
    assert row["label q/s"] > 0 and row["label / read"] > 1
