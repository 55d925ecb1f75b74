"""Benchmark: the reference labelers in questions per second, against reading the same file.

For each vendored benchmark file (and, when ``../shared/external`` is present,
the full ProofWriter and PrOntoQA files) prints the questions per second of

* the baseline, measured in the same run: reading the file into questions
  (JSON decoding and field checks, no reasoning);
* the reference labeler (grammar + open-world forward chaining with proofs,
  or FOL parsing + the z3 dual query for FOLIO),

and the labeler's cost as a multiple of the read.  Then the 50,000-record
files of the bad-input checks: reading them, and labeling 50,000 ProofWriter
questions over one theory (the per-theory cache at work).

Run from the repo root:  python bench/nli_labelers.py [--quick]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from nesybench.nli.labelers import label_benchmark, summarize_labelings
from nesybench.nli.readers import read_benchmark

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ROOT.parent / "shared" / "external"
FILES = [
    ("proofwriter", ROOT / "benchmarks" / "proofwriter" / "dev-sample.json"),
    ("prontoqa", ROOT / "benchmarks" / "prontoqa" / "dev-sample.json"),
    ("folio", ROOT / "benchmarks" / "folio" / "folio-validation.jsonl"),
    ("proofwriter", EXTERNAL / "proofwriter" / "train.json"),
    ("proofwriter", EXTERNAL / "proofwriter" / "dev.json"),
    ("prontoqa", EXTERNAL / "prontoqa-dev.json"),
]


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_file(benchmark: str, path: Path, *, repeat: int) -> dict:
    read_s, bench = _best(lambda: read_benchmark(path, benchmark=benchmark), repeat)
    label_s, labelings = _best(
        lambda: label_benchmark(bench), 1 if benchmark == "folio" else repeat
    )
    s = summarize_labelings(labelings)
    n = len(bench)
    return {
        "file": f"{path.parent.name}/{path.name}",
        "n": n,
        "agree": f"{s['n_agree']}/{s['parsed']}",
        "read q/s": n / read_s,
        "label q/s": n / label_s,
        "label / read": label_s / read_s,
    }


def fifty_thousand(*, repeat: int) -> dict:
    prefix = "Based on the above information, is the following statement true, false, or unknown? "
    context = "The cat chases the dog. If something chases the dog then it is red."
    records = [
        {
            "id": f"q{i}",
            "context": context,
            "question": prefix + "The cat is red.",
            "options": ["A) True", "B) False", "C) Unknown"],
            "answer": "A",
        }
        for i in range(50_000)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        return bench_file("proofwriter", path, repeat=repeat) | {"file": "50,000 records"}


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    repeat = 1 if quick else 3
    rows = []
    for benchmark, path in FILES:
        if path.exists() and not (quick and benchmark == "folio"):
            rows.append(bench_file(benchmark, path, repeat=repeat))
    rows.append(fifty_thousand(repeat=1))
    print(
        f"{'file':32s} {'n':>6s} {'agree':>11s} {'read q/s':>11s} {'label q/s':>10s} "
        f"{'label/read':>10s}"
    )
    for r in rows:
        print(
            f"{r['file']:32s} {r['n']:6d} {r['agree']:>11s} {r['read q/s']:11.0f} "
            f"{r['label q/s']:10.1f} {r['label / read']:10.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
