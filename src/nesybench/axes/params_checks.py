"""The ``axes`` section's cross-key checks, run by :func:`nesybench.params.load_params`.

The schema states each key's range; this states what one key requires of another, once,
before any job starts (jobs read the values and do not re-check them).  The grid's
cross-level limits (a vocabulary large enough for the deepest chain, room for the
distractors) are :class:`~nesybench.axes.grid.GridSpec`'s own check, which ``axes-export``
and the library run too: here it runs on ``axes.grid``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import bad_value
from .grid import GridSpec

WHERE = "params.yaml"


def check_params(section: Mapping) -> None:
    """Raise one ``InputError`` line for the first cross-key problem of ``section``."""
    gadgets = section["gadgets"]
    for key in ("chase_budgets", "scale_chains"):
        if list(gadgets[key]) != sorted(gadgets[key]):
            raise bad_value(f"axes.gadgets.{key}", "increasing", list(gadgets[key]), where=WHERE)
    if gadgets["cycle_k_max"] < gadgets["cycle_k_min"] + 2:
        raise bad_value(
            "axes.gadgets.cycle_k_max",
            f">= cycle_k_min + 2 = {gadgets['cycle_k_min'] + 2} (three queries give two probe "
            "ratios)",
            gadgets["cycle_k_max"],
            where=WHERE,
        )
    grid = section["grid"]
    spec = GridSpec.from_params(grid, source=WHERE)
    deepest = max(spec.depth)
    if not 0 <= grid["depth_cap"] < deepest:
        raise bad_value(
            "axes.grid.depth_cap",
            f"in [0, max depth level) = [0, {deepest}) so that some depth lies beyond it",
            grid["depth_cap"],
            where=WHERE,
        )
