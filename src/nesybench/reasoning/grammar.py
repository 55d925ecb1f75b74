"""THE sentence grammar: PrOntoQA-style English <-> logic terms, both directions.

Generators call the ``render_*`` functions and parsers call :func:`parse_sentence`
on the same tables, so every generated sentence parses back to the atom or rule
it came from (tested as a round trip over generated corpora).

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

The parser never raises on arbitrary text: it returns a :class:`ParseResult`
whose ``kind`` is ``"failure"`` with a ``reason``.  A :class:`Lexicon` plugs in
repairs (synonyms, extra quantifiers, forced adjectives) for experiments that
measure how much of a paraphrase a strict grammar loses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import InputError
from .terms import (
    NEG_PREFIX,
    Atom,
    Literal,
    Rule,
    Theory,
    base_pred,
    complement,
    is_negated,
    negate_pred,
)

__all__ = [
    "DIALECTS",
    "NEG_PREFIX",
    "Lexicon",
    "ParseResult",
    "Theory",
    "article",
    "base_pred",
    "complement",
    "corrupt_rule",
    "is_negated",
    "make_rule",
    "negate_pred",
    "parse_context",
    "parse_sentence",
    "pluralize",
    "render_fact",
    "render_proofwriter",
    "render_proofwriter_question",
    "render_question",
    "render_rule",
    "singularize",
    "split_sentences",
]

#: the variable every rendered or parsed rule quantifies over
RULE_VARIABLE = "X"
DIALECTS = ("prontoqa", "proofwriter")

RULE_STYLES = ("every", "each", "plural")
QUESTION_STYLES = ("true_or_false", "statement")
_QUESTION_PREFIXES = {
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


# ---------------------------------------------------------------- lexicon
@dataclass(frozen=True)
class Lexicon:
    """Repairs applied before the strict grammar (None = the strict grammar alone).

    Attributes
    ----------
    synonyms : mapping word -> canonical word, applied to every lower-cased
        token (``{"large": "big"}``; a phrase key such as ``"is a kind of"``
        maps a multi-word span, longest first).
    plural_quantifiers : words accepted before a plural subject, e.g.
        ``{"all"}`` repairs the corruption ``All Xes are Ys.``.
    adjectives : words always read as properties, never as plural nouns:
        the strict grammar reads a word after "are" that ends like a regular
        plural (``"flumps"``) as a noun; endings ``-ous``, ``-ss``, ``-us``,
        ``-is`` (``"luminous"``) are already read as properties.
    """

    synonyms: Mapping[str, str] = field(default_factory=dict)
    plural_quantifiers: frozenset[str] = frozenset()
    adjectives: frozenset[str] = frozenset()

    def normalize(self, text: str) -> str:
        """Apply phrase and word synonyms (case-insensitive, longest phrase first)."""
        out = text
        for src in sorted(self.synonyms, key=lambda s: (-len(s), s)):
            dst = self.synonyms[src]
            out = re.sub(
                rf"(?i)(?<![A-Za-z]){re.escape(src)}(?![A-Za-z])",
                lambda m, d=dst: _keep_case(m.group(0), d),
                out,
            )
        return out


def _keep_case(src: str, dst: str) -> str:
    return dst[:1].upper() + dst[1:] if src[:1].isupper() else dst


# ---------------------------------------------------------------- results
@dataclass(frozen=True)
class ParseResult:
    """What one sentence means, or why it does not parse.

    ``kind`` is ``"fact"`` (``atom`` set), ``"rule"`` (``rule`` set),
    ``"question"`` (``atom`` is the statement asked about) or ``"failure"``
    (``reason`` says what the strict grammar expected).  ``adjective`` records
    whether the predicate was a property (no article), so the sentence can be
    rendered back; ``style`` the surface form used.
    """

    kind: str
    atom: Atom | None = None
    rule: Rule | None = None
    adjective: bool = False
    style: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.kind != "failure"

    @property
    def value(self) -> Atom | Rule | None:
        return self.rule if self.kind == "rule" else self.atom


def _fail(reason: str) -> ParseResult:
    return ParseResult("failure", reason=reason)


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
    return f"{_QUESTION_PREFIXES[style]} {render_fact(atom, adjective=adjective)}"


def corrupt_rule(rule: Rule) -> str:
    """A meaning-preserving paraphrase the strict grammar rejects: ``All Xes are Ys.``

    A reader (human or language model) reads straight through the universal
    "All"; :func:`parse_sentence` without a lexicon returns a failure, which is
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


