"""`nesybench score-concepts` on users' files: the panel, its JSON keys, and every bad input."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nesybench.cli import main
from nesybench.shortcuts.panel import concept_table

SPEC_ALPHA = {"00": "00", "01": "01", "10": "01", "11": "11"}


def _write(df, path):
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    return str(path)


def _spec_shortcut_table():
    """100 test points per state, heads predicting the spec's collapsing alpha with confidence 1."""
    c_true, c_pred = [], []
    for g in ["00", "01", "10", "11"]:
        c_true += [[int(b) for b in g]] * 100
        c_pred += [[int(b) for b in SPEC_ALPHA[g]]] * 100
    c_true, c_pred = np.array(c_true), np.array(c_pred)
    probs = [np.eye(2)[c_pred[:, j]] for j in range(2)]
    return concept_table(np.arange(400), c_true, probs), c_true


@pytest.fixture
def good(tmp_path):
    df, c_true = _spec_shortcut_table()
    labels = pd.DataFrame(
        {
            "point": np.arange(400, dtype=np.int64),
            "y_true": c_true.sum(1) % 2,
            "y_pred": c_true.sum(1) % 2,
        }
    )
    return (
        _write(df, tmp_path / "c.parquet"),
        _write(labels.astype("int64"), tmp_path / "l.parquet"),
        df,
    )


def test_score_concepts_json_has_the_spec_values(good, capsys):
    concepts, labels, _ = good
    assert main(["score-concepts", concepts, "--labels", labels, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {
        "n_points",
        "n_concepts",
        "acc_c",
        "f1_c",
        "cls_c",
        "cls_c_count",
        "ece_c",
        "occurrence",
        "acc_y",
    }
    assert out["n_points"] == 400 and out["n_concepts"] == 2
    assert out["acc_c"] == 0.75 and out["acc_y"] == 1.0
    assert out["f1_c"] == pytest.approx(11 / 15)
    assert out["cls_c"] == pytest.approx(0.25) and out["cls_c_count"] == 0.25
    assert out["occurrence"] == [100, 200, 0, 100]


def test_score_concepts_text_without_labels(good, capsys):
    concepts, _, _ = good
    assert main(["score-concepts", concepts]) == 0
    out = capsys.readouterr().out
    assert "AccC (concept acc)   0.7500" in out and "AccY" not in out


def _bad(tmp_path, capsys, df, expect, *, labels=None):
    path = _write(df, tmp_path / "bad.parquet")
    argv = ["score-concepts", path]
    if labels is not None:
        argv += ["--labels", _write(labels, tmp_path / "bad_labels.parquet")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expect in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_score_concepts_missing_column(good, tmp_path, capsys):
    _bad(tmp_path, capsys, good[2].drop(columns=["gold"]), "missing column 'gold'")


def test_score_concepts_probs_of_different_lengths(good, tmp_path, capsys):
    df = good[2].copy()
    df.at[df.index[df["concept"] == 1][0], "probs"] = [0.5, 0.25, 0.25]
    _bad(tmp_path, capsys, df, "probs of concept 1 have different lengths")


def test_score_concepts_probs_not_summing_to_one(good, tmp_path, capsys):
    df = good[2].copy()
    df.at[5, "probs"] = [0.5, 0.4]
    _bad(tmp_path, capsys, df, "probs must sum to 1 within 1e-06")


def test_score_concepts_nan_in_probs(good, tmp_path, capsys):
    df = good[2].copy()
    df.at[7, "probs"] = [float("nan"), 1.0]
    _bad(tmp_path, capsys, df, "NaN")


def test_score_concepts_nan_in_gold(good, tmp_path, capsys):
    df = good[2].copy()
    df["gold"] = df["gold"].astype(float)
    df.loc[3, "gold"] = float("nan")
    _bad(tmp_path, capsys, df, "column 'gold' has missing (NaN/null) values")


def test_score_concepts_gold_out_of_range(good, tmp_path, capsys):
    df = good[2].copy()
    df.loc[9, "gold"] = 2
    _bad(tmp_path, capsys, df, "gold must be in 0..1")


def test_score_concepts_point_missing_a_concept(good, tmp_path, capsys):
    df = good[2]
    df = df.drop(index=df.index[(df["point"] == 17) & (df["concept"] == 1)])
    _bad(tmp_path, capsys, df, "point 17 is missing some concepts")


def test_score_concepts_labels_missing_a_point(good, tmp_path, capsys):
    labels = pd.DataFrame(
        {"point": np.arange(399), "y_true": np.zeros(399), "y_pred": np.zeros(399)}
    ).astype("int64")
    _bad(
        tmp_path, capsys, good[2], "point 399 of the concepts file has no label row", labels=labels
    )


def test_score_concepts_labels_missing_column(good, tmp_path, capsys):
    labels = pd.DataFrame({"point": np.arange(400), "y_true": np.zeros(400)}).astype("int64")
    _bad(tmp_path, capsys, good[2], "missing column 'y_pred'", labels=labels)


def test_score_concepts_file_not_found(tmp_path, capsys):
    assert main(["score-concepts", str(tmp_path / "none.parquet")]) == 2
    assert "file not found" in capsys.readouterr().err
