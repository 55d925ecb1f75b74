"""The generator: shape, seeding, support knob, and every asserted promise."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nesybench.counting import label_class_sizes
from nesybench.errors import ClaimFailed, InputError
from nesybench.shortcuts.tasks import (
    certify_task,
    child_rng,
    make_knowledge,
    make_task,
    random_3cnf,
    support_states,
)

SPEC_CNF = "(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)"


def demo_task(**overrides):
    args = dict(
        name="xor2",
        n_train_per_state=20,
        n_test_per_state=50,
        n_distractors=2,
        support_frac=1.0,
        noise=0.25,
        seed=0,
    )
    args.update(overrides)
    return make_task(make_knowledge("xor", 2), **args)


def test_make_task_demo_shapes_match_spec():
    # Spec: train 80 points, test 200, 4 input dims, 4 states seen; ood empty at full support.
    task = demo_task()
    assert task.splits["train"].X.shape == (80, 4)
    assert task.splits["test"].X.shape == (200, 4)
    assert len(task.splits["ood"]) == 0 and task.splits["ood"].X.shape == (0, 4)
    assert task.splits["train"].states() == ["00", "01", "10", "11"]
    counts = np.unique(task.splits["train"].G, axis=0, return_counts=True)[1]
    assert counts.tolist() == [20, 20, 20, 20]  # balanced per state


def test_certify_task_demo_numbers_within_spec_thresholds():
    cert = certify_task(demo_task())
    assert len(cert["corr_concept"]) == 2 and min(cert["corr_concept"]) >= 0.9
    assert len(cert["abs_corr_distractor"]) == 2 and max(cert["abs_corr_distractor"]) <= 0.3
    assert cert["ood_states"] == []


def test_make_task_is_pure_and_seeded():
    a, b = demo_task(), demo_task()
    for split in ("train", "test", "ood"):
        assert np.array_equal(a.splits[split].X, b.splits[split].X)
        assert np.array_equal(a.splits[split].G, b.splits[split].G)
    c = demo_task(seed=1)
    assert not np.array_equal(a.splits["train"].X, c.splits["train"].X)


def test_labels_come_from_knowledge_not_input():
    task = make_task(
        make_knowledge(SPEC_CNF, 3),
        name="cnf3",
        n_train_per_state=5,
        n_test_per_state=5,
        support_frac=0.75,
    )
    for split in task.splits.values():
        assert np.array_equal(split.Y, task.knowledge.labels(split.G))


@pytest.mark.parametrize("frac, n_keep", [(1.0, 8), (0.75, 6), (0.5, 4), (0.01, 1)])
def test_support_knob_sizes_and_ood_complement(frac, n_keep):
    task = make_task(
        make_knowledge("xor", 3),
        name="xor3",
        n_train_per_state=20,
        n_test_per_state=50,
        support_frac=frac,
    )
    assert len(task.support) == n_keep
    cert = certify_task(task)
    assert cert["splits"]["train"]["states"] == sorted(task.support)
    assert sorted(cert["ood_states"] + cert["support"]) == [format(i, "03b") for i in range(8)]
    assert len(task.splits["ood"]) == 50 * (8 - n_keep)


def test_supports_are_nested_across_fractions():
    big, mid, small = (set(support_states(3, f, seed=0)) for f in (1.0, 0.75, 0.5))
    assert small < mid < big


def test_support_bias_half_splits_observed_and_ood():
    task = demo_task(support_frac=0.5)
    cert = certify_task(task)
    assert len(cert["splits"]["train"]["states"]) == 2
    assert set(cert["splits"]["train"]["states"]).isdisjoint(cert["splits"]["ood"]["states"])
    assert len(cert["splits"]["ood"]["states"]) == 2


def test_certify_task_rejects_label_not_from_knowledge():
    task = demo_task()
    train = task.splits["train"]
    flipped = train.Y.copy()
    flipped[0] = 1 - flipped[0]
    task.splits["train"] = dataclasses.replace(train, Y=flipped)
    with pytest.raises(ClaimFailed, match="y != K"):
        certify_task(task)


def test_certify_task_rejects_leaky_distractor():
    task = demo_task()
    for split in task.splits.values():
        split.X[:, 2] = split.Y + 0.01 * np.arange(len(split.Y))  # distractor copies the label
    with pytest.raises(ClaimFailed, match="distractor 1"):
        certify_task(task)


def test_certify_task_rejects_unlearnable_concept():
    task = demo_task(noise=5.0)
    with pytest.raises(ClaimFailed, match="corr\\(x_j, g_j\\)"):
        certify_task(task)


def test_certify_task_rejects_wrong_support():
    task = demo_task(support_frac=0.75)
    task.support = ("00", "01", "11") if "11" not in task.support else ("00", "01", "10")
    with pytest.raises(ClaimFailed, match="support"):
        certify_task(task)


def test_random_3cnf_has_both_labels_and_is_seeded():
    a = random_3cnf(6, 20, child_rng(0, "knowledge", "r"))
    b = random_3cnf(6, 20, child_rng(0, "knowledge", "r"))
    assert a == b and a.cnf is not None and len(a.cnf.clauses) == 20
    assert all(len(set(map(abs, c))) == 3 for c in a.cnf.clauses)
    n0, n1 = label_class_sizes(a)
    assert n0 > 0 and n1 > 0


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        (dict(support_frac=0.0), "support_frac must be in (0, 1], got 0.0"),
        (dict(support_frac=1.5), "support_frac must be in (0, 1], got 1.5"),
        (dict(n_train_per_state=0), "n_train_per_state must be an integer >= 1"),
        (dict(n_distractors=-1), "n_distractors must be an integer >= 0"),
        (dict(noise=-0.1), "noise must be a number >= 0"),
    ],
)
def test_make_task_bad_arguments(overrides, fragment):
    with pytest.raises(InputError) as info:
        demo_task(**overrides)
    assert fragment in str(info.value)


def test_make_task_needs_both_labels():
    with pytest.raises(InputError, match="needs both labels"):
        make_task(
            make_knowledge("(x1 | ~x1)", 1), name="taut", n_train_per_state=1, n_test_per_state=1
        )
