from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nesybench.axes.bank import (
    LAYERS,
    BankConfig,
    balance_table,
    build_bank,
    label_theory,
    sample_rule,
)
from nesybench.reasoning.chainer import forward_chain
from nesybench.reasoning.grammar.reading import parse_sentence
from nesybench.reasoning.prover import Prover
from nesybench.reasoning.terms import Atom, Literal, Rule, Theory


def test_build_bank_every_depth_is_exactly_balanced(default_bank):
    _, questions, _ = default_bank
    table = balance_table(questions)
    assert set(table["depth"]) == {0, 1, 2, 3}
    assert (table["n_true"] == table["n_false"]).all()
    # "not" carries no label information: the True rate is 1/2 among plain and negated questions
    # alike
    assert (table["true_rate_plain"] == 0.5).all() and (table["true_rate_negated"] == 0.5).all()


def test_build_bank_depth_is_the_layer_and_labels_match_both_engines(default_bank):
    _, questions, theories = default_bank
    assert (questions["depth"] == questions["pred"].map(LAYERS)).all()
    for (split, index), g in questions.groupby(["split", "theory"]):
        t = theories[(split, index)]
        closure = forward_chain(t.facts, t.rules)
        prover = Prover(t.facts, t.rules)
        for r in g.itertuples():
            atom = Atom(r.pred, (r.entity,))
            assert closure.holds(atom) == r.holds == (prover.prove(atom) is not None)
            assert r.label == (r.holds != r.negated)
            if r.holds:
                assert closure.depth(atom) == r.depth


def test_build_bank_questions_parse_back_to_their_atom(default_bank):
    _, questions, _ = default_bank
    for r in questions.head(200).itertuples():
        parsed = parse_sentence(r.text)
        assert parsed.kind == "question"
        assert parsed.atom == Atom(("not_" if r.negated else "") + r.pred, (r.entity,))


def test_build_bank_is_deterministic_and_seed_sensitive():
    config = BankConfig(n_train_theories=5, n_eval_theories=5)
    a = build_bank(config, seed=3)[1]
    b = build_bank(config, seed=3)[1]
    c = build_bank(config, seed=4)[1]
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_theories_from_table_round_trip(default_bank):
    bank, questions, rebuilt = default_bank
    _, _, originals = build_bank(BankConfig(), seed=15)
    for t in originals:
        r = rebuilt[t.key]
        assert (r.facts, r.rules, r.entities) == (t.facts, t.rules, t.entities)


def test_sample_rule_body_comes_from_the_layer_below():
    rng = np.random.default_rng(0)
    for head in ("productive", "senior", "eminent"):
        for _ in range(50):
            rule = sample_rule(head, rng, extra_prob=0.5, negate_prob=0.5)
            assert rule.body[0].positive and LAYERS[rule.body[0].atom.pred] == LAYERS[head] - 1
            assert all(LAYERS[lit.atom.pred] == 0 for lit in rule.body[1:])


def test_label_theory_depth_with_negated_condition():
    x = ("X",)
    t = Theory(
        (Atom("cited", ("anne",)), Atom("cited", ("bruno",)), Atom("funded", ("bruno",))),
        (
            Rule(
                Atom("productive", x),
                (Literal(Atom("cited", x)), Literal(Atom("funded", x), positive=False)),
            ),
        ),
        entities=("anne", "bruno"),
        key=("eval", 0),
    )
    rows = label_theory(t, np.random.default_rng(0))
    depth1 = [r for r in rows if r["depth"] == 1]
    # productive(anne) holds (not funded); productive(bruno) does not (funded): the only
    # derivable layer-1 atom, paired with one of the three underivable ones -> four questions
    assert len(depth1) == 4
    derivable = {(r["pred"], r["entity"]) for r in depth1 if r["holds"]}
    partner = {(r["pred"], r["entity"]) for r in depth1 if not r["holds"]}
    assert derivable == {("productive", "anne")}
    assert len(partner) == 1 and partner <= {
        ("productive", "bruno"),
        ("collaborative", "anne"),
        ("collaborative", "bruno"),
    }
    assert sorted((r["holds"], r["negated"], r["label"]) for r in depth1) == [
        (False, False, False),
        (False, True, True),
        (True, False, True),
        (True, True, False),
    ]


def test_one_layer3_head_gives_the_chapters_depth_mix_and_leaves_depths_0_2_alone():
    """The chapter's bank: 804 / 352 / 280 / 64 of 1,500 (4.3% at depth 3).  Two layer-3 heads
    (the former bank) put 204 of seed 0's 1,520 questions at depth 3; one head keeps depths
    0-2 question for question and halves depth 3."""
    from nesybench.axes.bank import bank_layers

    assert sorted(bank_layers(BankConfig(layer3_heads=2))) == sorted(LAYERS)
    assert sum(layer == 3 for layer in bank_layers(BankConfig()).values()) == 1
    counts = {}
    for heads in (1, 2):
        _, q, _ = build_bank(BankConfig(layer3_heads=heads), seed=0)
        ev = q[q["split"] == "eval"]
        counts[heads] = ev.groupby("depth").size().to_dict()
        if heads == 1:
            shallow = ev[ev["depth"] < 3].drop(columns="qid").reset_index(drop=True)
        else:
            other = ev[ev["depth"] < 3].drop(columns="qid").reset_index(drop=True)
    assert counts[2] == {0: 760, 1: 296, 2: 260, 3: 204}
    assert counts[1] == {0: 760, 1: 296, 2: 260, 3: 88}
    assert shallow.equals(other)
    assert 0.03 < 88 / sum(counts[1].values()) < 0.07
    with pytest.raises(ValueError, match="layer3_heads"):
        bank_layers(BankConfig(layer3_heads=3))
