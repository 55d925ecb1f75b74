"""The concept panel on constructed predictions, with the spec's hand-derived values."""

import math

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.shortcuts.concept_table import concept_table, unpack_concept_table
from nesybench.shortcuts.panel import (
    concept_accuracy,
    concept_collapse,
    concept_collapse_count,
    concept_collapse_entropy,
    concept_ece,
    concept_entropy,
    concept_exact_match,
    concept_macro_f1,
    concept_panel,
    concept_value_ece,
    group_collapse,
    is_identity,
    is_injective,
    label_accuracies,
    learned_relabeling,
    occurrence_vector,
    predicted_concepts,
)

STATES = ["00", "01", "10", "11"]


def _bits(s):
    return [int(ch) for ch in s]


def _constructed(alpha, *, per_state=100, confidence=1.0):
    """Test points, 100 per true state, whose heads predict alpha(g) with the given confidence."""
    c_true, c_pred = [], []
    for g in STATES:
        c_true += [_bits(g)] * per_state
        c_pred += [_bits(alpha[g])] * per_state
    c_true, c_pred = np.array(c_true), np.array(c_pred)
    probs = []
    for j in range(2):
        p = np.where(c_pred[:, j : j + 1] == np.arange(2)[None, :], confidence, 1.0 - confidence)
        probs.append(p)
    return c_true, probs


SPEC_ALPHA = {"00": "00", "01": "01", "10": "01", "11": "11"}  # the spec's collapsing shortcut
SWAP_ALPHA = {
    "00": "11",
    "01": "10",
    "10": "01",
    "11": "00",
}  # a permutation (complement both bits)


def test_panel_spec_collapse_hand_derived_values():
    c_true, probs = _constructed(SPEC_ALPHA)
    panel = concept_panel(c_true, probs)
    assert panel["acc_c"] == 0.75  # 600 of 800 bits
    assert panel["f1_c"] == pytest.approx(11 / 15, abs=1e-12)
    assert panel["cls_c"] == pytest.approx(0.25, abs=1e-12)
    assert panel["cls_c_count"] == 0.25
    assert panel["occurrence"] == [100, 200, 0, 100]
    # Confident at 1.0 and right on 3/4 of the bits: the top bin pays |0.75 - 1|.
    assert panel["ece_c"] == pytest.approx(0.25)


def test_panel_identity_is_perfect():
    c_true, probs = _constructed({g: g for g in STATES})
    panel = concept_panel(c_true, probs, y_true=[0, 1], y_pred=[0, 1])
    assert (
        panel["acc_c"],
        panel["f1_c"],
        panel["cls_c_count"],
        panel["ece_c"],
        panel["acc_y"],
    ) == (1.0, 1.0, 0.0, 0.0, 1.0)
    assert panel["cls_c"] == pytest.approx(0.0, abs=1e-12)


def test_panel_permutation_shortcut_has_no_collapse_but_low_accuracy():
    c_true, probs = _constructed(SWAP_ALPHA)
    panel = concept_panel(c_true, probs)
    assert panel["acc_c"] == 0.0
    assert panel["f1_c"] == 0.0
    assert panel["cls_c"] == pytest.approx(0.0, abs=1e-12)
    assert panel["cls_c_count"] == 0.0
    assert panel["occurrence"] == [100, 100, 100, 100]


def test_collapse_forms_differ_on_uneven_but_full_usage():
    v = [250, 50, 50, 50]
    assert concept_collapse_count(v) == 0.0
    assert concept_collapse_entropy(v) > 0.1
    assert concept_collapse_entropy([400, 0, 0, 0]) == pytest.approx(1.0)
    assert concept_collapse_count([400, 0, 0, 0]) == 0.75


def test_concept_ece_calls_the_shared_ece_on_pooled_heads():
    from nesybench.metrics.calibration import expected_calibration_error

    c_true, probs = _constructed(SPEC_ALPHA, confidence=0.9)
    conf = np.concatenate([p.max(axis=1) for p in probs])
    correct = np.concatenate(
        [(p.argmax(axis=1) == c_true[:, j]).astype(int) for j, p in enumerate(probs)]
    )
    assert concept_ece(c_true, probs) == expected_calibration_error(correct, conf)
    assert concept_ece(c_true, probs) == pytest.approx(0.15)


