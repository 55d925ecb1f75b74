"""Exact counts of the disentangled and shared families by a search with shared sub-problems.

Both searches work on the label table of K (the label code of every state,
``codes[i]`` for row ``i`` of ``all_states(domains)``), so any knowledge is
handled the same way: parity, a CNF, a sum or a user's table.

Disentangled family: alpha(g)_j = f_j(g_pi(j))
-----------------------------------------------

The outputs j = 1..k are decided one at a time.  Deciding output j means
choosing its source concept c = pi(j) among the unused concepts of the same
domain size and the map f_j.  After outputs 1..j are decided, what every
observed state g still needs is a *residual*: the set of completions
(o_j+1, ..., o_k) that give it its label (a single completion when g is
supervised).  The future only sees g through its values on the unused
concepts U, so states that agree on U are merged (their residuals
intersected).  A sub-problem is therefore the array

    T[h] = residual required of every observed state whose values on U are h

(the full set where no observed state has values h), and two different
partial choices that lead to the same array have the same number of
completions: the array is the key of a cache.  Residuals are interned per
level (an integer id per distinct set), so T is an integer array and the
two operations the search needs are table look-ups:

* ``slice``: the residual of a completion set once its first coordinate is x;
* ``meet``: the intersection of two residuals.

Choosing f_j means choosing f_j(v) for each value v of the source concept;
the rows of T with c = v are sliced at f_j(v) and met with the rows already
decided.  This inner choice is itself a dynamic programme over v whose layers
are stacks of arrays (vectorised: every candidate value x of every partial
array is evaluated at once, then equal arrays are merged).  An empty
residual anywhere prunes the branch at once: an observed state whose label
can no longer be produced, or two merged states that need different
completions.  Values of the source concept that no observed state shows
leave T unchanged: they contribute a factor d in closed form.  At the last
output the count is closed form too: prod_v |T[v]| maps, |meet_v T[v]| of
them constant.

Symmetry: the key of a sub-problem does not say *which* concepts are unused,
only the array over them, so choices that differ by a permutation fixing K
and the labelled support reach equal keys and are counted once (k-bit parity
at full support has one sub-problem per level, not k!/(k-j)!).

N_opt counts pairs (pi, f).  A learner lands on a map alpha, and pairs whose
f_j are constant collapse onto the same alpha: a non-constant f_j fixes
pi(j), while the m_D - n_D constant outputs of domain-size class D can take
the remaining sources in any order.  So every alpha of the family is
induced by exactly prod_D (m_D - n_D)! pairs, with n_D its number of
non-constant outputs of class D, and the search, which counts pairs by n,
also gives ``n_distinct = sum_n N(n) / prod_D (m_D - n_D)!``.

Shared family: alpha(g)_j = f(g_j)
----------------------------------

One map f on a common domain.  The values are decided one at a time, in an
order that completes observed states early; an observed state's residual is
the set of states with its label that agree with the values decided so far,
and a state whose values are all decided is checked and dropped from the
key.  Values that no observed state shows contribute a factor d.

Both searches stop with an error naming the option that lifts the limit when
they pass ``max_subproblems`` sub-problems.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..progress import log

__all__ = [
    "SearchResult",
    "SearchTooLarge",
    "MemoryTooLarge",
    "disentangled_search",
    "shared_search",
    "shared_by_completion",
    "shared_all_maps",
    "MAX_SUBPROBLEMS",
    "MAX_MEMORY",
]

MAX_SUBPROBLEMS = 600_000  # from seconds to minutes of work (one unit ~ 0.1 ms on a quiet core)
MAX_MEMORY = 2**30  # bytes an exact count may hold (label table, interned sets, caches)
DIRECT_MAPS = 256  # up to this many maps on a source's shown values are evaluated all at once
MAX_LAYER_CELLS = 20_000_000  # one step of the inner programme may hold this many ids (160 MB)
EMPTY, FULL = 0, 1
_LOG_EVERY = 50_000  # a progress line about every 5 s


class SearchTooLarge(InputError):
    """The exact search passed its budget of sub-problems (the message says how to lift it)."""


class MemoryTooLarge(SearchTooLarge):
    """The exact count would pass its memory limit (refused before allocating; the message gives
    the estimate and the option that lifts it)."""


@dataclass(frozen=True)
class SearchResult:
    """``n_pairs``: the count (pairs (pi, f), or maps f); ``n_distinct``: distinct maps alpha."""

    n_pairs: int
    n_distinct: int
    subproblems: int


class _Budget:
    """Sub-problems spent and bytes held by one exact count, each against its limit.

    Memory is charged *before* a large structure is built (``hold``), so a count
    that would pass ``memory_limit`` bytes stops with the estimate instead of
    allocating it.
    """

    def __init__(
        self,
        limit: int | None,
        what: str,
        option: str,
        *,
        memory_limit: int | None = None,
        memory_option: str = "max_memory",
    ) -> None:
        self.limit = limit
        self.used = 0
        self.what = what
        self.option = option
        self.memory_limit = memory_limit
        self.memory_option = memory_option
        self.held = 0
        self._next_log = _LOG_EVERY

    def spend(self, n: int, where: str) -> None:
        self.used += int(n)
        if self.used >= self._next_log:
            log(f"{self.what}: {self.used:,} sub-problems ({where})")
            self._next_log += _LOG_EVERY
        if self.limit and self.used > self.limit:
            self.refuse(f"passed {self.limit:,} sub-problems at {where}")

    def hold(self, n_bytes: int, where: str) -> None:
        """Charge ``n_bytes`` about to be allocated; refuse past the memory limit."""
        self.held += int(n_bytes)
        if self.memory_limit and self.held > self.memory_limit:
            raise MemoryTooLarge(
                f"{self.what}: the exact count would hold {_megabytes(self.held)} in memory at "
                f"{where}, above the limit of {_megabytes(self.memory_limit)}; raise it with "
                f"{self.memory_option} MB (0 = no limit), or count another extractor family or "
                "a smaller support"
            )

    def release(self, n_bytes: int) -> None:
        self.held -= int(n_bytes)

    def refuse(self, why: str, *, liftable: bool = True) -> None:
        fix = (
            f"raise the limit with {self.option} N (0 = no limit), or count another extractor "
            "family"
            if liftable
            else "count another extractor family or a smaller support"
        )
        raise SearchTooLarge(
            f"{self.what}: the exact search stopped without finishing ({why}); {fix}"
        )


def _megabytes(n_bytes: int) -> str:
    return f"about {max(1, round(n_bytes / 2**20)):,} MB"


class _Level:
    """Interned subsets of one completion space (ids: EMPTY = 0, FULL = 1)."""

    def __init__(self, size: int, next_dim: int | None, budget: _Budget | None = None) -> None:
        self.budget = budget
        self.size = size
        self.next_dim = next_dim
        self.sets: list[np.ndarray] = [np.zeros(size, bool), np.ones(size, bool)]
        self.keys: dict[bytes, int] = {
            np.packbits(self.sets[0]).tobytes(): EMPTY,
            np.packbits(self.sets[1]).tobytes(): FULL,
        }
        self.sizes: list[int] = [0, size]
        self.meets: dict[tuple[int, int], int] = {}
        self.slices = np.full((64, next_dim or 1), -1, dtype=np.int64)

    def intern(self, mask: np.ndarray) -> int:
        key = np.packbits(mask).tobytes()
        found = self.keys.get(key)
        if found is None:
            if self.budget is not None:  # the mask, its packed key and the slice row
                self.budget.hold(
                    self.size + len(key) + 8 * (self.next_dim or 1) + 200, "a residual"
                )
            found = len(self.sets)
            self.keys[key] = found
            self.sets.append(mask)
            self.sizes.append(int(mask.sum()))
        return found


class _Residuals:
    """The interned residual sets of every level, with vectorised slice and meet."""

    def __init__(self, dims: Sequence[int], budget: _Budget | None = None) -> None:
        self.dims = tuple(dims)
        k = len(self.dims)
        self.levels = [
            _Level(math.prod(self.dims[j:]), self.dims[j] if j < k else None, budget)
            for j in range(k + 1)
        ]

    def slice(self, j: int, ids: np.ndarray) -> np.ndarray:
        """``(n,)`` level-j ids -> ``(n, d_j)`` level-(j+1) ids: each set at first coordinate x."""
        level, child = self.levels[j], self.levels[j + 1]
        top = int(ids.max()) if len(ids) else 0
        if top >= len(level.slices):
            grown = np.full((max(top + 1, 2 * len(level.slices)), level.slices.shape[1]), -1)
            grown[: len(level.slices)] = level.slices
            level.slices = grown
        need = level.slices[ids, 0] < 0
        if need.any():
            for i in np.unique(ids[need]).tolist():
                rows = level.sets[i].reshape(level.next_dim, child.size)
                level.slices[i] = [child.intern(row) for row in rows]
        return level.slices[ids]

    def meet(self, j: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise intersection of two arrays of level-j ids (same shape)."""
        out = np.where(a == FULL, b, a)
        hard = (a > FULL) & (b > FULL) & (a != b)
        out[b == EMPTY] = EMPTY
        n_hard = int(np.count_nonzero(hard))
        if not n_hard:
            return out
        level = self.levels[j]
        meets = level.meets
        lo = np.minimum(a[hard], b[hard])
        hi = np.maximum(a[hard], b[hard])
        if n_hard > 64:  # many cells: look each distinct pair up once
            codes = lo * (1 << 31) + hi
            uniq, inverse = np.unique(codes, return_inverse=True)
            pairs = [(c >> 31, c & ((1 << 31) - 1)) for c in uniq.tolist()]
        else:
            inverse = None
            pairs = list(zip(lo.tolist(), hi.tolist()))
        values = []
        for pair in pairs:
            found = meets.get(pair)
            if found is None:
                found = level.intern(level.sets[pair[0]] & level.sets[pair[1]])
                meets[pair] = found
            values.append(found)
        values = np.array(values, dtype=out.dtype)
        out[hard] = values if inverse is None else values[inverse]
        return out


