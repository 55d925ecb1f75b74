"""The digit-tuple generator: stratified disjoint image splits, supports, y = K(gold), the
certificate and the sample grid."""

import itertools

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.report.figures import to_svg
from nesybench.shortcuts.digits.tasks import (
    MNADD_EVENODD,
    MNADD_HALF,
    SPLITS,
    all_tuples,
    certificate,
    knowledge_labels,
    load_digit_images,
    make_digit_task,
    resolve_support,
    sample_grid,
    split_images,
)


def _tuples(split):
    return {tuple(int(v) for v in row) for row in split.digits}


def test_load_digit_images_is_the_bundled_set_scaled_to_unit_range():
    images, digits = load_digit_images()
    assert images.shape == (1797, 64) and digits.shape == (1797,)
    assert images.min() == 0.0 and images.max() == 1.0
    assert np.bincount(digits).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert not images.flags.writeable


def test_split_images_is_stratified_disjoint_and_covering():
    _, digits = load_digit_images()
    pools = split_images(digits, fracs=(0.5, 0.2, 0.3), seed=3)
    every = np.concatenate([pools[s] for s in ("train", "val", "test")])
    assert len(every) == len(np.unique(every)) == len(digits)
    for d in range(10):
        n_c = int((digits == d).sum())
        train = int((digits[pools["train"]] == d).sum())
        val = int((digits[pools["val"]] == d).sum())
        assert train == round(0.5 * n_c) and val == round(0.7 * n_c) - round(0.5 * n_c)


def test_split_images_depends_on_the_seed_only():
    _, digits = load_digit_images()
    a, b = split_images(digits, seed=1), split_images(digits, seed=1)
    c = split_images(digits, seed=2)
    assert all(np.array_equal(a[s], b[s]) for s in a)
    assert not np.array_equal(a["train"], c["train"])


@pytest.mark.parametrize("fracs", [(0.5, 0.5), (0.5, 0.3, 0.3), (0.0, 0.5, 0.5), (1.2, -0.1, -0.1)])
def test_split_images_rejects_bad_fractions(fracs):
    with pytest.raises(InputError, match="image_fracs"):
        split_images([0, 1, 2], fracs=fracs, seed=0)


def test_resolve_support_named_supports():
    assert len(resolve_support("full", n_digits=10, n_positions=2)) == 100
    parity = resolve_support("same_parity", n_digits=10, n_positions=2)
    assert len(parity) == 50 and all(a % 2 == b % 2 for a, b in parity)
    evenodd = resolve_support("evenodd", n_digits=10, n_positions=2)
    assert evenodd == MNADD_EVENODD and len(evenodd) == 16
    # rsbench's MNAdd-EvenOdd: same-parity pairs only, both orders, sums 6, 10, 12, all digits.
    assert all(a % 2 == b % 2 and (b, a) in evenodd for a, b in evenodd)
    assert {a + b for a, b in evenodd} == {6, 10, 12}
    assert {a for pair in evenodd for a in pair} == set(range(10))
    unordered = {tuple(sorted(p)) for p in evenodd}
    assert unordered == {(0, 6), (2, 8), (4, 6), (4, 8), (1, 5), (3, 7), (1, 9), (3, 9)}
    half = resolve_support("half", n_digits=5, n_positions=2)
    assert half == MNADD_HALF
    assert {tuple(sorted(p)) for p in half} == {(0, 0), (0, 1), (2, 3), (2, 4)} and len(half) == 7


def test_resolve_support_explicit_list_is_sorted():
    assert resolve_support([[3, 1], (0, 2)], n_digits=4, n_positions=2) == ((0, 2), (3, 1))


