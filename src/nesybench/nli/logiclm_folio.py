"""Logic-LM's FOLIO path (its ``FOL_Prover9_Program``) as a reading layer over the one FOL prover.

Logic-LM sends each FOLIO formula through three programs before Prover9 sees it:
an nltk context-free grammar that accepts or rejects it, a ply lexer and LALR
parser that rewrite it into Prover9's syntax, and nltk's logic reader; Prover9
then proves the conclusion, else its negation.  Every step changes some
answers, so each is rebuilt here (from reading Logic-LM at d29f1e5, nltk 3.8.1,
ply 3.11 and Prover9's manual; no code copied) and the last step, the proof,
is nesybench's z3 dual query (:func:`nesybench.reasoning.fol.dual_query`).
The numbered steps are the order in which a program fails; each failure has a
class (:data:`FAILURES`) that the report counts.

1. **Sections**: the text between the first ``Premises:`` and the first
   ``Conclusion:``, one formula a line (a blank line is an unreadable formula),
   and the first line after ``Conclusion:``; ``:::`` starts a comment.
2. **Tokens** (nltk side): operators ``⊕ ∨ ∧ → ↔ ∀ ∃ ¬ ( ) ,`` only (no ASCII
   forms); apostrophes are deleted; consecutive words of more than one
   character are glued into one name and every such name gets a capital
   first letter (``captain america`` -> ``CaptainAmerica``, and a constant
   ``vacuum`` becomes ``Vacuum``).
3. **Acceptance grammar** (else a *parsing error*): quantifiers only as a
   prefix of the whole formula (or after a leading ``¬`` or inside
   parentheses around the whole formula); every atom has arguments; no
   equality, no function terms; ``¬`` before a parenthesis or an atom only.
   The names right after a quantifier are the formula's *variables*, the names
   before ``(`` its *predicates*, every other name a *constant*.
4. **The ply lexer** re-reads the formula's text with one regular expression
   per token kind: the variables, the predicates and the constants are each
   joined with ``|`` in the iteration order of a Python ``set`` (so it
   depends on ``PYTHONHASHSEED``), the kinds are tried longest expression
   first, and inside a kind the first alternative that matches wins, whether
   or not the name goes on (``Human`` matches the first five letters of
   ``Humans``); a character nothing matches is skipped silently.  A name that
   is not a valid regular expression (``[benjaminFranklin``) means the lexer
   cannot be built: a *parsing error*.
5. **The ply parser** (an LALR parser; binary connectives at one precedence,
   grouping to the left, so ``A → B ∧ C`` is ``(A → B) ∧ C``) recovers from a
   syntax error by discarding everything read so far and the offending token
   and parsing on from the next one.  So a collision in step 4 either leaves
   nothing (the formula is ``None``: an *execution error*) or, silently, the
   last part that parses (``Human(Humans) ∧ Mortal(x)`` becomes ``Mortal(x)``).
   Where the outcome depends on the set order, every order is tried: one
   outcome is deterministic, more are *hash-order dependent* (the item is
   flagged, and the answer given is the one under the order that tries longer
   names first, i.e. reads whole names).
6. **nltk's reader** (else an *execution error*): a name with ``. - ! & ^ | <
   > = \\`` or a quote splits into pieces; a quantified variable must be one
   letter and digits (``∀Xy`` is refused); a predicate may not be a lower-case
   one-letter name.
7. **Prover9's symbol checks** (else a fatal error, an *execution error*): a name
   with a character Prover9's reader stops at (``[ ] { } : ? ~ ` %`` or any non-ASCII
   character; ``* + @ # /`` are read as operators inside the name, which is not modelled);
   a symbol used with two arities (a predicate ``Vacuum/1`` beside the
   capitalised constant ``Vacuum/0``, or ``P/1`` beside ``P/2``, across all
   formulas); a symbol that is both a proposition and a constant; a variable
   used as a formula.
8. **Free variables**: a name no quantifier binds that starts with ``u``-``z``
   is a Prover9 variable, universally quantified over its own formula; every
   other free name is a constant.  The conclusion and its negation are closed
   separately: the conclusion ``P(x)`` is proved as ``∀x P(x)`` and refuted as
   ``∀x ¬P(x)`` (so premises ``P(a)``, ``¬P(b)`` answer Unknown, not False).
9. **Decision**: True if the conclusion is proved (inconsistent premises
   prove everything, so they answer True), else False if its negation is
   proved, else Unknown.  z3 giving up within the time limit is an execution
   error, as Prover9 reaching its 10 s ``max_seconds`` is in Logic-LM.

Not reproducible from the text alone (they depend on the machine's speed):
Prover9's 10 s limit, and the 60 s alarm Logic-LM sets around the nltk chart
parser of step 3 (a long formula on a slow machine is a parsing error there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import permutations, product

from ..reasoning.fol import And, Const, Exists, Forall, Iff, Implies, Not, Or, Pred, Var, Xor

# ---------------------------------------------------------------- failure classes
GRAMMAR = "parsing error: outside Logic-LM's formula grammar"
NO_SECTIONS = "parsing error: no 'Premises:' or 'Conclusion:' section"
NO_LEXER = "parsing error: a name is not a valid regular expression (ply cannot build the lexer)"
PLY_NONE = "execution error: the ply parser returns None (a name collision in the lexer)"
NLTK = "execution error: nltk cannot read the Prover9 formula"
ARITIES = "execution error: Prover9: symbols used with multiple arities"
RELATION_FUNCTION = "execution error: Prover9: a symbol is both a proposition and a constant"
VARIABLE_ATOM = "execution error: Prover9: a variable used as a formula"
UNREADABLE = "execution error: Prover9 cannot read a name"
GAVE_UP = "execution error: the solver gave up within the time limit"
#: every class of a FOLIO program Logic-LM cannot run, in the order the steps fail
FAILURES = (
    NO_SECTIONS,
    GRAMMAR,
    NO_LEXER,
    PLY_NONE,
    NLTK,
    ARITIES,
    RELATION_FUNCTION,
    VARIABLE_ATOM,
    UNREADABLE,
    GAVE_UP,
)
#: orders of one token kind's names tried when collisions make the order matter
MAX_ORDERS = 720


class FolioStop(Exception):
    """A program Logic-LM's FOLIO path cannot run; ``failure`` is one of :data:`FAILURES`."""

    def __init__(self, failure: str, why: str):
        super().__init__(f"{failure} ({why})")
        self.failure, self.why = failure, why


