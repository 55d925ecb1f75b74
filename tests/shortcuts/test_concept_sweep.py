"""The concept nets over seeds: initialisation by name, twins, batches, weights, outcomes."""

import numpy as np
import pandas as pd
import pytest

from nesybench.shortcuts import concept_sweep as cs
from nesybench.shortcuts.model import ConceptNetConfig
from nesybench.shortcuts.tasks import (
    POINT_COLUMNS,
    CertifiedTask,
    make_task,
    resolve_knowledge,
    task_rows,
)

PARAMS = {
    "seed": 0,
    "noise": 0.25,
    "n_distractors": 2,
    "tasks": {"xor2": {"knowledge": "xor", "k": 2}, "xor3": {"knowledge": "xor", "k": 3}},
}
SMALL = ConceptNetConfig(hidden=8, epochs=60, lr=2.0, init_scale_hidden=0.5, init_scale_heads=3.0)


def _data(task="xor2", frac=1.0, n_train=10, n_test=20):
    knowledge = resolve_knowledge(task, PARAMS["tasks"][task], seed=0)
    made = make_task(
        knowledge,
        name=task,
        n_train_per_state=n_train,
        n_test_per_state=n_test,
        n_distractors=2,
        support_frac=frac,
        noise=0.25,
        seed=0,
    )
    points = pd.DataFrame(task_rows(made), columns=POINT_COLUMNS)
    return cs.load_dataset(points, CertifiedTask(task, knowledge, n_distractors=2), frac)


@pytest.fixture(scope="module")
def data():
    return _data()


def test_supervised_points_are_stratified_and_seeded(data):
    G = data.splits["train"][1]
    chosen = cs.supervised_points(G, 12, seed=3)
    states = [tuple(G[i]) for i in chosen]
    assert len(chosen) == 12 and sorted(set(states)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(states.count(s) == 3 for s in set(states))
    assert cs.supervised_points(G, 12, seed=3).tolist() == chosen.tolist()
    assert cs.supervised_points(G, 12, seed=4).tolist() != chosen.tolist()


def test_the_twin_starts_from_its_siblings_initialisation(data):
    config = ConceptNetConfig(**{**SMALL.__dict__, "epochs": 0})
    result, keys = cs.train_block(data, seeds=[5, 6], config=config, twin_points=4)
    assert keys == [(5, "label_only"), (6, "label_only"), (5, "concept_sup"), (6, "concept_sup")]
    for name in ("W1", "W2"):
        w = getattr(result.params, name)
        assert np.array_equal(w[0], w[2]) and np.array_equal(w[1], w[3])
        assert not np.array_equal(w[0], w[1])


def test_a_seeds_net_is_the_same_in_any_batch(data):
    """One model, one number: seed 2 trained alone or among other seeds and twins."""
    alone, _ = cs.train_block(data, seeds=[2], config=SMALL)
    among, keys = cs.train_block(data, seeds=[0, 1, 2, 3], config=SMALL, twin_points=4)
    b = keys.index((2, "label_only"))
    for name in ("W1", "b1", "W2", "b2"):
        assert np.array_equal(getattr(alone.params, name)[0], getattr(among.params, name)[b])


def test_weights_round_trip_to_the_same_batch(data):
    result, keys = cs.train_block(data, seeds=[0, 1], config=SMALL, twin_points=4)
    table = cs.block_weights(data, result.params, keys)
    params, back = cs.batch_from_weights(table, data)
    assert back == sorted(keys)
    for b, key in enumerate(back):
        a = keys.index(key)
        for name in ("W1", "b1", "W2", "b2"):
            assert np.array_equal(getattr(params, name)[b], getattr(result.params, name)[a])


def test_run_and_panel_rows_agree(data):
    result, keys = cs.train_block(data, seeds=[0, 1], config=SMALL, twin_points=8)
    runs = cs.run_rows(result.params, keys, data, min_acc_y=0.99)
    panels = cs.panel_rows(result.params, keys, data)
    assert runs[["seed", "model"]].values.tolist() == [list(k) for k in keys]
    assert panels["acc_c"].tolist() == runs["acc_c_test"].tolist()
    assert panels["acc_y"].tolist() == runs["acc_y_test"].tolist()
    assert panels["alpha"].tolist() == runs["alpha"].tolist()
    assert all(sum(v) == 4 * 20 for v in panels["occurrence"])


def test_calibration_rows_keep_concept_accuracy(data):
    result, keys = cs.train_block(data, seeds=[0], config=SMALL, twin_points=8)
    rows = cs.calibration_rows(result.params, keys, data)
    assert rows["method"].tolist() == ["temperature"] * 2
    assert (rows["acc_after"] == rows["acc_before"]).all() and (rows["tau"] > 0).all()
    panels = cs.panel_rows(result.params, keys, data)
    assert rows["acc_before"].tolist() == panels["acc_c"].tolist()


def test_count_survivors_at_half_support_are_the_chapters_16_of_64():
    data = _data(frac=0.5)
    counted = cs.count_survivors(data.knowledge, data.support)
    assert (counted["n_opt_biased"], counted["n_survivors"], counted["counted_by"]) == (
        64,
        16,
        "enumeration",
    )
    big = _data("xor3", 0.5, n_train=2, n_test=2)
    counted = cs.count_survivors(big.knowledge, big.support)
    assert counted["counted_by"] == "factored"
    assert (counted["n_opt_biased"], counted["n_survivors"]) == (2**20, 2**16)


def test_model_datasets_dedupe():
    params = {
        "tasks": PARAMS["tasks"],
        "models": {"task": "xor2", "support_frac": 1.0, "ood_support_frac": 0.5},
        "incidence": {"tasks": ["xor2", "xor3"], "support_fracs": [1.0, 0.5]},
        "support_fracs": [1.0, 0.75, 0.5],
    }
    assert cs.model_datasets(params) == [("xor2", 0.5), ("xor2", 1.0), ("xor3", 0.5), ("xor3", 1.0)]
    # an unknown task: refused at load time by the schema's x-key-of; an incidence
    # fraction outside support_fracs by shortcuts.params_checks (tests/core/test_params_checks.py)