# ---------------------------------------------------------------- ProofWriter dialect
# The templated English of RuleTaker / ProofWriter theories, e.g.
#
#     The bear does not chase the lion.       Bob is cold.       The bald eagle is big.
#     If something chases the bear and it sees the rabbit then the bear does not visit the rabbit.
#     If someone is big and not red then they are kind.        If Dave is smart then Dave is quiet.
#     Young things are big.    All quiet people are rough.     Red, cold things are not round.
#
# Logical form: an adjective is a unary predicate (``big(bob)``), a verb a
# binary one named by its third-person form (``chases(the_bear, the_lion)``);
# a name is its lower-cased constant (``bob``), "the" + noun is ``the_<noun>``
# (``the_bald_eagle``), so names and nouns never collide.  "something",
# "someone" and the pronouns "it", "they", "them" after them are the rule's
# variable X.  A negated fact or conclusion is the reified atom
# ``not_big(bob)``; a negated condition is a negated body literal, which the
# forward chainer reads as the explicit negative atom in the open world and
# as negation as failure in the closed world (ProofWriter's OWA and CWA).

_PW_PRONOUNS = frozenset({"it", "they", "them"})
_PW_QUANTIFIERS = frozenset({"something", "someone"})
_PW_KINDS = frozenset({"things", "people"})
_PW_COPULAS = frozenset({"is", "are"})
_PW_AUX = frozenset({"does", "do"})
_PW_KEYWORDS = (
    _PW_PRONOUNS
    | _PW_QUANTIFIERS
    | _PW_COPULAS
    | _PW_AUX
    | {
        "if",
        "then",
        "and",
        "not",
        "the",
        "all",
        ",",
    }
)
_PW_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9'-]*$")


class _PWFail(Exception):
    """A ProofWriter sentence outside the templates (caught inside the grammar)."""


