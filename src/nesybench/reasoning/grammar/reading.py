"""Reading a text in either dialect of the grammar: one sentence, a paragraph, a context.

:func:`parse_sentence` normalises a sentence (whitespace, then the ``Lexicon``'s repairs) and
reads it with its dialect (:mod:`~nesybench.reasoning.grammar.prontoqa` or
:mod:`~nesybench.reasoning.grammar.proofwriter`); :func:`split_sentences` cuts a paragraph
into sentences; :func:`parse_context` reads every sentence of a context into a
:class:`~nesybench.reasoning.terms.Theory`, through a caller's own per-sentence reader when
given one (``read=``, e.g. the axes grid's memoised ``SentenceReader``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...errors import InputError
from ..terms import Atom, Rule, Theory, base_pred
from .prontoqa import QUESTION_PREFIXES, parse_prontoqa
from .proofwriter import parse_proofwriter
from .sentence import Lexicon, ParseResult, parse_failure

__all__ = ["DIALECTS", "parse_context", "parse_sentence", "split_sentences"]

DIALECTS = ("prontoqa", "proofwriter")


def parse_sentence(
    text: object, *, lexicon: Lexicon | None = None, dialect: str = "prontoqa"
) -> ParseResult:
    """Parse one sentence of the grammar; never raises (failures are results).

    Parameters
    ----------
    text : the sentence (anything else, e.g. None or a number, is a failure).
    lexicon : optional repairs applied before the strict grammar.
    dialect : ``"prontoqa"`` (PrOntoQA's concept-chain forms,
        :mod:`~nesybench.reasoning.grammar.prontoqa`)
        or ``"proofwriter"`` (RuleTaker / ProofWriter templates: relations,
        "something"/"it" rules, "All X things are Y", negated conditions).

    Returns
    -------
    ParseResult with kind ``fact``, ``rule``, ``question`` or ``failure``.

    Examples
    --------
    >>> str(parse_sentence("Tumpuses are not sour.").rule)
    'not_sour(X) :- tumpus(X).'
    >>> parse_sentence("All wumpuses are jompuses.").kind
    'failure'
    >>> str(parse_sentence("If something is big and not red then it is kind.",
    ...                    dialect="proofwriter").rule)
    'kind(X) :- big(X), not red(X).'
    """
    if dialect not in DIALECTS:
        raise InputError(f"dialect must be one of {DIALECTS}, got {dialect!r}")
    if not isinstance(text, str):
        return parse_failure(f"expected a string, got {type(text).__name__}")
    sentence = " ".join(text.split())
    if lexicon is not None:
        sentence = " ".join(lexicon.normalize(sentence).split())
    if not sentence:
        return parse_failure("empty sentence")
    if dialect == "proofwriter":
        return parse_proofwriter(sentence)
    return parse_prontoqa(sentence, lexicon=lexicon)


_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences at ``.``/``?``/``!`` followed by space.

    The question prefix ``"Is the following statement true or false?"`` is
    glued back to the statement after it.
    """
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip()) if p.strip()]
    out: list[str] = []
    for part in parts:
        if out and out[-1] in QUESTION_PREFIXES.values():
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def parse_context(
    text: str,
    *,
    lexicon: Lexicon | None = None,
    dialect: str = "prontoqa",
    read: Callable[[str], ParseResult] | None = None,
) -> Theory:
    """Parse every sentence of a context paragraph; questions count as failures here.

    Never raises on text: a sentence outside the grammar is a ``(sentence, reason)``
    entry of ``Theory.failures``.  ``read`` replaces the per-sentence parse (a memoised
    reader, ``nesybench.axes.grid.SentenceReader``); it must read as ``parse_sentence``.
    """
    facts: list[Atom] = []
    rules: list[Rule] = []
    failures: list[tuple[str, str]] = []
    adjectives: set[str] = set()
    if not isinstance(text, str):
        return Theory((), (), ((repr(text)[:80], "expected a string"),))
    for sentence in split_sentences(text):
        if read is None:
            res = parse_sentence(sentence, lexicon=lexicon, dialect=dialect)
        else:
            res = read(sentence)
        if res.kind == "fact":
            facts.append(res.atom)
            if res.adjective:
                adjectives.add(base_pred(res.atom.pred))
        elif res.kind == "rule":
            rules.append(res.rule)
            if res.adjective:
                adjectives.add(base_pred(res.rule.head.pred))
        else:
            failures.append((sentence, res.reason or "a question inside the context"))
    return Theory(tuple(facts), tuple(rules), tuple(failures), frozenset(adjectives))
