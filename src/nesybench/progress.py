"""Progress for long work: a tqdm bar on a terminal, plain log lines otherwise.

Log lines go to stderr so that tables printed on stdout stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


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

        yield from tqdm(items, desc=desc, total=total, file=sys.stderr, leave=False)
        return
    step = every or max(1, (total or 10) // 10)
    done = 0
    for item in items:
        yield item
        done += 1
        if done % step == 0 or done == total:
            log(f"{desc}: {done}/{total if total is not None else '?'}")
