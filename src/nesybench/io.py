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
import stat
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .canonical import canonical_frame, canonical_value
from .errors import InputError
from .metric_keys import check_metric_keys

if TYPE_CHECKING:
    import pandas as pd

# pandas and pyarrow load inside the Parquet and CSV functions only: the CLI's small commands
# (count, check-trace) write JSON through this module and should not pay for them at start-up.

SCHEMA_VERSION = "1"
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
META_PREFIX = "nesybench."


def _umask() -> int:
    """The process's umask, read without changing it (Linux reports it in /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc: the classic read-by-setting, restored at once
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a new file gets under the current umask (0644 under 022), as ``open`` gives."""
    return 0o666 & ~_umask()


def _cannot_write(path: Path, exc: OSError) -> InputError:
    """The one line for a path that cannot be written, naming what is in the way."""
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        blocker = blocking_file(path)
        if blocker is not None:
            return InputError(f"{path}: cannot write here, {blocker} is a file, not a folder")
    if isinstance(exc, PermissionError):
        return InputError(f"{path}: cannot write here (permission denied)")
    return InputError(f"{path}: cannot write here ({exc.strerror or exc})")


def blocking_file(path: str | os.PathLike) -> Path | None:
    """The nearest ancestor of ``path`` that exists and is not a folder, if any.

    ``out/sub/x.json`` with ``out`` a regular file: ``out``, so the message can say that
    a part of the path is a file rather than "File exists" or "no such folder".
    """
    for parent in Path(path).parents:
        try:
            st = os.stat(parent)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return None
        return None if stat.S_ISDIR(st.st_mode) else parent
    return None


