"""The grammar's ProofWriter dialect: every template, hand-made sentences, round trips."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.reasoning.grammar.proofwriter import (
    PROOFWRITER_QUESTIONS,
    base_form,
    render_proofwriter,
    render_proofwriter_question,
    third_person,
)
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from nesybench.reasoning.terms import Atom, Literal, Rule

X = ("X",)
SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def pw(text):
    return parse_sentence(text, dialect="proofwriter")


@pytest.mark.parametrize(
    "sentence, atom",
    [
        ("Bob is cold.", Atom("cold", ("bob",))),
        ("The cow is not blue.", Atom("not_blue", ("the_cow",))),
        ("The bald eagle chases the cat.", Atom("chases", ("the_bald_eagle", "the_cat"))),
        ("The bear does not chase the lion.", Atom("not_chases", ("the_bear", "the_lion"))),
        ("Zelda watches the old grey wolf.", Atom("watches", ("zelda", "the_old_grey_wolf"))),
        ("The fox does not watch Zelda.", Atom("not_watches", ("the_fox", "zelda"))),
        ("Anne carries the box", Atom("carries", ("anne", "the_box"))),  # no final period
    ],
)
def test_facts_with_relations_and_negation(sentence, atom):
    res = pw(sentence)
    assert res.kind == "fact" and res.atom == atom


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("Young things are big.", "big(X) :- young(X)."),
        ("All quiet people are rough.", "rough(X) :- quiet(X)."),
        ("Red, cold things are not round.", "not_round(X) :- red(X), cold(X)."),
        ("All red, cold and wet things are round.", "round(X) :- red(X), cold(X), wet(X)."),
        ("If someone is big then they are kind.", "kind(X) :- big(X)."),
        (
            "If something is big and not red then it is not kind.",
            "not_kind(X) :- big(X), not red(X).",
        ),
        (
            "If something chases the bear and it sees the rabbit then the bear does not visit the "
            "rabbit.",
            "not_visits(the_bear, the_rabbit) :- chases(X, the_bear), sees(X, the_rabbit).",
        ),
        (
            "If someone needs the lion then they do not see the bald eagle.",
            "not_sees(X, the_bald_eagle) :- needs(X, the_lion).",
        ),
        (
            "If Dave is smart and Dave is kind then Dave is quiet.",
            "quiet(dave) :- smart(dave), kind(dave).",
        ),
        (
            "If something visits the cow then the cow chases it.",
            "chases(the_cow, X) :- visits(X, the_cow).",
        ),
        (
            "If the cat does not eat the mouse then the mouse is happy.",
            "happy(the_mouse) :- not eats(the_cat, the_mouse).",
        ),
        (
            "If someone is big and they do not like Bob then Bob is sad.",
            "sad(bob) :- big(X), not likes(X, bob).",
        ),
    ],
)
def test_rules_of_every_template(sentence, expected):
    res = pw(sentence)
    assert res.kind == "rule", res.reason
    assert str(res.rule) == expected


def test_question_is_the_statement_after_the_last_question_mark():
    res = pw(
        "Based on the above information, is the following statement true, false, or "
        "unknown? The tiger is not young."
    )
    assert res.kind == "question" and res.atom == Atom("not_young", ("the_tiger",))


@pytest.mark.parametrize(
    "sentence",
    [
        "It is red.",  # a pronoun with nothing to refer to
        "If it is red then something is big.",
        "The cat is big and red.",  # two statements in a fact
        "If something is big then it is red and blue.",
        "Bob is.",
        "Big things are.",
        "The is big.",
        "Is Bob big?",  # a question with no statement after it
        "If something is big then",
        "Bob chase the cat.",  # verb agreement
        "They is big.",
        "If something is not_red then it is big.",
        "",
    ],
)
def test_out_of_template_sentences_are_failures_with_a_reason(sentence):
    res = pw(sentence)
    assert res.kind == "failure" and res.reason


def test_parse_context_collects_failures_without_raising():
    theory = parse_context(
        "Bob is big. Wibble wobble! If something is big then it is red.", dialect="proofwriter"
    )
    assert theory.facts == (Atom("big", ("bob",)),)
    assert len(theory.rules) == 1
    assert theory.failures and theory.failures[0][0] == "Wibble wobble!"


def test_unknown_dialect_is_a_value_error():
    with pytest.raises(ValueError, match="dialect"):
        parse_sentence("Bob is big.", dialect="klingon")


@pytest.mark.parametrize("verb", ["see", "chase", "watch", "go", "carry", "have", "kiss", "need"])
def test_third_person_and_base_form_round_trip(verb):
    assert base_form(third_person(verb)) == verb


# ---------------------------------------------------------------- round trips
ADJ = st.sampled_from(["big", "red", "kind", "round", "cold"])
VERB = st.sampled_from(["chases", "sees", "likes", "watches", "carries"])
CONST = st.sampled_from(["bob", "anne", "the_cat", "the_bald_eagle"])


@st.composite
def literals(draw, *, variable_ok):
    terms = st.sampled_from(["X"]) if variable_ok and draw(st.booleans()) else CONST
    if draw(st.booleans()):
        atom = Atom(draw(ADJ), (draw(terms),))
    else:
        atom = Atom(draw(VERB), (draw(terms), draw(CONST)))
    return atom, draw(st.booleans())


@st.composite
def rules(draw):
    n = draw(st.integers(1, 3))
    body = [draw(literals(variable_ok=True)) for _ in range(n)]
    # the variable must be introduced by the first literal that mentions it
    head_atom, head_positive = draw(literals(variable_ok=any("X" in a.args for a, _ in body)))
    head = head_atom if head_positive else Atom("not_" + head_atom.pred, head_atom.args)
    return Rule(head, tuple(Literal(a, p) for a, p in body))


@settings(max_examples=200, deadline=None)
@given(rules())
def test_render_then_parse_gives_the_rule_back(rule):
    text = render_proofwriter(rule)
    res = pw(text)
    assert res.kind == "rule", (text, res.reason)
    assert res.rule == rule, text


@settings(max_examples=100, deadline=None)
@given(literals(variable_ok=False))
def test_render_then_parse_gives_the_fact_back(lit):
    atom, positive = lit
    fact = atom if positive else Atom("not_" + atom.pred, atom.args)
    assert pw(render_proofwriter(fact)).atom == fact


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_text_never_raises(text):
    for dialect in ("proofwriter", "prontoqa"):
        res = parse_sentence(text, dialect=dialect)
        assert res.kind in ("fact", "rule", "question", "failure")
        parse_context(text, dialect=dialect)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "If",
                "something",
                "someone",
                "it",
                "they",
                "is",
                "are",
                "not",
                "and",
                "then",
                "the",
                "cat",
                "Bob",
                "big",
                "chases",
                "does",
                "do",
                "chase",
                "things",
                "All",
                ",",
                "?",
            ]
        ),
        max_size=14,
    )
)
def test_template_words_in_any_order_never_raise(words):
    res = pw(" ".join(words) + ".")
    assert res.kind in ("fact", "rule", "question", "failure")


# ---------------------------------------------------------------- questions
@pytest.mark.parametrize("world", ["closed", "open"])
@pytest.mark.parametrize("atom", [Atom("kind", ("anne",)), Atom("not_chases", ("the_cat", "bob"))])
def test_render_proofwriter_question_round_trips(world, atom):
    text = render_proofwriter_question(atom, world=world)
    res = pw(text)
    assert res.kind == "question" and res.atom == atom
    assert res.style == PROOFWRITER_QUESTIONS[world]
    assert text.endswith(
        ("true or false? ", "or unknown? ")[world == "open"] + render_proofwriter(atom)
    )


def test_render_proofwriter_question_rejects_an_unknown_world():
    with pytest.raises(ValueError, match="world must be one of"):
        render_proofwriter_question(Atom("kind", ("anne",)), world="half-open")


def test_property_rules_with_negated_conditions_read_as_negated_literals():
    # the open-world reading (explicit negative atoms) is the chainer's, not the grammar's
    res = pw("If something is not big then it is not furry.")
    assert res.rule == Rule(Atom("not_furry", X), (Literal(Atom("big", X), positive=False),))
    assert render_proofwriter(res.rule) == "If something is not big then it is not furry."


@pytest.mark.skipif(
    not (SHARED / "external" / "proofwriter" / "dev.json").exists(),
    reason="../shared/external not present",
)
def test_parse_sentence_reads_proofwriters_questions_and_property_conditionals():
    """Every question and every property conditional of ProofWriter's shipped file."""
    import re

    records = json.loads((SHARED / "external" / "proofwriter" / "dev.json").read_text())
    prop = r"(not )?[a-z]+"
    conditional = re.compile(rf"^If something is {prop}( and {prop})* then it is {prop}\.$")
    rules = [s for r in records for s in split_sentences(r["context"]) if conditional.match(s)]
    assert records and rules
    assert all(pw(r["question"]).kind == "question" for r in records)
    assert all(pw(s).kind == "rule" for s in rules)
