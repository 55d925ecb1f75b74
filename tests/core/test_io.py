import json
import os

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from nesybench.errors import UserError
from nesybench.io import (
    atomic_write,
    flatten,
    parquet_metadata,
    read_parquet,
    write_csv,
    write_metrics,
    write_parquet,
)


def _frame(order):
    df = pd.DataFrame({"task": ["b", "a", "c"], "n": [2, 1, 3], "x": [[0.5, 1.0], [0.25], []]})
    return df.iloc[order].reset_index(drop=True)


def test_write_parquet_is_byte_identical_whatever_the_row_order(tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    kw = dict(key=["task"], instrument="shortcuts", stage="generate", params_hash="abc")
    write_parquet(_frame([0, 1, 2]), a, **kw)
    write_parquet(_frame([2, 0, 1]), b, **kw)
    assert a.read_bytes() == b.read_bytes()
    assert read_parquet(a)["task"].tolist() == ["a", "b", "c"]


def test_write_parquet_metadata_and_compression(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(
        _frame([0, 1, 2]), path, key=["task"], instrument="nli", stage="score", params_hash="h1"
    )
    meta = parquet_metadata(path)
    assert meta["instrument"] == "nli" and meta["stage"] == "score"
    assert meta["params_hash"] == "h1" and meta["schema_version"] == "1"
    assert json.loads(meta["sort_key"]) == ["task"]
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"
    assert "pandas" not in {k.decode() for k in pq.read_schema(path).metadata}


def test_write_parquet_rejects_a_key_that_does_not_identify_rows(tmp_path):
    df = pd.DataFrame({"k": [1, 1], "v": [1, 2]})
    with pytest.raises(ValueError, match="does not identify rows"):
        write_parquet(
            df, tmp_path / "x.parquet", key=["k"], instrument="a", stage="b", params_hash="c"
        )
    assert not list(tmp_path.iterdir())


def test_atomic_write_leaves_no_partial_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(UserError, match="out.bin: could not be written .disk full"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_write_metrics_is_flat_with_sorted_keys(tmp_path):
    path = tmp_path / "m.json"
    write_metrics(
        path, {"panel": {"label_only": {"acc_y": np.float64(1.0)}}, "a": 1, "nan": float("nan")}
    )
    text = path.read_text()
    data = json.loads(text)
    assert list(data) == ["a", "nan", "panel.label_only.acc_y"]
    assert data["panel.label_only.acc_y"] == 1.0 and data["nan"] is None
    assert text.endswith("\n")


def test_write_metrics_rejects_non_scalars(tmp_path):
    with pytest.raises(TypeError, match="not a scalar"):
        write_metrics(tmp_path / "m.json", {"a": [1, 2]})


def test_flatten_nested():
    assert flatten({"a": {"b": {"c": 1}}, "d": 2}) == {"a.b.c": 1, "d": 2}


def test_write_csv_fixed_format(tmp_path):
    path = tmp_path / "p.csv"
    write_csv(path, pd.DataFrame({"x": [0.1 + 0.2, 1.0], "y": ["a", "b"]}))
    assert path.read_text() == "x,y\n0.3,a\n1,b\n"
