"""THE sentence grammar: PrOntoQA-style English <-> logic terms, both directions.

Generators call the ``render_*`` functions and parsers call :func:`parse_sentence`
on the same tables, so every generated sentence parses back to the atom or rule
it came from (tested as a round trip over generated corpora).

Covered forms (``X``, ``Y`` concept nouns, ``P`` an adjective, ``N`` a name)::

    Every X is a Y.      Each X is an Y.      Xes are Ys.       (rule y(V) :- x(V))
    Every X is not a Y.  Xes are not Ys.      Each X is P.      (rule not_y(V) :- x(V))
    N is a Y.            N is not P.                            (fact y(n) / not_p(n))
    True or false: N is a Y.   Is the following statement true or false? N is P.
    If something is P and not Q then it is R.      (rule r(V) :- p(V), not_q(V); see below)
    Based on the above information, is the following statement true, false, or unknown? N is P.

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
from collections.abc import Mapping
from dataclasses import dataclass, field

from .terms import Atom, Literal, Rule

#: the variable every rendered or parsed rule quantifies over
RULE_VARIABLE = "X"
NEG_PREFIX = "not_"

RULE_STYLES = ("every", "each", "plural")
QUESTION_STYLES = ("true_or_false", "statement", "true_false_unknown")
_QUESTION_PREFIXES = {
    "true_or_false": "True or false:",
    "statement": "Is the following statement true or false?",
    # ProofWriter's open-world question (three labels)
    "true_false_unknown": "Based on the above information, is the following statement true, "
    "false, or unknown?",
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


# ---------------------------------------------------------------- negation
def negate_pred(pred: str) -> str:
    """``sour -> not_sour`` and back: reified classical negation."""
    return pred[len(NEG_PREFIX) :] if pred.startswith(NEG_PREFIX) else NEG_PREFIX + pred


def is_negated(pred: str) -> bool:
    return pred.startswith(NEG_PREFIX)


def base_pred(pred: str) -> str:
    return pred[len(NEG_PREFIX) :] if is_negated(pred) else pred


def complement(atom: Atom) -> Atom:
    """``sour(max) <-> not_sour(max)``."""
    return Atom(negate_pred(atom.pred), atom.args)


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
        raise ValueError(f"style must be one of {RULE_STYLES}, got {style!r}")
    if len(rule.body) != 1 or not rule.body[0].positive:
        raise ValueError(f"only one positive body literal has a sentence form, got {rule}")
    body = rule.body[0].atom
    _check_unary(body, "rule body")
    _check_unary(rule.head, "rule head")
    if is_negated(body.pred) or body.args != rule.head.args:
        raise ValueError(f"rule has no sentence form: {rule}")
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
        raise ValueError(f"style must be one of {QUESTION_STYLES}, got {style!r}")
    return f"{_QUESTION_PREFIXES[style]} {render_fact(atom, adjective=adjective)}"


def corrupt_rule(rule: Rule) -> str:
    """A meaning-preserving paraphrase the strict grammar rejects: ``All Xes are Ys.``

    A reader (human or language model) reads straight through the universal
    "All"; :func:`parse_sentence` without a lexicon returns a failure, which is
    what makes a strict translate-then-prove pipeline abstain.
    """
    sentence = render_rule(rule, style="plural")
    return "All " + sentence[:1].lower() + sentence[1:]


# ---------------------------------------------------------------- conditional rules
# ProofWriter's rule form over properties: "If something is big and not red then it is furry."
# Every condition and the conclusion is a property of the one variable; "not" is reified
# negation (``not_red``), as everywhere in this grammar, so the rule is the plain Horn rule
# ``furry(X) :- big(X), not_red(X)`` and open-world labelling reads it classically.
_CONDITIONAL_SUBJECTS = {"something": "it", "someone": "they"}


def render_conditional(rule: Rule) -> str:
    """``furry(X) :- big(X), not_red(X)`` as ``"If something is big and not red then it is furry."``

    Every atom must be unary over the rule's one variable; body literals must be
    positive (negation is reified in the predicate, ``not_red``), and there must
    be at least one.

    >>> from nesybench.reasoning.terms import Atom, Literal, Rule
    >>> x = ("X",)
    >>> render_conditional(Rule(Atom("not_furry", x), (Literal(Atom("big", x)),)))
    'If something is big then it is not furry.'
    """
    if not rule.body:
        raise ValueError(f"a conditional needs at least one condition, got {rule}")
    _check_unary(rule.head, "rule head")
    var = rule.head.args
    for lit in rule.body:
        _check_unary(lit.atom, "condition")
        if not lit.positive or lit.atom.args != var:
            raise ValueError(f"rule has no conditional sentence form: {rule}")
    conditions = " and ".join(_predicate_phrase(lit.atom.pred, adjective=True) for lit in rule.body)
    return (
        f"If something is {conditions} then it is "
        f"{_predicate_phrase(rule.head.pred, adjective=True)}."
    )


def _parse_conditional(words: list[str], *, lexicon: Lexicon | None) -> ParseResult:
    """``If something is A [and [it is] [not] B ...] then it is [not] C`` (no final period)."""
    if len(words) < 7 or words[1].lower() not in _CONDITIONAL_SUBJECTS or words[2] != "is":
        return _fail("expected 'If something is ... then it is ...'")
    pronoun = _CONDITIONAL_SUBJECTS[words[1].lower()]
    verb = "is" if pronoun == "it" else "are"
    try:
        then = words.index("then")
    except ValueError:
        return _fail("expected 'then' in a conditional rule")
    if words[then + 1 : then + 3] != [pronoun, verb]:
        return _fail(f"expected 'then {pronoun} {verb} ...' in a conditional rule")
    conditions: list[list[str]] = [[]]
    for word in words[3:then]:
        if word == "and":
            conditions.append([])
        else:
            conditions[-1].append(word)
    body = []
    for phrase in conditions:
        if phrase[:2] == [pronoun, verb]:
            phrase = phrase[2:]
        pr = _parse_predicate(phrase, plural=False, lexicon=lexicon)
        if isinstance(pr, str) or not pr[1]:
            return _fail("expected a property ('big' or 'not big') as each condition")
        body.append(Literal(Atom(pr[0], (RULE_VARIABLE,))))
    head = _parse_predicate(words[then + 3 :], plural=False, lexicon=lexicon)
    if isinstance(head, str) or not head[1]:
        return _fail("expected a property ('big' or 'not big') as the conclusion")
    rule = Rule(Atom(head[0], (RULE_VARIABLE,)), tuple(body))
    return ParseResult("rule", rule=rule, adjective=True, style="if")


def _check_unary(atom: Atom, what: str) -> None:
    if len(atom.args) != 1:
        raise ValueError(f"{what} must be a unary atom, got {atom}")


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
        return _fail("a sentence must end with '.'")
    words = text[:-1].split()
    if len(words) < 3:
        return _fail("too few words for a fact or a rule")
    first = words[0]
    lowered = first.lower()
    if lowered == "if":
        return _parse_conditional(words, lexicon=lexicon)
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


def parse_sentence(text: object, *, lexicon: Lexicon | None = None) -> ParseResult:
    """Parse one sentence of the grammar; never raises (failures are results).

    Parameters
    ----------
    text : the sentence (anything else, e.g. None or a number, is a failure).
    lexicon : optional repairs applied before the strict grammar.

    Returns
    -------
    ParseResult with kind ``fact``, ``rule``, ``question`` or ``failure``.

    Examples
    --------
    >>> str(parse_sentence("Tumpuses are not sour.").rule)
    'not_sour(X) :- tumpus(X).'
    >>> parse_sentence("All wumpuses are jompuses.").kind
    'failure'
    """
    if not isinstance(text, str):
        return _fail(f"expected a string, got {type(text).__name__}")
    sentence = " ".join(text.split())
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


@dataclass(frozen=True)
class Theory:
    """A parsed context: ground facts and rules in the order the text lists them."""

    facts: tuple[Atom, ...]
    rules: tuple[Rule, ...]
    failures: tuple[tuple[str, str], ...]  # (sentence, reason) for every unparsed sentence
    adjectives: frozenset[str] = frozenset()  # base predicates written as properties (no article)

    @property
    def ok(self) -> bool:
        return not self.failures


def parse_context(text: str, *, lexicon: Lexicon | None = None) -> Theory:
    """Parse every sentence of a context paragraph; questions count as failures here."""
    facts: list[Atom] = []
    rules: list[Rule] = []
    failures: list[tuple[str, str]] = []
    adjectives: set[str] = set()
    for sentence in split_sentences(text):
        res = parse_sentence(sentence, lexicon=lexicon)
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
