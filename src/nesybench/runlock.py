"""Snakemake and DVC must not run nesybench's stages in one project at the same time.

Each runner locks the project against a second run of itself (Snakemake's
``.snakemake/locks``, DVC's ``.dvc/tmp/lock``), but not against the other: ``dvc repro``
deletes a stage's outputs before running it, which can pull an input from under a
Snakemake job.  So every stage command checks that the *other* runner is idle:

* under DVC (``DVC_STAGE`` is set for its stage commands): no Snakemake lock files;
* otherwise (Snakemake, or a stage run by hand): DVC's repository lock is free.

The Snakefile runs the same check before building the DAG, and ``dvc repro`` runs it in
its first stage (``validate``, which every stage depends on) before any output is
deleted, so an overlap is refused before anything is touched.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputError

__all__ = ["check_other_runner_idle", "dvc_running", "snakemake_running"]


def dvc_running(root: Path) -> bool:
    """True while a DVC command holds the repository lock (``.dvc/tmp/lock``, an flock)."""
    lock = Path(root) / ".dvc" / "tmp" / "lock"
    if not lock.exists():
        return False
    import fcntl

    try:
        with open(lock, "a+b") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def snakemake_running(root: Path) -> bool:
    """True while Snakemake's lock files exist (a run, or a killed one not yet --unlock-ed)."""
    locks = Path(root) / ".snakemake" / "locks"
    return locks.is_dir() and any(locks.glob("*.lock"))


def check_other_runner_idle(root: Path, *, runner: str | None = None) -> None:
    """Raise a ``InputError`` when the runner other than ``runner`` is busy in ``root``."""
    runner = runner or ("dvc" if os.environ.get("DVC_STAGE") else "snakemake")
    if runner == "dvc" and snakemake_running(root):
        raise InputError(
            "snakemake is running in this project (.snakemake/locks holds its locks); wait for it "
            "to finish, or run `snakemake --unlock` if it was killed, then rerun dvc repro"
        )
    if runner == "snakemake" and dvc_running(root):
        raise InputError(
            "dvc is running in this project (.dvc/tmp/lock is held); wait for it to finish, "
            "then rerun snakemake"
        )
