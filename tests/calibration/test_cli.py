"""`nesybench calibrate` / `nesybench reliability` on user files: JSON contract and bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from nesybench.cli import main
from nesybench.io import read_parquet
from nesybench.metrics.calibration import expected_calibration_error, sigmoid
from nesybench.metrics.temperature import fit_temperature


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


BAD_INPUTS = [
    ("missing score", lambda d: d.drop(columns="score"), "missing column 'score'"),
    ("missing split", lambda d: d.drop(columns="split"), "missing column 'split'"),
    (
        "score as string",
        lambda d: d.assign(score=d["score"].astype(str)),
        "column 'score' must be float",
    ),
    (
        "label as float",
        lambda d: d.assign(label=d["label"].astype(float)),
        "column 'label' must be integer 0/1",
    ),
    (
        "label 2",
        lambda d: d.assign(label=np.where(np.arange(len(d)) == 3, 2, d["label"])),
        "only 0 and 1, got [2]",
    ),
    (
        "nan score",
        lambda d: d.assign(score=np.where(np.arange(len(d)) == 5, np.nan, d["score"])),
        "must be finite, got nan in row 5",
    ),
    (
        "inf score",
        lambda d: d.assign(score=np.where(np.arange(len(d)) == 0, np.inf, d["score"])),
        "must be finite, got inf in row 0",
    ),
    (
        "unknown split",
        lambda d: d.assign(split=np.where(np.arange(len(d)) == 0, "test", d["split"])),
        "must be 'cal' or 'eval', got ['test']",
    ),
    ("empty eval", lambda d: d.assign(split="cal"), "split 'eval' is empty"),
    (
        "one class in cal",
        lambda d: d.assign(label=np.where(d["split"] == "cal", 1, d["label"]).astype("int64")),
        "split 'cal' has only label 1 (20 rows); it needs both classes",
    ),
    ("no rows", lambda d: d.iloc[:0], "no rows"),
]


@pytest.mark.parametrize("name, change, message", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_calibrate_bad_input_exits_2(tmp_path, capsys, name, change, message):
    path = _write(tmp_path, change(_scores(n=40)))
    out_path = tmp_path / "out.parquet"
    assert main(["calibrate", path, "--method", "temperature", "--out", str(out_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert err.count("\n") == 1
    assert not out_path.exists()


def _exit_code(argv) -> int:
    """main()'s status; argparse usage errors leave through SystemExit."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize(
    "argv, message",
    [
        (["calibrate", "{path}", "--method", "beta"], "invalid choice: 'beta'"),
        (
            ["calibrate", "{path}", "--method", "platt", "--bins", "0"],
            "must be an integer >= 1, got 0",
        ),
        (["calibrate", "{path}"], "--method"),
        (["calibrate", "{missing}", "--method", "platt"], "file not found"),
        (["calibrate", "{notparquet}", "--method", "platt"], "not a readable Parquet file"),
    ],
)
def test_calibrate_bad_arguments_exit_2(tmp_path, capsys, argv, message):
    path = _write(tmp_path, _scores(n=40))
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    argv = [a.format(path=path, missing=tmp_path / "nope.parquet", notparquet=junk) for a in argv]
    assert _exit_code(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_reliability_bad_input_exits_2(tmp_path, capsys):
    path = _write(tmp_path, _scores(n=20).drop(columns="label"))
    assert main(["reliability", path]) == 2
    assert "missing column 'label'" in capsys.readouterr().err