# ---------------------------------------------------------------- step 2: nltk's tokens
_OPS = ("⊕", "∨", "∧", "→", "↔", "∀", "∃", "¬", "(", ")", ",")
_SYMBOL = re.compile(r"[^⊕∨∧→↔∀∃¬(),]+")
_BINARY = {"⊕", "∨", "∧", "→", "↔"}


def _split(text: str) -> list[str]:
    for op in _OPS:
        text = text.replace(op, f" {op} ")
    return [w for w in (w.replace("'", "") for w in text.split()) if w]


def fol_tokens(formula: str) -> list[str]:
    """Step 2: operators and names, multi-letter words glued and capitalised."""
    out: list[str] = []
    run: list[str] = []
    for w in _split(formula):
        if len(w) > 1 and _SYMBOL.match(w):
            run.append(w[0].upper() + w[1:])
            continue
        if run:
            out.append("".join(run))
            run = []
        out.append(w)
    if run:
        out.append("".join(run))
    return out


def lexer_text(tokens: list[str]) -> str:
    """The text the ply lexer reads: the accepted tokens joined, re-split and re-spaced.

    Joining loses token boundaries (``∀x Human(x)`` is read as ``∀xHuman(x)``),
    which the lexer's expressions then have to find again.
    """
    words = _split("".join(tokens))
    parts = []
    for i, w in enumerate(words):
        if w in _BINARY:
            parts.append(f" {w} ")
        elif w.startswith(","):
            parts.append(f"{w} ")
        elif len(w) == 1 and re.match(r"\w", w):
            parts.append(f"{w} " if i and words[i - 1] in ("∀", "∃") else w)
        else:
            parts.append(w)
    return "".join(parts)