def third_person(verb: str) -> str:
    """The third-person singular of a base verb form: ``chase -> chases``, ``watch -> watches``.

    >>> [third_person(v) for v in ("see", "watch", "go", "carry", "have")]
    ['sees', 'watches', 'goes', 'carries', 'has']
    """
    if verb == "have":
        return "has"
    if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def base_form(verb: str) -> str:
    """Inverse of :func:`third_person` (``chases -> chase``) for the forms it produces."""
    if verb == "has":
        return "have"
    if verb.endswith("ies") and len(verb) > 3:
        return verb[:-3] + "y"
    if verb.endswith(("sses", "xes", "zes", "ches", "shes", "oes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") else verb


class _PWClauses:
    """A cursor over one sentence's tokens with the clause-level productions."""

    def __init__(self, tokens: list[str]):
        self.tokens = tokens
        self.i = 0
        self.variable_seen = False

    # -- token helpers
    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self, what: str = "more words") -> str:
        """The next token, whatever it is (``what`` names it in the failure at the end)."""
        tok = self.peek()
        if tok is None:
            raise _PWFail(f"sentence ends early (expected {what})")
        self.i += 1
        return tok

    def expect(self, word: str) -> str:
        """The next token, which must be ``word`` (case-insensitive)."""
        tok = self.take(repr(word))
        if tok.lower() != word:
            raise _PWFail(f"expected {word!r}, got {tok!r}")
        return tok

    def _is_name(self, tok: str | None) -> bool:
        return (
            tok is not None
            and bool(_PW_WORD.match(tok))
            and tok[:1].isupper()
            and tok.lower() not in _PW_KEYWORDS
        )

    def starts_subject(self, tok: str | None) -> bool:
        if tok is None:
            return False
        low = tok.lower()
        return low in _PW_QUANTIFIERS or low in _PW_PRONOUNS or low == "the" or self._is_name(tok)

    # -- noun phrases
    def subject(self, *, first: bool) -> tuple[str, bool]:
        """A noun phrase before a verb: (term, plural)."""
        tok = self.take("a subject")
        low = tok.lower()
        if low in _PW_QUANTIFIERS:
            self.variable_seen = True
            return RULE_VARIABLE, False
        if low in _PW_PRONOUNS:
            if not self.variable_seen:
                raise _PWFail(f"pronoun {tok!r} before 'something' or 'someone'")
            if low == "them":
                raise _PWFail("'them' cannot be a subject")
            return RULE_VARIABLE, low == "they"
        if low == "the":
            words = []
            # The noun runs up to the verb: a copula, an auxiliary, or the word
            # right before the object noun phrase.
            while True:
                nxt = self.peek()
                if nxt is None:
                    raise _PWFail("sentence ends inside a noun phrase")
                if nxt.lower() in _PW_COPULAS | _PW_AUX:
                    break
                if words and self.starts_object(self.peek(1)):
                    break
                if not _PW_WORD.match(nxt) or nxt.lower() in _PW_KEYWORDS:
                    raise _PWFail(f"expected a noun after 'the', got {nxt!r}")
                words.append(self.take().lower())
            if not words:
                raise _PWFail("expected a noun after 'the'")
            return "the_" + "_".join(words), False
        if self._is_name(tok) or (first and _PW_WORD.match(tok) and tok[:1].isupper()):
            if tok.lower() in _PW_KEYWORDS:
                raise _PWFail(f"{tok!r} is not a name")
            return tok.lower(), False
        raise _PWFail(f"expected a subject (a name, 'the NOUN', 'something', 'it'), got {tok!r}")

    def starts_object(self, tok: str | None) -> bool:
        if tok is None:
            return False
        low = tok.lower()
        return low in _PW_QUANTIFIERS or low in ("it", "them") or low == "the" or self._is_name(tok)

    def object(self) -> str:
        tok = self.take("an object")
        low = tok.lower()
        if low in _PW_QUANTIFIERS:
            self.variable_seen = True
            return RULE_VARIABLE
        if low in ("it", "them"):
            if not self.variable_seen:
                raise _PWFail(f"pronoun {tok!r} before 'something' or 'someone'")
            return RULE_VARIABLE
        if low == "the":
            words = []
            while self.peek() is not None and self.peek().lower() not in ("and", "then", ","):
                nxt = self.take()
                if not _PW_WORD.match(nxt) or nxt.lower() in _PW_KEYWORDS:
                    raise _PWFail(f"expected a noun after 'the', got {nxt!r}")
                words.append(nxt.lower())
            if not words:
                raise _PWFail("expected a noun after 'the'")
            return "the_" + "_".join(words)
        if self._is_name(tok):
            return tok.lower()
        raise _PWFail(f"expected an object (a name, 'the NOUN', 'something', 'it'), got {tok!r}")

    # -- verb phrases
    def adjective(self) -> str:
        tok = self.take("an adjective")
        if not _PW_WORD.match(tok) or tok.lower() in _PW_KEYWORDS:
            raise _PWFail(f"expected an adjective, got {tok!r}")
        if tok.lower().startswith(NEG_PREFIX):
            raise _PWFail(f"predicate word may not start with {NEG_PREFIX!r}")
        return tok.lower()

    def verb_phrase(self, subject: str, plural: bool) -> list[tuple[Atom, bool]]:
        """``is [not] ADJ [and [not] ADJ]*`` or ``[does not] VERB OBJECT``: (atom, positive)."""
        tok = self.take("a verb")
        low = tok.lower()
        if low in _PW_COPULAS:
            if (low == "are") != plural:
                raise _PWFail(f"{tok!r} does not agree with its subject")
            out = []
            positive = True
            if self.peek() is not None and self.peek().lower() == "not":
                self.take()
                positive = False
            out.append((Atom(self.adjective(), (subject,)), positive))
            # "is big and not red": more adjectives of the same subject
            while (
                self.peek() is not None
                and self.peek().lower() == "and"
                and not self.starts_subject(self.peek(1))
                and self.peek(1) is not None
                and self.peek(1).lower() != "then"
            ):
                self.take()
                positive = True
                if self.peek() is not None and self.peek().lower() == "not":
                    self.take()
                    positive = False
                out.append((Atom(self.adjective(), (subject,)), positive))
            return out
        positive = True
        if low in _PW_AUX:
            if (low == "do") != plural:
                raise _PWFail(f"{tok!r} does not agree with its subject")
            self.expect("not")
            positive = False
            verb = self.take("a verb")
            if not _PW_WORD.match(verb) or verb.lower() in _PW_KEYWORDS:
                raise _PWFail(f"expected a verb, got {verb!r}")
            pred = third_person(verb.lower())
        else:
            if not _PW_WORD.match(tok) or low in _PW_KEYWORDS:
                raise _PWFail(f"expected a verb, got {tok!r}")
            pred = third_person(low) if plural else low
            if not plural and not low.endswith("s"):
                raise _PWFail(f"expected a third-person verb (e.g. 'chases'), got {tok!r}")
        if pred.startswith(NEG_PREFIX):
            raise _PWFail(f"predicate word may not start with {NEG_PREFIX!r}")
        return [(Atom(pred, (subject, self.object())), positive)]

    def clause(self, *, first: bool) -> list[tuple[Atom, bool]]:
        subject, plural = self.subject(first=first)
        return self.verb_phrase(subject, plural)

    def done(self) -> bool:
        return self.i >= len(self.tokens)


