"""The mitigation sweep's blocks: tables written by generate and train rebuild the same models."""

import numpy as np
import pytest

from nesybench.errors import InputError
from nesybench.shortcuts.digits import sweep as ds
from nesybench.shortcuts.digits.evaluation import evaluate, train_and_predict
from nesybench.shortcuts.digits.mitigations import mitigation_names, supervised_name
from nesybench.shortcuts.digits.nesy import NesyConfig
from nesybench.shortcuts.digits.tasks import SPLITS, task_from_tables

TINY = NesyConfig(hidden=8, epochs=2, batch_size=32)
DIGITS = {
    "knowledge": "sum",
    "n_positions": 2,
    "image_fracs": [0.5, 0.2, 0.3],
    "n_tuples": {"train": 64, "val": 40, "test": 60, "ood": 50},
    "supports": {
        "biased": {"support": "evenodd", "n_digits": 10},
        "restricted": {"support": "half", "n_digits": 5},
    },
    "head_to_head": {"support": "biased", "supervised": "concept_sup=0.10"},
    "mitigations": ["label_only", "concept_sup=0.10", "neural"],
}
MITIGATIONS = ["label_only", "concept_sup=0.1", "neural"]


@pytest.fixture(scope="module")
def tasks():
    return ds.generate_tasks(DIGITS, seed=0)


def test_mitigation_names_are_canonical():
    # that they are distinct and hold the head-to-head's models: tests/core/test_params_checks.py
    assert mitigation_names(DIGITS) == MITIGATIONS
    assert supervised_name(DIGITS) == "concept_sup=0.1"


def test_generated_tables_read_back_into_the_same_tasks(tasks):
    assert list(tasks) == ["biased", "restricted"]
    assert tasks["restricted"].n_digits == 5 and len(tasks["biased"].support) == 16
    tables = ds.generated_tables(tasks)
    for name, task in tasks.items():
        back = task_from_tables(
            tables["tuples"], tables["pools"], tables["supports"], support=name, seed=0
        )
        assert back.support == task.support and back.support_name == name
        for split in SPLITS:
            a, b = task.splits[split], back.splits[split]
            assert np.array_equal(a.image_index, b.image_index)
            assert np.array_equal(a.digits, b.digits) and np.array_equal(a.y, b.y)
    with pytest.raises(InputError, match="no generated digit task named 'full'"):
        task_from_tables(
            tables["tuples"], tables["pools"], tables["supports"], support="full", seed=0
        )


def test_models_rebuilt_from_the_train_tables_predict_what_training_did(tasks):
    weights, labels = ds.train_block(tasks, mitigations=MITIGATIONS, seeds=[3], config=TINY)
    assert sorted(set(weights["mitigation"])) == ["concept_sup=0.1", "label_only"]
    assert set(labels["support"]) == {"biased", "restricted"}
    rebuilt = {
        (s, m): pred
        for s, m, _, pred in ds.block_predictions(
            tasks, weights, labels, mitigations=MITIGATIONS, seeds=[3], config=TINY
        )
    }
    for (support, mitigation), pred in rebuilt.items():
        direct = train_and_predict(tasks[support], mitigation, seed=3, config=TINY)
        for split in SPLITS:
            assert np.array_equal(pred.splits[split].y_pred, direct.splits[split].y_pred)
            if mitigation != "neural":
                assert np.array_equal(
                    pred.splits[split].digit_logits, direct.splits[split].digit_logits
                )


def test_score_and_calibrate_a_block(tasks):
    weights, labels = ds.train_block(tasks, mitigations=MITIGATIONS, seeds=[0, 1], config=TINY)

    def predictions():
        return ds.block_predictions(
            tasks, weights, labels, mitigations=MITIGATIONS, seeds=[0, 1], config=TINY
        )

    runs, confusion = ds.score_block(predictions(), min_acc_y=0.9, n_bins=10)
    assert len(runs) == 2 * 3 * 2
    first = next(
        p for s, m, seed, p in predictions() if (s, m, seed) == ("biased", "label_only", 0)
    )
    expected = evaluate(first, min_acc_y=0.9, n_bins=10)
    row = runs[(runs["support"] == "biased") & (runs["mitigation"] == "label_only")].iloc[0]
    assert row["acc_c"] == expected["acc_c"] and row["digit_map"] == expected["digit_map"]
    assert runs["map_is_optimum"].isna().all()  # the categorical counter is not wired yet
    per_model = confusion.groupby(["support", "mitigation", "seed"])["count"].sum()
    n = {s: 2 * (len(t.splits["test"]) + len(t.splits["ood"])) for s, t in tasks.items()}
    assert all(total == n[key[0]] for key, total in per_model.items())
    table, reliability = ds.calibrate_block(
        predictions(),
        methods=["temperature", "vector"],
        n_bins=10,
        reliability_for={("biased", "label_only")},
    )
    assert len(table) == 2 * 2 * 2 * 2  # supports x digit models x seeds x methods
    temp = table[table["method"] == "temperature"]
    assert (temp["acc_after"] == temp["acc_before"]).all() and (temp["tau"] > 0).all()
    assert table[table["method"] == "vector"]["tau"].isna().all()
    assert set(zip(reliability["support"], reliability["mitigation"])) == {("biased", "label_only")}
    assert set(reliability["reading"]) == {"before", "after"}
    assert sorted(reliability.loc[reliability["target"] == "class", "class"].unique()) == list(
        range(10)
    )