def _is_name(tok: str) -> bool:
    return tok not in _OPS


# ---------------------------------------------------------------- step 3: the acceptance grammar
class _Grammar:
    """Recognizer of Logic-LM's acceptance grammar over a token list (memoised spans)."""

    def __init__(self, toks: list[str]):
        self.t = toks
        self.memo: dict[tuple[str, int, int], bool] = {}

    def _m(self, kind: str, i: int, j: int) -> bool:
        key = (kind, i, j)
        if key not in self.memo:
            self.memo[key] = False  # guards left recursion
            self.memo[key] = getattr(self, kind)(i, j)
        return self.memo[key]

    def S(self, i: int, j: int) -> bool:
        t = self.t
        if j - i < 1:
            return False
        if self._m("F", i, j):
            return True
        if t[i] == "¬" and self._m("S", i + 1, j):
            return True
        if t[i] == "(" and t[j - 1] == ")" and self._m("S", i + 1, j - 1):
            return True
        k = i
        while k + 1 < j and t[k] in ("∀", "∃") and _is_name(t[k + 1]):
            k += 2
            if self._m("F", k, j):
                return True
        return False

    def F(self, i: int, j: int) -> bool:
        t = self.t
        if j - i < 1:
            return False
        if self._m("L", i, j):
            return True
        if t[i] == "(" and t[j - 1] == ")" and self._m("F", i + 1, j - 1):
            return True
        if (
            j - i >= 3
            and t[i] == "¬"
            and t[i + 1] == "("
            and t[j - 1] == ")"
            and self._m("F", i + 2, j - 1)
        ):
            return True
        for k in range(i + 1, j - 1):
            if t[k] in _BINARY and self._m("F", i, k) and self._m("F", k + 1, j):
                return True
        return False

    def L(self, i: int, j: int) -> bool:
        t = self.t
        if i < j and t[i] == "¬":
            i += 1
        if j - i < 4 or not _is_name(t[i]) or t[i + 1] != "(" or t[j - 1] != ")":
            return False
        inner = t[i + 2 : j - 1]
        if len(inner) % 2 == 0:
            return False
        return all((_is_name(tok) if n % 2 == 0 else tok == ",") for n, tok in enumerate(inner))


def fol_accepts(formula: str) -> bool:
    """Whether Logic-LM's acceptance grammar (step 3) accepts ``formula``."""
    toks = fol_tokens(formula)
    return bool(toks) and _Grammar(toks).S(0, len(toks))


@dataclass(frozen=True)
class Symbols:
    """Step 3's three name sets of one formula (each in first-seen order)."""

    variables: tuple[str, ...]
    predicates: tuple[str, ...]
    constants: tuple[str, ...]


def symbols(tokens: list[str]) -> Symbols:
    """The variables (after a quantifier), predicates (before ``(``) and constants (the other
    argument names) of an accepted formula, as nltk's first parse tree labels them."""
    n = len(tokens)
    variables = [tokens[i + 1] for i in range(n - 1) if tokens[i] in ("∀", "∃")]
    predicates = [
        t
        for i, t in enumerate(tokens[:-1])
        if tokens[i + 1] == "(" and _is_name(t) and not (i and tokens[i - 1] in ("∀", "∃"))
    ]
    terms = [
        t
        for i, t in enumerate(tokens)
        if _is_name(t) and 0 < i < n - 1 and tokens[i - 1] in ("(", ",") and tokens[i + 1] != "("
    ]
    constants = [t for t in terms if t not in variables]
    return Symbols(*(tuple(dict.fromkeys(x)) for x in (variables, predicates, constants)))


# ---------------------------------------------------------------- step 4: the ply lexer
_FIXED_RULES = {
    "COMMA": ",",
    "LPAREN": r"\(",
    "NOT": "¬",
    "OP": "⊕|∨|∧|→|↔",
    "QUANT": "∀|∃",
    "RPAREN": r"\)",
}
#: what a kind's expression is when the formula has no such names
_DEFAULT_RULES = {"VAR": "x", "PRED": "PRED", "CONST": "0"}


