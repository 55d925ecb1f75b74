"""The canonical form of the numbers the pipeline commits: metrics JSON, plot CSVs, report text.

The numeric environment is pinned (:mod:`nesybench.numeric_env`), so a job computes the same
bits on every x86-64 machine.  This module is the second line of defence, for what the pin
cannot cover (another architecture, another libm): the committed files carry numbers in a
form that last-bit noise does not reach.

* A float is written with :data:`SIGNIFICANT_DIGITS` significant digits (``float(f"{x:.10g}")``,
  which Python rounds correctly on every platform), and ``-0.0`` is written as ``0.0``.
* A number formatted for a report table that rounds to zero loses its sign (``-0.0000`` is
  ``0.0000``).
* The report's provenance table hashes an artifact's canonical content
  (:func:`table_digest`): its schema, metadata and values with floats in the same form.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "SIGNIFICANT_DIGITS",
    "canonical_float",
    "canonical_frame",
    "canonical_value",
    "format_float",
    "table_digest",
    "unsigned_zero",
]

SIGNIFICANT_DIGITS = 10

_ZERO_MANTISSA = re.compile(r"[0.,]+")


def canonical_float(x: float) -> float:
    """``x`` rounded to :data:`SIGNIFICANT_DIGITS` significant digits; ``-0.0`` becomes ``0.0``.

    >>> canonical_float(0.1 + 0.2), canonical_float(-0.0), canonical_float(-1e-300)
    (0.3, 0.0, -1e-300)
    """
    x = float(x)
    if not math.isfinite(x):
        return x
    rounded = float(f"{x:.{SIGNIFICANT_DIGITS}g}")
    if not math.isfinite(rounded):  # within a digit of the largest float: rounds up to inf
        return x
    return rounded + 0.0  # -0.0 + 0.0 == 0.0


def canonical_value(value: Any) -> Any:
    """Floats (also numpy floats, inside lists and dicts) in canonical form; the rest as is."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return canonical_float(value)
    if hasattr(value, "dtype") and hasattr(value, "item") and getattr(value, "ndim", 0) == 0:
        return canonical_value(value.item())  # a numpy scalar
    if isinstance(value, Mapping):
        return {k: canonical_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical_value(v) for v in value]
    return value


def canonical_frame(df):
    """A copy of ``df`` whose float columns hold canonical floats (for plot CSVs)."""
    import pandas as pd

    out = df.copy()
    for column in out.columns:
        if pd.api.types.is_float_dtype(out[column]):
            out[column] = [canonical_float(v) for v in out[column]]
    return out


def format_float(value: float, floatfmt: str = "{:.4f}") -> str:
    """``value`` as a table or the console prints it: ``floatfmt``, unsigned where it rounds to 0.

    The one place a float becomes display text (the report, the stages' tables, the CLI), so
    the sign of a rounded zero, which another CPU's kernels can flip, is dropped everywhere.

    >>> format_float(-1e-9), format_float(0.25, "{:.2f}"), format_float(-0.5)
    ('0.0000', '0.25', '-0.5000')
    """
    return unsigned_zero(floatfmt.format(value))


def unsigned_zero(text: str) -> str:
    """A formatted number that rounded to zero, without its sign.

    >>> [unsigned_zero(t) for t in ("-0.0000", "-0", "-0.0001", "-inf", "-0.00e+00")]
    ['0.0000', '0', '-0.0001', '-inf', '0.00e+00']
    """
    if text.startswith("-"):
        mantissa = re.split(r"[eE%]", text[1:], maxsplit=1)[0]
        if _ZERO_MANTISSA.fullmatch(mantissa) and "0" in mantissa:
            return text[1:]
    return text


def table_digest(path) -> str:
    """SHA-256 (hex) of a Parquet artifact's canonical content.

    The schema (column names and types), the file's key-value metadata and every value, floats
    in canonical form: equal for two files whose floats differ only below
    :data:`SIGNIFICANT_DIGITS` digits, different for any other change.
    """
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    metadata = {
        k.decode("utf-8"): v.decode("utf-8") for k, v in (table.schema.metadata or {}).items()
    }
    digest = hashlib.sha256()
    header = {
        "schema": [[field.name, str(field.type)] for field in table.schema],
        "metadata": metadata,
    }
    digest.update(json.dumps(header, sort_keys=True).encode("utf-8"))
    for column in table.columns:
        values = canonical_value(column.to_pylist())
        digest.update(b"\n")
        digest.update(json.dumps(values, allow_nan=True).encode("utf-8"))
    return digest.hexdigest()
