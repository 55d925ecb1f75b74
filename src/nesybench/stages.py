"""The stage runner behind ``stages/<stage>.py``: one job, run as a transaction.

A Snakemake rule (and its DVC twin) runs, from the repository root::

    python stages/<stage>.py <instrument> [<step>] [--arg key=value ...]

The runner looks the job up in the instrument's registry of jobs
(``nesybench.<instrument>.artifacts.ARTIFACTS``, see :mod:`nesybench.artifacts`) and
its function in the instrument's stage table (``STAGE_FUNCTIONS`` in
``nesybench.<instrument>.pipeline``), then calls it with a :class:`StageContext`:
the job's params, its wildcards (``--arg seed=3``), readers of other jobs' artifacts and
writers for its own.

Writes are collected, not performed: only when the stage function returns, i.e. after
every claim it checks has held, are the artifacts committed (each to a temporary file,
then ``os.replace``).  A failed claim or a bad input leaves the previous artifacts
untouched and nothing half-written.  Stale temporary files of this job's outputs, left by
an interrupted run, are removed when it starts.

Exit status: 0 on success, 2 on bad input (``error: ...``), 1 when a claim the tables
make does not hold (``claim failed: ...``).  Either way no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import INSTRUMENT_MODULES, INSTRUMENTS, STAGES
from .artifacts import Job, Registry, plot_path, registry, seed_values, wildcard_token
from .console import print_table
from .errors import ClaimFailed, InputError, report_stop
from .io import (
    atomic_write,
    csv_bytes,
    flatten,
    metrics_bytes,
    parquet_bytes,
    read_json,
    read_parquet,
)
from .metric_keys import PROVENANCE_KEY
from .params import job_params, load_params, params_hash
from .progress import log
from .runlock import check_other_runner_idle
from .seeds import child_rng

StageFunction = Callable[["StageContext"], None]


class StageContext:
    """What a stage function needs: its params, wildcards, readers and (deferred) writers."""

    def __init__(
        self,
        *,
        job: Job,
        registry: Registry,
        params: dict,
        root: Path,
        wildcards: Mapping[str, Any] | None = None,
        args: Mapping[str, str] | None = None,
    ):
        self.job = job
        self.stage = job.stage
        self.step = job.step
        self.registry = registry
        self.instrument = registry.instrument
        self.all_params = params
        self.section = params.get(self.instrument, {})
        # A per-seed job sees its section without the sweep keys (n_seeds, claims, ...):
        # its outputs cannot depend on them, so growing the sweep reruns no finished seed.
        self.params = job_params(self.section, job)
        self.params_hash = params_hash(self.params)
        self.root = Path(root)
        self.wildcards = dict(wildcards or {})
        self.args = dict(args or {})
        self._pending: dict[Path, bytes] = {}

    # ---- wildcards -------------------------------------------------------
    @property
    def seed(self) -> int:
        """This per-seed job's seed."""
        if "seed" not in self.wildcards:
            raise RuntimeError(f"{self.instrument}:{self.stage} is not a per-seed job")
        return int(self.wildcards["seed"])

    @property
    def seeds(self) -> list[int]:
        """The sweep's seeds (``0 .. n_seeds - 1``), for a job that gathers over them."""
        if "n_seeds" not in self.params:
            raise RuntimeError(
                f"{self.label} cannot see the sweep: its declared params omit n_seeds"
            )
        return seed_values(self.params)

    def rng(self, *path: Any) -> np.random.Generator:
        """This seed's random stream named ``path`` (``child_rng(seed, instrument, *path)``)."""
        return child_rng(self.seed, self.instrument, *path)

    # ---- paths -----------------------------------------------------------
    def path(self, stage: str, name: str, *, ext: str = "parquet", **wildcards: Any) -> Path:
        return self.root / self.registry.path(stage, name, ext=ext, **wildcards)

    def _own_path(self, name: str, *, ext: str = "parquet") -> Path:
        return self.path(self.stage, name, ext=ext, **self.wildcards)

    # ---- writers (deferred until the stage function returns) -------------
    def write_table(
        self,
        name: str,
        df: pd.DataFrame,
        *,
        key: list[str],
        metadata: dict[str, str] | None = None,
    ) -> Path:
        """A deterministic Parquet table sorted by ``key`` (declared in the job's tables)."""
        if name not in self.job.tables:
            raise RuntimeError(f"{self.instrument}:{self.stage} does not declare table {name!r}")
        path = self._own_path(name)
        self._pending[path] = parquet_bytes(
            df,
            key=key,
            instrument=self.instrument,
            stage=self.stage,
            params_hash=self.params_hash,
            extra_metadata=metadata,
        )
        return path

    def write_text(self, name: str, text: str, *, ext: str) -> Path:
        """A non-tabular artifact (declared in the job's texts)."""
        if (name, ext) not in self.job.texts:
            raise RuntimeError(f"{self.instrument}:{self.stage} does not declare {name}.{ext}")
        path = self._own_path(name, ext=ext)
        self._pending[path] = text.encode("utf-8")
        return path

    def write_metrics(self, metrics: Mapping[str, Any]) -> Path:
        """This job's metrics, keys prefixed with the stage (``score.panel.acc_c``).

        The report merges the instrument-wide jobs' metrics into
        ``reports/metrics/<instrument>.json``; a per-seed job's metrics feed its aggregate.
        """
        if not self.job.metrics:
            raise RuntimeError(f"{self.instrument}:{self.stage} declares no metrics")
        flat = {f"{self.stage}.{key}": value for key, value in flatten(metrics).items()}
        flat[PROVENANCE_KEY] = self.params_hash
        path = self.root / self.registry.metrics_path(self.stage, self.step, **self.wildcards)
        self._pending[path] = metrics_bytes(flat)
        return path

    def write_plot(self, name: str, df: pd.DataFrame) -> Path:
        """Plot data as CSV under reports/plots/ (declared in the job's plots)."""
        if name not in self.job.plots:
            raise RuntimeError(f"{self.instrument}:{self.stage} does not declare plot {name!r}")
        path = self.root / plot_path(self.instrument, name)
        self._pending[path] = csv_bytes(df)
        return path

    def commit(self) -> list[Path]:
        """Write every collected artifact (temporary file + ``os.replace`` each)."""
        written = []
        for path, data in sorted(self._pending.items()):
            atomic_write(path, data)
            written.append(path)
        self._pending.clear()
        return written

    # ---- readers ---------------------------------------------------------
    def read_table(
        self, name: str, *, stage: str, instrument: str | None = None, **wildcards: Any
    ) -> pd.DataFrame:
        """A declared artifact of this or another job of the same instrument."""
        reg = self.registry if instrument in (None, self.instrument) else registry(instrument)
        return read_artifact(self.root / reg.path(stage, name, **wildcards), root=self.root)

    def read_metrics(self, *, stage: str, step: str | None = None, **wildcards: Any) -> dict:
        path = self.root / self.registry.metrics_path(stage, step, **wildcards)
        return {k: v for k, v in read_json(path).items() if not k.startswith("_provenance.")}

    # ---- console ---------------------------------------------------------
    def log(self, message: str) -> None:
        log(f"[{self.label}] {message}")

    @property
    def label(self) -> str:
        parts = [self.instrument, self.stage, *([self.step] if self.step else [])]
        parts += [f"{k}={wildcard_token(v)}" for k, v in self.wildcards.items()]
        return ":".join(parts)

    def print_table(self, title: str, df: pd.DataFrame, *, floatfmt: str = "{:.4f}") -> None:
        """Print a table to stdout the way the spec prints its committed runs."""
        print_table(title, df, floatfmt=floatfmt)


