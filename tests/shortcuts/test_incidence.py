"""The incidence sweep: run classification, the rate and its Wilson interval."""

import itertools

import numpy as np

from nesybench.counting import is_optimum
from nesybench.logic.knowledge import make_knowledge
from nesybench.metrics.stats import wilson_interval
from nesybench.shortcuts.concept_sweep import init_seeds
from nesybench.shortcuts.incidence import RunOutcome, evaluate_runs, incidence_summary
from nesybench.shortcuts.model import ConceptNetConfig, KnowledgeTable, init_params, train

XOR2 = make_knowledge("xor", 2)
ALL = ["00", "01", "10", "11"]


def _outcome(alpha, *, acc=1.0, index=0):
    optimum = all(g in alpha for g in ALL) and is_optimum(alpha, XOR2, ALL)
    return RunOutcome(
        index,
        acc,
        0.5,
        float("nan"),
        alpha,
        optimum,
        optimum and acc >= 0.99,
        all(k == v for k, v in alpha.items()),
        len(set(alpha.values())) == len(alpha),
    )


def test_run_outcome_classification():
    identity = _outcome({g: g for g in ALL})
    swap = _outcome({"00": "11", "01": "10", "10": "01", "11": "00"})
    collapse = _outcome({"00": "00", "01": "01", "10": "01", "11": "11"})
    wrong = _outcome({"00": "01", "01": "01", "10": "10", "11": "11"})
    noisy = _outcome({"00": "00", "01": "01", "10": "01", "11": "11"}, acc=0.9)
    assert (identity.shortcut, identity.collapse) == (False, False)
    assert (swap.shortcut, swap.collapse) == (True, False)
    assert (collapse.shortcut, collapse.collapse) == (True, True)
    assert (wrong.label_perfect, wrong.shortcut) == (False, False)
    assert (noisy.label_perfect, noisy.shortcut) == (False, False)


def test_incidence_summary_rate_and_wilson_interval():
    runs = [_outcome({g: g for g in ALL}, index=i) for i in range(7)]
    runs += [
        _outcome({"00": "00", "01": "01", "10": "01", "11": "11"}, index=7 + i) for i in range(3)
    ]
    summary = incidence_summary(runs)
    assert (
        summary["n_runs"],
        summary["n_shortcut"],
        summary["n_collapse"],
        summary["n_identity"],
    ) == (10, 3, 3, 7)
    assert summary["rate"] == 0.3
    assert (summary["rate_lo"], summary["rate_hi"]) == wilson_interval(3, 10)
    assert summary["rate_lo"] < 0.3 < summary["rate_hi"]


def test_init_seeds_are_derived_by_name_through_the_one_seed_helper():
    (a,) = init_seeds([3], "xor2")
    draw = np.random.default_rng(a).random()
    assert draw == np.random.default_rng(init_seeds([3], "xor2")[0]).random()
    assert draw != np.random.default_rng(init_seeds([3], "xor3")[0]).random()
    assert draw != np.random.default_rng(init_seeds([4], "xor2")[0]).random()


def test_evaluate_runs_asks_the_counter_for_label_perfection():
    """A run whose alpha breaks a label on the support is not label-perfect, whatever AccY."""
    alpha = {"00": "11", "01": "01", "10": "00", "11": "11"}  # breaks the label of 10
    assert not is_optimum(alpha, XOR2, ALL)
    assert is_optimum(alpha, XOR2, ["00", "01", "11"])
    assert not _outcome(alpha).label_perfect


def test_evaluate_runs_on_a_trained_batch_is_consistent():
    rng = np.random.default_rng(0)
    states = np.array(list(itertools.product([0, 1], repeat=2)))
    kb = KnowledgeTable(states, states.sum(axis=1) % 2)

    def split(n):
        G = np.repeat(states, n, axis=0)
        X = np.hstack(
            [
                (2.0 * G - 1.0) + 0.25 * rng.standard_normal(G.shape),
                rng.standard_normal((len(G), 2)),
            ]
        )
        return X, G, G.sum(axis=1) % 2

    train_split, test_split = split(10), split(20)
    config = ConceptNetConfig(
        hidden=8, epochs=200, lr=2.0, init_scale_hidden=0.5, init_scale_heads=3.0
    )
    X, G, Y = train_split
    p0 = init_params(init_seeds(range(6), "t"), n_inputs=X.shape[1], n_concepts=2, config=config)
    res = train(p0, X, Y, G, kb, config=config)
    outcomes = evaluate_runs(
        res.params, kb, {"test": test_split}, ALL, knowledge=XOR2, min_acc_y=0.99
    )
    assert len(outcomes) == 6
    for o in outcomes:
        assert set(o.alpha) == set(ALL)
        if o.label_perfect:
            assert o.acc_y_test >= 0.99 and is_optimum(o.alpha, XOR2, ALL)
        assert o.shortcut == (o.label_perfect and any(k != v for k, v in o.alpha.items()))
    assert any(o.label_perfect for o in outcomes)
