"""The report stage: one HTML page, one Markdown file, one metrics JSON per instrument.

``python stages/report.py report --arg instruments=shortcuts,calibration,...``
lists the landed instruments (those whose rules fed the report); an instrument
that has not landed is simply absent, never shown with placeholder numbers.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

from .. import INSTRUMENTS, STAGES
from ..errors import UserError
from ..io import atomic_write, atomic_write_text, flatten, read_json, write_metrics
from ..params import file_hash
from .blocks import Table
from .figures import close
from .loader import ReportLoader
from .render import render

TITLES = {
    "shortcuts": "Reasoning shortcuts: concept tasks, shortcut counts, concept panel",
    "calibration": "Calibration: reliability audit and repair of a KG link predictor",
    "nli": "NLI: label accuracy vs proof accuracy vs abstention",
    "axes": "Difficulty axes: depth, mixture confound, flip probe, gadgets",
}


def merge_stage_metrics(root: Path, instrument: str) -> dict:
    """Merge ``data/<stage>/<instrument>/metrics.json`` over the stages, in pipeline order.

    A key written by two stages is an error: a metric must have one source.
    """
    merged: dict = {}
    source: dict[str, str] = {}
    for stage in STAGES:
        path = root / "data" / stage / instrument / "metrics.json"
        if not path.exists():
            continue
        for key, value in flatten(read_json(path)).items():
            if key in merged:
                raise ValueError(
                    f"metric {instrument}:{key} is written by both {source[key]} and {stage}"
                )
            merged[key], source[key] = value, stage
    return merged


def report(ctx) -> None:
    landed = [i for i in ctx.args.get("instruments", "").split(",") if i]
    unknown = [i for i in landed if i not in INSTRUMENTS]
    if unknown:
        raise UserError(
            f"--arg instruments: unknown instrument {unknown[0]!r}; expected some of "
            f"{', '.join(INSTRUMENTS)}"
        )
    root = ctx.root
    params_yaml_hash = file_hash(root / "params.yaml")

    sections = []
    for instrument in landed:
        metrics = merge_stage_metrics(root, instrument)
        write_metrics(root / "reports" / "metrics" / f"{instrument}.json", metrics)
        ctx.log(f"reports/metrics/{instrument}.json: {len(metrics)} metrics")
        module = importlib.import_module(f"nesybench.{instrument}.report")
        section_params = ctx.all_params.get(instrument, {})
        loader = ReportLoader(root, instrument, section_params)
        blocks = module.section(loader)
        # A table that names no params of its own states the instrument's top-level ones (seed,
        # ...).
        top_level = {
            k: v for k, v in section_params.items() if isinstance(v, (bool, int, float, str))
        }
        for block in blocks:
            if isinstance(block, Table) and not block.params:
                block.params = dict(top_level)
        sections.append((TITLES.get(instrument, instrument), blocks))

    title = ctx.params.get("title", "nesybench report")
    intro = (
        f"Every number below was computed by this run of the pipeline from params.yaml "
        f"(sha256:{params_yaml_hash}); instruments in this report: {', '.join(landed) or 'none'}."
    )
    page, markdown, figures = render(
        sections, title=title, params_yaml_hash=params_yaml_hash, intro=intro
    )
    for _, blocks in sections:
        for block in blocks:
            if hasattr(block, "figure"):
                close(block.figure)

    fig_dir = root / "reports" / "figures"
    if fig_dir.exists():
        shutil.rmtree(fig_dir)  # a figure dropped from the report must not linger
    fig_dir.mkdir(parents=True)
    for name, data in sorted(figures.items()):
        atomic_write(fig_dir / name, data)
    atomic_write_text(root / "reports" / "report.md", markdown)
    atomic_write_text(root / "reports" / "report.html", page)
    ctx.log(
        f"reports/report.html: {len(sections)} sections, {len(figures)} figures, "
        f"{page.count('<table')} tables"
    )
