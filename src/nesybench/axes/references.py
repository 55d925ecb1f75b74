"""Three reference systems that answer a grid from its text, each failing in a known way.

They read exactly what a user's model reads -- an exported record's
``context``, ``question`` and ``options`` (three options: open-world) -- and
answer with a label, or abstain (None).  Their answers go through the same
scorer as a user's predictions.

``pipeline``      parse-then-prove: the shared grammar with a repair lexicon that
                  knows about half of the synonyms, then the SLD prover (open-world:
                  True if the statement is proved, False if its complement is, else
                  Unknown; closed-world: True or False).  A sentence it cannot read, or
                  a word outside the vocabulary, makes it abstain: exact on everything
                  it answers, its failures are coverage.
``depth_capped``  reads every synonym, then a forward chainer that stops after ``cap``
                  waves; beyond the cap it answers the default (False, or Unknown), so
                  on a balanced cell it scores chance, 1/L, exactly.
``soft_reasoner`` the logistic regression of :mod:`.soft_reasoner` on its five local
                  features, computed without binding the entity (it matches words, not
                  people): irrelevant facts about other people that share the proof's
                  words fool it.  A two-way reader: it never answers Unknown.  Trained
                  on a training grid's questions of depth <= ``max_depth`` without
                  distractors.

An exact-binding local reader would not do: an irrelevant fact or rule never
changes whether the queried atom is stated or one rule away without changing
its label or depth, so such a reader is immune to the distractor axis by
construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..progress import progress
from ..reasoning.chainer import forward_chain
from ..reasoning.grammar.sentence import Lexicon
from ..reasoning.prover import Prover
from ..reasoning.terms import Atom, Theory, base_pred, complement, is_negated, open_world_rule
from .bank import VOCABULARY
from .grid import SentenceReader
from .lexical import surface_lexicon, surface_repair_lexicon
from .soft_reasoner import FEATURES, SoftReasoner, local_features

SYSTEMS = ("soft_reasoner", "pipeline", "depth_capped")
_KNOWN = frozenset(VOCABULARY)


def _open_world(record: Mapping) -> bool:
    return len(record["options"]) == 3


def read_record(record: Mapping, lexicon: Lexicon | SentenceReader) -> tuple[Theory, Atom] | None:
    """The record's theory and statement through ``lexicon`` (the grammar's ProofWriter
    dialect; a :class:`~nesybench.axes.grid.SentenceReader` memoises the reading over many
    records), or None when a sentence does not parse or a word is outside the vocabulary.

    The rules come in the record's reading: for an open-world record (three options) a
    negated condition is the explicit negative atom (:func:`open_world_rule`), so every
    engine below reads the theory as ProofWriter's open world does.
    """
    reader = lexicon if isinstance(lexicon, SentenceReader) else SentenceReader(lexicon)
    parsed = reader.context(record["context"])
    asked = reader.read(record["question"])
    if not parsed.ok or asked.kind != "question":
        return None
    atoms = [*parsed.facts, asked.atom, *(r.head for r in parsed.rules)]
    atoms += [lit.atom for r in parsed.rules for lit in r.body]
    if any(len(a.args) != 1 or base_pred(a.pred) not in _KNOWN for a in atoms):
        return None
    rules = parsed.rules
    if _open_world(record):
        rules = tuple(open_world_rule(r) for r in rules)
    entities = tuple(sorted({a.args[0] for a in parsed.facts} | {asked.atom.args[0]}))
    return Theory(parsed.facts, rules, entities=entities, key=(record["id"],)), asked.atom


def _theory_key(theory: Theory, statement: Atom, record: Mapping) -> tuple:
    """What an answer from the chainer or the prover depends on: the sets of facts and rules
    (their order and repeats change no closure and no provability), the statement, the world."""
    return frozenset(theory.facts), frozenset(theory.rules), statement, _open_world(record)


def pipeline_answer(
    record: Mapping,
    *,
    lexicon: Lexicon | SentenceReader | None = None,
    answers: dict | None = None,
) -> str | None:
    """Parse, then prove; None (abstain) when the text does not parse.  ``answers`` memoises
    the answer by theory (see :func:`_theory_key`) over many records."""
    read = read_record(record, surface_repair_lexicon() if lexicon is None else lexicon)
    if read is None:
        return None
    theory, statement = read
    if answers is None:
        return _prove_answer(theory, statement, record)
    key = _theory_key(theory, statement, record)
    if key not in answers:
        answers[key] = _prove_answer(theory, statement, record)
    return answers[key]


def _prove_answer(theory: Theory, statement: Atom, record: Mapping) -> str:
    prover = Prover(theory.facts, theory.rules)
    if prover.prove(statement) is not None:
        return "True"
    if not _open_world(record):
        return "False"
    return "False" if prover.prove(complement(statement)) is not None else "Unknown"


def capped_answer(
    record: Mapping,
    *,
    cap: int,
    lexicon: Lexicon | SentenceReader | None = None,
    answers: dict | None = None,
) -> str | None:
    """Forward chaining stopped after ``cap`` waves (an atom counts if its depth is <= cap).
    ``answers`` memoises the answer by theory (see :func:`_theory_key`) over many records."""
    read = read_record(record, surface_lexicon() if lexicon is None else lexicon)
    if read is None:
        return None
    theory, statement = read
    if answers is None:
        return _capped(theory, statement, record, cap)
    key = _theory_key(theory, statement, record)
    if key not in answers:
        answers[key] = _capped(theory, statement, record, cap)
    return answers[key]


def _capped(theory: Theory, statement: Atom, record: Mapping, cap: int) -> str:
    closure = forward_chain(theory.facts, theory.rules)

    def within(atom: Atom) -> bool:
        depth = closure.depth(atom)
        return depth is not None and depth <= cap

    if within(statement):
        return "True"
    if not _open_world(record):
        return "False"
    return "False" if within(complement(statement)) else "Unknown"


def soft_features(
    records: Sequence[Mapping], *, lexicon: Lexicon | SentenceReader | None = None
) -> np.ndarray:
    """The soft reasoner's five features per record, entity-blind (rows of :data:`FEATURES`)."""
    lexicon = SentenceReader(surface_lexicon()) if lexicon is None else lexicon
    rows = []
    for record in progress(records, desc="soft reasoner features"):
        read = read_record(record, lexicon)
        if read is None:
            rows.append([0.0] * len(FEATURES))
            continue
        theory, statement = read
        feats = local_features(
            theory,
            base_pred(statement.pred),
            statement.args[0],
            is_negated(statement.pred),
            bind_entity=False,
        )
        rows.append([feats[f] for f in FEATURES])
    return np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))


