"""The one reader of users' tabular files: columns, types, nulls and ranges checked, first offender
named.

A command that takes a user's Parquet or CSV file declares what it expects as a
:class:`TableSchema` and calls :func:`read_table`; every defect becomes one
:class:`~nesybench.errors.InputError` line naming the file, the column, the
first offending row and the expected form::

    SCORES = TableSchema((Column("score", "float"), Column("label", "int", min=0, max=1)))
    df = read_table("scores.parquet", SCORES)
    # error: scores.parquet: column 'label' row 3 must be an integer in [0, 1], got 2

Column kinds:

``int``         integers (Parquet integer columns; CSV integer text)
``float``       real numbers (integers are accepted and converted); finite unless ``finite=False``
``str``         text
``label``       a class label of any form: an integer, a real number, a bool or a string
``float_list``  a list of finite real numbers per row (Parquet ``list<double>``)
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = ["Column", "TableSchema", "read_table", "validate_table", "load_frame"]

KINDS = ("int", "float", "str", "label", "float_list")


@dataclass(frozen=True)
class Column:
    """One expected column: its kind, whether it may be absent or null, and its allowed range."""

    name: str
    kind: str
    required: bool = True
    nullable: bool = False
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    finite: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"Column {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}"
            )

    def expected(self) -> str:
        """The expected form, as the error line says it."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        noun = {
            "int": "an integer",
            "float": "a finite number" if self.finite else "a number",
            "str": "a string",
            "label": "a label (an integer, number, bool or string)",
            "float_list": "a list of finite numbers",
        }[self.kind]
        if self.min is not None and self.max is not None:
            return f"{noun} in [{_plain(self.min)}, {_plain(self.max)}]"
        if self.min is not None:
            return f"{noun} >= {_plain(self.min)}"
        if self.max is not None:
            return f"{noun} <= {_plain(self.max)}"
        return noun


@dataclass(frozen=True)
class TableSchema:
    """The columns a user's table must have; ``unique`` columns together identify a row."""

    columns: tuple[Column, ...]
    unique: tuple[str, ...] = ()
    min_rows: int = 1
    extra_columns: bool = True
    names: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(c.name for c in self.columns))


def _plain(value: object) -> str:
    """A number as a person writes it: ``1.1``, not ``np.float64(1.1)``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return repr(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_null(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _cell_ok(col: Column, value: object) -> bool:
    kind = col.kind
    if kind == "int":
        # pandas turns an integer column with a null into floats: accept integral values.
        ok = _is_int(value) or (
            _is_real(value) and math.isfinite(float(value)) and float(value).is_integer()
        )
        # a column is stored as 64-bit integers: 10**30 is refused here, not by an overflow
        ok = ok and INT64_MIN <= value <= INT64_MAX
    elif kind == "float":
        ok = _is_real(value) and (not col.finite or math.isfinite(float(value)))
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "label":
        # any label: a string, an integer, a finite real number or a bool (a pandas column of
        # integers with a null in it arrives as floats, so 0.0 must pass and the null be named)
        ok = (
            isinstance(value, (str, bool, np.bool_))
            or _is_int(value)
            or (_is_real(value) and math.isfinite(float(value)))
        )
    else:  # float_list
        if isinstance(value, np.ndarray):
            value = value.tolist()
        ok = isinstance(value, (list, tuple)) and all(
            _is_real(v) and math.isfinite(float(v)) for v in value
        )
        return ok
    if not ok:
        return False
    if col.choices is not None and value not in col.choices:
        return False
    if kind in ("int", "float"):
        if col.min is not None and value < col.min:
            return False
        if col.max is not None and value > col.max:
            return False
    return True


def _is_number_text(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _first_bad_row(col: Column, series: pd.Series) -> int | None:
    """Index of the first row whose cell is null (when not allowed) or not of the column's form."""
    values = series.tolist()
    if col.kind in ("int", "float") and any(isinstance(v, str) for v in values):
        # One word in a CSV column makes the whole column text: name that cell, not row 0.
        for i, value in enumerate(values):
            if isinstance(value, str) and not _is_number_text(value):
                return i
    for i, value in enumerate(values):
        if _is_null(value) and not (
            col.kind == "float_list" and isinstance(value, (list, np.ndarray))
        ):
            if col.nullable:
                continue
            return i
        if not _cell_ok(col, value):
            return i
    return None


