"""The labeler benchmark reports, per file, the library's own agreement and a rate against the
read measured in the same run.  Benchmarks print timings; nothing here asserts one."""

import math
import runpy
from pathlib import Path

import pytest

from nesybench.nli.labelers import label_benchmark, summarize_labelings
from nesybench.nli.readers import read_benchmark

BENCH = Path(__file__).resolve().parents[2] / "bench" / "nli_labelers.py"
VENDORED = BENCH.parents[1] / "benchmarks"


@pytest.mark.parametrize(
    ("benchmark", "file"),
    [("proofwriter", "proofwriter/dev-sample.json"), ("prontoqa", "prontoqa/dev-sample.json")],
)
def test_bench_nli_labelers_reports_the_library_s_numbers(benchmark, file):
    bench_file = runpy.run_path(str(BENCH))["bench_file"]
    path = VENDORED / file
    row = bench_file(benchmark, path, repeat=1)
    questions = read_benchmark(path, benchmark=benchmark)
    summary = summarize_labelings(label_benchmark(questions))
    assert row["n"] == len(questions)
    assert row["agree"] == f"{summary['n_agree']}/{summary['parsed']}"
    if benchmark == "proofwriter":  # the reference labeler agrees with ProofWriter's gold
        assert summary["n_agree"] == summary["parsed"] == len(questions)
    for rate in ("read q/s", "label q/s", "label / read"):
        assert math.isfinite(row[rate]) and row[rate] > 0, (rate, row[rate])
