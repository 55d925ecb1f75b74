"""The ``nesybench`` command: every metric and checker on the user's own files.

Each instrument contributes its commands from ``nesybench.<instrument>.cli``
through a ``register(subparsers)`` function; a command's handler takes the parsed
arguments and returns an exit status.  Bad input anywhere surfaces as
``error: <one line>`` with exit status 2 and no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import INSTRUMENTS, __version__
from .errors import ClaimFailed, UserError


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in the project's one-line form, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="nesybench",
        description="Measurement instruments for neuro-symbolic reasoning: score your own model's outputs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `nesybench COMMAND --help` for a command's inputs and an example.",
    )
    parser.add_argument("--version", action="version", version=f"nesybench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for instrument in INSTRUMENTS:
        try:
            module = importlib.import_module(f"nesybench.{instrument}.cli")
        except ModuleNotFoundError as exc:
            if exc.name != f"nesybench.{instrument}.cli":
                raise
            continue  # instrument not landed yet
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ClaimFailed as exc:
        print(f"claim failed: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
