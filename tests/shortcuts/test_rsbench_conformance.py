"""nesybench's concept panel against rsbench's evaluation formulas, on five prediction sets.

The ``rs_*`` functions below are an independent reimplementation, written for this test from
the definitions in rsbench's evaluation code (``rsseval/rss/utils/metrics.py``,
``rsseval/rss/utils/train.py`` and ``rsseval/rss/notebooks/evaluate.ipynb`` of
unitn-sml/rsbench-code); no rsbench code is imported or copied.  ``docs/rsbench-conformance.md``
explains each convention.

``CONFORMANCE`` is the table: one row per (prediction set, metric), the nesybench number (with
the alignment it needs, if any) and the rsbench number; they must agree to 1e-12.  The tests
after the table pin each documented difference on the same sets: the number each side gives
and the exact relation between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from nesybench.metrics.multiclass import softmax
from nesybench.seeds import child_rng
from nesybench.shortcuts.panel import (
    concept_accuracy,
    concept_collapse,
    concept_ece,
    concept_entropy,
    concept_exact_match,
    concept_macro_f1,
    concept_value_ece,
    group_collapse,
    label_accuracies,
    predicted_concepts,
)

# ---------------------------------------------------------------- rsbench's formulas, rewritten


def rs_ece(confs, preds, labels, num_bins=10):
    """ECE with rsbench's binning: bin = ceil(B * conf - 1), and -1 (conf = 0) goes to bin 0."""
    count = np.zeros(num_bins)
    conf_sum = np.zeros(num_bins)
    hits = np.zeros(num_bins)
    for conf, pred, label in zip(confs, preds, labels):
        b = max(0, int(math.ceil(num_bins * conf - 1)))
        count[b] += 1
        conf_sum[b] += conf
        hits[b] += pred == label
    n = len(labels)
    total = 0.0
    for b in range(num_bins):
        if count[b]:
            total += abs(hits[b] / count[b] - conf_sum[b] / count[b]) * count[b] / n
    return total


def rs_ece_by_value(confs, preds, labels, value, num_bins=10):
    """rsbench's per-concept ECE: the ECE of the rows whose label is ``value`` (None if none)."""
    idx = np.flatnonzero(labels == value)
    return rs_ece(confs[idx], preds[idx], labels[idx], num_bins) if idx.size else None


def rs_coverage_collapse(true, pred):
    """1 - coverage of sklearn's confusion matrix: its columns are the sorted union of the labels
    in true and pred; a column is covered when some row is predicted as it."""
    columns = np.union1d(true, pred)
    covered = np.isin(columns, pred)
    return 1.0 - covered.sum() / len(columns)


def rs_categories(bits):
    """rsbench's convert_to_categories: a row of 0/1 concepts read as a base-2 number."""
    return np.array([int("".join(str(int(b)) for b in row), 2) for row in bits])


def rs_mean_entropy(probabilities, n_values):
    """rsbench's mean_entropy: probabilities smoothed by 1e-5, renormalised, entropy / ln V."""
    p = (np.asarray(probabilities, dtype=float) + 1e-5) / (1 + n_values * 1e-5)
    return float(np.mean(-np.sum(p * np.log(p), axis=1) / np.log(n_values)))


def rs_macro_f1(true, pred):
    """Macro F1 over the sorted union of labels (scikit-learn's default), written from counts."""
    scores = []
    for c in np.union1d(true, pred):
        tp = np.sum((pred == c) & (true == c))
        fp = np.sum((pred == c) & (true != c))
        fn = np.sum((pred != c) & (true == c))
        scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores))


def rs_accuracy(true, pred):
    return float(np.mean(np.asarray(true) == np.asarray(pred)))


def rs_exact_match(c_true, c_pred):
    """rsbench's SDDOIA concept accuracy: (c_true == c_pred).all(dim=1).mean()."""
    return float(np.mean(np.all(c_true == c_pred, axis=1)))


def rs_multilabel_rows(true, pred, k):
    """rsbench's multilabel branch: ``for i in range(k): accuracy(true[i], pred[i])`` -> rows."""
    return float(np.mean([rs_accuracy(true[i], pred[i]) for i in range(k)]))


def rs_batch_accuracy(c_true, c_pred, batch):
    """evaluate_metrics' concept accuracy: per batch, the mean over positions; then over batches."""
    accs = []
    for start in range(0, len(c_true), batch):
        t, p = c_true[start : start + batch], c_pred[start : start + batch]
        accs.append(np.mean([np.sum(p[:, j] == t[:, j]) / len(t) for j in range(t.shape[1])]))
    return float(np.mean(accs))


