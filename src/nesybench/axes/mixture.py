"""The mixture confound: an aggregate score is a depth profile weighted by the bank's mix.

    A = sum_d h_d / sum_d n_d = sum_d pi_d a_d,     pi_d = n_d / N

``a`` (the system's per-depth accuracies) belongs to the system, ``pi`` to
whoever built the bank.  For two profiles ``a`` and ``b`` and two depths
``i < j``, the mix ``pi = (pi_i, 1 - pi_i)`` over those depths ties them when

    pi_i = (b_j - a_j) / ((a_i - b_i) + (b_j - a_j)),

and both then score ``pi_i a_i + (1 - pi_i) a_j``.  A pair admits a tie only
when that weight lies in [0, 1] (the profiles cross between the two depths).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ..errors import UserError
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
    a_arr, b_arr = _profile(a, "a"), _profile(b, "b")
    gain_i = a_arr[i] - b_arr[i]  # how much a leads at depth i
    gain_j = b_arr[j] - a_arr[j]  # how much b leads at depth j
    denom = gain_i + gain_j
    if denom == 0:
        return Tie((i, j), None, None)
    pi = gain_j / denom
    if not 0.0 <= pi <= 1.0:
        return Tie((i, j), None, None)
    return Tie((i, j), float(pi), float(pi * a_arr[i] + (1 - pi) * a_arr[j]))


def all_ties(a: Sequence[float], b: Sequence[float]) -> list[Tie]:
    """:func:`tie` for every pair of depths ``i < j``."""
    a_arr, b_arr = _profile(a, "a"), _profile(b, "b")
    if a_arr.size != b_arr.size:
        raise UserError(f"b: expected {a_arr.size} accuracies (the length of a), got {b_arr.size}")
    return [tie(a_arr, b_arr, i, j) for i, j in combinations(range(a_arr.size), 2)]


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
        raise UserError(
            f"{names[1]}: expected {a_arr.size} accuracies (the length of {names[0]}), got "
            f"{b_arr.size}"
        )
    if n is not None:
        pi = mixture_weights(n, name=names[2])
        if pi.size != a_arr.size:
            raise UserError(
                f"{names[2]}: expected {a_arr.size} counts (one per depth), got {pi.size}"
            )
    ties = all_ties(a, b)
    out: dict = {
        "ties": [{"depths": list(t.depths), "pi": t.pi, "accuracy": t.accuracy} for t in ties],
        "pure_depth": pure_depth_ranking(a, b),
    }
    if n is not None:
        out["aggregate_a"] = aggregate(a, n)
        out["aggregate_b"] = aggregate(b, n)
    return out