def test_macro_f1_by_hand_one_concept():
    # concept 0 of the spec map: truth 0,0,1,1 per cluster, predicted 0,0,0,1.
    truth = np.array([[0]] * 200 + [[1]] * 200)
    pred = np.array([[0]] * 300 + [[1]] * 100)
    assert concept_macro_f1(truth, pred) == pytest.approx((2 / 3 + 4 / 5) / 2)
    assert concept_accuracy(truth, pred) == 0.75


def test_learned_relabeling_reads_majorities_and_breaks_ties_low():
    c_true = np.array([[1, 0]] * 5 + [[0, 0]] * 2)
    c_pred = np.array([[0, 1]] * 3 + [[1, 0]] * 2 + [[1, 1], [0, 0]])
    alpha = learned_relabeling(c_true, c_pred)
    assert alpha == {"00": "00", "10": "01"}
    assert not is_identity(alpha) and is_injective(alpha)
    assert not is_injective(SPEC_ALPHA) and is_injective(SWAP_ALPHA)


def test_occurrence_vector_mixed_radix_concept0_most_significant():
    c_pred = np.array([[0, 2], [1, 0], [1, 0]])
    assert occurrence_vector(c_pred, [2, 3]).tolist() == [0, 0, 1, 2, 0, 0]


def test_concept_table_round_trip():
    c_true, probs = _constructed(SPEC_ALPHA, per_state=3, confidence=0.8)
    points = np.arange(12) * 7
    df = concept_table(points, c_true, probs)
    got_points, got_true, got_probs = unpack_concept_table(
        df.sample(frac=1.0, random_state=0), source="x"
    )
    assert np.array_equal(got_points, points) and np.array_equal(got_true, c_true)
    assert all(np.array_equal(a, b) for a, b in zip(got_probs, probs))
    assert np.array_equal(predicted_concepts(got_probs), predicted_concepts(probs))


def test_panel_is_invariant_to_point_order():
    rng = np.random.default_rng(7)
    c_true = rng.integers(0, 2, size=(60, 3))
    probs = [rng.dirichlet(np.ones(2), size=60) for _ in range(3)]
    order = rng.permutation(60)
    a = concept_panel(c_true, probs)
    b = concept_panel(c_true[order], [p[order] for p in probs])
    assert a["occurrence"] == b["occurrence"]
    for key in ("acc_c", "f1_c", "cls_c", "cls_c_count", "ece_c"):
        assert a[key] == pytest.approx(b[key], abs=1e-12)


def test_panel_handles_concepts_with_three_values():
    c_true = np.array([[0, 2], [1, 0], [2, 1]])
    probs = [np.eye(3)[[0, 1, 2]], np.array([[0.1, 0.1, 0.8], [0.7, 0.2, 0.1], [0.2, 0.2, 0.6]])]
    panel = concept_panel(c_true, probs)
    assert panel["acc_c"] == 5 / 6
    assert len(panel["occurrence"]) == 9 and sum(panel["occurrence"]) == 3
    assert panel["cls_c_count_all"] == 1 - 3 / 9  # 3 of the 9 joint states predicted
    assert panel["n_gold_states"] == 3 and panel["n_states"] == 9
    assert panel["cls_c_count"] == 1 - 2 / 3  # gold state (2, 1) is never predicted


# ---- collapse against the gold's states, and the metrics rsbench reports


def test_collapse_perfect_predictor_scores_zero_on_six_of_eight_states():
    states = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1]]
    c_true = np.array(states * 5)
    out = concept_collapse(c_true, c_true, [2, 2, 2])
    assert out["cls_c"] == 0.0 and out["cls_c_count"] == 0.0
    assert out["cls_c_count_all"] == 0.25  # 2 of 8 states never predicted (nor present)
    assert out["cls_c_all"] == pytest.approx(1 - math.log(6) / math.log(8), abs=1e-15)
    assert (out["n_gold_states"], out["n_pred_states"], out["n_states"]) == (6, 6, 8)


