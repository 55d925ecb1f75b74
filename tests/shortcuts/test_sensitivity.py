"""The head-to-head's knobs: bias initialisation, label-perfect threshold, kinds of optimum."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from nesybench.logic.knowledge import make_knowledge
from nesybench.shortcuts import concept_sweep as cs
from nesybench.shortcuts.incidence import OPTIMUM_KINDS, optimum_kind, rescore_runs
from nesybench.shortcuts.model import ConceptNetConfig, init_params
from nesybench.shortcuts.sensitivity import variant_section
from nesybench.shortcuts.tasks import (
    POINT_COLUMNS,
    CertifiedTask,
    make_task,
    resolve_knowledge,
    task_rows,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(20)  # a fixed seed set; never searched
XOR = {"00": 0, "01": 1, "10": 1, "11": 0}


def _params() -> dict:
    return yaml.safe_load((ROOT / "params.yaml").read_text())["shortcuts"]


@pytest.fixture(scope="module")
def h2h():
    """The head-to-head dataset of params.yaml, generated in memory."""
    p = _params()
    m = p["models"]
    knowledge = resolve_knowledge(m["task"], p["tasks"][m["task"]], seed=p["seed"])
    task = make_task(
        knowledge,
        name=m["task"],
        n_train_per_state=m["n_train_per_state"],
        n_test_per_state=m["n_test_per_state"],
        n_distractors=p["n_distractors"],
        support_frac=float(m["support_frac"]),
        noise=p["noise"],
        seed=p["seed"],
    )
    points = pd.DataFrame(task_rows(task), columns=POINT_COLUMNS)
    certified = CertifiedTask(m["task"], knowledge, n_distractors=p["n_distractors"])
    return p, cs.load_dataset(points, certified, float(m["support_frac"]))


@pytest.fixture(scope="module")
def runs_by_bias(h2h):
    p, data = h2h
    base = cs.model_config(p["models"])
    out = {}
    for bias in ("zero", "gaussian"):
        config = dataclasses.replace(base, bias_init=bias)
        result, keys = cs.train_block(data, seeds=SEEDS, config=config)
        out[bias] = cs.run_rows(result.params, keys, data, min_acc_y=p["models"]["min_acc_y"])
    return out


def test_gaussian_biases_draw_only_the_biases_on_the_same_weights():
    zero = ConceptNetConfig(hidden=8)
    gauss = dataclasses.replace(zero, bias_init="gaussian", bias_scale=2.0)
    a = init_params([3, 4], n_inputs=4, n_concepts=2, config=zero)
    b = init_params([3, 4], n_inputs=4, n_concepts=2, config=gauss)
    assert np.array_equal(a.W1, b.W1) and np.array_equal(a.W2, b.W2)
    assert not a.b1.any() and not a.b2.any()
    assert b.b1.std() > 0 and b.b2.std() > 0 and not np.array_equal(b.b1[0], b.b1[1])
    # the bias is drawn like one more weight of its layer, times bias_scale
    many = init_params(range(400), n_inputs=4, n_concepts=2, config=gauss)
    assert many.b1.std() == pytest.approx(2.0 * 0.5 / np.sqrt(4), rel=0.05)
    assert many.b2.std() == pytest.approx(2.0 * 4.0 / np.sqrt(8), rel=0.05)
    with pytest.raises(ValueError, match="bias_init"):
        ConceptNetConfig(bias_init="uniform")


def test_the_bias_initialisation_reaches_the_collapse_rate(runs_by_bias):
    """On a fixed seed set the two initialisations land on different optima: zero biases
    (an odd initial net) favour the bijective symmetries, gaussian ones collapse more."""
    zero, gauss = (runs_by_bias[b] for b in ("zero", "gaussian"))
    assert not zero["alpha"].equals(gauss["alpha"])
    assert int(gauss["collapse"].sum()) > int(zero["collapse"].sum())


def test_rescoring_at_the_runs_own_threshold_changes_nothing(runs_by_bias, h2h):
    p, _ = h2h
    runs = runs_by_bias["zero"]
    same = rescore_runs(runs, min_acc_y=p["models"]["min_acc_y"])
    for col in ("label_perfect", "shortcut", "collapse"):
        assert same[col].astype(bool).tolist() == runs[col].astype(bool).tolist()
    strict = rescore_runs(runs, min_acc_y=1.0)
    assert (
        strict["label_perfect"].tolist()
        == (runs["alpha_optimum"] & (runs["acc_y_test"] >= 1.0)).tolist()
    )
    assert (strict["collapse"] <= same["collapse"]).all()


@pytest.mark.parametrize(
    "alpha, perfect, kind",
    [
        ("00->00 01->01 10->10 11->11", True, "identity"),
        ("00->11 01->10 10->01 11->00", True, "symmetry"),
        ("00->00 01->01 10->01 11->11", True, "partial_collapse"),
        ("00->00 01->10 10->10 11->00", True, "full_collapse"),
        ("00->00 01->01 10->01 11->11", False, "not_label_perfect"),
    ],
)
def test_optimum_kind(alpha, perfect, kind):
    assert optimum_kind(alpha, label_perfect=perfect, labels=XOR) == kind


def test_every_run_has_one_kind(runs_by_bias):
    for runs in runs_by_bias.values():
        kinds = [
            optimum_kind(a, label_perfect=bool(lp), labels=XOR)
            for a, lp in zip(runs["alpha"], runs["label_perfect"])
        ]
        assert set(kinds) <= set(OPTIMUM_KINDS)
        collapses = sum(k.endswith("collapse") for k in kinds)
        assert collapses == int(runs["collapse"].sum())


def test_a_variant_trains_only_the_head_to_head_and_ood_datasets():
    section = variant_section(_params(), "models.bias_init=gaussian")
    assert section["models"]["bias_init"] == "gaussian"
    m = section["models"]
    assert cs.model_datasets(section) == sorted(
        {(m["task"], float(m["support_frac"])), (m["task"], float(m["ood_support_frac"]))}
    )


def test_each_task_draws_its_own_support():
    """A CNF over three bits no longer reuses the parity task's support permutation; the
    parity tasks keep theirs."""
    from nesybench.counting import support_states
    from nesybench.shortcuts.tasks import support_stream

    cnf = make_knowledge("(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)", 3)
    xor3 = make_knowledge("xor", 3)

    def support(kn, frac):
        return support_states(3, frac, seed=0, stream=support_stream(kn))

    assert support(xor3, 0.75) == support_states(3, 0.75, seed=0)
    assert support(cnf, 0.75) != support(xor3, 0.75)
    assert set(support(cnf, 0.5)) <= set(support(cnf, 0.75))  # still nested
