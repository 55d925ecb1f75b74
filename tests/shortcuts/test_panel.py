"""The concept panel on constructed predictions, with the spec's hand-derived values."""

import numpy as np
import pytest

from nesybench.shortcuts.panel import (
    concept_accuracy,
    concept_collapse_count,
    concept_collapse_entropy,
    concept_ece,
    concept_macro_f1,
    concept_panel,
    concept_table,
    is_identity,
    is_injective,
    learned_relabeling,
    occurrence_vector,
    predicted_concepts,
    unpack_concept_table,
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