@pytest.mark.parametrize(
    "support, n_digits, match",
    [
        ("bogus", 10, "must be one of"),
        ("evenodd", 5, "defined for 2 positions of digits 0-9"),
        ("half", 10, "defined for 2 positions of digits 0-4"),
        ([], 10, "empty list"),
        ([(1, 2, 3)], 10, "2 digits in 0..9"),
        ([(1, 10)], 10, "2 digits in 0..9"),
        ([(1, -1)], 10, "2 digits in 0..9"),
        ([(1, 2), (1, 2)], 10, r"\(1, 2\) is listed more than once"),
    ],
)
def test_resolve_support_rejects_bad_supports(support, n_digits, match):
    with pytest.raises(InputError, match=match):
        resolve_support(support, n_digits=n_digits, n_positions=2)


def test_knowledge_labels_sum_and_product():
    digits = np.array(all_tuples(10, 2))
    assert np.array_equal(knowledge_labels("sum", digits), digits[:, 0] + digits[:, 1])
    assert np.array_equal(knowledge_labels("product", digits), digits[:, 0] * digits[:, 1])
    with pytest.raises(InputError, match="knowledge must be one of sum, product, got 'xor'"):
        knowledge_labels("xor", digits)


@pytest.mark.parametrize("knowledge", ["sum", "product"])
@pytest.mark.parametrize("support", ["full", "same_parity", "evenodd"])
def test_make_digit_task_y_is_k_of_gold_and_images_match_gold(knowledge, support):
    task = make_digit_task(knowledge=knowledge, support=support, seed=1)
    _, image_digits = load_digit_images()
    for split in SPLITS:
        data = task.splits[split]
        assert np.array_equal(data.y, knowledge_labels(knowledge, data.digits))
        assert np.array_equal(image_digits[data.image_index], data.digits)


def test_make_digit_task_images_never_cross_splits():
    task = make_digit_task(support="evenodd", seed=2)
    pools = task.image_pools
    assert not set(pools["train"]) & set(pools["val"])
    assert not set(pools["train"]) & set(pools["test"])
    assert not set(pools["val"]) & set(pools["test"])
    for split, pool in (("train", "train"), ("val", "val"), ("test", "test"), ("ood", "test")):
        assert set(task.splits[split].image_index.ravel()) <= set(pools[pool])


def test_make_digit_task_ood_holds_exactly_the_unobserved_tuples():
    task = make_digit_task(
        support="evenodd", n_tuples={"train": 160, "val": 32, "test": 48, "ood": 840}, seed=0
    )
    observed = set(MNADD_EVENODD)
    unobserved = set(all_tuples(10, 2)) - observed
    assert set(task.unobserved) == unobserved and len(unobserved) == 84
    assert _tuples(task.splits["ood"]) == unobserved
    for split in ("train", "val", "test"):
        assert _tuples(task.splits[split]) == observed


def test_make_digit_task_balances_points_over_tuples():
    task = make_digit_task(support="evenodd", n_tuples={"train": 1000}, seed=0)
    _, counts = np.unique(task.splits["train"].digits, axis=0, return_counts=True)
    assert len(counts) == 16 and counts.max() - counts.min() <= 1 and counts.sum() == 1000


def test_make_digit_task_full_support_has_empty_ood():
    task = make_digit_task(support="full", n_tuples={"ood": 500}, seed=0)
    assert len(task.splits["ood"]) == 0 and task.unobserved == ()
    assert task.splits["ood"].digits.shape == (0, 2)


def test_make_digit_task_restricted_variant_uses_digits_0_to_4():
    task = make_digit_task(n_digits=5, support="half", seed=0)
    _, image_digits = load_digit_images()
    for split in SPLITS:
        assert task.splits[split].digits.max() <= 4
    every = np.concatenate([task.image_pools[s] for s in ("train", "val", "test")])
    assert set(image_digits[every].tolist()) == set(range(5))
    assert len(every) == int((image_digits < 5).sum())
    assert len(task.unobserved) == 25 - 7


def test_make_digit_task_three_positions():
    task = make_digit_task(n_positions=3, support="same_parity", n_tuples={"train": 50}, seed=0)
    assert task.splits["train"].digits.shape == (50, 3)
    assert len(task.support) == 5**3 + 5**3


