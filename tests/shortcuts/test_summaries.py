"""Tables over seeds from constructed block rows: exact counts, intervals, the exhibit rules."""

import math

import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.metrics.stats import wilson_interval
from nesybench.shortcuts import summaries as S
from nesybench.shortcuts.digits import summaries as DS
from nesybench.sweep import bootstrap_mean_interval

from .test_claims import T


def test_metric_token_has_no_dots():
    assert S.metric_token("concept_sup=0.01") == "concept_sup_0p01"
    assert S.metric_token(0.5) == "support_0p5"
    assert "." not in S.metric_token("concept_sup=0.01+entropy=1.5")


def test_seeds_of_keeps_the_sweeps_seeds_and_names_a_missing_one():
    blocks = [
        pd.DataFrame({"seed": [0, 1], "x": [1, 2]}),
        pd.DataFrame({"seed": [2, 3], "x": [3, 4]}),
    ]
    assert S.seeds_of(blocks, [0, 1, 2])["x"].tolist() == [1, 2, 3]
    with pytest.raises(InputError, match="no rows for seed 4"):
        S.seeds_of(blocks, [0, 4])


def _panels(seeds):
    rows = []
    for s in seeds:
        rows.append(
            {
                "seed": s,
                "model": "label_only",
                "acc_y": 1.0,
                "acc_c": 0.75,
                "f1_c": 0.73,
                "cls_c": 0.25,
                "ece_c": 0.25,
                "alpha": "00->00 01->01 10->01 11->11",
            }
        )
        rows.append(
            {
                "seed": s,
                "model": "concept_sup",
                "acc_y": 1.0,
                "acc_c": 1.0,
                "f1_c": 1.0,
                "cls_c": 0.0,
                "ece_c": 0.0,
                "alpha": "00->00 01->01 10->10 11->11",
            }
        )
    return pd.DataFrame(rows)


def _runs(seeds, *, collapse_on=()):
    rows = []
    for s in seeds:
        for model, alpha in (
            ("label_only", "00->00 01->01 10->01 11->11"),
            ("concept_sup", "00->00 01->01 10->10 11->11"),
        ):
            hit = model == "label_only" and s in collapse_on
            rows.append(
                {
                    "task": "xor2",
                    "support_frac": 1.0,
                    "seed": s,
                    "model": model,
                    "acc_y_test": 1.0,
                    "acc_c_test": 0.75,
                    "acc_y_ood": float("nan"),
                    "alpha": alpha,
                    "label_perfect": True,
                    "shortcut": hit,
                    "collapse": hit,
                }
            )
        rows.append(
            {
                "task": "xor2",
                "support_frac": 0.5,
                "seed": s,
                "model": "label_only",
                "acc_y_test": 1.0,
                "acc_c_test": 0.5,
                "acc_y_ood": 0.25 * (s % 5),
                "alpha": "x",
                "label_perfect": True,
                "shortcut": True,
                "collapse": True,
            }
        )
    return pd.DataFrame(rows)


MODELS = {"task": "xor2", "support_frac": 1.0, "ood_support_frac": 0.5, "min_acc_y": 0.99}


def test_h2h_summary_joins_panels_runs_and_ood_with_the_claims():
    summary = S.h2h_summary(
        _panels(range(4)), _runs(range(4), collapse_on={1, 3}), models=MODELS, thresholds=T
    )
    assert summary["seed"].tolist() == [0, 1, 2, 3]
    assert summary["label_only_collapse"].tolist() == [False, True, False, True]
    assert summary["h2h_label_only_collapses"].tolist() == [False, True, False, True]
    assert summary["sup_identity"].all() and summary["h2h_twin_identity"].all()
    assert summary["ood_task_accuracy_ood"].tolist() == [0.0, 0.25, 0.5, 0.75]
    assert summary["ood_alarm"].all()
    assert not summary["ood_correct"].any()


def test_h2h_summary_refuses_a_duplicated_seed():
    panels = pd.concat([_panels([0]), _panels([0])], ignore_index=True)
    with pytest.raises(InputError, match="seed 0 appears twice"):
        S.h2h_summary(panels, _runs([0]), models=MODELS, thresholds=T)


def test_ood_table_shares_and_wilson_interval():
    summary = pd.DataFrame(
        {
            "ood_label_perfect": [True, True, True, False],
            "ood_correct": [True, False, False, True],
            "ood_task_accuracy_test": [1.0, 1.0, 1.0, 0.9],
            "ood_task_accuracy_ood": [1.0, 0.5, 0.5, 1.0],
        }
    )
    counted = {"n_opt_biased": 64, "n_survivors": 16, "counted_by": "enumeration"}
    row = S.ood_table(summary, counted, task="xor2", support="00,10").iloc[0]
    assert (row["n_label_perfect"], row["n_ood_correct"]) == (3, 1)  # the 4th is not perfect
    assert row["ood_correct_share"] == pytest.approx(1 / 3)
    assert (row["ood_correct_lo"], row["ood_correct_hi"]) == wilson_interval(1, 3)
    assert row["survivor_share_counted"] == 0.25


def test_scan_exhibit_is_the_first_collapse_with_its_rank():
    scan = pd.DataFrame(
        {
            "seed": range(6),
            "collapse": [False, False, True, False, True, False],
            "acc_c_test": [0.5, 0.75, 0.75, 1.0, 0.25, 0.75],
        }
    )
    ex = S.scan_exhibit(scan, n_scan=6)
    assert (ex["seed"], ex["n_collapse"], ex["value"]) == (2, 2, 0.75)
    # by AccC then seed: 4 (0.25), 0 (0.5), 1, 2, 5 (0.75), 3 (1.0): seed 2 is 4th
    assert ex["rank"] == 4
    assert "first of seeds 0..5" in ex["statement"]
    none = S.scan_exhibit(scan.assign(collapse=False), n_scan=6)
    assert none["seed"] is None and none["n_collapse"] == 0


