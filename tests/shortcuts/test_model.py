"""The concept-bottleneck network: analytic gradients, the knowledge-computed label, determinism."""

import itertools

import numpy as np
import pytest

from nesybench.shortcuts.model import (
    ConceptNetConfig,
    KnowledgeTable,
    concept_probs,
    init_params,
    loss_and_grads,
    predict_labels,
    train,
)


def _xor_table(k=2):
    states = np.array(list(itertools.product([0, 1], repeat=k)))
    return KnowledgeTable(states, states.sum(axis=1) % 2)


def _data(k=2, per_state=5, seed=0):
    rng = np.random.default_rng(seed)
    kb = _xor_table(k)
    G = np.repeat(kb.states, per_state, axis=0)
    X = np.hstack(
        [(2.0 * G - 1.0) + 0.25 * rng.standard_normal(G.shape), rng.standard_normal((len(G), 2))]
    )
    return X, G, G.sum(axis=1) % 2, kb


@pytest.mark.parametrize("k", [2, 3])
def test_loss_and_grads_match_finite_differences(k):
    X, G, Y, kb = _data(k)
    config = ConceptNetConfig(hidden=5, init_scale_hidden=1.0, init_scale_heads=2.0)
    params = init_params([1, 2], n_inputs=X.shape[1], n_concepts=k, config=config)
    params.b1 += 0.1
    params.b2 -= 0.2
    sup = np.zeros((2, len(X)))
    sup[1, :3] = 1.0  # second model: concept supervision on three points
    total, _, _, grads = loss_and_grads(params, X, Y, G, sup, kb, concept_weight=0.7)
    eps = 1e-6
    rng = np.random.default_rng(0)
    for name in ("W1", "b1", "W2", "b2"):
        array = getattr(params, name)
        grad = getattr(grads, name)
        for flat in rng.choice(array.size, size=6, replace=False):
            idx = np.unravel_index(flat, array.shape)
            old = array[idx]
            array[idx] = old + eps
            plus = loss_and_grads(params, X, Y, G, sup, kb, concept_weight=0.7)[0].sum()
            array[idx] = old - eps
            minus = loss_and_grads(params, X, Y, G, sup, kb, concept_weight=0.7)[0].sum()
            array[idx] = old
            numeric = (plus - minus) / (2 * eps)
            assert grad[idx] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (name, idx)


def test_label_probability_is_sum_over_consistent_states():
    kb = _xor_table(2)
    p1, p2 = 0.8, 0.3  # P(c1 = 1), P(c2 = 1)
    log_p = np.log(np.array([[[[1 - p1, p1], [1 - p2, p2]]]]))
    py = np.exp(kb.label_log_probs(log_p))[0, 0]
    # XOR: y = 1 iff exactly one bit is 1.
    assert py[1] == pytest.approx(p1 * (1 - p2) + (1 - p1) * p2)
    assert py[0] == pytest.approx(p1 * p2 + (1 - p1) * (1 - p2))


def test_train_is_deterministic_and_lowers_the_label_loss():
    X, G, Y, kb = _data(2, per_state=10)
    config = ConceptNetConfig(hidden=8, epochs=60)
    p0 = init_params(
        [np.random.SeedSequence([5, 0])], n_inputs=X.shape[1], n_concepts=2, config=config
    )
    a = train(p0, X, Y, G, kb, config=config)
    b = train(p0, X, Y, G, kb, config=config)
    assert np.array_equal(a.params.W1, b.params.W1) and np.array_equal(a.label_nll, b.label_nll)
    assert a.label_nll[-1, 0] < 0.5 * a.label_nll[0, 0]


def test_concept_supervision_on_every_point_learns_the_identity():
    X, G, Y, kb = _data(2, per_state=10)
    config = ConceptNetConfig(hidden=8, epochs=300)
    p0 = init_params([3], n_inputs=X.shape[1], n_concepts=2, config=config)
    res = train(p0, X, Y, G, kb, sup_mask=np.ones((1, len(X))), config=config)
    pred = concept_probs(res.params, X, n_concepts=2).argmax(axis=-1)[0]
    assert np.mean(pred == G) == 1.0
    assert np.mean(predict_labels(res.params, X, kb)[0] == Y) == 1.0
