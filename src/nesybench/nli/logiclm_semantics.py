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
   conclusions use a variable its conditions do not bind
   (``Cold(Gary, True) >>> Smart($x, True)``) is compiled, but the moment its conditions hold
   Pyke raises ``KeyError('$x not bound')`` and the whole program is an
   *execution error*; while its conditions never hold the program runs and the
   rule derives nothing.
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

Compilation folder: Logic-LM's documented loop (``python models/logic_inference.py``
from the repository root) clears Pyke's compiled folder ``./models/compiled_krb``
before every program, so every program is compiled afresh, as here.  Run from
inside ``models/`` (not documented), the clearing misses the folder and Pyke,
deciding from file times, may run the previous program's compiled rules: that
"warm folder" reading is not reproduced (``bench/peers/peer_logiclm.py --cwd models``
measures it).

FOLIO (the Prover9 path)
------------------------
:mod:`nesybench.nli.logiclm_folio`: Logic-LM's nltk grammar, its ply lexer and
parser (name collisions, error recovery, the hash-order dependence), nltk's
reader and Prover9's symbol checks and goal closure, decided on z3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InputError
from ..reasoning.chainer import forward_chain
from ..reasoning.terms import Atom, Literal, Rule
from .programs import Outcome

#: what Logic-LM's answer letters mean
LETTERS = {"A": "True", "B": "False", "C": "Unknown"}


# the classes of a program Logic-LM's Pyke path cannot run (``Outcome.failure``)
SECTIONS = "parsing error: no 'Facts:' or 'Rules:' section"
RULE_LINE = "parsing error: a rule line without exactly one '>>>'"
COMPILE = "execution error: Pyke cannot compile a fact or rule"
NO_RULES = "execution error: no rules (Pyke rejects an empty rule file)"
NO_QUERY = "execution error: no query Logic-LM can read"
UNBOUND = "execution error: a conclusion's variable is unbound when its rule fires"
NESTED = "execution error: program nested too deeply"
FAILURES = (SECTIONS, RULE_LINE, COMPILE, NO_RULES, NO_QUERY, UNBOUND, NESTED)


class _Stop(Exception):
    """A program Logic-LM's solver cannot run: ``kind`` is 'parsing error' or 'execution error',
    ``failure`` its class (one of :data:`FAILURES`)."""

    def __init__(self, kind: str, why: str, failure: str | None = None):
        super().__init__(f"{kind}: {why}")
        self.kind = kind
        self.failure = failure or (COMPILE if kind == "execution error" else SECTIONS)


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
        raise _Stop("parsing error", "no 'Facts:' or 'Rules:' section", SECTIONS)
    kept = tuple(f for f in facts if "$x" not in f)
    parsed_rules = []
    for rule in rules or []:
        parts = rule.split(">>>")
        if len(parts) != 2:
            raise _Stop(
                "parsing error", f"a rule line without exactly one '>>>': {rule[:60]!r}", RULE_LINE
            )
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
        raise _Stop("execution error", "invalid syntax (an empty rule file)", NO_RULES)
    rules = []
    unbound: dict[Atom, str] = {}  # the probe atom of each rule with an unbound head variable
    for body, head in parsed.rules:
        conditions = [_krb_pattern(p) for p in body]
        conclusions = [_krb_pattern(c) for c in head]
        bound = {t for a in conditions for t in a.args if t.startswith("V_")}
        loose = [t for c in conclusions for t in c.args if t.startswith("V_") and t not in bound]
        if loose:
            # rule 7: derives nothing, but Pyke fails once its conditions hold; a fresh
            # 0-ary probe atom (no predicate name of the program has no "/") records that
            probe = Atom(f"unbound head {len(unbound)}", ())
            unbound[probe] = "$" + loose[0][2:]
            rules.append(Rule(probe, tuple(Literal(a) for a in conditions)))
            continue
        rules.extend(Rule(c, tuple(Literal(a) for a in conditions)) for c in conclusions)
    if parsed.query is None:
        raise _Stop("execution error", "no query ('Query:' missing or repeated)", NO_QUERY)
    m = _QUERY.match(parsed.query)
    if m is None:
        raise _Stop("execution error", f"invalid query: {parsed.query[:60]!r}", NO_QUERY)
    pred, subject, value_text = m.group(1), m.group(2), m.group(3)
    wanted = value_text == "True"
    goal = _Cursor(_tokens(f"{pred}({subject}, $label)"), rule=True).atom()
    closure = forward_chain(facts, rules)
    fired = [name for probe, name in unbound.items() if closure.holds(probe)]
    if fired:
        why = f"KeyError('{fired[0]} not bound'): a rule's conclusion uses a variable"
        raise _Stop("execution error", why + " its conditions do not bind, and they hold", UNBOUND)
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


def run_logiclm(program: str, *, dataset: str, time_limit: float = 10.0) -> Outcome:
    """The :class:`~nesybench.nli.programs.Outcome` under the ``logic-lm`` semantics (never
    raises on text)."""
    if dataset == "folio":
        from .logiclm_folio import run_folio

        try:
            got = run_folio(program, time_limit=time_limit)
        except RecursionError:
            return Outcome(None, "execution error: program nested too deeply", None, NESTED)
        if got.answer is None:
            return Outcome(None, f"{got.failure} ({got.why})", None, got.failure, got.alternatives)
        return Outcome(got.answer, "", got.answer, None, got.alternatives)
    try:
        answer = run_pyke(program, dataset=dataset)
    except _Stop as stop:
        return Outcome(None, str(stop), None, stop.failure)
    except InputError as exc:
        return Outcome(None, f"execution error: {exc}", None, COMPILE)
    except RecursionError:
        return Outcome(None, "execution error: program nested too deeply", None, NESTED)
    return Outcome(answer, "", answer)
