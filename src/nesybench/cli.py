"""The ``nesybench`` command: every metric and checker on the user's own files.

Each instrument contributes its commands from ``nesybench.<instrument>.cli``
through a ``register(subparsers)`` function; a command's handler takes the parsed
arguments and returns an exit status.  Bad input anywhere surfaces as
``error: <one line>`` with exit status 2 and no traceback.

Start-up is kept short: :data:`COMMANDS` names each command's module and help
line, so ``nesybench --help`` imports no instrument, and ``nesybench count ...``
imports only the module that defines ``count`` (and what its handler needs).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from . import __version__
from .errors import ClaimFailed, InputError, one_line, report_stop

# command -> (module whose register() adds it, one-line help).  A test checks that
# each module registers exactly the commands listed for it here.
COMMANDS: dict[str, tuple[str, str]] = {
    "count": (
        "nesybench.shortcuts.cli",
        "count the optima N_opt (label-preserving relabelings) of a knowledge on a support",
    ),
    "plan-supervision": (
        "nesybench.shortcuts.cli",
        "choose which observed states to give concept labels to (greedy, N_opt per pick)",
    ),
    "tasks": (
        "nesybench.shortcuts.named_tasks",
        "list the named tasks (rsbench's, knowledge read from its code): concepts, outputs, states",
    ),
    "score-concepts": (
        "nesybench.shortcuts.cli",
        "score your model's concept predictions: AccC, F1(C), Cls(C), ECE(C), occurrence, AccY",
    ),
    "calibrate": (
        "nesybench.calibration.cli",
        "fit a calibrator on the cal split and audit the eval split before and after",
    ),
    "reliability": (
        "nesybench.calibration.cli",
        "reliability table, ECE/MCE, Brier decomposition, NLL and AUC of your scores",
    ),
    "check-trace": (
        "nesybench.nli.cli",
        "check chains of thought step by step: label accuracy vs proof accuracy",
    ),
    "label": (
        "nesybench.nli.cli",
        "re-derive a benchmark's gold labels (ProofWriter, PrOntoQA, FOLIO): agreement, proofs",
    ),
    "score-nli": (
        "nesybench.nli.cli",
        "score predictions on ProofWriter/PrOntoQA/FOLIO/LogicBench, baselines beside",
    ),
    "execute-programs": (
        "nesybench.nli.cli",
        "execute LLM-written logic programs (Logic-LM's format) in two semantics, audit them",
    ),
    "mixture": (
        "nesybench.axes.cli",
        "the mixture confound: aggregates of two per-depth profiles under depth mixes",
    ),
    "axes-export": ("nesybench.axes.cli", "write the difficulty grid as JSONL for any model"),
    "axes-score": ("nesybench.axes.cli", "score your model on the grid: degradation profile"),
}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in the project's one-line form, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse writes "argument --bins must be ..."; the project's template is
        # "--bins must be ..., got ..." (nesybench.errors)
        message = re.sub(r"^argument ([-\w/]+): must ", r"\1 must ", message)
        self.exit(2, f"error: {one_line(f'{self.prog}: {message}')}\n")


def _top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = _Parser(
        prog="nesybench",
        description="Measurement instruments for neuro-symbolic reasoning: score your own model's "
        "outputs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `nesybench COMMAND --help` for a command's inputs and an example.",
    )
    parser.add_argument("--version", action="version", version=f"nesybench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    return parser, sub


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for ``command`` (its module imported), or with None the index of commands."""
    parser, sub = _top_parser()
    if command in COMMANDS:
        importlib.import_module(COMMANDS[command][0]).register(sub)
    else:
        for name, (_, help_line) in COMMANDS.items():
            sub.add_parser(name, help=help_line, add_help=False)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The first argument that is not an option: the command name, if any."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        print("error: nesybench: a COMMAND is required (listed above)", file=sys.stderr)
        return 2
    from .progress import clear_bars, quiet_log_lines

    try:
        with quiet_log_lines():
            return int(args.func(args) or 0)
    except (InputError, ClaimFailed) as exc:
        clear_bars()  # the error line is the only line left on stderr
        return report_stop(exc)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
