"""The ways a run can stop on purpose, and the one mapping to exit statuses.

``UserError`` is bad input (params, formulas, user files): the CLI and the stage
runner print ``error: <message>`` and exit with status 2, no traceback.
``InputError`` is the same thing raised by library functions: it is also a
``ValueError``, so callers that follow scikit-learn's conventions
(``except ValueError``) catch it too.

``ClaimFailed`` is a directional claim of a report table that did not hold
(DESIGN.md, "Asserted claims"): the stage prints ``claim failed: <message>`` and
exits with status 1, so a pipeline run fails loudly and writes no artifact.
"""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_CLAIM = 1
EXIT_USER = 2


class UserError(Exception):
    """Bad input from the user; the message is one line naming the field and the expected form."""


class InputError(UserError, ValueError):
    """Bad input to a library function (a ``ValueError`` for scikit-learn-style callers)."""


class ClaimFailed(Exception):
    """A claim a table makes did not hold on this run."""


def check_claim(condition: bool, message: str) -> None:
    """Raise ``ClaimFailed(message)`` unless ``condition`` holds.

    Used for every directional claim a table prints; unlike ``assert`` it is not
    stripped by ``python -O``.
    """
    if not bool(condition):
        raise ClaimFailed(message)


#: the longest ``error:`` line printed; a longer one loses its middle (an echoed value)
MAX_LINE = 1000


def one_line(message: object) -> str:
    """The message on one line (newlines folded), as every ``error:`` line must be.

    A message longer than :data:`MAX_LINE` characters (a 2 MB id echoed in it) keeps its
    start, which names the file and field, and its end, which says the expected form:

    >>> line = one_line("f.jsonl: id " + "x" * 5000 + " is unknown")
    >>> len(line) <= MAX_LINE, line.endswith("is unknown"), "characters cut" in line
    (True, True, True)
    """
    text = " ".join(str(message).split())
    if len(text) <= MAX_LINE:
        return text
    cut = len(text) - MAX_LINE + 40
    head = (MAX_LINE - 40) * 2 // 3
    return f"{text[:head]} ...[{cut:,} characters cut]... {text[head + cut :]}"


def report_stop(exc: BaseException, *, where: str = "") -> int:
    """Print the one line for a deliberate stop and return its exit status.

    ``where`` prefixes claim failures (``[instrument:stage]``).  Anything that is
    not a ``UserError`` or ``ClaimFailed`` is re-raised: a bug keeps its traceback.
    """
    if isinstance(exc, UserError):
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USER
    if isinstance(exc, ClaimFailed):
        prefix = f"{where} " if where else ""
        print(f"claim failed: {prefix}{one_line(exc)}", file=sys.stderr)
        return EXIT_CLAIM
    raise exc