class _NoLexer(Exception):
    pass


def _lexer(orders: dict[str, tuple[str, ...]]):
    """The master expression ply builds: kinds in ``dir()`` (alphabetical) order, then by
    decreasing expression length (a stable sort); each kind validated on its own first."""
    rules = dict(_FIXED_RULES)
    for kind, default in _DEFAULT_RULES.items():
        rules[kind] = "|".join(orders[kind]) if orders[kind] else default
    ordered = sorted(sorted(rules.items()), key=lambda kv: len(kv[1]), reverse=True)
    for kind, rx in ordered:
        try:
            if re.compile(f"(?P<t_{kind}>{rx})", re.VERBOSE).match(""):
                raise _NoLexer(f"the expression of {kind} matches the empty string")
        except re.error as exc:
            raise _NoLexer(f"{kind}: {exc}") from None
    return re.compile("|".join(f"(?P<t_{k}>{rx})" for k, rx in ordered), re.VERBOSE)


def _lex(text: str, master) -> tuple[tuple[str, str], ...]:
    out = []
    pos = 0
    while pos < len(text):
        if text[pos] in " \t":  # t_ignore
            pos += 1
            continue
        m = master.match(text, pos)
        if m is None or m.end() == pos:
            pos += 1  # t_error skips one character and says nothing
            continue
        out.append((m.lastgroup[2:], m.group()))
        pos = m.end()
    return tuple(out)


#: characters whose meaning in an expression can reach across the ``|`` between two names
_RISKY = set("[]|\\#")


def _relevant(names: tuple[str, ...], text: str) -> tuple[list[str], bool]:
    """The names whose relative order can change what the lexer reads, and whether trying
    their orders (the others kept in place) covers every order.

    Two names matter when both match at some position of the text with different lengths
    (``Human`` and ``Humans``).  A name with ``[ ] | \\ #`` or white space can change the
    expression across its neighbours (``[a|b]`` is a character class); those are tried in
    every order among themselves, which does not cover every order.
    """
    risky = [n for n in names if _RISKY & set(n) or any(c.isspace() for c in n)]
    compiled = {}
    for n in names:
        if n in risky:
            continue
        try:
            compiled[n] = re.compile(n, re.VERBOSE)
        except re.error:
            pass  # the kind's expression cannot compile in any order
    out = set(risky)
    for pos in range(len(text)):
        ends = {}
        for n, rx in compiled.items():
            m = rx.match(text, pos)
            if m is not None:
                ends[n] = m.end()
        if len(set(ends.values())) > 1:
            out.update(ends)
    return [n for n in names if n in out], not risky


def _canonical(names: tuple[str, ...]) -> tuple[str, ...]:
    """Longer names first: whole names win, the reading Logic-LM's prompt intends."""
    return tuple(sorted(names, key=lambda n: (-len(n), n)))


def _orders(names: tuple[str, ...], text: str) -> tuple[list[tuple[str, ...]], bool]:
    base = _canonical(names)
    rel, complete = _relevant(base, text)
    if len(rel) < 2:
        return [base], complete
    n_orders = 1
    for k in range(2, len(rel) + 1):
        n_orders *= k
    if n_orders > MAX_ORDERS:
        return [base], False
    slots = [i for i, n in enumerate(base) if n in rel]
    out = [base]
    for perm in permutations([base[i] for i in slots]):
        order = list(base)
        for i, n in zip(slots, perm):
            order[i] = n
        if tuple(order) != base:
            out.append(tuple(order))
    return out, complete


