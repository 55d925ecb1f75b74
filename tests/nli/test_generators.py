"""PrOntoQA-lite and FOLIO-lite generators: structure, round trips, determinism, label semantics."""

from __future__ import annotations

import pytest

from nesybench.nli.folio_lite import generate_corpus as folio_corpus
from nesybench.nli.prontoqa_lite import ProntoExample, generate_corpus, generate_example
from nesybench.nli.systems import dual_query_label
from nesybench.reasoning.grammar.prontoqa import render_fact, render_rule
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from nesybench.reasoning.prover import prove
from nesybench.reasoning.terms import is_negated

MIX = {"True": 0.45, "False": 0.22, "Unknown": 0.33}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prontoqa_example_structure_and_round_trip(seed):
    for ex in generate_corpus([1, 3, 5], 10, seed=seed, corrupt_prob=0.25):
        sentences = split_sentences(ex.context)
        assert len(sentences) == 2 * ex.hops + 1 and len(ex.gold_cot) == ex.hops
        rules = []
        for j, s in enumerate(sentences[:-1]):
            res = parse_sentence(s)
            if j == ex.corrupted:
                assert not res.ok and s.startswith("All ")
                assert parse_sentence(ex.gold_rules[j]).ok
            else:
                assert s == ex.gold_rules[j] and res.kind == "rule"
            rules.append(parse_sentence(ex.gold_rules[j]).rule)
        # listed order: hop by hop, gold before distractor exactly when the coin says so
        for i in range(ex.hops):
            pair = rules[2 * i : 2 * i + 2]
            assert {r.body[0].atom.pred for r in pair} == {ex.chain[i]}
            assert (pair[0].head.pred == ex.chain[i + 1]) == ex.gold_first[i]
        assert parse_sentence(sentences[-1]).atom == ex.axiom
        q = parse_sentence(ex.question).atom
        assert q.pred == ("" if ex.positive_query else "not_") + ex.chain[-1]
        assert [parse_sentence(s).atom.pred for s in ex.gold_cot] == list(ex.chain[1:])


def test_prontoqa_generation_is_deterministic_and_record_round_trips():
    a = generate_example(5, 3, seed=11, corrupt_prob=0.5)
    assert a == generate_example(5, 3, seed=11, corrupt_prob=0.5)
    assert a != generate_example(5, 3, seed=12, corrupt_prob=0.5)
    assert ProntoExample.from_record(a.as_record()) == a


def test_prontoqa_corrupt_prob_extremes():
    assert all(e.corrupted == -1 for e in generate_corpus([1, 2], 15, seed=0, corrupt_prob=0.0))
    assert all(e.corrupted >= 0 for e in generate_corpus([1, 2], 15, seed=0, corrupt_prob=1.0))


def test_prontoqa_rejects_impossible_hops():
    with pytest.raises(ValueError):
        generate_example(0, 0, seed=0, corrupt_prob=0.0)
    with pytest.raises(ValueError):
        generate_example(9, 0, seed=0, corrupt_prob=0.0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_folio_gold_label_is_the_open_world_semantics(seed):
    for ex in folio_corpus(40, seed=seed, label_mix=MIX, max_chain=3):
        theory = parse_context(ex.context)
        assert theory.ok
        for sentence in split_sentences(ex.context):  # every generated sentence round-trips
            res = parse_sentence(sentence)
            again = (
                render_rule(res.rule, style=res.style, adjective=res.adjective)
                if res.kind == "rule"
                else render_fact(res.atom)
            )
            assert again == sentence
        # negated predicates are never facts nor rule premises: no query needs contraposition
        assert not any(is_negated(f.pred) for f in theory.facts)
        assert not any(is_negated(lit.atom.pred) for r in theory.rules for lit in r.body)
        query = parse_sentence(ex.conclusion).atom
        assert query.pred == ex.query_pred
        assert dual_query_label(theory, query) == ex.gold_label
        # labels partition: the statement and its negation are never both provable
        from nesybench.reasoning.terms import complement

        assert not (
            prove(query, theory.facts, theory.rules)
            and prove(complement(query), theory.facts, theory.rules)
        )


def test_folio_label_mix_extremes():
    only_unknown = {"True": 0.0, "False": 0.0, "Unknown": 1.0}
    assert {
        e.gold_label for e in folio_corpus(20, seed=0, label_mix=only_unknown, max_chain=2)
    } == {"Unknown"}
