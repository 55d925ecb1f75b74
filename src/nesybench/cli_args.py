"""The command-line arguments every ``nesybench`` command shares, declared once.

``--out`` (:func:`add_out`, checked by :func:`check_out`, written by :func:`write_out`),
``--json`` (:func:`add_json`), ``--bins`` (:func:`add_bins`) and the benchmark a file
comes from (:func:`add_benchmark`, ``--benchmark`` everywhere).  Each command module
builds its parser from these, so one concept has one name, one help text and one
check, and the rules for an output path hold on every command that writes one:

* the path is checked before any work is done: a folder, a path under a regular file
  (named as such), or a folder that cannot be written is one ``error:`` line;
* an output that resolves to one of the command's inputs (real paths compared, so a
  symbolic link or a hard link to the input counts) is refused: it would destroy it;
* the write itself goes through :func:`nesybench.io.atomic_write`: a temporary file
  moved into place, mode from the umask, symbolic links followed (as ``>`` does) and a
  device or FIFO written through, never replaced.

Import-light on purpose (no numpy, no pandas): ``nesybench --help`` and the parsers
of the small commands pay nothing for it.
"""

from __future__ import annotations

import argparse
import os
import stat
import textwrap
from collections.abc import Iterable
from pathlib import Path

from .errors import InputError

# nesybench.io (json, tempfile) loads inside check_out / write_out: building a parser for
# --help needs none of it.

#: what every --out help says about the write (the module docstring spells it out)
OUT_RULES = (
    "written atomically with the umask's mode; a symbolic link is followed, a device or "
    "FIFO written through; never one of the inputs"
)


# ---------------------------------------------------------------- --out
def add_out(
    parser: argparse.ArgumentParser,
    *,
    metavar: str,
    help: str,
    required: bool = False,
    flag: str = "--out",
) -> None:
    """Add an output-file option (``--out`` unless ``flag`` says otherwise)."""
    parser.add_argument(flag, metavar=metavar, required=required, help=f"{help} ({OUT_RULES})")


def _same_file(a: Path, b: str | os.PathLike) -> bool:
    """Whether ``a`` (a real path) and the input ``b`` are one file: real paths, then inodes."""
    from .io import write_target

    if a == write_target(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_out(
    path: str | os.PathLike | None,
    *,
    inputs: Iterable[str | os.PathLike | None] = (),
    flag: str = "--out",
) -> None:
    """Refuse an output path that cannot or must not be written, before any work is done.

    ``inputs`` are every file the command reads (None entries are ignored).  Nothing is
    created: missing folders are made by the write itself, after the work succeeded.
    """
    if path is None:
        return
    import tempfile

    from .io import blocking_file, write_target

    target = write_target(path)
    for source in inputs:
        if source is not None and _same_file(target, source):
            raise InputError(
                f"{flag} {path}: is the input {source}; writing it would destroy the input "
                "(give another output path)"
            )
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{flag} {path}: is a directory, expected a file path")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return  # a device or FIFO: written through, and probing it would consume a reader
    blocker = blocking_file(path)
    if blocker is not None:
        raise InputError(
            f"{flag} {path}: {blocker} is a file, not a folder, so {path} cannot be made"
        )
    folder = target.parent
    while not folder.exists():
        folder = folder.parent
    try:  # a real probe: permission bits do not tell (root, read-only mounts, /proc)
        with tempfile.TemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".tmp"):
            pass
    except OSError as exc:
        raise InputError(
            f"{flag} {path}: cannot write in {folder} ({exc.strerror or type(exc).__name__})"
        ) from None


def write_out(path: str | os.PathLike, data: bytes | str, *, flag: str = "--out") -> None:
    """Write an output file through the one write boundary; a failure names ``flag``."""
    from .io import atomic_write

    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        atomic_write(path, payload)
    except InputError as exc:
        raise InputError(f"{flag} {exc}") from None


# ---------------------------------------------------------------- --json, --bins
def add_json(parser: argparse.ArgumentParser, *, help: str = "print the result as JSON") -> None:
    parser.add_argument("--json", action="store_true", help=help)


def bins(text: str) -> int:
    """``--bins``: an integer checked by the library's own validator (``check_n_bins``)."""
    from .metrics import MAX_BINS

    shown = text if len(text) <= 20 else text[:17] + "..."
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [1, {MAX_BINS}], got {shown!r}"
        ) from None
    from .metrics.calibration import check_n_bins

    try:
        return check_n_bins(value)
    except InputError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [1, {MAX_BINS}], got {shown}"
        ) from None


def add_bins(
    parser: argparse.ArgumentParser, *, help: str = "number of bins", default: int = 10
) -> None:
    from .metrics import MAX_BINS

    parser.add_argument(
        "--bins",
        type=bins,
        default=default,
        metavar="B",
        help=f"{help}, 1 to {MAX_BINS} (default {default})",
    )


# ---------------------------------------------------------------- --benchmark
def add_benchmark(
    parser: argparse.ArgumentParser,
    choices: Iterable[str],
    *,
    help: str,
    aliases: Iterable[str] = (),
    default: str | None = None,
) -> None:
    """``--benchmark NAME``: the benchmark a file comes from (older names kept as aliases)."""
    choices = tuple(choices)
    parser.add_argument(
        "--benchmark",
        *aliases,
        dest="benchmark",
        choices=choices,
        required=default is None,
        default=default,
        metavar="{" + ",".join(choices) + "}",
        help=help,
    )


# ---------------------------------------------------------------- help layout
HELP_WIDTH = 88


def examples(*lines: str) -> str:
    """The one ``Example:`` block that ends every command's help (its epilog)."""
    return "Example:\n" + "\n".join(f"  {line}" for line in lines) + "\n"


def add_command(
    subparsers, name: str, *, help: str, description: str, epilog: str
) -> argparse.ArgumentParser:
    """A command's parser laid out as every command's is.

    ``description`` is prose (paragraphs wrapped here); ``epilog`` is preformatted (input
    forms, formulas) and must end with the :func:`examples` block: the help of every
    command has its ``Example:`` in that one place (a test checks it).
    """
    if "Example" in description:
        raise ValueError(f"{name}: examples go in the epilog (cli_args.examples), not here")
    if epilog.count("Example:\n") != 1 or "\nExample:\n" not in "\n" + epilog:
        raise ValueError(f"{name}: the epilog must hold one examples() block")
    paragraphs = [" ".join(part.split()) for part in description.strip().split("\n\n")]
    wrapped = "\n\n".join(textwrap.fill(part, HELP_WIDTH) for part in paragraphs)
    return subparsers.add_parser(
        name,
        help=help,
        description=wrapped,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
