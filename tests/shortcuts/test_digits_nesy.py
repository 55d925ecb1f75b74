"""The shared-encoder digit model: exact semantics, analytic gradients, determinism."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.shortcuts.digits.nesy import (
    EncoderParams,
    NesyConfig,
    Variant,
    digit_probs,
    init_encoder,
    knowledge_table,
    loss_and_grads,
    predict_labels,
    supervised_points,
    train_nesy,
    train_nesy_seeds,
)
from nesybench.shortcuts.digits.tasks import knowledge_labels, make_digit_task

TINY = NesyConfig(hidden=8, epochs=2, batch_size=16)


def _random_params(rng, d=5, H=3, V=4):
    return EncoderParams(
        rng.standard_normal((d, H)),
        0.1 * rng.standard_normal(H),
        rng.standard_normal((H, V)),
        0.1 * rng.standard_normal(V),
    )


def test_label_probability_is_the_exact_sum_over_digit_tuples():
    rng = np.random.default_rng(0)
    V = 10
    p = rng.dirichlet(np.ones(V), size=(3, 2))  # 3 points, 2 positions
    kb = knowledge_table("sum", n_digits=V, n_positions=2)
    py = np.exp(kb.label_log_probs(np.log(p)[None]))[0]
    for i in range(3):
        for y_index, y in enumerate(kb.classes):
            pairs = itertools.product(range(V), repeat=2)
            brute = sum(p[i, 0, a] * p[i, 1, b] for a, b in pairs if a + b == y)
            assert py[i, y_index] == pytest.approx(brute, rel=1e-12, abs=1e-15)
    assert np.allclose(py.sum(axis=1), 1.0)


def test_knowledge_table_three_positions():
    kb = knowledge_table("product", n_digits=3, n_positions=3)
    assert kb.states.shape == (27, 3)
    assert kb.labels.tolist() == [a * b * c for a, b, c in itertools.product(range(3), repeat=3)]


VARIANTS = [
    Variant(),
    Variant(concept_sup=0.5, concept_weight=0.7),
    Variant(entropy_weight=0.8),
    Variant(multitask="product", multitask_weight=0.6),
    Variant(concept_sup=0.5, entropy_weight=1.3, multitask="product"),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_loss_and_grads_match_finite_differences(variant, k):
    rng = np.random.default_rng(k)
    n, d, V = 6, 5, 4
    params = _random_params(rng, d=d, V=V)
    X = rng.random((n, k, d))
    digits = rng.integers(0, V, size=(n, k))
    y = knowledge_labels("sum", digits)
    y2 = knowledge_labels("product", digits)
    kb = knowledge_table("sum", n_digits=V, n_positions=k)
    kb2 = knowledge_table("product", n_digits=V, n_positions=k)
    mask = (np.arange(n) % 2 == 0).astype(float) if variant.concept_sup else None

    def loss():
        return loss_and_grads(
            params, X, y, kb=kb, digits=digits, sup_mask=mask, variant=variant, kb2=kb2, y2=y2
        )

    total, parts, grads = loss()
    weighted = parts["label"] + variant.concept_weight * parts["concept"]
    weighted += variant.multitask_weight * parts.get("multitask", 0.0)
    weighted += variant.entropy_weight * parts.get("entropy", 0.0)
    assert total == pytest.approx(weighted)
    eps = 1e-6
    for name in EncoderParams.NAMES:
        array, grad = getattr(params, name), getattr(grads, name)
        for idx in np.ndindex(array.shape):
            old = array[idx]
            array[idx] = old + eps
            plus = loss()[0]
            array[idx] = old - eps
            minus = loss()[0]
            array[idx] = old
            assert grad[idx] == pytest.approx((plus - minus) / (2 * eps), rel=1e-5, abs=1e-8), (
                name,
                idx,
            )


def test_loss_parts_have_their_closed_forms():
    # Uniform digit distributions: p(y) = (#tuples with sum y) / V^2, entropy term 0.
    V = 4
    params = EncoderParams(np.zeros((3, 2)), np.zeros(2), np.zeros((2, V)), np.zeros(V))
    digits = np.array([[0, 0], [1, 2]])
    y = knowledge_labels("sum", digits)
    kb = knowledge_table("sum", n_digits=V, n_positions=2)
    _, parts, _ = loss_and_grads(
        params,
        np.zeros((2, 2, 3)),
        y,
        kb=kb,
        digits=digits,
        sup_mask=np.array([1.0, 0.0]),
        variant=Variant(concept_sup=0.5, entropy_weight=1.0),
    )
    # y = 0 has 1 tuple of 16, y = 3 has 4 tuples of 16.
    assert parts["label"] == pytest.approx(-(np.log(1 / 16) + np.log(4 / 16)) / 2)
    assert parts["concept"] == pytest.approx(2 * np.log(V))  # one point, two positions
    assert parts["entropy"] == pytest.approx(0.0, abs=1e-12)


def test_multitask_needs_second_labels():
    rng = np.random.default_rng(0)
    kb = knowledge_table("sum", n_digits=4, n_positions=2)
    with pytest.raises(InputError, match="kb2, y2"):
        loss_and_grads(
            _random_params(rng),
            rng.random((2, 2, 5)),
            np.array([1, 2]),
            kb=kb,
            variant=Variant(multitask="product"),
        )


def test_supervised_points_fraction_and_seed():
    assert supervised_points(1000, 0.0, seed=0).size == 0
    assert supervised_points(1000, 0.01, seed=0).size == 10
    assert supervised_points(1000, 0.1, seed=0).size == 100
    assert supervised_points(50, 0.001, seed=0).size == 1  # at least one when the fraction > 0
    assert supervised_points(50, 1.0, seed=0).tolist() == list(range(50))
    a, b = supervised_points(1000, 0.1, seed=0), supervised_points(1000, 0.1, seed=1)
    assert np.array_equal(a, np.sort(a)) and not np.array_equal(a, b)


def test_init_encoder_is_the_same_for_every_variant_of_a_seed():
    a = init_encoder(3, n_inputs=64, n_values=10, config=NesyConfig())
    b = init_encoder(3, n_inputs=64, n_values=10, config=NesyConfig())
    c = init_encoder(4, n_inputs=64, n_values=10, config=NesyConfig())
    assert all(np.array_equal(x, y) for x, y in zip(a.arrays(), b.arrays()))
    assert not np.array_equal(a.W1, c.W1)
    assert a.W1.std() == pytest.approx(1 / 8, rel=0.05)  # init_scale / sqrt(fan_in)


@pytest.fixture(scope="module")
def small_task():
    return make_digit_task(
        support="evenodd", n_tuples={"train": 96, "val": 16, "test": 32, "ood": 32}, seed=0
    )


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_train_nesy_reruns_are_byte_identical(small_task, variant):
    a = train_nesy(small_task, variant, seed=7, config=TINY)
    b = train_nesy(small_task, variant, seed=7, config=TINY)
    for x, y in zip(a.params.arrays(), b.params.arrays()):
        assert x.tobytes() == y.tobytes()
    assert a.loss_curve.tobytes() == b.loss_curve.tobytes()
    assert np.array_equal(a.supervised, b.supervised)
    assert a.supervised.size == (0 if variant.concept_sup == 0 else 48)


def test_train_nesy_differs_across_seeds(small_task):
    a = train_nesy(small_task, seed=1, config=TINY)
    b = train_nesy(small_task, seed=2, config=TINY)
    assert not np.array_equal(a.params.W1, b.params.W1)


def test_train_nesy_calls_back_every_epoch(small_task):
    seen = []
    model = train_nesy(small_task, seed=0, config=TINY, callback=lambda e, loss: seen.append(e))
    assert seen == [1, 2] and model.loss_curve.shape == (2,)


def test_train_nesy_with_concept_labels_learns_the_digits():
    task = make_digit_task(support="full", n_tuples={"train": 400, "test": 200}, seed=0)
    config = NesyConfig(hidden=32, epochs=8, batch_size=32)
    model = train_nesy(task, Variant(concept_sup=1.0), seed=0, config=config)
    test = task.splits["test"]
    X = test.pixels(task.images)
    acc_c = float(np.mean(digit_probs(model.params, X).argmax(-1) == test.digits))
    acc_y = float(np.mean(predict_labels(model, X) == test.y))
    assert acc_c > 0.85 and acc_y > 0.7
    assert model.loss_curve[-1] < 0.5 * model.loss_curve[0]


SCRIPT = """
import hashlib
from nesybench.shortcuts.digits.tasks import make_digit_task
from nesybench.shortcuts.digits.nesy import NesyConfig, Variant, train_nesy, digit_probs
task = make_digit_task(support="evenodd", n_tuples={"train": 256, "test": 64}, seed=0)
model = train_nesy(task, Variant(entropy_weight=1.0), seed=3,
                   config=NesyConfig(hidden=64, epochs=3, batch_size=128))
