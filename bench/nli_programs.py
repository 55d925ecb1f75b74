"""Executing logic programs: a 50,000-record file, timed, against reading it (same run).

Prints seconds and ratios: execution (both semantics) over the bare JSON read of the same
file. Run: python bench/nli_programs.py [N]
"""

import json
import sys
import tempfile
import time
from pathlib import Path

from nesybench.nli.programs import execute_records, read_programs

PROGRAM = (
    "Predicates:\nCold($x, bool)\nFacts:\nCold(Bob, True)\nQuiet(Bob, True)\nRules:\n"
    "Cold($x, True) && Quiet($x, True) >>> Smart($x, True)\nSmart($x, True) >>> Red($x, False)\n"
    "Query:\nRed(Bob, False)"
)


def main(n: int = 50_000) -> None:
    recs = [
        {
            "id": f"ProofWriter_{i}",
            "context": "",
            "question": "",
            "answer": "A",
            "options": ["A) True", "B) False", "C) Unknown"],
            "raw_logic_programs": [PROGRAM if i % 7 else "Facts:\nbroken("],
        }
        for i in range(n)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "programs.json"
        path.write_text(json.dumps(recs))
        t0 = time.perf_counter()
        json.loads(path.read_text())
        t_json = time.perf_counter() - t0
        t0 = time.perf_counter()
        pf = read_programs(path)
        t_read = time.perf_counter() - t0
        for semantics in ("standard", "logic-lm"):
            t0 = time.perf_counter()
            ex = execute_records(pf.records, semantics=semantics)
            t = time.perf_counter() - t0
            ok = sum(e.executable for e in ex)
            print(
                f"{semantics:9s} {n} programs ({ok} executable): {t:.2f} s, "
                f"{t / t_json:.0f}x the bare JSON read ({t_json:.2f} s), "
                f"{1e6 * t / n:.0f} us per program"
            )
        print(f"read_programs: {t_read:.2f} s ({t_read / t_json:.1f}x the bare JSON read)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