def test_collapse_perfect_predictor_scores_zero_on_an_uneven_gold():
    c_true = np.array([[0, 0]] * 7 + [[0, 1]] * 2 + [[1, 1]])
    out = concept_collapse(c_true, c_true, [2, 2])
    assert out["cls_c"] == 0.0 and out["cls_c_count"] == 0.0
    assert out["cls_c_all"] > 0.3  # the all-states form charges the uneven test set


def test_collapse_gold_forms_by_hand():
    # gold: 00 x2, 01 x2 (H = ln 2); predictions: 00 x3, 11 x1 (H = -(3/4 ln 3/4 + 1/4 ln 1/4))
    c_true = [[0, 0], [0, 0], [0, 1], [0, 1]]
    c_pred = [[0, 0], [0, 0], [0, 0], [1, 1]]
    out = concept_collapse(c_true, c_pred, [2, 2])
    h_pred = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert out["cls_c"] == pytest.approx(1 - h_pred / math.log(2), abs=1e-15)
    assert out["cls_c_count"] == 0.5  # gold state 01 never predicted; 11 is not a gold state
    assert out["cls_c_count_all"] == 0.5  # 2 of 4 states predicted


def test_collapse_entropy_form_is_floored_at_zero_and_zero_for_one_gold_state():
    c_true = [[0, 0]] * 4 + [[1, 1]] * 4  # H(gold) = ln 2
    c_pred = [[0, 0], [0, 1], [1, 0], [1, 1]] * 2  # H(pred) = ln 4 > ln 2
    assert concept_collapse(c_true, c_pred, [2, 2])["cls_c"] == 0.0
    one = concept_collapse([[1, 0]] * 3, [[0, 0], [1, 0], [1, 0]], [2, 2])
    assert one["cls_c"] == 0.0 and one["cls_c_count"] == 0.0 and one["n_gold_states"] == 1


def test_collapse_entropy_of_a_single_state_is_zero_not_a_division_by_zero():
    assert concept_collapse_entropy([5]) == 0.0


def test_group_collapse_separates_colour_from_shape():
    # concepts 0, 1 = colour of two objects (3 values); 2, 3 = shape (3 values)
    rng = np.random.default_rng(0)
    c_true = rng.integers(0, 3, size=(300, 4))
    c_pred = c_true.copy()
    c_pred[:, 0] = 0  # colour of object 1 always predicted 0
    c_pred[:, 1] = 0
    groups = {"colour": [0, 1], "shape": [2, 3]}
    out = group_collapse(c_true, c_pred, [3, 3, 3, 3], groups)
    assert out["shape"]["cls_c"] == 0.0 and out["shape"]["cls_c_count"] == 0.0
    assert out["colour"]["n_gold_states"] == 9 and out["colour"]["cls_c_count"] == 8 / 9
    assert out["colour"]["cls_c"] == 1.0  # one predicted state: zero entropy
    panel = concept_panel(c_true, [np.eye(3)[c_pred[:, j]] for j in range(4)], groups=groups)
    assert panel["cls_c_groups"] == out
    assert panel["cls_c_groups_mean"] == 0.5
    assert panel["cls_c_count_groups_mean"] == pytest.approx(4 / 9)
    with pytest.raises(InputError, match=r"groups\['bad'\] must list distinct concept indices"):
        group_collapse(c_true, c_pred, [3] * 4, {"bad": [0, 4]})


def test_concept_exact_match_and_per_concept_accuracy_differ():
    c_true = np.array([[0, 0], [0, 1], [1, 1], [1, 0]])
    c_pred = np.array([[0, 0], [0, 0], [1, 1], [0, 1]])
    assert concept_exact_match(c_true, c_pred) == 0.5
    assert concept_accuracy(c_true, c_pred) == 5 / 8


