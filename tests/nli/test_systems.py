"""The measured systems: translate-then-prove, greedy, dual query, greedy CWA, majority."""

from __future__ import annotations

import pytest

from nesybench.nli.prontoqa_lite import generate_corpus
from nesybench.nli.scoring import gold_theory, predicted_goal_firing
from nesybench.nli.systems import (
    dual_query_label,
    greedy_cwa_label,
    greedy_reason,
    majority_label,
    translate_then_prove,
)
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence

CONTEXT = (
    "Every wumpus is a rompus. Every wumpus is a yumpus. Every rompus is a brimpus. "
    "Every rompus is a zumpus. Every zumpus is a jompus. Every zumpus is an impus. Sam is a wumpus."
)


def test_translate_then_prove_answers_with_linear_proof():
    ans = translate_then_prove(CONTEXT, "True or false: Sam is not a jompus.")
    assert ans.label == "False" and not ans.abstained
    assert ans.trace == ("Sam is a rompus.", "Sam is a zumpus.", "Sam is a jompus.")
    assert translate_then_prove(CONTEXT, "True or false: Sam is a jompus.").label == "True"


def test_translate_then_prove_abstains_on_any_parse_failure():
    corrupted = CONTEXT.replace("Every rompus is a zumpus.", "All rompuses are zumpuses.")
    ans = translate_then_prove(corrupted, "True or false: Sam is a jompus.")
    assert (
        ans.abstained and ans.label is None and ans.trace == () and "does not parse" in ans.reason
    )
    assert translate_then_prove(CONTEXT, "Is Sam a jompus?").abstained


def test_translate_then_prove_negated_rule_and_unknown():
    ctx = "Tumpuses are not sour. Every wumpus is a tumpus. Max is a wumpus."
    assert (
        translate_then_prove(ctx, "Is the following statement true or false? Max is sour.").label
        == "False"
    )
    assert (
        translate_then_prove(
            ctx, "Is the following statement true or false? Max is not sour."
        ).label
        == "True"
    )
    assert translate_then_prove(ctx, "True or false: Max is a jompus.").label == "Unknown"


def test_greedy_reason_first_applicable_trace_and_cap():
    theory = parse_context(CONTEXT)
    goal = parse_sentence("Sam is a jompus.").atom
    axiom = theory.facts[0]
    ans, reached = greedy_reason(axiom, theory.rules, goal, positive_query=False)
    assert ans.trace == (
        "Sam is a rompus.",
        "Sam is a yumpus.",
        "Sam is a brimpus.",
        "Sam is a zumpus.",
        "Sam is a jompus.",
    )
    assert reached == 5 and ans.label == "False"
    capped, reached = greedy_reason(axiom, theory.rules, goal, positive_query=False, cap=4)
    assert (
        reached is None and capped.label == "True" and len(capped.trace) == 4
    )  # never abstains: wrong instead


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_greedy_goal_firing_predicted_by_last_order_coin(seed):
    for ex in generate_corpus([1, 2, 3, 4, 5], 8, seed=seed, corrupt_prob=0.25):
        theory = gold_theory(ex)
        _, reached = greedy_reason(
            ex.axiom, theory.rules, ex.goal, positive_query=ex.positive_query, cap=9
        )
        assert reached == predicted_goal_firing(ex, cap=9), ex.id


def test_dual_query_and_cwa_labels():
    theory = parse_context(
        "Every wumpus is a rompus. Every wumpus is not a yumpus. Every zumpus is a wumpus. Sam is "
        "a wumpus."
    )
    q = lambda s: parse_sentence(s).atom  # noqa: E731
    assert dual_query_label(theory, q("Sam is a rompus.")) == "True"
    assert dual_query_label(theory, q("Sam is a yumpus.")) == "False"
    assert dual_query_label(theory, q("Sam is a zumpus.")) == "Unknown"
    assert greedy_cwa_label(theory, q("Sam is a rompus.")) == "True"
    assert greedy_cwa_label(theory, q("Sam is a yumpus.")) == "False"
    assert greedy_cwa_label(theory, q("Sam is a zumpus.")) == "False"


def test_majority_label_and_ties():
    assert majority_label(["False", "True", "False", "Unknown"]) == "False"
    assert majority_label(["Unknown", "True"]) == "True"  # ties broken by label order
    with pytest.raises(ValueError):
        majority_label([])