def write_target(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` lands in: symbolic links followed, as shell redirection does.

    A link to ``results.jsonl`` writes ``results.jsonl`` (the link stays a link); a link
    whose target does not exist yet creates that target.
    """
    return Path(os.path.realpath(path))


def _write_through(path: Path, data: bytes) -> None:
    """Write into an existing special file (device, FIFO) in place: never replace it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        raise InputError(f"{path}: cannot write here ({exc.strerror or exc})") from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise InputError(f"{path}: could not be written ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary sibling file and ``os.replace``.

    The write boundary of every artifact, report and ``--out`` file (DESIGN.md, "Atomic
    writes"):

    * a regular file (or a path that does not exist yet) is written to a temporary file
      in the same folder and moved into place, so no reader ever sees half of it; missing
      folders are made;
    * the file gets the mode the umask gives (0644 under umask 022), as a file made by
      ``open`` would, also when it replaces an older file;
    * a symbolic link is followed: its target is written, the link stays a link;
    * a target that exists and is not a regular file (``/dev/null``, a terminal, a FIFO) is
      written through in place, never replaced;
    * a path that cannot be written (a directory, a path under a file, no permission, a
      read-only or full disk, a file-size limit) is a ``InputError`` naming it, and the
      temporary file never outlives a failure.

    Returns ``path`` as given.
    """
    given = Path(path)
    target = write_target(given)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _cannot_write(given, exc) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{given}: is a directory; give a file path to write")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_through(target, data)
        return given
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _cannot_write(given, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), file_mode())  # mkstemp makes 0600 whatever the umask
            handle.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"{given}: could not be written ({exc.strerror or exc})") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return given


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write(path, text.encode("utf-8"))


# ---------------------------------------------------------------- reading users' files
#: the largest user file read into memory, in MiB (NESYBENCH_MAX_INPUT_MB lifts it)
DEFAULT_MAX_INPUT_MB = 256
MAX_INPUT_ENV = "NESYBENCH_MAX_INPUT_MB"
_CHUNK = 1 << 20


def max_input_bytes() -> int:
    """The input limit in bytes: :data:`DEFAULT_MAX_INPUT_MB`, or ``$NESYBENCH_MAX_INPUT_MB``."""
    text = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_INPUT_MB << 20
    try:
        mb = int(text)
    except ValueError:
        mb = -1
    if mb < 1:
        raise InputError(f"{MAX_INPUT_ENV} must be a whole number of MiB >= 1, got {text[:40]!r}")
    return mb << 20


def _too_large(path: object, limit: int) -> InputError:
    return InputError(
        f"{path}: larger than {limit >> 20:,} MiB, the limit on an input file read into memory; "
        f"set {MAX_INPUT_ENV} to a larger number of MiB to read it"
    )


def read_input(path: str | os.PathLike, *, what: str = "file") -> bytes | bytearray:
    """The bytes of a user's input file, read with a bound (:func:`max_input_bytes`).

    A regular file over the limit is refused before it is read; a stream (``/dev/zero``,
    a FIFO, a pipe) is read until the limit and refused past it, so no input can take
    memory without bound.  A missing file, a folder or an unreadable file is one
    ``InputError`` line naming ``path``.
    """
    limit = max_input_bytes()
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if stat.S_ISREG(st.st_mode):
                if st.st_size > limit:
                    raise _too_large(path, limit)
                data = handle.read(limit + 1)
            else:  # a stream: read in chunks into one buffer, never past the limit
                buffer = bytearray()
                while len(buffer) <= limit:
                    chunk = handle.read(min(_CHUNK, limit + 1 - len(buffer)))
                    if not chunk:
                        break
                    buffer += chunk
                data = buffer
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a {what}") from None
    except NotADirectoryError:
        blocker = blocking_file(path)
        where = f" ({blocker} is a file, not a folder)" if blocker else ""
        raise InputError(f"{path}: {what} not found{where}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def read_input_text(path: str | os.PathLike, *, what: str = "file") -> str:
    """:func:`read_input` decoded as UTF-8 (a leading byte-order mark dropped)."""
    raw = read_input(path, what=what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: cannot read as UTF-8 text (byte {exc.start})") from None


class BadLine:
    """A line of JSON Lines that is not JSON: kept in place so readers can count it."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __str__(self) -> str:
        return self.reason

    def __repr__(self) -> str:
        return f"BadLine({self.reason!r})"


def _loads(text: str) -> Any:
    """``json.loads`` that reports nesting too deep for Python as bad JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text[:1], 0) from None


def json_records(text: str, *, source: object, what: str = "records") -> tuple[str, list]:
    """Split a JSON list, one JSON object or JSON Lines into records: ``(kind, [(n, record)])``.

    ``kind`` is ``"list"`` (``n`` = position from 1), ``"object"`` or ``"lines"`` (``n`` =
    line number; a line that is not JSON gives a :class:`BadLine`).  The text is read as
    one JSON value when it is one; JSON Lines otherwise, so a JSON Lines file whose first
    line is a JSON array is JSON Lines (its first record an array) and only a JSON list
    that is cut short or broken is refused as such.  Empty text, a top level that is
    neither a list nor an object, JSON nested too deeply and text with no JSON line at
    all are ``InputError`` lines naming ``source``.
    """
    if not text.strip():
        raise InputError(f"{source}: empty file (expected a JSON list or JSON Lines of {what})")
    try:
        data = _loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "nested too deeply":
            raise InputError(f"{source}: JSON nested too deeply to read") from None
        # "Extra data": a whole JSON value and more after it: several values, JSON Lines.
        several = exc.msg == "Extra data"
        first_error = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    else:
        if isinstance(data, list):
            return "list", [(i + 1, record) for i, record in enumerate(data)]
        if isinstance(data, dict):
            return "object", [(1, data)]
        got = "null" if data is None else type(data).__name__
        raise InputError(
            f"{source}: the file must be a JSON list of {what} or JSON Lines, got a JSON {got}"
        )
    if not several and text.lstrip().startswith("["):
        raise InputError(f"{source}: not valid JSON ({first_error}; a JSON list cut short?)")
    records: list = []
    n_json = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((lineno, _loads(line)))
            n_json += 1
        except json.JSONDecodeError as exc:
            records.append((lineno, BadLine(f"line {lineno} is not JSON ({exc.msg})")))
    if n_json == 0:
        raise InputError(f"{source}: not JSON or JSON Lines ({first_error})")
    return "lines", records


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


def read_parquet(path: str | os.PathLike, *, bounded: bool = False) -> pd.DataFrame:
    """Read a Parquet file written by :func:`write_parquet` (or a user's file).

    ``bounded`` (users' files): the file is read under the input limit
    (:func:`read_input`), which also lets a FIFO or ``/dev/stdin`` be read.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    source: Any = path
    if bounded:
        source = pa.BufferReader(read_input(path))
    try:
        return pq.read_table(source).to_pandas()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except MemoryError:
        raise InputError(f"{path}: too large to load into memory as a table") from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(
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

    Floats in canonical form (nesybench.canonical: 10 significant digits, no ``-0.0``). Every
    key must follow the naming rule (:func:`nesybench.metric_keys.check_metric_key`): a key
    that breaks it stops the job here, before a byte is written.
    """
    flat = {k: canonical_value(_json_value(v)) for k, v in flatten(metrics).items()}
    check_metric_keys(flat)
    for k, v in flat.items():
        if not (v is None or isinstance(v, (bool, int, float, str))):
            raise TypeError(f"metric {k!r} is not a scalar: {type(v).__name__}")
    return dumps_json(flat).encode("utf-8")


def write_metrics(path: str | os.PathLike, metrics: Mapping[str, Any]) -> Path:
    """Write :func:`metrics_bytes` atomically."""
    return atomic_write(path, metrics_bytes(metrics))


def read_json(path: str | os.PathLike) -> Any:
    """A JSON file (bounded, :func:`read_input`), or one ``InputError`` line."""
    text = read_input_text(path)
    try:
        return _loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def csv_bytes(df: pd.DataFrame, *, float_format: str | None = "%.10g") -> bytes:
    """Table data as CSV bytes (no index, ``\\n`` line ends).

    With a ``float_format`` (the pipeline's plot data) floats are in canonical form first
    (nesybench.canonical: no ``-0.0``); ``float_format=None`` writes each float's shortest
    round-trip form, as it is (users' results).
    """
    table = df if float_format is None else canonical_frame(df)
    return table.to_csv(index=False, float_format=float_format, lineterminator="\n").encode("utf-8")


def write_csv(path: str | os.PathLike, df: pd.DataFrame, *, float_format: str = "%.10g") -> Path:
    """Write :func:`csv_bytes` atomically."""
    return atomic_write(path, csv_bytes(df, float_format=float_format))


def sorted_unique(values: Iterable[Any]) -> list[Any]:
    return sorted(set(values))
