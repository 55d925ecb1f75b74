"""Trained weights as a table: what the train stage hands to score and calibrate.

A model is a few named float arrays (``W1``, ``b1``, ``W2``, ``b2``).  The table has
one row per (model key, array): the key columns, ``array`` (the name), ``shape``
(``list<int64>``) and ``values`` (``list<double>``, the array in C order).  Float64
round-trips through Parquet bit for bit, so predictions recomputed from the table
equal those of the trained object exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["weights_table", "read_weights"]

WEIGHT_COLUMNS = ("array", "shape", "values")


def weights_table(
    models: Mapping[tuple, Mapping[str, np.ndarray]], *, keys: Sequence[str]
) -> pd.DataFrame:
    """One row per (model, array): ``models[key_values][array_name] = ndarray``.

    >>> t = weights_table({("a", 0): {"b": np.array([1.0, 2.0])}}, keys=["name", "seed"])
    >>> t[["name", "seed", "array", "shape", "values"]].values.tolist()
    [['a', 0, 'b', [2], [1.0, 2.0]]]
    """
    rows = []
    for key, arrays in models.items():
        if len(key) != len(keys):
            raise InputError(
                f"models: every key must have {len(keys)} parts {list(keys)}, got {key}"
            )
        for name, array in arrays.items():
            array = np.asarray(array, dtype=np.float64)
            rows.append(
                {
                    **dict(zip(keys, key)),
                    "array": name,
                    "shape": [int(d) for d in array.shape],
                    "values": array.ravel().tolist(),
                }
            )
    return pd.DataFrame(rows, columns=[*keys, *WEIGHT_COLUMNS])


def read_weights(table: pd.DataFrame, *, keys: Sequence[str]) -> dict[tuple, dict[str, np.ndarray]]:
    """The inverse of :func:`weights_table`: ``{key_values: {array_name: ndarray}}``.

    >>> t = weights_table({("a",): {"W": np.eye(2)}}, keys=["name"])
    >>> read_weights(t, keys=["name"])[("a",)]["W"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    missing = [c for c in (*keys, *WEIGHT_COLUMNS) if c not in table.columns]
    if missing:
        raise InputError(f"weights table: missing column {missing[0]!r}")
    out: dict[tuple, dict[str, np.ndarray]] = {}
    for row in table.itertuples(index=False):
        key = tuple(v.item() if hasattr(v, "item") else v for v in (getattr(row, k) for k in keys))
        shape = tuple(int(d) for d in row.shape)
        values = np.asarray(row.values, dtype=np.float64)
        if values.size != int(np.prod(shape)):
            raise InputError(
                f"weights table: array {row.array!r} of {key} has {values.size} values for "
                f"shape {shape}"
            )
        out.setdefault(key, {})[row.array] = values.reshape(shape)
    return out