def read_artifact(path: Path, *, root: Path) -> pd.DataFrame:
    """Read a pipeline artifact; a missing or unreadable one is named, and a corrupt one removed.

    Removing a file that does not read back lets a plain rerun rebuild it (every artifact
    is an input of the report, so Snakemake and DVC rerun its producer).
    """
    try:
        return read_parquet(path)
    except InputError as exc:
        rel = path.relative_to(root) if path.is_relative_to(root) else path
        if path.exists():
            path.unlink()
            raise InputError(
                f"{rel}: unreadable artifact removed ({exc}); rerun to rebuild it"
            ) from None
        raise InputError(f"{rel}: missing artifact; rerun the pipeline to rebuild it") from None


def remove_stale_temporaries(paths: list[Path]) -> list[Path]:
    """Delete ``.<name>.<random>.tmp`` files an interrupted write left beside these outputs."""
    removed = []
    for path in paths:
        if not path.parent.is_dir():
            continue
        for tmp in path.parent.glob(f".{path.name}.*.tmp"):
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


def job_outputs(reg: Registry, job: Job, wildcards: Mapping[str, Any], root: Path) -> list[Path]:
    out = [root / reg.path(job.stage, n, **wildcards) for n in job.tables]
    out += [root / reg.path(job.stage, n, ext=e, **wildcards) for n, e in job.texts]
    if job.metrics:
        out.append(root / reg.metrics_path(job.stage, job.step, **wildcards))
    out += [root / plot_path(reg.instrument, n) for n in job.plots]
    return out