def _describe_cell(value: object) -> str:
    if _is_null(value):
        return "null"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_plain(v) for v in value[:5])
        return f"[{inner}{', ...' if len(value) > 5 else ''}]"
    if _is_int(value) and not INT64_MIN <= value <= INT64_MAX:
        return f"{_plain(value)} (beyond the 64-bit integer range)"
    if isinstance(value, str) or _is_real(value):
        return _plain(value)
    return f"{_plain(value)} (a {type(value).__name__})"


def validate_table(df: pd.DataFrame, schema: TableSchema, *, source: str) -> pd.DataFrame:
    """Check ``df`` against ``schema``; return it with numeric columns in their canonical dtypes."""
    present = [c.name for c in schema.columns if c.name in df.columns]
    for col in schema.columns:
        if col.required and col.name not in df.columns:
            raise InputError(
                f"{source}: missing column {col.name!r}; expected columns "
                f"{', '.join(c.name for c in schema.columns if c.required)}, got "
                f"{', '.join(map(str, df.columns)) or 'none'}"
            )
    if not schema.extra_columns:
        extra = [c for c in df.columns if c not in schema.names]
        if extra:
            raise InputError(
                f"{source}: unexpected column {extra[0]!r}; expected only {', '.join(schema.names)}"
            )
    if len(df) < schema.min_rows:
        raise InputError(
            f"{source}: the table must have at least {schema.min_rows} "
            f"row{'s' if schema.min_rows != 1 else ''}, got {len(df)}"
        )
    df = df.reset_index(drop=True)
    for col in schema.columns:
        if col.name not in present:
            continue
        bad = _first_bad_row(col, df[col.name])
        if bad is not None:
            raise InputError(
                f"{source}: column {col.name!r} row {bad} must be {col.expected()}, "
                f"got {_describe_cell(df[col.name].iloc[bad])}"
            )
        if col.kind == "int" and not col.nullable:
            df[col.name] = df[col.name].astype(np.int64)
        elif col.kind == "float" and not col.nullable:
            df[col.name] = df[col.name].astype(np.float64)
    if schema.unique:
        dup = df.duplicated(subset=list(schema.unique))
        if dup.any():
            row = int(np.flatnonzero(dup.to_numpy())[0])
            values = ", ".join(f"{c}={_plain(df[c].iloc[row])}" for c in schema.unique)
            raise InputError(f"{source}: row {row} repeats ({values}); each must appear once")
    return df


def load_frame(path: str | os.PathLike) -> pd.DataFrame:
    """A user's Parquet or CSV file as a DataFrame (by suffix; Parquet when unsure).

    Read under the input bound of :func:`nesybench.io.read_input`, so ``/dev/zero`` or an
    endless FIFO is refused in one line instead of filling memory.
    """
    import io

    from .io import read_input, read_parquet

    path = Path(path)
    if path.suffix.lower() in (".csv", ".tsv"):
        data = read_input(path)
        try:
            return pd.read_csv(io.BytesIO(data), sep="\t" if path.suffix.lower() == ".tsv" else ",")
        except (
            pd.errors.ParserError,
            pd.errors.EmptyDataError,
            UnicodeDecodeError,
            OSError,
        ) as exc:
            raise InputError(
                f"{path}: not a readable CSV file ({' '.join(str(exc).split())[:120]})"
            ) from None
        except MemoryError:
            raise InputError(f"{path}: too large to load into memory as a table") from None
    return read_parquet(path, bounded=True)


def read_table(
    path: str | os.PathLike, schema: TableSchema, *, source: str | None = None
) -> pd.DataFrame:
    """Read a user's Parquet/CSV file and validate it against ``schema`` (module docstring)."""
    return validate_table(load_frame(path), schema, source=source or str(path))


def check_columns(df: pd.DataFrame, names: Sequence[str], *, source: str) -> None:
    """Raise unless every name is a column of ``df`` (tables whose columns depend on data)."""
    for name in names:
        if name not in df.columns:
            raise InputError(f"{source}: missing column {name!r}")
