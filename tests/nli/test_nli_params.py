"""params.yaml nli section: every bad value fails with one line naming the key."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.errors import InputError
from nesybench.params import load_params, validate_params
from nesybench.stages import run_stage

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "workflow" / "schemas"


@pytest.fixture(scope="module")
def params() -> dict:
    return load_params(ROOT / "params.yaml")


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("prontoqa", "hops"), [0], "nli.prontoqa.hops.0 must be >= 1, got 0"),
        (("prontoqa", "hops"), [], "nli.prontoqa.hops must have at least 1 items"),
        (("prontoqa", "corrupt_prob"), 1.5, "nli.prontoqa.corrupt_prob must be <= 1, got 1.5"),
        (("prontoqa", "greedy_cap"), "nine", "nli.prontoqa.greedy_cap must be of type integer"),
        (("prontoqa", "n_per_hops"), 0, "nli.prontoqa.n_per_hops must be >= 1"),
        (("folio", "label_mix", "p_true"), -0.1, "nli.folio.label_mix.p_true must be >= 0"),
        (("folio", "n"), 0, "nli.folio.n must be >= 1"),
        (("worked_example_hops",), 1, "nli.worked_example_hops must be >= 2"),
        (("claims", "greedy_loses_proofs", "min_gap"), 2, "min_gap must be <= 1"),
        (("claims", "greedy_wins_labels", "min_rate"), -0.5, "min_rate must be >= 0"),
        (("claims", "greedy_deep_collapse", "enforce"), "yes", "enforce must be of type boolean"),
        (("claims", "invented"), {"min_rate": 1, "enforce": True}, "unknown key invented"),
        (("n_seeds",), 0, "nli.n_seeds must be >= 1, got 0"),
        (("exhibit",), "best", "nli.exhibit must be one of"),
        (("prontoqa", "seed"), 3, "nli.prontoqa has unknown key seed"),
        (("bogus",), 1, "nli has unknown key bogus"),
    ],
)
def test_bad_nli_params_fail_with_one_line(params, path, value, message):
    bad = copy.deepcopy(params)
    node = bad["nli"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(InputError) as exc:
        validate_params(bad, schema_dir=SCHEMAS, source="params.yaml")
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_stage_with_bad_params_exits_2_and_writes_nothing(tmp_path, params, capsys):
    shutil.copytree(SCHEMAS, tmp_path / "workflow" / "schemas")
    bad = copy.deepcopy(params)
    bad["nli"]["folio"]["label_mix"] = {"p_true": 0.9, "p_false": 0.2, "p_unknown": 0.1}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(bad))
    argv = ["nli", "seed", "--params", str(tmp_path / "params.yaml"), "--arg", "seed=0"]
    assert run_stage("generate", argv) == 2
    err = capsys.readouterr().err
    assert "params.yaml: nli.folio.label_mix must be probabilities summing to 1, got 1.2\n" in err
    assert not (tmp_path / "data").exists()


def test_worked_example_hops_not_in_corpus_is_a_user_error(tmp_path, params, capsys):
    shutil.copytree(SCHEMAS, tmp_path / "workflow" / "schemas")
    bad = copy.deepcopy(params)
    bad["nli"]["worked_example_hops"] = 4
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(bad))
    argv = ["nli", "seed", "--params", str(tmp_path / "params.yaml"), "--arg", "seed=0"]
    assert run_stage("generate", argv) == 2
    assert "nli.worked_example_hops must be one of nli.prontoqa.hops" in capsys.readouterr().err
