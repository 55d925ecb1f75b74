"""ProofWriter's sentence grammar: RuleTaker / ProofWriter templated English <-> logic terms.

The templated English of RuleTaker / ProofWriter theories, e.g.

    The bear does not chase the lion.       Bob is cold.       The bald eagle is big.
    If something chases the bear and it sees the rabbit then the bear does not visit the rabbit.
    If someone is big and not red then they are kind.        If Dave is smart then Dave is quiet.
    Young things are big.    All quiet people are rough.     Red, cold things are not round.

Logical form: an adjective is a unary predicate (``big(bob)``), a verb a
binary one named by its third-person form (``chases(the_bear, the_lion)``);
a name is its lower-cased constant (``bob``), "the" + noun is ``the_<noun>``
(``the_bald_eagle``), so names and nouns never collide.  "something",
"someone" and the pronouns "it", "they", "them" after them are the rule's
variable X.  A negated fact or conclusion is the reified atom
``not_big(bob)``; a negated condition is a negated body literal, which the
forward chainer reads as the explicit negative atom in the open world and
as negation as failure in the closed world (ProofWriter's OWA and CWA).

Read a sentence with :func:`~nesybench.reasoning.grammar.reading.parse_sentence`
(``dialect="proofwriter"``); :func:`parse_proofwriter` is this dialect's parse of one
normalised sentence, :func:`render_proofwriter` its inverse.
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..terms import NEG_PREFIX, Atom, Literal, Rule, base_pred, complement, is_negated
from .sentence import RULE_VARIABLE, ParseResult, parse_failure

__all__ = [
    "PROOFWRITER_QUESTIONS",
    "base_form",
    "parse_proofwriter",
    "render_proofwriter",
    "render_proofwriter_question",
    "third_person",
]

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
        return parse_failure("expected 'ADJ things are ...' or 'ADJ people are ...'")
    adjectives = [w for w in words[:kind_at] if w not in (",", "and")]
    rest = words[kind_at + 1 :]
    if not adjectives or not rest or rest[0].lower() != "are":
        return parse_failure("expected 'ADJ things are ADJ' or 'ADJ people are ADJ'")
    rest = rest[1:]
    positive = True
    if rest and rest[0].lower() == "not":
        positive, rest = False, rest[1:]
    if len(rest) != 1:
        return parse_failure("expected one adjective after 'are'")
    bad = [w for w in [*adjectives, rest[0]] if not _PW_WORD.match(w) or w.lower() in _PW_KEYWORDS]
    if bad:
        return parse_failure(f"expected an adjective, got {bad[0]!r}")
    x = (RULE_VARIABLE,)
    body = tuple(Literal(Atom(a.lower(), x)) for a in adjectives)
    head = _pw_head(Atom(rest[0].lower(), x), positive)
    if any(lit.atom.pred.startswith(NEG_PREFIX) for lit in body) or base_pred(head.pred) != (
        rest[0].lower()
    ):
        return parse_failure(f"predicate word may not start with {NEG_PREFIX!r}")
    return ParseResult("rule", rule=Rule(head, body), style="generic")


def _parse_pw_clause(sentence: str) -> ParseResult:
    tokens = _pw_tokens(sentence)
    if not tokens:
        return parse_failure("empty sentence")
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
        return parse_failure(str(exc))


def parse_proofwriter(sentence: str) -> ParseResult:
    """The ``proofwriter`` dialect's reading of one whitespace-normalised, non-empty sentence."""
    if "?" in sentence:
        prefix, _, statement = sentence.rpartition("?")
        statement = statement.strip()
        if not statement:
            return parse_failure("expected a statement after the question")
        inner = _parse_pw_clause(statement)
        if inner.kind != "fact":
            return parse_failure(
                f"a question must ask about a fact: {inner.reason or 'got a rule'}"
            )
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
