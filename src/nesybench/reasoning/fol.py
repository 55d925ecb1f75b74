"""First-order formulas: one AST, one parser, one translation to a real prover (z3).

The syntax is the one FOLIO's annotators (and language models imitating them)
write, in Unicode or ASCII::

    ¬ ~ !          not                 ∀x φ   forall x φ     for every x
    ∧ & ^          and                 ∃x φ   exists x φ     for some x
    ∨ |            or                  t = u   t ≠ u  t != u  equality of terms
    ⊕              exclusive or        P(t1, ..., tn)        a predicate of any arity
    → -> ⇒         implies             P                     a proposition (arity 0)
    ↔ <-> ⟷ ⇔      if and only if      f(t1, ..., tn)        a function term

Binding, loosest first: ``↔``, ``→`` (right-associative), ``⊕``, ``∨``, ``∧``,
then ``¬`` and the quantifiers, whose scope extends as far right as possible
(``∀x P(x) → Q(x)`` is ``∀x (P(x) → Q(x))``).  A name bound by an enclosing
quantifier is a variable; every other name in a term is a constant, so
``Drinks(x)`` with no quantifier is about a constant named ``x``.  Names may
contain letters, digits and ``_ - . ’ ' +`` (``gpt-3``, ``mr.smith``,
``c++``); words in a row inside an argument list are one constant
(``Superhero(captain america)``); one period closing the whole formula is
ignored.

A predicate name stands for one relation per arity (``P/1`` and ``P/2`` are
different symbols), as the annotations sometimes reuse a name.  Every error is
an :class:`FolSyntaxError` (a ``InputError`` and ``ValueError``) naming the
position, never another exception: parsing is total on arbitrary text.

:func:`dual_query` decides the three-way label of a conclusion on z3 over one
uninterpreted sort, with a time limit per solver call: True if the premises
entail it, False if they entail its negation, Unknown if neither, and the two
outcomes the label set has no room for, ``"Inconsistent"`` (the premises have
no model, so they entail everything) and ``"Undecided"`` (the solver gave up
within the limit; no label is guessed).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import InputError

__all__ = [
    "And",
    "Const",
    "DualQuery",
    "Eq",
    "Exists",
    "FolSyntaxError",
    "Forall",
    "Formula",
    "Func",
    "Iff",
    "Implies",
    "Not",
    "Or",
    "Pred",
    "Var",
    "Xor",
    "dual_query",
    "parse_formula",
    "to_z3",
]

#: nesting (parentheses, negations, quantifiers) the recursive parser accepts
MAX_NESTING = 100
#: characters of one formula the parser accepts
MAX_LENGTH = 100_000


class FolSyntaxError(InputError):
    """A formula outside the syntax of the module docstring."""


# ---------------------------------------------------------------- the AST
@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Const:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Func:
    name: str
    args: tuple[Term, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"


Term = Var | Const | Func


@dataclass(frozen=True)
class Pred:
    """``name(args)``; a proposition has no arguments."""

    name: str
    args: tuple[Term, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})" if self.args else self.name


@dataclass(frozen=True)
class Eq:
    left: Term
    right: Term

    def __str__(self) -> str:
        return f"{self.left} = {self.right}"


@dataclass(frozen=True)
class Not:
    body: Formula

    def __str__(self) -> str:
        return f"¬{_wrap(self.body)}"


@dataclass(frozen=True)
class And:
    args: tuple[Formula, ...]

    def __str__(self) -> str:
        return " ∧ ".join(_wrap(a) for a in self.args)


@dataclass(frozen=True)
class Or:
    args: tuple[Formula, ...]

    def __str__(self) -> str:
        return " ∨ ".join(_wrap(a) for a in self.args)


@dataclass(frozen=True)
class Xor:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return f"{_wrap(self.left)} ⊕ {_wrap(self.right)}"


@dataclass(frozen=True)
class Implies:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return f"{_wrap(self.left)} → {_wrap(self.right)}"


@dataclass(frozen=True)
class Iff:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return f"{_wrap(self.left)} ↔ {_wrap(self.right)}"


@dataclass(frozen=True)
class Forall:
    var: str
    body: Formula

    def __str__(self) -> str:
        return f"∀{self.var} {_wrap(self.body)}"


@dataclass(frozen=True)
class Exists:
    var: str
    body: Formula

    def __str__(self) -> str:
        return f"∃{self.var} {_wrap(self.body)}"


Formula = Pred | Eq | Not | And | Or | Xor | Implies | Iff | Forall | Exists


def _wrap(f: Formula) -> str:
    """A sub-formula in parentheses unless it is atomic or a negation (unambiguous)."""
    return str(f) if isinstance(f, (Pred, Not)) else f"({f})"


# ---------------------------------------------------------------- tokens
_OPERATORS = [
    ("IFF", ("↔", "⟷", "⇔", "<->", "<=>")),
    ("IMP", ("→", "⇒", "->", "=>")),
    ("NEQ", ("≠", "!=")),
    ("XOR", ("⊕",)),
    ("OR", ("∨", "|")),
    ("AND", ("∧", "&", "^")),
    ("NOT", ("¬", "~", "!")),
    ("ALL", ("∀",)),
    ("EX", ("∃",)),
    ("EQ", ("=",)),
    ("LP", ("(",)),
    ("RP", (")",)),
    ("COMMA", (",",)),
]
_SYMBOLS = sorted(
    ((sym, kind) for kind, syms in _OPERATORS for sym in syms), key=lambda p: -len(p[0])
)
_NAME = re.compile(r"[\w’'](?:[\w.’'+]|-(?!>))*")
_KEYWORDS = {"forall": "ALL", "exists": "EX"}


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        for sym, kind in _SYMBOLS:
            if text.startswith(sym, i):
                tokens.append(_Token(kind, sym, i))
                i += len(sym)
                break
        else:
            m = _NAME.match(text, i)
            if m is None:
                raise FolSyntaxError(f"unexpected character {ch!r} at position {i}")
            word = m.group(0)
            kind = _KEYWORDS.get(word, "NAME")
            tokens.append(_Token(kind, word, i))
            i = m.end()
    return tokens


# ---------------------------------------------------------------- the parser
class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.bound: list[str] = []
        self.depth = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self, what: str) -> _Token:
        tok = self.peek()
        if tok is None:
            raise FolSyntaxError(f"formula ends early (expected {what})")
        self.i += 1
        return tok

    def expect(self, kind: str, what: str) -> _Token:
        tok = self.next(what)
        if tok.kind != kind:
            raise FolSyntaxError(f"expected {what} at position {tok.pos}, got {tok.text!r}")
        return tok

    def at(self, *kinds: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind in kinds

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise FolSyntaxError(f"formula is nested deeper than {MAX_NESTING} levels")

    # iff := imp ((↔) imp)*       left-associative
    def iff(self) -> Formula:
        self.enter()
        left = self.imp()
        while self.at("IFF"):
            self.next("↔")
            left = Iff(left, self.imp())
        self.depth -= 1
        return left

    # imp := xor (→ imp)?          right-associative
    def imp(self) -> Formula:
        left = self.xor()
        if self.at("IMP"):
            self.next("→")
            self.enter()
            right = self.imp()
            self.depth -= 1
            return Implies(left, right)
        return left

    def xor(self) -> Formula:
        left = self.disj()
        while self.at("XOR"):
            self.next("⊕")
            left = Xor(left, self.disj())
        return left

    def disj(self) -> Formula:
        args = [self.conj()]
        while self.at("OR"):
            self.next("∨")
            args.append(self.conj())
        return args[0] if len(args) == 1 else Or(tuple(args))

    def conj(self) -> Formula:
        args = [self.unary()]
        while self.at("AND"):
            self.next("∧")
            args.append(self.unary())
        return args[0] if len(args) == 1 else And(tuple(args))

    def unary(self) -> Formula:
        tok = self.peek()
        if tok is None:
            raise FolSyntaxError("formula ends early (expected a formula)")
        if tok.kind == "NOT":
            self.next("¬")
            self.enter()
            body = self.unary()
            self.depth -= 1
            return Not(body)
        if tok.kind in ("ALL", "EX"):
            self.next("a quantifier")
            var = self.expect("NAME", "a variable after the quantifier")
            self.bound.append(var.text)
            self.enter()
            # The scope extends as far right as possible.
            body = self.iff()
            self.depth -= 1
            self.bound.pop()
            return Forall(var.text, body) if tok.kind == "ALL" else Exists(var.text, body)
        if tok.kind == "LP":
            self.next("(")
            inner = self.iff()
            self.expect("RP", "')'")
            return inner
        if tok.kind == "NAME":
            return self.atom()
        raise FolSyntaxError(f"expected a formula at position {tok.pos}, got {tok.text!r}")

    def atom(self) -> Formula:
        name = self.next("a name")
        args: tuple[Term, ...] | None = None
        if self.at("LP"):
            args = self.arguments()
        if self.at("EQ", "NEQ"):
            op = self.next("=")
            left = self.term_of(name, args)
            right = self.term()
            eq = Eq(left, right)
            return eq if op.kind == "EQ" else Not(eq)
        if name.text in self.bound and args is None:
            raise FolSyntaxError(f"variable {name.text!r} used as a formula at position {name.pos}")
        return Pred(name.text, args or ())

    def arguments(self) -> tuple[Term, ...]:
        self.expect("LP", "'('")
        self.enter()
        args = [self.term()]
        while self.at("COMMA"):
            self.next(",")
            args.append(self.term())
        self.expect("RP", "')' or ',' after an argument")
        self.depth -= 1
        return tuple(args)

    def term(self) -> Term:
        name = self.expect("NAME", "a term (a variable or a constant)")
        if self.at("NAME"):
            # "Superhero(captain america)": words in a row inside an argument
            # list can only be one name; read them as one constant.
            words = [name.text]
            while self.at("NAME"):
                words.append(self.next("a name").text)
            if self.at("LP"):
                raise FolSyntaxError(f"expected ')' or ',' at position {self.peek().pos}")
            return Const(" ".join(words))
        args = self.arguments() if self.at("LP") else None
        return self.term_of(name, args)

    def term_of(self, name: _Token, args: tuple[Term, ...] | None) -> Term:
        if args is not None:
            return Func(name.text, args)
        return Var(name.text) if name.text in self.bound else Const(name.text)


def parse_formula(text: object) -> Formula:
    """Parse one first-order formula (syntax in the module docstring).

    Raises :class:`FolSyntaxError` (a ``InputError`` and ``ValueError``) for
    anything else, including non-strings, empty text and nesting deeper than
    :data:`MAX_NESTING`.

    >>> f = parse_formula("∀x (Drinks(x) → ¬Unaware(x, caffeine))")
    >>> f.body.right
    Not(body=Pred(name='Unaware', args=(Var(name='x'), Const(name='caffeine'))))
    >>> str(parse_formula("A ⊕ B → C ∨ D"))
    '(A ⊕ B) → (C ∨ D)'
    """
    if not isinstance(text, str):
        raise FolSyntaxError(f"a formula must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise FolSyntaxError(f"formula is longer than {MAX_LENGTH} characters ({len(text)})")
    body = text.strip()
    if body.endswith(".") and not body.endswith(".."):
        body = body[:-1]  # a sentence-final period closing the whole formula
    parser = _Parser(body)
    if not parser.tokens:
        raise FolSyntaxError("empty formula")
    formula = parser.iff()
    tok = parser.peek()
    if tok is not None:
        raise FolSyntaxError(f"unexpected {tok.text!r} at position {tok.pos} after a formula")
    return formula


# ---------------------------------------------------------------- z3
@dataclass
class _Z3Symbols:
    """The z3 declarations of one problem: one sort, constants, functions, predicates."""

    z3: object
    ctx: object
    sort: object = None
    consts: dict = field(default_factory=dict)
    funcs: dict = field(default_factory=dict)
    preds: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sort = self.z3.DeclareSort("Entity", self.ctx)


def _z3_term(term: Term, sym: _Z3Symbols, env: dict):
    z3 = sym.z3
    if isinstance(term, Var):
        return env[term.name]
    if isinstance(term, Const):
        if term.name not in sym.consts:
            sym.consts[term.name] = z3.Const(f"c:{term.name}", sym.sort)
        return sym.consts[term.name]
    key = (term.name, len(term.args))
    if key not in sym.funcs:
        sig = [sym.sort] * (len(term.args) + 1)
        sym.funcs[key] = z3.Function(f"f:{term.name}/{len(term.args)}", *sig)
    return sym.funcs[key](*[_z3_term(a, sym, env) for a in term.args])


def _z3_formula(f: Formula, sym: _Z3Symbols, env: dict):
    z3 = sym.z3
    if isinstance(f, Pred):
        key = (f.name, len(f.args))
        if key not in sym.preds:
            if f.args:
                sig = [sym.sort] * len(f.args) + [z3.BoolSort(sym.ctx)]
                sym.preds[key] = z3.Function(f"p:{f.name}/{len(f.args)}", *sig)
            else:
                sym.preds[key] = z3.Bool(f"p:{f.name}/0", sym.ctx)
        decl = sym.preds[key]
        return decl(*[_z3_term(a, sym, env) for a in f.args]) if f.args else decl
    if isinstance(f, Eq):
        return _z3_term(f.left, sym, env) == _z3_term(f.right, sym, env)
    if isinstance(f, Not):
        return z3.Not(_z3_formula(f.body, sym, env))
    if isinstance(f, And):
        return z3.And(*[_z3_formula(a, sym, env) for a in f.args])
    if isinstance(f, Or):
        return z3.Or(*[_z3_formula(a, sym, env) for a in f.args])
    if isinstance(f, Xor):
        return z3.Xor(_z3_formula(f.left, sym, env), _z3_formula(f.right, sym, env))
    if isinstance(f, Implies):
        return z3.Implies(_z3_formula(f.left, sym, env), _z3_formula(f.right, sym, env))
    if isinstance(f, Iff):
        return _z3_formula(f.left, sym, env) == _z3_formula(f.right, sym, env)
    if isinstance(f, (Forall, Exists)):
        v = z3.Const(f"v:{f.var}:{len(env)}", sym.sort)
        body = _z3_formula(f.body, sym, {**env, f.var: v})
        return z3.ForAll([v], body) if isinstance(f, Forall) else z3.Exists([v], body)
    raise TypeError(f"not a formula: {f!r}")


def to_z3(formulas: Sequence[Formula], *, ctx=None) -> list:
    """The z3 Boolean expressions of ``formulas``, sharing one set of symbols.

    Every formula is closed by construction (names not bound by a quantifier are
    constants).  ``ctx`` is a ``z3.Context`` (a fresh one by default).
    """
    import z3

    sym = _Z3Symbols(z3, ctx if ctx is not None else z3.Context())
    return [_z3_formula(f, sym, {}) for f in formulas]


@dataclass(frozen=True)
class DualQuery:
    """The outcome of :func:`dual_query`.

    ``label`` is ``"True"``, ``"False"``, ``"Unknown"``, ``"Inconsistent"`` or
    ``"Undecided"``; ``calls`` the z3 answers (``sat``/``unsat``/``unknown``) to
    the three questions asked (premises alone, with the negated conclusion, with
    the conclusion); ``seconds`` the solver time.
    """

    label: str
    calls: tuple[str, str, str]
    seconds: float


def dual_query(
    premises: Iterable[Formula],
    conclusion: Formula,
    *,
    time_limit: float = 10.0,
    negation: Formula | None = None,
) -> DualQuery:
    """The three-way label of ``conclusion`` under ``premises``, decided by z3.

    Parameters
    ----------
    premises : formulas (their conjunction is the theory).
    conclusion : the formula to label.
    time_limit : seconds allowed to each of the three solver calls (> 0).
    negation : the formula whose entailment answers False (default ``¬conclusion``).  A
        prover that closes each goal on its own (Prover9) refutes ``P(x)`` by proving
        ``∀x ¬P(x)``, not ``¬∀x P(x)``; pass that closure here.

    Notes
    -----
    With ``Γ`` the premises and ``c`` the conclusion::

        Inconsistent  if Γ is unsatisfiable
        True          if Γ ∧ ¬c is unsatisfiable      (Γ ⊨ c)
        False         if Γ ∧ c is unsatisfiable       (Γ ⊨ ¬c)
        Unknown       if both are satisfiable
        Undecided     if z3 answers ``unknown`` (time limit, incomplete theory)
                      where the answer matters

    >>> gamma = [parse_formula("∀x (Man(x) → Mortal(x))"), parse_formula("Man(socrates)")]
    >>> dual_query(gamma, parse_formula("Mortal(socrates)")).label
    'True'
    >>> dual_query(gamma, parse_formula("Mortal(zeus)")).label
    'Unknown'
    """
    if not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise InputError(f"time_limit must be seconds > 0, got {time_limit!r}")
    import z3

    premises = list(premises)
    ctx = z3.Context()
    if negation is None:
        *gamma, c = to_z3([*premises, conclusion], ctx=ctx)
        refuted = c  # Γ ∧ c unsatisfiable: Γ ⊨ ¬c
    else:
        *gamma, c, n = to_z3([*premises, conclusion, negation], ctx=ctx)
        refuted = z3.Not(n)  # Γ ∧ ¬n unsatisfiable: Γ ⊨ n
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", max(1, int(time_limit * 1000)))
    for g in gamma:
        solver.add(g)
    start = time.perf_counter()

    def check(extra=None) -> str:
        if extra is None:
            return str(solver.check())
        solver.push()
        solver.add(extra)
        try:
            return str(solver.check())
        finally:
            solver.pop()

    alone = check()
    if alone == "unsat":
        return DualQuery("Inconsistent", (alone, "unsat", "unsat"), time.perf_counter() - start)
    with_not_c = check(z3.Not(c))
    with_c = check(refuted)
    seconds = time.perf_counter() - start
    calls = (alone, with_not_c, with_c)
    if with_not_c == "unsat" and with_c == "unsat":
        label = "Inconsistent"
    elif with_not_c == "unsat" and "sat" in (alone, with_c):
        label = "True"
    elif with_c == "unsat" and "sat" in (alone, with_not_c):
        label = "False"
    elif with_not_c == "sat" and with_c == "sat":
        label = "Unknown"
    else:
        label = "Undecided"
    return DualQuery(label, calls, seconds)
