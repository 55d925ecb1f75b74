"""The sensitivity engine: knobs, variant tokens, the claim table and its metrics."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from nesybench.errors import ClaimFailed, InputError
from nesybench.metrics.stats import wilson_interval
from nesybench.params import load_params, validate_params
from nesybench.sensitivity import (
    DEFAULT,
    apply_variant,
    check_knob_reaches,
    knob_table,
    knobs,
    level_of,
    sensitivity_metrics,
    sensitivity_table,
    variant_instances,
    variant_token,
    variant_tokens,
)
from nesybench.sweep import SeedClaim

SECTION = {
    "n_seeds": 3,
    "model": {"dim": 8, "lr": 1.0, "kind": "complex"},
    "flag": True,
    "knobs": {
        "model.dim": {"provenance": "stated", "chapter": "16 real dims", "levels": [4, 8, 16]},
        "model.lr": {"provenance": "chosen", "why": "it converges", "levels": [0.5]},
        "model.kind": {"provenance": "chosen", "why": "x", "levels": [], "was": "real"},
        "flag": {"provenance": "chosen", "why": "y", "levels": [False]},
    },
}
CLAIMS = (SeedClaim("a", "claim a"), SeedClaim("b", "claim b"))


def _verdicts(a, b=None, seeds=(0, 1, 2)):
    frame = pd.DataFrame({"seed": list(seeds), "a": a})
    if b is not None:
        frame["b"] = b
    return frame


def test_knobs_drop_the_default_from_the_levels_and_keep_params_order():
    ks = knobs(SECTION)
    assert [k.path for k in ks] == ["model.dim", "model.lr", "model.kind", "flag"]
    assert ks[0].levels == (4, 16) and ks[0].default == 8 and ks[0].source == "16 real dims"
    assert ks[1].source == "it converges" and ks[2].was == "real"


def test_variant_tokens_skip_rescored_knobs():
    assert variant_tokens(SECTION) == ["model.dim=4", "model.dim=16", "model.lr=0.5", "flag=false"]
    assert variant_tokens(SECTION, rescored=["model.dim"]) == ["model.lr=0.5", "flag=false"]


def test_level_of_keeps_the_default_type_and_refuses_other_spellings():
    assert level_of(SECTION, "model.dim=16") == ("model.dim", 16)
    assert level_of(SECTION, "model.lr=0.5") == ("model.lr", 0.5)
    assert level_of(SECTION, "flag=false") == ("flag", False)
    with pytest.raises(KeyError):
        level_of(SECTION, "model.dim=4.0")  # an int knob is spelled as digits
    with pytest.raises(KeyError):
        level_of(SECTION, "model.nope=3")


def test_apply_variant_changes_one_value_and_copies():
    out = apply_variant(SECTION, "model.dim=4")
    assert out["model"]["dim"] == 4 and SECTION["model"]["dim"] == 8
    assert {k: v for k, v in out["model"].items() if k != "dim"} == {"lr": 1.0, "kind": "complex"}


def test_variant_instances_cross_every_token_with_every_unit():
    units = lambda s: [{"seed": i} for i in range(s["n_seeds"])]  # noqa: E731
    got = variant_instances(units, rescored=["flag"])(SECTION)
    assert got[0] == {"variant": "model.dim=4", "seed": 0}
    assert len(got) == 3 * 3 and {g["variant"] for g in got} == {
        "model.dim=4",
        "model.dim=16",
        "model.lr=0.5",
    }


def test_variant_token_spells_floats_so_they_read_back():
    assert variant_token("models.min_acc_y", 0.99) == "models.min_acc_y=0.99"
    assert variant_token("x", 1e-05) == "x=1e-05"


def test_knob_table_states_provenance_and_changed_defaults():
    table = knob_table(SECTION)
    assert list(table["provenance"]) == [
        "stated by the chapter",
        "chosen here",
        "chosen here",
        "chosen here",
    ]
    assert list(table["levels"]) == ["4, 16", "0.5", "-", "false"]
    assert list(table["changed"]) == ["", "", "from real", ""]


def test_sensitivity_table_rates_wilson_intervals_and_change():
    verdicts = {
        DEFAULT: _verdicts([True, False, False], [True, True, True]),
        "model.dim=4": _verdicts([True, True, False], [True, True, True]),
        "model.lr=0.5": _verdicts([False, False, False]),  # judges claim a only
    }
    table = sensitivity_table(verdicts, CLAIMS, SECTION)
    assert list(table["setting"]) == [
        DEFAULT,
        "model.dim=4",
        "model.lr=0.5",
        DEFAULT,
        "model.dim=4",
    ]
    row = table.iloc[1]
    assert (row.claim, row.knob, row.level, row.provenance) == (
        "a",
        "model.dim",
        "4",
        "stated by the chapter",
    )
    assert (row.holds_on, row.n_seeds) == (2, 3)
    assert (row.rate_lo, row.rate_hi) == wilson_interval(2, 3)
    assert row.change == pytest.approx(2 / 3 - 1 / 3)
    assert list(table["order"]) == list(range(len(table)))


def test_sensitivity_table_needs_the_same_seeds_at_every_level():
    verdicts = {
        DEFAULT: _verdicts([True, False, False]),
        "model.dim=4": _verdicts([True, True], seeds=(0, 1)),
    }
    with pytest.raises(ClaimFailed, match="same|cover"):
        sensitivity_table(verdicts, CLAIMS, SECTION)
    with pytest.raises(InputError):
        sensitivity_table({"model.dim=4": _verdicts([True] * 3)}, CLAIMS, SECTION)


def test_sensitivity_metrics_keys_name_claim_knob_and_level():
    verdicts = {
        DEFAULT: _verdicts([True, False, False], [True, True, True]),
        "model.dim=4": _verdicts([True, True, False], [False, True, True]),
    }
    metrics = sensitivity_metrics(sensitivity_table(verdicts, CLAIMS, SECTION), SECTION)
    # the default row stands for the default level of every knob that has levels
    # a knob level is one key segment: params path and level (nesybench.metric_keys)
    assert metrics["sensitivity.a.model_dim_8"]["claim_rate"] == pytest.approx(1 / 3)
    assert metrics["sensitivity.a.model_lr_1p0"]["claim_rate"] == pytest.approx(1 / 3)
    assert metrics["sensitivity.b.model_dim_4"] == {
        "claim_rate": pytest.approx(2 / 3),
        "lo": wilson_interval(2, 3)[0],
        "hi": wilson_interval(2, 3)[1],
        "n_seeds": 3,
    }
    assert "sensitivity.a.model_kind_complex" not in metrics  # no levels measured


def test_check_knob_reaches_fails_when_nothing_moved():
    base = pd.DataFrame({"seed": [0, 1], "x": [0.5, 0.25], "name": ["a", "b"]})
    check_knob_reaches(base, base.assign(x=[0.5, 0.3]), token="k=1")
    with pytest.raises(ClaimFailed, match="does not reach"):
        check_knob_reaches(base, base.iloc[::-1].copy(), token="k=1")


ROOT = Path(__file__).resolve().parents[2]


def _params():
    return load_params(ROOT / "params.yaml")


def test_every_instrument_declares_its_knobs_with_provenance():
    params = _params()
    for instrument in ("shortcuts", "calibration", "nli", "axes"):
        ks = knobs(params[instrument])
        assert ks, f"{instrument} declares no knobs"
        assert all(k.provenance in ("stated", "chosen") and k.source for k in ks)


@pytest.mark.parametrize(
    "path, spec, expected",
    [
        (
            "models.hidden",
            {"provenance": "chosen", "why": "x", "levels": [0]},
            "shortcuts.knobs.models.hidden.levels[0]: shortcuts.models.hidden must be >= 1",
        ),
        (
            "noise",
            {"provenance": "stated", "chapter": "x", "levels": [0.5]},
            "shortcuts.knobs.noise.levels must be empty",
        ),
        ("models.lr", {"provenance": "stated", "levels": []}, "missing required key chapter"),
        ("models.hiden", {"provenance": "chosen", "why": "x", "levels": []}, "models.hiden"),
        (
            "models.bias_init",
            {"provenance": "chosen", "why": "x", "levels": ["a b"]},
            "must be a number, true/false, or a word",
        ),
    ],
)
def test_bad_knob_declarations_get_one_line_naming_the_field(path, spec, expected):
    from nesybench.params import schema_dir_for

    params = _params()
    params["shortcuts"]["knobs"][path] = spec
    with pytest.raises(InputError) as err:
        validate_params(params, schema_dir=schema_dir_for(ROOT / "params.yaml"))
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_two_levels_spelt_the_same_in_a_metric_key_are_refused():
    table = pd.DataFrame(
        {
            "claim": ["a", "a"],
            "setting": ["model.kind=x-y", "model.kind=x_y"],
            "rate": [1.0, 0.0],
            "rate_lo": [0.5, 0.0],
            "rate_hi": [1.0, 0.5],
            "n_seeds": [3, 3],
        }
    )
    with pytest.raises(InputError, match="same metric key segment 'model_kind_x_y'"):
        sensitivity_metrics(table, SECTION)