# ---------------------------------------------------------------- five prediction sets


@dataclass
class PredictionSet:
    name: str
    c_true: np.ndarray  # (n, k)
    probs: list[np.ndarray]  # k heads (n, V)
    groups: dict[str, list[int]] | None = None
    y_true: np.ndarray | None = None  # (n, q) label outputs
    y_pred: np.ndarray | None = None

    @property
    def c_pred(self):
        return predicted_concepts(self.probs)

    def pooled(self):
        """All heads stacked as one concept (rsbench pools digit positions / objects)."""
        return (
            self.c_true.T.reshape(-1, 1),
            [np.concatenate(self.probs, axis=0)],
        )


def _noisy_heads(rng, c_true, n_values, *, accuracy, sharpness, merge=None, heads=None):
    """Heads right with probability ~accuracy, confidences spread (no value on a bin edge);
    ``merge`` maps values the listed ``heads`` never predict to the value they predict instead."""
    probs = []
    for j in range(c_true.shape[1]):
        target = c_true[:, j].copy()
        wrong = rng.random(len(target)) > accuracy
        target[wrong] = (target[wrong] + rng.integers(1, n_values, wrong.sum())) % n_values
        logits = rng.normal(0, 1, (len(target), n_values))
        logits[np.arange(len(target)), target] += sharpness * rng.random(len(target))
        p = softmax(logits)
        if merge and (heads is None or j in heads):
            for src, dst in merge.items():  # move the mass of src onto dst: src never wins
                p[:, dst] += p[:, src]
                p[:, src] = 0.0
        probs.append(p)
    return probs


def _binary():
    rng = child_rng(0, "rsbench_conformance", "binary")
    c_true = rng.integers(0, 2, (237, 1))
    return PredictionSet("binary", c_true, _noisy_heads(rng, c_true, 2, accuracy=0.8, sharpness=4))


def _digits():
    rng = child_rng(0, "rsbench_conformance", "digits")
    c_true = rng.integers(0, 10, (300, 2))  # two digit positions, 10 values each
    probs = _noisy_heads(rng, c_true, 10, accuracy=0.7, sharpness=6, merge={7: 1})  # no 7s
    return PredictionSet("digits", c_true, probs)


def _four_concept():
    rng = child_rng(0, "rsbench_conformance", "four")
    c_true = rng.integers(0, 2, (250, 4))  # BOIA-like binary concepts
    probs = _noisy_heads(rng, c_true, 2, accuracy=0.85, sharpness=5)
    both = (probs[2].argmax(axis=1) == 1) & (probs[3].argmax(axis=1) == 1)
    probs[3][both] = probs[3][both][:, ::-1]  # states with c2 = c3 = 1 are never predicted
    y_true = np.column_stack([c_true[:, 0] | c_true[:, 1], c_true[:, 2] & c_true[:, 3]])
    pred = predicted_concepts(probs)
    y_pred = np.column_stack([pred[:, 0] | pred[:, 1], pred[:, 2] & pred[:, 3]])
    groups = {"forward": [0, 1], "stop": [2, 3]}
    return PredictionSet("four-concept", c_true, probs, groups, y_true, y_pred)


def _kandinsky():
    rng = child_rng(0, "rsbench_conformance", "kandinsky")
    c_true = rng.integers(0, 3, (180, 6))  # shapes of 3 objects, then colours of 3 objects
    # the colour heads never predict colour 2
    probs = _noisy_heads(rng, c_true, 3, accuracy=0.75, sharpness=5, merge={2: 0}, heads={3, 4, 5})
    return PredictionSet("kandinsky", c_true, probs, {"shape": [0, 1, 2], "colour": [3, 4, 5]})


def _six_of_eight():
    """Gold on 6 of the 8 states of 3 binary concepts; the predictor merges 101 into 100."""
    states = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1]])
    c_true = np.repeat(states, 20, axis=0)
    c_pred = c_true.copy()
    c_pred[(c_true == [1, 0, 1]).all(axis=1)] = [1, 0, 0]
    probs = [np.where(np.eye(2)[c_pred[:, j]] == 1, 0.95, 0.05) for j in range(3)]
    return PredictionSet("six-of-eight", c_true, probs)


SETS = {s.name: s for s in (_binary(), _digits(), _four_concept(), _kandinsky(), _six_of_eight())}


