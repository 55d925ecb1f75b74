"""The three reference systems on grid records: how each one answers and how each one fails."""

from __future__ import annotations

import pytest

from nesybench.axes.grid import Cell, GridSpec, generate_grid, grid_question
from nesybench.axes.lexical import surface_lexicon
from nesybench.axes.references import (
    capped_answer,
    fit_soft_reasoner,
    pipeline_answer,
    read_record,
    reference_predictions,
    soft_answers,
    soft_features,
)
from nesybench.axes.soft_reasoner import local_features
from nesybench.reasoning.grammar.proofwriter import PROOFWRITER_QUESTIONS
from nesybench.reasoning.terms import Atom, Literal, Rule, Theory

X = ("X",)
OPEN = ["A) True", "B) False", "C) Unknown"]
CLOSED = ["A) True", "B) False"]


def _record(context, question, options=OPEN, qid="q"):
    return {"id": qid, "context": context, "question": question, "options": options}


OWA = PROOFWRITER_QUESTIONS["open"]
CWA = PROOFWRITER_QUESTIONS["closed"]


@pytest.fixture(scope="module")
def grid_records():
    spec = GridSpec(
        depth=(0, 1, 2, 3), distractors=(0, 2), vocabulary=(8,), synonyms=(0.0, 0.3), per_cell=6
    )
    return [q.record() for q in generate_grid(spec, seed=5)]


@pytest.fixture(scope="module")
def soft_model():
    spec = GridSpec(
        depth=(0, 1), distractors=(0,), order=("canonical",), synonyms=(0.0,), per_cell=24
    )
    return fit_soft_reasoner([q.record() for q in generate_grid(spec, seed=5, split="train")])


def test_pipeline_answer_reads_proofwriter_sentences_open_world():
    context = (
        "Bob is funded. If something is funded then it is not cited. "
        "If something is not cited then it is kind."
    )
    assert pipeline_answer(_record(context, f"{OWA} Bob is kind.")) == "True"
    assert pipeline_answer(_record(context, f"{OWA} Bob is cited.")) == "False"
    assert pipeline_answer(_record(context, f"{OWA} Bob is not cited.")) == "True"
    assert pipeline_answer(_record(context, f"{OWA} Anne is kind.")) == "Unknown"
    # a two-option record is read in the closed world: 'not cited' holds of Anne by failure
    assert pipeline_answer(_record(context, f"{CWA} Anne is kind.", CLOSED)) == "True"
    assert pipeline_answer(_record(context, f"{CWA} Bob is cited.", CLOSED)) == "False"


def test_pipeline_answer_abstains_outside_its_grammar_and_vocabulary():
    # "big" is not in the vocabulary; "referenced" is a synonym the repair lexicon does not know
    assert pipeline_answer(_record("Bob is big.", f"{OWA} Bob is big.")) is None
    assert pipeline_answer(_record("Bob is referenced.", f"{OWA} Bob is cited.")) is None
    assert pipeline_answer(_record("Funded people tend to be kind.", f"{OWA} Bob is kind.")) is None
    # "sponsored" is repaired to "funded"
    record = _record(
        "Bob is sponsored. If something is funded then it is kind.", f"{OWA} Bob is kind."
    )
    assert pipeline_answer(record) == "True"


def test_capped_answer_stops_after_cap_waves():
    context = (
        "Bob is funded. If something is funded then it is kind. "
        "If something is kind then it is wise."
    )
    record = _record(context, f"{OWA} Bob is wise.")
    assert [capped_answer(record, cap=c) for c in (0, 1, 2)] == ["Unknown", "Unknown", "True"]
    closed = _record(context, f"{CWA} Bob is wise.", CLOSED)
    assert [capped_answer(closed, cap=c) for c in (1, 2)] == ["False", "True"]


def test_read_record_returns_the_theory_and_statement():
    theory, statement = read_record(
        _record("Bob is sponsored.", f"{OWA} Bob is not funded."),
        lexicon=surface_lexicon(),
    )
    assert theory.facts == (Atom("funded", ("bob",)),) and statement == Atom("not_funded", ("bob",))


def test_local_features_without_binding_match_words_not_people():
    theory = Theory(
        (Atom("funded", ("bob",)),),
        (Rule(Atom("kind", X), (Literal(Atom("funded", X)),)),),
        entities=("anne", "bob"),
    )
    bound = local_features(theory, "kind", "anne", False)
    blind = local_features(theory, "kind", "anne", False, bind_entity=False)
    assert bound["one_step"] == 0.0 and blind["one_step"] == 1.0
    assert local_features(theory, "funded", "anne", False)["stated"] == 0.0
    assert local_features(theory, "funded", "anne", False, bind_entity=False)["stated"] == 1.0