def stage_function(instrument: str, stage: str, step: str | None) -> StageFunction:
    """The function of one job, from the instrument's explicit table ``STAGE_FUNCTIONS``."""
    module = importlib.import_module(INSTRUMENT_MODULES[instrument]["pipeline"])
    table: Mapping[tuple[str, str | None], StageFunction] = module.STAGE_FUNCTIONS
    try:
        return table[(stage, step)]
    except KeyError:
        known = ", ".join(f"{s}{' ' + t if t else ''}" for s, t in table)
        raise InputError(
            f"{instrument} has no job `{stage}{' ' + step if step else ''}`; it has: {known}"
        ) from None


def _resolve_wildcards(job: Job, section: Mapping, args: Mapping[str, str]) -> dict[str, Any]:
    """The job instance named by ``--arg`` tokens; each must spell a params value exactly."""
    if not job.wildcards:
        return {}
    missing = [w for w in job.wildcards if w not in args]
    if missing:
        raise InputError(f"this job needs --arg {missing[0]}=...")
    tokens = {w: args[w] for w in job.wildcards}
    for instance in job.expand(section):
        if {w: wildcard_token(v) for w, v in instance.items()} == tokens:
            return instance
    valid = sorted(
        {" ".join(f"{w}={wildcard_token(v)}" for w, v in i.items()) for i in job.expand(section)}
    )
    shown = ", ".join(valid[:8]) + (", ..." if len(valid) > 8 else "")
    raise InputError(
        f"--arg {' '.join(f'{w}={t}' for w, t in tokens.items())} names no instance of this job "
        f"under params.yaml; expected one of: {shown or 'none'}"
    )


def run_job(
    instrument: str,
    stage: str,
    step: str | None = None,
    *,
    params: dict,
    root: Path,
    args: Mapping[str, str] | None = None,
) -> StageContext:
    """Run one job in this process, as a transaction; returns its (committed) context.

    ``args`` carries the job's wildcards as tokens (``{"seed": "3"}``), resolved against
    ``params``; exceptions propagate (the command-line runner turns them into exit codes).
    """
    reg = registry(instrument)
    try:
        job = reg.job(stage, step)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    func = stage_function(instrument, stage, step)
    args = dict(args or {})
    wildcards = _resolve_wildcards(job, params[instrument], args)
    ctx = StageContext(
        job=job, registry=reg, params=params, root=root, wildcards=wildcards, args=args
    )
    remove_stale_temporaries(job_outputs(reg, job, wildcards, Path(root)))
    func(ctx)
    ctx.commit()
    return ctx


def run_all_instances(
    instrument: str, stage: str, step: str | None, *, params: dict, root: Path
) -> list[StageContext]:
    """Run every instance of a job with wildcards under ``params``, each as its own transaction.

    This is the command of the job's one DVC stage, whose output is the job's instance
    folder: DVC empties it first, so the folder ends up holding exactly the instances of
    this sweep (and a sweep of any size needs no other dvc.yaml).
    """
    reg = registry(instrument)
    try:
        job = reg.job(stage, step)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if not job.wildcards:
        raise InputError(
            f"--all-instances: {instrument} {stage}{' ' + step if step else ''} has no "
            "wildcards (it is one job)"
        )
    instances = job.expand(params[instrument])
    done = []
    for i, instance in enumerate(instances, 1):
        tokens = {w: wildcard_token(v) for w, v in instance.items()}
        log(f"[{instrument}:{stage}:{step}] instance {i}/{len(instances)}: {tokens}")
        done.append(run_job(instrument, stage, step, params=params, root=root, args=tokens))
    return done