def _conf_pred(s: PredictionSet):
    """Pooled (confidence, prediction, gold) of every (point, head) pair, head-major."""
    conf = np.concatenate([p.max(axis=1) for p in s.probs])
    pred = np.concatenate([p.argmax(axis=1) for p in s.probs])
    return conf, pred, s.c_true.T.reshape(-1)


# ---------------------------------------------------------------- the table

ALL = list(SETS)


def _rows():
    rows = []
    for name in ALL:
        s = SETS[name]
        conf, pred, gold = _conf_pred(s)
        pooled_true, pooled_probs = s.pooled()
        rows += [
            (name, "AccC", concept_accuracy(s.c_true, s.c_pred), rs_accuracy(gold, pred)),
            (
                name,
                "AccC exact match",
                concept_exact_match(s.c_true, s.c_pred),
                rs_exact_match(s.c_true, s.c_pred),
            ),
            (
                name,
                "ECE(C), right-closed bins",
                concept_ece(s.c_true, s.probs, right_closed=True),
                rs_ece(conf, pred, gold),
            ),
            (
                name,
                "macro F1(C), heads pooled",
                concept_macro_f1(pooled_true, predicted_concepts(pooled_probs)),
                rs_macro_f1(gold, pred),
            ),
        ]
        values = pooled_probs[0].shape[1]
        for r in concept_value_ece(pooled_true, pooled_probs, right_closed=True):
            rows.append(
                (
                    name,
                    f"ECE of gold value {r['value']}, heads pooled",
                    r["ece"],
                    rs_ece_by_value(conf, pred, gold, r["value"]),
                )
            )
        assert len([r for r in rows if r[0] == name and "gold value" in r[1]]) == values
        smoothed = [(p + 1e-5) / (1 + p.shape[1] * 1e-5) for p in s.probs]
        rows.append(
            (
                name,
                "mean concept entropy, rsbench's 1e-5 smoothing applied",
                concept_entropy(smoothed),
                rs_mean_entropy(np.concatenate(s.probs), values),
            )
        )
        if s.c_true.shape[1] > 1 and name != "digits":
            # joint states, as rsbench's convert_to_categories reads binary concepts
            if values == 2:
                ours = concept_collapse(s.c_true, s.c_pred, [2] * s.c_true.shape[1])
                theirs = rs_coverage_collapse(rs_categories(s.c_true), rs_categories(s.c_pred))
                if set(map(tuple, s.c_pred)) <= set(map(tuple, s.c_true)):
                    rows.append((name, "Cls(C) count, joint states", ours["cls_c_count"], theirs))
        if name == "digits":
            ours = concept_collapse(pooled_true, predicted_concepts(pooled_probs), [10])
            if set(pred) <= set(gold):
                rows.append(
                    (
                        name,
                        "Cls(C) count, digits pooled",
                        ours["cls_c_count"],
                        rs_coverage_collapse(gold, pred),
                    )
                )
        if s.groups and values == 2:
            ours_groups = group_collapse(s.c_true, s.c_pred, [2] * s.c_true.shape[1], s.groups)
            for g, idx in s.groups.items():
                theirs = rs_coverage_collapse(
                    rs_categories(s.c_true[:, idx]), rs_categories(s.c_pred[:, idx])
                )
                if set(map(tuple, s.c_pred[:, idx])) <= set(map(tuple, s.c_true[:, idx])):
                    rows.append(
                        (name, f"Cls(C) count, group {g}", ours_groups[g]["cls_c_count"], theirs)
                    )
        if s.groups and values > 2:
            # rsbench's Kandinsky groups pool the objects' values of one kind into one column
            for g, idx in s.groups.items():
                true_g, pred_g = s.c_true[:, idx].reshape(-1), s.c_pred[:, idx].reshape(-1)
                ours = concept_collapse(true_g[:, None], pred_g[:, None], [values])
                if set(pred_g) <= set(true_g):
                    rows.append(
                        (
                            name,
                            f"Cls(C) count, group {g}, objects pooled",
                            ours["cls_c_count"],
                            rs_coverage_collapse(true_g, pred_g),
                        )
                    )
        if s.y_true is not None:
            acc = label_accuracies(s.y_true, s.y_pred)
            rows.append(
                (
                    name,
                    "AccY exact match (sklearn accuracy on multilabel)",
                    acc["acc_y_exact"],
                    rs_exact_match(s.y_true, s.y_pred),
                )
            )
            rows.append(
                (
                    name,
                    "AccY per output, columns (rsbench's loop with [:, i])",
                    acc["acc_y"],
                    float(
                        np.mean(
                            [
                                rs_accuracy(s.y_true[:, i], s.y_pred[:, i])
                                for i in range(s.y_true.shape[1])
                            ]
                        )
                    ),
                )
            )
    return rows


