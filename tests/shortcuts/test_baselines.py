"""The label MLP baseline: pixels -> y with no digit layer; seeded, shaped like the task, and it
only ever predicts labels seen in training (why it fails on the ood split of a biased support)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from nesybench.seeds import child_seed
from nesybench.shortcuts.digits.baselines import LabelMLP, predict_label_mlp, train_label_mlp
from nesybench.shortcuts.digits.nesy import NesyConfig
from nesybench.shortcuts.digits.tasks import N_PIXELS, make_digit_task

TINY = NesyConfig(hidden=16, epochs=10, batch_size=32)


@pytest.fixture(scope="module")
def task():
    # MNAdd-EvenOdd: the training support has only the labels 6, 10 and 12
    return make_digit_task(
        support="evenodd", n_tuples={"train": 128, "val": 0, "test": 32, "ood": 64}, seed=0
    )


@pytest.fixture(scope="module")
def model(task):
    return train_label_mlp(task, seed=3, config=TINY)


def test_train_label_mlp_records_the_task_and_the_config(task, model):
    assert isinstance(model, LabelMLP)
    assert model.knowledge == "sum" and model.n_positions == 2
    est = model.estimator
    # one hidden layer of config.hidden units on the concatenated k * 64 pixels
    assert [w.shape for w in est.coefs_] == [(2 * N_PIXELS, 16), (16, 3)]
    assert est.activation == "tanh" and est.learning_rate_init == TINY.lr
    assert est.batch_size == TINY.batch_size
    assert est.n_iter_ == TINY.epochs  # no early stopping: exactly config.epochs epochs
    expected_state = int(child_seed(3, "digits", "baseline").generate_state(1)[0])
    assert est.random_state == expected_state


def test_predict_label_mlp_shape_dtype_and_labels_seen_in_training(task, model):
    for split in ("train", "test", "ood"):
        data = task.splits[split]
        pred = predict_label_mlp(model, data.pixels(task.images))
        assert pred.shape == (len(data),) and pred.dtype == np.int64
        assert set(pred.tolist()) <= {6, 10, 12}


def test_predict_label_mlp_cannot_reach_the_ood_labels(task, model):
    ood = task.splits["ood"]
    pred = predict_label_mlp(model, ood.pixels(task.images))
    unseen = ~np.isin(ood.y, [6, 10, 12])
    assert unseen.sum() > 0
    assert not (pred[unseen] == ood.y[unseen]).any()  # every unseen label is missed


def test_predict_label_mlp_on_no_rows_is_an_empty_int_array(model):
    pred = predict_label_mlp(model, np.zeros((0, 2, N_PIXELS)))
    assert pred.shape == (0,) and pred.dtype == np.int64


def test_train_label_mlp_beats_the_majority_label_on_the_training_tuples(task, model):
    train = task.splits["train"]
    pred = predict_label_mlp(model, train.pixels(task.images))
    majority = np.bincount(train.y).max() / len(train)  # 0.5: label 10 has 8 of 16 tuples
    assert majority == pytest.approx(0.5, abs=0.05)
    assert (pred == train.y).mean() > majority + 0.2


def test_train_label_mlp_is_deterministic_for_a_seed_and_seeded(task, model):
    again = train_label_mlp(task, seed=3, config=TINY)
    assert pickle.dumps(again.estimator) == pickle.dumps(model.estimator)  # same bytes
    other = train_label_mlp(task, seed=4, config=TINY)
    assert not np.array_equal(other.estimator.coefs_[0], model.estimator.coefs_[0])


def test_predict_label_mlp_flattens_position_after_position(task, model):
    train = task.splits["train"]
    pixels = train.pixels(task.images)  # (n, 2, 64)
    flat = np.concatenate([pixels[:, 0, :], pixels[:, 1, :]], axis=1)  # position 0, then 1
    expected = model.estimator.predict(flat)
    assert np.array_equal(predict_label_mlp(model, pixels), expected)
    # any float dtype is read as float64 (the pixels are multiples of 1/16: exact in float32)
    assert np.array_equal(predict_label_mlp(model, pixels.astype(np.float32)), expected)
