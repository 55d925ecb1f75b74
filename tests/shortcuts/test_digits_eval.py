"""Scoring digit models: constructed predictions with known maps give the panel's exact numbers;
the sweep cell and the claims summary."""

import math

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.shortcuts.concept_table import unpack_concept_table
from nesybench.shortcuts.digits.evaluation import (
    Predictions,
    SplitPredictions,
    concept_frame,
    counter_is_optimum,
    digit_confusion,
    digit_map,
    directional_claims,
    evaluate,
    map_string,
    sweep_cell,
    train_and_predict,
)
from nesybench.shortcuts.digits.mitigations import parse_mitigation
from nesybench.shortcuts.digits.nesy import NesyConfig, Variant
from nesybench.shortcuts.digits.tasks import SPLITS, knowledge_labels, make_digit_task

TINY = NesyConfig(hidden=8, epochs=2, batch_size=32)
# A label-perfect shortcut of the MNAdd-EvenOdd support for the shared family (a map a
# label-only run lands on): even digits shift, odd digits collapse onto {2, 4, 6}.
SHORTCUT = {0: 2, 1: 4, 2: 4, 3: 6, 4: 6, 5: 2, 6: 4, 7: 4, 8: 6, 9: 6}
IDENTITY = {d: d for d in range(10)}


@pytest.fixture(scope="module")
def task():
    return make_digit_task(
        support="evenodd", n_tuples={"train": 64, "val": 32, "test": 160, "ood": 420}, seed=0
    )


def _constructed(task, mapping, *, confidence=0.9, model="nesy"):
    """Predictions whose heads put ``confidence`` on mapping[gold digit] (the rest spread evenly)
    and whose label is K(mapping(gold))."""
    f = np.array([mapping[d] for d in range(10)])
    splits = {}
    for name in SPLITS:
        data = task.splits[name]
        guess = f[data.digits]
        y_pred = knowledge_labels(task.knowledge, guess)
        if model == "neural":
            splits[name] = SplitPredictions(data.digits, data.y, y_pred)
            continue
        probs = np.full((*data.digits.shape, 10), (1.0 - confidence) / 9)
        np.put_along_axis(probs, guess[..., None], confidence, axis=-1)
        splits[name] = SplitPredictions(data.digits, data.y, y_pred, np.log(probs), probs)
    return Predictions(
        model=model,
        mitigation="label_only" if model == "nesy" else "neural",
        seed=0,
        knowledge=task.knowledge,
        n_digits=10,
        support_name=task.support_name,
        support=task.support,
        splits=splits,
    )


def test_evaluate_shortcut_map_gives_the_exact_panel(task):
    pred = _constructed(task, SHORTCUT, confidence=0.9)
    row = evaluate(pred)
    # On the support the map keeps every sum: AccY = 1 in distribution.
    assert row["acc_y"] == 1.0 and row["acc_y_val"] == 1.0 and row["acc_y_train"] == 1.0
    ood = task.splits["ood"]
    f = np.array([SHORTCUT[d] for d in range(10)])
    expected_ood = np.mean(f[ood.digits].sum(axis=1) == ood.digits.sum(axis=1))
    assert row["acc_y_ood"] == pytest.approx(expected_ood) and row["acc_y_ood"] < 0.2
    # No digit is fixed by the map: every concept prediction is wrong, each at confidence 0.9.
    assert row["acc_c"] == 0.0 and row["acc_c_ood"] == 0.0 and row["f1_c"] == 0.0
    assert row["ece_c"] == pytest.approx(0.9)
    # Predicted digits use only {2, 4, 6}: the digit collapse is 1 - H(usage) / H(gold usage),
    # measured against the digits the gold labels occupy.
    test = task.splits["test"]
    used = np.bincount(f[test.digits].ravel(), minlength=10) / test.digits.size
    gold = np.bincount(test.digits.ravel(), minlength=10) / test.digits.size
    nz, gz = used[used > 0], gold[gold > 0]
    assert len(nz) == 3
    expected = 1 - (nz * np.log(nz)).sum() / (gz * np.log(gz)).sum()
    assert row["cls_c_digits"] == pytest.approx(expected)
    assert row["digit_map"] == map_string(SHORTCUT)
    assert row["map_identity"] is False and row["map_injective"] is False
    assert row["label_perfect"] is True and row["shortcut"] is True
    assert row["map_is_optimum"] is None