CONFORMANCE = _rows()


def test_the_table_covers_five_sets_and_the_panel():
    assert {r[0] for r in CONFORMANCE} == set(SETS) and len(SETS) == 5
    metrics = {r[1].split(",")[0] for r in CONFORMANCE}
    assert {"AccC", "AccC exact match", "ECE(C)", "macro F1(C)", "mean concept entropy"} <= metrics
    collapse = [r for r in CONFORMANCE if r[1].startswith("Cls(C)")]
    assert {r[0] for r in collapse} == {"digits", "four-concept", "kandinsky", "six-of-eight"}
    for name in ("digits", "four-concept", "kandinsky", "six-of-eight"):  # each set collapses
        assert max(r[2] for r in collapse if r[0] == name) > 0, name
    assert len(CONFORMANCE) >= 40


@pytest.mark.parametrize(
    "set_name, metric, ours, theirs", CONFORMANCE, ids=[f"{r[0]}: {r[1]}" for r in CONFORMANCE]
)
def test_nesybench_agrees_with_rsbench_once_aligned(set_name, metric, ours, theirs):
    if theirs is None:
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-12), (set_name, metric)


# ---------------------------------------------------------------- the documented differences


def test_collapse_denominator_gold_states_versus_rsbench_union():
    s = SETS["six-of-eight"]
    ours = concept_collapse(s.c_true, s.c_pred, [2, 2, 2])
    theirs = rs_coverage_collapse(rs_categories(s.c_true), rs_categories(s.c_pred))
    # one of the 6 gold states (101) is never predicted: 1/6 for both (predictions stay in gold)
    assert ours["cls_c_count"] == pytest.approx(1 / 6) and theirs == pytest.approx(1 / 6)
    assert ours["cls_c_count_all"] == pytest.approx(1 - 5 / 8)  # the all-states form: 3/8
    perfect = concept_collapse(s.c_true, s.c_true, [2, 2, 2])
    assert perfect["cls_c_count"] == 0.0 and perfect["cls_c"] == 0.0
    assert rs_coverage_collapse(rs_categories(s.c_true), rs_categories(s.c_true)) == 0.0
    assert perfect["cls_c_count_all"] == 0.25  # what nesybench reported before


@pytest.mark.parametrize("name", ["four-concept", "kandinsky", "digits"])
def test_collapse_counts_the_same_uncovered_gold_states_when_predictions_leave_the_gold(name):
    # Same numerator |G* \ P| (gold states never predicted); rsbench divides by |G* u P|,
    # nesybench by |G*|, so the two differ exactly when some prediction is not a gold state.
    s = SETS[name]
    if name == "digits":
        true, pred = s.pooled()[0][:, 0], s.c_pred.T.reshape(-1)
        ours = concept_collapse(true[:, None], pred[:, None], [10])
        t_states, p_states = set(true.tolist()), set(pred.tolist())
        theirs = rs_coverage_collapse(true, pred)
    else:
        v = s.probs[0].shape[1]
        ours = concept_collapse(s.c_true, s.c_pred, [v] * s.c_true.shape[1])
        t_states, p_states = set(map(tuple, s.c_true)), set(map(tuple, s.c_pred))
        codes = lambda rows: np.array([int("".join(map(str, r)), v) for r in rows])  # noqa: E731
        theirs = rs_coverage_collapse(codes(s.c_true), codes(s.c_pred))
    uncovered = len(t_states - p_states)
    assert ours["cls_c_count"] * len(t_states) == pytest.approx(uncovered)
    assert theirs * len(t_states | p_states) == pytest.approx(uncovered)


def test_rsbench_multilabel_branch_scores_rows_not_columns():
    s = SETS["four-concept"]
    k = s.c_true.shape[1]
    rows_version = rs_multilabel_rows(s.c_true, s.c_pred, k)
    columns = float(np.mean([rs_accuracy(s.c_true[:, j], s.c_pred[:, j]) for j in range(k)]))
    assert concept_accuracy(s.c_true, s.c_pred) == pytest.approx(columns, abs=1e-12)
    # rows 0..k-1 are the first k points: their per-point accuracy over the 4 concepts
    first_points = np.mean(s.c_true[:k] == s.c_pred[:k], axis=1).mean()
    assert rows_version == pytest.approx(first_points, abs=1e-12)
    assert rows_version != pytest.approx(columns, abs=1e-3)


