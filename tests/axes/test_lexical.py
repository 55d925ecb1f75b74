from __future__ import annotations

import pytest

from nesybench.axes.bank import LAYERS
from nesybench.axes.lexical import (
    REPAIRABLE,
    SYNONYMS,
    apply_synonyms,
    repair_lexicon,
    rewrite,
    run_pipeline,
    translate,
)
from nesybench.reasoning.terms import Atom


def test_synonym_table_has_five_entries_three_repairable():
    assert len(SYNONYMS) == 5 and len(REPAIRABLE) == 3 and set(REPAIRABLE) < set(SYNONYMS)
    assert all(p in LAYERS for p in SYNONYMS)


@pytest.mark.parametrize("pred", sorted(SYNONYMS))
def test_translate_strict_rejects_every_synonym_and_repair_knows_three(pred):
    text = rewrite("True or false: Anne is not " + pred + ".", pred)
    assert translate(text) is None
    repaired = translate(text, lexicon=repair_lexicon())
    if pred in REPAIRABLE:
        assert repaired == Atom("not_" + pred, ("anne",))
    else:
        assert repaired is None


def test_run_pipeline_is_exact_on_parsed_and_repair_helps(default_bank):
    _, questions, theories = default_bank
    ev = apply_synonyms(questions[questions["split"] == "eval"], prob=0.35, seed=15)
    assert ev["rewritten"].sum() > 0
    assert not ev.loc[~ev["pred"].isin(list(SYNONYMS)), "rewritten"].any()
    out = run_pipeline(ev, theories, lexicon=repair_lexicon())
    parsed = out[out["parsed"]]
    assert parsed["correct"].all()  # every parsed question, not an average
    assert out["parsed_strict"].mean() < out["parsed"].mean() < 1.0
    # unparsed questions are exactly the rewrites the repair lexicon does not know
    merged = ev.merge(out, on=["split", "qid"])
    unparsed = merged[~merged["parsed"]]
    assert unparsed["rewritten"].all() and not unparsed["pred"].isin(list(REPAIRABLE)).any()


def test_apply_synonyms_probability_zero_and_one(default_bank):
    _, questions, _ = default_bank
    q = questions.head(300)
    assert not apply_synonyms(q, prob=0.0, seed=1)["rewritten"].any()
    full = apply_synonyms(q, prob=1.0, seed=1)
    assert (full["rewritten"] == q["pred"].isin(list(SYNONYMS))).all()
