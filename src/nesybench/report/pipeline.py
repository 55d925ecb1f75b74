"""The report stage: one HTML page, one Markdown file, one metrics JSON per instrument.

``python stages/report.py report --arg instruments=shortcuts,calibration,...``
lists the landed instruments (those whose rules fed the report); an instrument
that has not landed is simply absent, never shown with placeholder numbers.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pandas as pd

from .. import INSTRUMENT_MODULES, INSTRUMENTS, STAGES
from ..artifacts import Registry, registry
from ..canonical import table_digest
from ..errors import ClaimFailed, InputError, report_stop
from ..io import atomic_write, atomic_write_text, parquet_metadata, read_json, write_metrics
from ..params import file_hash, job_params, load_params, params_hash
from ..progress import log
from ..runlock import check_other_runner_idle
from ..stages import PROVENANCE_KEY, key_values
from .blocks import Paragraph, Table
from .figures import figure_style
from .loader import ReportLoader
from .render import render

TITLES = {
    "shortcuts": "Reasoning shortcuts: concept tasks, shortcut counts, concept panel",
    "calibration": "Calibration: reliability audit and repair of a KG link predictor",
    "nli": "NLI: label accuracy vs proof accuracy vs abstention",
    "axes": "Difficulty axes: depth, mixture confound, flip probe, gadgets",
}


def merge_stage_metrics(root: Path, reg: Registry) -> dict:
    """Merge the metrics of the instrument-wide jobs (no wildcards), in pipeline order.

    Per-seed and sweep-cell jobs feed their aggregates, not the report.  A key written
    by two jobs is an error: a metric must have one source.
    """
    merged: dict = {}
    source: dict[str, str] = {}
    for stage in STAGES:
        for job in reg.jobs.values():
            if job.stage != stage or job.wildcards or not job.metrics:
                continue
            for key, value in read_json(root / reg.metrics_path(stage, job.step)).items():
                if key.startswith("_provenance."):
                    continue
                if key in merged:
                    raise ValueError(
                        f"metric {reg.instrument}:{key} is written by both "
                        f"{source[key]} and {stage}"
                    )
                merged[key], source[key] = value, stage
    return merged


def verify_artifacts(root: Path, reg: Registry, section: dict) -> pd.DataFrame:
    """Check every declared artifact exists, reads back and was made with these params.

    Returns one provenance row per artifact (path, params hash, SHA-256 of its bytes).  A
    missing, unreadable or stale artifact is a ``InputError`` naming it: the report never
    stamps this params.yaml on tables computed from other params.
    """
    rows = []
    for job, _, rel in reg.all_paths(section):
        path = root / rel
        expected = params_hash(job_params(section, job))
        if not path.exists():
            raise InputError(f"{rel}: missing artifact; rerun the pipeline to rebuild it")
        if path.suffix == ".parquet":
            try:
                made_with = parquet_metadata(path).get("params_hash")
            except Exception:  # any failure to read the footer is a corrupt file
                path.unlink()
                raise InputError(
                    f"{rel}: unreadable artifact removed; rerun the pipeline to rebuild it"
                ) from None
        else:
            made_with = read_json(path).get(PROVENANCE_KEY)
        if made_with != expected:
            raise InputError(
                f"{rel}: made with other params (hash {made_with}, params.yaml gives {expected}); "
                f"rerun its job ({reg.instrument} {job.stage}{' ' + job.step if job.step else ''})"
            )
        # a table's hash covers its canonical content; a metrics file is written canonical
        content = table_digest(path) if path.suffix == ".parquet" else file_hash(path, digits=64)
        rows.append({"artifact": rel, "params_hash": made_with, "sha256": content})
    return pd.DataFrame(rows)


def run_report(params: dict, *, root: Path, args: dict[str, str]) -> None:
    """Verify every artifact, then write report.html, report.md, figures and metrics JSON."""
    landed = [i for i in args.get("instruments", "").split(",") if i]
    unknown = [i for i in landed if i not in INSTRUMENTS]
    if unknown:
        raise InputError(
            f"--arg instruments: unknown instrument {unknown[0]!r}; expected some of "
            f"{', '.join(INSTRUMENTS)}"
        )
    root = Path(root)
    params_yaml_hash = file_hash(root / "params.yaml")

    # Verify everything before computing anything: a stale or broken artifact stops the
    # report before it writes a byte.
    provenance = []
    for instrument in landed:
        table = verify_artifacts(root, registry(instrument), params[instrument])
        table.insert(0, "instrument", instrument)
        provenance.append(table)
    log(f"[report] {sum(len(t) for t in provenance)} artifacts verified")

    with figure_style():
        sections, metrics_files, page, markdown, figures = _build(
            landed, params, root, provenance, params_yaml_hash
        )
    _write(root, metrics_files, sections, page, markdown, figures)


def _build(landed, params, root, provenance, params_yaml_hash):
    """Every section's blocks, and the rendered page, Markdown and figure files."""
    sections, metrics_files = [], {}
    for instrument in landed:
        reg = registry(instrument)
        metrics_files[instrument] = merge_stage_metrics(root, reg)
        module = importlib.import_module(INSTRUMENT_MODULES[instrument]["report"])
        section_params = params.get(instrument, {})
        blocks = module.section(ReportLoader(root, reg, section_params))
        # A table that names no params of its own states the instrument's top-level ones.
        top_level = {
            k: v for k, v in section_params.items() if isinstance(v, (bool, int, float, str))
        }
        for block in blocks:
            if isinstance(block, Table) and not block.params:
                block.params = dict(top_level)
        sections.append((TITLES.get(instrument, instrument), blocks))
    sections.append(("Provenance", provenance_blocks(provenance)))

    title = params["report"].get("title", "nesybench report")
    intro = (
        f"Every number below was computed by this run of the pipeline from params.yaml "
        f"(sha256:{params_yaml_hash}); instruments in this report: {', '.join(landed) or 'none'}."
    )
    page, markdown, figures = render(
        sections, title=title, params_yaml_hash=params_yaml_hash, intro=intro
    )
    return sections, metrics_files, page, markdown, figures