def _merge_rows(rows: np.ndarray, mult: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows merged, multiplicities summed (rows sorted, so the result is deterministic)."""
    if len(rows) <= 1:
        return rows, mult
    uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = np.zeros(len(uniq), dtype=mult.dtype)
    np.add.at(sums, inverse, mult)
    return uniq, sums


def disentangled_search(
    codes: np.ndarray,
    dims: Sequence[int],
    observed: np.ndarray,
    *,
    pinned: np.ndarray | None = None,
    fixed_permutation: bool = False,
    max_subproblems: int | None = MAX_SUBPROBLEMS,
    option: str = "max_subproblems",
    max_memory: int | None = None,
) -> SearchResult:
    """Count the pairs (pi, f) that keep every observed label (see the module docstring).

    Parameters
    ----------
    codes : (prod dims,) int array
        Label code of every state (rows of ``all_states(dims)``).
    dims : sequence of int
        Domain sizes d_1..d_k.
    observed : (n,) int array
        Rows of the observed states (distinct).
    pinned : (n,) bool array, optional
        Supervised observed states: their image must be themselves.
    fixed_permutation : bool
        Only pi = identity.
    max_subproblems : int or None
        Budget of sub-problems; ``SearchTooLarge`` past it (None or 0: no limit).
    max_memory : int or None
        Bytes the interned residuals and the cache may hold (None: no limit).

    Examples
    --------
    >>> from nesybench.logic import all_states
    >>> codes = all_states(4).sum(axis=1) % 2            # 4-bit parity
    >>> r = disentangled_search(codes, (2,) * 4, np.arange(16))
    >>> r.n_pairs, r.n_distinct                           # 4! * 8 pairs, each a distinct map
    (192, 192)
    """
    dims = tuple(int(d) for d in dims)
    k = len(dims)
    codes = np.asarray(codes, dtype=np.int64)
    observed = np.asarray(observed, dtype=np.int64).reshape(-1)
    pinned = np.zeros(len(observed), bool) if pinned is None else np.asarray(pinned, bool)
    classes = sorted(set(dims))
    class_of = [classes.index(d) for d in dims]
    m_class = [dims.count(d) for d in classes]
    zero = (0,) * len(classes)
    budget = _Budget(
        max_subproblems or None,
        "disentangled search",
        option,
        memory_limit=max_memory or None,
        memory_option="--max-memory",
    )
    res = _Residuals(dims, budget)

    # Level 0: every observed state needs its label class (its own state when pinned).
    level0 = res.levels[0]
    by_label: dict[int, int] = {}
    table = np.full(len(codes), FULL, dtype=np.int64)
    for state, pin in zip(observed.tolist(), pinned.tolist()):
        if pin:
            mask = np.zeros(len(codes), bool)
            mask[state] = True
            table[state] = level0.intern(mask)
        else:
            label = int(codes[state])
            if label not in by_label:
                by_label[label] = level0.intern(codes == label)
            table[state] = by_label[label]

    memo: dict[tuple, dict[tuple, int]] = {}

    def last(j: int, rows: np.ndarray) -> dict[tuple, int]:
        level = res.levels[j]
        total = math.prod(level.sizes[i] for i in rows.tolist())
        common = np.ones(level.size, bool)
        for i in set(rows.tolist()):
            common &= level.sets[i]
        const = int(common.sum())
        out: dict[tuple, int] = {}
        if const:
            out[zero] = const
        if total - const:
            key = list(zero)
            key[class_of[j]] += 1
            out[tuple(key)] = total - const
        return out

    def unconstrained(j: int) -> dict[tuple, int]:
        """Counts by n of all pairs on outputs j..k: per output d^d maps, d of them constant;
        the outputs of each class take their sources in any order."""
        out = {zero: 1}
        for c, d in enumerate(classes):
            r = sum(1 for i in range(j, k) if dims[i] == d)
            if not r:
                continue
            orders = 1 if fixed_permutation else math.factorial(r)
            per_n = {
                n: math.comb(r, n) * (d**d - d) ** n * d ** (r - n) * orders for n in range(r + 1)
            }
            nxt: dict[tuple, int] = {}
            for key_n, c0 in out.items():
                for n, c1 in per_n.items():
                    if c1:
                        bumped = list(key_n)
                        bumped[c] += n
                        nxt[tuple(bumped)] = nxt.get(tuple(bumped), 0) + c0 * c1
            out = nxt
        return out

    def solve(j: int, udims: tuple[int, ...], state: np.ndarray) -> dict[tuple, int]:
        if j == k:
            return {zero: 1}
        key = (j, udims, state.tobytes())
        found = memo.get(key)
        if found is not None:
            return found
        budget.spend(1, f"output {j + 1} of {k}")
        budget.hold(len(key[2]) + 300, f"the cache at output {j + 1} of {k}")
        d = dims[j]
        if (state == FULL).all():  # nothing left to satisfy: every remaining pair counts
            result = unconstrained(j)
            memo[key] = result
            return result
        if j == k - 1:
            result = last(j, state)
            memo[key] = result
            return result
        sources = [0] if fixed_permutation else [p for p, du in enumerate(udims) if du == d]
        result: dict[tuple, int] = {}
        grid = state.reshape(udims)
        for p in sources:
            child_dims = udims[:p] + udims[p + 1 :]
            columns = np.moveaxis(grid, p, -1).reshape(-1, d)
            for child, n_const, n_other in _choose_map(j, columns, d):
                for n, c in solve(j + 1, child_dims, child).items():
                    if n_const:
                        result[n] = result.get(n, 0) + n_const * c
                    if n_other:
                        bumped = list(n)
                        bumped[class_of[j]] += 1
                        bumped = tuple(bumped)
                        result[bumped] = result.get(bumped, 0) + n_other * c
        result = {n: c for n, c in result.items() if c}
        memo[key] = result
        return result

    def _choose_map(j: int, columns: np.ndarray, d: int):
        """Every child array reachable by one map f on the source's values, with how many maps
        reach it (constant ones, other ones)."""
        width = columns.shape[0]
        shown = [v for v in range(d) if (columns[:, v] != FULL).any()]
        n_free = d - len(shown)
        slices = [res.slice(j, columns[:, v]) for v in shown]  # each (width, d)
        if d ** len(shown) <= DIRECT_MAPS:
            return _all_maps(j, slices, d, n_free, width)
        big = d * math.log2(d) > 62
        dtype = object if big else np.int64
        layer = np.full((1, width), FULL, dtype=np.int64)
        mult = np.ones(1, dtype=dtype)
        for v_slices in slices:
            n_rows = len(layer)
            budget.spend(1 + n_rows * width * d // 4096, f"output {j + 1} of {k}")
            if n_rows * width * d > MAX_LAYER_CELLS:
                budget.refuse(
                    f"output {j + 1} of {k} would hold {n_rows * width * d:,} ids in memory at "
                    f"once, above {MAX_LAYER_CELLS:,}",
                    liftable=False,
                )
            left = np.repeat(layer, d, axis=0)
            right = np.tile(v_slices.T, (n_rows, 1))
            cand = res.meet(j + 1, left, right)
            alive = (cand != EMPTY).all(axis=1)
            layer, mult = _merge_rows(cand[alive], np.repeat(mult, d)[alive])
            if not len(layer):
                return []
        if n_free:
            mult = mult * (d**n_free)
        # Constant maps: one per value x whose slices all meet.
        const: dict[bytes, int] = {}
        for x in range(d):
            row = np.full(width, FULL, dtype=np.int64)
            for v_slices in slices:
                row = res.meet(j + 1, row, v_slices[:, x])
            if (row != EMPTY).all():
                const[row.tobytes()] = const.get(row.tobytes(), 0) + 1
        out = []
        for row, m in zip(layer, mult.tolist()):
            c = const.get(row.tobytes(), 0)
            out.append((row, c, int(m) - c))
        return out

    def _all_maps(j: int, slices: list, d: int, n_free: int, width: int):
        """Few maps on the shown values: evaluate all of them at once, then group equal rows."""
        n_shown = len(slices)
        if n_shown == 0:  # every value free: d constant maps among the d^d
            return [(np.full(width, FULL, dtype=np.int64), d, d**d - d)]
        n_maps = d**n_shown
        budget.spend(1 + n_maps * width // 4096, f"output {j + 1} of {k}")
        combos = np.indices((d,) * n_shown).reshape(n_shown, -1)  # (n_shown, n_maps)
        rows = np.full((n_maps, width), FULL, dtype=np.int64)
        for i, v_slices in enumerate(slices):
            rows = res.meet(j + 1, rows, v_slices[:, combos[i]].T)
        alive = (rows != EMPTY).all(axis=1)
        constant = (combos == combos[:1]).all(axis=0)
        groups: dict[bytes, list] = {}
        free = d**n_free
        for row, is_const in zip(rows[alive], constant[alive].tolist()):
            entry = groups.setdefault(row.tobytes(), [row, 0, 0])
            if is_const:
                # a constant map on the shown values is constant overall for one of the
                # d^n_free fillings of the free values
                entry[1] += 1
                entry[2] += free - 1
            else:
                entry[2] += free
        return [tuple(entry) for entry in groups.values()]

    counts = solve(0, dims, table)
    n_pairs = sum(counts.values())
    n_distinct = 0
    for n, c in counts.items():
        ways = (
            1  # pi is fixed: every pair is its own map
            if fixed_permutation
            else math.prod(math.factorial(m - nd) for m, nd in zip(m_class, n))
        )
        whole, rest = divmod(c, ways)
        if rest:  # cannot happen: every map is induced by exactly `ways` pairs
            raise AssertionError(f"pair count {c} not divisible by {ways} at n = {n}")
        n_distinct += whole
    return SearchResult(n_pairs, n_distinct, budget.used)


def _value_sets(observed: np.ndarray) -> tuple[list[frozenset], np.ndarray]:
    """The distinct sets of values the observed states show, with how many states show each."""
    rows = np.asarray(observed, dtype=np.int64)
    sets: dict[frozenset, int] = {}
    if rows.size and int(rows.max()) < 63:  # each state's values as one bit mask
        masks = np.bitwise_or.reduce(np.left_shift(1, rows), axis=1)
        uniq, counts = np.unique(masks, return_counts=True)
        for mask, n in zip(uniq.tolist(), counts.tolist()):
            sets[frozenset(v for v in range(63) if mask >> v & 1)] = n
    else:
        uniq, counts = np.unique(np.sort(rows, axis=1), axis=0, return_counts=True)
        for row, n in zip(uniq.tolist(), counts.tolist()):
            key = frozenset(row)
            sets[key] = sets.get(key, 0) + n
    return list(sets), np.array(list(sets.values()), dtype=np.int64)


def _value_order(observed: np.ndarray, values: list[int]) -> list[int]:
    """Values in an order that completes observed states early: each next value is the one that
    completes the most states, then co-occurs most with the values already chosen.

    Scored on the distinct value sets with their multiplicities (a full support of 10^6
    states over 10 digits shows at most 2^10 sets)."""
    sets, weight = _value_sets(observed)
    chosen: list[int] = []
    done: set[int] = set()
    rest = set(values)
    while rest:

        def score(v: int) -> tuple:
            completes = touches = appears = 0
            for values_shown, w in zip(sets, weight.tolist()):
                if v in values_shown:
                    appears += w
                    if values_shown <= done | {v}:
                        completes += w
                    if values_shown & done:
                        touches += w
            return (completes, touches, appears, -v)

        best = max(sorted(rest), key=score)
        chosen.append(best)
        done.add(best)
        rest.remove(best)
    return chosen


def shared_search(
    codes: np.ndarray,
    d: int,
    k: int,
    observed: np.ndarray,
    *,
    pinned: np.ndarray | None = None,
    max_subproblems: int | None = MAX_SUBPROBLEMS,
    option: str = "max_subproblems",
    budget: _Budget | None = None,
) -> SearchResult:
    """Count the maps f: [d] -> [d] with K(f(g_1), ..., f(g_k)) = K(g) on every observed g.

    ``observed`` are rows of ``all_states((d,) * k)``; a pinned state g also
    needs f(g_j) = g_j.  Distinct f give distinct alpha, so ``n_distinct`` is
    the count.  Each interned residual is a bit set over all d^k states, charged
    to ``budget``'s memory limit before it is kept.

    >>> from nesybench.logic import all_states
    >>> codes = all_states((10, 10)).sum(axis=1)          # MNIST-Addition, two digits
    >>> shared_search(codes, 10, 2, np.arange(100)).n_pairs
    1
    """
    from ..logic.states import all_states

    codes = np.asarray(codes, dtype=np.int64)
    observed = np.asarray(observed, dtype=np.int64).reshape(-1)
    pinned = np.zeros(len(observed), bool) if pinned is None else np.asarray(pinned, bool)
    budget = budget or _Budget(max_subproblems or None, "shared search", option)
    set_bytes = (len(codes) + 7) // 8
    budget.hold(len(codes) * k * 8, "the table of states")
    grid = all_states((d,) * k)
    rows = grid[observed]  # (n, k) values of each observed state
    forced = {int(v): int(v) for row in rows[pinned] for v in row}
    shown = sorted({int(v) for v in np.unique(rows)})
    n_free = d - len(shown)
    order = _value_order(rows, shown)
    position = np.full(d, -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    last_value = position[rows].max(axis=1)

    # One interned family of subsets of the states, as packed bits (8 states a byte); a state's
    # residual starts as its label class (one set per label, one per supervised state).
    sets: list[np.ndarray] = [
        np.packbits(np.zeros(len(codes), bool)),
        np.packbits(np.ones(len(codes), bool)),
    ]
    keys: dict[bytes, int] = {bits.tobytes(): i for i, bits in enumerate(sets)}

    def intern_bits(bits: np.ndarray) -> int:
        key = bits.tobytes()
        if key not in keys:
            budget.hold(set_bytes + 100, f"{len(sets):,} residual sets")
            keys[key] = len(sets)
            sets.append(bits)
        return keys[key]

    by_label: dict[int, int] = {}
    start = np.empty(len(observed), dtype=np.int64)
    for i, (s, pin) in enumerate(zip(observed.tolist(), pinned.tolist())):
        if pin:
            start[i] = intern_bits(np.packbits(grid_eq(grid, rows[i])))
            continue
        label = int(codes[s])
        if label not in by_label:
            by_label[label] = intern_bits(np.packbits(codes == label))
        start[i] = by_label[label]
    coord_masks = {}  # (pattern of concepts, x) -> states whose concepts in the pattern equal x
    step_cache: dict[tuple[int, int, int], int] = {}

    def restrict(res_id: int, pattern: int, x: int) -> int:
        key = (res_id, pattern, x)
        found = step_cache.get(key)
        if found is None:
            mask_key = (pattern, x)
            if mask_key not in coord_masks:
                budget.hold(set_bytes, "the masks of decided values")
                cols = [j for j in range(k) if pattern >> j & 1]
                coord_masks[mask_key] = np.packbits((grid[:, cols] == x).all(axis=1))
            found = intern_bits(sets[res_id] & coord_masks[mask_key])
            step_cache[key] = found
        return found

    state_bytes = 8 * len(observed) + 100
    budget.hold(state_bytes, "the first layer")
    layer: dict[bytes, tuple[np.ndarray, int]] = {start.tobytes(): (start, 1)}
    for step, v in enumerate(order):
        patterns = np.zeros(len(rows), dtype=np.int64)
        for j in range(k):
            patterns |= (rows[:, j] == v).astype(np.int64) << j
        touched = np.flatnonzero(patterns)
        closing = touched[last_value[touched] == step]
        choices = [forced[v]] if v in forced else list(range(d))
        budget.spend(len(layer) * len(choices), f"value {step + 1} of {len(order)}")
        nxt: dict[bytes, tuple[np.ndarray, int]] = {}
        for state, m in layer.values():
            # the touched states' (residual, pattern) pairs, each distinct pair restricted once
            pairs = np.stack([state[touched], patterns[touched]], axis=1)
            uniq, inverse = np.unique(pairs, axis=0, return_inverse=True)
            uniq = uniq.tolist()
            for x in choices:
                restricted = np.array([restrict(r, p, x) for r, p in uniq], dtype=np.int64)
                if (restricted == EMPTY).any():
                    continue
                new = state.copy()
                new[touched] = restricted[inverse.reshape(-1)]
                new[closing] = FULL  # a completed state is satisfied: drop it from the key
                key = new.tobytes()
                if key in nxt:
                    nxt[key] = (nxt[key][0], nxt[key][1] + m)
                else:
                    budget.hold(state_bytes + len(key), f"value {step + 1} of {len(order)}")
                    nxt[key] = (new, m)
        budget.release(len(layer) * (state_bytes + 8 * len(observed)))
        layer = nxt
        if not layer:
            return SearchResult(0, 0, budget.used)
    total = sum(m for _, m in layer.values()) * d**n_free
    return SearchResult(total, total, budget.used)


def shared_all_maps(
    codes: np.ndarray,
    d: int,
    k: int,
    observed: np.ndarray,
    *,
    pinned: np.ndarray | None = None,
    budget: _Budget,
) -> SearchResult:
    """The shared count when d^d is small (binary concepts: 4 maps): every map f checked on
    every observed state at once, ``codes[f(g)] == codes[g]``."""
    from ..logic.states import all_states

    codes = np.asarray(codes, dtype=np.int64)
    observed = np.asarray(observed, dtype=np.int64).reshape(-1)
    pinned = np.zeros(len(observed), bool) if pinned is None else np.asarray(pinned, bool)
    budget.hold(len(observed) * (k + 3) * 8, "the observed states")
    rows = all_states((d,) * k)[observed]
    maps = np.indices((d,) * d).reshape(d, -1).T  # (d^d, d): f(v) = maps[i, v]
    for v in {int(v) for row in rows[pinned] for v in row}:  # supervision pins f(v) = v
        maps = maps[maps[:, v] == v]
    weights = d ** np.arange(k - 1, -1, -1, dtype=np.int64)
    want = codes[observed]
    alive = 0
    for f in maps:
        budget.spend(1 + len(observed) * k // 4096, "a map")
        alive += bool((codes[f[rows] @ weights] == want).all())
    return SearchResult(alive, alive, budget.used)


def shared_by_completion(
    codes: np.ndarray,
    d: int,
    k: int,
    observed: np.ndarray,
    *,
    pinned: np.ndarray | None = None,
    budget: _Budget,
) -> SearchResult:
    """The shared count for dense supports: partial maps f, extended one value at a time.

    The values are decided in the order of :func:`_value_order`; after each, the
    observed states whose values are now all decided are checked at once
    (``codes[f(g)] == codes[g]``, vectorised over the states and the partial
    maps).  A dense support completes states early (the state 0:0:...:0 fixes
    f(0) at the first step), so few partial maps survive; the layer of partial
    maps is charged to ``budget`` (sub-problems and memory) before it is built.
    """
    from ..logic.states import all_states

    codes = np.asarray(codes, dtype=np.int64)
    observed = np.asarray(observed, dtype=np.int64).reshape(-1)
    pinned = np.zeros(len(observed), bool) if pinned is None else np.asarray(pinned, bool)
    budget.hold(len(observed) * k * 8 * 2, "the observed states")
    rows = all_states((d,) * k)[observed] if len(codes) <= 2**24 else None
    if rows is None:  # pragma: no cover - the label table is refused before this size
        raise AssertionError("shared_by_completion needs the label table")
    forced = {int(v): int(v) for row in rows[pinned] for v in row}
    shown = sorted({int(v) for v in np.unique(rows)})
    n_free = d - len(shown)
    order = _value_order(rows, shown)
    position = np.full(d, -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    last_value = position[rows].max(axis=1)
    weights = d ** np.arange(k - 1, -1, -1, dtype=np.int64)
    want = codes[observed]
    # maps[i, v] = f(v) of partial map i (-1 while undecided); counts[i] its multiplicity
    maps = np.full((1, d), -1, dtype=np.int64)
    chunk_cells = 2**21  # image indices computed at once: (maps x states x k) int64 <= 16 MB x k
    budget.hold(chunk_cells * (k + 2) * 8, "the state checks")
    for step, v in enumerate(order):
        choices = np.array([forced[v]] if v in forced else range(d), dtype=np.int64)
        n_new = len(maps) * len(choices)
        budget.spend(n_new, f"value {step + 1} of {len(order)}")
        budget.hold(n_new * (d + 1) * 8, f"{n_new:,} partial maps at value {step + 1}")
        grown = np.repeat(maps, len(choices), axis=0)
        grown[:, v] = np.tile(choices, len(maps))
        alive = np.ones(len(grown), dtype=bool)
        closing = np.flatnonzero(last_value == step)
        budget.spend(n_new * len(closing) // 4096, f"value {step + 1} of {len(order)}")
        per_chunk = max(1, chunk_cells // (len(grown) * k))
        for start in range(0, len(closing), per_chunk):
            states = closing[start : start + per_chunk]
            images = grown[:, rows[states]] @ weights  # (maps, states): rows of the images
            alive &= (codes[images] == want[states]).all(axis=1)
        budget.release(len(maps) * (d + 1) * 8)
        maps = grown[alive]
        if not len(maps):
            return SearchResult(0, 0, budget.used)
    total = len(maps) * d**n_free
    return SearchResult(total, total, budget.used)


def grid_eq(grid: np.ndarray, row: np.ndarray) -> np.ndarray:
    """States equal to ``row``."""
    return (grid == np.asarray(row)[None, :]).all(axis=1)
