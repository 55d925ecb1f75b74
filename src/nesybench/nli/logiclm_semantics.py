"""The ``logic-lm`` semantics: what Logic-LM's own solvers do with a program, quirks included.

Rebuilt from reading Logic-LM's public code (``pyke_solver.py``, the FOLIO
Prover9 path and ``logic_inference.py``; no code copied), so that the paper's
figures can be reproduced from the shipped programs and every quirk that
changes an answer can be named.

Rule language (ProofWriter, PrOntoQA; the Pyke path)
----------------------------------------------------
1. **Sections by string splitting.**  The text is split on ``Query:``, then
   ``Rules:``, ``Facts:``, ``Predicates:``, in that order; a keyword that occurs
   more than once (or never) leaves its section unset.  Each section's lines
   are cut at ``:::``; blank lines inside a section stay as empty statements.
2. **Repair.**  When ``Facts:`` or ``Rules:`` is unset or starts with an empty
   line, every line of ``Facts:`` (or of ``Rules:`` when ``Facts:`` is unset)
   is re-sorted by whether it contains ``>>>``; the original ``Rules:`` lines
   are then *dropped*.  So a program whose ``Facts:`` section is empty loses
   all its rules.
3. **Facts containing ``$x`` are dropped silently** (only the text ``$x``; a
   fact with ``$y`` reaches the compiler and fails).  A ``>>>`` line left in
   ``Facts:`` without ``$x`` also reaches the compiler and fails.
4. **Rules** must contain exactly one ``>>>`` (else: a *parsing error*); a
   blank line in ``Rules:`` is such a rule.  Conditions and conclusions are
   split at ``&&``.
5. **Compilation** (Pyke's ``.kfb``/``.krb`` syntax): an argument must be an
   identifier, a number, a quoted string, ``True``/``False``/``None`` or (in a
   rule) a ``$variable``; anything else (spaces inside a name, hyphens,
   nested atoms, lower-case Pyke keywords such as ``in`` in a rule) is an
   *execution error*.  Values compare as Python values: the identifier
   ``Bob`` equals the string ``'Bob'``, and ``1`` equals ``True``.
6. **A program without rules** (after step 2) fails: Pyke's rule compiler
   rejects an empty rule file (an *execution error*).
7. **Forward chaining** to the fixpoint; the truth value is just the last
   argument, so ``P(a, False)`` is an explicit negative fact.  A rule whose
   conclusion has a variable the conditions do not bind never derives
   anything.
8. **The query** is read with the pattern ``Name(first, rest)``: only the
   predicate and the *first* argument are used, and the value is True only if
   ``rest`` is exactly ``True``.  The solver then looks up two-argument facts
   ``Name(first, $label)``: **a query about a relation (three arguments or
   more) never finds anything**, so ProofWriter answers it Unknown and
   PrOntoQA False.  One value found is the result; two (both ``True`` and
   ``False`` derived) are combined with Python's ``and`` (so an inconsistent
   theory answers ``False``); none or more than two is no result.
9. **Answers**: ProofWriter: no result -> Unknown, result equal to the queried
   value -> True, else False.  PrOntoQA: equal -> True, anything else
   (including no result) -> False.

Not reproduced: Logic-LM compiles every program into the same folder and
Pyke decides whether to recompile from file times, so a run can reuse the
previous program's compiled rules; we compile every program afresh (the
intended behaviour), and report the difference as a finding.

FOLIO (the Prover9 path)
------------------------
1. **Sections**: the text between the first ``Premises:`` and the first
   ``Conclusion:``, one formula a line (a blank line is an unparsable formula),
   and the first line after ``Conclusion:``.
2. **Tokens**: operators ``⊕ ∨ ∧ → ↔ ∀ ∃ ¬ ( ) ,`` only (no ASCII forms);
   apostrophes are deleted; consecutive words of more than one character are
   glued into one name and every such name gets a capital first letter
   (``captain america`` -> ``CaptainAmerica``).
3. **Acceptance grammar** (a context-free grammar, else a *parsing error*):
   quantifiers only as a prefix of the whole formula (or after a leading
   ``¬`` or inside parentheses around the whole formula); every atom has
   arguments (no propositions); no equality, no function terms; ``¬`` before
   a parenthesis or an atom only.
4. **Translation to Prover9** (else an *execution error*): all binary
   connectives have the same precedence and group to the left, so
   ``A → B ∧ C`` is read ``(A → B) ∧ C``; a quantifier inside parentheses is
   rejected.
5. **Free variables**: a name that no quantifier binds and that is a single
   letter ``u``-``z`` is a Prover9 variable, i.e. universally quantified over
   its formula; every other free name is a constant.
6. **Decision**: True if the conclusion is proved (so inconsistent premises
   answer True), else False if its negation is proved, else Unknown.  We
   decide with z3 instead of Prover9 (a time limit per call; z3 giving up is
   an execution error, as Prover9 hitting its limit is in Logic-LM).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UserError
from ..reasoning.chainer import forward_chain
from ..reasoning.terms import Atom, Literal, Rule

#: what Logic-LM's answer letters mean
LETTERS = {"A": "True", "B": "False", "C": "Unknown"}


class _Stop(Exception):
    """A program Logic-LM's solver cannot run: ``kind`` is 'parsing error' or 'execution error'."""

    def __init__(self, kind: str, why: str):
        super().__init__(f"{kind}: {why}")
        self.kind = kind


