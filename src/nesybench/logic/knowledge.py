"""The knowledge K that labels concept states: parity, a CNF, a sum, or a table.

Every knowledge object has ``domains`` (the domain size of each concept, see
:mod:`nesybench.logic.states`), ``k = len(domains)`` and
``labels(states) -> (n,) int64``: the label of each row of an ``(n, k)`` array
of states, as an integer code.  Two states have the same label exactly when
their codes are equal; ``label_name(code)`` gives the label as written.

* :class:`Knowledge` -- binary concepts: ``"xor"`` (k-bit parity, label =
  g_1 + ... + g_k mod 2) or a CNF over x1..xk (label 1 when the state
  satisfies the formula).
* :class:`SumKnowledge` -- ``"sum"``: label = g_1 + ... + g_k (MNIST-Addition
  with any number of digits; any domains).
* :class:`TableKnowledge` -- a label for every state, e.g. read from a user's
  CSV or Parquet file by :func:`read_knowledge_table`.

:func:`make_knowledge` builds the first two from a spec string.

>>> make_knowledge("sum", (10, 10)).labels([[3, 5], [9, 9]]).tolist()
[8, 18]
>>> make_knowledge("xor", 3).labels([[1, 1, 0], [1, 0, 0]]).tolist()
[0, 1]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .cnf import CNF, evaluate, parse_cnf
from .states import (
    Domains,
    all_states,
    as_domains,
    parse_state,
    parse_states,
    state_index,
    state_str,
    states_index,
)

__all__ = [
    "Knowledge",
    "SumKnowledge",
    "TableKnowledge",
    "KNOWLEDGE_TYPES",
    "make_knowledge",
    "read_knowledge_table",
    "knowledge_table_frame",
    "all_states",
    "state_str",
    "parse_state",
    "parse_states",
]

XOR = "xor"
SUM = "sum"
MAX_TABLE_STATES = 2**22  # a knowledge table lists every state once
MAX_SUM_CLASSES = 2**24  # sums 0..S-1 whose class sizes one table may hold


def _check_states(states, k: int) -> np.ndarray:
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] != k:
        raise InputError(f"states must have shape (n, {k}), got {states.shape}")
    return states.astype(np.int64, copy=False)


@dataclass(frozen=True)
class Knowledge:
    """The label map K: {0,1}^k -> {0,1}, from ``spec`` ("xor" or a CNF string) and ``k``."""

    spec: str
    k: int
    cnf: CNF | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.k, (int, np.integer)) or isinstance(self.k, bool) or self.k < 1:
            raise InputError(f"k must be an integer >= 1, got {self.k!r}")
        object.__setattr__(self, "k", int(self.k))
        if not isinstance(self.spec, str):
            raise InputError(f"knowledge must be 'xor' or a CNF string, got {self.spec!r}")
        if self.spec.strip().lower() != XOR:
            object.__setattr__(
                self, "cnf", parse_cnf(self.spec, n_vars=self.k, field_name="knowledge")
            )

    @property
    def domains(self) -> Domains:
        return (2,) * self.k

    @property
    def is_parity(self) -> bool:
        return self.cnf is None

    def labels(self, states) -> np.ndarray:
        """(n, k) 0/1 states -> (n,) int labels K(g)."""
        states = _check_states(states, self.k)
        if self.cnf is None:
            return (states.sum(axis=1) % 2).astype(np.int64)
        return evaluate(self.cnf, states).astype(np.int64)

    def label_name(self, code: int) -> int:
        return int(code)

    def describe(self) -> str:
        return f"{self.k}-bit parity" if self.is_parity else self.cnf.to_string()


@dataclass(frozen=True)
class SumKnowledge:
    """K(g) = g_1 + ... + g_k over concepts with values ``0 .. d_j - 1``."""

    domains: Domains
    spec: str = field(default=SUM, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "domains", as_domains(self.domains))

    @property
    def k(self) -> int:
        return len(self.domains)

    is_parity = False
    cnf = None

    def labels(self, states) -> np.ndarray:
        return _check_states(states, self.k).sum(axis=1)

    def label_name(self, code: int) -> int:
        return int(code)

    @property
    def n_classes(self) -> int:
        """How many sums there are (0 .. sum of (d_j - 1)), whether or not each occurs."""
        return sum(d - 1 for d in self.domains) + 1

    def class_sizes(self) -> dict[int, int]:
        """``{s: #states with sum s}``, by convolving the domains (no state is listed).

        Each convolution with a domain 0..d-1 is a difference of prefix sums, so the
        cost is one pass over the sums per concept; counts past 2^62 are Python ints.
        Refused past ``MAX_SUM_CLASSES`` sums (use :meth:`class_size` for one sum).

        >>> SumKnowledge((3, 3)).class_sizes()
        {0: 1, 1: 2, 2: 3, 3: 2, 4: 1}
        """
        n_sums = self.n_classes
        if n_sums > MAX_SUM_CLASSES:
            raise InputError(
                f"knowledge sum: domains with {n_sums:,} possible sums have more label classes "
                f"than the {MAX_SUM_CLASSES:,} a table of class sizes may hold"
            )
        dtype = np.int64 if math.prod(self.domains) < 2**62 else object
        poly = np.zeros(n_sums, dtype=dtype)
        poly[0] = 1
        top = 0  # poly[i] is 0 past top
        for d in self.domains:
            prefix = np.cumsum(poly[: top + d])
            shifted = np.zeros_like(prefix)
            shifted[d:] = prefix[:-d]
            top += d - 1
            poly[: top + 1] = prefix[: top + 1] - shifted[: top + 1]
        return {s: int(c) for s, c in enumerate(poly.tolist()) if c}

    def class_size(self, total: int) -> int:
        """#states whose values sum to ``total``, without the table of every sum.

        Inclusion-exclusion on the concepts that overflow their domain, grouped by
        domain size: sum over i_D <= m_D of prod C(m_D, i_D) (-1)^i_D times
        C(total - sum i_D D + k - 1, k - 1).

        >>> SumKnowledge((3, 3)).class_size(2), SumKnowledge((2**20, 2**20)).class_size(5)
        (3, 6)
        """
        total = int(total)
        k = self.k
        if not 0 <= total < self.n_classes:
            return 0
        sizes = sorted(set(self.domains))
        counts = [self.domains.count(d) for d in sizes]
        out = 0
        stack = [(0, 0, 1)]  # (next size class, overflow so far, signed coefficient)
        while stack:
            c, over, coef = stack.pop()
            if c == len(sizes):
                out += coef * math.comb(total - over + k - 1, k - 1)
                continue
            d = sizes[c]
            for i in range(counts[c] + 1):
                if over + i * d > total:
                    break
                stack.append((c + 1, over + i * d, coef * (-1) ** i * math.comb(counts[c], i)))
        return out

    def describe(self) -> str:
        return "sum of the concept values"


@dataclass(frozen=True, eq=False)
class TableKnowledge:
    """K given as a label for every state.

    ``codes[i]`` is the label code of row ``i`` of ``all_states(domains)``;
    ``names[c]`` is the label that code ``c`` stands for (an int or a string).
    """

    domains: Domains
    codes: np.ndarray = field(repr=False)
    names: tuple = field(repr=False)
    source: str = "table"
    spec: str = field(default="table", init=False)

    is_parity = False
    cnf = None

    @classmethod
    def from_labels(cls, domains, labels: Sequence, *, source: str = "table") -> TableKnowledge:
        """Labels listed in the order of :func:`all_states` (any ints or strings).

        >>> TableKnowledge.from_labels((2, 2), ["a", "b", "b", "a"]).labels([[0, 1]]).tolist()
        [1]
        """
        dims = as_domains(domains)
        labels = list(labels)
        if len(labels) != math.prod(dims):
            raise InputError(
                f"labels must be one label per state ({math.prod(dims)}), got {len(labels)}"
            )
        names = tuple(sorted(set(labels), key=lambda v: (isinstance(v, str), v)))
        index = {name: code for code, name in enumerate(names)}
        codes = np.array([index[v] for v in labels], dtype=np.int64)
        return cls(dims, codes, names, source)

    @property
    def k(self) -> int:
        return len(self.domains)

    def labels(self, states) -> np.ndarray:
        states = _check_states(states, self.k)
        return self.codes[states_index(states, self.domains)]

    def label_name(self, code: int):
        return self.names[int(code)]

    def describe(self) -> str:
        return f"label table {self.source} ({len(self.names)} labels)"


KNOWLEDGE_TYPES = (Knowledge, SumKnowledge, TableKnowledge)


def make_knowledge(spec: str, domains: int | Iterable[int]):
    """``"xor"``, ``"sum"`` or a CNF string over x1..xk, on ``domains`` (or binary ``k``).

    ``xor`` and CNF knowledge need binary concepts; ``sum`` takes any domains.
    Raises InputError on a bad formula or domains the knowledge does not fit.
    """
    if not isinstance(spec, str):
        raise InputError(f"knowledge must be 'xor', 'sum' or a CNF string, got {spec!r}")
    dims = as_domains(domains)
    if spec.strip().lower() == SUM:
        return SumKnowledge(dims)
    if any(d != 2 for d in dims):
        name = "xor" if spec.strip().lower() == XOR else "a CNF"
        bad = next(j for j, d in enumerate(dims, start=1) if d != 2)
        raise InputError(
            f"knowledge: {name} needs binary concepts (every domain 2), got domain "
            f"{dims[bad - 1]} for concept {bad}; use 'sum' or a knowledge table"
        )
    return Knowledge(spec, len(dims))


# ---- knowledge tables from users' files ------------------------------------


def _concept_columns(df, source: str) -> list[str]:
    names = []
    j = 1
    while f"c{j}" in df.columns:
        names.append(f"c{j}")
        j += 1
    if not names:
        raise InputError(f"{source}: missing column 'c1'; expected columns c1..ck and y")
    stray = sorted(
        c for c in map(str, df.columns) if c.startswith("c") and c[1:].isdigit() and c not in names
    )
    if stray:
        raise InputError(
            f"{source}: column {stray[0]!r} without column 'c{len(names) + 1}'; concept columns "
            "must be c1, c2, ... with no gap"
        )
    return names


def knowledge_table_frame(df, *, domains=None, source: str = "knowledge table") -> TableKnowledge:
    """A :class:`TableKnowledge` from a frame with columns ``c1..ck`` (ints) and ``y`` (labels).

    Every state must be listed exactly once.  ``domains`` defaults to
    ``max(c_j) + 1`` per column; given, it must agree with the columns.
    """
    from ..tables import Column, TableSchema, check_columns, validate_table

    columns = _concept_columns(df, source)
    check_columns(df, ["y"], source=source)
    k = len(columns)
    if domains is not None:
        dims = as_domains(domains)
        if len(dims) != k:
            raise InputError(
                f"{source}: has {k} concept columns (c1..c{k}) but the domains list "
                f"{list(dims)} has {len(dims)} entries"
            )
        schema_cols = [Column(c, "int", min=0, max=d - 1) for c, d in zip(columns, dims)]
    else:
        schema_cols = [Column(c, "int", min=0) for c in columns]
    df = validate_table(df, TableSchema((*schema_cols, Column("y", "label"))), source=source)
    if domains is None:
        dims = tuple(int(df[c].max()) + 1 for c in columns)
        for j, d in enumerate(dims, start=1):
            if d < 2:
                raise InputError(
                    f"{source}: column 'c{j}' only holds the value 0; a concept needs at "
                    "least two values"
                )
    total = math.prod(dims)
    if total > MAX_TABLE_STATES:
        raise InputError(
            f"{source}: domains {list(dims)} have {total:,} states, above the "
            f"{MAX_TABLE_STATES:,} a knowledge table may list"
        )
    index = states_index(df[columns].to_numpy(), dims)
    seen = np.full(total, -1, dtype=np.int64)
    for row, i in enumerate(index.tolist()):
        if seen[i] >= 0:
            raise InputError(
                f"{source}: row {row} repeats state {state_str(all_states(dims)[i], dims)!r} "
                f"(first listed in row {int(seen[i])}); each state must appear once"
            )
        seen[i] = row
    missing = np.flatnonzero(seen < 0)
    if len(missing):
        first = _state_of_index(int(missing[0]), dims)
        raise InputError(
            f"{source}: state {state_str(first, dims)!r} is missing ({len(missing)} of "
            f"{total} states missing); the table must list every state of domains {list(dims)}"
        )
    labels = [_plain_label(v) for v in df["y"].to_numpy()[seen].tolist()]
    return TableKnowledge.from_labels(dims, labels, source=source)


def _state_of_index(index: int, dims: Domains) -> tuple[int, ...]:
    values = []
    for d in reversed(dims):
        values.append(index % d)
        index //= d
    return tuple(reversed(values))


def _plain_label(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    return value


def read_knowledge_table(path: str | os.PathLike, *, domains=None) -> TableKnowledge:
    """Read a CSV or Parquet knowledge table (columns ``c1..ck`` and ``y``) and check it."""
    from ..tables import load_frame

    return knowledge_table_frame(load_frame(path), domains=domains, source=str(path))


def state_row(text: str, domains) -> int:
    """Row of the state written ``text`` in :func:`all_states`."""
    return state_index(parse_state(text, domains), domains)
