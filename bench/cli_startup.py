"""Start-up time of the `nesybench` command against the bare interpreter, measured in one run;
and the start-up of each instrument's stage jobs, landed code vs this tree.

    python bench/cli_startup.py [REPEATS]

A stage job (`python stages/<stage>.py <instrument> ...`) starts by importing the stage runner
and the instrument's pipeline; with the full profile's few hundred jobs, that import is a good
part of the run.  Its CPU seconds, best of REPEATS, are printed for the landed code
(``bench/baseline``: main before the speed-ups) and this tree.

Target: `nesybench --help` and a small `count` within 0.4 s of
`python -c pass`.  Each command runs REPEATS times; the best time is kept (start-up is
noisy on a shared machine).  Prints seconds and the difference to the baseline.
"""

from __future__ import annotations

import subprocess
import sys
import time

TARGET_OVERHEAD_S = 0.4

COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "nesybench --help": [sys.executable, "-m", "nesybench.cli", "--help"],
    "nesybench count --knowledge xor --k 2 --support 00,01 --json": [
        sys.executable,
        "-m",
        "nesybench.cli",
        "count",
        "--knowledge",
        "xor",
        "--k",
        "2",
        "--support",
        "00,01",
        "--json",
    ],
    "nesybench check-trace --help": [
        sys.executable,
        "-m",
        "nesybench.cli",
        "check-trace",
        "--help",
    ],
    "nesybench calibrate --help": [sys.executable, "-m", "nesybench.cli", "calibrate", "--help"],
}


def best_of(cmd: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def job_startup(repeats: int) -> None:
    """CPU seconds to import what a stage job of each instrument imports, landed vs this."""
    import tempfile
    from pathlib import Path

    from baseline import INSTRUMENT_PIPELINES, ROOT, landed_tree, run_python

    snippet = (
        "import importlib, json, resource, sys; import nesybench.stages; "
        "importlib.import_module(sys.argv[1]); u = resource.getrusage(resource.RUSAGE_SELF); "
        "print(json.dumps({'cpu': u.ru_utime + u.ru_stime}))"
    )
    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        trees = {"landed": landed_tree(Path(tmp)), "this": ROOT}
        print(f"\n{'stage job start-up (CPU s, best of ' + str(repeats) + ')':<44} "
              f"{'landed':>8} {'this':>8} {'speed-up':>9}")  # fmt: skip
        for module in INSTRUMENT_PIPELINES:
            cpu = {
                name: min(run_python(tree, snippet, module)["cpu"] for _ in range(repeats))
                for name, tree in trees.items()
            }
            print(
                f"{module:<44} {cpu['landed']:8.3f} {cpu['this']:8.3f} "
                f"{cpu['landed'] / cpu['this']:8.2f}x"
            )


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    times = {name: best_of(cmd, repeats) for name, cmd in COMMANDS.items()}
    base = times["python -c pass (baseline)"]
    print(f"{'command':<62} {'best (s)':>9} {'- baseline':>11}  target")
    for name, t in times.items():
        over = t - base
        verdict = (
            ""
            if name.startswith("python")
            else ("ok" if over <= TARGET_OVERHEAD_S else f"over {TARGET_OVERHEAD_S} s")
        )
        print(f"{name:<62} {t:9.3f} {over:11.3f}  {verdict}")
    job_startup(max(3, repeats // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
