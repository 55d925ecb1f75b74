from __future__ import annotations

import json

import pytest

from nesybench.cli import main

SPEC = ["--a", "1.0000,0.9659,0.5000,0.5000", "--b", "0.9266,1.0000,0.8321,1.0000"]


def test_mixture_cli_prints_spec_values(capsys):
    assert main(["mixture", *SPEC, "--n", "804,352,280,64"]) == 0
    out = capsys.readouterr().out
    assert "aggregate a = 0.8773" in out and "aggregate b = 0.9293" in out
    row01 = next(line for line in out.splitlines() if line.strip().startswith("0,1"))
    assert row01.split()[1:] == ["0.3172", "0.9767"]


def test_mixture_cli_json(capsys):
    assert main(["mixture", *SPEC, "--n", "804,352,280,64", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["aggregate_a"], 4) == 0.8773 and round(data["aggregate_b"], 4) == 0.9293
    ties = {tuple(t["depths"]): t for t in data["ties"]}
    assert round(ties[(0, 1)]["pi"], 4) == 0.3172 and round(ties[(0, 1)]["accuracy"], 4) == 0.9767
    assert ties[(1, 2)]["pi"] is None and ties[(1, 2)]["accuracy"] is None
    assert len(ties) == 6


def test_mixture_cli_without_counts_has_no_aggregates(capsys):
    assert main(["mixture", *SPEC, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "aggregate_a" not in data and len(data["ties"]) == 6


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--a", "1,0.5", "--b", "1,0.5,0.2"], "--b must be 2 accuracies"),
        (["--a", "1,1.5", "--b", "1,0.5"], "--a: accuracies must be in [0, 1], got 1.5"),
        (["--a", "1,0.5", "--b=-0.1,0.5"], "--b: accuracies must be in [0, 1], got -0.1"),
        (["--a", "1,0.5", "--b", "1,0.5", "--n", "3,-2"], "--n: counts must be >= 0, got -2"),
        (["--a", "1,0.5", "--b", "1,0.5", "--n", "3"], "--n must be 2 counts"),
        (["--a", "1,abc", "--b", "1,0.5"], "--a must be comma-separated numbers"),
        (["--a", "1,nan", "--b", "1,0.5"], "--a must be finite numbers"),
        (["--a", "1", "--b", "1"], "at least 2 depths"),
    ],
)
def test_mixture_cli_rejects_bad_input(capsys, argv, message):
    assert main(["mixture", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_mixture_cli_missing_argument_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["mixture", "--b", "1,0.5"])
    assert exc.value.code == 2
    assert (
        "error: nesybench mixture: the following arguments are required: --a"
        in capsys.readouterr().err
    )


def test_axes_export_is_deterministic_and_the_repo_params_give_the_built_in_grid(tmp_path, capsys):
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    assert main(["axes-export", "--out", str(a)]) == 0
    assert main(["axes-export", "--out", str(b)]) == 0
    assert main(["axes-export", "--out", str(c), "--params", str(repo / "params.yaml")]) == 0
    assert a.read_bytes() == b.read_bytes() == c.read_bytes()
    assert "wrote 1,152 questions" in capsys.readouterr().out
    train = tmp_path / "t.jsonl"
    assert main(["axes-export", "--out", str(train), "--split", "train"]) == 0
    assert train.read_bytes() != a.read_bytes()
    assert not list(tmp_path.glob(".*.tmp"))
