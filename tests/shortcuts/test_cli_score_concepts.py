"""`nesybench score-concepts` on users' files: the panel, its JSON keys, and every bad input."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nesybench.cli import main
from nesybench.shortcuts.concept_table import concept_table

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
        "acc_c_exact",
        "f1_c",
        "cls_c",
        "cls_c_count",
        "cls_c_all",
        "cls_c_count_all",
        "n_gold_states",
        "n_pred_states",
        "n_states",
        "ece_c",
        "ece_c_values",
        "ece_binning",
        "entropy_c",
        "occurrence",
        "acc_y",
    }
    assert out["n_points"] == 400 and out["n_concepts"] == 2
    assert out["acc_c"] == 0.75 and out["acc_y"] == 1.0
    assert out["acc_c_exact"] == 0.75  # the 10 cluster has both bits wrong, the rest none
    assert out["f1_c"] == pytest.approx(11 / 15)
    # gold covers all 4 states equally: the gold and all-states forms coincide
    assert out["cls_c"] == pytest.approx(0.25) and out["cls_c_count"] == 0.25
    assert out["cls_c_all"] == out["cls_c"] and out["cls_c_count_all"] == out["cls_c_count"]
    assert (out["n_gold_states"], out["n_pred_states"], out["n_states"]) == (4, 3, 4)
    assert out["occurrence"] == [100, 200, 0, 100]
    assert out["entropy_c"] == 0.0  # one-hot heads
    assert out["ece_binning"].startswith("10 equal-width bins, left-closed")
    by_value = {(r["concept"], r["value"]): r for r in out["ece_c_values"]}
    assert by_value[(0, 1)]["n"] == 200 and by_value[(0, 1)]["ece"] == pytest.approx(0.5)
    assert by_value[(0, 0)]["ece"] == 0.0


def test_score_concepts_text_without_labels(good, capsys):
    concepts, _, _ = good
    assert main(["score-concepts", concepts]) == 0
    out = capsys.readouterr().out
    assert "AccC (concept acc)" in out and "0.7500" in out and "AccY" not in out
    assert "Cls(C) count, 4 gold states" in out and "occurrence v         [100, 200, 0, 100]" in out


def test_score_concepts_gold_on_six_of_eight_states_perfect_predictor_scores_zero(tmp_path, capsys):
    states = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1]]  # 6 of 8
    c_true = np.array(states * 10)
    probs = [np.eye(2)[c_true[:, j]] for j in range(3)]
    path = _write(concept_table(np.arange(60), c_true, probs), tmp_path / "six.parquet")
    assert main(["score-concepts", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cls_c"] == 0.0 and out["cls_c_count"] == 0.0  # against the 6 gold states
    assert out["cls_c_count_all"] == 0.25  # 2 of the 8 states unseen in the test set
    assert out["cls_c_all"] == pytest.approx(1 - np.log(6) / np.log(8))
    assert out["n_gold_states"] == 6 and out["n_states"] == 8


def test_score_concepts_several_label_outputs_and_groups(good, tmp_path, capsys):
    concepts, _, _ = good
    labels = pd.DataFrame(
        {
            "point": np.arange(400),
            "y_true_a": np.zeros(400, dtype=int),
            "y_pred_a": np.zeros(400, dtype=int),
            "y_true_b": np.ones(400, dtype=int),
            "y_pred_b": (np.arange(400) % 4 != 0).astype(int),
        }
    ).astype("int64")
    path = _write(labels, tmp_path / "multi.parquet")
    argv = ["score-concepts", concepts, "--labels", path, "--outputs", "a,b"]
    assert main(argv + ["--group", "first=0", "--group", "second=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["acc_y_outputs"] == {"a": 1.0, "b": 0.75}
    assert out["acc_y"] == 0.875 and out["acc_y_exact"] == 0.75
    # concept 0 is predicted 0 on the 10 cluster: both of its values are still used
    assert set(out["cls_c_groups"]) == {"first", "second"}
    assert out["cls_c_groups"]["first"]["cls_c_count"] == 0.0
    assert out["cls_c_groups_mean"] == pytest.approx(
        np.mean([g["cls_c"] for g in out["cls_c_groups"].values()])
    )


def test_score_concepts_bins_options_reach_the_ece(tmp_path, capsys):
    from nesybench.shortcuts.panel import concept_ece

    rng = np.random.default_rng(3)
    c_true = rng.integers(0, 2, (200, 2))
    # confidences on the bin edges 0.6 / 0.7 / 0.8: the two conventions bin them differently
    conf = rng.choice([0.6, 0.7, 0.8], size=(200, 2))
    probs = [np.column_stack([conf[:, j], 1 - conf[:, j]]) for j in range(2)]
    path = _write(concept_table(np.arange(200), c_true, probs), tmp_path / "edges.parquet")
    for extra, closed in (([], False), (["--bins-right-closed"], True)):
        assert main(["score-concepts", path, "--bins", "5", "--json", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["ece_c"] == concept_ece(c_true, probs, n_bins=5, right_closed=closed)
        assert ("right-closed" in out["ece_binning"]) == closed
    assert concept_ece(c_true, probs, n_bins=5) != concept_ece(
        c_true, probs, n_bins=5, right_closed=True
    )


def test_score_concepts_reads_csv_probs_written_as_parquet_lists_only(tmp_path, capsys):
    # CSV cannot hold a list column: the reader says which column and row is not a list.
    path = tmp_path / "c.csv"
    path.write_text('point,concept,gold,probs\n0,0,1,"[0.5, 0.5]"\n')
    assert main(["score-concepts", str(path)]) == 2
    assert "column 'probs' row 0 must be a list of finite numbers" in capsys.readouterr().err
