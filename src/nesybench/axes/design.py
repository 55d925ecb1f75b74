"""Design arithmetic: what controlling k difficulty axes costs.

* one factor at a time: a baseline cell plus each axis alone at its
  ``levels - 1`` non-baseline levels, ``1 + k (levels - 1)`` cells;
* full factorial: ``levels ** k`` cells;
* questions per cell for a 95% half-width ``w`` at the worst case ``p = 1/2``:
  solve ``w = z sqrt(p (1 - p) / n)`` for ``n`` and round up,
  ``n = ceil(z^2 p (1 - p) / w^2)``;
* questions for the full grid: cells x n.
"""

from __future__ import annotations

import math

from ..errors import InputError


def ofat_cells(*, axes: int, levels: int) -> int:
    """``1 + axes (levels - 1)``.

    >>> ofat_cells(axes=7, levels=3)
    15
    """
    _check(axes, levels)
    return 1 + axes * (levels - 1)


def factorial_cells(*, axes: int, levels: int) -> int:
    """``levels ** axes``.

    >>> factorial_cells(axes=7, levels=3)
    2187
    """
    _check(axes, levels)
    return levels**axes


def questions_per_cell(*, half_width: float, p: float = 0.5, z: float = 1.96) -> int:
    """``ceil(z^2 p (1 - p) / w^2)``.

    >>> questions_per_cell(half_width=0.05)
    385
    """
    if not 0 < half_width < 1:
        raise InputError(f"half_width must be in (0, 1), got {half_width}")
    if not 0 < p < 1:
        raise InputError(f"p must be in (0, 1), got {p}")
    # round before ceil so that an exact integer is not pushed up by float noise
    return math.ceil(round(z * z * p * (1 - p) / (half_width * half_width), 9))


def design_table(
    *, axes: int = 7, levels: int = 3, half_width: float = 0.05, p: float = 0.5, z: float = 1.96
) -> list[dict]:
    """The rows the report prints: quantity, value, formula."""
    n = questions_per_cell(half_width=half_width, p=p, z=z)
    full = factorial_cells(axes=axes, levels=levels)
    return [
        {
            "quantity": "one-factor-at-a-time cells",
            "value": ofat_cells(axes=axes, levels=levels),
            "formula": f"1 + {axes}({levels} - 1)",
        },
        {"quantity": "full factorial cells", "value": full, "formula": f"{levels}^{axes}"},
        {
            "quantity": "questions per cell",
            "value": n,
            "formula": f"ceil({z}^2 * {p}(1 - {p}) / {half_width}^2)",
        },
        {"quantity": "questions for the full grid", "value": full * n, "formula": f"{full} x {n}"},
    ]


def _check(axes: int, levels: int) -> None:
    if axes < 1 or levels < 1:
        raise InputError(f"axes and levels must be >= 1, got axes={axes}, levels={levels}")
