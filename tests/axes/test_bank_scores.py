"""Scoring one seed's depth bank: a hand-built theory with six questions whose every number is
derived by hand, and a small generated bank whose scores keep the bank's invariants."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nesybench.axes.bank import (
    MAX_LAYER,
    BankConfig,
    build_bank,
    question_text,
    theories_from_table,
)
from nesybench.axes.bank_scores import BankScores, score_bank
from nesybench.axes.lexical import SYNONYMS, apply_synonyms, rewrite
from nesybench.axes.soft_reasoner import FEATURES, SoftReasoner, feature_matrix
from nesybench.reasoning.terms import Atom, Literal, Rule, Theory

X = ("X",)
KEY = ("eval", 0)
# anne and bruno are cited, bruno is funded;
#   r0: productive(X) :- cited(X), not funded(X)     (the flip probe's only candidate)
#   r1: senior(X) :- productive(X)
# so productive(anne) holds at depth 1 and senior(anne) at depth 2; bruno is neither
THEORY = Theory(
    (Atom("cited", ("anne",)), Atom("cited", ("bruno",)), Atom("funded", ("bruno",))),
    (
        Rule(
            Atom("productive", X),
            (Literal(Atom("cited", X)), Literal(Atom("funded", X), positive=False)),
        ),
        Rule(Atom("senior", X), (Literal(Atom("productive", X)),)),
    ),
    entities=("anne", "bruno"),
    key=KEY,
)
# (pred, entity, negated, depth, label, rewritten): "referenced" and "veteran" are synonyms the
# repair lexicon does not know (unparsed); "prolific" it repairs
ROWS = (
    ("cited", "anne", False, 0, True, True),
    ("funded", "anne", False, 0, False, False),
    ("productive", "anne", False, 1, True, True),
    ("productive", "bruno", True, 1, True, False),
    ("senior", "anne", False, 2, True, True),
    ("senior", "bruno", False, 2, False, False),
)


def _questions() -> pd.DataFrame:
    rows = []
    for qid, (pred, entity, negated, depth, label, rewritten) in enumerate(ROWS):
        text = question_text(pred, entity, negated)
        rows.append(
            {
                "split": "eval",
                "qid": qid,
                "theory": 0,
                "depth": depth,
                "pred": pred,
                "entity": entity,
                "negated": negated,
                "label": label,
                "text": text,
                "surface": rewrite(text, pred) if rewritten else text,
                "rewritten": rewritten,
            }
        )
    return pd.DataFrame(rows)


def _reasoner() -> SoftReasoner:
    """Fixed weights: z = -5 + 10 (stated + one_step + negated) - 20 (products), so it answers
    True iff (stated or one_step) differs from negated; it ignores negated conditions and sees
    one step only."""
    coef = [10.0, 10.0, 10.0, -20.0, -20.0, -5.0]
    return SoftReasoner.from_table(
        pd.DataFrame({"feature": [*FEATURES, "(intercept)"], "coef": coef})
    )


@pytest.fixture(scope="module")
def hand() -> BankScores:
    return score_bank(_questions(), {KEY: THEORY}, _reasoner(), seed=0)


def test_hand_built_soft_reasoner_answers_as_derived():
    # q3: one_step fires for bruno (negated condition ignored): wrong; q4: two steps: wrong
    pred = _reasoner().predict(feature_matrix(_questions(), {KEY: THEORY}))
    assert pred.tolist() == [True, False, True, False, False, False]


def test_hand_built_pipeline_parses_answers_and_abstains(hand):
    p = hand.pipeline
    assert p["qid"].tolist() == list(range(6))
    assert p["parsed_strict"].tolist() == [False, True, False, True, False, True]
    assert p["parsed"].tolist() == [False, True, True, True, False, True]
    assert p["answer"].tolist() == [None, False, True, True, None, False]
    assert p["correct"].tolist() == [False, True, True, True, False, True]


def test_hand_built_per_depth_table(hand):
    expected = pd.DataFrame(
        {
            "depth": [0, 1, 2],
            "n": [2, 2, 2],
            "coverage_strict": [0.5, 0.5, 0.5],
            "coverage": [0.5, 1.0, 0.5],
            "acc_on_parsed": [1.0, 1.0, 1.0],
            "overall": [0.5, 1.0, 0.5],
            "soft_reasoner": [1.0, 0.5, 0.5],
        }
    )
    pd.testing.assert_frame_equal(hand.per_depth, expected, check_dtype=False)


def test_hand_built_synonym_depth_table(hand):
    s = hand.synonym_depth.set_index("predicate")
    assert list(s.index) == sorted(SYNONYMS)
    assert s["synonym"].to_dict() == SYNONYMS
    assert s["depth"].to_dict() == {
        "cited": 0, "funded": 0, "productive": 1, "published": 2, "senior": 2,
    }  # fmt: skip
    assert s["n_questions"].to_dict() == {
        "cited": 1, "funded": 1, "productive": 2, "published": 0, "senior": 2,
    }  # fmt: skip
    assert s["n_rewritten"].to_dict() == {
        "cited": 1, "funded": 0, "productive": 1, "published": 0, "senior": 1,
    }  # fmt: skip
    assert s["n_unparsed"].to_dict() == {
        "cited": 1, "funded": 0, "productive": 0, "published": 0, "senior": 1,
    }  # fmt: skip
    # one unparsed question out of the two at its depth
    assert s["coverage_loss_at_depth"].to_dict() == {
        "cited": 0.5, "funded": 0.0, "productive": 0.0, "published": 0.0, "senior": 0.5,
    }  # fmt: skip


def test_hand_built_flip_probe(hand):
    # r0 becomes productive(X) :- cited(X), funded(X): productive and senior move from anne to
    # bruno, so q2..q5 flip; the soft reasoner misses q3 before and q5 after
    f = hand.flips
    assert f["qid"].tolist() == [2, 3, 4, 5]
    assert f["edited_rule"].tolist() == [0, 0, 0, 0]
    assert f["label_before"].tolist() == [True, True, True, False]
    assert f["label_after"].tolist() == [False, False, False, True]
    assert f["soft_before"].tolist() == [True, False, False, False]
    assert f["soft_after"].tolist() == [False, False, False, False]
    assert f["prover_after"].tolist() == [False, False, False, True]
    assert hand.flip == {
        "n_flipped": 4,
        "soft_correct_before": 2,
        "soft_accuracy_before": 0.5,
        "soft_tracked_after": 3,
        "soft_accuracy_after": 0.75,
        "prover_tracked_after": 4,
        "prover_accuracy_after": 1.0,
    }


def test_hand_built_mixture(hand):
    # soft (1, .5, .5) against pipeline (.5, 1, .5): pi_0 = .5 / (.5 + .5) ties depths 0 and 1
    # at .5 * 1 + .5 * .5 = .75; depth 2 is level, so pairs with it tie at weight 0
    ties = {tuple(t["depths"]): (t["pi"], t["accuracy"]) for t in hand.ties}
    assert ties == {(0, 1): (0.5, 0.75), (0, 2): (0.0, 0.5), (1, 2): (0.0, 0.5)}
    pure = hand.mixture[hand.mixture["kind"] == "pure"]
    assert pure["depth_i"].tolist() == [0, 1, 2]
    assert pure["first"].tolist() == ["soft_reasoner", "pipeline", "tie"]
    assert (hand.mixture["kind"] == "tie").sum() == 3


def test_hand_built_numbers(hand):
    expected = {
        "soft_depth_0": 1.0,
        "soft_depth_1": 0.5,
        "soft_depth_2": 0.5,
        "pipeline_depth_0": 0.5,
        "pipeline_depth_1": 1.0,
        "pipeline_depth_2": 0.5,
        "soft_depth_deepest": 0.5,
        "soft_depth_drop": 0.5,
        "coverage_strict": 0.5,
        "coverage_repaired": 4 / 6,
        "accuracy_on_parsed": 1.0,
        "flip_n": 4,
        "flip_soft_accuracy_before": 0.5,
        "flip_soft_accuracy_after": 0.75,
        "flip_prover_accuracy_after": 1.0,
        "mixture_aggregate_soft": 2 / 3,
        "mixture_aggregate_pipeline": 2 / 3,
        "mixture_n_ties": 3,
        "mixture_soft_first": 1,
        "mixture_pipeline_first": 1,
        "mixture_tie_01_pi0": 0.5,
    }
    assert hand.numbers.keys() == expected.keys()
    for key, value in expected.items():
        assert hand.numbers[key] == pytest.approx(value, rel=1e-12), key


# --------------------------------------------------------------------- a small generated bank


@pytest.fixture(scope="module")
def small():
    bank, questions, _ = build_bank(BankConfig(n_train_theories=12, n_eval_theories=10), seed=15)
    theories = theories_from_table(bank, questions)
    questions = apply_synonyms(questions, prob=0.35, seed=15)
    train = questions[(questions["split"] == "train") & (questions["depth"] <= 1)]
    model = SoftReasoner(C=10.0).fit(feature_matrix(train, theories), train["label"])
    ev = questions[questions["split"] == "eval"].reset_index(drop=True)
    return ev, theories, model, score_bank(ev, theories, model, seed=15)


def test_small_bank_rates_lie_in_the_unit_interval(small):
    ev, _, _, scores = small
    rates = ["coverage_strict", "coverage", "acc_on_parsed", "overall", "soft_reasoner"]
    values = scores.per_depth[rates].to_numpy()
    assert np.isfinite(values).all() and ((0 <= values) & (values <= 1)).all()
    assert scores.per_depth["depth"].tolist() == list(range(MAX_LAYER + 1))
    assert scores.per_depth["n"].sum() == len(ev)
    depths = range(MAX_LAYER + 1)
    rate_keys = [
        *(f"soft_depth_{d}" for d in depths),
        *(f"pipeline_depth_{d}" for d in depths),
        "soft_depth_deepest",
        "coverage_strict",
        "coverage_repaired",
        "accuracy_on_parsed",
        "flip_soft_accuracy_before",
        "flip_soft_accuracy_after",
        "flip_prover_accuracy_after",
        "mixture_aggregate_soft",
        "mixture_aggregate_pipeline",
    ]
    for key in rate_keys:
        assert 0 <= scores.numbers[key] <= 1, key
    drop = scores.numbers["soft_depth_0"] - scores.numbers["soft_depth_deepest"]
    assert scores.numbers["soft_depth_drop"] == drop


def test_small_bank_structural_facts(small):
    ev, _, _, scores = small
    assert len(scores.pipeline) == len(ev)
    assert scores.pipeline.loc[scores.pipeline["parsed"], "correct"].all()  # exact on parsed
    assert scores.numbers["accuracy_on_parsed"] == 1.0
    assert (scores.per_depth["coverage_strict"] <= scores.per_depth["coverage"]).all()
    # the prover tracks every flip; the soft reasoner (one step, trained on depth <= 1) does not
    assert scores.flip["n_flipped"] == len(scores.flips) > 0
    assert scores.flip["prover_accuracy_after"] == 1.0
    assert scores.flip["soft_tracked_after"] < scores.flip["n_flipped"]
    # a balanced bank puts a one-step reader at chance from depth 2 on
    deep = scores.per_depth[scores.per_depth["depth"] >= 2]["soft_reasoner"]
    assert (deep == 0.5).all()
    n = scores.per_depth["n"].to_numpy()
    agg = float((scores.per_depth["soft_reasoner"].to_numpy() * n).sum() / n.sum())
    assert scores.numbers["mixture_aggregate_soft"] == pytest.approx(agg, rel=1e-12)
    n_ties = sum(t["pi"] is not None for t in scores.ties)
    assert scores.numbers["mixture_n_ties"] == n_ties
    assert len(scores.ties) == math.comb(MAX_LAYER + 1, 2)


def test_small_bank_is_deterministic_for_a_seed(small):
    ev, theories, model, scores = small
    again = score_bank(ev, theories, model, seed=15)
    pd.testing.assert_frame_equal(again.flips, scores.flips)
    pd.testing.assert_frame_equal(again.per_depth, scores.per_depth)
    assert again.numbers == scores.numbers
