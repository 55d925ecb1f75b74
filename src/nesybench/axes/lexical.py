"""The lexical-variation knob and the translate-then-prove pipeline.

A five-entry synonym table rewrites, with a seeded probability, the question
of every item whose predicate has an entry.  The pipeline translates the
question with the shared grammar (:mod:`nesybench.reasoning.grammar`) and
accepts it only when its predicate is in the bank's vocabulary (the strict
grammar); a repair lexicon that knows three of the five synonyms normalises
the sentence first.  Parsed questions are answered by the shared SLD prover
against the theory, negation read as failure:

    answer(q) = provable(atom)  XOR  negated(q)

so accuracy on parsed questions is 1 by construction and every end-to-end
error is a visible abstention: P(correct) = P(parse) x 1.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..errors import InputError
from ..reasoning.grammar.reading import parse_sentence
from ..reasoning.grammar.sentence import Lexicon
from ..reasoning.prover import Prover
from ..reasoning.terms import Atom, Theory, base_pred, is_negated
from ..seeds import child_rng
from .bank import LAYERS, VOCABULARY

#: canonical predicate -> the synonym that replaces it in a rewritten question
SYNONYMS: dict[str, str] = {
    "productive": "prolific",
    "funded": "sponsored",
    "published": "printed",
    "cited": "referenced",  # unknown to the repair lexicon: stays out of grammar
    "senior": "veteran",  # unknown to the repair lexicon: stays out of grammar
}
#: the canonical predicates whose synonym the repair lexicon knows
REPAIRABLE = ("productive", "funded", "published")

#: a synonym for every word of the generated vocabulary (the grid's surface knob); the bank's
#: five entries above are kept as they are
SURFACE_SYNONYMS: dict[str, str] = {
    **SYNONYMS,
    "tenured": "permanent", "visiting": "guest", "collaborative": "cooperative",
    "distinguished": "illustrious", "eminent": "renowned", "curious": "inquisitive",
    "careful": "cautious", "famous": "celebrated", "tireless": "indefatigable",
    "modest": "humble", "rigorous": "exacting", "creative": "inventive", "patient": "forbearing",
    "ambitious": "aspiring", "thorough": "painstaking", "skeptical": "doubtful",
    "generous": "magnanimous", "prudent": "judicious", "diligent": "industrious",
    "candid": "frank", "agile": "nimble", "brilliant": "gifted", "keen": "eager",
    "lucid": "articulate", "meticulous": "fastidious", "observant": "perceptive",
    "resourceful": "enterprising", "steady": "dependable", "vigilant": "watchful",
    "witty": "humorous", "bold": "daring", "calm": "composed", "cheerful": "jovial",
    "clever": "shrewd", "diplomatic": "tactful", "energetic": "vigorous", "friendly": "amiable",
    "honest": "truthful", "kind": "benevolent", "loyal": "faithful", "optimistic": "hopeful",
    "organized": "orderly", "polite": "courteous", "punctual": "prompt", "quiet": "reticent",
    "reliable": "trustworthy", "sincere": "earnest", "tidy": "neat", "wise": "sage",
    "young": "youthful", "busy": "occupied", "retired": "emeritus", "tenacious": "persistent",
    "outspoken": "vocal", "reserved": "aloof", "playful": "frisky", "gentle": "mild",
    "brave": "valiant", "rich": "wealthy",
}  # fmt: skip
#: the words whose synonym a repairing reader knows on generated theories: the bank's three,
#: then every other word of the vocabulary after the bank's ten (about half of all words)
SURFACE_REPAIRABLE: tuple[str, ...] = REPAIRABLE + VOCABULARY[10::2]


def surface_lexicon(words=None) -> Lexicon:
    """Every synonym -> its canonical word (for ``words``, default all): the generator's own
    reading of a rewritten sentence, used to re-derive each label from the text."""
    words = SURFACE_SYNONYMS if words is None else words
    return Lexicon(synonyms={SURFACE_SYNONYMS[w]: w for w in sorted(words)})


def surface_repair_lexicon() -> Lexicon:
    """The repairing reader's lexicon on generated theories: synonyms of
    :data:`SURFACE_REPAIRABLE` only."""
    return Lexicon(synonyms={SURFACE_SYNONYMS[w]: w for w in sorted(SURFACE_REPAIRABLE)})


def rewrite_sentence(sentence: str, draws, *, prob: float) -> str:
    """Each vocabulary word of ``sentence`` replaced by its synonym when its draw is ``< prob``.

    ``draws`` yields one uniform number per vocabulary word, in reading order, whatever
    ``prob`` is, so rewrites at a lower rate are a subset of those at a higher one (the
    surface levels of a grid are coupled on the same theory).

    >>> rewrite_sentence("If something is funded then it is kind.", iter([0.1, 0.9]), prob=0.5)
    'If something is sponsored then it is kind.'
    """
    out = []
    for token in sentence.split(" "):
        word = token.rstrip(".?,")
        if word in SURFACE_SYNONYMS:
            if next(draws) < prob:
                token = SURFACE_SYNONYMS[word] + token[len(word) :]
        out.append(token)
    return " ".join(out)


def repair_lexicon(repairable=REPAIRABLE) -> Lexicon:
    """The one-round repair: synonym -> canonical word for the known entries."""
    return Lexicon(synonyms={SYNONYMS[p]: p for p in sorted(repairable)})


def rewrite(text: str, pred: str) -> str:
    """Replace the predicate word of a rendered question by its synonym."""
    synonym = SYNONYMS[pred]
    words = text[:-1].split(" ")
    if words[-1] != pred:
        raise InputError(f"question {text!r} does not end with its predicate {pred!r}")
    return " ".join(words[:-1] + [synonym]) + "."


def apply_synonyms(questions: pd.DataFrame, *, prob: float, seed: int) -> pd.DataFrame:
    """Add ``surface`` (the text the pipeline reads) and ``rewritten``.

    Each question whose predicate has a synonym is rewritten with probability
    ``prob``; the draw comes from a generator seeded by the question's split
    and id, so it does not depend on row order.
    """
    surface, rewritten = [], []
    for split, qid, pred, text in questions[["split", "qid", "pred", "text"]].itertuples(
        index=False
    ):
        hit = False
        if pred in SYNONYMS:
            hit = bool(child_rng(seed, "synonym", split, int(qid)).random() < prob)
        surface.append(rewrite(text, pred) if hit else text)
        rewritten.append(hit)
    out = questions.copy()
    out["surface"] = surface
    out["rewritten"] = rewritten
    return out


def translate(
    text: str, *, lexicon: Lexicon | None = None, vocabulary: Mapping[str, int] = LAYERS
) -> Atom | None:
    """The question's atom (``not_p(e)`` for a negated one), or None when out of grammar."""
    result = parse_sentence(text, lexicon=lexicon)
    if result.kind != "question" or result.atom is None:
        return None
    if base_pred(result.atom.pred) not in vocabulary:
        return None
    return result.atom


