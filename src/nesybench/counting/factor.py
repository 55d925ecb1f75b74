"""Counting a task through its structure: outputs that share no concept, copies of one pattern.

A *structure* states K without listing its states, so that tasks far past a label
table (MNMath's 10^8 states, Kandinsky's 3^18) are still counted where their
structure allows, and the parts that are small are handed to the exact engines of
:mod:`nesybench.counting` (``count_joint``, ``count_disentangled``, ``count_shared``,
``plan_supervision``).  Three kinds of node, each on consecutive concepts:

* :class:`Table` -- K listed state by state (a :class:`~nesybench.logic.TableKnowledge`
  and a support);
* :class:`Outputs` -- independent outputs ``K(g) = (K_1(g_B1), ..., K_m(g_Bm))`` on
  consecutive blocks ``B_b`` (concepts that never meet in one rule), with the product
  support ``S = S_1 x ... x S_m``;
* :class:`AllEqual` -- ``m >= 2`` copies of one part T: ``K(g) = [T(g_1) = ... = T(g_m)]``,
  with the support ``S_T^m``.

The rules, each proved below and checked against the engines on listed tables in
``tests/counting/test_factor.py``:

**joint** (any map of states): ``N_opt = prod_{g in S} |class(K(g))| * |G|^(|G| - |S|)``
(:mod:`nesybench.counting.optima`) needs only, per observed state, the size of its
label class.  An Outputs label class is the product of its parts' classes; an AllEqual
class is ``N_1 = sum_v c_v^m`` (c_v: the states of T with value v) or ``|T|^m - N_1``.
So the count is a product of powers, exact at any size.

**disentangled on Outputs** (alpha(g)_j = f_j(g_pi(j))): for a fixed pi the parts'
conditions involve disjoint f_j, so the pairs of pi are the product over parts b of
``N_b(pi|B_b)``.  If pi does not map B_b onto itself, some concept i of B_b is read by
no output of B_b; if moreover *every concept of B_b matters on S_b* (two observed states
of part b that differ only in concept i have different labels), extend them by the
same values on the other parts (S is a product): alpha sends them to the same B_b
values, but their labels differ, so ``N_b(pi|B_b) = 0``.  Hence only block-preserving
pi count and ``N_opt = prod_b N_b``, each ``N_b`` an engine count of part b alone (its
own permutations); distinct maps multiply likewise.  The check is made on the data;
where a concept does not matter the rule is not applied.

**shared on AllEqual** (one f for every concept): f keeps ``[T f(y_1) = ... = T f(y_m)]``
on S_T^m exactly when it keeps ``[T f(a) = T f(b)] = [T a = T b]`` on S_T^2 (take
``y_3 = ... = y_m = y_2``; conversely all-equal is pairwise equality), so the count is
that of two copies.  **shared on Outputs**: f must be right on every part; parts with
the same concepts and support are merged into one table whose label is the tuple of
theirs; otherwise, for small domains, each of the d^d maps is checked on each part.

A pinned (supervised) state g pins alpha(g) = g: its factor leaves the joint product;
for Outputs it pins its restriction in every part; for the shared family it fixes the
values of g, which pinned states of the reduced task fix as well.

Anything else is listed as one table when it has at most 2^22 states and its support
is full or at most 2^16 listed states, and handed to the engines whole.  Where even
that is out of reach, :class:`CountRefused` says so in one line with what the count
would involve (states, permutations, maps): never a silent number.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..logic.knowledge import TableKnowledge
from ..logic.states import all_states, parse_states, plain_count, state_str, states_index
from .bypermutation import n_domain_permutations
from .optima import (
    MAX_MATERIALIZED_BITS,
    CountResult,
    count_disentangled,
    count_joint,
    count_shared,
)
from .planning import SupervisionPlan, plan_supervision
from .search import SearchTooLarge
from .task import CountingTask

__all__ = [
    "Table",
    "Outputs",
    "AllEqual",
    "CountRefused",
    "count_structure",
    "plan_structure",
    "split_support",
    "product_support",
    "MAX_TABLE_STATES",
    "MAX_LISTED_SUPPORT",
]

MAX_TABLE_STATES = 2**22  # a label table the engines are given (as read_knowledge_table)
MAX_LISTED_SUPPORT = 2**16  # support states listed one by one for an engine's CountingTask
SHARED_MAPS_MAX = 100_000  # d^d maps checked one by one on each part (shared on Outputs)
SHARED_CHECK_CELLS = 20_000_000  # maps x states x concepts held at once while checking


class CountRefused(InputError):
    """The count cannot be made exactly here; the message says why and what it would involve."""


# ---- the nodes ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Table:
    """K listed state by state: ``codes[i]`` labels row i of ``all_states(domains)``, ``names``
    the label of each code; ``support`` the observed state indices (sorted), None = every
    state."""

    domains: tuple[int, ...]
    codes: np.ndarray = field(repr=False)
    names: tuple = field(repr=False)
    support: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_labels(cls, domains, labels, support=None) -> Table:
        """Labels in ``all_states`` order; ``support`` a boolean mask or indices (None: all).

        >>> t = Table.from_labels((2, 2), [0, 1, 1, 0], support=[True, True, True, False])
        >>> t.n_observed, t.label_names([[0, 1]])
        (3, [1])
        """
        known = TableKnowledge.from_labels(tuple(domains), list(labels))
        if support is not None:
            support = np.asarray(support)
            if support.dtype == bool:
                support = np.flatnonzero(support)
            support = np.unique(support.astype(np.int64))
            if len(support) == known.codes.size:
                support = None
        return cls(known.domains, known.codes, known.names, support)

    @property
    def k(self) -> int:
        return len(self.domains)

    @property
    def n_states(self) -> int:
        return math.prod(self.domains)

    @property
    def n_codes(self) -> int:
        return len(self.names)

    @property
    def n_observed(self) -> int:
        return self.n_states if self.support is None else len(self.support)

    def label_codes(self, rows) -> np.ndarray:
        return self.codes[states_index(rows, self.domains)]

    def name(self, code: int):
        return self.names[int(code)]

    def label_names(self, rows) -> list:
        return [self.name(c) for c in self.label_codes(rows).tolist()]

    def class_sizes(self) -> list[int]:
        return np.bincount(self.codes, minlength=self.n_codes).tolist()

    def observed_code_counts(self) -> list[int]:
        observed = self.codes if self.support is None else self.codes[self.support]
        return np.bincount(observed, minlength=self.n_codes).tolist()

    def in_support(self, rows) -> np.ndarray:
        if self.support is None:
            return np.ones(len(rows), dtype=bool)
        return np.isin(states_index(rows, self.domains), self.support)

    def support_rows(self) -> np.ndarray:
        grid = all_states(self.domains)
        return grid if self.support is None else grid[self.support]

    def table(self) -> Table:
        return self

    def describe(self) -> str:
        return f"table of {plain_count(self.n_states)} states"


@dataclass(frozen=True, eq=False)
class Outputs:
    """Independent outputs: ``parts`` on consecutive concept blocks, the label the tuple of
    theirs (names joined by a space), the support the product of theirs."""

    parts: tuple

    def __post_init__(self) -> None:
        if len(self.parts) < 2:
            raise InputError("Outputs: needs at least two parts")

    @property
    def domains(self) -> tuple[int, ...]:
        return tuple(d for p in self.parts for d in p.domains)

    @property
    def k(self) -> int:
        return len(self.domains)

    @property
    def n_states(self) -> int:
        return math.prod(p.n_states for p in self.parts)

    @property
    def n_codes(self) -> int:
        return math.prod(p.n_codes for p in self.parts)

    @property
    def n_observed(self) -> int:
        return math.prod(p.n_observed for p in self.parts)

    def split(self, rows) -> list[np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1, self.k)
        out, at = [], 0
        for p in self.parts:
            out.append(rows[:, at : at + p.k])
            at += p.k
        return out

    def label_codes(self, rows) -> np.ndarray:
        code = np.zeros(len(np.asarray(rows).reshape(-1, self.k)), dtype=np.int64)
        for p, sub in zip(self.parts, self.split(rows)):
            code = code * p.n_codes + p.label_codes(sub)
        return code

    def name(self, code: int) -> str:
        names = []
        for p in reversed(self.parts):
            code, c = divmod(int(code), p.n_codes)
            names.append(str(p.name(c)))
        return " ".join(reversed(names))

    def label_names(self, rows) -> list[str]:
        return [self.name(c) for c in self.label_codes(rows).tolist()]

    def class_sizes(self) -> list[int]:
        return _outer([p.class_sizes() for p in self.parts])

    def observed_code_counts(self) -> list[int]:
        return _outer([p.observed_code_counts() for p in self.parts])

    def in_support(self, rows) -> np.ndarray:
        ok = np.ones(len(np.asarray(rows).reshape(-1, self.k)), dtype=bool)
        for p, sub in zip(self.parts, self.split(rows)):
            ok &= p.in_support(sub)
        return ok

    def table(self) -> Table:
        return _listed(self)

    def describe(self) -> str:
        return f"{len(self.parts)} independent outputs"


@dataclass(frozen=True, eq=False)
class AllEqual:
    """``copies`` copies of ``part`` on consecutive blocks; label 1 when every copy has the
    same part label, else 0 (``output=0`` / ``output=1`` when ``output`` is given); support
    the part's support in every copy."""

    part: object
    copies: int
    output: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.copies, int) or self.copies < 2:
            raise InputError(f"AllEqual: copies must be an integer >= 2, got {self.copies!r}")

    @property
    def domains(self) -> tuple[int, ...]:
        return tuple(self.part.domains) * self.copies

    @property
    def k(self) -> int:
        return len(self.domains)

    @property
    def n_states(self) -> int:
        return self.part.n_states**self.copies

    n_codes = 2

    @property
    def n_observed(self) -> int:
        return self.part.n_observed**self.copies

    def split(self, rows) -> list[np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1, self.k)
        k = self.part.k
        return [rows[:, i * k : (i + 1) * k] for i in range(self.copies)]

    def label_codes(self, rows) -> np.ndarray:
        codes = [self.part.label_codes(sub) for sub in self.split(rows)]
        return np.all([c == codes[0] for c in codes[1:]], axis=0).astype(np.int64)

    def name(self, code: int):
        return int(code) if self.output is None else f"{self.output}={int(code)}"

    def label_names(self, rows) -> list:
        return [self.name(c) for c in self.label_codes(rows).tolist()]

    def class_sizes(self) -> list[int]:
        equal = sum(c**self.copies for c in self.part.class_sizes())
        return [self.n_states - equal, equal]

    def observed_code_counts(self) -> list[int]:
        equal = sum(c**self.copies for c in self.part.observed_code_counts())
        return [self.n_observed - equal, equal]

    def in_support(self, rows) -> np.ndarray:
        ok = np.ones(len(np.asarray(rows).reshape(-1, self.k)), dtype=bool)
        for sub in self.split(rows):
            ok &= self.part.in_support(sub)
        return ok

    def table(self) -> Table:
        return _listed(self)

    def describe(self) -> str:
        return f"{self.copies} copies of one pattern, all equal"