def _digit_runs(seeds, shortcut_lo):
    rows = []
    for s in seeds:
        for mitigation, short, acc_c in (
            ("label_only", s in shortcut_lo, 0.1 * s),
            ("concept_sup=0.1", False, 0.95),
        ):
            rows.append(
                {
                    "support": "evenodd",
                    "mitigation": mitigation,
                    "seed": s,
                    "acc_y": 0.9,
                    "acc_y_ood": 0.1 if mitigation == "label_only" else 0.9,
                    "acc_c": acc_c,
                    "f1_c": acc_c,
                    "cls_c": 0.2,
                    "cls_c_digits": 0.3,
                    "ece_c": 0.5,
                    "label_perfect": True,
                    "map_identity": not short,
                    "map_injective": True,
                    "shortcut": short,
                    "map_is_optimum": None,
                    "digit_map": "0->0",
                }
            )
        rows.append(
            {
                "support": "evenodd",
                "mitigation": "neural",
                "seed": s,
                "acc_y": 0.95,
                "acc_y_ood": 0.0,
                "acc_c": float("nan"),
                "f1_c": float("nan"),
                "cls_c": float("nan"),
                "cls_c_digits": float("nan"),
                "ece_c": float("nan"),
                "label_perfect": True,
                "map_identity": None,
                "map_injective": None,
                "shortcut": None,
                "map_is_optimum": None,
                "digit_map": None,
            }
        )
    return pd.DataFrame(rows)


def test_digit_summary_pairs_seeds_and_computes_the_gaps():
    summary = DS.digit_summary(
        _digit_runs(range(3), {1, 2}), support="evenodd", supervised="concept_sup=0.1", thresholds=T
    )
    assert summary["task_accuracy_gap"].tolist() == [0.0] * 3
    assert summary["task_accuracy_ood_gap"].tolist() == pytest.approx([0.8] * 3)
    assert summary["digits_supervision_removes_shortcut"].tolist() == [False, True, True]
    assert (
        summary["digits_ood_separates"].all() and summary["digits_labels_indistinguishable"].all()
    )


def test_digit_sweep_skips_metrics_a_model_does_not_have():
    runs = _digit_runs(range(4), set())
    sweep = DS.digit_sweep(
        runs, supports=["evenodd"], mitigations=["label_only", "concept_sup=0.1", "neural"]
    )
    neural = sweep[sweep["mitigation"] == "neural"]
    assert sorted(neural["metric"]) == ["acc_y", "acc_y_ood"]
    row = sweep[(sweep["mitigation"] == "label_only") & (sweep["metric"] == "acc_c")].iloc[0]
    values = runs[runs["mitigation"] == "label_only"]["acc_c"].to_numpy()
    assert row["mean"] == pytest.approx(values.mean())
    assert (row["lo"], row["hi"]) == bootstrap_mean_interval(
        values, name="evenodd/label_only/acc_c"
    )
    assert row["n_seeds"] == 4 and sweep["order"].tolist() == sorted(sweep["order"])


def test_digit_incidence_counts_wilson_and_pending_counts():
    inc = DS.digit_incidence(
        _digit_runs(range(5), {0, 3}),
        supports=["evenodd"],
        mitigations=["label_only", "neural"],
        sizes={"evenodd": 16},
        counts={},
    )
    lo = inc[inc["mitigation"] == "label_only"].iloc[0]
    assert (lo["n_shortcut"], lo["rate"]) == (2, 0.4)
    assert (lo["rate_lo"], lo["rate_hi"]) == wilson_interval(2, 5)
    assert math.isnan(lo["log2_n_opt"]) and math.isnan(lo["n_distinct"])
    assert pd.isna(lo["n_map_is_optimum"])
    neural = inc[inc["mitigation"] == "neural"].iloc[0]
    assert pd.isna(neural["n_shortcut"]) and math.isnan(neural["rate"])
    counted = DS.digit_incidence(
        _digit_runs(range(2), set()),
        supports=["evenodd"],
        mitigations=["label_only"],
        sizes={"evenodd": 16},
        counts={"evenodd": {"log2_n_opt": 3.5, "n_distinct": 4}},
    )
    assert (counted.loc[0, "log2_n_opt"], counted.loc[0, "n_distinct"]) == (3.5, 4.0)


def test_pick_digit_exhibit_rules():
    summary = pd.DataFrame(
        {
            "seed": [0, 1, 2, 3],
            "label_only_shortcut": [False, False, True, True],
            "label_only_concept_accuracy": [0.9, 0.1, 0.5, 0.05],
        }
    )
    ex = DS.pick_digit_exhibit(summary, rule="first_shortcut")
    assert (ex["seed"], ex["rank"], ex["n_shortcut"]) == (2, 3, 2)
    none = DS.pick_digit_exhibit(summary.assign(label_only_shortcut=False), rule="first_shortcut")
    assert none["seed"] == 0 and "no seed of 0..3" in none["statement"]
    assert DS.pick_digit_exhibit(summary, rule="first")["seed"] == 0
    with pytest.raises(InputError, match="exhibit.digits"):
        DS.pick_digit_exhibit(summary, rule="median")
