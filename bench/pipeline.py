"""The pipeline as a whole: a cold run, a no-op rerun, a one-param change, and the seed sweep
at 1 vs 2 cores, in a throw-away copy of the repository.

    python bench/pipeline.py [--params-override tests/profiles/tiny.yaml] [--sweep-seeds 8]

Prints wall-clock seconds and ratios measured in the same run:

* cold ``snakemake --cores 2`` over every job, and a no-op rerun (target: under 5 s);
* a one-param change (``calibration.bootstrap.resamples``): which jobs rerun and how long;
* the calibration seed sweep (``--sweep-seeds`` seeds, every per-seed job of that instrument)
  at ``--cores 1`` and ``--cores 2``: the speed-up (target: at least 1.7x) and the cost per seed.

The machine is shared: read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(cmd: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return elapsed, proc.stdout + proc.stderr


def _copy(dest: Path, override: Path | None) -> Path:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for rel in files:
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    if override:
        params = yaml.safe_load((dest / "params.yaml").read_text())
        _merge(params, yaml.safe_load(override.read_text()) or {})
        (dest / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return dest


def _merge(base: dict, over: dict) -> None:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _jobs(dry_run: str) -> dict[str, int]:
    counts = {}
    for line in dry_run.splitlines():
        m = re.fullmatch(r"([a-z][a-z0-9_]*)\s+(\d+)", line.strip())
        if m and m.group(1) not in ("total", "job"):
            counts[m.group(1)] = int(m.group(2))
    return counts


def _set(root: Path, section: str, path: list[str], value) -> None:
    params = yaml.safe_load((root / "params.yaml").read_text())
    node = params[section]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params-override", type=Path, default=None)
    parser.add_argument("--sweep-seeds", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        root = _copy(Path(tmp) / "repo", args.params_override)
        cold, _ = _run(["snakemake", "--cores", "2"], root)
        noop, _ = _run(["snakemake", "--cores", "2"], root)
        print(f"cold run, --cores 2:          {cold:8.1f} s")
        share = noop / cold
        print(f"no-op rerun:                  {noop:8.1f} s  (target < 5 s; {share:.3f} of cold)")

        resamples = yaml.safe_load((root / "params.yaml").read_text())["calibration"]["bootstrap"]
        _set(root, "calibration", ["bootstrap", "resamples"], resamples["resamples"] + 1)
        _, dry = _run(["snakemake", "--cores", "2", "-n"], root)
        changed, _ = _run(["snakemake", "--cores", "2"], root)
        print(
            f"one-param change (calibration.bootstrap.resamples): {changed:.1f} s "
            f"({changed / cold:.2f} of cold); reran {_jobs(dry)}"
        )

        _set(root, "calibration", ["n_seeds"], args.sweep_seeds)
        seed_rules = [
            "calibration_generate_seed",
            "calibration_train_seed",
            "calibration_score_seed",
            "calibration_calibrate_seed",
        ]
        timings = {}
        for cores in (1, 2):
            shutil.rmtree(root / "data" / "generate" / "calibration", ignore_errors=True)
            for stage in ("train", "score", "calibrate"):
                shutil.rmtree(root / "data" / stage / "calibration", ignore_errors=True)
            targets = [
                f"data/calibrate/calibration/seed/seed-{s}/summary.parquet"
                for s in range(args.sweep_seeds)
            ]
            timings[cores], _ = _run(["snakemake", "--cores", str(cores), *targets], root)
        speedup = timings[1] / timings[2]
        print(
            f"seed sweep ({args.sweep_seeds} seeds x {len(seed_rules)} jobs): "
            f"{timings[1]:.1f} s at 1 core, {timings[2]:.1f} s at 2 cores: speed-up {speedup:.2f}x "
            f"(target >= 1.7x); {timings[1] / args.sweep_seeds:.1f} s per seed at 1 core"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