def _parse_args(stage: str, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"stages/{stage}.py", description=f"Run one job of the {stage} stage."
    )
    parser.add_argument("instrument", choices=INSTRUMENTS, help="the instrument whose job to run")
    parser.add_argument(
        "step", nargs="?", default=None, help="optional step: `seed` jobs, sweep cells, aggregates"
    )
    parser.add_argument(
        "--params", default="params.yaml", help="params file (default: params.yaml)"
    )
    parser.add_argument(
        "--arg", action="append", default=[], metavar="KEY=VALUE", help="wildcards and extra args"
    )
    parser.add_argument(
        "--all-instances",
        action="store_true",
        help="run every instance (seed, block) params.yaml declares, one after another "
        "(the DVC stage of a job with wildcards; Snakemake runs one job per instance)",
    )
    return parser.parse_args(argv)


def key_values(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--arg must be KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        out[key] = value
    return out


def exit_stage(status: int) -> None:
    """End a stage process with ``status`` once its files are written, skipping interpreter
    teardown.

    pyarrow's thread pools are torn down at interpreter exit, and a worker still alive then
    aborts the process ("terminate called without an active exception", SIGABRT) after the
    job has done its work (apache/arrow#34314); it happened once in a default run here.
    Every artifact is already renamed into place and nothing registers exit handlers, so the
    process flushes its streams and leaves with ``os._exit``.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing left to say
            pass
    os._exit(status)


def run_stage(stage: str, argv: list[str] | None = None) -> int:
    """Entry point of ``stages/<stage>.py``; returns the process exit status."""
    if stage not in STAGES:
        raise InputError(f"unknown stage {stage!r}")
    args = _parse_args(stage, sys.argv[1:] if argv is None else argv)
    where = (
        "["
        + ":".join([args.instrument, stage, *([args.step] if args.step else []), *args.arg])
        + "]"
    )
    started = time.perf_counter()
    try:
        extra = key_values(args.arg)
        if args.all_instances and extra:
            raise InputError("--all-instances runs every instance: give no --arg with it")
        params = load_params(args.params)
        root = Path(args.params).resolve().parent
        check_other_runner_idle(root)
        if args.all_instances:
            run_all_instances(args.instrument, stage, args.step, params=params, root=root)
        else:
            run_job(args.instrument, stage, args.step, params=params, root=root, args=extra)
    except (InputError, ClaimFailed) as exc:
        return report_stop(exc, where=where)
    log(f"{where} done in {time.perf_counter() - started:.1f}s")
    return 0


VALIDATED = "data/validate/params.ok"


def run_validate(argv: list[str] | None = None) -> int:
    """``stages/validate.py``: the first stage of ``dvc repro``, on which every stage depends.

    DVC deletes a stage's outputs before it runs the stage's command, so a stage cannot
    protect its own outputs from bad params or from a concurrent Snakemake run.  This
    stage runs first (``always_changed``), checks both, and writes a file whose bytes never
    change, so passing it reruns nothing downstream.
    """
    parser = argparse.ArgumentParser(prog="stages/validate.py", description=run_validate.__doc__)
    parser.add_argument("--params", default="params.yaml", help="params file (default params.yaml)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        load_params(args.params)  # validates against workflow/schemas
        root = Path(args.params).resolve().parent
        check_other_runner_idle(root)
        atomic_write(root / VALIDATED, b"params.yaml is valid against workflow/schemas\n")
    except InputError as exc:
        return report_stop(exc)
    return 0


__all__ = [
    "StageContext",
    "read_artifact",
    "remove_stale_temporaries",
    "run_all_instances",
    "run_job",
    "run_stage",
    "run_validate",
]
