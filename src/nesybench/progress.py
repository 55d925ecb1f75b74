"""Progress for long work: a tqdm bar on a terminal, plain log lines otherwise.

Log lines go to stderr so that tables printed on stdout stay clean.  The ``nesybench``
command turns the plain lines off (:func:`quiet_log_lines`): off a terminal its stderr
carries only what a user must read, so a failing command prints its one ``error:`` line
and nothing else; on a terminal its bars are cleared (:func:`clear_bars`) before that
line is printed.  Pipeline stages keep the log lines (Snakemake's logs show them).
"""

from __future__ import annotations

import contextlib
import sys
import weakref
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_log_lines = True
_open_bars: weakref.WeakSet[Any] = weakref.WeakSet()


@contextlib.contextmanager
def quiet_log_lines() -> Iterator[None]:
    """Within the block, progress off a terminal prints nothing (bars on a terminal stay)."""
    global _log_lines
    previous, _log_lines = _log_lines, False
    try:
        yield
    finally:
        _log_lines = previous


def clear_bars() -> None:
    """Close every open progress bar (``leave=False`` erases it from the terminal)."""
    for bar in list(_open_bars):
        bar.close()


def log(message: str) -> None:
    """One progress/log line on stderr, flushed at once."""
    print(message, file=sys.stderr, flush=True)


def progress(
    items: Iterable[T], *, desc: str, total: int | None = None, every: int | None = None
) -> Iterator[T]:
    """Iterate ``items`` showing progress.

    On a terminal this is a tqdm bar; otherwise (Snakemake, CI, pipes) it logs
    ``desc: i/total`` about ten times over the run, so nothing runs silently.
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(items, desc=desc, total=total, file=sys.stderr, leave=False)
        _open_bars.add(bar)
        try:
            yield from bar
        finally:
            bar.close()
        return
    if not _log_lines:
        yield from items
        return
    step = every or max(1, (total or 10) // 10)
    done = 0
    for item in items:
        yield item
        done += 1
        if done % step == 0 or done == total:
            log(f"{desc}: {done}/{total if total is not None else '?'}")
