"""The one reader of users' tables: each defect named with its column, row and expected form."""

from __future__ import annotations

import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.io import write_parquet
from nesybench.tables import Column, TableSchema, read_table, validate_table

SCHEMA = TableSchema(
    (
        Column("point", "int", min=0),
        Column("score", "float"),
        Column("label", "int", min=0, max=1),
        Column("split", "str", choices=("cal", "eval"), required=False),
        Column("probs", "float_list", required=False),
    ),
    unique=("point",),
)


def _ok(**extra):
    data = {"point": [0, 1], "score": [0.5, -1.0], "label": [0, 1]}
    data.update(extra)
    return pd.DataFrame(data)


def test_a_good_table_passes_with_canonical_dtypes():
    df = validate_table(_ok(label=[0.0, 1.0]), SCHEMA, source="t.parquet")
    assert df["label"].dtype == "int64" and df["score"].dtype == "float64"


@pytest.mark.parametrize(
    "frame, message",
    [
        (
            _ok().drop(columns="score"),
            r"t: missing column 'score'; expected columns point, score, label",
        ),
        (_ok(label=[0, 2]), r"t: column 'label' row 1 must be an integer in \[0, 1\], got 2"),
        (_ok(label=[0, None]), r"column 'label' row 1 must be an integer in \[0, 1\], got null"),
        (
            _ok(score=[0.5, float("nan")]),
            r"column 'score' row 1 must be a finite number, got null",
        ),
        (
            _ok(score=[0.5, float("inf")]),
            r"column 'score' row 1 must be a finite number, got inf",
        ),
        (_ok(score=["a", 1.0]), r"column 'score' row 0 must be a finite number, got 'a'"),
        (_ok(point=[3, 3]), r"row 1 repeats \(point=3\); each must appear once"),
        (_ok(point=[-1, 0]), r"column 'point' row 0 must be an integer >= 0, got -1"),
        (
            _ok(split=["cal", "test"]),
            r"column 'split' row 1 must be one of 'cal', 'eval', got 'test'",
        ),
        (
            _ok(probs=[[0.5, 0.5], ["x"]]),
            r"column 'probs' row 1 must be a list of finite numbers",
        ),
        (
            _ok(probs=[[0.5, 0.5], 0.3]),
            r"column 'probs' row 1 must be a list of finite numbers, got 0.3",
        ),
        (_ok().iloc[:0], r"must have at least 1 row, got 0"),
    ],
)
def test_each_defect_is_one_line_naming_column_row_and_form(frame, message):
    with pytest.raises(InputError, match=message) as info:
        validate_table(frame, SCHEMA, source="t")
    assert "\n" not in str(info.value) and "np.float64" not in str(info.value)


def test_read_table_reads_parquet_and_csv_and_names_unreadable_files(tmp_path):
    df = _ok()
    write_parquet(
        df, tmp_path / "t.parquet", key=["point"], instrument="x", stage="y", params_hash="h"
    )
    df.to_csv(tmp_path / "t.csv", index=False)
    assert read_table(tmp_path / "t.parquet", SCHEMA)["label"].tolist() == [0, 1]
    assert read_table(tmp_path / "t.csv", SCHEMA)["label"].tolist() == [0, 1]
    with pytest.raises(InputError, match="file not found"):
        read_table(tmp_path / "none.parquet", SCHEMA)
    with pytest.raises(InputError, match="is a directory"):
        read_table(tmp_path, SCHEMA)
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(Exception, match="not a readable Parquet file"):
        read_table(tmp_path / "bad.parquet", SCHEMA)