def answer(atom: Atom, prover: Prover) -> bool:
    """Prove the plain atom; a negated question is true iff the atom has no proof."""
    plain = Atom(base_pred(atom.pred), atom.args)
    provable = prover.prove(plain) is not None
    return provable != is_negated(atom.pred)


def run_pipeline(
    questions: pd.DataFrame, theories: Mapping[tuple[str, int], Theory], *, lexicon: Lexicon
) -> pd.DataFrame:
    """Per question: ``parsed_strict``, ``parsed``, (after repair), ``answer`` (None if unparsed),
    ``correct``."""
    provers: dict[tuple[str, int], Prover] = {}
    rows = []
    for r in questions.itertuples(index=False):
        key = (r.split, int(r.theory))
        if key not in provers:
            provers[key] = Prover(theories[key].facts, theories[key].rules)
        strict = translate(r.surface)
        repaired = translate(r.surface, lexicon=lexicon)
        if repaired is not None and (
            repaired.args[0] != r.entity
            or base_pred(repaired.pred) != r.pred
            or is_negated(repaired.pred) != bool(r.negated)
        ):
            raise RuntimeError(f"question {r.qid} translated to {repaired}, not its own atom")
        got = answer(repaired, provers[key]) if repaired is not None else None
        rows.append(
            {
                "split": r.split,
                "qid": int(r.qid),
                "parsed_strict": strict is not None,
                "parsed": repaired is not None,
                "answer": got,
                "correct": bool(got is not None and got == bool(r.label)),
            }
        )
    return pd.DataFrame(rows)