def lexings(sym: Symbols, text: str) -> tuple[list, bool]:
    """What the lexer gives over the set orders (the canonical order first): per distinct
    result, a token sequence or a :class:`_NoLexer` message; and whether every order was
    covered."""
    kinds = {"VAR": sym.variables, "PRED": sym.predicates, "CONST": sym.constants}
    choices = []
    complete = True
    for kind, names in kinds.items():
        orders, done = _orders(names, text)
        complete = complete and done
        choices.append([(kind, o) for o in orders])
    seen: dict = {}
    for combo in product(*choices):
        try:
            result = _lex(text, _lexer(dict(combo)))
        except _NoLexer as exc:
            result = _NoLexer(str(exc))
        key = ("no lexer",) if isinstance(result, _NoLexer) else result
        seen.setdefault(key, result)
    return list(seen.values()), complete


# ---------------------------------------------------------------- step 5: the ply parser
class _SyntaxAt(Exception):
    def __init__(self, index: int):
        self.index = index


@dataclass(frozen=True)
class Bare:
    """A name read as a whole formula (ply's ``F : VAR``); Prover9 takes it as a proposition."""

    name: str


class _Parse:
    """ply's LALR parse of one token sequence, as a recursive descent with the same language,
    the same grouping and the same point of error (the first token no sentence can continue
    with)."""

    def __init__(self, toks):
        self.t = toks

    def kind(self, i: int) -> str:
        return self.t[i][0] if i < len(self.t) else "$end"

    def value(self, i: int) -> str:
        return self.t[i][1]

    def expect(self, i: int, kind: str) -> None:
        if self.kind(i) != kind:
            raise _SyntaxAt(i)

    def formula(self):
        text, f, j = self.expr(0, ())
        if j != len(self.t):
            raise _SyntaxAt(j)
        return text, f

    def expr(self, i: int, bound: tuple[str, ...]):
        k = self.kind(i)
        if k == "QUANT":
            self.expect(i + 1, "VAR")
            var = self.value(i + 1)
            text, body, j = self.expr(i + 2, (*bound, var))
            if self.value(i) == "∀":
                return f"all {var}.({text})", Forall(var, body), j
            return f"some {var}.({text})", Exists(var, body), j
        if k == "NOT" and self.kind(i + 1) in ("NOT", "QUANT", "VAR"):
            text, body, j = self.expr(i + 1, bound)
            return f"not ({text})", Not(body), j
        return self.chain(i, bound)

    def chain(self, i: int, bound):
        text, f, j = self.unit(i, bound)
        while self.kind(j) == "OP":
            op = self.value(j)
            rtext, right, j = self.unit(j + 1, bound)
            text, f = _combine(op, text, f, rtext, right)
        return text, f, j

    def unit(self, i: int, bound):
        k = self.kind(i)
        if k == "NOT":
            if self.kind(i + 1) == "LPAREN":
                text, f, j = self.chain(i + 2, bound)
                self.expect(j, "RPAREN")
                return f"not ({text})", Not(f), j + 1
            if self.kind(i + 1) == "PRED":
                text, f, j = self.atom(i + 1, bound)
                return f"not {text}", Not(f), j
            raise _SyntaxAt(i + 1)
        if k == "LPAREN":
            text, f, j = self.chain(i + 1, bound)
            self.expect(j, "RPAREN")
            return text, f, j + 1
        if k == "VAR":
            return self.value(i), Bare(self.value(i)), i + 1
        if k == "PRED":
            return self.atom(i, bound)
        raise _SyntaxAt(i)

    def atom(self, i: int, bound):
        name = self.value(i)
        self.expect(i + 1, "LPAREN")
        terms = []
        j = i + 2
        while True:
            if self.kind(j) not in ("CONST", "VAR"):
                raise _SyntaxAt(j)
            terms.append(self.value(j))
            j += 1
            if self.kind(j) == "RPAREN":
                break
            self.expect(j, "COMMA")
            j += 1
        args = tuple(Var(a) if a in bound else Const(a) for a in terms)
        return f"{name}({', '.join(terms)})", Pred(name, args), j + 1


