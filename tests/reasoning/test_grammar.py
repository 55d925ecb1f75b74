"""The one sentence grammar: round trips, published forms, corruption, never raising."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.reasoning.grammar.prontoqa import (
    corrupt_rule,
    make_rule,
    pluralize,
    render_fact,
    render_question,
    render_rule,
    singularize,
)
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence
from nesybench.reasoning.grammar.sentence import Lexicon
from nesybench.reasoning.terms import Atom, complement

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
NOUNS = [
    "wumpus",
    "yumpus",
    "zumpus",
    "dumpus",
    "impus",
    "jompus",
    "numpus",
    "tumpus",
    "vumpus",
    "rompus",
    "brimpus",
    "lempus",
]
ADJECTIVES = ["sour", "luminous", "nervous", "aggressive", "opaque", "earthy", "red", "small"]
NAMES = ["max", "sam", "stella", "polly", "rex", "wren", "fae", "alex"]

noun = st.sampled_from(NOUNS)
adjective = st.sampled_from(ADJECTIVES)
name = st.sampled_from(NAMES)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Every wumpus is a jompus.", "jompus(X) :- wumpus(X)."),
        ("Each yumpus is an impus.", "impus(X) :- yumpus(X)."),
        (
            "Each X is an Y.".replace("X", "tumpus").replace("Y", "rompus"),
            "rompus(X) :- tumpus(X).",
        ),
        ("Dumpuses are wumpuses.", "wumpus(X) :- dumpus(X)."),
        ("Jompuses are not yumpuses.", "not_yumpus(X) :- jompus(X)."),
        ("Each yumpus is aggressive.", "aggressive(X) :- yumpus(X)."),
        ("Tumpuses are not sour.", "not_sour(X) :- tumpus(X)."),
        ("Rompuses are not luminous.", "not_luminous(X) :- rompus(X)."),
        ("Every tumpus is not angry.", "not_angry(X) :- tumpus(X)."),
        ("Every wumpus is not a yumpus.", "not_yumpus(X) :- wumpus(X)."),
    ],
)
def test_parse_sentence_published_rule_forms(text, expected):
    res = parse_sentence(text)
    assert res.kind == "rule", res.reason
    assert str(res.rule) == expected


@pytest.mark.parametrize(
    "text, kind, atom",
    [
        ("Max is a yumpus.", "fact", Atom("yumpus", ("max",))),
        ("Max is not sour.", "fact", Atom("not_sour", ("max",))),
        ("Stella is an impus.", "fact", Atom("impus", ("stella",))),
        ("True or false: Sam is a jompus.", "question", Atom("jompus", ("sam",))),
        ("True or false: Sam is not a jompus.", "question", Atom("not_jompus", ("sam",))),
        (
            "Is the following statement true or false? Max is sour.",
            "question",
            Atom("sour", ("max",)),
        ),
    ],
)
def test_parse_sentence_facts_and_questions(text, kind, atom):
    res = parse_sentence(text)
    assert (res.kind, res.atom) == (kind, atom)


@pytest.mark.parametrize(
    "text",
    [
        "All wumpuses are jompuses.",
        "Every wumpuses is a jompus.",
        "max is a yumpus.",
        "Max is a.",
        "Max are yumpuses.",
        "Sam is a jompus",
        "",
        "   ",
        "Some wumpus is a jompus.",
        "Max is a big yumpus.",
        "True or false: Every wumpus is a jompus.",
    ],
)
def test_parse_sentence_rejects_out_of_grammar(text):
    res = parse_sentence(text)
    assert res.kind == "failure" and res.reason


def test_parse_sentence_non_string_is_failure():
    for value in (None, 3, ["Max is a yumpus."], b"Max is a yumpus."):
        assert parse_sentence(value).kind == "failure"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_sentence_never_raises_on_arbitrary_text(text):
    res = parse_sentence(text)
    assert res.kind in ("fact", "rule", "question", "failure")
    assert res.ok == (res.kind != "failure")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Every",
                "Each",
                "All",
                "is",
                "are",
                "a",
                "an",
                "not",
                "Max",
                "wumpus",
                "wumpuses",
                "sour",
                ".",
                "True or false:",
            ]
        ),
        max_size=8,
    )
)
def test_parse_sentence_never_raises_on_grammar_shaped_noise(words):
    assert parse_sentence(" ".join(words)).kind in ("fact", "rule", "question", "failure")


@settings(max_examples=200, deadline=None)
@given(
    noun, st.one_of(noun, adjective), st.booleans(), st.sampled_from(["every", "each", "plural"])
)
def test_render_rule_round_trips(body, head, negated, style):
    adjective_head = head in ADJECTIVES
    rule = make_rule(body, ("not_" if negated else "") + head)
    text = render_rule(rule, style=style, adjective=adjective_head)
    res = parse_sentence(text)
    assert res.kind == "rule" and res.rule == rule and res.adjective == adjective_head, text


@settings(max_examples=200, deadline=None)
@given(
    name, st.one_of(noun, adjective), st.booleans(), st.sampled_from(["true_or_false", "statement"])
)
def test_render_fact_and_question_round_trip(who, pred, negated, qstyle):
    atom = Atom(("not_" if negated else "") + pred, (who,))
    adj = pred in ADJECTIVES
    assert parse_sentence(render_fact(atom, adjective=adj)).atom == atom
    q = parse_sentence(render_question(atom, style=qstyle, adjective=adj))
    assert q.kind == "question" and q.atom == atom


@settings(max_examples=100, deadline=None)
@given(noun, noun, st.booleans())
def test_corrupt_rule_rejected_strictly_but_meaning_preserving(body, head, negated):
    rule = make_rule(body, ("not_" if negated else "") + head)
    text = corrupt_rule(rule)
    assert text.startswith("All ")
    assert parse_sentence(text).kind == "failure"
    repaired = parse_sentence(text, lexicon=Lexicon(plural_quantifiers=frozenset({"all"})))
    assert repaired.kind == "rule" and repaired.rule == rule


def test_lexicon_synonyms_repair():
    lex = Lexicon(synonyms={"is a kind of": "is a"})
    assert parse_sentence("Every wumpus is a kind of jompus.").kind == "failure"
    assert parse_sentence("Every wumpus is a kind of jompus.", lexicon=lex).rule == make_rule(
        "wumpus", "jompus"
    )


def test_morphology_and_complement():
    assert pluralize("wumpus") == "wumpuses" and singularize("wumpuses") == "wumpus"
    assert singularize("luminous") is None and singularize("cats") == "cat"
    assert complement(Atom("sour", ("max",))) == Atom("not_sour", ("max",))
    assert complement(Atom("not_sour", ("max",))) == Atom("sour", ("max",))


def test_render_rule_rejects_forms_without_sentence():
    from nesybench.reasoning.terms import Literal, Rule

    with pytest.raises(ValueError):
        render_rule(
            Rule(Atom("p", ("X",)), (Literal(Atom("q", ("X",))), Literal(Atom("r", ("X",)))))
        )
    with pytest.raises(ValueError):
        render_rule(make_rule("a", "b"), style="some")


@pytest.mark.skipif(
    not (SHARED / "external" / "prontoqa-dev.json").exists(),
    reason="../shared/external not present",
)
def test_parse_context_covers_published_prontoqa_dev():
    records = json.loads((SHARED / "external" / "prontoqa-dev.json").read_text())
    n_sentences = 0
    for rec in records:
        theory = parse_context(rec["context"])
        assert theory.ok, theory.failures
        for sentence in rec["explanation"] + [rec["question"]]:
            assert parse_sentence(sentence).ok, sentence
            n_sentences += 1
    assert len(records) == 500 and n_sentences == 500 * 12


def test_lexicon_forced_adjective():
    assert str(parse_sentence("Wumpuses are flumps.").rule) == "flump(X) :- wumpus(X)."
    res = parse_sentence("Wumpuses are flumps.", lexicon=Lexicon(adjectives=frozenset({"flumps"})))
    assert str(res.rule) == "flumps(X) :- wumpus(X)." and res.adjective
