"""The stage runner behind ``stages/<stage>.py``.

A Snakemake rule (and its DVC twin) runs, from the repository root::

    python stages/<stage>.py <instrument> [<step>] [--arg key=value ...]

which calls ``nesybench.<instrument>.pipeline.<stage>(ctx)`` (or
``<stage>_<step>(ctx)`` when a step is given, e.g. one cell of a sweep).  The
function receives a :class:`StageContext`: the validated params section of its
instrument, and writers that put every artifact where the rules declare it:

    data/<stage>/<instrument>/<name>.parquet   tables (deterministic Parquet)
    data/<stage>/<instrument>/metrics.json      this stage's metrics (flat JSON)
    reports/plots/<instrument>-<name>.csv       plot data for ``dvc plots``

Exit status: 0 on success, 2 on bad input (``error: ...``), 1 when a claim the
tables make does not hold (``claim failed: ...``).  Either way no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from . import INSTRUMENTS, STAGES
from .console import print_table
from .errors import ClaimFailed, UserError
from .io import atomic_write_text, read_json, read_parquet, write_csv, write_metrics, write_parquet
from .params import load_params, params_hash
from .progress import log


class StageContext:
    """What a stage function needs: its params and its artifact writers."""

    def __init__(
        self,
        *,
        stage: str,
        instrument: str,
        params: dict,
        root: Path,
        args: dict[str, str],
        step: str | None,
    ):
        self.stage = stage
        self.instrument = instrument
        self.all_params = params
        self.params = params.get(instrument, {})
        self.params_hash = params_hash(self.params)
        self.root = root
        self.args = args
        self.step = step
        self.written: list[Path] = []

    # ---- paths -----------------------------------------------------------
    def data_path(
        self,
        name: str,
        *,
        stage: str | None = None,
        instrument: str | None = None,
        ext: str = "parquet",
    ) -> Path:
        """``data/<stage>/<instrument>/<name>.<ext>`` (defaults: this stage and instrument)."""
        return (
            self.root
            / "data"
            / (stage or self.stage)
            / (instrument or self.instrument)
            / f"{name}.{ext}"
        )

    def plot_path(self, name: str) -> Path:
        return self.root / "reports" / "plots" / f"{self.instrument}-{name}.csv"

    # ---- writers ---------------------------------------------------------
    def write_table(
        self, name: str, df: pd.DataFrame, *, key: list[str], metadata: dict[str, str] | None = None
    ) -> Path:
        """Write a deterministic Parquet table sorted by ``key``."""
        path = write_parquet(
            df,
            self.data_path(name),
            key=key,
            instrument=self.instrument,
            stage=self.stage,
            params_hash=self.params_hash,
            extra_metadata=metadata,
        )
        self.written.append(path)
        return path

    def write_text(self, name: str, text: str, *, ext: str) -> Path:
        """A non-tabular artifact (e.g. a DIMACS file) under this stage's data folder."""
        path = atomic_write_text(self.data_path(name, ext=ext), text)
        self.written.append(path)
        return path

    def write_metrics(self, metrics: dict[str, Any], *, name: str = "metrics") -> Path:
        """This stage's metrics; the report stage merges them into
        reports/metrics/<instrument>.json."""
        path = write_metrics(self.data_path(name, ext="json"), metrics)
        self.written.append(path)
        return path

    def write_plot(self, name: str, df: pd.DataFrame) -> Path:
        """Plot data as CSV under reports/plots/ (declared under ``plots:`` in dvc.yaml)."""
        path = write_csv(self.plot_path(name), df)
        self.written.append(path)
        return path

    # ---- readers ---------------------------------------------------------
    def read_table(self, name: str, *, stage: str, instrument: str | None = None) -> pd.DataFrame:
        return read_parquet(self.data_path(name, stage=stage, instrument=instrument))

    def read_metrics(
        self, *, stage: str, instrument: str | None = None, name: str = "metrics"
    ) -> dict:
        return read_json(self.data_path(name, stage=stage, instrument=instrument, ext="json"))

    # ---- console ---------------------------------------------------------
    def log(self, message: str) -> None:
        log(f"[{self.instrument}:{self.stage}] {message}")

    def print_table(self, title: str, df: pd.DataFrame, *, floatfmt: str = "{:.4f}") -> None:
        """Print a table to stdout the way the spec prints its committed runs."""
        print_table(title, df, floatfmt=floatfmt)


def _parse_args(stage: str, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"stages/{stage}.py", description=f"Run the {stage} stage of one instrument."
    )
    parser.add_argument(
        "instrument",
        choices=INSTRUMENTS + ("report",),
        help="instrument, or `report` for the report stage",
    )
    parser.add_argument(
        "step", nargs="?", default=None, help="optional sub-step, e.g. one sweep cell"
    )
    parser.add_argument(
        "--params", default="params.yaml", help="params file (default: params.yaml)"
    )
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra argument for the step",
    )
    return parser.parse_args(argv)


def run_stage(stage: str, argv: list[str] | None = None) -> int:
    """Entry point of ``stages/<stage>.py``; returns the process exit status."""
    assert stage in STAGES, stage
    args = _parse_args(stage, sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    try:
        extra = {}
        for item in args.arg:
            if "=" not in item:
                raise UserError(f"--arg must be KEY=VALUE, got {item!r}")
            key, value = item.split("=", 1)
            extra[key] = value
        params = load_params(args.params)
        root = Path(args.params).resolve().parent
        ctx = StageContext(
            stage=stage,
            instrument=args.instrument,
            params=params,
            root=root,
            args=extra,
            step=args.step,
        )
        module = importlib.import_module(f"nesybench.{args.instrument}.pipeline")
        func_name = stage if args.step is None else f"{stage}_{args.step}"
        func = getattr(module, func_name, None)
        if func is None:
            raise UserError(f"{module.__name__} has no stage function {func_name}()")
        func(ctx)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ClaimFailed as exc:
        print(f"claim failed: [{args.instrument}:{stage}] {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    log(f"[{args.instrument}:{stage}{':' + args.step if args.step else ''}] done in {elapsed:.1f}s")
    return 0