def _combine(op: str, ltext: str, left, rtext: str, right):
    if op == "⊕":
        return f"(({ltext}) & not ({rtext})) | (not ({ltext}) & ({rtext}))", Xor(left, right)
    if op == "∨":
        return f"({ltext}) | ({rtext})", Or((left, right))
    if op == "∧":
        return f"({ltext}) & ({rtext})", And((left, right))
    if op == "→":
        return f"({ltext}) -> ({rtext})", Implies(left, right)
    return f"({ltext}) <-> ({rtext})", Iff(left, right)


def ply_parse(toks) -> tuple[str, object] | None:
    """ply's result on a token sequence: ``(prover9 text, formula)``, or None.

    ply's recovery without error rules: on a syntax error the whole stack and
    the offending token are dropped and parsing starts again at the next token;
    an error at the end of the input returns None.
    """
    start = 0
    while True:
        try:
            return _Parse(toks[start:]).formula()
        except _SyntaxAt as err:
            at = start + err.index
            if at >= len(toks):
                return None
            start = at + 1


# ---------------------------------------------------------------- one formula, all steps
@dataclass(frozen=True)
class Reading:
    """How Logic-LM reads one formula.

    ``outcomes`` holds, per distinguishable hash order (the canonical order
    first), ``(prover9 text, formula)``, None (ply returns None) or a
    :class:`FolioStop` (the lexer cannot be built); ``complete`` is False when
    not every order could be tried.
    """

    text: str
    outcomes: tuple
    complete: bool = True

    @property
    def order_dependent(self) -> bool:
        return len(self.outcomes) > 1 or not self.complete


def read_formula(text: str, what: str) -> Reading:
    """Steps 2-5 for one formula; a :class:`FolioStop` when the grammar refuses it."""
    toks = fol_tokens(text)
    if not toks or not _Grammar(toks).S(0, len(toks)):
        raise FolioStop(GRAMMAR, f"{what}: {text[:60]!r}")
    results, complete = lexings(symbols(toks), lexer_text(toks))
    outcomes = []
    for r in results:
        if isinstance(r, _NoLexer):
            outcomes.append(FolioStop(NO_LEXER, f"{what}: {r}"))
        else:
            outcomes.append(ply_parse(r))
    unique: dict = {}
    for o in outcomes:
        unique.setdefault(o.failure if isinstance(o, FolioStop) else o, o)
    return Reading(text, tuple(unique.values()), complete)


# ---------------------------------------------------------------- steps 6-8 on one reading
_NLTK_SPLITS = re.compile(r"[.\-!&^|<>=\\\"]")
_NLTK_VARIABLE = re.compile(r"^[A-Za-z]\d*$")
_NLTK_INDVAR = re.compile(r"^[a-df-z]\d*$|^e\d*$")
_PROVER9_VARIABLE = re.compile(r"^[u-z]")
_PROVER9_STOPS = re.compile(r"[\[\]{}:?~`%]")


def _walk(f):
    yield f
    if isinstance(f, Not):
        yield from _walk(f.body)
    elif isinstance(f, (And, Or)):
        for a in f.args:
            yield from _walk(a)
    elif isinstance(f, (Implies, Iff, Xor)):
        yield from _walk(f.left)
        yield from _walk(f.right)
    elif isinstance(f, (Forall, Exists)):
        yield from _walk(f.body)


def check_nltk(formula, what: str) -> None:
    """Step 6: names nltk cannot read back (a :class:`FolioStop`)."""
    for node in _walk(formula):
        names = []
        if isinstance(node, (Forall, Exists)):
            if not _NLTK_VARIABLE.match(node.var):
                raise FolioStop(NLTK, f"{what}: {node.var!r} cannot be a quantified variable")
            names.append(node.var)
        elif isinstance(node, Pred):
            if _NLTK_INDVAR.match(node.name):
                raise FolioStop(NLTK, f"{what}: {node.name!r} cannot be a predicate")
            names += [node.name, *(a.name for a in node.args)]
        elif isinstance(node, Bare):
            names.append(node.name)
        for name in names:
            if _NLTK_SPLITS.search(name):
                raise FolioStop(NLTK, f"{what}: the name {name!r} splits into pieces")


