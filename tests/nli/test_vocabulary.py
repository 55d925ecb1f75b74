"""The nli corpora's fictional vocabulary: distinct made-up concepts and names, inside the shared
grammar, large enough for every hop count the params schema admits, drawn by seed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nesybench.axes.bank import VOCABULARY as BANK_WORDS
from nesybench.nli import folio_lite, prontoqa_lite
from nesybench.nli.vocabulary import CONCEPTS, NAMES
from nesybench.reasoning.grammar.prontoqa import (
    RULE_STYLES,
    make_rule,
    render_fact,
    render_question,
    render_rule,
)
from nesybench.reasoning.grammar.reading import parse_sentence
from nesybench.reasoning.terms import Atom

ROOT = Path(__file__).resolve().parents[2]
MIX = {"True": 0.45, "False": 0.22, "Unknown": 0.33}


def test_concepts_and_names_are_tuples_of_distinct_words():
    assert isinstance(CONCEPTS, tuple) and isinstance(NAMES, tuple)
    assert len(CONCEPTS) == 17 and len(NAMES) == 9
    assert len(set(CONCEPTS)) == len(CONCEPTS)
    # names are constants in lower case inside the corpora: distinct after lower-casing too
    assert len({n.lower() for n in NAMES}) == len(NAMES)


def test_concepts_are_lower_case_and_names_capitalised_letters_only():
    assert all(c.isalpha() and c == c.lower() for c in CONCEPTS)
    assert all(n.isalpha() and n == n.capitalize() for n in NAMES)


def test_concepts_are_made_up_words_disjoint_from_names_and_the_bank_vocabulary():
    assert not set(CONCEPTS) & {n.lower() for n in NAMES}
    # the axes bank's property words are real English: none of them is a concept
    assert not set(CONCEPTS) & set(BANK_WORDS)
    assert not set(CONCEPTS) & {"not", "every", "each", "is", "a", "an", "true", "false"}


@pytest.mark.parametrize("concept", CONCEPTS)
def test_every_concept_and_name_round_trips_through_facts_and_negated_questions(concept):
    for name in NAMES:
        const = name.lower()
        fact = parse_sentence(render_fact(Atom(concept, (const,))))
        assert fact.kind == "fact" and fact.atom == Atom(concept, (const,))
        question = parse_sentence(render_question(Atom("not_" + concept, (const,))))
        assert question.kind == "question" and question.atom == Atom("not_" + concept, (const,))


@pytest.mark.parametrize("style", RULE_STYLES)
def test_every_concept_pair_round_trips_through_every_rule_style(style):
    # includes the plural style ("Wumpuses are impuses."), which must singularise each concept
    for body in CONCEPTS:
        for head in CONCEPTS:
            if body == head:
                continue
            rule = make_rule(body, head)
            parsed = parse_sentence(render_rule(rule, style=style))
            assert parsed.kind == "rule" and parsed.rule == rule, (body, head, style)


def test_vocabulary_fits_the_longest_chains_the_params_schema_admits():
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "nli.schema.yaml").read_text())
    props = schema["properties"]
    max_hops = props["prontoqa"]["properties"]["hops"]["items"]["maximum"]
    max_chain = props["folio"]["properties"]["max_chain"]["maximum"]
    assert 2 * max_hops + 1 <= len(CONCEPTS)  # chain c_0..c_h and one distractor per hop
    assert max_chain + 4 <= len(CONCEPTS)  # chain c_0..c_k, negative, unknown, other
    ex = prontoqa_lite.generate_example(max_hops, 0, seed=0, corrupt_prob=0.0)
    assert len(set(ex.chain + ex.distractors)) == 2 * max_hops + 1
    folio = folio_lite.generate_example(0, seed=0, label_mix=MIX, max_chain=max_chain)
    assert folio.query_pred in CONCEPTS


def test_prontoqa_refuses_a_hop_count_beyond_the_vocabulary():
    hops = (len(CONCEPTS) - 1) // 2 + 1  # 9: needs 19 concepts
    with pytest.raises(ValueError, match=f"needs {2 * hops + 1} concepts.*has {len(CONCEPTS)}"):
        prontoqa_lite.generate_example(hops, 0, seed=0, corrupt_prob=0.0)


def test_prontoqa_draws_distinct_concepts_and_a_name_from_the_vocabulary():
    for index in range(20):
        ex = prontoqa_lite.generate_example(3, index, seed=7, corrupt_prob=0.0)
        words = ex.chain + ex.distractors
        assert len(words) == 7 and len(set(words)) == 7
        assert set(words) <= set(CONCEPTS)
        assert ex.name in {n.lower() for n in NAMES}


def test_folio_draws_its_query_and_name_from_the_vocabulary():
    corpus = folio_lite.generate_corpus(30, seed=7, label_mix=MIX, max_chain=3)
    assert {ex.query_pred for ex in corpus} <= set(CONCEPTS)
    assert {ex.name for ex in corpus} <= {n.lower() for n in NAMES}


def test_vocabulary_draws_are_deterministic_for_a_seed_and_differ_across_seeds():
    def draws(seed):
        return [
            (ex.name, ex.chain, ex.distractors)
            for ex in prontoqa_lite.generate_corpus([1, 3, 5], 5, seed=seed, corrupt_prob=0.25)
        ]

    assert draws(3) == draws(3)
    assert draws(3) != draws(4)
    # over 15 examples, several names and most concepts are used
    used = {w for _, chain, distractors in draws(3) for w in chain + distractors}
    assert len({name for name, _, _ in draws(3)}) >= 3 and len(used) >= 12