def test_concept_value_ece_by_hand():
    # head 0: gold 0 on rows 0-1 predicted 0 at 0.9 (right): |1 - 0.9| = 0.1;
    # gold 1 on rows 2-3: row 2 predicted 0 at 0.9 (wrong), row 3 predicted 1 at 0.7 (right):
    # bins 0.9 and 0.7, one row each: (1/2)|0 - 0.9| + (1/2)|1 - 0.7| = 0.6.
    probs = [np.array([[0.9, 0.1], [0.9, 0.1], [0.9, 0.1], [0.3, 0.7]])]
    rows = concept_value_ece([[0], [0], [1], [1]], probs)
    assert [(r["concept"], r["value"], r["n"]) for r in rows] == [(0, 0, 2), (0, 1, 2)]
    assert rows[0]["ece"] == pytest.approx(0.1) and rows[1]["ece"] == pytest.approx(0.6)
    three = concept_value_ece([[0], [0]], [np.array([[0.5, 0.3, 0.2], [0.6, 0.2, 0.2]])])
    assert [r["ece"] for r in three][1:] == [None, None]  # values 1 and 2 never gold


def test_concept_entropy_by_hand_normalises_per_head():
    p2 = np.array([[0.5, 0.5], [1.0, 0.0]])  # normalised entropies 1, 0
    p3 = np.array([[1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0.0]])  # 1, ln 2 / ln 3
    expected = (1 + 0 + 1 + math.log(2) / math.log(3)) / 4
    assert concept_entropy([p2, p3]) == pytest.approx(expected, abs=1e-15)


def test_label_accuracies_one_and_several_outputs():
    assert label_accuracies([0, 1, 1], [0, 1, 0]) == {"acc_y": 2 / 3}
    out = label_accuracies([[0, 1], [1, 1], [1, 0]], [[0, 1], [1, 0], [0, 0]], names=["f", "s"])
    assert out == {"acc_y": 4 / 6, "acc_y_outputs": {"f": 2 / 3, "s": 2 / 3}, "acc_y_exact": 1 / 3}
    with pytest.raises(InputError, match="equal shape"):
        label_accuracies([0, 1], [[0], [1]])


def test_panel_with_several_label_outputs_and_ece_options():
    c_true, probs = _constructed(SPEC_ALPHA, confidence=0.9)
    y = np.column_stack([c_true.sum(1) % 2, c_true[:, 0]])
    panel = concept_panel(
        c_true, probs, y_true=y, y_pred=y, output_names=["xor", "first"], right_closed=True
    )
    assert panel["acc_y_outputs"] == {"xor": 1.0, "first": 1.0} and panel["acc_y_exact"] == 1.0
    assert panel["ece_c"] == concept_ece(c_true, probs, right_closed=True)
    assert panel["ece_binning"] == "10 equal-width bins, right-closed (b/B, (b+1)/B], 0 in bin 0"
    assert panel["acc_c_exact"] == 0.75


def test_panel_lists_no_occurrence_vector_beyond_the_state_limit():
    rng = np.random.default_rng(1)
    c_true = rng.integers(0, 2, size=(20, 13))  # 8192 joint states
    probs = [np.eye(2)[c_true[:, j]] for j in range(13)]
    panel = concept_panel(c_true, probs)
    assert panel["occurrence"] is None and panel["n_states"] == 8192
    assert panel["cls_c"] == 0.0 and panel["cls_c_count"] == 0.0


def test_unpack_rejects_one_valued_concepts_and_huge_ids_quickly():
    df = concept_table(np.arange(3), np.zeros((3, 1), dtype=int), [np.ones((3, 1))])
    with pytest.raises(InputError, match="a concept needs at least 2 values"):
        unpack_concept_table(df, source="x")
    c_true, probs = _constructed(SPEC_ALPHA, per_state=2)
    df = concept_table(np.arange(8), c_true, probs)
    df.loc[df["concept"] == 1, "concept"] = 10**12
    with pytest.raises(InputError, match="concept 1 has no rows"):
        unpack_concept_table(df, source="x")
