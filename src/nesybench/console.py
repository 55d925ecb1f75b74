"""Plain-text tables on the console: what the stages and the CLI print on stdout."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .canonical import format_float

__all__ = ["format_number", "format_table", "print_table"]


def format_number(value: float | None, floatfmt: str = "{:.4f}") -> str:
    """A number in a CLI line: ``-`` where missing, else as :func:`.canonical.format_float` has it.

    >>> format_number(None), format_number(-0.00001), format_number(2)
    ('-', '0.0000', '2.0000')
    """
    return "-" if value is None else format_float(value, floatfmt)


def format_table(df: pd.DataFrame, *, floatfmt: str = "{:.4f}") -> str:
    """Fixed-width plain-text rendering of a small table (first column left-aligned, others right).

    >>> print(format_table(pd.DataFrame({"name": ["a", "bb"], "x": [1.0, 0.25]})))
      name       x
      a     1.0000
      bb    0.2500
    """

    def cell(v: Any) -> str:
        return format_float(v, floatfmt) if isinstance(v, float) else str(v)

    rows = [[str(c) for c in df.columns]] + [
        [cell(v) for v in row] for row in df.itertuples(index=False)
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows and rows[0] else []
    lines = [
        "  ".join(v.rjust(w) if j else v.ljust(w) for j, (v, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    return "\n".join("  " + line.rstrip() for line in lines)


def print_table(title: str, df: pd.DataFrame, *, floatfmt: str = "{:.4f}") -> None:
    """A title line and the table on stdout, the way the spec prints its committed runs."""
    print(f"\n{title}")
    print(format_table(df, floatfmt=floatfmt), flush=True)