def close(formula, bound: frozenset = frozenset()):
    """Step 8: free names starting u-z become variables (closed by :func:`closure_of`);
    a :class:`Bare` name becomes a proposition (a variable there is step 7's error)."""
    if isinstance(formula, Pred):
        return Pred(
            formula.name,
            tuple(
                Var(a.name)
                if isinstance(a, Var) or a.name in bound or _PROVER9_VARIABLE.match(a.name)
                else a
                for a in formula.args
            ),
        )
    if isinstance(formula, Bare):
        return Pred(formula.name, ())
    if isinstance(formula, Not):
        return Not(close(formula.body, bound))
    if isinstance(formula, (And, Or)):
        return type(formula)(tuple(close(a, bound) for a in formula.args))
    if isinstance(formula, (Implies, Iff, Xor)):
        return type(formula)(close(formula.left, bound), close(formula.right, bound))
    return type(formula)(formula.var, close(formula.body, bound | {formula.var}))


def free_variables(formula) -> list[str]:
    out: list[str] = []

    def walk(f, bound):
        if isinstance(f, Pred):
            for a in f.args:
                if isinstance(a, Var) and a.name not in bound and a.name not in out:
                    out.append(a.name)
        elif isinstance(f, Not):
            walk(f.body, bound)
        elif isinstance(f, (And, Or)):
            for a in f.args:
                walk(a, bound)
        elif isinstance(f, (Implies, Iff, Xor)):
            walk(f.left, bound)
            walk(f.right, bound)
        elif isinstance(f, (Forall, Exists)):
            walk(f.body, bound | {f.var})

    walk(formula, frozenset())
    return out


def closure_of(formula):
    """The universal closure of a (closed-by-:func:`close`) formula over its free variables."""
    for name in reversed(free_variables(formula)):
        formula = Forall(name, formula)
    return formula


def check_prover9(formulas) -> None:
    """Step 7 over all formulas of a problem (a :class:`FolioStop`)."""
    arities: dict[str, set[int]] = {}
    relations: set[tuple[str, int]] = set()
    functions: set[tuple[str, int]] = set()

    def walk(f, bound):
        if isinstance(f, Bare):
            if f.name in bound or _PROVER9_VARIABLE.match(f.name):
                raise FolioStop(VARIABLE_ATOM, f"{f.name!r} stands alone as a formula")
            relations.add((f.name, 0))
            arities.setdefault(f.name, set()).add(0)
        elif isinstance(f, Pred):
            relations.add((f.name, len(f.args)))
            arities.setdefault(f.name, set()).add(len(f.args))
            for a in f.args:
                if not (isinstance(a, Var) or a.name in bound or _PROVER9_VARIABLE.match(a.name)):
                    functions.add((a.name, 0))
                    arities.setdefault(a.name, set()).add(0)
        elif isinstance(f, Not):
            walk(f.body, bound)
        elif isinstance(f, (And, Or)):
            for a in f.args:
                walk(a, bound)
        elif isinstance(f, (Implies, Iff, Xor)):
            walk(f.left, bound)
            walk(f.right, bound)
        else:
            walk(f.body, bound | {f.var})

    for f in formulas:
        walk(f, frozenset())
    for name in sorted({n for n, _ in relations | functions}):
        if not name.isascii() or _PROVER9_STOPS.search(name):
            raise FolioStop(UNREADABLE, repr(name))
    multiple = sorted(n for n, a in arities.items() if len(a) > 1)
    if multiple:
        shown = ", ".join(f"{n}/{a}" for n in multiple[:3] for a in sorted(arities[n]))
        raise FolioStop(ARITIES, shown)
    both = sorted(relations & functions)
    if both:
        raise FolioStop(RELATION_FUNCTION, ", ".join(f"{n}/{a}" for n, a in both[:3]))


# ---------------------------------------------------------------- the whole program
def sections(program: str) -> tuple[list[str], str]:
    """Step 1: the premise lines and the conclusion line."""
    try:
        premises_text = program.split("Conclusion:")[0].split("Premises:")[1].strip()
        conclusion_text = program.split("Conclusion:")[1].strip()
    except IndexError:
        raise FolioStop(NO_SECTIONS, "the program has no such sections") from None
    premises = [p.split(":::")[0].strip() for p in premises_text.strip().split("\n")]
    conclusion = conclusion_text.strip().split("\n")[0].split(":::")[0].strip()
    return premises, conclusion