def test_evaluate_identity_map(task):
    row = evaluate(_constructed(task, IDENTITY, confidence=0.8))
    assert row["acc_y"] == 1.0 and row["acc_y_ood"] == 1.0
    assert row["acc_c"] == 1.0 and row["f1_c"] == 1.0 and row["acc_c_ood"] == 1.0
    assert row["ece_c"] == pytest.approx(0.2)
    assert row["map_identity"] is True and row["map_injective"] is True
    assert row["shortcut"] is False and row["digit_map"] == map_string(IDENTITY)


def test_evaluate_label_perfect_needs_min_acc_y(task):
    pred = _constructed(task, SHORTCUT)
    test = pred.splits["test"]
    wrong = test.y_pred.copy()
    wrong[: len(wrong) // 4] += 1  # a quarter of the test labels wrong: AccY 0.75
    splits = {
        **pred.splits,
        "test": SplitPredictions(test.digits, test.y, wrong, test.digit_logits, test.digit_probs),
    }
    pred = Predictions(**{**pred.__dict__, "splits": splits})
    assert evaluate(pred, min_acc_y=0.9)["shortcut"] is False
    assert evaluate(pred, min_acc_y=0.7)["shortcut"] is True


def test_evaluate_asks_the_membership_test_and_keeps_its_answer(task):
    calls = []

    def membership(mapping, *, support, knowledge, n_digits):
        calls.append((dict(mapping), list(support), knowledge, n_digits))
        return mapping == SHORTCUT

    assert evaluate(_constructed(task, SHORTCUT), is_optimum=membership)["map_is_optimum"] is True
    assert evaluate(_constructed(task, IDENTITY), is_optimum=membership)["map_is_optimum"] is False
    assert calls[0] == (SHORTCUT, list(task.support), "sum", 10)
    assert len(calls) == 2


def test_the_counter_decides_digit_map_membership_and_counts(task):
    """The digit maps are checked by the counter (shared family), never re-implemented."""
    from nesybench.counting import CountingTask, count_shared
    from nesybench.logic import make_knowledge
    from nesybench.shortcuts.digits.evaluation import counter_count
    from nesybench.shortcuts.digits.tasks import resolve_support, tuple_string

    evenodd = resolve_support("evenodd", n_digits=10, n_positions=2)
    assert counter_is_optimum(IDENTITY, support=evenodd, knowledge="sum", n_digits=10)
    # an even digit read as another even digit breaks 0 + 6 = 6
    swap = {**IDENTITY, 0: 2, 2: 0}
    assert not counter_is_optimum(swap, support=evenodd, knowledge="sum", n_digits=10)
    counted = counter_count(evenodd, knowledge="sum", n_digits=10, n_positions=2)
    direct = count_shared(
        CountingTask(make_knowledge("sum", (10, 10)), tuple(tuple_string(s) for s in evenodd))
    )
    assert counted["n_opt"] == direct.n_opt == 36  # 6 maps of the even digits x 6 of the odd
    full = resolve_support("full", n_digits=10, n_positions=2)
    assert counter_count(full, knowledge="sum", n_digits=10, n_positions=2)["n_opt"] == 1
    # the shortcut map of this module's constructed task is an optimum of its support
    assert counter_is_optimum(SHORTCUT, support=task.support, knowledge="sum", n_digits=10)


def test_evaluate_neural_baseline_has_no_concepts(task):
    row = evaluate(_constructed(task, IDENTITY, model="neural"))
    assert row["acc_y"] == 1.0
    assert math.isnan(row["acc_c"]) and math.isnan(row["ece_c"])
    assert row["digit_map"] is None and row["shortcut"] is None
    with pytest.raises(InputError, match="no digit predictions"):
        digit_map(_constructed(task, IDENTITY, model="neural"))


def test_evaluate_full_support_has_nan_ood_accuracy():
    full = make_digit_task(support="full", n_tuples={"train": 16, "test": 200}, seed=0)
    row = evaluate(_constructed(full, IDENTITY))
    assert math.isnan(row["acc_y_ood"]) and math.isnan(row["acc_c_ood"])
    assert row["acc_c"] == 1.0


def test_evaluate_rejects_bad_min_acc_y(task):
    with pytest.raises(InputError, match=r"min_acc_y must be a number in \[0, 1\], got 1.5"):
        evaluate(_constructed(task, IDENTITY), min_acc_y=1.5)


def test_digit_confusion_counts_every_test_and_ood_image(task):
    conf = digit_confusion(_constructed(task, SHORTCUT))
    gold = np.concatenate([task.splits[s].digits.ravel() for s in ("test", "ood")])
    assert conf.shape == (10, 10) and conf.sum() == gold.size
    assert conf.sum(axis=1).tolist() == np.bincount(gold, minlength=10).tolist()
    for d in range(10):
        assert conf[d, SHORTCUT[d]] == conf[d].sum()  # every image of d is read as SHORTCUT[d]
    identity = digit_confusion(_constructed(task, IDENTITY))
    assert np.array_equal(np.diag(identity), np.bincount(gold, minlength=10))


def test_digit_map_reads_the_majority_prediction_per_digit(task):
    pred = _constructed(task, IDENTITY)
    test = pred.splits["test"]
    probs = test.digit_probs.copy()
    # Read a third of the 0s in position 0 as 9: the majority still says 0 -> 0.
    zeros = np.flatnonzero(test.digits[:, 0] == 0)
    probs[zeros[: len(zeros) // 3], 0] = probs[zeros[: len(zeros) // 3], 0, ::-1]
    splits = {
        **pred.splits,
        "test": SplitPredictions(test.digits, test.y, test.y_pred, None, probs),
    }
    mapping = digit_map(Predictions(**{**pred.__dict__, "splits": splits}), splits=("test",))
    assert mapping == {d: d for d in sorted(set(test.digits.ravel().tolist()))}


def test_parse_mitigation_round_trips_variant_names():
    variants = (
        Variant(),
        Variant(concept_sup=0.01),
        Variant(entropy_weight=2.0),
        Variant(multitask="product"),
        Variant(concept_sup=0.1, entropy_weight=1.0),
    )
    for variant in variants:
        assert parse_mitigation(variant.name) == variant
    assert parse_mitigation("none") == Variant()
    assert parse_mitigation("neural") == "neural"


@pytest.mark.parametrize(
    "text, match",
    [
        ("bogus", "mitigation must be label_only, neural"),
        ("concept_sup=abc", "got 'concept_sup=abc'"),
        ("concept_sup", "got 'concept_sup'"),
        ("multitask=xor", "got 'multitask=xor'"),
        ("", "mitigation must be a non-empty name"),
        ("concept_sup=1.5", r"concept_sup must be a fraction in \[0, 1\], got 1.5"),
        ("entropy=-1", "entropy_weight must be a finite number >= 0, got -1.0"),
    ],
)
def test_parse_mitigation_rejects_bad_names(text, match):
    with pytest.raises(InputError, match=match):
        parse_mitigation(text)


@pytest.mark.parametrize("mitigation", ["label_only", "concept_sup=0.1", "neural"])
def test_sweep_cell_is_one_deterministic_row(task, mitigation):
    a = sweep_cell(task, mitigation, seed=3, config=TINY)
    b = sweep_cell(task, mitigation, seed=3, config=TINY)
    assert a.keys() == b.keys()
    for key in a:
        nan = isinstance(a[key], float) and math.isnan(a[key]) and math.isnan(b[key])
        assert a[key] == b[key] or nan, key
    assert a["support"] == "evenodd" and a["n_support"] == 16 and a["seed"] == 3
    assert a["mitigation"] == mitigation
    assert a["model"] == ("neural" if mitigation == "neural" else "nesy")
    assert 0.0 <= a["acc_y"] <= 1.0


def test_train_and_predict_returns_every_split(task):
    pred = train_and_predict(task, Variant(concept_sup=0.1), seed=0, config=TINY)
    assert pred.mitigation == "concept_sup=0.1" and pred.model == "nesy"
    for name in SPLITS:
        split = pred.splits[name]
        n = len(task.splits[name])
        assert split.digit_probs.shape == (n, 2, 10) and split.digit_logits.shape == (n, 2, 10)
        assert np.allclose(split.digit_probs.sum(axis=-1), 1.0)
        assert np.array_equal(split.digits, task.splits[name].digits)
        assert split.y_pred.shape == (n,)


@pytest.mark.parametrize("mitigation", ["label_only", "neural"])
def test_train_and_predict_full_support_has_an_empty_ood_split(mitigation):
    full = make_digit_task(support="full", n_tuples={"train": 64, "test": 32}, seed=0)
    pred = train_and_predict(full, mitigation, seed=0, config=TINY)
    assert len(pred.splits["ood"]) == 0 and pred.splits["ood"].y_pred.shape == (0,)
    if mitigation != "neural":
        assert pred.splits["ood"].digit_probs.shape == (0, 2, 10)
    assert math.isnan(evaluate(pred)["acc_y_ood"])


def test_neural_baseline_predicts_only_training_labels(task):
    config = NesyConfig(hidden=8, epochs=3)
    pred = train_and_predict(task, "neural", seed=0, config=config)
    assert pred.splits["test"].digit_probs is None
    assert set(pred.splits["ood"].y_pred.tolist()) <= {6, 10, 12}
    again = train_and_predict(task, "neural", seed=0, config=config)
    assert np.array_equal(pred.splits["ood"].y_pred, again.splits["ood"].y_pred)


def _row(seed, acc_y, acc_y_ood, shortcut):
    return {"seed": seed, "acc_y": acc_y, "acc_y_ood": acc_y_ood, "shortcut": shortcut}


def test_directional_claims_counts_paired_seeds():
    label_only = [
        _row(0, 0.95, 0.1, True),
        _row(1, 0.70, 0.05, False),
        _row(2, 0.93, 0.1, True),
        _row(3, 0.92, 0.9, False),
    ]
    supervised = [
        _row(0, 0.92, 0.9, False),
        _row(1, 0.91, 0.9, False),
        _row(2, 0.90, 0.8, False),
        _row(3, 0.91, 0.92, False),
    ]
    claims = directional_claims(label_only, supervised, id_tolerance=0.05, ood_margin=0.2)
    assert claims["incidence_label_only"]["hits"] == 2 and claims["incidence_label_only"]["n"] == 4
    assert claims["incidence_supervised"]["rate"] == 0.0
    assert claims["supervision_lowers_incidence"] is True
    assert claims["acc_y_indistinguishable"]["hits"] == 3  # seed 1 differs by 0.21
    assert claims["ood_separates"]["hits"] == 3  # seed 3's label-only model is right ood
    assert claims["ood_separates"]["lo"] < 0.75 < claims["ood_separates"]["hi"]


def test_directional_claims_rejects_unpaired_rows():
    with pytest.raises(InputError, match="same non-zero number of rows"):
        directional_claims([_row(0, 1, 1, False)], [])
    with pytest.raises(InputError, match="not paired"):
        directional_claims([_row(0, 1, 1, False)], [_row(1, 1, 1, False)])


def test_concept_frame_round_trips_through_the_panel_reader(task):
    pred = _constructed(task, SHORTCUT, confidence=0.7)
    df = concept_frame(pred, "ood")
    n = len(task.splits["ood"])
    assert len(df) == 2 * n and list(df.columns) == ["point", "concept", "gold", "probs", "logits"]
    points, c_true, probs = unpack_concept_table(df, source="frame")
    assert np.array_equal(points, np.arange(n)) and np.array_equal(
        c_true, task.splits["ood"].digits
    )
    assert np.allclose(probs[1], pred.splits["ood"].digit_probs[:, 1, :])
    with pytest.raises(InputError, match="split must be one of"):
        concept_frame(pred, "dev")
    with pytest.raises(InputError, match="no digit predictions"):
        concept_frame(_constructed(task, IDENTITY, model="neural"))