def _pw_tokens(sentence: str) -> list[str]:
    body = sentence[:-1] if sentence.endswith(".") else sentence
    return body.replace(",", " , ").split()


def _pw_head(atom: Atom, positive: bool) -> Atom:
    return atom if positive else complement(atom)


def _parse_pw_generic(tokens: list[str]) -> ParseResult:
    """``[All] ADJ[, ADJ]* [and ADJ] things|people are [not] ADJ``."""
    words = tokens[1:] if tokens[0].lower() == "all" else tokens
    try:
        kind_at = next(i for i, w in enumerate(words) if w.lower() in _PW_KINDS)
    except StopIteration:
        return _fail("expected 'ADJ things are ...' or 'ADJ people are ...'")
    adjectives = [w for w in words[:kind_at] if w not in (",", "and")]
    rest = words[kind_at + 1 :]
    if not adjectives or not rest or rest[0].lower() != "are":
        return _fail("expected 'ADJ things are ADJ' or 'ADJ people are ADJ'")
    rest = rest[1:]
    positive = True
    if rest and rest[0].lower() == "not":
        positive, rest = False, rest[1:]
    if len(rest) != 1:
        return _fail("expected one adjective after 'are'")
    bad = [w for w in [*adjectives, rest[0]] if not _PW_WORD.match(w) or w.lower() in _PW_KEYWORDS]
    if bad:
        return _fail(f"expected an adjective, got {bad[0]!r}")
    x = (RULE_VARIABLE,)
    body = tuple(Literal(Atom(a.lower(), x)) for a in adjectives)
    head = _pw_head(Atom(rest[0].lower(), x), positive)
    if any(lit.atom.pred.startswith(NEG_PREFIX) for lit in body) or base_pred(head.pred) != (
        rest[0].lower()
    ):
        return _fail(f"predicate word may not start with {NEG_PREFIX!r}")
    return ParseResult("rule", rule=Rule(head, body), style="generic")


def _parse_pw_clause(sentence: str) -> ParseResult:
    tokens = _pw_tokens(sentence)
    if not tokens:
        return _fail("empty sentence")
    first = tokens[0].lower()
    try:
        if first == "if":
            cur = _PWClauses(tokens)
            cur.expect("if")
            body: list[tuple[Atom, bool]] = cur.clause(first=True)
            while cur.peek() is not None and cur.peek().lower() == "and":
                cur.take()
                body += cur.clause(first=False)
            cur.expect("then")
            head = cur.clause(first=False)
            if not cur.done():
                raise _PWFail(f"unexpected {cur.peek()!r} after the conclusion")
            if len(head) != 1:
                raise _PWFail("a conclusion must be one statement")
            atom, positive = head[0]
            rule = Rule(_pw_head(atom, positive), tuple(Literal(a, p) for a, p in body))
            return ParseResult("rule", rule=rule, style="if")
        if any(t.lower() in _PW_KINDS for t in tokens) and any(t.lower() == "are" for t in tokens):
            return _parse_pw_generic(tokens)
        cur = _PWClauses(tokens)
        clause = cur.clause(first=True)
        if not cur.done():
            raise _PWFail(f"unexpected {cur.peek()!r} after the statement")
        if len(clause) != 1:
            raise _PWFail("a fact must be one statement")
        atom, positive = clause[0]
        if not atom.is_ground:
            raise _PWFail("a fact must be about named things, not 'something'")
        return ParseResult("fact", atom=_pw_head(atom, positive))
    except _PWFail as exc:
        return _fail(str(exc))


