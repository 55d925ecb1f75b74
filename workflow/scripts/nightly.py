"""Nightly rerun: everything from scratch, then compare metrics with the committed ones.

    python workflow/scripts/nightly.py [--cores N] [--no-run]

1. Reads the committed ``reports/metrics/*.json`` (from ``git HEAD``; the working
   tree copy if this is not a git checkout).
2. Runs ``snakemake --cores N --forceall``; a failed claim fails the nightly.
3. Compares every metric in canonical form (nesybench.canonical: floats at 10 significant
   digits, no ``-0.0``; the form the metrics are written in) under
   ``workflow/nightly_tolerances.yaml`` (exact unless a pattern says otherwise: every job
   runs in the pinned numeric environment, so a rerun on any x86-64 machine gives the
   committed bytes; docs/reproducibility.md) and prints a diff table.  Exit 0 when nothing
   drifted, 1 on drift or a failed run, 2 on bad input.

Schedule it with cron, e.g. ``0 3 * * * cd /path/to/nesybench && make nightly >> nightly.log 2>&1``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import subprocess
import sys
from pathlib import Path

import yaml

from nesybench.canonical import canonical_value

ROOT = Path(__file__).resolve().parents[2]


def committed_metrics(root: Path) -> dict[str, dict]:
    out = {}
    names = sorted(p.name for p in (root / "reports" / "metrics").glob("*.json"))
    listing = subprocess.run(
        ["git", "ls-files", "reports/metrics"], cwd=root, capture_output=True, text=True
    )
    if listing.returncode == 0 and listing.stdout.strip():
        names = sorted(Path(line).name for line in listing.stdout.split())
        for name in names:
            text = subprocess.run(
                ["git", "show", f"HEAD:reports/metrics/{name}"],
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            out[name[:-5]] = json.loads(text)
        return out
    for name in names:
        out[name[:-5]] = json.loads((root / "reports" / "metrics" / name).read_text())
    return out


def fresh_metrics(root: Path) -> dict[str, dict]:
    return {
        p.stem: json.loads(p.read_text())
        for p in sorted((root / "reports" / "metrics").glob("*.json"))
    }


def tolerance_for(key: str, spec: dict) -> float:
    for pattern in spec.get("patterns", []):
        if fnmatch.fnmatchcase(key, pattern["match"]):
            return float(pattern["abs"])
    return float(spec.get("default", 0))


def compare(old: dict[str, dict], new: dict[str, dict], spec: dict) -> list[dict]:
    """Rows for every metric that drifted beyond its tolerance (or appeared/disappeared)."""
    rows = []
    for instrument in sorted(set(old) | set(new)):
        a, b = old.get(instrument, {}), new.get(instrument, {})
        for metric in sorted(set(a) | set(b)):
            key = f"{instrument}:{metric}"
            tol = tolerance_for(key, spec)
            va = canonical_value(a.get(metric, "<absent>"))
            vb = canonical_value(b.get(metric, "<absent>"))
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
            if numeric:
                drift = abs(float(vb) - float(va))
                ok = drift <= tol or (math.isnan(float(va)) and math.isnan(float(vb)))
            else:
                drift, ok = None, va == vb
            if not ok:
                rows.append(
                    {"metric": key, "committed": va, "fresh": vb, "drift": drift, "tolerance": tol}
                )
    return rows


def print_table(rows: list[dict]) -> None:
    header = ["metric", "committed", "fresh", "|drift|", "tolerance"]
    body = [
        [
            r["metric"],
            str(r["committed"]),
            str(r["fresh"]),
            "-" if r["drift"] is None else f"{r['drift']:.6g}",
            f"{r['tolerance']:g}",
        ]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(header, *body)]
    for line in [header, ["-" * w for w in widths], *body]:
        print("  ".join(v.ljust(w) for v, w in zip(line, widths)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Rerun the pipeline from scratch and compare metrics with the committed ones."
    )
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--root", default=str(ROOT))
    parser.add_argument(
        "--no-run", action="store_true", help="compare the metrics on disk without rerunning"
    )
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    try:
        spec = yaml.safe_load((root / "workflow" / "nightly_tolerances.yaml").read_text())
    except (OSError, yaml.YAMLError) as exc:
        print(f"error: workflow/nightly_tolerances.yaml: {exc}", file=sys.stderr)
        return 2
    old = committed_metrics(root)
    if not old:
        print(
            "error: no committed reports/metrics/*.json to compare with; run the pipeline and "
            "commit them first",
            file=sys.stderr,
        )
        return 2
    if not args.no_run:
        run = subprocess.run(["snakemake", "--cores", str(args.cores), "--forceall"], cwd=root)
        if run.returncode != 0:
            print(
                f"nightly: FAILED: the pipeline exited with status {run.returncode} (a failed "
                "claim or a crash; see the log above)"
            )
            return 1
    rows = compare(old, fresh_metrics(root), spec)
    n = sum(len(v) for v in old.values())
    if rows:
        print(f"nightly: DRIFT in {len(rows)} of {n} committed metrics:")
        print_table(rows)
        return 1
    print(f"nightly: OK: {n} metrics match the committed ones within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
