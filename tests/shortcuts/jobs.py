"""Run one shortcuts job in this process on a test's own section (the stage tests' harness)."""

from __future__ import annotations

from pathlib import Path

from nesybench.stages import StageContext, run_job


def run_shortcuts(
    root: Path, section: dict, stage: str, step: str | None = None, **args
) -> StageContext:
    """``run_job`` for the shortcuts instrument; wildcard values are given as plain values."""
    return run_job(
        "shortcuts",
        stage,
        step,
        params={"shortcuts": section},
        root=root,
        args={k: str(v) for k, v in args.items()},
    )