# ---------------------------------------------------------------- Pyke's tokens
_PY_KEYWORDS = frozenset(
    "as assert bc_extras check extending fc_extras first forall foreach in notany "
    "plan_extras python require step taking use when with without".split()
)
_TOKEN = re.compile(
    r"""(?P<ws>[ \t]+)|(?P<comment>\#.*)
    |(?P<str>'[^'\\\n]*'|"[^"\\\n]*")
    |(?P<anon>\$_(?:[a-zA-Z_][a-zA-Z0-9_]*)?)
    |(?P<var>\$[a-zA-Z][a-zA-Z0-9_]*)
    |(?P<id>[a-zA-Z_][a-zA-Z0-9_]*)
    |(?P<float>[-+]?(?:[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)|\.[0-9]+(?:[eE][-+]?[0-9]+)?))
    |(?P<hex>[-+]?0[xX][0-9a-fA-F]+)
    |(?P<oct>[-+]?0[0-7]*)
    |(?P<int>[-+]?[1-9][0-9]*)
    |(?P<punct>[(),.])""",
    re.X,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i:
            raise _Stop("execution error", f"invalid syntax near {text[i : i + 20]!r}")
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append((kind, m.group(0)))
        i = m.end()
    return out


def _value(kind: str, text: str) -> object:
    """A Pyke datum as the Python value it becomes (so that ``1 == True``)."""
    if kind == "id":
        return {"True": True, "False": False, "None": None}.get(text, text)
    if kind == "str":
        return text[1:-1]
    if kind == "float":
        return float(text)
    if kind == "hex":
        return int(text, 16)
    if kind == "oct":
        return int(text, 8)
    if kind == "int":
        return int(text)
    raise AssertionError(kind)


def _encode(value: object) -> str:
    """A Python value as a chainer constant that is equal exactly when the values are ``==``."""
    if isinstance(value, tuple):
        return "c:(" + ",".join(_encode(v) for v in value) + ")"
    if value is None:
        return "c:None"
    if isinstance(value, (bool, int, float)):
        return f"c:n:{float(value)!r}"
    return "c:s:" + str(value)


def _decode(term: str) -> object:
    if term == "c:None":
        return None
    if term.startswith("c:n:"):
        number = float(term[4:])
        return number
    return term[4:] if term.startswith("c:s:") else term


class _Cursor:
    def __init__(self, tokens: list[tuple[str, str]], *, rule: bool):
        self.tokens, self.i, self.rule = tokens, 0, rule
        self.anon = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise _Stop("execution error", "invalid syntax (unexpected end)")
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok[1] != text:
            raise _Stop("execution error", f"invalid syntax: expected {text!r}, got {tok[1]!r}")

    def datum(self) -> str:
        kind, text = self.take()
        if text == "(":
            items = []
            if self.peek() and self.peek()[1] == ")":
                self.take()
                return _encode(())
            items.append(self.datum())
            while self.peek() and self.peek()[1] == ",":
                self.take()
                if self.peek() and self.peek()[1] == ")":
                    break
                items.append(self.datum())
            self.expect(")")
            return "c:(" + ",".join(items) + ")"
        if kind in ("var", "anon"):
            if not self.rule:
                raise _Stop("execution error", f"invalid syntax: variable {text!r} in a fact")
            if kind == "anon":
                self.anon += 1
                return f"V_anon{self.anon}"
            return "V_" + text[1:]
        if kind == "id" and self.rule and text in _PY_KEYWORDS:
            raise _Stop("execution error", f"invalid syntax: keyword {text!r} as an argument")
        if kind == "punct":
            raise _Stop("execution error", f"invalid syntax: unexpected {text!r}")
        return _encode(_value(kind, text))

    def atom(self) -> Atom:
        kind, name = self.take()
        if kind != "id" or (self.rule and name in _PY_KEYWORDS):
            raise _Stop("execution error", f"invalid syntax: expected a fact name, got {name!r}")
        self.expect("(")
        args: list[str] = []
        if self.peek() and self.peek()[1] == ")":
            self.take()
            return Atom(f"{name}/0", ())
        args.append(self.datum())
        while self.peek() and self.peek()[1] == ",":
            self.take()
            args.append(self.datum())
        self.expect(")")
        # one relation per name and arity (Pyke matches a pattern only against facts of its length)
        return Atom(f"{name}/{len(args)}", tuple(args))

    def done(self) -> None:
        if self.peek() is not None:
            raise _Stop("execution error", f"invalid syntax: unexpected {self.peek()[1]!r}")


def _kfb_fact(line: str) -> Atom | None:
    cur = _Cursor(_tokens(line), rule=False)
    if cur.peek() is None:
        return None  # a blank line (or a comment) in the facts file
    atom = cur.atom()
    cur.done()
    return atom


def _krb_pattern(text: str) -> Atom:
    cur = _Cursor(_tokens("facts." + text), rule=True)
    cur.expect("facts")
    cur.expect(".")
    atom = cur.atom()
    cur.done()
    return atom


# ---------------------------------------------------------------- the Pyke path
@dataclass(frozen=True)
class PykeProgram:
    facts: tuple[str, ...]  # lines written to the facts file
    rules: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (conditions, conclusions)
    query: str | None


def _segment(text: str, key: str) -> tuple[str, list[str] | None]:
    parts = text.split(key)
    if len(parts) != 2:
        return text, None
    remain, segment = parts
    return remain, [line.split(":::")[0].strip() for line in segment.strip().split("\n")]


def pyke_sections(program: str) -> PykeProgram:
    """Steps 1-4 of the module docstring; a :class:`_Stop` ('parsing error') when they fail."""
    text = program.strip()
    text, query = _segment(text, "Query:")
    text, rules = _segment(text, "Rules:")
    text, facts = _segment(text, "Facts:")
    _segment(text, "Predicates:")
    if not (rules is not None and facts is not None and rules[0] != "" and facts[0] != ""):
        statements = facts if facts is not None else rules
        if statements is not None:
            rules = [s for s in statements if ">>>" in s]
            facts = [s for s in statements if ">>>" not in s]
    if facts is None:
        raise _Stop("parsing error", "no 'Facts:' or 'Rules:' section")
    kept = tuple(f for f in facts if "$x" not in f)
    parsed_rules = []
    for rule in rules or []:
        parts = rule.split(">>>")
        if len(parts) != 2:
            raise _Stop("parsing error", f"a rule line without exactly one '>>>': {rule[:60]!r}")
        body = tuple(p.strip() for p in parts[0].strip().split("&&"))
        head = tuple(c.strip() for c in parts[1].strip().split("&&"))
        parsed_rules.append((body, head))
    first_query = query[0] if query else None
    return PykeProgram(kept, tuple(parsed_rules), first_query)


_QUERY = re.compile(r"(\w+)\(([^,]+),\s*([^)]+)\)")


def run_pyke(program: str, *, dataset: str) -> str:
    """The answer Logic-LM's Pyke solver gives (True/False/Unknown), or :class:`_Stop`."""
    parsed = pyke_sections(program)
    facts = [a for line in parsed.facts if (a := _kfb_fact(line)) is not None]
    if not parsed.rules:
        # Pyke's rule compiler rejects an empty rule file.
        raise _Stop("execution error", "invalid syntax (an empty rule file)")
    rules = []
    for body, head in parsed.rules:
        conditions = [_krb_pattern(p) for p in body]
        conclusions = [_krb_pattern(c) for c in head]
        bound = {t for a in conditions for t in a.args if t.startswith("V_")}
        for c in conclusions:
            if {t for t in c.args if t.startswith("V_")} <= bound:
                rules.append(Rule(c, tuple(Literal(a) for a in conditions)))
    if parsed.query is None:
        raise _Stop("execution error", "no query ('Query:' missing or repeated)")
    m = _QUERY.match(parsed.query)
    if m is None:
        raise _Stop("execution error", f"invalid query: {parsed.query[:60]!r}")
    pred, subject, value_text = m.group(1), m.group(2), m.group(3)
    wanted = value_text == "True"
    goal = _Cursor(_tokens(f"{pred}({subject}, $label)"), rule=True).atom()
    closure = forward_chain(facts, rules)
    results = []
    for atom in closure.atoms:
        if atom.pred != goal.pred:
            continue
        first = goal.args[0]
        if first.startswith("V_") or atom.args[0] == first:
            results.append(_decode(atom.args[1]))
    if len(results) == 1:
        result = results[0]
    elif len(results) == 2:
        result = results[0] and results[1]
    else:
        result = None
    if dataset == "prontoqa":
        return "True" if result == wanted else "False"
    if result is None:
        return "Unknown"
    return "True" if result == wanted else "False"


# ---------------------------------------------------------------- the Prover9 path (FOLIO)
_FOL_OPS = ("⊕", "∨", "∧", "→", "↔", "∀", "∃", "¬", "(", ")", ",")
_BINARY = {"⊕", "∨", "∧", "→", "↔"}


def fol_tokens(formula: str) -> list[str]:
    """Step 2 of the FOLIO list: operators and names, glued and capitalised as Logic-LM does."""
    s = formula
    for op in _FOL_OPS:
        s = s.replace(op, f" {op} ")
    words = [w.replace("'", "") for w in s.split()]
    words = [w for w in words if w]
    out: list[str] = []
    run: list[str] = []
    for w in words:
        if len(w) > 1 and w not in _FOL_OPS:
            run.append(w[0].upper() + w[1:])
            continue
        if run:
            out.append("".join(run))
            run = []
        out.append(w)
    if run:
        out.append("".join(run))
    return out


def _is_name(tok: str) -> bool:
    return tok not in _FOL_OPS


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


class _Translate:
    """Step 4: Logic-LM's second parser (equal precedence, left grouping) into our AST."""

    def __init__(self, toks: list[str]):
        self.t, self.i = toks, 0
        self.bound: list[str] = []

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise _Stop("execution error", "formula ends early in the Prover9 translation")
        self.i += 1
        return tok

    def expr(self):
        from ..reasoning.fol import Exists, Forall, Not

        tok = self.peek()
        if tok in ("∀", "∃"):
            self.take()
            var = self.take()
            self.bound.append(var)
            body = self.expr()
            self.bound.pop()
            return Forall(var, body) if tok == "∀" else Exists(var, body)
        if tok == "¬" and self.i + 1 < len(self.t) and self.t[self.i + 1] in ("¬", "∀", "∃"):
            self.take()
            return Not(self.expr())
        return self.binary()

    def binary(self):
        from ..reasoning.fol import And, Iff, Implies, Not, Or

        left = self.unit()
        while self.peek() in _BINARY:
            op = self.take()
            right = self.unit()
            if op == "∧":
                left = And((left, right))
            elif op == "∨":
                left = Or((left, right))
            elif op == "→":
                left = Implies(left, right)
            elif op == "↔":
                left = Iff(left, right)
            else:
                left = Or((And((left, Not(right))), And((Not(left), right))))
        return left

    def unit(self):
        from ..reasoning.fol import Not

        tok = self.peek()
        if tok == "¬" and self.i + 1 < len(self.t) and self.t[self.i + 1] == "(":
            self.take()
            return Not(self.paren())
        if tok == "(":
            return self.paren()
        return self.literal()

    def paren(self):
        self.take()  # "("
        if self.peek() in ("∀", "∃"):
            raise _Stop("execution error", "a quantifier inside parentheses (Prover9 translation)")
        inner = self.binary()
        if self.take() != ")":
            raise _Stop("execution error", "unbalanced parentheses (Prover9 translation)")
        return inner

    def literal(self):
        from ..reasoning.fol import Const, Not, Pred, Var

        neg = False
        if self.peek() == "¬":
            self.take()
            neg = True
        name = self.take()
        if not _is_name(name) or self.take() != "(":
            raise _Stop("execution error", f"expected an atom at {name!r} (Prover9 translation)")
        args = []
        while True:
            term = self.take()
            if not _is_name(term):
                raise _Stop("execution error", f"expected a term, got {term!r}")
            args.append(Var(term) if term in self.bound else Const(term))
            sep = self.take()
            if sep == ")":
                break
            if sep != ",":
                raise _Stop("execution error", f"expected ',' or ')', got {sep!r}")
        atom = Pred(name, tuple(args))
        return Not(atom) if neg else atom


_FREE_VARIABLE = re.compile(r"^[u-z]$")


def _close(formula):
    """Step 5: universally close the free single-letter names u-z (Prover9 variables)."""
    from ..reasoning.fol import (
        And,
        Const,
        Exists,
        Forall,
        Iff,
        Implies,
        Not,
        Or,
        Pred,
        Var,
    )

    free: list[str] = []

    def walk(f):
        if isinstance(f, Pred):
            args = []
            for a in f.args:
                if isinstance(a, Const) and _FREE_VARIABLE.match(a.name):
                    if a.name not in free:
                        free.append(a.name)
                    args.append(Var(a.name))
                else:
                    args.append(a)
            return Pred(f.name, tuple(args))
        if isinstance(f, Not):
            return Not(walk(f.body))
        if isinstance(f, (And, Or)):
            return type(f)(tuple(walk(a) for a in f.args))
        if isinstance(f, (Implies, Iff)):
            return type(f)(walk(f.left), walk(f.right))
        if isinstance(f, (Forall, Exists)):
            return type(f)(f.var, walk(f.body))
        return f

    body = walk(formula)
    for name in reversed(free):
        body = Forall(name, body)
    return body


def _fol_formula(text: str, what: str):
    toks = fol_tokens(text)
    if not toks or not _Grammar(toks).S(0, len(toks)):
        raise _Stop("parsing error", f"{what} outside Logic-LM's formula grammar: {text[:60]!r}")
    tr = _Translate(toks)
    formula = tr.expr()
    if tr.peek() is not None:
        raise _Stop("execution error", f"{what}: Prover9 translation stops at {tr.peek()!r}")
    return _close(formula)


def run_prover9_path(program: str, *, time_limit: float) -> str:
    """Logic-LM's FOLIO answer (True/False/Unknown), decided on z3, or :class:`_Stop`."""
    from ..reasoning.fol import dual_query

    try:
        premises_text = program.split("Conclusion:")[0].split("Premises:")[1].strip()
        conclusion_text = program.split("Conclusion:")[1].strip()
    except IndexError:
        raise _Stop("parsing error", "no 'Premises:' or 'Conclusion:' section") from None
    premises = [p.split(":::")[0].strip() for p in premises_text.strip().split("\n")]
    conclusion = conclusion_text.strip().split("\n")[0].split(":::")[0].strip()
    gamma = [_fol_formula(p, f"premise {k + 1}") for k, p in enumerate(premises)]
    goal = _fol_formula(conclusion, "the conclusion")
    # Prover9 as Logic-LM calls it proves c, else proves not-c: read off the shared dual query's
    # two checks (an inconsistent theory proves both, so it answers True, quirk included)
    _, with_not_c, with_c = dual_query(gamma, goal, time_limit=time_limit).calls
    if with_not_c == "unsat":
        return "True"
    if with_c == "unsat":
        return "False"
    if "unknown" in (with_not_c, with_c):
        raise _Stop("execution error", f"the solver gave up within {time_limit:g} s")
    return "Unknown"


def run_logiclm(program: str, *, dataset: str, time_limit: float = 10.0):
    """``(predicted, reason, derived)`` under the ``logic-lm`` semantics (never raises on text)."""
    try:
        if dataset == "folio":
            answer = run_prover9_path(program, time_limit=time_limit)
        else:
            answer = run_pyke(program, dataset=dataset)
    except _Stop as stop:
        return None, str(stop), None
    except UserError as exc:
        return None, f"execution error: {exc}", None
    except RecursionError:
        return None, "execution error: program nested too deeply", None
    return answer, "", answer