def fit_soft_reasoner(
    records: Sequence[Mapping], *, C: float = 10.0, max_depth: int = 1
) -> SoftReasoner:
    """Fit on the True/False records of depth <= ``max_depth`` and the lowest distractor level
    present (a clean training set, as the bank's reasoner trains on shallow questions)."""
    clean = min(r["cell"]["distractors"] for r in records)
    train = [
        r
        for r in records
        if r["cell"]["depth"] <= max_depth
        and r["cell"]["distractors"] == clean
        and r["answer"] in ("A", "B")
    ]
    if not train or len({r["answer"] for r in train}) < 2:
        raise InputError("records: the training grid needs True and False questions to fit on")
    y = np.asarray([r["answer"] == "A" for r in train], dtype=int)
    return SoftReasoner(C=C).fit(soft_features(train), y)


def soft_answers(
    records: Sequence[Mapping], model: SoftReasoner, *, lexicon: SentenceReader | None = None
) -> list[str]:
    """True/False by P(True) >= 0.5 (never Unknown)."""
    features = soft_features(records, lexicon=lexicon)
    return ["True" if p else "False" for p in model.predict(features)]


def reference_predictions(
    records: Sequence[Mapping], *, model: SoftReasoner, cap: int
) -> dict[str, dict[str, str | None]]:
    """``system -> {id: label or None}`` for the three systems on ``records``.

    Each reader's sentence readings and each engine's answers are memoised over the records:
    a grid shows every theory at each order and synonym level, and its sentences recur.
    """
    surface, repair = SentenceReader(surface_lexicon()), SentenceReader(surface_repair_lexicon())
    proved, capped = {}, {}
    soft = soft_answers(records, model, lexicon=surface)
    return {
        "soft_reasoner": {r["id"]: a for r, a in zip(records, soft)},
        "pipeline": {
            r["id"]: pipeline_answer(r, lexicon=repair, answers=proved)
            for r in progress(records, desc="pipeline")
        },
        "depth_capped": {
            r["id"]: capped_answer(r, cap=cap, lexicon=surface, answers=capped)
            for r in progress(records, desc="depth-capped")
        },
    }
