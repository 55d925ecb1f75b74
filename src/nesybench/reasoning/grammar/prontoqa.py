"""PrOntoQA's sentence grammar: concept-chain English <-> logic terms, both directions.

Covered forms (``X``, ``Y`` concept nouns, ``P`` an adjective, ``N`` a name)::

    Every X is a Y.      Each X is an Y.      Xes are Ys.       (rule y(V) :- x(V))
    Every X is not a Y.  Xes are not Ys.      Each X is P.      (rule not_y(V) :- x(V))
    N is a Y.            N is not P.                            (fact y(n) / not_p(n))
    True or false: N is a Y.   Is the following statement true or false? N is P.

Logical form: concepts and properties are unary predicates named by the singular
noun / adjective in lower case; a name is the lower-cased constant (``max``);
negation is reified as a ``not_<pred>`` predicate (``Tumpuses are not sour.`` is
``not_sour(V) :- tumpus(V)``), so a negated head is an ordinary atom that the
SLD prover and the forward chainer derive like any other.

Read a sentence with :func:`~nesybench.reasoning.grammar.reading.parse_sentence` (the
default ``prontoqa`` dialect); :func:`parse_prontoqa` is that dialect's parse of one
normalised sentence.
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..terms import NEG_PREFIX, Atom, Literal, Rule, base_pred, is_negated
from .sentence import RULE_VARIABLE, Lexicon, ParseResult, parse_failure

__all__ = [
    "QUESTION_PREFIXES",
    "QUESTION_STYLES",
    "RULE_STYLES",
    "STEP_LEXICON",
    "article",
    "corrupt_rule",
    "make_rule",
    "parse_prontoqa",
    "pluralize",
    "render_fact",
    "render_question",
    "render_rule",
    "singularize",
    "split_step",
]

RULE_STYLES = ("every", "each", "plural")
QUESTION_STYLES = ("true_or_false", "statement")
#: the question forms before a statement, by style
QUESTION_PREFIXES = {
    "true_or_false": "True or false:",
    "statement": "Is the following statement true or false?",
}
# Suffixes that end in "s" but mark a singular word or an adjective
# ("luminous", "nervous", "wumpus", "glass"), never a regular plural.
_NOT_PLURAL_SUFFIXES = ("ous", "ss", "us", "is")
_WORD = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


# ---------------------------------------------------------------- morphology
def pluralize(noun: str) -> str:
    """English regular plural: ``wumpus -> wumpuses``, ``cat -> cats``."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def singularize(word: str) -> str | None:
    """Inverse of :func:`pluralize`, or None when ``word`` is not a regular plural."""
    if not word.endswith("s") or word.endswith(_NOT_PLURAL_SUFFIXES):
        return None
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        stem = word[:-2]
    else:
        stem = word[:-1]
    return stem if stem and pluralize(stem) == word else None