def test_reference_systems_fail_the_way_they_should(grid_records, soft_model):
    preds = reference_predictions(grid_records, model=soft_model, cap=2)
    gold = {r["id"]: {"A": "True", "B": "False", "C": "Unknown"}[r["answer"]] for r in grid_records}
    cells = {r["id"]: r["cell"] for r in grid_records}
    pipe = preds["pipeline"]
    answered = [q for q, a in pipe.items() if a is not None]
    assert 0 < len(answered) < len(pipe)
    assert all(pipe[q] == gold[q] for q in answered)  # exact on what it parses
    assert all(pipe[q] is not None for q in pipe if cells[q]["synonyms"] == 0.0)
    capped = preds["depth_capped"]
    assert all(capped[q] == gold[q] for q in capped if cells[q]["depth"] <= 2)
    beyond = [q for q in capped if cells[q]["depth"] > 2]
    assert all(
        capped[q] == ("False" if cells[q]["negation"] == "none" else "Unknown") for q in beyond
    )
    soft = preds["soft_reasoner"]
    assert set(soft.values()) <= {"True", "False"}
    clean = [q for q in soft if cells[q]["depth"] == 0 and cells[q]["distractors"] == 0]
    clean = [q for q in clean if cells[q]["negation"] == "none"]
    assert all(soft[q] == gold[q] for q in clean)


def test_soft_reasoner_is_fooled_by_a_fact_about_someone_else(soft_model):
    q = grid_question(Cell(0, 0, "canonical", "none", 8, 0.0), 1, seed=5)  # a False question
    assert q.label == "False"
    record = q.record()
    assert soft_answers([record], soft_model) == ["False"]
    someone = next(n for n in ("olga", "pavel", "nils") if n not in record["context"].lower())
    fooled = dict(record, context=record["context"] + f" {someone.title()} is {q.statement.pred}.")
    assert soft_answers([fooled], soft_model) == ["True"]
    assert pipeline_answer(fooled) == "False"


def test_soft_features_of_an_unreadable_record_are_zero():
    assert soft_features([_record("Gibberish here.", f"{OWA} Bob is kind.")]).tolist() == [
        [0.0] * 5
    ]


def test_fit_soft_reasoner_needs_both_labels(grid_records):
    only_true = [r for r in grid_records if r["answer"] == "A"]
    with pytest.raises(ValueError, match="True and False"):
        fit_soft_reasoner(only_true)


def test_reference_predictions_answer_each_record_as_it_is_answered_alone(grid_records, soft_model):
    """The readings and answers memoised over a grid change no answer: each record gets what
    the systems give it alone (fresh reader, no memo), across orders and synonym rates."""
    preds = reference_predictions(grid_records, model=soft_model, cap=2)
    for r in grid_records:
        assert preds["pipeline"][r["id"]] == pipeline_answer(r)
        assert preds["depth_capped"][r["id"]] == capped_answer(r, cap=2)
    alone = [soft_answers([r], soft_model)[0] for r in grid_records[::5]]
    assert [preds["soft_reasoner"][r["id"]] for r in grid_records[::5]] == alone


def test_sentence_reader_reads_as_the_grammar_reads_the_whole_text(grid_records):
    from nesybench.axes.grid import SentenceReader, lexicon_for
    from nesybench.axes.lexical import surface_repair_lexicon
    from nesybench.reasoning.grammar.reading import parse_context, parse_sentence
    from nesybench.reasoning.grammar.sentence import Lexicon

    phrase = Lexicon(synonyms={"is a kind of": "is", "sponsored": "funded"})  # not one word
    for lexicon in (surface_lexicon(), surface_repair_lexicon(), phrase):
        reader = SentenceReader(lexicon, max_entries=50)  # restarts its memo along the way
        for r in grid_records:
            lex = lexicon_for(r["context"] + " " + r["question"], lexicon)
            assert reader.context(r["context"]) == parse_context(
                r["context"], lexicon=lex, dialect="proofwriter"
            )
            assert reader.read(r["question"]) == parse_sentence(
                r["question"], lexicon=lex, dialect="proofwriter"
            )
    assert SentenceReader(surface_lexicon()).read(None).kind == "failure"
