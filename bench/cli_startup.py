"""Start-up time of the `nesybench` command against the bare interpreter, measured in one run.

    python bench/cli_startup.py [REPEATS]

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
