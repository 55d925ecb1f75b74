"""The ways a run can stop on purpose, and the one mapping to exit statuses.

``InputError`` is bad input (params, formulas, user files), the one class for it whoever
raises it (a library function, a stage, the CLI): the CLI and the stage runner print
``error: <message>`` and exit with status 2, no traceback.  It is a ``ValueError``, so
callers that follow scikit-learn's conventions (``except ValueError``) catch it too.
A message names where and what, then the constraint and what was given:
``<where>: <name> must be <constraint>, got <value>`` (:func:`bad_value` writes it).

``ClaimFailed`` is a directional claim of a report table that did not hold
(DESIGN.md, "Asserted claims"): the stage prints ``claim failed: <message>`` and
exits with status 1, so a pipeline run fails loudly and writes no artifact.
"""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_CLAIM = 1
EXIT_USER = 2


class InputError(ValueError):
    """Bad input; the message is one line naming the field and the expected form."""


def bad_value(name: str, constraint: str, value: object, *, where: str = "") -> InputError:
    """The error for a value outside its constraint, in the one message template.

    >>> str(bad_value("n_bins", "an integer in [1, 10000]", 0, where="ece"))
    'ece: n_bins must be an integer in [1, 10000], got 0'
    """
    prefix = f"{where}: " if where else ""
    return InputError(f"{prefix}{name} must be {constraint}, got {value!r}")


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
    not a ``InputError`` or ``ClaimFailed`` is re-raised: a bug keeps its traceback.
    """
    if isinstance(exc, InputError):
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USER
    if isinstance(exc, ClaimFailed):
        prefix = f"{where} " if where else ""
        print(f"claim failed: {prefix}{one_line(exc)}", file=sys.stderr)
        return EXIT_CLAIM
    raise exc
