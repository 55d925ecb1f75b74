"""`nesybench calibrate` / `nesybench reliability` on user files: JSON contract and bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from nesybench.cli import main
from nesybench.io import read_parquet
from nesybench.metrics.calibration import expected_calibration_error, sigmoid
from nesybench.metrics.multiclass import multiclass_summary, softmax
from nesybench.metrics.temperature import fit_temperature, fit_temperature_softmax
from nesybench.seeds import child_rng


def _scores(n=200, seed=0, inflate=2.0):
    rng = np.random.default_rng(seed)
    logit = rng.normal(0, 2, n)
    label = (rng.random(n) < sigmoid(logit)).astype("int64")
    split = np.where(np.arange(n) % 2 == 0, "cal", "eval")
    return pd.DataFrame({"score": inflate * logit, "label": label, "split": split})


def _write(tmp_path, df, name="scores.parquet"):
    path = tmp_path / name
    df.to_parquet(path, index=False)
    return str(path)


def test_calibrate_json_contract(tmp_path, capsys):
    df = _scores()
    path = _write(tmp_path, df)
    assert main(["calibrate", path, "--method", "temperature", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "temperature"
    cal = df[df["split"] == "cal"]
    assert out["tau"] == pytest.approx(fit_temperature(cal["score"], cal["label"]).tau, rel=1e-12)
    for side in ("before", "after"):
        assert {"ece", "mce", "brier", "nll", "auc", "acc", "bins"} <= set(out[side])
        assert len(out[side]["bins"]) == 10
        assert set(out[side]["bins"][0]) == {"lo", "hi", "count", "conf", "acc"}
    ev = df[df["split"] == "eval"]
    assert out["before"]["ece"] == pytest.approx(
        expected_calibration_error(ev["label"], sigmoid(ev["score"])), abs=1e-15
    )
    assert out["before"]["auc"] == out["after"]["auc"]


@pytest.mark.parametrize("method", ["platt", "isotonic"])
def test_calibrate_other_methods_and_out_file(tmp_path, capsys, method):
    path = _write(tmp_path, _scores())
    out_path = tmp_path / "calibrated.parquet"
    assert (
        main(
            [
                "calibrate",
                path,
                "--method",
                method,
                "--bins",
                "5",
                "--bins-right-closed",
                "--out",
                str(out_path),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "BEFORE" in text and f"AFTER ({method}" in text
    out = read_parquet(out_path)
    assert list(out.columns) == ["score", "label", "split", "row", "prob"] and len(out) == 200
    assert out["prob"].between(0, 1).all()


def test_reliability_command(tmp_path, capsys):
    path = _write(tmp_path, _scores().drop(columns="split"))
    assert main(["reliability", path, "--json", "--strategy", "quantile"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sum(b["count"] for b in out["bins"]) == 200


def test_reliability_json_reports_an_undefined_auc_as_null_with_the_reason(tmp_path, capsys):
    df = _scores(n=30).drop(columns="split").assign(label=1)
    assert main(["reliability", _write(tmp_path, df), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["auc"] is None
    assert out["auc_note"] == "undefined: all 30 rows have label 1; AUC needs both classes"
    assert out["binning"]["convention"] == "[b/B, (b+1)/B), 1 in bin B-1"


# ---- K-way logits


def _logits(n=400, k=5, seed=0, inflate=3.0):
    rng = child_rng(seed, "test_calibration_cli", "logits")
    z = rng.normal(0, 1.3, (n, k))
    y = np.array([rng.choice(k, p=row) for row in softmax(z)])
    split = np.where(np.arange(n) % 2 == 0, "cal", "eval")
    return pd.DataFrame({"logits": list(inflate * z), "label": y, "split": split})


def test_calibrate_logits_json_contract_temperature(tmp_path, capsys):
    df = _logits()
    path = _write(tmp_path, df)
    assert main(["calibrate", path, "--method", "temperature", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "multiclass" and out["n_classes"] == 5
    z = np.array(df["logits"].tolist())
    y = df["label"].to_numpy()
    cal, ev = (df["split"] == "cal").to_numpy(), (df["split"] == "eval").to_numpy()
    tau = fit_temperature_softmax(z[cal], y[cal]).tau
    assert out["tau"] == out["params"]["tau"] == tau
    assert out["invariance"] == {"argmax": True, "ranking": True}
    for side in ("before", "after"):
        assert {"ece_top", "ece_classwise", "nll", "brier", "acc", "n", "bins"} <= set(out[side])
        assert len(out[side]["bins"]) == 10 and out[side]["n"] == int(ev.sum())
    before = multiclass_summary(y[ev], softmax(z[ev]), logits=z[ev])
    after = multiclass_summary(y[ev], softmax(z[ev] / tau), logits=z[ev] / tau)
    for key in ("ece_top", "ece_classwise", "nll", "brier", "acc"):
        assert out["before"][key] == pytest.approx(before[key], abs=1e-15), key
        assert out["after"][key] == pytest.approx(after[key], abs=1e-15), key
    assert out["after"]["acc"] == out["before"]["acc"]
    assert out["after"]["ece_top"] < out["before"]["ece_top"]


@pytest.mark.parametrize("method, keys", [("vector", {"w", "b"}), ("matrix", {"W", "b"})])
def test_calibrate_logits_affine_methods_report_their_parameters(tmp_path, capsys, method, keys):
    path = _write(tmp_path, _logits(k=3))
    assert main(["calibrate", path, "--method", method, "--reg", "0.01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert keys <= set(out["params"]) and out["params"]["reg"] == 0.01
    assert out["after"]["nll"] < out["before"]["nll"]


def test_calibrate_logits_out_file_holds_probability_rows(tmp_path, capsys):
    df = _logits(k=4)
    out_path = tmp_path / "calibrated.parquet"
    argv = ["calibrate", _write(tmp_path, df), "--method", "isotonic", "--out", str(out_path)]
    assert main(argv) == 0
    assert "isotonic scaling of a 4-way head" in capsys.readouterr().out
    out = read_parquet(out_path)
    assert list(out.columns) == ["logits", "label", "split", "row", "probs"]
    probs = np.array(out["probs"].tolist())
    assert probs.shape == (len(df), 4)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)


def test_reliability_of_logits_matches_the_library(tmp_path, capsys):
    df = _logits(k=3).drop(columns="split")
    assert main(["reliability", _write(tmp_path, df), "--json", "--bins-right-closed"]) == 0
    out = json.loads(capsys.readouterr().out)
    z, y = np.array(df["logits"].tolist()), df["label"].to_numpy()
    expected = multiclass_summary(y, softmax(z), logits=z, right_closed=True)
    assert out["ece_top"] == expected["ece_top"] and out["nll"] == expected["nll"]
    assert out["binning"]["right_closed"] is True
