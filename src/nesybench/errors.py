"""The two ways a run can stop on purpose.

``UserError`` is bad input (params, formulas, user files): the CLI and the stage
runner print ``error: <message>`` and exit with status 2, no traceback.

``ClaimFailed`` is a directional claim of a report table that did not hold
(DESIGN.md, "Asserted claims"): the stage prints ``claim failed: <message>`` and
exits with status 1, so a pipeline run fails loudly and writes no artifact.
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user; the message is one line naming the field and the expected form."""


class ClaimFailed(Exception):
    """A claim a table makes did not hold on this run."""


def check_claim(condition: bool, message: str) -> None:
    """Raise ``ClaimFailed(message)`` unless ``condition`` holds.

    Used for every directional claim a table prints; unlike ``assert`` it is not
    stripped by ``python -O``.
    """
    if not bool(condition):
        raise ClaimFailed(message)
