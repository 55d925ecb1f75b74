"""Mixture arithmetic: an aggregate score is a per-stratum profile weighted by the strata's mix.

    A = sum_d h_d / sum_d n_d = sum_d pi_d a_d,     pi_d = n_d / N

``a`` (a system's accuracy per stratum, e.g. per proof depth) belongs to the
system, ``pi`` to whoever built the benchmark.  Under another mix ``pi'`` the
same system scores ``sum_d pi'_d a_d``, anywhere between its worst and its best
stratum: ``min_d a_d <= A <= max_d a_d``.  The instruments that measure the
confound (axes) and report it for a user's predictions (nli) share these
functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError

__all__ = ["aggregate", "check_profile", "mixture_weights", "mix_range"]


def check_profile(values: Sequence[float], name: str) -> np.ndarray:
    """``values`` as a 1-d float array of accuracies in [0, 1] (else ``InputError``)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(
            f"{name} must be a non-empty list of per-depth accuracies, got {list(values)!r}"
        )
    bad = arr[~np.isfinite(arr) | (arr < 0) | (arr > 1)]
    if bad.size:
        raise InputError(f"{name}: accuracies must be in [0, 1], got {float(bad[0])}")
    return arr


def mixture_weights(n: Sequence[float], *, name: str = "n") -> np.ndarray:
    """``pi_d = n_d / sum(n)``; counts must be finite, >= 0, with a positive total.

    Counts are scaled by their maximum before summing, so huge counts
    (``1e308``) do not overflow the total.

    >>> mixture_weights([1e308, 1e308]).tolist()
    [0.5, 0.5]
    """
    arr = np.asarray(n, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(f"{name} must be a non-empty list of per-depth counts, got {list(n)!r}")
    if np.any(~np.isfinite(arr)):
        raise InputError(f"{name}: counts must be finite, got {float(arr[~np.isfinite(arr)][0])}")
    if np.any(arr < 0):
        raise InputError(f"{name}: counts must be >= 0, got {float(arr[arr < 0][0]):g}")
    top = arr.max()
    if top <= 0:
        raise InputError(f"{name}: counts must not all be zero, got {list(n)!r}")
    scaled = arr / top
    return scaled / scaled.sum()


def aggregate(accuracies: Sequence[float], n: Sequence[float]) -> float:
    """``A = sum_d pi_d a_d`` with ``pi`` from the counts ``n``.

    >>> round(aggregate([1.0, 0.9659, 0.5, 0.5], [804, 352, 280, 64]), 4)
    0.8773
    """
    a = check_profile(accuracies, "a")
    pi = mixture_weights(n)
    if a.size != pi.size:
        raise InputError(f"n must be {a.size} counts (one per depth of the profile), got {pi.size}")
    return float(pi @ a)


def mix_range(accuracies: Sequence[float], n: Sequence[float]) -> dict:
    """The aggregate under the realized mix, under the uniform mix, and its range over all mixes.

    Returns ``{"realized": sum_d pi_d a_d, "uniform": mean_d a_d, "min": min_d a_d,
    "max": max_d a_d}``: any benchmark built from the same strata scores the
    system between ``min`` and ``max``.

    >>> mix_range([1.0, 0.5], [3, 1])
    {'realized': 0.875, 'uniform': 0.75, 'min': 0.5, 'max': 1.0}
    """
    a = check_profile(accuracies, "a")
    return {
        "realized": aggregate(a, n),
        "uniform": float(a.mean()),
        "min": float(a.min()),
        "max": float(a.max()),
    }
