"""The chapter's claims: directional verdicts per seed at their thresholds, structural checks."""

import pandas as pd
import pytest

from nesybench.errors import ClaimFailed
from nesybench.logic.knowledge import make_knowledge
from nesybench.shortcuts import claims

T = {
    "acc_y_min": 0.95,
    "acc_c_shortcut_max": 0.8,
    "acc_c_twin_min": 0.95,
    "cls_c_shortcut_min": 0.2,
    "cls_c_twin_max": 0.05,
    "cls_c_gap_min": 0.15,
    "ece_c_shortcut_min": 0.15,
    "ece_c_twin_max": 0.05,
    "digits_id_tolerance": 0.05,
    "digits_ood_margin": 0.2,
}

# The chapter's committed head-to-head (spec ch06): every claim holds.
CHAPTER = {
    "label_only_task_accuracy": 1.0,
    "label_only_concept_accuracy": 0.75,
    "label_only_concept_f1": 0.7333,
    "label_only_concept_collapse": 0.25,
    "label_only_concept_ece": 0.2467,
    "sup_task_accuracy": 1.0,
    "sup_concept_accuracy": 1.0,
    "sup_concept_f1": 1.0,
    "sup_concept_collapse": 0.0,
    "sup_concept_ece": 0.0013,
    "label_only_collapse": True,
    "sup_identity": True,
    "ood_task_accuracy_test": 1.0,
    "ood_task_accuracy_ood": 0.5,
}


def test_h2h_seed_claims_all_hold_on_the_chapters_committed_panel():
    verdicts = claims.h2h_seed_claims(CHAPTER, T)
    assert set(verdicts) == {c.name for c in claims.H2H_CLAIMS}
    assert all(verdicts.values())


@pytest.mark.parametrize(
    "change, broken",
    [
        ({"label_only_task_accuracy": 0.9499}, "h2h_labels_indistinguishable"),
        ({"sup_task_accuracy": 0.9499}, "h2h_labels_indistinguishable"),
        ({"label_only_concept_accuracy": 0.8001}, "h2h_acc_c_separates"),
        ({"sup_concept_accuracy": 0.9499}, "h2h_acc_c_separates"),
        ({"label_only_concept_f1": 0.8001}, "h2h_f1_c_separates"),
        ({"label_only_concept_collapse": 0.1999}, "h2h_cls_c_separates"),
        ({"sup_concept_collapse": 0.0501}, "h2h_cls_c_separates"),
        (
            {"label_only_concept_collapse": 0.2, "sup_concept_collapse": 0.0501},
            "h2h_cls_c_separates",
        ),
        ({"label_only_concept_ece": 0.1499}, "h2h_ece_c_separates"),
        ({"sup_concept_ece": 0.0501}, "h2h_ece_c_separates"),
        ({"label_only_collapse": False}, "h2h_label_only_collapses"),
        ({"sup_identity": False}, "h2h_twin_identity"),
        ({"ood_task_accuracy_ood": 1.0}, "ood_alarm"),
    ],
)
def test_h2h_seed_claims_break_just_past_each_threshold(change, broken):
    verdicts = claims.h2h_seed_claims({**CHAPTER, **change}, T)
    assert [name for name, held in verdicts.items() if not held] == [broken]


def test_h2h_seed_claims_hold_exactly_at_the_thresholds():
    at = {
        **CHAPTER,
        "label_only_task_accuracy": 0.95,
        "label_only_concept_accuracy": 0.8,
        "sup_concept_accuracy": 0.95,
        "label_only_concept_ece": 0.15,
    }
    assert all(claims.h2h_seed_claims(at, T).values())


def test_digit_seed_claims():
    row = {
        "label_only_shortcut": True,
        "sup_shortcut": False,
        "task_accuracy_gap": -0.05,
        "task_accuracy_ood_gap": 0.2,
    }
    assert claims.digit_seed_claims(row, T) == dict.fromkeys(
        [c.name for c in claims.DIGIT_CLAIMS], True
    )
    worse = {
        "label_only_shortcut": True,
        "sup_shortcut": True,
        "task_accuracy_gap": 0.0501,
        "task_accuracy_ood_gap": 0.19,
    }
    assert not any(claims.digit_seed_claims(worse, T).values())
    clean = {**row, "label_only_shortcut": False}  # nothing to remove: the claim does not hold
    assert not claims.digit_seed_claims(clean, T)["digits_supervision_removes_shortcut"]


def test_calibration_seed_claims_need_a_strict_decrease():
    assert claims.calibration_seed_claims(
        {"label_only_ece_change": -1e-9, "digits_label_only_ece_change": 0.0}
    ) == {
        "concept_temperature_lowers_ece": True,
        "digits_temperature_lowers_ece": False,
    }


XOR2 = make_knowledge("xor", 2)
SUPPORT = ["00", "01", "10", "11"]


def test_check_exhibit_alpha_accepts_the_chapters_collapse():
    claims.check_exhibit_alpha({"00": "00", "01": "01", "10": "01", "11": "11"}, XOR2, SUPPORT)


@pytest.mark.parametrize(
    "alpha, message",
    [
        ({"00": "01", "01": "01", "10": "10", "11": "11"}, "one of the counted optima"),
        ({"00": "00", "01": "10", "10": "01", "11": "11"}, "non-injective"),
        ({"00": "00", "01": "01", "10": "10", "11": "11"}, "non-injective"),
    ],
)
def test_check_exhibit_alpha_fails_loudly(alpha, message):
    with pytest.raises(ClaimFailed, match=message):
        claims.check_exhibit_alpha(alpha, XOR2, SUPPORT)


def test_check_ood_survivors():
    good = {
        "counted_by": "enumeration",
        "n_opt_biased": 64,
        "n_opt_counter": 64,
        "n_survivors": 16,
        "n_opt_full": 16,
    }
    claims.check_ood_survivors(good)
    with pytest.raises(ClaimFailed, match="enumeration agrees with the counter"):
        claims.check_ood_survivors({**good, "n_opt_counter": 63})
    with pytest.raises(ClaimFailed, match="exactly the full-support optima"):
        claims.check_ood_survivors({**good, "n_survivors": 15})
    claims.check_ood_survivors({**good, "counted_by": "factored", "n_survivors": 15})


def test_check_accuracy_kept_only_binds_temperature():
    table = pd.DataFrame(
        [
            {"method": "temperature", "seed": 0, "model": "a", "acc_before": 0.5, "acc_after": 0.5},
            {"method": "vector", "seed": 0, "model": "a", "acc_before": 0.5, "acc_after": 0.6},
        ]
    )
    claims.check_accuracy_kept(table, what="net")
    table.loc[0, "acc_after"] = 0.51
    with pytest.raises(ClaimFailed, match=r"net a \(seed 0\) keeps its accuracy"):
        claims.check_accuracy_kept(table, what="net")
