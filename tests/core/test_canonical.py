"""The canonical form of committed numbers: last-bit noise and the sign of zero never reach the
metrics JSON, the plot CSVs, the report's tables or its provenance hashes; any larger change
does."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from nesybench.canonical import (
    SIGNIFICANT_DIGITS,
    canonical_float,
    canonical_value,
    table_digest,
    unsigned_zero,
)
from nesybench.io import csv_bytes, metrics_bytes, parquet_bytes
from nesybench.report.blocks import Table
from nesybench.report.render import table_markdown

FINITE = st.floats(allow_nan=False, allow_infinity=False)


@given(FINITE)
def test_the_canonical_value_is_idempotent_close_and_never_negative_zero(x):
    c = canonical_float(x)
    assert canonical_float(c) == c  # idempotent
    assert math.isfinite(c)
    assert c == 0.0 or math.isclose(c, x, rel_tol=10 ** (1 - SIGNIFICANT_DIGITS))
    assert math.copysign(1.0, canonical_float(-0.0)) == 1.0


def test_noise_below_ten_digits_is_absorbed_and_a_real_change_is_not():
    assert canonical_float(0.276473) == canonical_float(np.nextafter(0.276473, 1.0))
    assert canonical_float(0.1 + 0.2) == 0.3
    assert canonical_float(0.276473) != canonical_float(0.276477)  # the calibration drift
    assert canonical_value({"a": [np.float64(-0.0), np.float32(0.5)], "n": 3, "ok": True}) == {
        "a": [0.0, 0.5],
        "n": 3,
        "ok": True,
    }


def test_metrics_json_is_written_in_canonical_form():
    text = metrics_bytes({"score": {"ece": 0.1 + 0.2, "zero": -0.0, "n": 7, "name": "x"}})
    expected = {"score.ece": 0.3, "score.n": 7, "score.name": "x", "score.zero": 0.0}
    assert json.loads(text) == expected
    assert b"-0.0" not in text and b"0.30000000000000004" not in text


def test_plot_csv_has_no_negative_zero_and_ten_digits():
    text = csv_bytes(pd.DataFrame({"x": [-0.0, 1.0], "y": [0.1 + 0.2, 2 / 3]})).decode()
    assert text == "x,y\n0,0.3\n1,0.6666666667\n"


def test_a_report_table_prints_zero_without_a_sign():
    block = Table(title="t", df=pd.DataFrame({"change": [-0.00001, -0.5, 0.0]}), params={})
    rows = table_markdown(block, "abc").splitlines()
    assert "| 0.0000 |" in rows and "| -0.5000 |" in rows and "| -0.0000 |" not in rows
    assert [unsigned_zero(t) for t in ("-0.00", "-0.01", "-0e+00")] == ["0.00", "-0.01", "0e+00"]


def _table(tmp_path, name, values, *, params_hash="p") -> str:
    path = tmp_path / f"{name}.parquet"
    df = pd.DataFrame({"k": range(len(values)), "v": values, "w": [[v, 1.0] for v in values]})
    meta = {"instrument": "calibration", "stage": "score", "params_hash": params_hash}
    path.write_bytes(parquet_bytes(df, key=["k"], **meta))
    return table_digest(path)


def test_the_provenance_hash_covers_canonical_content(tmp_path):
    base = _table(tmp_path, "a", [0.276473, -0.0, 1.5])
    noisy = _table(tmp_path, "b", [float(np.nextafter(0.276473, 1.0)), 0.0, 1.5])
    assert noisy == base  # last-bit noise and the sign of zero: the same content
    assert _table(tmp_path, "c", [0.276477, 0.0, 1.5]) != base  # a real change
    assert _table(tmp_path, "d", [0.276473, 0.0, 1.5], params_hash="q") != base  # metadata