probs = digit_probs(model.params, task.splits["test"].pixels(task.images))
print(hashlib.sha256(b"".join(a.tobytes() for a in model.params.arrays()) + probs.tobytes())
      .hexdigest())
"""


def test_train_nesy_bytes_do_not_depend_on_the_blas_thread_count():
    digests = set()
    for threads in ("1", "2"):
        env = {**os.environ, "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}
        env["MKL_NUM_THREADS"] = threads
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1 and len(next(iter(digests))) == 64


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"concept_sup": 1.5}, r"concept_sup must be a fraction in \[0, 1\], got 1.5"),
        ({"concept_sup": -0.1}, r"concept_sup must be a fraction in \[0, 1\], got -0.1"),
        ({"entropy_weight": -1.0}, "entropy_weight must be a finite number >= 0, got -1.0"),
        ({"multitask_weight": float("nan")}, "multitask_weight must be a finite number >= 0"),
        ({"multitask": "xor"}, "multitask must be None or one of sum, product, got 'xor'"),
    ],
)
def test_variant_rejects_bad_values(kwargs, match):
    with pytest.raises(InputError, match=match):
        Variant(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"hidden": 0}, "hidden must be an integer >= 1, got 0"),
        ({"epochs": 2.5}, "epochs must be an integer >= 1, got 2.5"),
        ({"lr": 0.0}, "lr must be a finite number > 0, got 0.0"),
        ({"init_scale": float("inf")}, "init_scale must be a finite number > 0, got inf"),
    ],
)
def test_nesy_config_rejects_bad_values(kwargs, match):
    with pytest.raises(InputError, match=match):
        NesyConfig(**kwargs)


def test_variant_names():
    assert Variant().name == "label_only"
    assert Variant(concept_sup=0.01).name == "concept_sup=0.01"
    assert Variant(entropy_weight=1.0, multitask="product").name == "entropy=1+multitask=product"


def _one_model_at_a_time(task, variant, *, seed, config):
    """The training loop written for one model (Adam on shuffled mini-batches through
    loss_and_grads): the oracle the side-by-side training must match to the bit."""
    import math

    from nesybench.seeds import child_rng
    from nesybench.shortcuts.digits.nesy import ADAM_BETAS, ADAM_EPS

    split = task.splits["train"]
    X, y, G = split.pixels(task.images), split.y, split.digits
    n, k = G.shape
    kb = knowledge_table(task.knowledge, n_digits=task.n_digits, n_positions=k)
    kb2 = (
        knowledge_table(variant.multitask, n_digits=task.n_digits, n_positions=k)
        if (variant.multitask)
        else None
    )
    y2 = knowledge_labels(variant.multitask, G) if variant.multitask else None
    mask = np.zeros(n)
    mask[supervised_points(n, variant.concept_sup, seed=seed)] = 1.0
    p = init_encoder(seed, n_inputs=X.shape[-1], n_values=task.n_digits, config=config)
    theta = np.concatenate([a.ravel() for a in p.arrays()])
    m1, m2 = np.zeros_like(theta), np.zeros_like(theta)
    batches, (b1, b2), step, curve = child_rng(seed, "digits", "batches"), ADAM_BETAS, 0, []
    for _ in range(config.epochs):
        order, losses = batches.permutation(n), []
        for start in range(0, n, config.batch_size):
            rows = order[start : start + config.batch_size]
            sizes = [a.size for a in p.arrays()]
            parts = np.split(theta, np.cumsum(sizes)[:-1])
            params = EncoderParams(*(c.reshape(a.shape) for c, a in zip(parts, p.arrays())))
            total, _, grads = loss_and_grads(
                params, X[rows], y[rows], kb=kb, digits=G[rows], sup_mask=mask[rows],
                variant=variant, kb2=kb2, y2=None if y2 is None else y2[rows],
            )  # fmt: skip
            losses.append(total)
            step += 1
            scale = config.lr * math.sqrt(1.0 - b2**step) / (1.0 - b1**step)
            g = np.concatenate([a.ravel() for a in grads.arrays()])
            m1 = b1 * m1 + (1.0 - b1) * g
            m2 = b2 * m2 + (1.0 - b2) * (g * g)
            theta = theta - scale * m1 / (np.sqrt(m2) + ADAM_EPS)
        curve.append(float(np.mean(losses)))
    return theta, np.asarray(curve)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_train_nesy_seeds_trains_each_seed_as_it_trains_alone(small_task, variant):
    """Side by side, every seed's model is the model of the one-model loop, to the bit."""
    seeds = [3, 0, 11]
    together = train_nesy_seeds(small_task, variant, seeds=seeds, config=TINY)
    for seed, model in zip(seeds, together):
        theta, curve = _one_model_at_a_time(small_task, variant, seed=seed, config=TINY)
        flat = np.concatenate([a.ravel() for a in model.params.arrays()])
        assert flat.tobytes() == theta.tobytes(), (variant.name, seed)
        assert model.loss_curve.tobytes() == curve.tobytes()
        alone = train_nesy(small_task, variant, seed=seed, config=TINY)
        assert all(
            a.tobytes() == b.tobytes() for a, b in zip(alone.params.arrays(), model.params.arrays())
        )
        assert model.supervised.tolist() == alone.supervised.tolist()