def _write(root, metrics_files, sections, page, markdown, figures) -> None:
    """Metrics JSON, figures, Markdown and HTML (only after everything was built)."""
    for instrument, metrics in metrics_files.items():
        write_metrics(root / "reports" / "metrics" / f"{instrument}.json", metrics)
        log(f"[report] reports/metrics/{instrument}.json: {len(metrics)} metrics")
    fig_dir = root / "reports" / "figures"
    if fig_dir.exists():
        shutil.rmtree(fig_dir)  # a figure dropped from the report must not linger
    fig_dir.mkdir(parents=True)
    for name, data in sorted(figures.items()):
        atomic_write(fig_dir / name, data)
    atomic_write_text(root / "reports" / "report.md", markdown)
    atomic_write_text(root / "reports" / "report.html", page)
    log(
        f"[report] reports/report.html: {len(sections)} sections, {len(figures)} figures, "
        f"{page.count('<table')} tables"
    )


def provenance_blocks(tables: list[pd.DataFrame]) -> list:
    """The appendix: every artifact the report read, its params hash and content hash."""
    frame = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if len(frame):
        frame["sha256"] = frame["sha256"].str[:16]
    return [
        Paragraph(
            "Every artifact below was verified before the report was written: it exists, reads "
            "back, and carries the hash of the params it was made with, which equals the hash "
            "of the current params.yaml section (per-seed jobs: without the sweep keys). The "
            "content hash is the first 16 hex digits of the SHA-256 of the artifact's canonical "
            "content: a table's schema, metadata and values with floats at 10 significant "
            "digits; a metrics file's bytes (written in that form)."
        ),
        # the params line under every table already names params.yaml's hash
        Table(title="Artifacts read by this report", df=frame),
    ]


def main(argv: list[str] | None = None) -> int:
    """``stages/report.py report --arg instruments=a,b,...``; returns the exit status."""
    import argparse
    import sys
    import time

    parser = argparse.ArgumentParser(prog="stages/report.py", description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=("report",), help="the report (the only target)")
    parser.add_argument("--params", default="params.yaml", help="params file (default params.yaml)")
    parser.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    try:
        params = load_params(args.params)
        root = Path(args.params).resolve().parent
        check_other_runner_idle(root)
        run_report(params, root=root, args=key_values(args.arg))
    except (InputError, ClaimFailed) as exc:
        return report_stop(exc, where="[report]")
    log(f"[report] done in {time.perf_counter() - started:.1f}s")
    return 0
