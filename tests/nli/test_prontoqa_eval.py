"""PrOntoQA's evaluator (rebuilt) against check-trace: the agreement table, pinned."""

import json
from pathlib import Path

import pytest

from nesybench.nli.checker import classify_steps
from nesybench.nli.prontoqa_eval import (
    CORRUPTIONS,
    agreement_table,
    corrupt_chain,
    prontoqa_verdict,
)
from nesybench.reasoning.grammar import parse_context, parse_sentence

DEV = Path(__file__).resolve().parents[3] / "shared" / "external" / "prontoqa-dev.json"
CONTEXT = (
    "Every wumpus is a yumpus. Every yumpus is a dumpus. Every dumpus is a rompus. "
    "Every rompus is a zumpus. Every zumpus is a tumpus. Max is a wumpus."
)
GOLD = [
    "Max is a wumpus.",
    "Every wumpus is a yumpus.",
    "Max is a yumpus.",
    "Every yumpus is a dumpus.",
    "Max is a dumpus.",
    "Every dumpus is a rompus.",
    "Max is a rompus.",
    "Every rompus is a zumpus.",
    "Max is a zumpus.",
    "Every zumpus is a tumpus.",
    "Max is a tumpus.",
]


def theory_question():
    return parse_context(CONTEXT), parse_sentence("True or false: Max is a tumpus.").atom


def test_prontoqa_verdict_gold_and_fact_only():
    th, q = theory_question()
    assert prontoqa_verdict(GOLD, th, q).strict
    facts_only = GOLD[::2]
    v = prontoqa_verdict(facts_only, th, q)
    assert not v.strict and v.broad  # convention 1: unstated rules are non-atomic
    assert set(v.classes[1:]) == {"non-atomic"}


def test_classify_steps_classes():
    th, q = theory_question()
    v = classify_steps(
        [
            "Max is a dumpus.",
            "Since Max is a dumpus, Max is a rompus.",
            "All rompuses are tumpuses.",
            "Max is a tumpus.",
        ],
        th,
        q,
    )
    assert v.classes == ("skip", "non-atomic", "skip", "skip") and v.broad
    bad = classify_steps(["Max is a jompus.", "Max is a tumpus."], th, q)
    assert bad.classes[0] == "invalid" and not bad.broad


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corrupt_chain_deterministic(kind):
    th, _ = theory_question()
    assert corrupt_chain(GOLD, kind, th, seed=3, key="a") == corrupt_chain(
        GOLD, kind, th, seed=3, key="a"
    )


def _examples(n=None):
    data = json.loads(DEV.read_text())[:n]
    return [
        (r["id"], parse_context(r["context"]), parse_sentence(r["question"]).atom, r["explanation"])
        for r in data
    ]


# (strict agreement, broad agreement) per corruption kind on the first 100 real gold chains.
# Every difference is a named convention of prontoqa_eval's docstring:
#   drop_rules strict 0.0           -- convention 1 (stated rules)
#   unstated_rule broad 0.0         -- convention 2 (PrOntoQA ignores the unused bad rule)
#   reorder_blocks / wrong_intermediate broad < 1 -- conventions 2 and 4 (an out-of-order or
#   wrong step the conclusion does not rest on)
PINNED_100 = {
    "gold": (1.0, 1.0),
    "skip_one": (1.0, 1.0),
    "skip_two": (1.0, 1.0),
    "reorder_blocks": (1.0, 0.71),
    "wrong_intermediate": (1.0, 0.76),
    "drop_rules": (0.0, 1.0),
    "drop_conclusion": (1.0, 1.0),
    "negate_conclusion": (1.0, 1.0),
    "unstated_rule": (1.0, 0.0),
    "all_plural": (1.0, 1.0),
    "therefore": (1.0, 1.0),
    "so": (1.0, 1.0),
    "since": (1.0, 1.0),
    "conjunction": (1.0, 1.0),
}


@pytest.mark.skipif(not DEV.exists(), reason="../shared/external is absent")
def test_agreement_table_pinned_first_100():
    table = agreement_table(_examples(100))
    got = {r.kind: (r.strict_agree, r.broad_agree) for r in table.itertuples()}
    assert got == PINNED_100


@pytest.mark.slow
@pytest.mark.skipif(not DEV.exists(), reason="../shared/external is absent")
def test_agreement_table_pinned_all_500():
    table = agreement_table(_examples())
    got = {r.kind: (round(r.strict_agree, 3), round(r.broad_agree, 3)) for r in table.itertuples()}
    expected = {k: (1.0, 1.0) for k in CORRUPTIONS}
    expected.update(
        {
            "reorder_blocks": (1.0, 0.744),
            "wrong_intermediate": (1.0, 0.814),
            "drop_rules": (0.0, 1.0),
            "unstated_rule": (1.0, 0.0),
        }
    )
    assert got == expected
