"""Benchmark: the step checker in traces per second on PrOntoQA's own file, against reading it.

For the real PrOntoQA dev file (``../shared/external/prontoqa-dev.json``, 500 gold chains; the
vendored 100-example sample when the folder is absent) it times, in the same run:

* the baseline: reading the file into records (JSON decoding, PrOntoQA's native layout);
* ``check-trace``'s per-record work: parsing the context and question, the strict check and
  the broad (PrOntoQA-style) step classes of the gold chain;
* the same on chains with a derived fact removed (every chain then fails the strict check, the
  checker's slower path);

and prints traces per second and the checker's cost as a multiple of the read.

Run from the repository root:  python bench/nli_checker.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from nesybench.nli.trace_check import check_record, read_records

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = (
    ROOT.parent / "shared" / "external" / "prontoqa-dev.json",
    ROOT / "benchmarks" / "prontoqa" / "dev-sample.json",
)


def best_of(repeat: int, func) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - started)
    return min(times), out


def drop_a_step(record: dict) -> dict:
    """The record with the third step of its chain removed (the field check-trace reads): in
    PrOntoQA's chains that is a derived fact, so every later step rests on an unproved one."""
    field = "chain_of_thought" if "chain_of_thought" in record else "explanation"
    chain = record[field]
    if isinstance(chain, list) and len(chain) > 3:
        chain = chain[:2] + chain[3:]
    return {**record, field: chain}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N timings (default 3)")
    args = parser.parse_args(argv)
    path = next(p for p in CANDIDATES if p.exists())
    read_s, records = best_of(args.repeat, lambda: read_records(str(path)))
    gold_s, verdicts = best_of(args.repeat, lambda: [check_record(r) for r in records])
    broken = [drop_a_step(r) for r in records]
    broken_s, broken_verdicts = best_of(args.repeat, lambda: [check_record(r) for r in broken])
    n = len(records)
    errors = [v["error"] for v in verdicts + broken_verdicts if "error" in v]
    if errors:
        raise SystemExit(f"bench: {len(errors)} records not checked, first: {errors[0]}")
    strict = sum(bool(v.get("strict")) for v in verdicts)
    strict_broken = sum(bool(v.get("strict")) for v in broken_verdicts)
    print(f"file: {path.relative_to(path.parents[1])} ({n} records, best of {args.repeat})")
    header = f"{'what':<42} {'s':>8} {'traces/s':>10} {'x read':>8}  strict"
    print(header)
    print(f"{'read the file (baseline)':<42} {read_s:8.3f} {n / read_s:10.0f} {1.0:8.1f}")
    for label, secs, n_strict in (
        ("check the gold chains", gold_s, strict),
        ("check the chains missing a derived fact", broken_s, strict_broken),
    ):
        print(f"{label:<42} {secs:8.3f} {n / secs:10.0f} {secs / read_s:8.1f}  {n_strict}/{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