def _outer(lists: Sequence[Sequence[int]]) -> list[int]:
    """Products over every combination, the last list fastest (the mixed-radix code order)."""
    return [math.prod(combo) for combo in itertools.product(*lists)]


def _listed(node) -> Table:
    """The node as one label table (every state; the support as indices)."""
    if node.n_states > MAX_TABLE_STATES:
        raise CountRefused(
            f"listing K: {plain_count(node.n_states)} states, above the {MAX_TABLE_STATES:,} a "
            "label table may hold"
        )
    grid = all_states(node.domains)
    support = np.flatnonzero(node.in_support(grid))
    names = tuple(node.name(c) for c in range(node.n_codes))
    codes = node.label_codes(grid)
    used = np.unique(codes)  # a table keeps only the codes that occur
    remap = np.full(node.n_codes, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return Table(
        tuple(node.domains),
        remap[codes],
        tuple(names[c] for c in used.tolist()),
        None if len(support) == node.n_states else support,
    )


# ---- supports ---------------------------------------------------------------------------


def product_support(node) -> np.ndarray | None:
    """The node's support as state indices (None when every state is observed)."""
    if isinstance(node, Table):
        return node.support
    if node.n_observed == node.n_states:
        return None
    return node.table().support


def split_support(node, rows: np.ndarray):
    """``node`` with its support replaced by ``rows``, kept structured when ``rows`` is a
    product of per-part (per-copy) supports, else listed as one table; InputError when
    neither fits."""
    rows = np.unique(np.asarray(rows, dtype=np.int64).reshape(-1, node.k), axis=0)
    if isinstance(node, Table):
        return Table(node.domains, node.codes, node.names, _indices_or_none(node, rows))
    subs = node.split(rows)
    per_part = [np.unique(s, axis=0) for s in subs]
    product = math.prod(len(p) for p in per_part)
    if product == len(rows):  # rows lie in the product of their projections: equal sizes
        if isinstance(node, Outputs):
            return Outputs(tuple(split_support(p, s) for p, s in zip(node.parts, per_part)))
        if all(np.array_equal(per_part[0], s) for s in per_part[1:]):
            return AllEqual(split_support(node.part, per_part[0]), node.copies, node.output)
    listed = node.table()
    return Table(listed.domains, listed.codes, listed.names, _indices_or_none(listed, rows))


def _indices_or_none(table: Table, rows: np.ndarray):
    index = np.unique(states_index(rows, table.domains))
    return None if len(index) == table.n_states else index


# ---- counting ---------------------------------------------------------------------------


def _common(node, extractor: str, pinned: tuple[str, ...]) -> dict:
    return dict(
        k=node.k,
        support=None,
        n_observed=node.n_observed,
        extractor=extractor,
        method="structure",
        supervised=pinned,
        fixed_permutation=False,
        domains=tuple(node.domains),
    )


def _pinned_rows(node, supervised: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    states = parse_states(list(supervised), node.domains, field_name="supervised")
    if not states:
        return (), np.zeros((0, node.k), dtype=np.int64)
    from ..logic.states import parse_state

    rows = np.array([parse_state(s, node.domains) for s in states], dtype=np.int64)
    outside = np.flatnonzero(~node.in_support(rows))
    if len(outside):
        raise InputError(
            f"supervised: state {states[int(outside[0])]!r} is not in the support (supervision "
            "applies to observed states)"
        )
    order = np.argsort(states_index(rows, node.domains), kind="stable")
    return tuple(states[i] for i in order.tolist()), rows[order]


def count_structure(
    node,
    extractor: str,
    *,
    supervised: Sequence[str] = (),
    max_subproblems: int | None = None,
    max_memory: int | None = None,
) -> CountResult:
    """N_opt of ``extractor`` on the structured task ``node`` (see the module docstring).

    ``max_subproblems`` and ``max_memory`` (bytes) bound each engine count it makes, as
    ``count_disentangled`` / ``count_shared`` take them (None: their defaults, 0: none).
    Returns a :class:`~nesybench.counting.CountResult` (``method="structure"``, ``engine``
    saying which rule and engines counted it); raises :class:`CountRefused` when no exact
    route exists, with what the count would involve.

    >>> sum2 = Table.from_labels((3, 3), [a + b for a in range(3) for b in range(3)])
    >>> both = Outputs((sum2, sum2))              # two sums that share no digit
    >>> count_structure(both, "disentangled").n_opt   # (identity, swap) in each part
    4
    """
    pinned, rows = _pinned_rows(node, supervised)
    common = _common(node, extractor, pinned)
    limits = _limits(max_subproblems, max_memory)
    if extractor == "joint":
        return _joint(node, rows, common)
    if extractor == "disentangled":
        pairs, distinct, engine = _disentangled(node, rows, limits)
        return CountResult(
            exact=True,
            n_opt=pairs,
            log2_n_opt=_log2(pairs),
            n_distinct=distinct,
            n_distinct_reason=None if distinct is not None else "not computed by this route",
            engine=engine,
            **common,
        )
    if extractor == "shared":
        if len(set(node.domains)) != 1:
            raise InputError(
                "extractor shared: one map for every concept needs equal domains, got "
                f"{list(node.domains)}"
            )
        value, engine = _shared(node, rows, limits)
        return CountResult(
            exact=True,
            n_opt=value,
            log2_n_opt=_log2(value),
            n_distinct=value,
            engine=engine,
            **common,
        )
    raise InputError(f"extractor must be one of joint, disentangled, shared, got {extractor!r}")


def _limits(max_subproblems: int | None, max_memory: int | None) -> dict:
    """The engines' budget options that were given (the engines' defaults otherwise)."""
    given = {"max_subproblems": max_subproblems, "max_memory": max_memory}
    return {key: value for key, value in given.items() if value is not None}


def _log2(value: int) -> float:
    return math.log2(value) if value > 0 else float("-inf")


# joint ------------------------------------------------------------------------------------


def _joint(node, pinned_rows: np.ndarray, common: dict) -> CountResult:
    if isinstance(node, Table) and (
        node.support is None or node.n_observed <= MAX_LISTED_SUPPORT
    ):  # a listed task: the engine's own product over states
        result = count_joint(_engine_task(node, pinned_rows))
        factors, value, log2_value = result.factors, result.n_opt, result.log2_n_opt
        engine = f"the engine on the listed table ({result.engine})"
    else:
        factors = _joint_factors(node, pinned_rows)
        log2_value = sum(e * math.log2(b) for b, e in factors)
        value = math.prod(b**e for b, e in factors) if log2_value <= MAX_MATERIALIZED_BITS else None
        engine = f"product over states, label classes from the structure ({node.describe()})"
    return CountResult(
        exact=True,
        n_opt=value,
        log2_n_opt=log2_value,
        factors=factors,
        n_distinct=value,
        n_distinct_reason=None if value is not None else "over 2^22 bits (kept as factors)",
        engine=engine,
        **common,
    )


def _joint_factors(node, pinned_rows: np.ndarray) -> tuple[tuple[int, int], ...]:
    """``((base, exponent), ...)``: one factor |class(K(g))| per observed state (1 if pinned),
    |G| per unobserved state, equal bases merged, largest first."""
    sizes = node.class_sizes()
    observed = list(node.observed_code_counts())
    for code in node.label_codes(pinned_rows).tolist():
        observed[code] -= 1
    grouped: dict[int, int] = {}
    for code, n in enumerate(observed):
        if n:
            grouped[sizes[code]] = grouped.get(sizes[code], 0) + n
    unobserved = node.n_states - node.n_observed
    if unobserved:
        grouped[node.n_states] = grouped.get(node.n_states, 0) + unobserved
    return tuple(sorted(((b, e) for b, e in grouped.items() if b != 1), key=lambda f: -f[0]))


# disentangled -------------------------------------------------------------------------------


def _disentangled(node, pinned_rows, limits: dict) -> tuple[int, int | None, str]:
    if isinstance(node, Outputs) and _factors(node):
        pairs, distinct, engines = 1, 1, []
        for b, (part, sub) in enumerate(zip(node.parts, node.split(pinned_rows)), start=1):
            try:
                p, d, e = _disentangled(part, sub, limits)
            except CountRefused as exc:
                raise CountRefused(
                    f"the {len(node.parts)} outputs share no concept, so N_opt is the product "
                    f"of their parts' counts; part {b} ({part.k} concepts): {exc}"
                ) from None
            pairs *= p
            distinct = None if distinct is None or d is None else distinct * d
            engines.append(e)
        return pairs, distinct, "product over independent outputs: " + "; ".join(engines)
    table = _engine_table(node, "disentangled")
    try:
        result = count_disentangled(_engine_task(table, pinned_rows), **limits)
    except SearchTooLarge as exc:
        raise CountRefused(f"{_estimate(node, 'disentangled')}; {exc}") from None
    return result.n_opt, result.n_distinct, result.engine


def _factors(node: Outputs) -> bool:
    """Whether the disentangled count of ``node`` is the product of its parts' counts: every
    part's concepts all matter on its support, except at most one part whose label never
    changes (its concepts meet no rule, so pi can only send them among themselves)."""
    tables = [_table_or_none(p) for p in node.parts]
    if any(t is None for t in tables):
        return False
    constant = [t.n_codes == 1 for t in tables]
    return sum(constant) <= 1 and all(
        c or _every_concept_matters(t) for c, t in zip(constant, tables)
    )


def _table_or_none(node) -> Table | None:
    if node.n_states > MAX_TABLE_STATES:
        return None
    return node.table()


def _every_concept_matters(table: Table) -> bool:
    """Whether, for every concept, two observed states differing only there differ in label."""
    rows = table.support_rows()
    codes = table.label_codes(rows)
    dims = table.domains
    for j in range(table.k):
        others = [i for i in range(table.k) if i != j]
        rest = states_index(rows[:, others], [dims[i] for i in others]) if others else 0 * codes
        # concept j matters iff some group of states equal off j shows two labels
        if len(np.unique(rest * table.n_codes + codes)) == len(np.unique(rest)):
            return False
    return True


def _estimate(node, extractor: str) -> str:
    dims = tuple(node.domains)
    perms = n_domain_permutations(dims) if extractor == "disentangled" else 1
    log2_maps = sum(d * math.log2(d) for d in dims) if extractor == "disentangled" else 0.0
    return (
        f"extractor {extractor}: {len(dims)} concepts, {plain_count(node.n_states)} states, "
        f"{plain_count(perms)} permutations x 2^{log2_maps:.1f} maps ({node.describe()})"
    )


def _engine_table(node, extractor: str) -> Table:
    """The node listed for an engine, or CountRefused with what the count would involve."""
    if node.n_states > MAX_TABLE_STATES:
        raise CountRefused(
            f"{_estimate(node, extractor)}: no rule of the structure applies and the state "
            f"table is above the {MAX_TABLE_STATES:,} states the engines hold"
        )
    table = node.table()
    if table.support is not None and len(table.support) > MAX_LISTED_SUPPORT:
        raise CountRefused(
            f"{_estimate(node, extractor)}: no rule of the structure applies and the support "
            f"lists {len(table.support):,} states, above the {MAX_LISTED_SUPPORT:,} an engine "
            "task takes one by one"
        )
    return table


def _engine_task(table: Table, pinned_rows: np.ndarray) -> CountingTask:
    knowledge = TableKnowledge(table.domains, table.codes, table.names, source="structure")
    dims = table.domains
    support = None
    if table.support is not None:
        grid = all_states(dims)
        support = tuple(state_str(grid[i], dims) for i in table.support.tolist())
    # pinned states of a whole task can share their part of it: each pins once
    unique = np.unique(np.asarray(pinned_rows, dtype=np.int64).reshape(-1, len(dims)), axis=0)
    pins = tuple(state_str(r, dims) for r in unique.tolist())
    return CountingTask(knowledge, support, pins)


# shared ---------------------------------------------------------------------------------------


def _shared(node, pinned_rows, limits: dict) -> tuple[int, str]:
    d = node.domains[0]
    few_maps = d**d <= SHARED_MAPS_MAX
    if isinstance(node, Table) and (
        node.support is None or node.n_observed <= MAX_LISTED_SUPPORT or not few_maps
    ):
        return _engine_shared(_engine_table(node, "shared"), pinned_rows, limits), (
            "the engine on the listed table"
        )
    if isinstance(node, Outputs):
        merged = _merged(node)
        if merged is not None:
            pins = np.concatenate(node.split(pinned_rows)).reshape(-1, merged.k)
            value = _engine_shared(merged, pins, limits)
            return value, "parts with the same concepts merged into one table (label = tuple)"
    if few_maps:
        ok = _fixing(d, pinned_rows) & _valid_maps(node, d)
        return int(ok.sum()), f"each of the {d}^{d} maps checked part by part ({node.describe()})"
    if isinstance(node, AllEqual) and node.copies > 2:
        two = AllEqual(node.part, 2, node.output)
        value, engine = _shared(two, _pairs_of_copies(node, pinned_rows), limits)
        return value, f"two copies instead of {node.copies} (the same maps): {engine}"
    table = _engine_table(node, "shared")
    return _engine_shared(table, pinned_rows, limits), "the engine on the listed table"


def _valid_maps(node, d: int) -> np.ndarray:
    """Which of the d^d maps f keep every observed label of ``node``, by its structure."""
    if isinstance(node, Outputs):
        ok = np.ones(d**d, dtype=bool)
        for part in node.parts:
            ok &= _valid_maps(part, d)
        return ok
    if isinstance(node, AllEqual):
        return _pattern_kept(_listed_part(node.part), d)
    return _shared_maps(node, d)


def _listed_part(part) -> Table:
    if part.n_states > MAX_TABLE_STATES:
        raise CountRefused(f"{_estimate(part, 'shared')}: the repeated part is too large to list")
    return part.table()


def _engine_shared(table: Table, pinned_rows, limits: dict) -> int:
    try:
        return count_shared(_engine_task(table, pinned_rows), **limits).n_opt
    except SearchTooLarge as exc:
        raise CountRefused(f"{_estimate(table, 'shared')}; {exc}") from None


def _pairs_of_copies(node: AllEqual, rows: np.ndarray) -> np.ndarray:
    """Pinned states of two copies that fix the same values as ``rows`` of m copies."""
    copies = node.split(rows)
    if len(copies) % 2:
        copies.append(copies[-1])
    pairs = [np.hstack([copies[i], copies[i + 1]]) for i in range(0, len(copies), 2)]
    return np.unique(np.concatenate(pairs).reshape(-1, 2 * node.part.k), axis=0)


def _merged(node: Outputs) -> Table | None:
    """Parts with the same domains and support as one table labelled by their tuple."""
    first = node.parts[0]
    if first.n_states > MAX_TABLE_STATES or any(
        tuple(p.domains) != tuple(first.domains) for p in node.parts
    ):
        return None
    tables = [p.table() for p in node.parts]
    if any(not _same_support(t.support, tables[0].support) for t in tables[1:]):
        return None
    merged = Outputs(tuple(tables))  # the tuple label of the parts, read on one shared state
    code = np.zeros(first.n_states, dtype=np.int64)
    for t in tables:
        code = code * t.n_codes + t.codes
    used = np.unique(code)
    remap = np.full(merged.n_codes, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    names = tuple(merged.name(c) for c in used.tolist())
    return Table(tuple(first.domains), remap[code], names, tables[0].support)


def _same_support(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _fixing(d: int, pinned_rows: np.ndarray) -> np.ndarray:
    """Which of the d^d maps fix every value a pinned state shows."""
    maps = np.array(list(itertools.product(range(d), repeat=d)), dtype=np.int64).reshape(-1, d)
    shown = np.unique(pinned_rows) if len(pinned_rows) else np.zeros(0, dtype=np.int64)
    return (maps[:, shown] == shown[None, :]).all(axis=1)


def _shared_maps(table: Table, d: int) -> np.ndarray:
    """Which of the d^d maps keep every observed label of ``table`` (one check per map)."""
    maps = np.array(list(itertools.product(range(d), repeat=d)), dtype=np.int64).reshape(-1, d)
    rows = table.support_rows()
    labels = table.label_codes(rows)
    ok = np.ones(len(maps), dtype=bool)
    step = max(1, SHARED_CHECK_CELLS // max(1, len(maps) * table.k))
    for lo in range(0, len(rows), step):
        chunk = rows[lo : lo + step]
        images = maps[:, chunk]  # (maps, n, k): f applied to every concept
        got = table.label_codes(images.reshape(-1, table.k)).reshape(len(maps), len(chunk))
        ok &= (got == labels[lo : lo + step][None, :]).all(axis=1)
    return ok


def _pattern_kept(part: Table, d: int) -> np.ndarray:
    """Which maps f keep ``[T f(y_1) = ... = T f(y_m)] = [T y_1 = ... = T y_m]`` on S_T^m.

    With m >= 2 copies and the product support this holds exactly when T f is constant on
    each observed class of T and takes different values on different classes: equal
    classes give all-equal tuples, and two copies from different classes must stay
    apart.  So each map is checked on S_T alone.
    """
    maps = np.array(list(itertools.product(range(d), repeat=d)), dtype=np.int64).reshape(-1, d)
    rows = part.support_rows()
    labels = part.label_codes(rows)
    n_classes = len(np.unique(labels))
    ok = np.empty(len(maps), dtype=bool)
    step = max(1, SHARED_CHECK_CELLS // max(1, len(rows) * part.k))
    for lo in range(0, len(maps), step):
        chunk = maps[lo : lo + step]
        images = part.label_codes(chunk[:, rows].reshape(-1, part.k)).reshape(len(chunk), -1)
        pairs = np.sort(labels[None, :] * part.n_codes + images, axis=1)
        seen = np.sort(images, axis=1)
        n_pairs = 1 + (np.diff(pairs, axis=1) != 0).sum(axis=1)
        n_images = 1 + (np.diff(seen, axis=1) != 0).sum(axis=1)
        ok[lo : lo + step] = (n_pairs == n_classes) & (n_images == n_classes)
    return ok


# ---- planning -------------------------------------------------------------------------------


def plan_structure(
    node,
    budget: int,
    *,
    extractor: str = "disentangled",
    exact_max_subsets: int = 0,
    max_subproblems: int | None = None,
    max_memory: int | None = None,
) -> SupervisionPlan:
    """The greedy supervision plan of ``plan_supervision`` on a structured task.

    A listed task is planned by ``plan_supervision`` itself.  On Outputs whose concepts all
    matter (the disentangled rule above), N_opt is the product of the parts' counts and the
    support a product, so the state whose label leaves the fewest optima is made of each
    part's best choice: the plan is each part's greedy plan run side by side (a part that
    has reached N_opt = 1 repeats its first observed state).  Counts after each pick are
    exact; the exact optimum over subsets is not searched there (``optimum`` is None).
    """
    if isinstance(node, Outputs) and extractor == "disentangled" and _factors(node):
        tables = [p.table() for p in node.parts]
        return _plan_outputs(node, tables, budget, max_subproblems, max_memory)
    table = _engine_table(node, extractor)
    task = _engine_task(table, np.zeros((0, node.k), dtype=np.int64))
    options = _limits(max_subproblems, max_memory)
    try:
        return plan_supervision(
            task, budget, extractor=extractor, exact_max_subsets=exact_max_subsets, **options
        )
    except SearchTooLarge as exc:
        raise CountRefused(f"{_estimate(node, extractor)}; {exc}") from None


def _plan_outputs(node: Outputs, tables, budget, max_subproblems, max_memory) -> SupervisionPlan:
    plans = []
    for table in tables:
        n_candidates = table.n_observed
        plans.append(
            plan_structure(
                table,
                min(budget, n_candidates),
                extractor="disentangled",
                max_subproblems=max_subproblems,
                max_memory=max_memory,
            )
            if n_candidates
            else None
        )
    steps = max(len(p.picks) for p in plans)
    steps = min(steps, budget)
    picks, n_opt, log2s = [], [math.prod(p.n_opt[0] for p in plans)], []
    log2s.append(_log2(n_opt[0]))
    for t in range(steps):
        states, value = [], 1
        for p, table in zip(plans, tables):
            if t < len(p.picks):
                states.append(p.picks[t])
                value *= p.n_opt[t + 1]
            else:  # this part is done (N_opt = 1): any observed state keeps it there
                first = table.support_rows()[0]
                states.append(state_str(first, table.domains))
                value *= p.n_opt[-1]
        picks.append(_joined(states, node, tables))
        n_opt.append(value)
        log2s.append(_log2(value))
    return SupervisionPlan(
        extractor="disentangled",
        budget=budget,
        n_candidates=node.n_observed,
        picks=tuple(picks),
        n_opt=tuple(n_opt),
        log2_n_opt=tuple(log2s),
        optimum=tuple(None for _ in range(budget)),
        optimum_reason="the exact optimum over subsets is not searched on a product of parts",
    )


def _joined(states: Sequence[str], node, tables) -> str:
    from ..logic.states import parse_state

    values = [v for s, t in zip(states, tables) for v in parse_state(s, t.domains)]
    return state_str(values, node.domains)
