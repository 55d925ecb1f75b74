"""Exact disentangled counts one permutation at a time, for categorical tasks.

With the permutation pi fixed, the disentangled family is a constraint
problem over the values ``X[j, v] = f_j(v)`` of every value v the support shows
at the source of output j.  Each observed state g is one table constraint on
the k variables ``X[1, g_pi(1)], ..., X[k, g_pi(k)]``: their tuple must carry
g's label (be g itself when g is supervised).  Values no state shows are free
(a factor d each, in closed form).

:func:`count_solutions` counts the solutions of such a problem by search with
component caching, the scheme of exact model counters:

* propagate: every constraint removes the values of its variables that no
  allowed tuple supports (generalised arc consistency); an empty domain is a
  dead branch, and a constraint all of whose remaining tuples are allowed is
  dropped;
* decompose: variables no live constraint touches count their domain size;
  the rest split into connected components, counted apart and multiplied,
  each cached under its variables and their domains;
* small components are summed out by variable elimination (multiply the
  tables that mention a variable, sum it out; the cost is the size of the
  largest table, estimated before anything is computed); larger ones branch
  on the variable in most constraints.

A sum constraint fixes its last digit once the others are set, so dense
supports die in propagation, and sparse ones fall into small components:
three MNIST-Addition digits seen on three states (10^27 maps) take
milliseconds.  Permutations that send the labelled support to the same rows
share one count.

Constant maps (for ``n_distinct``) come by inclusion-exclusion: forcing the
outputs of a set C to be constant merges each one's variables into one,
giving A(C) = #{f : f_j constant for j in C}; the number with *exactly* the
outputs C constant is sum_{C' >= C} (-1)^{|C' - C|} A(C').
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..progress import log
from .search import _Budget

__all__ = [
    "count_solutions",
    "count_by_elimination",
    "elimination_cost",
    "disentangled_by_permutation",
    "domain_permutations",
    "n_domain_permutations",
    "shared_by_constraints",
    "shared_cells",
    "ELIMINATION_MAX_CELLS",
]

ELIMINATION_MAX_CELLS = 4_000_000  # a component whose elimination touches fewer cells is summed out


def domain_permutations(dims: Sequence[int], *, fixed: bool = False) -> list[tuple[int, ...]]:
    """The permutations pi (``pi[j]`` = source of output j) that only swap equal domains.

    >>> domain_permutations((10, 10, 3))
    [(0, 1, 2), (1, 0, 2)]
    """
    k = len(dims)
    if fixed:
        return [tuple(range(k))]
    return [
        p for p in itertools.permutations(range(k)) if all(dims[p[j]] == dims[j] for j in range(k))
    ]


def n_domain_permutations(dims: Sequence[int]) -> int:
    """How many permutations only swap equal domains: prod over sizes of (count)!."""
    return math.prod(math.factorial(list(dims).count(d)) for d in set(dims))


# ---- variable elimination ---------------------------------------------------


def _elimination_order(scopes, sizes: dict[int, int]) -> tuple[list[int], int]:
    """A greedy order (smallest resulting table first) and the table cells it touches."""
    neighbours: dict[int, set[int]] = {v: set() for v in sizes}
    for scope in scopes:
        for v in scope:
            neighbours[v].update(scope)
    for v, ns in neighbours.items():
        ns.discard(v)
    order, cost = [], 0
    alive = set(sizes)
    while alive:
        best = min(alive, key=lambda v: (math.prod(sizes[u] for u in neighbours[v]) * sizes[v], v))
        cost += math.prod(sizes[u] for u in neighbours[best]) * sizes[best]
        order.append(best)
        alive.remove(best)
        for u in neighbours[best]:
            neighbours[u].update(neighbours[best])
            neighbours[u].discard(u)
            neighbours[u].discard(best)
    return order, cost


def elimination_cost(scopes, sizes: dict[int, int]) -> int:
    """Table cells :func:`count_by_elimination` touches on these scopes."""
    return _elimination_order(scopes, sizes)[1]


def _align(table: np.ndarray, scope: Sequence[int], target: Sequence[int]) -> np.ndarray:
    perm = sorted(range(len(scope)), key=lambda i: target.index(scope[i]))
    moved = np.transpose(table, perm)
    shape = [1] * len(target)
    for i in perm:
        shape[target.index(scope[i])] = table.shape[i]
    return moved.reshape(shape)


@functools.cache
def _primes(n: int) -> tuple[int, ...]:
    """The ``n`` largest primes below 2^31 (by trial division; products of two fit in int64)."""
    small = [p for p in range(2, 46342) if all(p % q for q in range(2, math.isqrt(p) + 1))]
    out, candidate = [], 2**31 - 1
    while len(out) < n:
        if all(candidate % q for q in small if q * q <= candidate):
            out.append(candidate)
        candidate -= 2
    return tuple(out)


def _eliminate(factors, sizes: dict[int, int], order: list[int], modulus: int | None) -> int:
    pool = [(tuple(s), np.asarray(t, dtype=np.int64)) for s, t in factors]
    total = 1
    for v in order:
        touching = [f for f in pool if v in f[0]]
        if not touching:
            total *= sizes[v]
            continue
        pool = [f for f in pool if v not in f[0]]
        scope = sorted({u for s, _ in touching for u in s})
        product = None
        for s, table in touching:
            aligned = _align(table, s, scope)
            product = aligned if product is None else product * aligned
            if modulus is not None:
                product %= modulus
        product = np.broadcast_to(product, [sizes[u] for u in scope])
        summed = product.sum(axis=scope.index(v))
        if modulus is not None:
            summed %= modulus
        rest = tuple(u for u in scope if u != v)
        if rest:
            pool.append((rest, np.asarray(summed)))
        else:
            total *= int(summed)
            if modulus is not None:
                total %= modulus
    return total if modulus is None else total % modulus


def count_by_elimination(factors, sizes: dict[int, int]) -> int:
    """``sum_X prod_f f(X)`` by variable elimination; variables in no factor count their size.

    Counts that may pass 2^62 (the product of the domain sizes bounds them) are
    computed modulo several primes below 2^31, in int64, and put back together
    by the Chinese remainder theorem: exact, without Python-object arrays.

    >>> eq = np.eye(3, dtype=np.int64)            # X0 = X1 and X1 = X2, three values each
    >>> count_by_elimination([((0, 1), eq), ((1, 2), eq)], {0: 3, 1: 3, 2: 3, 3: 3})
    9
    """
    order, _ = _elimination_order([s for s, _ in factors], sizes)
    bound = math.prod(sizes.values()) if sizes else 1
    if bound < 2**62:
        return _eliminate(factors, sizes, order, None)
    primes = _primes(bound.bit_length() // 30 + 1)
    value, modulus = 0, 1
    for p in primes:  # Garner: value = residue mod modulus, extended one prime at a time
        r = _eliminate(factors, sizes, order, p)
        step = ((r - value) * pow(modulus, -1, p)) % p
        value += modulus * step
        modulus *= p
    return value


# ---- search with component caching ------------------------------------------


def _values(mask: int) -> list[int]:
    out, i = [], 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


class _Solver:
    """Counts the solutions of table constraints over finite domains (see the module docstring)."""

    def __init__(self, sizes: dict[int, int], constraints, budget: _Budget) -> None:
        self.sizes = sizes
        self.scopes = [tuple(s) for s, _ in constraints]
        self.tables = [np.asarray(t, dtype=bool) for _, t in constraints]
        self.by_var: dict[int, list[int]] = {v: [] for v in sizes}
        for i, scope in enumerate(self.scopes):
            for v in scope:
                self.by_var[v].append(i)
        self.cache: dict[tuple, int] = {}
        self.budget = budget

    def count(self) -> int:
        domains = {v: (1 << s) - 1 for v, s in self.sizes.items()}
        return self._count(domains, set(range(len(self.scopes))), None)

    def _propagate(self, domains: dict, live: set, queue) -> bool:
        queue = set(live) if queue is None else {c for c in queue if c in live}
        while queue:
            c = queue.pop()
            if c not in live:
                continue
            scope, table = self.scopes[c], self.tables[c]
            index = [_values(domains[v]) for v in scope]
            self.budget.spend(1 + math.prod(map(len, index)) // 4096, "propagation")
            sub = table[np.ix_(*index)]
            if not sub.any():
                return False
            for axis, v in enumerate(scope):
                others = tuple(i for i in range(len(scope)) if i != axis)
                support = sub.any(axis=others) if others else sub
                if support.all():
                    continue
                kept = [val for val, ok in zip(index[axis], support.tolist()) if ok]
                domains[v] = sum(1 << val for val in kept)
                index[axis] = kept
                sub = table[np.ix_(*index)]
                queue.update(c2 for c2 in self.by_var[v] if c2 != c and c2 in live)
            if sub.all():
                live.discard(c)
        return True

    def _count(self, domains: dict, live: set, queue) -> int:
        self.budget.spend(1 + len(live) // 4, "a branch")
        domains, live = dict(domains), set(live)
        if not self._propagate(domains, live, queue):
            return 0
        touched = {v for c in live for v in self.scopes[c]}
        total = 1
        for v, mask in domains.items():
            if v not in touched:
                total *= bin(mask).count("1")
        parent = {v: v for v in touched}

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for c in live:
            scope = self.scopes[c]
            root = find(scope[0])
            for v in scope[1:]:
                parent[find(v)] = root
        components: dict[int, list[int]] = {}
        for v in sorted(touched):
            components.setdefault(find(v), []).append(v)
        for variables in components.values():
            members = set(variables)
            cons = sorted(c for c in live if self.scopes[c][0] in members)
            key = tuple((v, domains[v]) for v in variables)
            found = self.cache.get(key)
            if found is None:
                found = self._component(variables, cons, domains)
                self.cache[key] = found
            total *= found
            if not total:
                return 0
        return total

    def _component(self, variables: list[int], cons: list[int], domains: dict) -> int:
        sizes = {v: bin(domains[v]).count("1") for v in variables}
        scopes = [self.scopes[c] for c in cons]
        cost = elimination_cost(scopes, sizes)
        if cost <= ELIMINATION_MAX_CELLS:
            factors = []
            for c in cons:
                index = [_values(domains[v]) for v in self.scopes[c]]
                factors.append((self.scopes[c], self.tables[c][np.ix_(*index)].astype(np.int64)))
            self.budget.spend(1 + cost // 1_000, "an elimination")
            return count_by_elimination(factors, sizes)
        degree = dict.fromkeys(variables, 0)
        for scope in scopes:
            for v in scope:
                degree[v] += 1
        branch = max(
            (v for v in variables if sizes[v] > 1), key=lambda v: (degree[v], -sizes[v], -v)
        )
        sub = {v: domains[v] for v in variables}
        total = 0
        for value in _values(domains[branch]):
            sub[branch] = 1 << value
            total += self._count(sub, set(cons), self.by_var[branch])
        return total


def count_solutions(sizes: dict[int, int], constraints, *, budget: _Budget | None = None) -> int:
    """Number of assignments (variable v takes ``0 .. sizes[v] - 1``) allowed by every table.

    ``constraints`` are ``(scope, table)`` pairs, ``table`` a boolean array over
    the scope's variables (distinct within a scope).

    >>> ne = ~np.eye(3, dtype=bool)               # three-colourings of a triangle
    >>> count_solutions({0: 3, 1: 3, 2: 3}, [((0, 1), ne), ((1, 2), ne), ((0, 2), ne)])
    6
    """
    budget = budget or _Budget(None, "search", "max_subproblems")
    return _Solver(sizes, constraints, budget).count()


# ---- the disentangled family, one permutation at a time ---------------------


def _problem(table, dims, rows, labels, pinned, perm, constant):
    """Variable sizes and constraint tables of one permutation (constant outputs merged)."""
    k = len(dims)
    var: dict[tuple[int, int], int] = {}
    sizes: dict[int, int] = {}

    def x(j: int, v: int) -> int:
        key = (j, -1) if j in constant else (j, v)
        if key not in var:
            var[key] = len(var)
            sizes[var[key]] = dims[j]
        return var[key]

    constraints = []
    masks: dict[int, np.ndarray] = {}
    for row, label, pin in zip(rows, labels, pinned):
        scope = [x(j, int(row[perm[j]])) for j in range(k)]
        if pin:
            mask = np.zeros(dims, dtype=bool)
            mask[tuple(int(v) for v in row)] = True
        else:
            if label not in masks:
                masks[label] = table == label
            mask = masks[label]
        if len(set(scope)) < k:  # a merged (constant) output cannot repeat: outputs differ
            raise AssertionError("a variable repeats within one constraint")
        constraints.append((tuple(scope), mask))
    return sizes, constraints


def _free_factor(dims, rows, perm, constant) -> int:
    """Maps of the values no observed state shows at each output's source (closed form)."""
    out = 1
    for j, d in enumerate(dims):
        shown = len({int(r[perm[j]]) for r in rows})
        if j in constant:
            out *= 1 if shown else d
        else:
            out *= d ** (d - shown)
    return out


