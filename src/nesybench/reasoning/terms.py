"""Plain-data logic terms shared by the prover, the forward chainer and the grammar.

An argument that starts with an upper-case letter or ``_`` is a variable
(Prolog convention); anything else is a constant.  Negation in rule bodies is
negation as failure (``Literal(atom, positive=False)``); classical negation is
reified as a predicate of its own, ``not_<pred>`` (:func:`complement`), so a
negated conclusion or an explicit negative fact is an ordinary atom.

Also here, because every engine needs them and none owns them: the one
substitution (:func:`substitute`), the one :class:`Theory` (facts, rules and
what was learned while building them) and the open-world reading of a rule
(:func:`open_world_rule`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

NEG_PREFIX = "not_"


def is_variable(term: str) -> bool:
    """True for ``X``, ``Who``, ``_tmp``; False for ``max``, ``alice``."""
    return bool(term) and (term[0].isupper() or term[0] == "_")


@dataclass(frozen=True, order=True)
class Atom:
    """``pred(args...)``; a unary atom ``yumpus(max)`` is ``Atom("yumpus", ("max",))``."""

    pred: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(self.args)})" if self.args else self.pred

    @property
    def is_ground(self) -> bool:
        return not any(is_variable(a) for a in self.args)


@dataclass(frozen=True, order=True)
class Literal:
    """An atom in a rule body, positive or negated as failure."""

    atom: Atom
    positive: bool = True

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"not {self.atom}"


@dataclass(frozen=True, order=True)
class Rule:
    """``head :- body`` with the body a tuple of literals (conjunction)."""

    head: Atom
    body: tuple[Literal, ...] = ()

    def __str__(self) -> str:
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(str(b) for b in self.body)}."


# ---------------------------------------------------------------- substitution
def substitute(atom: Atom, subst: Mapping[str, str]) -> Atom:
    """``atom`` with every variable replaced by its value under ``subst``.

    ``subst`` maps variables to terms; a value that is itself a bound variable
    is followed (a triangular substitution, as unification builds it), so
    ``{X: Y, Y: bob}`` sends ``X`` to ``bob``.  Constants and unbound variables
    stay as they are.

    >>> str(substitute(Atom("likes", ("X", "Y", "ann")), {"X": "Y", "Y": "bob"}))
    'likes(bob, bob, ann)'
    """
    args = []
    for term in atom.args:
        while is_variable(term) and term in subst:
            term = subst[term]
        args.append(term)
    return Atom(atom.pred, tuple(args))


# ---------------------------------------------------------------- reified negation
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


def open_world_rule(rule: Rule) -> Rule:
    """The open-world reading of a rule: each negated condition ``not p(X)`` becomes the explicit
    negative atom ``not_p(X)`` (nothing is false for lack of a proof).

    The rule-language benchmarks (ProofWriter's OWA) read conditions this way; the forward
    chainer's ``world="open"`` applies it to every rule, and any engine that only knows
    negation as failure answers open-world questions on the rules it returns.

    >>> x = ("X",)
    >>> str(open_world_rule(Rule(Atom("kind", x), (Literal(Atom("red", x), positive=False),))))
    'kind(X) :- not_red(X).'
    """
    if all(lit.positive for lit in rule.body):
        return rule
    body = tuple(lit if lit.positive else Literal(complement(lit.atom)) for lit in rule.body)
    return Rule(rule.head, body)


# ---------------------------------------------------------------- theories
@dataclass(frozen=True)
class Theory:
    """A theory: ground facts and rules in the order they were stated, and how it was obtained.

    The one theory type of nesybench: parsers return it (with the sentences they
    could not read in ``failures``), generators build it (naming it by ``key``).

    Attributes
    ----------
    facts : ground atoms (explicit negative facts are ``not_<pred>`` atoms).
    rules : the rules.
    failures : ``(sentence, reason)`` for every sentence a parser could not read.
    adjectives : base predicates written as properties (no article), so they
        can be rendered back the way they were written.
    entities : the constants the theory talks about, when the builder knows
        them (a generator may declare entities that no fact mentions).
    key : where the theory comes from (a record id, ``("train", 3)``, ...).
    """

    facts: tuple[Atom, ...]
    rules: tuple[Rule, ...]
    failures: tuple[tuple[str, str], ...] = ()
    adjectives: frozenset[str] = frozenset()
    entities: tuple[str, ...] = ()
    key: tuple[str | int, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every sentence was read (no failures)."""
        return not self.failures
