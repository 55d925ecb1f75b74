"""CNF formulas as plain data: the project's one formula parser.

A formula is a :class:`CNF`: clauses as tuples of signed ints (``3`` is x3,
``-3`` is ~x3), the number of variables, and optionally the projection (the
variables a projected model counter counts over).  Readers and writers come in
pairs and round-trip:

* text   ``(x1 | x2 | x3) & (x2 | x3 | ~x1)``  <->  :func:`parse_cnf` / :meth:`CNF.to_string`
* DIMACS ``p cnf 3 2`` ...                       <->  :func:`from_dimacs` / :meth:`CNF.to_dimacs`

Variable numbering for encodings with many named variables is an explicit
:class:`IdPool` (``pool.id("alpha[g=01][1]")`` -> int and back), never global.

Text grammar (whitespace is ignored)::

    formula := clause ("&" clause)*
    clause  := "(" literal ("|" literal)* ")" | literal
    literal := "~"? "x" INDEX          INDEX >= 1 in ASCII digits, x1 is bit 1 (leftmost)
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

__all__ = ["CNF", "IdPool", "parse_cnf", "from_dimacs", "evaluate"]


@dataclass(frozen=True)
class CNF:
    """A CNF formula: ``clauses`` over variables ``1..n_vars``.

    ``projection`` (sorted variable ids, or ``None`` for all variables) is the
    set a projected model counter counts over; ``comments`` are DIMACS ``c``
    lines written before the header.
    """

    clauses: tuple[tuple[int, ...], ...]
    n_vars: int
    projection: tuple[int, ...] | None = None
    comments: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        clauses = tuple(tuple(int(lit) for lit in clause) for clause in self.clauses)
        object.__setattr__(self, "clauses", clauses)
        top = max((abs(lit) for clause in clauses for lit in clause), default=0)
        if any(lit == 0 for clause in clauses for lit in clause):
            raise InputError("a literal cannot be 0")
        if top > self.n_vars:
            raise InputError(f"clause uses variable {top} > n_vars={self.n_vars}")
        if self.projection is not None:
            projection = tuple(sorted(set(int(v) for v in self.projection)))
            if projection and (projection[0] < 1 or projection[-1] > self.n_vars):
                raise InputError(f"projection {projection} outside 1..{self.n_vars}")
            object.__setattr__(self, "projection", projection)

    # ---- writers ---------------------------------------------------------
    def to_string(self) -> str:
        """The text form, e.g. ``(x1 | ~x2) & (x3)``; :func:`parse_cnf` reads it back."""
        return " & ".join(
            "(" + " | ".join(("~" if lit < 0 else "") + f"x{abs(lit)}" for lit in clause) + ")"
            for clause in self.clauses
        )

    def to_dimacs(self) -> str:
        """DIMACS CNF text; :func:`from_dimacs` reads it back.

        The projection is written twice, as ``c p show ... 0`` (model-counting
        competition format, read by Ganak) and ``c ind ... 0`` (read by ApproxMC),
        so any #SAT solver counts the same set.
        """
        lines = [f"c {line}" if line else "c" for line in self.comments]
        if self.projection is not None:
            shown = " ".join(str(v) for v in self.projection)
            lines.append(f"c p show {shown} 0".replace("  ", " "))
            lines.append(f"c ind {shown} 0".replace("  ", " "))
        lines.append(f"p cnf {self.n_vars} {len(self.clauses)}")
        lines.extend(" ".join(str(lit) for lit in clause) + " 0" for clause in self.clauses)
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_string()


class IdPool:
    """Explicit variable numbering: named things <-> DIMACS ids ``1, 2, ...``.

    >>> pool = IdPool()
    >>> pool.id("alpha[g=01] = 10"), pool.id("pi[1] = 2"), pool.id("alpha[g=01] = 10")
    (1, 2, 1)
    >>> pool.name(2)
    'pi[1] = 2'
    """

    def __init__(self, *, start: int = 1) -> None:
        self._ids: dict[Hashable, int] = {}
        self._names: list[Hashable] = []
        self._start = start

    def id(self, name: Hashable) -> int:
        """The id of ``name``, allocating the next free id on first use."""
        found = self._ids.get(name)
        if found is None:
            found = self._start + len(self._names)
            self._ids[name] = found
            self._names.append(name)
        return found

    def name(self, var: int) -> Hashable:
        return self._names[var - self._start]

    def __contains__(self, name: Hashable) -> bool:
        return name in self._ids

    @property
    def top(self) -> int:
        """The largest id handed out so far (0 when empty)."""
        return self._start + len(self._names) - 1

    def __len__(self) -> int:
        return len(self._names)


# ---- the text parser ------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<lpar>\()|(?P<rpar>\))|(?P<and>&)|(?P<or>\|)|(?P<not>~)|(?P<var>x(?P<index>[0-9]+))|(?P<bad>\S))"
)


def _tokens(text: str, field_name: str) -> list[tuple[str, str, int]]:
    out = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:  # only trailing whitespace is left
            break
        kind = next(
            name for name in ("lpar", "rpar", "and", "or", "not", "var", "bad") if match.group(name)
        )
        start = match.start(kind)
        if kind == "bad" and match.group("bad") == "x":
            raise InputError(
                f"{field_name}: variable at position {start + 1} must be x followed by the "
                f"digits 0-9, got {text[start : start + 6]!r}"
            )
        if kind == "bad":
            raise InputError(
                f"{field_name}: unexpected character {match.group('bad')!r} at position "
                f"{start + 1} "
                f"(expected x<i>, ~, |, &, parentheses)"
            )
        out.append((kind, match.group(kind), start))
        pos = match.end()
    return out


def parse_cnf(text: str, *, n_vars: int | None = None, field_name: str = "formula") -> CNF:
    """Parse ``(x1 | x2 | x3) & (x2 | x3 | ~x1)`` into a :class:`CNF`.

    Parameters
    ----------
    text : str
        The formula; see the module docstring for the grammar.
    n_vars : int, keyword-only
        Number of variables (the concept count k).  A variable above it is an
        error; by default it is the largest index used.
    field_name : str, keyword-only
        How error messages name the input (``--knowledge``, ``params.yaml: ...``).

    Raises
    ------
    InputError
        Naming the 1-based character position and token at fault.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{field_name}: expected a CNF like '(x1 | ~x2) & (x3)', got {text!r}")
    toks = _tokens(text, field_name)
    clauses: list[tuple[int, ...]] = []
    i = 0

    def where(j: int) -> str:
        return f"at position {toks[j][2] + 1}" if j < len(toks) else "at end of input"

    def expect_literal(j: int) -> tuple[int, int]:
        negative = False
        if j < len(toks) and toks[j][0] == "not":
            negative = True
            j += 1
        if j >= len(toks) or toks[j][0] != "var":
            got = repr(toks[j][1]) if j < len(toks) else "end of input"
            raise InputError(f"{field_name}: expected a variable x<i> {where(j)}, got {got}")
        index = int(toks[j][1][1:])
        if index < 1:
            raise InputError(
                f"{field_name}: variable indices start at x1, got {toks[j][1]} {where(j)}"
            )
        if n_vars is not None and index > n_vars:
            raise InputError(f"{field_name}: variable {toks[j][1]} {where(j)} exceeds k={n_vars}")
        return (-index if negative else index), j + 1

    while True:
        if i < len(toks) and toks[i][0] == "lpar":
            i += 1
            clause = []
            lit, i = expect_literal(i)
            clause.append(lit)
            while i < len(toks) and toks[i][0] == "or":
                lit, i = expect_literal(i + 1)
                clause.append(lit)
            if i >= len(toks) or toks[i][0] != "rpar":
                got = repr(toks[i][1]) if i < len(toks) else "end of input"
                raise InputError(f"{field_name}: expected '|' or ')' {where(i)}, got {got}")
            i += 1
        else:
            lit, i = expect_literal(i)
            clause = [lit]
        clauses.append(tuple(clause))
        if i >= len(toks):
            break
        if toks[i][0] != "and":
            raise InputError(
                f"{field_name}: expected '&' between clauses {where(i)}, got {toks[i][1]!r}"
            )
        i += 1
        if i >= len(toks):
            raise InputError(f"{field_name}: expected a clause after '&' at end of input")
    top = max(abs(lit) for clause in clauses for lit in clause)
    return CNF(tuple(clauses), n_vars if n_vars is not None else top)