def test_rsbench_pools_digit_positions_into_one_f1():
    s = SETS["digits"]
    pooled = rs_macro_f1(s.c_true.T.reshape(-1), s.c_pred.T.reshape(-1))
    ours = concept_macro_f1(s.c_true, s.c_pred)  # per position, then the mean
    per_position = np.mean([rs_macro_f1(s.c_true[:, j], s.c_pred[:, j]) for j in range(2)])
    assert ours == pytest.approx(per_position, abs=1e-12)
    assert ours != pytest.approx(pooled, abs=1e-4)


def test_rsbench_averages_accuracy_over_batches():
    s = SETS["digits"]  # 300 points: batches of 64 leave a last batch of 44
    ours = concept_accuracy(s.c_true, s.c_pred)
    assert rs_batch_accuracy(s.c_true, s.c_pred, 60) == pytest.approx(ours, abs=1e-12)
    assert rs_batch_accuracy(s.c_true, s.c_pred, 64) != pytest.approx(ours, abs=1e-6)


def test_ece_bin_edges_left_closed_by_default_right_closed_as_rsbench():
    # Confidences exactly on edges: nesybench's default puts 0.7 in [0.7, 0.8), rsbench in
    # (0.6, 0.7]; --bins-right-closed follows rsbench.
    conf = np.array([0.7, 0.7, 0.75, 0.65])
    pred = np.array([1, 1, 1, 1])
    gold = np.array([1, 0, 0, 1])
    probs = [np.column_stack([1 - conf, conf])]
    c_true = gold[:, None]
    assert concept_ece(c_true, probs, right_closed=True) == pytest.approx(
        rs_ece(conf, pred, gold), abs=1e-12
    )
    assert concept_ece(c_true, probs) != pytest.approx(rs_ece(conf, pred, gold), abs=1e-6)


def test_ece_rsbench_bins_by_a_rounded_product_next_to_an_edge():
    # rsbench's bin is ceil(B * conf - 1): the product is rounded before the ceiling, so the
    # float just above 1/3 lands in bin 0 of 3; nesybench compares with the edges b/B: bin 1.
    just_above = float(np.nextafter(1 / 3, 1))
    assert just_above > 1 / 3 and 3 * just_above == 1.0
    assert max(0, math.ceil(3 * just_above - 1)) == 0
    conf = np.array([just_above, 0.9])
    pred, gold = np.array([1, 1]), np.array([0, 1])
    probs = [np.column_stack([1 - conf, conf])]
    ours = concept_ece(gold[:, None], probs, n_bins=3, right_closed=True)
    assert ours == pytest.approx((just_above + 0.1) / 2, abs=1e-15)  # two bins of one row
    assert rs_ece(conf, pred, gold, 3) == pytest.approx(ours, abs=1e-15)  # still one row each
    two_close = np.array([just_above, 0.3])  # rsbench: both in bin 0; nesybench: bins 1 and 0
    probs = [np.column_stack([1 - two_close, two_close])]
    gold2 = np.array([1, 0])
    ours = concept_ece(gold2[:, None], probs, n_bins=3, right_closed=True)
    theirs = rs_ece(two_close, np.array([1, 1]), gold2, 3)
    assert ours == pytest.approx(((1 - just_above) + 0.3) / 2, abs=1e-15)
    assert theirs == pytest.approx(abs(0.5 - (just_above + 0.3) / 2), abs=1e-15)


def test_mean_entropy_smoothing_is_the_only_difference():
    s = SETS["binary"]
    ours = concept_entropy(s.probs)
    theirs = rs_mean_entropy(np.concatenate(s.probs), 2)
    assert ours != theirs and abs(ours - theirs) < 1e-3
    one_hot = [np.eye(2)[[0, 1, 1]]]
    assert concept_entropy(one_hot) == 0.0
    assert rs_mean_entropy(one_hot[0], 2) > 0  # smoothing charges a certain head


def test_per_value_ece_per_head_versus_pooled():
    s = SETS["digits"]
    ours = concept_value_ece(s.c_true, s.probs, right_closed=True)  # per (position, digit)
    assert len(ours) == 20 and {r["concept"] for r in ours} == {0, 1}
    conf, pred, gold = _conf_pred(s)
    pooled = {r["value"]: r["ece"] for r in concept_value_ece(*s.pooled(), right_closed=True)}
    for u in range(10):
        assert pooled[u] == pytest.approx(rs_ece_by_value(conf, pred, gold, u), abs=1e-12)
