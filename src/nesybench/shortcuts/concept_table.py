"""The long-format concept table: one row per (point, concept), to arrays and back.

The table is both a pipeline artifact (the exhibit's concept predictions) and what a user
hands ``nesybench score-concepts``.  :func:`unpack_concept_table` validates it and returns
the arrays the panel's metrics take (:mod:`.panel`, pure functions on arrays);
:func:`concept_table` writes arrays back in the same form.

===========  ==================================================================
``point``    the point id (int)
``concept``  the concept's 0-based index (every concept of every point present)
``gold``     the gold value index of that concept
``probs``    the probability of each value (at least 2; sums to 1 within SUM_TOL)
===========  ==================================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from ..metrics import plain
from ..metrics.multiclass import SUM_TOL

__all__ = ["CONCEPT_COLUMNS", "SUM_TOL", "concept_table", "unpack_concept_table"]

CONCEPT_COLUMNS = ("point", "concept", "gold", "probs")


def _concept_schema():
    from ..tables import Column, TableSchema

    return TableSchema(
        (
            Column("point", "int"),
            Column("concept", "int", min=0),
            Column("gold", "int", min=0),
            Column("probs", "float_list"),
        ),
        unique=("point", "concept"),
    )


def unpack_concept_table(
    df: pd.DataFrame, *, source: str
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Validate a long-format concept table and return ``(points, c_true, probs)``.

    One row per (point, concept) with columns ``point``, ``concept`` (0-based),
    ``gold`` (gold value index) and ``probs`` (list of value probabilities, at
    least 2).  Returns the sorted point ids ``(n,)``, gold values ``(n, k)`` and
    per-concept probability matrices ``probs[j]`` ``(n, V_j)``.  The columns are
    checked by :func:`nesybench.tables.validate_table` (kinds, nulls, ranges,
    first offending row); the table's structure here.  Any violation raises
    one ``InputError`` line naming ``source``.
    """
    from ..tables import validate_table

    df = validate_table(df, _concept_schema(), source=source)
    points = df["point"].to_numpy(np.int64)
    concepts = df["concept"].to_numpy(np.int64)
    gold = df["gold"].to_numpy(np.int64)
    present = np.unique(concepts)
    gaps = np.flatnonzero(present != np.arange(len(present)))
    if gaps.size:
        absent = int(gaps[0])
        raise InputError(
            f"{source}: concepts must be numbered 0, 1, 2, ... without gaps; concept {absent} "
            f"has no rows (the next concept present is {int(present[absent])})"
        )
    k = len(present)
    unique_points = np.unique(points)
    if len(df) != len(unique_points) * k:
        per_point = pd.Series(concepts).groupby(points).nunique()
        bad = int(per_point[per_point < k].index[0])
        have = sorted(concepts[points == bad].tolist())
        raise InputError(
            f"{source}: point {bad} is missing some concepts: has {have}, expected 0..{k - 1}"
        )
    raw = df["probs"].tolist()
    lengths = np.fromiter((len(v) for v in raw), dtype=np.int64, count=len(raw))
    order = np.lexsort((points, concepts))  # by concept, then point
    probs: list[np.ndarray] = []
    c_true = np.empty((len(unique_points), k), dtype=np.int64)
    for j in range(k):
        rows = order[concepts[order] == j]
        widths = np.unique(lengths[rows])
        if len(widths) != 1:
            first = int(rows[np.flatnonzero(lengths[rows] != lengths[rows[0]])[0]])
            raise InputError(
                f"{source}: probs of concept {j} have different lengths {widths.tolist()} "
                f"(row {first} has {int(lengths[first])}, row {int(rows[0])} has "
                f"{int(lengths[rows[0]])}); every row of one concept must list the same values"
            )
        width = int(widths[0])
        if width < 2:
            raise InputError(
                f"{source}: probs of concept {j} list {width} value{'s' if width != 1 else ''} "
                f"(row {int(rows[0])}); a concept needs at least 2 values"
            )
        mat = np.array([np.asarray(raw[r], dtype=float) for r in rows], dtype=float).reshape(
            len(rows), width
        )
        if (mat < 0).any():
            i = int(np.nonzero((mat < 0).any(axis=1))[0][0])
            raise InputError(
                f"{source}: probs has a negative value {plain(mat[i][mat[i] < 0][0])} "
                f"(row {int(rows[i])}: point {points[rows[i]]}, concept {j})"
            )
        sums = mat.sum(axis=1)
        off = np.abs(sums - 1.0) > SUM_TOL
        if off.any():
            i = int(np.nonzero(off)[0][0])
            raise InputError(
                f"{source}: probs must sum to 1 within {SUM_TOL:g}, got {plain(sums[i])} "
                f"(row {int(rows[i])}: point {points[rows[i]]}, concept {j})"
            )
        g = gold[rows]
        if (g >= width).any():
            i = int(np.nonzero(g >= width)[0][0])
            raise InputError(
                f"{source}: gold must be in 0..{width - 1} for concept {j} (len(probs) = {width}), "
                f"got {int(g[i])} (row {int(rows[i])}: point {points[rows[i]]})"
            )
        probs.append(mat)
        c_true[:, j] = g
    return unique_points, c_true, probs


def concept_table(
    points, c_true, probs: Sequence[np.ndarray], logits: Sequence[np.ndarray] | None = None
) -> pd.DataFrame:
    """The long-format table ``unpack_concept_table`` reads: one row per (point, concept)."""
    rows = {"point": [], "concept": [], "gold": [], "probs": []}
    if logits is not None:
        rows["logits"] = []
    points = np.asarray(points, dtype=np.int64)
    for j, p in enumerate(probs):
        rows["point"].extend(points.tolist())
        rows["concept"].extend([j] * len(points))
        rows["gold"].extend(np.asarray(c_true)[:, j].astype(np.int64).tolist())
        rows["probs"].extend([list(map(float, r)) for r in np.asarray(p, dtype=float)])
        if logits is not None:
            rows["logits"].extend([list(map(float, r)) for r in np.asarray(logits[j], dtype=float)])
    df = pd.DataFrame(rows)
    return df.astype({"point": "int64", "concept": "int64", "gold": "int64"})