def _parse_pw_sentence(sentence: str) -> ParseResult:
    if "?" in sentence:
        prefix, _, statement = sentence.rpartition("?")
        statement = statement.strip()
        if not statement:
            return _fail("expected a statement after the question")
        inner = _parse_pw_clause(statement)
        if inner.kind != "fact":
            return _fail(f"a question must ask about a fact: {inner.reason or 'got a rule'}")
        return ParseResult("question", atom=inner.atom, style=prefix.strip() + "?")
    return _parse_pw_clause(sentence)


def _pw_term(term: str, *, mention: int) -> str:
    if term == RULE_VARIABLE:
        return "something" if mention == 0 else "it"
    if term.startswith("the_"):
        return "the " + term[4:].replace("_", " ")
    return term[:1].upper() + term[1:]


def _pw_statement(atom: Atom, positive: bool, seen: list[int]) -> str:
    """One clause; ``seen`` counts mentions of the variable so far (mutated)."""
    if not positive or is_negated(atom.pred):
        positive = positive and not is_negated(atom.pred)
    pred = base_pred(atom.pred)
    subject = _pw_term(atom.args[0], mention=seen[0])
    seen[0] += atom.args[0] == RULE_VARIABLE
    if len(atom.args) == 1:
        return f"{subject} is {'' if positive else 'not '}{pred}"
    if len(atom.args) == 2:
        obj = _pw_term(atom.args[1], mention=seen[0])
        seen[0] += atom.args[1] == RULE_VARIABLE
        verb = pred if positive else f"does not {base_form(pred)}"
        return f"{subject} {verb} {obj}"
    raise InputError(f"only unary and binary atoms have a ProofWriter form, got {atom}")


def render_proofwriter(value: Atom | Rule) -> str:
    """A fact or rule as a ProofWriter sentence (the inverse of the ``proofwriter`` dialect).

    >>> x = ("X",)
    >>> body = (Literal(Atom("big", x)), Literal(Atom("sees", ("X", "bob"))))
    >>> r = Rule(Atom("not_kind", x), body)
    >>> render_proofwriter(r)
    'If something is big and it sees Bob then it is not kind.'
    >>> render_proofwriter(Atom("not_chases", ("the_bald_eagle", "the_cat")))
    'The bald eagle does not chase the cat.'
    """
    seen = [0]
    if isinstance(value, Atom):
        text = _pw_statement(value, True, seen)
    else:
        parts = [_pw_statement(lit.atom, lit.positive, seen) for lit in value.body]
        head = _pw_statement(value.head, True, seen)
        text = f"If {' and '.join(parts)} then {head}"
    return text[:1].upper() + text[1:] + "."


#: ProofWriter's question before the statement: two labels (closed world) or three (open world)
PROOFWRITER_QUESTIONS = {
    "closed": "Based on the above information, is the following statement true or false?",
    "open": "Based on the above information, is the following statement true, false, or unknown?",
}