def test_make_digit_task_is_deterministic_and_seeded():
    a = make_digit_task(support="evenodd", seed=4)
    b = make_digit_task(support="evenodd", seed=4)
    c = make_digit_task(support="evenodd", seed=5)
    for split in SPLITS:
        assert np.array_equal(a.splits[split].image_index, b.splits[split].image_index)
    assert not np.array_equal(a.splits["train"].image_index, c.splits["train"].image_index)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"knowledge": "xor"}, "knowledge must be one of sum, product, got 'xor'"),
        ({"n_digits": 1}, "n_digits must be an integer in 2..10, got 1"),
        ({"n_digits": 11}, "n_digits must be an integer in 2..10, got 11"),
        ({"n_positions": 0}, "n_positions must be an integer in 1..4, got 0"),
        ({"n_tuples": {"train": 0}}, r"n_tuples\['train'\] must be at least 1, got 0"),
        ({"n_tuples": {"test": -1}}, r"n_tuples\['test'\] must be an integer >= 0, got -1"),
        ({"n_tuples": {"test": 1.5}}, r"n_tuples\['test'\] must be an integer >= 0, got 1.5"),
        ({"n_tuples": {"dev": 3}}, "n_tuples: keys must be among train, val, test, ood"),
        ({"seed": -1}, "seed must be an integer"),
    ],
)
def test_make_digit_task_rejects_bad_input(kwargs, match):
    with pytest.raises(InputError, match=match):
        make_digit_task(**kwargs)


def test_certificate_counts_agree_with_the_task():
    task = make_digit_task(support="evenodd", seed=0)
    cert = certificate(task)
    assert list(cert.columns) == ["kind", "split", "item", "count"]
    images = cert[cert.kind == "images"]
    for split, pool in task.image_pools.items():
        rows = images[images.split == split]
        per_digit = rows[rows.item != "all"]["count"]
        assert per_digit.sum() == len(pool) == int(rows[rows.item == "all"]["count"].iloc[0])
    tuples = cert[cert.kind == "tuples"]
    for split in SPLITS:
        rows = tuples[tuples.split == split]
        assert int(rows[rows.item == "all"]["count"].iloc[0]) == len(task.splits[split])
        assert rows[rows.item != "all"]["count"].sum() == len(task.splits[split])
    support = cert[cert.kind == "support"]
    assert sorted(support[support.split == "train"].item) == sorted(
        f"{a}:{b}" for a, b in MNADD_EVENODD
    )
    assert (support.split == "ood").sum() == 84
    checks = cert[cert.kind == "check"].set_index("item")["count"]
    assert checks["y = sum(gold)"] == sum(len(task.splits[s]) for s in SPLITS)
    assert checks["image splits disjoint"] == 1797


def test_sample_grid_shows_the_first_points_with_gold_digits():
    task = make_digit_task(support="evenodd", n_tuples={"train": 20}, seed=0)
    fig = sample_grid(task, n_rows=2, n_cols=3)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    data = task.splits["train"]
    assert titles == [f"{a}+{b} = {a + b}" for a, b in data.digits[:6].tolist()]
    assert [ax.images[0].get_array().shape for ax in fig.axes] == [(8, 16)] * 6
    again = sample_grid(task, n_rows=2, n_cols=3)
    assert to_svg(fig) == to_svg(again)


def test_sample_grid_rejects_bad_input():
    task = make_digit_task(support="full", n_tuples={"train": 4}, seed=0)
    with pytest.raises(InputError, match="split: 'ood' has no points"):
        sample_grid(task, split="ood")
    with pytest.raises(InputError, match="split must be one of"):
        sample_grid(task, split="dev")
    with pytest.raises(InputError, match="n_rows, n_cols"):
        sample_grid(task, n_rows=0)


def test_all_tuples_is_lexicographic():
    assert all_tuples(3, 2) == tuple(itertools.product(range(3), repeat=2))
