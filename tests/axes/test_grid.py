"""The grid generator: balance, structure per axis, pairing, determinism, re-derivation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from nesybench.axes import grid as grid_mod
from nesybench.axes.bank import NAMES, VOCABULARY
from nesybench.axes.grid import (
    AXES,
    DEFAULT_LEVELS,
    DEFAULT_PER_CELL,
    DEFAULT_SEED,
    Cell,
    GridSpec,
    generate_grid,
    grid_jsonl,
    grid_question,
    grid_table,
    level_problem,
    records_from_table,
)
from nesybench.axes.lexical import SURFACE_SYNONYMS, rewrite_sentence
from nesybench.errors import ClaimFailed, InputError
from nesybench.io import parquet_bytes, read_parquet
from nesybench.reasoning.grammar.proofwriter import PROOFWRITER_QUESTIONS
from nesybench.reasoning.grammar.reading import parse_context, split_sentences
from nesybench.reasoning.terms import base_pred, is_negated

REPO = Path(__file__).resolve().parents[2]
SMALL = GridSpec(
    depth=(0, 1, 3),
    distractors=(0, 2),
    order=("canonical", "shuffled"),
    negation=("none", "negated"),
    vocabulary=(8, 20),
    synonyms=(0.0, 0.5),
    per_cell=6,
)


@pytest.fixture(scope="module")
def small_grid():
    return generate_grid(SMALL, seed=3)


def _by_cell(questions):
    out = {}
    for q in questions:
        out.setdefault(q.cell, []).append(q)
    return out


def test_generate_grid_covers_every_cell_with_cell_size_questions(small_grid):
    cells = _by_cell(small_grid)
    assert set(cells) == set(SMALL.cells()) and len(cells) == 3 * 2 * 2 * 2 * 2 * 2
    assert {len(qs) for qs in cells.values()} == {SMALL.cell_size} == {6}
    assert len({q.id for q in small_grid}) == len(small_grid) == SMALL.n_questions


def test_generate_grid_balances_labels_and_question_polarity_per_cell(small_grid):
    for cell, qs in _by_cell(small_grid).items():
        counts = Counter(q.label for q in qs)
        assert set(counts) == set(cell.labels) and len(set(counts.values())) == 1
        if cell.negation == "negated":
            for label in cell.labels:
                pol = Counter(is_negated(q.statement.pred) for q in qs if q.label == label)
                assert pol[True] == pol[False]
        else:
            assert not any(is_negated(q.statement.pred) for q in qs)


def test_cell_size_rounds_per_cell_up_to_the_balance_unit():
    assert GridSpec(per_cell=1).cell_size == 6
    assert GridSpec(per_cell=7).cell_size == 12
    assert GridSpec(negation=("none",), per_cell=7).cell_size == 8
    assert GridSpec(negation=("negated",), per_cell=6).cell_size == 6


def test_grid_question_structure_matches_its_cell(small_grid):
    for q in small_grid:
        c = q.cell
        hops = max(c.depth, 1)
        # one stated chain fact (or near-miss fact) + k per hop; d chain rules + k per hop
        assert len(q.theory.facts) == 1 + c.distractors * hops
        assert len(q.theory.rules) == c.depth + c.distractors * hops
        words = {base_pred(a.pred) for a in q.theory.facts}
        words |= {base_pred(lit.atom.pred) for r in q.theory.rules for lit in (*r.body,)}
        words |= {base_pred(r.head.pred) for r in q.theory.rules}
        assert words <= set(VOCABULARY[: c.vocabulary])
        assert {a.args[0] for a in q.theory.facts} <= set(NAMES)
        assert len(split_sentences(q.context)) == len(q.theory.facts) + len(q.theory.rules)


def test_grid_answer_depth_and_proof_are_the_cell_depth(small_grid):
    for q in small_grid:
        decided = q.label == "True" or (q.label == "False" and q.cell.negation == "negated")
        if decided:
            assert q.answer_depth == q.cell.depth
            rules = [s for s in q.proof if s.startswith("If ")]
            assert len(rules) == q.cell.depth and len(q.proof) == 2 * q.cell.depth + 1
        else:
            assert q.answer_depth is None and q.proof == ()


def test_grid_negation_none_says_not_nowhere_and_negated_cells_use_every_form(small_grid):
    forms = Counter()
    for q in small_grid:
        text = q.context + " " + q.question
        if q.cell.negation == "none":
            assert " not " not in text
            assert q.question.startswith(PROOFWRITER_QUESTIONS["closed"])
            assert q.record()["options"] == ["A) True", "B) False"]
        else:
            assert q.question.startswith(PROOFWRITER_QUESTIONS["open"])
            assert q.record()["options"] == ["A) True", "B) False", "C) Unknown"]
            forms["fact"] += any(is_negated(f.pred) for f in q.theory.facts)
            # a negated condition is stated as ProofWriter states it: a negated literal
            forms["condition"] += any(not r.body[0].positive for r in q.theory.rules)
            forms["conclusion"] += any(is_negated(r.head.pred) for r in q.theory.rules)
            forms["question"] += is_negated(q.statement.pred)
    assert all(forms[k] > 0 for k in ("fact", "condition", "conclusion", "question"))


def test_grid_order_and_synonym_levels_show_the_same_theory(small_grid):
    groups = {}
    for q in small_grid:
        key = (q.cell.depth, q.cell.distractors, q.cell.negation, q.cell.vocabulary, q.index)
        groups.setdefault(key, []).append(q)
    for qs in groups.values():
        assert len(qs) == 4  # 2 orders x 2 synonym rates
        assert len({(q.theory.facts, q.theory.rules, q.statement, q.label) for q in qs}) == 1
        canon = {q.cell.synonyms: q for q in qs if q.cell.order == "canonical"}
        shuffled = {q.cell.synonyms: q for q in qs if q.cell.order == "shuffled"}
        for rate in (0.0, 0.5):
            assert sorted(canon[rate].sentences) == sorted(shuffled[rate].sentences)
        assert canon[0.0].sentences == tuple(
            s
            for s in canon[0.0].sentences
            if not set(s[:-1].split()) & set(SURFACE_SYNONYMS.values())
        )


def test_rewrite_sentence_is_coupled_across_rates():
    sentence = "If something is funded and not cited then it is curious."
    draws = [0.05, 0.3, 0.7]
    rewritten = {
        p: set(rewrite_sentence(sentence, iter(draws), prob=p).split()) for p in (0, 0.1, 0.5, 1)
    }
    assert rewritten[0] == set(sentence.split())
    assert "sponsored" in rewritten[0.1] and "referenced" not in rewritten[0.1]
    assert {"sponsored", "referenced"} <= rewritten[0.5] and "curious." in rewritten[0.5]
    assert {"sponsored", "referenced", "inquisitive."} <= rewritten[1]


def test_grid_distractors_share_the_proofs_vocabulary(small_grid):
    for q in small_grid:
        if q.cell.distractors == 0 or not q.proof:
            continue
        proof = parse_context(" ".join(q.proof), dialect="proofwriter")
        assert proof.ok, proof.failures
        proof_words = {base_pred(a.pred) for a in proof.facts}
        proof_words |= {base_pred(r.head.pred) for r in proof.rules}
        chain_rules = set(proof.rules)
        for rule in q.theory.rules:
            if rule in chain_rules:
                continue
            words = {base_pred(rule.head.pred), base_pred(rule.body[0].atom.pred)}
            assert words & proof_words, rule


def test_generate_grid_is_deterministic_and_cells_do_not_depend_on_each_other():
    cell = Cell(3, 2, "shuffled", "negated", 20, 0.5)
    alone = generate_grid(SMALL, seed=3, cells=[cell])
    again = generate_grid(SMALL, seed=3, cells=[Cell(0, 0, "canonical", "none", 8, 0.0), cell])
    assert grid_jsonl(alone) == grid_jsonl(again[SMALL.cell_size :])
    other_seed = generate_grid(SMALL, seed=4, cells=[cell])
    assert grid_jsonl(other_seed) != grid_jsonl(alone)


def test_grid_question_label_is_rederived_from_the_text(monkeypatch):
    """A label the text does not carry (the chainer's reading of the text disagrees with the
    generator's) stops generation with ClaimFailed; injected at the public chainer."""
    real = grid_mod.forward_chain

    class Flipped:
        def __init__(self, closure):
            self.closure = closure

        def __getattr__(self, name):
            return getattr(self.closure, name)

        def label(self, statement):
            label = self.closure.label(statement)
            return {"True": "False", "False": "True"}.get(label, label)

    monkeypatch.setattr(grid_mod, "forward_chain", lambda *a, **k: Flipped(real(*a, **k)))
    with pytest.raises(ClaimFailed, match="labels it"):
        grid_question(Cell(2, 1, "canonical", "none", 8, 0.0), 0, seed=1)


def test_check_balance_refuses_an_unbalanced_cell(small_grid):
    qs = [q for q in small_grid if q.cell == SMALL.cells()[0]]
    with pytest.raises(ClaimFailed, match="exactly balanced"):
        grid_mod.check_balance(qs[:-1])


def test_grid_record_has_proofwriters_shape(small_grid, tmp_path):
    line = grid_jsonl(small_grid[:1])
    record = json.loads(line)
    assert list(record) == ["id", "context", "question", "options", "answer", "cell", "proof"]
    assert list(record["cell"]) == list(AXES)
    assert record["answer"] in "AB" and line.endswith("\n")
    table = grid_table(small_grid)
    assert table["id"].is_unique and list(table["position"]) == list(range(len(small_grid)))
    assert set(table["label"]) == {"True", "False", "Unknown"}
    # through Parquet and back: the same records, levels in declared order
    data = parquet_bytes(
        table, key=["position"], instrument="axes", stage="generate", params_hash=""
    )
    (tmp_path / "grid.parquet").write_bytes(data)
    back = read_parquet(tmp_path / "grid.parquet")
    assert records_from_table(back.sample(frac=1, random_state=0)) == [
        q.record() for q in small_grid
    ]


def test_default_grid_equals_params_yaml():
    axes = yaml.safe_load((REPO / "params.yaml").read_text())["axes"]
    assert DEFAULT_SEED == 0  # the first seed of every sweep
    assert axes["grid"]["levels"] == DEFAULT_LEVELS
    assert axes["grid"]["per_cell"] == DEFAULT_PER_CELL
    assert GridSpec() == GridSpec.from_params(axes["grid"])


@pytest.mark.parametrize(
    "change, message",
    [
        # the ranges: the schema's own words (workflow/schemas/axes.schema.yaml, axes.grid)
        ({"depth": ()}, "^levels.depth must have at least 1 items, got 0$"),
        ({"depth": (0, 0)}, r"^levels.depth must not repeat items, got \[0, 0\]$"),
        ({"depth": (-1,)}, "^levels.depth.0 must be >= 0, got -1$"),
        ({"depth": (np.int64(21),)}, "^levels.depth.0 must be <= 20, got 21$"),
        ({"depth": (1.5,)}, "^levels.depth.0 must be of type integer, got 1.5$"),
        ({"order": ("sorted",)}, 'levels.order.0 must be one of "canonical", "shuffled"'),
        ({"negation": ("classical",)}, 'levels.negation.0 must be one of "none", "negated"'),
        ({"synonyms": (1.5,)}, "^levels.synonyms.0 must be <= 1, got 1.5$"),
        ({"vocabulary": (65,)}, "^levels.vocabulary.0 must be <= 64, got 65$"),
        ({"per_cell": 0}, "^per_cell must be >= 1, got 0$"),
        ({"per_cell": True}, "^per_cell must be of type integer, got true$"),
        # the cross-level limits the schema cannot state
        ({"vocabulary": (5,)}, r"levels.vocabulary: each size must be in \[max depth \+ 3"),
        ({"distractors": (8,), "vocabulary": (8,)}, "distractor rules per hop at depth"),
        ({"per_cell": 10**5, "distractors": (0, 1, 2)}, "the limit is 1,000,000"),
    ],
)
def test_grid_spec_rejects_impossible_grids(change, message):
    with pytest.raises(InputError, match=message):
        GridSpec(**change)


def test_grid_spec_from_params_names_the_section():
    with pytest.raises(InputError, match=r"params.yaml: axes.grid.levels.depth"):
        GridSpec.from_params({"levels": {**DEFAULT_LEVELS, "depth": [-1]}, "per_cell": 6})
    with pytest.raises(InputError, match="must name exactly the axes"):
        GridSpec.from_params({"levels": {"depth": [0]}, "per_cell": 6})


def test_generate_grid_makes_each_question_as_grid_question_does_alone(small_grid):
    """Theories shared by their presentations change nothing: every question (text, label,
    proof, depth) is the one grid_question makes on its own."""
    alone = [grid_question(q.cell, q.index, seed=3) for q in small_grid]
    assert grid_jsonl(alone) == grid_jsonl(small_grid)
    assert grid_table(alone).equals(grid_table(small_grid))
    assert [q.theory for q in alone] == [q.theory for q in small_grid]


def test_generate_grid_derives_each_theory_once(monkeypatch):
    calls = []
    real = grid_mod.forward_chain
    monkeypatch.setattr(grid_mod, "forward_chain", lambda *a, **k: calls.append(1) or real(*a, **k))
    spec = GridSpec(depth=(1, 2), distractors=(1,), vocabulary=(8,), per_cell=6)
    questions = generate_grid(spec, seed=2)
    structures = {(q.cell.depth, q.cell.distractors, q.cell.negation, q.index) for q in questions}
    assert len(questions) == 4 * len(structures) and len(calls) == len(structures)


def test_grid_readings_are_the_grammars_reading_of_each_sentence(small_grid):
    """The memoised reading (by text, and by the text with synonyms normalised) is the grammar's
    own reading of the sentence with the lexicon cut to it."""
    from nesybench.reasoning.grammar.reading import parse_sentence

    readings = {v: grid_mod.SentenceReader(grid_mod._reading_lexicon(v)) for v in SMALL.vocabulary}
    for q in small_grid[::7]:
        lexicon = grid_mod._reading_lexicon(q.cell.vocabulary)
        for sentence in (*split_sentences(q.context), q.question):
            cut = grid_mod.lexicon_for(sentence, lexicon)
            expected = parse_sentence(sentence, lexicon=cut, dialect="proofwriter")
            assert readings[q.cell.vocabulary].read(sentence) == expected


@pytest.mark.parametrize(
    "damage, message",
    [
        # (call i of the renderer, its text, the texts rendered before it) -> the text shown
        # a sentence whose word is outside the vocabulary reads as another rule or fact
        (
            lambda i, text, seen: text.replace(" is ", " is zany ", 1) if i == 0 else text,
            "reads as",
        ),
        # a dropped sentence: every sentence reads as the theory's, but not all of them
        (lambda i, text, seen: "" if i == 1 else text, "it states"),
        # a duplicated sentence in place of another
        (lambda i, text, seen: seen[0] if i == 1 else text, "it states"),
    ],
)
def test_grid_question_text_must_read_back_as_its_theory(monkeypatch, damage, message):
    """A rendered context that does not state exactly its theory stops generation; the damage is
    injected at the public renderer the grid calls (render_proofwriter), sentence by sentence."""
    real, seen = grid_mod.render_proofwriter, []

    def damaged(item):
        text = damage(len(seen), real(item), seen)
        seen.append(real(item))
        return text

    monkeypatch.setattr(grid_mod, "render_proofwriter", damaged)
    with pytest.raises(ClaimFailed, match=f"must read back as its theory.*{message}"):
        grid_question(Cell(2, 1, "canonical", "none", 8, 0.0), 0, seed=1)


def test_the_vocabulary_range_is_the_word_list():
    """_check_spec's cross-level vocabulary bound names len(VOCABULARY); the schema states it."""
    from nesybench.axes.bank import VOCABULARY
    from nesybench.params import schema_fragment

    levels = schema_fragment("axes.schema.yaml", "/properties/grid/properties/levels")
    assert levels["properties"]["vocabulary"]["items"]["maximum"] == len(VOCABULARY)


def test_level_problem_reads_each_axis_from_the_schema():
    assert level_problem("depth", 3) is None and level_problem("depth", 21) == "integers in [0, 20]"
    assert level_problem("depth", True) == "integers in [0, 20]"
    assert level_problem("order", "sorted") == "one of canonical, shuffled"
    assert level_problem("synonyms", 0.5) is None and level_problem("synonyms", 2) == (
        "numbers in [0, 1]"
    )
