"""Trained weights as a table: a bit-exact round trip through Parquet."""

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.io import parquet_bytes, read_parquet
from nesybench.seeds import child_rng
from nesybench.shortcuts.weights import read_weights, weights_table


def test_weights_table_round_trips_bit_for_bit_through_parquet(tmp_path):
    rng = child_rng(0, "test_weights")
    models = {
        ("evenodd", "label_only", s): {"W1": rng.standard_normal((3, 4)), "b1": rng.random(4)}
        for s in range(3)
    }
    table = weights_table(models, keys=["support", "mitigation", "seed"])
    path = tmp_path / "w.parquet"
    path.write_bytes(
        parquet_bytes(
            table,
            key=["support", "mitigation", "seed", "array"],
            instrument="shortcuts",
            stage="train",
            params_hash="x",
        )
    )
    back = read_weights(read_parquet(path), keys=["support", "mitigation", "seed"])
    assert sorted(back) == sorted(models)
    for key, arrays in models.items():
        for name, array in arrays.items():
            assert back[key][name].shape == array.shape
            assert back[key][name].tobytes() == array.tobytes()


def test_read_weights_rejects_a_shape_that_does_not_hold_the_values():
    table = weights_table({("a",): {"W": np.zeros((2, 2))}}, keys=["name"])
    table.at[0, "shape"] = [3, 2]
    with pytest.raises(InputError, match=r"array 'W' of \('a',\) has 4 values for shape \(3, 2\)"):
        read_weights(table, keys=["name"])


def test_weights_table_rejects_keys_of_the_wrong_length():
    with pytest.raises(InputError, match="every key must have 2 parts"):
        weights_table({("a",): {"W": np.zeros(1)}}, keys=["name", "seed"])


def test_read_weights_names_a_missing_column():
    table = weights_table({("a",): {"W": np.zeros(1)}}, keys=["name"]).drop(columns=["shape"])
    with pytest.raises(InputError, match="missing column 'shape'"):
        read_weights(table, keys=["name"])