def article(word: str) -> str:
    """``a`` or ``an`` by the first letter (the published corpora use this rule)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


# ---------------------------------------------------------------- rendering
def _predicate_phrase(pred: str, *, adjective: bool) -> str:
    neg = "not " if is_negated(pred) else ""
    word = base_pred(pred)
    return f"{neg}{word}" if adjective else f"{neg}{article(word)} {word}"


def render_fact(atom: Atom, *, adjective: bool = False) -> str:
    """``yumpus(max) -> "Max is a yumpus."``; ``not_sour(max) -> "Max is not sour."``."""
    _check_unary(atom, "fact")
    name = atom.args[0]
    return f"{name[:1].upper()}{name[1:]} is {_predicate_phrase(atom.pred, adjective=adjective)}."


def render_rule(rule: Rule, *, style: str = "every", adjective: bool = False) -> str:
    """``jompus(X) :- wumpus(X)`` as ``"Every wumpus is a jompus."`` (or ``each``/``plural``).

    Only single-premise unary rules over one variable with a positive concept
    body have a sentence form; anything else is a ``ValueError``.
    """
    if style not in RULE_STYLES:
        raise InputError(f"style must be one of {RULE_STYLES}, got {style!r}")
    if len(rule.body) != 1 or not rule.body[0].positive:
        raise InputError(f"only one positive body literal has a sentence form, got {rule}")
    body = rule.body[0].atom
    _check_unary(body, "rule body")
    _check_unary(rule.head, "rule head")
    if is_negated(body.pred) or body.args != rule.head.args:
        raise InputError(f"rule has no sentence form: {rule}")
    subject = body.pred
    if style == "plural":
        neg = "not " if is_negated(rule.head.pred) else ""
        word = base_pred(rule.head.pred)
        obj = word if adjective else pluralize(word)
        subj = pluralize(subject)
        return f"{subj[:1].upper()}{subj[1:]} are {neg}{obj}."
    quant = "Every" if style == "every" else "Each"
    return f"{quant} {subject} is {_predicate_phrase(rule.head.pred, adjective=adjective)}."


def render_question(atom: Atom, *, style: str = "true_or_false", adjective: bool = False) -> str:
    """``"True or false: Sam is a jompus."`` or the ``"Is the following statement..."`` form."""
    if style not in QUESTION_STYLES:
        raise InputError(f"style must be one of {QUESTION_STYLES}, got {style!r}")
    return f"{QUESTION_PREFIXES[style]} {render_fact(atom, adjective=adjective)}"


def corrupt_rule(rule: Rule) -> str:
    """A meaning-preserving paraphrase the strict grammar rejects: ``All Xes are Ys.``

    A reader (human or language model) reads straight through the universal
    "All"; :func:`~nesybench.reasoning.grammar.reading.parse_sentence`
    without a lexicon returns a failure, which is
    what makes a strict translate-then-prove pipeline abstain.
    """
    sentence = render_rule(rule, style="plural")
    return "All " + sentence[:1].lower() + sentence[1:]


def _check_unary(atom: Atom, what: str) -> None:
    if len(atom.args) != 1:
        raise InputError(f"{what} must be a unary atom, got {atom}")


def make_rule(body_pred: str, head_pred: str) -> Rule:
    """``head(X) :- body(X)`` over :data:`RULE_VARIABLE`."""
    v = (RULE_VARIABLE,)
    return Rule(Atom(head_pred, v), (Literal(Atom(body_pred, v)),))


# ---------------------------------------------------------------- parsing
def _content_word(word: str) -> bool:
    return bool(_WORD.match(word))


def _parse_predicate(
    words: list[str], *, plural: bool, lexicon: Lexicon | None
) -> tuple[str, bool] | str:
    """``["not", "a", "jompus"] -> ("not_jompus", False)``; a string is a failure reason."""
    neg = bool(words) and words[0] == "not"
    rest = words[1:] if neg else words
    if plural:
        if len(rest) != 1 or not _content_word(rest[0]):
            return "expected a plural noun or an adjective after 'are'"
        word = rest[0].lower()
        forced_adj = lexicon is not None and word in lexicon.adjectives
        single = None if forced_adj else singularize(word)
        pred, adjective = (single, False) if single else (word, True)
    else:
        if len(rest) == 2 and rest[0] in ("a", "an") and _content_word(rest[1]):
            pred, adjective = rest[1].lower(), False
        elif len(rest) == 1 and _content_word(rest[0]) and rest[0] not in ("a", "an"):
            pred, adjective = rest[0].lower(), True
        else:
            return "expected 'a/an NOUN' or an adjective after 'is'"
    if pred.startswith(NEG_PREFIX):
        return f"predicate word may not start with {NEG_PREFIX!r}"
    return (NEG_PREFIX + pred if neg else pred), adjective


def _parse_clause(text: str, *, lexicon: Lexicon | None) -> ParseResult:
    if not text.endswith("."):
        return parse_failure("a sentence must end with '.'")
    words = text[:-1].split()
    if len(words) < 3:
        return parse_failure("too few words for a fact or a rule")
    first = words[0]
    lowered = first.lower()
    if lowered in ("every", "each"):
        if (
            len(words) < 4
            or words[2] != "is"
            or not _content_word(words[1])
            or words[1] != words[1].lower()
        ):
            return parse_failure(f"expected '{first} NOUN is ...'")
        pr = _parse_predicate(words[3:], plural=False, lexicon=lexicon)
        if isinstance(pr, str):
            return parse_failure(pr)
        subject = words[1]
        if singularize(subject) is not None and not (lexicon and subject in lexicon.adjectives):
            return parse_failure(f"'{first}' takes a singular noun, got {subject!r}")
        return ParseResult("rule", rule=make_rule(subject, pr[0]), adjective=pr[1], style=lowered)
    quantified = lexicon is not None and lowered in lexicon.plural_quantifiers
    if quantified:
        words = words[1:]
        if len(words) < 3:
            return parse_failure("too few words after the quantifier")
        first = words[0]
    if len(words) >= 3 and words[1] == "are":
        if not _content_word(first):
            return parse_failure(f"expected a plural noun subject, got {first!r}")
        if not quantified and first[:1] != first[:1].upper():
            return parse_failure("a sentence must start with a capital letter")
        if quantified and first != first.lower():
            return parse_failure(
                f"expected a lower-case plural noun after the quantifier, got {first!r}"
            )
        subject = singularize(first.lower())
        if subject is None:
            return parse_failure(f"expected a plural noun subject, got {first!r}")
        pr = _parse_predicate(words[2:], plural=True, lexicon=lexicon)
        if isinstance(pr, str):
            return parse_failure(pr)
        return ParseResult("rule", rule=make_rule(subject, pr[0]), adjective=pr[1], style="plural")
    if quantified:
        return parse_failure("expected 'are' after the quantified plural subject")
    if len(words) >= 3 and words[1] == "is":
        if not _content_word(first) or not first[:1].isupper() or first[1:] != first[1:].lower():
            return parse_failure(f"expected a capitalised name, got {first!r}")
        if lowered in ("all", "some", "no", "it", "this", "that", "there"):
            return parse_failure(f"{first!r} is not a name")
        pr = _parse_predicate(words[2:], plural=False, lexicon=lexicon)
        if isinstance(pr, str):
            return parse_failure(pr)
        return ParseResult("fact", atom=Atom(pr[0], (lowered,)), adjective=pr[1])
    return parse_failure("expected 'Every/Each NOUN is ...', 'NOUNs are ...' or 'NAME is ...'")


def parse_prontoqa(sentence: str, *, lexicon: Lexicon | None) -> ParseResult:
    """The ``prontoqa`` dialect's reading of one whitespace-normalised, non-empty sentence
    (already rewritten by ``lexicon``, which also decides quantifiers and adjectives)."""
    for style, prefix in QUESTION_PREFIXES.items():
        if sentence.startswith(prefix):
            inner = _parse_clause(sentence[len(prefix) :].strip(), lexicon=lexicon)
            if inner.kind != "fact":
                return parse_failure(
                    f"a question must ask about a fact: {inner.reason or 'got a rule'}"
                )
            return ParseResult("question", atom=inner.atom, adjective=inner.adjective, style=style)
    return _parse_clause(sentence, lexicon=lexicon)


# ---------------------------------------------------------------- chain-of-thought steps (PrOntoQA)
# What models (and PrOntoQA's own chains) write around the grammar's sentences: a connective
# before a conclusion ("Therefore, Max is a dumpus.", "So Max is a dumpus."), a justification
# ("Since Max is a yumpus, Max is a dumpus."), a conjunction of facts about one name ("Max is
# a yumpus and Max is a dumpus." / "Max is sour and a dumpus."), and the quantifier "All"
# ("All wumpuses are dumpuses.").  :func:`split_step` turns one such step into the plain
# sentences it states, in order; :data:`STEP_LEXICON` reads "All" as a plural quantifier.
# Contexts stay under the strict grammar (a corrupted context sentence must still fail it).

#: the lexicon chains of thought are read with: "All Xes are Ys." is a rule
STEP_LEXICON = Lexicon(plural_quantifiers=frozenset({"all"}))
_STEP_PREFIXES = ("therefore,", "therefore", "so,", "so", "thus,", "thus", "hence,", "hence")


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".").strip()
    return text[:1].upper() + text[1:] + "." if text else ""


def split_step(text: object) -> list[str]:
    """The plain sentences one chain-of-thought step states, connectives removed.

    Returns ``[]`` for a non-string or empty step.  Never raises.

    >>> split_step("Since Max is a yumpus, Max is a dumpus.")
    ['Max is a yumpus.', 'Max is a dumpus.']
    >>> split_step("Therefore, Max is sour and a dumpus.")
    ['Max is sour.', 'Max is a dumpus.']
    >>> split_step("So Max is not a dumpus.")
    ['Max is not a dumpus.']
    """
    if not isinstance(text, str):
        return []
    sentence = " ".join(text.split())
    words = sentence.split(" ", 1)
    if len(words) == 2 and words[0].lower() in _STEP_PREFIXES:
        sentence = words[1]
    if sentence.lower().startswith("since ") and "," in sentence:
        premise, _, conclusion = sentence[6:].partition(",")
        return [s for part in (premise, conclusion) for s in split_step(part) if s]
    body = sentence.rstrip(".").strip()
    m = re.match(r"^([A-Z][a-z'-]*) (is|are) (.+)$", body)
    if m and " and " in m.group(3) and m.group(1).lower() not in ("if", "every", "each", "all"):
        name, verb, rest = m.groups()
        out = []
        for part in rest.split(" and "):
            part = part.strip()
            if part.startswith(name + " "):
                out.append(_sentence(part))
            else:
                out.append(_sentence(f"{name} {verb} {part}"))
        return out
    return [_sentence(body)] if body else []