@dataclass(frozen=True)
class FolioAnswer:
    """Logic-LM's answer to one FOLIO program.

    ``answer`` is True/False/Unknown, or None with ``failure`` (one of
    :data:`FAILURES`) and ``why``; ``alternatives`` lists the other outcomes
    (answers or failure classes) under other hash orders, empty when the
    outcome does not depend on the order.
    """

    answer: str | None
    failure: str | None = None
    why: str = ""
    alternatives: tuple[str, ...] = ()

    @property
    def outcome(self) -> str:
        return self.answer if self.answer is not None else self.failure


def _decide(readings: list, time_limit: float) -> FolioAnswer:
    """Steps 6-9 for one choice of outcome per formula (conclusion last)."""
    from ..reasoning.fol import dual_query

    # Logic-LM builds every formula's lexer before it runs anything (a parsing error)
    for r in readings:
        if isinstance(r, FolioStop):
            return FolioAnswer(None, r.failure, r.why)
    what = [f"premise {k + 1}" for k in range(len(readings) - 1)] + ["the conclusion"]
    try:
        # nltk reads the conclusion first, then the premises in order
        for k in [len(readings) - 1, *range(len(readings) - 1)]:
            if readings[k] is None:
                raise FolioStop(PLY_NONE, what[k])
            check_nltk(readings[k][1], what[k])
        formulas = [r[1] for r in readings]
        check_prover9(formulas)
    except FolioStop as stop:
        return FolioAnswer(None, stop.failure, stop.why)
    *premises, goal = (close(f) for f in formulas)
    gamma = [closure_of(p) for p in premises]
    # Prover9 closes each goal on its own: P(x) is proved as ∀x P(x), refuted as ∀x ¬P(x)
    query = dual_query(
        gamma, closure_of(goal), negation=closure_of(Not(goal)), time_limit=time_limit
    )
    _, with_not_c, with_c = query.calls
    if with_not_c == "unsat":
        return FolioAnswer("True")
    if with_not_c != "sat" or with_c not in ("sat", "unsat"):
        return FolioAnswer(None, GAVE_UP, f"z3 within {time_limit:g} s")
    return FolioAnswer("False" if with_c == "unsat" else "Unknown")


#: combinations of per-formula outcomes decided for one hash-order-dependent program
MAX_COMBINATIONS = 16


def run_folio(program: str, *, time_limit: float) -> FolioAnswer:
    """Logic-LM's FOLIO answer to ``program`` (the module docstring, steps 1-9)."""
    readings: list[Reading] = []
    try:
        premises, conclusion = sections(program)
        names = [f"premise {k + 1}" for k in range(len(premises))] + ["the conclusion"]
        for text, what in zip([*premises, conclusion], names):
            readings.append(read_formula(text, what))
    except FolioStop as stop:
        # an earlier formula whose lexer cannot be built stopped Logic-LM first
        first = next(
            (r.outcomes[0] for r in readings if isinstance(r.outcomes[0], FolioStop)), stop
        )
        return FolioAnswer(None, first.failure, first.why)
    canonical = _decide([r.outcomes[0] for r in readings], time_limit)
    if not any(r.order_dependent for r in readings):
        return canonical
    others: dict[str, None] = {}
    combos = product(*(r.outcomes for r in readings))
    for n, combo in enumerate(combos):
        if n >= MAX_COMBINATIONS:
            others.setdefault("(more orders not tried)", None)
            break
        outcome = _decide(list(combo), time_limit).outcome
        if outcome != canonical.outcome:
            others.setdefault(outcome, None)
    if not all(r.complete for r in readings):
        others.setdefault("(more orders not tried)", None)
    return FolioAnswer(canonical.answer, canonical.failure, canonical.why, tuple(others))