# ---- DIMACS reader --------------------------------------------------------


_DIMACS_INT = re.compile(r"-?[0-9]+")


def _dimacs_int(token: str) -> int:
    """An integer written with ASCII digits (``int`` alone also takes ``1_0`` and other scripts'
    digits)."""
    if not _DIMACS_INT.fullmatch(token):
        raise InputError(token)
    return int(token)


def from_dimacs(text: str, *, source: str = "DIMACS") -> CNF:
    """Read DIMACS CNF text (the inverse of :meth:`CNF.to_dimacs`).

    Clauses may span lines; ``c ind``/``c p show`` lines set the projection;
    other comment lines are kept as comments.
    """
    n_vars = n_clauses = None
    comments: list[str] = []
    projection: list[int] | None = None
    clauses: list[tuple[int, ...]] = []
    current: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("c"):
            body = line[1:].strip()
            if body.startswith("ind ") or body.startswith("p show "):
                ids = body.split()[1 if body.startswith("ind ") else 2 :]
                try:
                    values = [_dimacs_int(v) for v in ids]
                except ValueError:
                    raise InputError(
                        f"{source}: line {lineno}: bad projection line {raw!r}"
                    ) from None
                projection = sorted(set((projection or []) + [v for v in values if v != 0]))
            else:
                comments.append(body)
            continue
        if line.startswith("p"):
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf":
                raise InputError(
                    f"{source}: line {lineno}: expected 'p cnf <vars> <clauses>', got {raw!r}"
                )
            try:
                n_vars, n_clauses = _dimacs_int(parts[2]), _dimacs_int(parts[3])
            except ValueError:
                raise InputError(
                    f"{source}: line {lineno}: expected 'p cnf <vars> <clauses>', got {raw!r}"
                ) from None
            continue
        if n_vars is None:
            raise InputError(f"{source}: line {lineno}: clause before the 'p cnf' header")
        for tok in line.split():
            try:
                lit = _dimacs_int(tok)
            except ValueError:
                raise InputError(
                    f"{source}: line {lineno}: expected an integer literal, got {tok!r}"
                ) from None
            if abs(lit) > n_vars:
                raise InputError(
                    f"{source}: line {lineno}: literal {lit} exceeds the declared {n_vars} "
                    "variables"
                )
            if lit == 0:
                clauses.append(tuple(current))
                current = []
            else:
                current.append(lit)
    if n_vars is None:
        raise InputError(f"{source}: no 'p cnf <vars> <clauses>' header")
    if current:
        clauses.append(tuple(current))
    if n_clauses is not None and len(clauses) != n_clauses:
        raise InputError(f"{source}: header declares {n_clauses} clauses, found {len(clauses)}")
    # Both projection spellings are written by to_dimacs; they are one set.
    comments = [c for c in comments]
    return CNF(
        tuple(clauses),
        n_vars,
        tuple(projection) if projection is not None else None,
        tuple(comments),
    )


# ---- evaluation -----------------------------------------------------------


def evaluate(cnf: CNF, states: np.ndarray | Sequence[Sequence[int]]) -> np.ndarray:
    """Truth value of ``cnf`` on each row of ``states`` (n, n_vars) of 0/1; returns (n,) bool.

    Row ``i`` satisfies the formula when every clause has a literal ``l`` with
    ``states[i, |l| - 1] == (l > 0)``.
    """
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] < cnf.n_vars:
        raise InputError(f"states must have shape (n, >= {cnf.n_vars}), got {states.shape}")
    truth = states.astype(bool)
    result = np.ones(len(truth), dtype=bool)
    for clause in cnf.clauses:
        sat = np.zeros(len(truth), dtype=bool)
        for lit in clause:
            column = truth[:, abs(lit) - 1]
            sat |= column if lit > 0 else ~column
        result &= sat
    return result


def clauses_over(cnf: CNF, variables: Iterable[int]) -> list[list[int]]:
    """``cnf``'s clauses with variable ``i`` renamed to ``variables[i - 1]`` (for encodings)."""
    variables = list(variables)
    return [
        [variables[abs(lit) - 1] * (1 if lit > 0 else -1) for lit in clause]
        for clause in cnf.clauses
    ]