def render_proofwriter_question(atom: Atom, *, world: str = "open") -> str:
    """The question about ``atom`` as ProofWriter asks it (parsed back by the same dialect).

    >>> render_proofwriter_question(Atom("not_kind", ("anne",)), world="closed")
    'Based on the above information, is the following statement true or false? Anne is not kind.'
    """
    if world not in PROOFWRITER_QUESTIONS:
        raise InputError(f"world must be one of {tuple(PROOFWRITER_QUESTIONS)}, got {world!r}")
    return f"{PROOFWRITER_QUESTIONS[world]} {render_proofwriter(atom)}"


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
        return _fail("a sentence must end with '.'")
    words = text[:-1].split()
    if len(words) < 3:
        return _fail("too few words for a fact or a rule")
    first = words[0]
    lowered = first.lower()
    if lowered in ("every", "each"):
        if (
            len(words) < 4
            or words[2] != "is"
            or not _content_word(words[1])
            or words[1] != words[1].lower()
        ):
            return _fail(f"expected '{first} NOUN is ...'")
        pr = _parse_predicate(words[3:], plural=False, lexicon=lexicon)
        if isinstance(pr, str):
            return _fail(pr)
        subject = words[1]
        if singularize(subject) is not None and not (lexicon and subject in lexicon.adjectives):
            return _fail(f"'{first}' takes a singular noun, got {subject!r}")
        return ParseResult("rule", rule=make_rule(subject, pr[0]), adjective=pr[1], style=lowered)
    quantified = lexicon is not None and lowered in lexicon.plural_quantifiers
    if quantified:
        words = words[1:]
        if len(words) < 3:
            return _fail("too few words after the quantifier")
        first = words[0]
    if len(words) >= 3 and words[1] == "are":
        if not _content_word(first):
            return _fail(f"expected a plural noun subject, got {first!r}")
        if not quantified and first[:1] != first[:1].upper():
            return _fail("a sentence must start with a capital letter")
        if quantified and first != first.lower():
            return _fail(f"expected a lower-case plural noun after the quantifier, got {first!r}")
        subject = singularize(first.lower())
        if subject is None:
            return _fail(f"expected a plural noun subject, got {first!r}")
        pr = _parse_predicate(words[2:], plural=True, lexicon=lexicon)
        if isinstance(pr, str):
            return _fail(pr)
        return ParseResult("rule", rule=make_rule(subject, pr[0]), adjective=pr[1], style="plural")
    if quantified:
        return _fail("expected 'are' after the quantified plural subject")
    if len(words) >= 3 and words[1] == "is":
        if not _content_word(first) or not first[:1].isupper() or first[1:] != first[1:].lower():
            return _fail(f"expected a capitalised name, got {first!r}")
        if lowered in ("all", "some", "no", "it", "this", "that", "there"):
            return _fail(f"{first!r} is not a name")
        pr = _parse_predicate(words[2:], plural=False, lexicon=lexicon)
        if isinstance(pr, str):
            return _fail(pr)
        return ParseResult("fact", atom=Atom(pr[0], (lowered,)), adjective=pr[1])
    return _fail("expected 'Every/Each NOUN is ...', 'NOUNs are ...' or 'NAME is ...'")


def parse_sentence(
    text: object, *, lexicon: Lexicon | None = None, dialect: str = "prontoqa"
) -> ParseResult:
    """Parse one sentence of the grammar; never raises (failures are results).

    Parameters
    ----------
    text : the sentence (anything else, e.g. None or a number, is a failure).
    lexicon : optional repairs applied before the strict grammar.
    dialect : ``"prontoqa"`` (the concept-chain forms of the module docstring)
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
        return _fail(f"expected a string, got {type(text).__name__}")
    sentence = " ".join(text.split())
    if dialect == "proofwriter":
        if lexicon is not None:
            sentence = " ".join(lexicon.normalize(sentence).split())
        return _parse_pw_sentence(sentence) if sentence else _fail("empty sentence")
    if lexicon is not None:
        sentence = " ".join(lexicon.normalize(sentence).split())
    if not sentence:
        return _fail("empty sentence")
    for style, prefix in _QUESTION_PREFIXES.items():
        if sentence.startswith(prefix):
            inner = _parse_clause(sentence[len(prefix) :].strip(), lexicon=lexicon)
            if inner.kind != "fact":
                return _fail(f"a question must ask about a fact: {inner.reason or 'got a rule'}")
            return ParseResult("question", atom=inner.atom, adjective=inner.adjective, style=style)
    return _parse_clause(sentence, lexicon=lexicon)


_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences at ``.``/``?``/``!`` followed by space.

    The question prefix ``"Is the following statement true or false?"`` is
    glued back to the statement after it.
    """
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip()) if p.strip()]
    out: list[str] = []
    for part in parts:
        if out and out[-1] in _QUESTION_PREFIXES.values():
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