def _perm_key(rows, labels, pinned, perm) -> bytes:
    inputs = rows[:, list(perm)]
    order = np.lexsort(inputs.T[::-1]) if len(inputs) else np.arange(0)
    return b"|".join(
        [
            inputs[order].tobytes(),
            np.asarray(labels, dtype=np.int64)[order].tobytes(),
            pinned[order].tobytes(),
            rows[order][pinned[order]].tobytes(),
        ]
    )


def _check_cost(budget, rows, dims, n_problems, n_subsets, n_pinned, n_labels) -> None:
    """Refuse at once, with the estimate, a count whose tables alone would pass the budget
    (every observed state is one constraint over a table of prod(dims) cells, visited in each
    of n_problems x n_subsets problems), or whose constraint tables pass the memory limit."""
    cells = math.prod(dims)
    budget.hold(cells * (n_labels + n_pinned), "the constraint tables")
    # each table is propagated (cells / 4096 units) and summed out or branched on (~cells /
    # 1000 units, the charge of an elimination) at least once per problem
    total = len(rows) * (1 + cells // 4096 + cells // 1000) * n_subsets * n_problems
    if budget.limit and budget.used + total > budget.limit:
        budget.refuse(
            f"propagating {len(rows):,} constraints over tables of {cells:,} cells in each of "
            f"{n_problems:,} distinct permutation problems x {n_subsets:,} patterns of constant "
            f"outputs costs about {total:,} sub-problems, above the limit of "
            f"{budget.limit:,}"
        )


def disentangled_by_permutation(
    codes,
    dims: Sequence[int],
    rows: np.ndarray,
    *,
    pinned: np.ndarray | None = None,
    fixed_permutation: bool = False,
    distinct: bool = True,
    max_subproblems: int | None = None,
    option: str = "max_subproblems",
    max_memory: int | None = None,
) -> tuple[int, int | None, int]:
    """``(pairs (pi, f), distinct maps alpha or None, sub-problems)`` for the observed ``rows``.

    ``codes`` is the label code of every state (rows of ``all_states(dims)``);
    ``rows`` (n, k) are the observed states' values.

    >>> from nesybench.logic import all_states
    >>> codes = all_states((10, 10)).sum(axis=1)
    >>> disentangled_by_permutation(codes, (10, 10), all_states((10, 10)))[:2]
    (2, 2)
    """
    dims = tuple(int(d) for d in dims)
    k = len(dims)
    table = np.asarray(codes).reshape(dims)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, k)
    pinned = np.zeros(len(rows), bool) if pinned is None else np.asarray(pinned, bool)
    index = np.zeros(len(rows), dtype=np.int64)
    for j, d in enumerate(dims):
        index = index * d + rows[:, j]
    labels = np.asarray(codes)[index].tolist()
    budget = _Budget(
        max_subproblems or None,
        "disentangled count by permutation",
        option,
        memory_limit=max_memory or None,
        memory_option="--max-memory",
    )
    subsets = (
        [c for r in range(k + 1) for c in itertools.combinations(range(k), r)] if distinct else [()]
    )
    perms = domain_permutations(dims, fixed=fixed_permutation)
    _check_cost(budget, rows, dims, 1, len(subsets), int(pinned.sum()), len(set(labels)))
    keys = []
    for perm in perms:
        budget.spend(1 + len(rows) // 4096, "a permutation's key")
        keys.append(_perm_key(rows, labels, pinned, perm))
    _check_cost(budget, rows, dims, len(set(keys)), len(subsets), 0, 0)
    cache: dict[bytes, dict] = {}
    pairs = 0
    exactly_total = dict.fromkeys(subsets, 0)  # summed over pi: maps with exactly C constant
    for perm, key in zip(perms, keys):
        if key not in cache:
            n_keys = len(set(keys))
            if n_keys >= 20 and (len(cache) + 1) % max(1, n_keys // 10) == 0:
                log(f"disentangled count by permutation: problem {len(cache) + 1} of {n_keys}")
            at_least = {}
            for constant in subsets:
                sizes, constraints = _problem(
                    table, dims, rows, labels, pinned, perm, set(constant)
                )
                n = _Solver(sizes, constraints, budget).count() if sizes else 1
                at_least[constant] = n * _free_factor(dims, rows, perm, set(constant))
            cache[key] = {
                c: sum(
                    (-1) ** (len(sup) - len(c)) * at_least[sup]
                    for sup in subsets
                    if set(c) <= set(sup)
                )
                for c in subsets
            }
            cache[key][None] = at_least[()]
        pairs += cache[key][None]
        for c in subsets:
            exactly_total[c] += cache[key][c]
    if not distinct:
        return pairs, None, budget.used
    classes = sorted(set(dims))
    n_distinct = 0
    for c, total in exactly_total.items():
        # A map alpha whose constant outputs are C comes from prod_D |C & D|! pairs: its
        # constant outputs take the left-over sources in any order.
        ways = (
            1  # pi is fixed: every pair is its own map
            if fixed_permutation
            else math.prod(math.factorial(sum(1 for j in c if dims[j] == d)) for d in classes)
        )
        whole, rest = divmod(total, ways)
        if rest:  # cannot happen
            raise AssertionError(f"{total} pairs with constant outputs {c} not divisible by {ways}")
        n_distinct += whole
    return pairs, n_distinct, budget.used


# ---- the shared family as one constraint problem ------------------------------


def shared_cells(d: int, rows: np.ndarray) -> int:
    """Table cells the shared constraint problem starts with: d^(distinct values) per state."""
    distinct = (np.diff(np.sort(np.asarray(rows), axis=1), axis=1) != 0).sum(axis=1) + 1
    return sum(int(n) * d**m for m, n in enumerate(np.bincount(distinct).tolist()) if n)


def shared_by_constraints(
    codes, d: int, k: int, rows: np.ndarray, *, pinned: np.ndarray | None = None, budget: _Budget
) -> int:
    """Maps f: [d] -> [d] keeping every observed label, as a constraint problem over X[v] = f(v).

    An observed state g with distinct values u_1 .. u_m constrains (X[u_1], ..., X[u_m]) to
    the tuples whose image carries g's label (the label table on the diagonal where g repeats a
    value); a supervised g allows its own values only.  Values no state shows are free (a
    factor d each).  Sparse supports over many states (two observed states of six digits) are
    small problems here, where the residual search would hold sets of all 10^6 states.

    >>> from nesybench.logic import all_states
    >>> from nesybench.counting.search import _Budget
    >>> codes = all_states((10, 10)).sum(axis=1)
    >>> shared_by_constraints(codes, 10, 2, all_states((10, 10)), budget=_Budget(None, "s", "o"))
    1
    """
    table = np.asarray(codes).reshape((d,) * k)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, k)
    pinned = np.zeros(len(rows), bool) if pinned is None else np.asarray(pinned, bool)
    shown = sorted({int(v) for v in np.unique(rows)})
    var = {v: i for i, v in enumerate(shown)}
    tables: dict[tuple, np.ndarray] = {}
    constraints = []
    for row, pin in zip(rows.tolist(), pinned.tolist()):
        values = list(dict.fromkeys(row))  # distinct, in order of first appearance
        slot = tuple(values.index(v) for v in row)
        scope = tuple(var[v] for v in values)
        if pin:
            mask = np.zeros((d,) * len(values), dtype=bool)
            mask[tuple(values)] = True
            budget.hold(mask.nbytes, "a supervised state's table")
        else:
            key = (int(table[tuple(row)]), slot)
            mask = tables.get(key)
            if mask is None:
                budget.hold(d ** len(values), f"{len(tables) + 1:,} constraint tables")
                grids = np.indices((d,) * len(values), sparse=True)
                mask = table[tuple(grids[i] for i in slot)] == key[0]
                tables[key] = mask
        constraints.append((scope, mask))
    sizes = {i: d for i in range(len(shown))}
    return _Solver(sizes, constraints, budget).count() * d ** (d - len(shown))
