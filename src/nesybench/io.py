"""Deterministic artifacts: Parquet tables, flat metrics JSON, CSV plot data.

Every writer goes through :func:`atomic_write`: the bytes land in a temporary
file in the destination folder and are moved into place with ``os.replace``, so
an interrupted run never leaves a file that looks finished.

Parquet conventions (DESIGN.md): pyarrow, no pandas index, zstd level 3, rows
sorted by a declared key, schema metadata carrying instrument, stage, schema
version and the hash of the params that produced the table.  No timestamps or
library versions are written, so equal inputs give equal bytes.
"""

from __future__ import annotations

import io
import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .canonical import canonical_frame, canonical_value
from .errors import UserError

if TYPE_CHECKING:
    import pandas as pd

# pandas and pyarrow load inside the Parquet and CSV functions only: the CLI's small commands
# (count, check-trace) write JSON through this module and should not pay for them at start-up.

SCHEMA_VERSION = "1"
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
META_PREFIX = "nesybench."


def atomic_write(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary sibling file and ``os.replace``.

    An output path that cannot be written (a directory, a path under a file, no
    permission, a read-only or full disk) is a ``UserError`` naming it; the
    temporary file never outlives a failure.
    """
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path}: is a directory; give a file path to write")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except (FileExistsError, NotADirectoryError):
        raise UserError(f"{path}: cannot write here, a parent of it is a file") from None
    except PermissionError:
        raise UserError(f"{path}: cannot write here (permission denied)") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write here ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise UserError(f"{path}: could not be written ({exc.strerror or exc})") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write(path, text.encode("utf-8"))


def parquet_bytes(
    df: pd.DataFrame,
    *,
    key: Sequence[str],
    instrument: str,
    stage: str,
    params_hash: str,
    schema_version: str = SCHEMA_VERSION,
    extra_metadata: Mapping[str, str] | None = None,
) -> bytes:
    """``df`` sorted by ``key`` as deterministic Parquet bytes (see the module docstring).

    ``key`` must name columns that identify a row; duplicates in it are an error,
    because a key that does not identify rows leaves their order to chance.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    missing = [c for c in key if c not in df.columns]
    if missing:
        raise ValueError(f"sort key columns {missing} not in table columns {list(df.columns)}")
    if key:
        if df.duplicated(subset=list(key)).any():
            raise ValueError(f"sort key {list(key)} does not identify rows uniquely")
        df = df.sort_values(list(key), kind="mergesort")
    df = df.reset_index(drop=True)
    table = pa.Table.from_pandas(df, preserve_index=False)
    metadata = {
        f"{META_PREFIX}instrument": instrument,
        f"{META_PREFIX}stage": stage,
        f"{META_PREFIX}schema_version": str(schema_version),
        f"{META_PREFIX}params_hash": params_hash,
        f"{META_PREFIX}sort_key": json.dumps(list(key)),
    }
    for k, v in sorted((extra_metadata or {}).items()):
        metadata[f"{META_PREFIX}{k}"] = str(v)
    # Drop pandas' own metadata blob: it records the pandas version, which would
    # make bytes depend on the installed library rather than on the data.
    table = table.replace_schema_metadata(metadata)
    sink = io.BytesIO()
    pq.write_table(
        table,
        sink,
        compression=COMPRESSION,
        compression_level=COMPRESSION_LEVEL,
        write_statistics=True,
    )
    return sink.getvalue()


def write_parquet(df: pd.DataFrame, path: str | os.PathLike, **options: Any) -> Path:
    """Write ``df`` as deterministic Parquet (:func:`parquet_bytes` options) atomically."""
    return atomic_write(path, parquet_bytes(df, **options))


def read_parquet(path: str | os.PathLike) -> pd.DataFrame:
    """Read a Parquet file written by :func:`write_parquet` (or a user's file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pandas()
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise UserError(
            f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})"
        ) from None


def parquet_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The ``nesybench.*`` schema metadata of a Parquet file, prefix stripped."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    out = {}
    for k, v in meta.items():
        k = k.decode()
        if k.startswith(META_PREFIX):
            out[k[len(META_PREFIX) :]] = v.decode()
    return out


def flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested dicts into dotted keys: ``{"a": {"b": 1}} -> {"a.b": 1}``."""
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def _json_value(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item()  # numpy scalar -> Python scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_json(obj: Any) -> str:
    """Canonical JSON text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, default=_json_value, allow_nan=False) + "\n"


def metrics_bytes(metrics: Mapping[str, Any]) -> bytes:
    """Metrics as flat JSON with sorted dotted keys (``dvc metrics diff`` reads it).

    Floats in canonical form (nesybench.canonical: 10 significant digits, no ``-0.0``).
    """
    flat = {k: canonical_value(_json_value(v)) for k, v in flatten(metrics).items()}
    for k, v in flat.items():
        if not (v is None or isinstance(v, (bool, int, float, str))):
            raise TypeError(f"metric {k!r} is not a scalar: {type(v).__name__}")
    return dumps_json(flat).encode("utf-8")


def write_metrics(path: str | os.PathLike, metrics: Mapping[str, Any]) -> Path:
    """Write :func:`metrics_bytes` atomically."""
    return atomic_write(path, metrics_bytes(metrics))


def read_json(path: str | os.PathLike) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def csv_bytes(df: pd.DataFrame, *, float_format: str = "%.10g") -> bytes:
    """Plot data as CSV bytes (no index, canonical floats, ``float_format``, ``\\n`` line ends)."""
    return (
        canonical_frame(df)
        .to_csv(index=False, float_format=float_format, lineterminator="\n")
        .encode("utf-8")
    )


def write_csv(path: str | os.PathLike, df: pd.DataFrame, *, float_format: str = "%.10g") -> Path:
    """Write :func:`csv_bytes` atomically."""
    return atomic_write(path, csv_bytes(df, float_format=float_format))


def sorted_unique(values: Iterable[Any]) -> list[Any]:
    return sorted(set(values))
