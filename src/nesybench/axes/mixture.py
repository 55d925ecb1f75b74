"""The mixture confound: an aggregate score is a depth profile weighted by the bank's mix.

    A = sum_d h_d / sum_d n_d = sum_d pi_d a_d,     pi_d = n_d / N

``a`` (the system's per-depth accuracies) belongs to the system, ``pi`` to
whoever built the bank.  For two profiles ``a`` and ``b`` and two depths
``i < j``, the mix ``pi = (pi_i, 1 - pi_i)`` over those depths ties them when

    pi_i = (b_j - a_j) / ((a_i - b_i) + (b_j - a_j)),

and both then score ``pi_i a_i + (1 - pi_i) a_j``.  A pair admits a tie only
when that weight lies in [0, 1] (the profiles cross between the two depths).

The tie table has one row per pair of depths, D (D - 1) / 2 rows for D depths:
it is computed in one vectorised pass and refused above :data:`MAX_TIE_DEPTHS`
depths (a table of more than ~125,000 rows is not something to print).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..metrics.mixture import aggregate, mixture_weights
from ..metrics.mixture import check_profile as _profile

__all__ = [
    "Tie",
    "aggregate",
    "all_ties",
    "mixture_report",
    "mixture_weights",
    "pure_depth_ranking",
    "tie",
]

#: the most depths :func:`all_ties` accepts (the table has D (D - 1) / 2 rows)
MAX_TIE_DEPTHS = 500


@dataclass(frozen=True)
class Tie:
    depths: tuple[int, int]
    pi: float | None  # weight of the first depth; None when no mix in [0, 1] ties the pair
    accuracy: float | None


def tie(a: Sequence[float], b: Sequence[float], i: int, j: int) -> Tie:
    """The mix over depths ``i`` and ``j`` that gives ``a`` and ``b`` equal aggregates.

    >>> t = tie([1.0, 0.9659, 0.5, 0.5], [0.9266, 1.0, 0.8321, 1.0], 0, 1)
    >>> round(t.pi, 4), round(t.accuracy, 4)
    (0.3172, 0.9767)
    """
    return _tie(_profile(a, "a"), _profile(b, "b"), i, j)


def _tie(a_arr: np.ndarray, b_arr: np.ndarray, i: int, j: int) -> Tie:
    gain_i = a_arr[i] - b_arr[i]  # how much a leads at depth i
    gain_j = b_arr[j] - a_arr[j]  # how much b leads at depth j
    denom = gain_i + gain_j
    if denom == 0:
        return Tie((i, j), None, None)
    pi = gain_j / denom
    if not 0.0 <= pi <= 1.0:
        return Tie((i, j), None, None)
    return Tie((i, j), float(pi), float(pi * a_arr[i] + (1 - pi) * a_arr[j]))


def all_ties(
    a: Sequence[float], b: Sequence[float], *, names: tuple[str, str] = ("a", "b")
) -> list[Tie]:
    """:func:`tie` for every pair of depths ``i < j``, in ``itertools.combinations`` order.

    One vectorised pass over the D (D - 1) / 2 pairs (the same arithmetic as
    :func:`tie`, so the numbers are identical); more than :data:`MAX_TIE_DEPTHS`
    depths is an ``InputError``.

    >>> [(t.depths, None if t.pi is None else round(t.pi, 4)) for t in all_ties([1, 0], [0, 1])]
    [((0, 1), 0.5)]
    """
    a_arr, b_arr = _profile(a, names[0]), _profile(b, names[1])
    if a_arr.size != b_arr.size:
        raise InputError(
            f"{names[1]} must be {a_arr.size} accuracies (the length of {names[0]}), got "
            f"{b_arr.size}"
        )
    if a_arr.size > MAX_TIE_DEPTHS:
        raise InputError(
            f"{names[0]}: the tie table takes at most {MAX_TIE_DEPTHS} depths (it has one row per "
            f"pair of depths), got {a_arr.size}"
        )
    i, j = np.triu_indices(a_arr.size, k=1)
    gain_i = a_arr[i] - b_arr[i]
    gain_j = b_arr[j] - a_arr[j]
    denom = gain_i + gain_j
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = np.where(denom != 0, gain_j / np.where(denom != 0, denom, 1.0), np.nan)
    ok = (denom != 0) & (pi >= 0.0) & (pi <= 1.0)
    acc = pi * a_arr[i] + (1 - pi) * a_arr[j]
    return [
        Tie((int(x), int(y)), float(p), float(t)) if good else Tie((int(x), int(y)), None, None)
        for x, y, p, t, good in zip(i.tolist(), j.tolist(), pi.tolist(), acc.tolist(), ok.tolist())
    ]


def pure_depth_ranking(
    a: Sequence[float], b: Sequence[float], *, names: tuple[str, str] = ("a", "b")
) -> list[dict]:
    """For a bank of one depth only: which system ranks first (or ``tie``)."""
    a_arr, b_arr = _profile(a, "a"), _profile(b, "b")
    rows = []
    for d, (x, y) in enumerate(zip(a_arr, b_arr)):
        winner = names[0] if x > y else names[1] if y > x else "tie"
        rows.append({"depth": d, names[0]: float(x), names[1]: float(y), "first": winner})
    return rows


def mixture_report(
    a: Sequence[float],
    b: Sequence[float],
    n: Sequence[float] | None = None,
    *,
    names: tuple[str, str, str] = ("a", "b", "n"),
) -> dict:
    """Aggregates (when ``n`` is given), ties for every depth pair, pure-depth winners.

    ``names`` label the three inputs in error messages (e.g. the CLI's ``--a``).
    """
    a_arr, b_arr = _profile(a, names[0]), _profile(b, names[1])
    if a_arr.size != b_arr.size:
        raise InputError(
            f"{names[1]} must be {a_arr.size} accuracies (the length of {names[0]}), got "
            f"{b_arr.size}"
        )
    if n is not None:
        pi = mixture_weights(n, name=names[2])
        if pi.size != a_arr.size:
            raise InputError(
                f"{names[2]} must be {a_arr.size} counts (one per depth), got {pi.size}"
            )
    ties = all_ties(a_arr, b_arr, names=names[:2])
    out: dict = {
        "ties": [{"depths": list(t.depths), "pi": t.pi, "accuracy": t.accuracy} for t in ties],
        "pure_depth": pure_depth_ranking(a, b),
    }
    if n is not None:
        out["aggregate_a"] = aggregate(a, n)
        out["aggregate_b"] = aggregate(b, n)
    return out
