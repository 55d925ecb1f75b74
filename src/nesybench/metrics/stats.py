"""Small statistics shared across instruments."""

from __future__ import annotations

import math

from ..errors import InputError

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= n``.
    n : int
        Number of trials; ``n == 0`` gives the vacuous interval ``(0.0, 1.0)``.
    z : float, keyword-only
        Normal quantile (default: 95% two-sided).

    Notes
    -----
    With ``p = successes / n``::

        centre = (p + z^2 / (2n)) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

    Unlike the Wald interval it stays inside [0, 1] and is not degenerate at p = 0 or 1.

    >>> wilson_interval(10, 10)[1]
    1.0
    >>> lo, hi = wilson_interval(0, 10)
    >>> (lo, round(hi, 4))
    (0.0, 0.2775)
    """
    if n < 0 or successes < 0 or successes > n:
        raise InputError(
            f"wilson_interval: successes must be in [0, n], got successes={successes}, n={n}"
        )
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # The interval always contains p (p satisfies |p - p| <= ...); clamping to p only
    # removes rounding error, e.g. an upper end of 0.9999999999999999 at p = 1.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))
