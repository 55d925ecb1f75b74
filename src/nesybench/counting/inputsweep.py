"""Exact disentangled counts of binary tasks from the small label class, swept over the inputs.

The anchored count of :mod:`nesybench.counting.smallclass` branches on the outputs where the
points of the small class S* differ (its span) and needs an observed point of S* to fix the
signs; a wide span (a k = 12 random 3-CNF: six models over 11 of 12 outputs) makes it slower
than the search, and at half support both pass any budget.  This count takes the inputs one
at a time instead, so its states merge as the observed states do: it is the one that answers
such a task at half support in under a second.  It applies to binary concepts, knowledge with
two labels, no supervised state and a free permutation (see :func:`applies`); it is exact in
every case.  Observed states of S* prune it most (an empty set closes a branch), but with none
observed it still beats the search on every random task measured (2026-12-03, k = 6 to 12,
three to eleven points of S*: 0.01 to 5.6 s where the search took 0.01 to 39 s or passed its
budget), so the dispatcher tries it whether or not S* is observed.  With none observed, a
group whose points cover the cube of the outputs where they differ (a single point, an edge,
...) or are a square less a point is counted in closed form over the table of empty subcubes
instead of swept (:func:`_cube_group`): the three models of a random 3-CNF often come as an
edge and a square less a point, which the sweep took 15 s (k = 12, 10%) to past 60 s
(k = 14, 1%) to count; a group of two points, at any distance, is counted in closed form
over the same table's pair spectrum (:func:`_pair_group`, one transform for every distance:
at k = 16, 1% such groups were swept past 15 s each).  Any other group spanning at most
MAX_CELLS_SPAN outputs, where the cells below fit (:func:`cells_fit`), is counted over the
cells of the d-sets of inputs
(:func:`_cells_group`, observed points of S* or not): a random 3-CNF at k = 12 with four
models, none observed, has groups of span 3 and 4 that the sweep took 2.5 s and past 5 s
each to count, and this count 0.2 s and 0.7 s; at k = 14 a group of four points over 3
outputs took the sweep 617 s and this count 1 s.

The map seen from its constant outputs
--------------------------------------

A pair (pi, f) with constant outputs C (values c) and non-constant outputs J maps g to
alpha(g)_j = g_pi(j) xor e_j on J and c_j on C.  Its image meets S* only in the group

    G = {s in S* : s_C = c_C},

and alpha(g) = s (s in G) exactly when g agrees with the *fibre pattern* of s on the sources
P = pi(J): g_pi(j) = s_j xor e_j.  The labels are kept when every observed state of the other
label (O') lies in no fibre of G and every observed state of S* (O*) lies in one (constants
whose values select no point of S* keep them exactly when O* is empty).

For one group G the outputs fall into *column classes*: output j's column is (s_j for s in
G), taken up to complement because the sign e_j may flip it; the outputs where G agrees form
one class, the G-constant columns, and only those may be in C (the others must be in J).  The
count of the placements of J's columns on the inputs (an injection with signs) depends on C
only through how many G-constant columns it leaves in J, so one sweep per group serves every
C; ``_groups`` counts, for every group and size c, the sets C of that size whose constants
select it (every C is tried on every point of S* at once: 2^k sets, vectorised).

The sweep
---------

Inputs are taken from the top bit down (the O' table is one integer, so the states whose bit
is 0 are its lower half).  Input p is either unused (it feeds a constant
output, or nothing in the map) or takes one remaining column of some class with a sign, so
its fibre pattern w_p (the bit each point of G requires there) is the class's column or its
complement, in as many ways as the class has columns left.  A state is

* the columns left in each class,
* for each observed state of O', keyed by its bits not yet taken, the points of G whose
  fibres may still hold it (a bit set; states sharing their remaining bits are merged by
  union, as they need the same future);
* for each observed state of O*, the points of G whose fibres may still hold it (an empty
  set closes the branch).

Taking input p drops bit p of every key; O' entries whose sets empty are done.  A state with
no O' entry and no O* entry left closes in closed form (the remaining columns on the
remaining inputs, any number of the G-constant ones).  States at each input are merged in
one table and carry their number of ways, so the count is one pass of k levels.  At the end
the G-constant columns left over are C; the sweep's ways for c of them are divided by
C(z, c) (z: G-constant columns; each set of c of them is one C) and weighed by the number of
sets C that select G, times c! for pairs (the constant outputs take the unused inputs in any
order).

The cells of a d-set of inputs
------------------------------

Write D for the d outputs where G differs and z = k - d for the G-constant ones.  A
placement that keeps c = z - a G-constant columns over puts a of them on a set T of inputs
(their signs fix the values rho that a state must show on T to reach G: the subcube w =
rho, free off T) and the columns of D on a d-set V of the inputs off T, by a signed
bijection phi of D onto the coordinates of V.  Around w, V has 2^d *cells*, w + (V <- p)
for the points p of the V-cube, and a state reaches the point s of G exactly when it lies
in the cell phi(s).  So the placement keeps the labels exactly when every cell of phi(G)
holds no state of O' (A, the set of such cells, contains phi(G)) and every state of O*
lies in w and in a cell of phi(G) (B, the cells of O*'s states, lies within phi(G)).  The
count over (w, V) of

    F(A, B) = #{signed bijections phi : B <= phi(G) <= A}

weighed by the z!/(z - a)! orders of the a constant columns on T is the sweep's ways for c
(before the division by C(z, c)).  The codes (A, B) and their numbers of pairs by a are
read once per span d from the subcube table and shared by the groups of that span
(:func:`_cell_codes`: only the w holding every state of O* are read; with none observed
every w, so the codes are folded out of the table, an input at a time, by
:func:`_folded_codes`: C(k, d) 3^(k - d) codes from far fewer reads than the C(k, d)
3^(k - d) 2^d cells one by one, 22 s to 1 s at k = 14, span 3).  F is counted per
bijection of the outputs up to the sign choices: with phi(s) = pi(s) xor v, the signs v
that fit are an intersection of translates of A and of pi(G) (:func:`_cells_group`), so a
code is tested against at most d! classes of moved sets, not d! 2^d images (k = 12, 10%,
seed 1: the cells' groups from 197 s to 33 s).

"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from .search import SearchResult, _Budget
from .smallclass import (
    _classes,
    _empty_subcubes,
    _pair_bytes,
    _popcount,
    observed_by_class,
    pair_spectrum,
    pair_terms_of,
    span_of,
    work_floor,
)

__all__ = ["applies", "disentangled_input_sweep", "how_counted", "plan", "MAX_K", "MAX_CLASS"]

MAX_K = 16  # the O' table has 2^k entries (g bits each) at the first input
MAX_CLASS = 16  # points of S*: the group table compares every pair of points on 2^k sets
STATES_PER_SUBPROBLEM = 4  # 7-13 us a state with its moves, the search ~40 us a unit (2026-12-03)
STATE_OVERHEAD_BYTES = 200  # a state's key tuple and table slot, beside its O' table
TABLE_BYTES_PER_SUBCUBE = 10  # the cube-shaped groups: E, its fixed bits, two sums, the pairs
MAX_CELLS_SPAN = 6  # a code is one 64-bit mask of 2^d cells; d! classes of moved sets (720)
MAX_CELLS = 150_000_000  # cells read per span (about 15 ns a cell: 2 s; k = 12 reads <= 55 M)
CELLS_PER_SET = 16_384  # a d-set's own work, in cells (0.25 ms: 2 s for 8,008 sets, k = 16)
# With observed points of S* the sweep is pruned by them, and at k = 16 the 3^16 table alone
# (0.9 s) cost more than it did on the benchmark's half-support tasks (2026-12-04)
MAX_OBSERVED_K = 14
CELLS_PER_UNIT = 4096  # cells read in one sub-problem's time (the search: ~40 us a unit)
# With no observed point of S* the codes are folded out of the table instead of read cell by
# cell (:func:`_folded_codes`): k = 14, span 3 in 1 s, where reading its 516 M cells took 22 s
FOLDED_PER_UNIT = 2**14  # folded entries made and counted in one sub-problem's time (~6 ns)
# Folded entries per span, up to span 4 (k = 14: 190 M and 221 M, 0.8-1.1 s; k = 16: 2.5 G and
# 3.3 G, 13 s and 17 s on a loaded machine, past the sweep's share of the default budget).
# Wider spans have millions of distinct codes at k = 14 (6.8 M at span 5, 1%): their images
# took 10 to 187 s a group, so they keep the limit on cells, as with observed points
MAX_FOLDED = 1_000_000_000
MAX_FOLDED_SPAN = 4
BINCOUNT_CHUNK = 2**22  # codes of spans <= 4 counted in place this many at a time
ANDS_PER_UNIT = 2**15  # a code's translates intersected, per point of a class, in one unit
IMAGE_CHUNK = 2**20  # code-class-point triples intersected at once (8 MB each copy)
CODE_BYTES = 48  # per (w, V): its code, the sort's copy, its inverse, the key and a fixed count
HOLD_EVERY = 1024  # new states charged to the memory budget together (at most 1024 too late)


def _small_class(codes: np.ndarray) -> np.ndarray | None:
    """The states of the smaller label class (ties: the first label, as the anchored count),
    or None unless there are exactly two labels."""
    found = _classes(codes)
    return found[0] if found is not None and len(found[0]) else None


def applies(codes, dims: Sequence[int], pinned, fixed_permutation: bool) -> bool:
    """True when the sweep counts the task: binary concepts (1 <= k <= MAX_K), exactly two
    labels with at most MAX_CLASS states in the smaller class, no supervised state and a free
    permutation."""
    if fixed_permutation or not dims or len(dims) > MAX_K or any(int(d) != 2 for d in dims):
        return False
    if pinned is not None and np.asarray(pinned, bool).any():
        return False
    small = _small_class(np.asarray(codes))
    return small is not None and len(small) <= MAX_CLASS


def _groups(k: int, points: np.ndarray) -> dict[int, dict[int, int]]:
    """{group G as a bit set over ``points``: {c: sets C of c outputs whose constants select
    exactly G}}, over every C and every point's values on it."""
    r = len(points)
    sets = np.arange(2**k, dtype=np.int64)
    values = points[None, :] & sets[:, None]  # (2^k, r): each point's values on each C
    group = np.zeros((2**k, r), dtype=np.int64)
    for i in range(r):
        for other in range(r):
            group[:, i] |= (values[:, i] == values[:, other]).astype(np.int64) << other
    sizes = _popcount(sets)
    group.sort(axis=1)
    first = np.ones(group.shape, dtype=bool)
    first[:, 1:] = group[:, 1:] != group[:, :-1]  # each group once per C
    keys = np.stack([group[first], np.broadcast_to(sizes[:, None], group.shape)[first]], axis=1)
    found, counts = np.unique(keys, axis=0, return_counts=True)
    out: dict[int, dict[int, int]] = defaultdict(dict)
    for (mask, c), n in zip(found.tolist(), counts.tolist()):
        out[mask][c] = n
    return out


def _sweep(k: int, group: list[int], seen_other, seen_small, budget: _Budget) -> dict[int, int]:
    """{c: placements of the columns with c G-constant columns left over} for one group (the
    module docstring's sweep)."""
    g = len(group)
    full = (1 << g) - 1
    span = span_of(group)
    z = k - span.bit_count()
    by_class: dict[int, int] = defaultdict(int)
    for j in range(k):
        if span >> j & 1:
            column = sum((s >> j & 1) << n for n, s in enumerate(group))
            by_class[min(column, full & ~column)] += 1
    patterns = [(0, full)] + [(u, full & ~u) for u in sorted(by_class)]  # class 0: G-constant
    start = tuple([z] + [by_class[u] for u in sorted(by_class)])
    # The O' table is one integer, g bits per entry, entry x at bit x * g; the inputs are
    # taken from the top bit down, so the entries whose input p is 0 are the lower half.
    table = 0
    for x in np.asarray(seen_other, dtype=np.int64).tolist():
        table |= full << (x * g)
    small = tuple(sorted({(int(x), full) for x in seen_small}))

    def state_bytes(entries: int) -> int:
        return entries * g // 8 + STATE_OVERHEAD_BYTES

    budget.hold(state_bytes(2**k), f"the observed states (group of {g})")
    level = {(start, table, small): 1}
    ways: dict[int, int] = defaultdict(int)
    for p in reversed(range(k)):
        after = p  # inputs left once p is taken
        half = 2**p  # entries once p is taken
        low = (1 << (half * g)) - 1
        repeat = low // full  # full * repeat = low: one copy of a value per entry
        where = f"input {k - p} of {k} (group of {g})"
        budget.spend(1 + len(level) // STATES_PER_SUBPROBLEM + len(level) * half // 2**14, where)
        # What a move does depends on the input and the columns left, not on the state:
        # spread each pattern over the entries once per input and list the moves once per
        # tuple of columns left (the states of one input share a few hundred such tuples).
        spread = {w: ((full & ~w) * repeat, w * repeat) for pair in patterns for w in pair}
        moves_for: dict[tuple, list] = {}
        closing: dict[tuple, list] = {}
        following: dict[tuple, int] = defaultdict(int)
        held = 0  # new states not yet charged to the memory budget
        for (left, table, seen), weight in level.items():
            zero, one = table & low, table >> (half * g)  # entries whose bit p is 0, 1
            moves = moves_for.get(left)
            if moves is None:
                moves = [(None, 1, left)] if sum(left[1:]) <= after else []
                for n, pair in enumerate(patterns):
                    if left[n]:
                        rest = left[:n] + (left[n] - 1,) + left[n + 1 :]
                        moves.extend((w, left[n], rest) for w in pair)
                moves_for[left] = moves
            # the O* states with bit p dropped, and that bit (the same for every move)
            split = [(x & (half - 1), x >> p & 1, may) for x, may in seen]
            for w, times, rest in moves:
                if w is None:
                    merged = zero | one
                    seen_next = tuple(sorted({(x, may) for x, _, may in split}))
                else:
                    keep_zero, keep_one = spread[w]
                    merged = (zero & keep_zero) | (one & keep_one)
                    seen_now = []
                    for x, bit, may in split:
                        may &= w if bit else full & ~w
                        if not may:
                            break  # an O* state in no fibre: the branch closes
                        seen_now.append((x, may))
                    if len(seen_now) < len(split):
                        continue
                    seen_next = tuple(sorted(set(seen_now)))
                if not merged and not seen_next:
                    # closed: the remaining columns anywhere, any number of G-constant ones
                    terms = closing.get(rest)
                    if terms is None:
                        n_j, n_const = sum(rest[1:]), rest[0]
                        terms = [
                            (
                                n_const - q,
                                math.comb(n_const, q) * math.perm(after, n_j + q) * 2 ** (n_j + q),
                            )
                            for q in range(n_const + 1)
                            if n_j + q <= after
                        ]
                        closing[rest] = terms
                    for c, ways_c in terms:
                        ways[c] += weight * times * ways_c
                    continue
                if merged and not any(rest):
                    continue  # an O' state still in a fibre and nothing left to move it out
                key = (rest, merged, seen_next)
                if key not in following:
                    held += 1
                    if held == HOLD_EVERY:
                        budget.hold(held * state_bytes(half), where)
                        held = 0
                following[key] += weight * times
        budget.hold(held * state_bytes(half), where)
        budget.release(len(level) * state_bytes(2 * half))
        level = following
    for (left, table, _), weight in level.items():  # every key is empty now
        if sum(left[1:]) == 0 and not table:
            ways[left[0]] += weight
    budget.release(len(level) * state_bytes(1))
    return {c: w // math.comb(z, c) for c, w in ways.items()}


def _cube_shape(group: list[int]) -> str | None:
    """How the points of G lie on the outputs where they differ (the span, d outputs): every
    point of that d-cube ("cube", d = 0 included: one point), or three of the four points of
    a square ("square less a point"); None otherwise."""
    span = span_of(group)
    d = span.bit_count()
    if len(group) == 2**d:
        return "cube"
    if d == 2 and len(group) == 3:
        return "square less a point"
    return None


class _Subcubes:
    """The table of the 3^k subcubes and the sums over it that the closed forms read, each
    computed on first use and shared by every group of the task: ``empty`` (E[z] = 1 when
    subcube z holds no state of O') and ``fixed`` (its number of fixed bits), both of shape
    (3,) * k (axis a is bit k - 1 - a; digit 2 = free).  The tables and the square's sums are
    charged to ``budget`` first; the pair spectrum when it is first read."""

    def __init__(self, k: int, seen_other, budget: _Budget) -> None:
        budget.spend(work_floor(k), "the table of the subcubes")
        empty = _empty_subcubes(k, np.asarray(seen_other, dtype=np.int64), budget)
        budget.hold(TABLE_BYTES_PER_SUBCUBE * 3**k, f"the sums over the 3^{k} subcubes")
        fixed = np.zeros((3,) * k, dtype=np.int8)
        for axis in range(k):
            shape = [1] * k
            shape[axis] = 3
            fixed += np.array([1, 1, 0], dtype=np.int8).reshape(shape)
        self.k, self.budget = k, budget
        self.empty, self.fixed = empty.reshape((3,) * k).astype(np.int8), fixed
        self._sums: dict[str, list[int]] = {}

    def held(self) -> int:
        """Bytes the tables hold until the count ends."""
        return TABLE_BYTES_PER_SUBCUBE * 3**self.k + 3**self.k

    def empties(self) -> list[int]:
        """The empty subcubes with a fixed bits, a = 0..k."""
        if "cube" not in self._sums:
            self._sums["cube"] = _by_fixed_bits(self.empty, self.fixed, self.k)
        return self._sums["cube"]

    def squares_less_a_point(self) -> list[int]:
        """Per a, the sum over the empty-fibre subcubes rho with a fixed bits of
        (sum_i S_i)^2 - sum_i S_i^2 (see :func:`_cube_group`)."""
        if "square" not in self._sums:
            k, empty = self.k, self.empty
            total = np.zeros(empty.shape, dtype=np.int16)
            squares = np.zeros(empty.shape, dtype=np.int16)
            for axis in range(k):
                free = [slice(None)] * k
                free[axis] = slice(2, 3)
                both = np.take(empty, [0], axis=axis).astype(np.int16)
                both += np.take(empty, [1], axis=axis)
                total[tuple(free)] += both
                squares[tuple(free)] += both * both
            pairs = total.astype(np.int32) ** 2 - squares
            self._sums["square"] = _by_fixed_bits(pairs, self.fixed, k)
        return self._sums["square"]

    def pair_terms(self, h: int) -> list[int]:
        """Per t, the (R of size t, x, V an h-subset of R) whose subcubes (R, x) and
        (R, x xor V) are both empty (:func:`smallclass.pair_terms_of`); one transform of the
        table, charged on first use, serves every h."""
        if "pairs" not in self._sums:
            self.budget.spend(work_floor(self.k), "the transformed subcube table")
            self.budget.hold(_pair_bytes(self.k), "the transformed subcube table")
            self._sums["pairs"] = pair_spectrum(self.k, self.empty.reshape(-1))
            self.budget.release(_pair_bytes(self.k))
        return pair_terms_of(self.k, self._sums["pairs"], h)


def _by_fixed_bits(values: np.ndarray, fixed: np.ndarray, k: int) -> list[int]:
    """Sum of ``values`` over the subcubes with a fixed bits, for a = 0..k (exact: chunks of
    2^22 summed in float64 stay far below 2^53)."""
    flat_values, flat_fixed = values.reshape(-1), fixed.reshape(-1)
    sums = [0] * (k + 1)
    for lo in range(0, flat_values.size, 2**22):
        part = np.bincount(
            flat_fixed[lo : lo + 2**22],
            weights=flat_values[lo : lo + 2**22].astype(np.float64),
            minlength=k + 1,
        )
        for a in range(k + 1):
            sums[a] += int(round(part[a]))
    return sums


def _cube_group(k: int, group: list[int], subcubes: _Subcubes) -> dict:
    """The sweep's {c: placements} for a group of a cube shape with no observed point of S*,
    in closed form over the subcube table.

    Let D be the d outputs where G differs; the other z = k - d columns are G-constant.  A
    placement puts the d columns of D on d inputs with signs and a of the G-constant columns
    on a set T of inputs, whose signs fix the values rho that a state must show on T to reach
    G (c = z - a columns are left over).  When G covers the d-cube, a state reaches G exactly
    when it agrees with rho, whatever the columns of D do: the placement keeps the labels when
    the subcube rho holds no observed state, and the count is the number of such subcubes with
    a fixed bits times z!/(z - a)! orderings of the G-constant columns and (k - a)!/(k - a - d)!
    2^d placements of D.  When G is a square less its point m (d = 2, outputs j1, j2 fed by
    i1, i2), a state reaches G when it agrees with rho and leaves m on j1 or on j2: both
    subcubes rho + {i1: v1} and rho + {i2: v2} must be empty, with v1, v2 set by the signs, so
    a subcube rho counts (sum_i S_i)^2 - sum_i S_i^2 placements of D, S_i = E(rho + {i: 0}) +
    E(rho + {i: 1}) over its free bits i."""
    d = span_of(group).bit_count()
    z = k - d
    raw: dict[int, int] = defaultdict(int)
    if _cube_shape(group) == "cube":
        for a, n in enumerate(subcubes.empties()):
            if a <= z:
                raw[z - a] += n * math.perm(z, a) * math.perm(k - a, d) * 2**d
    else:
        for a, n in enumerate(subcubes.squares_less_a_point()):
            if a <= z:
                raw[z - a] += n * math.perm(z, a)
    return {c: w // math.comb(z, c) for c, w in raw.items()}


def _pair_group(k: int, group: list[int], subcubes: _Subcubes) -> dict:
    """The sweep's {c: placements} for a group of two points s, t with no observed point of
    S*, in closed form over the pair spectrum of the subcube table.

    The two points differ on the d outputs of their span.  A placement puts a G-constant
    columns on T (values rho) and the d columns of D on a d-set V with signs, so the fibres
    of s and t are the subcubes (R, x) and (R, x xor V), R = T + V, x = rho + phi(s): the
    placement keeps the labels when both are empty.  Each (R, x, V) with both empty is the
    d! bijections D -> V that send s to x on V, times z!/(z - a)! orders of the constant
    columns on T."""
    d = span_of(group).bit_count()
    z = k - d
    both = subcubes.pair_terms(d)
    raw = {z - a: both[a + d] * math.factorial(d) * math.perm(z, a) for a in range(z + 1)}
    return {c: w // math.comb(z, c) for c, w in raw.items()}


def _allowed(k: int, seen_small) -> list[list[int]]:
    """Per axis of the subcube table (axis a: bit k - 1 - a), the digits a subcube w may take
    there and still hold every observed state of S*: any (none observed), the value they share
    or free, or free alone where they differ."""
    allowed = []
    for axis in range(k):
        bits = {int(x) >> (k - 1 - axis) & 1 for x in seen_small}
        allowed.append([0, 1, 2] if not bits else [bits.pop(), 2] if len(bits) == 1 else [2])
    return allowed


def n_cells(k: int, d: int, seen_small=()) -> int:
    """Cells read for span d: 2^d around each subcube w that holds the observed states of S*
    (its digits off V as :func:`_allowed`), for every d-set V of inputs (the coefficient of
    x^(k - d) in prod_a (1 + n_a x), n_a the digits allowed on axis a, times 2^d)."""
    poly = [1]
    for digits in _allowed(k, seen_small):
        poly = [a + len(digits) * b for a, b in zip(poly + [0], [0] + poly)]
    return poly[k - d] * 2**d


def n_folded(k: int, d: int) -> int:
    """Entries :func:`_folded_codes` makes for span d: at fold j a code per subcube of the
    k - j axes left, for each of the C(k - d + j, j) prefixes of the d-sets (their top j
    inputs), then each d-set's 3^(k - d) codes counted."""
    folds = sum(math.comb(k - d + j, j) * 3 ** (k - j) for j in range(1, d + 1))
    return folds + math.comb(k, d) * 3 ** (k - d)


def cells_fit(k: int, d: int, seen_small=()) -> bool:
    """True when a group spanning d outputs is counted over the cells of the d-sets of inputs
    (:func:`_cells_group`): at most MAX_CELLS_SPAN outputs; with no observed point of S* and
    at most MAX_FOLDED_SPAN outputs, at most MAX_FOLDED folded entries (:func:`n_folded`);
    otherwise at most MAX_CELLS cells with CELLS_PER_SET more for each d-set, and with
    observed points k at most MAX_OBSERVED_K."""
    if d > MAX_CELLS_SPAN:
        return False
    if len(seen_small) == 0 and d <= MAX_FOLDED_SPAN:
        return n_folded(k, d) <= MAX_FOLDED
    if len(seen_small) and k > MAX_OBSERVED_K:
        return False
    return n_cells(k, d, seen_small) + math.comb(k, d) * CELLS_PER_SET <= MAX_CELLS


def _code_dtype(bits: int):
    """The narrowest unsigned integer type that holds a code of ``bits`` cells."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if bits <= np.iinfo(dtype).bits:
            return dtype
    return np.uint64


def _fold_bytes(k: int) -> int:
    """Bytes the folds in progress hold at most: the first level's 3^(k - 1) codes of one byte
    with its two slices widened, the deeper levels (a third each, at most 8 bytes a code)."""
    return 3 ** (k - 1) * 4


def _folded_codes(empty: np.ndarray, k: int, d: int):
    """For every d-set V of inputs: (V's axes, the codes A of the subcubes w free on V), one
    code per w (the other k - d axes in order, every digit), bit p set when the cell
    w + (V <- p) is empty, V's first axis the top bit of p, as :func:`_cell_codes` reads
    them.  A fold of axis i joins its digit-0 and digit-1 slices into a code twice as wide
    and drops the axis; the d-sets are taken depth first from their last input, so the folds
    of a prefix are shared (k = 14, span 3: 1 s, where the cells read one by one took 22 s).
    A fold in progress holds at most one array per level, each a third of the one above
    (:func:`_fold_bytes`)."""

    def fold(codes: np.ndarray, axes: int, axis: int, folded: int) -> np.ndarray:
        three = codes.reshape(3**axis, 3, 3 ** (axes - axis - 1))
        wide = _code_dtype(2 ** (folded + 1))
        out = three[:, 0, :].astype(wide)
        out |= three[:, 1, :].astype(wide) << wide(2**folded)
        return out.reshape(-1)

    def below(codes: np.ndarray, axes: int, inputs: tuple, top: int):
        folded = len(inputs)
        if folded == d:
            yield inputs, codes
            return
        for axis in range(d - folded - 1, top):  # leave room for the inputs still to fold
            yield from below(fold(codes, axes, axis, folded), axes - 1, (axis, *inputs), axis)

    yield from below(empty.reshape(-1), k, (), k)


def _cell_codes(k: int, d: int, subcubes: _Subcubes, seen_small, budget: _Budget) -> tuple:
    """(codes, needs, by_fixed) over the pairs (w, V): V a d-set of inputs, w a subcube free on
    V that holds every observed state of S*.  Code A has bit p set when the cell w + (V <- p)
    holds no state of O' (p's bits are V's inputs, the top input in its top bit); ``needs`` B
    has bit p set when an observed state of S* lies in cell p; ``by_fixed[n, a]`` counts the
    pairs with the n-th distinct (A, B) and a fixed bits in w (read from ``fixed``, the fixed
    digits of each subcube, at the cell p = 0, less V's d).  Charged to ``budget`` first."""
    if len(seen_small) == 0:
        return _unobserved_cell_codes(k, d, subcubes, budget)
    empty, fixed = subcubes.empty, subcubes.fixed
    cells = n_cells(k, d, seen_small)
    pairs = cells // 2**d
    budget.spend(1 + cells // CELLS_PER_UNIT, f"the cells of the {d}-sets of inputs")
    budget.hold(pairs * CODE_BYTES, f"the codes of the cells of the {d}-sets of inputs")
    allowed = _allowed(k, seen_small)
    as_slice = {  # an observed state of S* fixes or frees every axis (never all three digits)
        (1, 2): slice(1, 3),
        (0, 2): slice(0, 3, 2),
        (2,): slice(2, 3),
    }
    seen = np.asarray(seen_small, dtype=np.int64).tolist()
    codes, needs, counts = [], [], []
    for inputs in itertools.combinations(range(k), d):
        # the cells of V (digits 0, 1) around the subcubes w (the digits allowed elsewhere)
        index = [
            slice(0, 2) if axis in inputs else as_slice[tuple(allowed[axis])] for axis in range(k)
        ]
        cube = np.moveaxis(empty[tuple(index)], inputs, range(k - d, k)).reshape(-1, 2**d)
        packed = np.packbits(cube.astype(np.uint8), axis=1, bitorder="little")
        code = packed[:, 0].astype(np.uint64)
        for byte in range(1, packed.shape[1]):
            code |= packed[:, byte].astype(np.uint64) << np.uint64(8 * byte)
        codes.append(code)
        need = 0
        for x in seen:
            need |= 1 << sum(
                (x >> (k - 1 - axis) & 1) << (d - 1 - i) for i, axis in enumerate(inputs)
            )
        needs.append(need)
        at_zero = [0 if axis in inputs else index[axis] for axis in range(k)]
        counts.append(fixed[tuple(at_zero)].reshape(-1).astype(np.int64) - d)
    code, count = np.concatenate(codes), np.concatenate(counts)
    # few pairs (w holds the observed states of S*): the need of each V beside its code
    need = np.repeat(np.array(needs, dtype=np.uint64), [len(c) for c in codes])
    distinct, which = np.unique(np.stack([code, need], axis=1), axis=0, return_inverse=True)
    codes_of, needs_of = distinct[:, 0].copy(), distinct[:, 1].copy()
    budget.hold(len(codes_of) * (k + 3) * 8, f"the counts of the codes of span {d}")
    by_fixed = np.bincount(
        which.reshape(-1) * (k + 1) + count, minlength=len(codes_of) * (k + 1)
    ).reshape(len(codes_of), k + 1)
    budget.release(pairs * CODE_BYTES)
    return codes_of, needs_of, by_fixed


def _unobserved_cell_codes(k: int, d: int, subcubes: _Subcubes, budget: _Budget) -> tuple:
    """:func:`_cell_codes` with no observed point of S*: every subcube w, so the codes are
    folded out of the table (:func:`_folded_codes`) and counted by their fixed bits, the
    same for every d-set (the subcube table's own count on the axes left).  Up to span 4 a
    code is at most 16 bits and counted in place; wider codes other than the all-empty one
    are kept (charged as they are) and sorted."""
    budget.spend(1 + n_folded(k, d) // FOLDED_PER_UNIT, f"the folded codes of the {d}-sets")
    budget.hold(_fold_bytes(k), f"the folded codes of the {d}-sets")
    fixed_left = subcubes.fixed[(2,) * d].reshape(-1).astype(np.int64)  # free axes count 0
    bins = k + 1
    if d <= 4:
        per_code = np.zeros(2**2**d * bins, dtype=np.int64)
        # a chunk of keys and its concatenated copy, int64 each
        chunk = min(BINCOUNT_CHUNK + 3 ** (k - d), math.comb(k, d) * 3 ** (k - d)) * 8 * 2
        budget.hold(per_code.nbytes + chunk, f"the codes of the cells of the {d}-sets of inputs")
        keys: list[np.ndarray] = []
        held = 0
        for _, codes in _folded_codes(subcubes.empty, k, d):
            keys.append(codes.astype(np.int64) * bins + fixed_left)
            held += len(codes)
            if held >= BINCOUNT_CHUNK:
                per_code += np.bincount(np.concatenate(keys), minlength=per_code.size)
                keys, held = [], 0
        if keys:
            per_code += np.bincount(np.concatenate(keys), minlength=per_code.size)
        per_code = per_code.reshape(-1, bins)
        codes_of = np.flatnonzero(per_code.any(axis=1))
        budget.release(per_code.nbytes + chunk + _fold_bytes(k))
        budget.hold(len(codes_of) * (k + 3) * 8, f"the counts of the codes of span {d}")
        return codes_of.astype(np.uint64), np.zeros(len(codes_of), np.uint64), per_code[codes_of]
    every = 2**2**d - 1  # all cells empty: most codes at sparse supports, kept out of the sort
    all_empty = np.zeros(bins, dtype=np.int64)
    kept_codes, kept_fixed = [], []
    where = f"the codes of the cells of the {d}-sets of inputs"
    every_code = _code_dtype(2**d)(every)
    for _, codes in _folded_codes(subcubes.empty, k, d):
        some = codes != every_code
        all_empty += np.bincount(fixed_left[~some], minlength=bins)
        budget.hold(int(some.sum()) * CODE_BYTES, where)
        kept_codes.append(codes[some].astype(np.uint64))
        kept_fixed.append(fixed_left[some])
    code, count = np.concatenate(kept_codes), np.concatenate(kept_fixed)
    codes_of, which = np.unique(code, return_inverse=True)
    by_fixed = np.bincount(
        which.reshape(-1) * bins + count, minlength=len(codes_of) * bins
    ).reshape(len(codes_of), bins)
    budget.release(len(code) * CODE_BYTES + _fold_bytes(k))
    codes_of = np.append(codes_of, np.uint64(every))
    by_fixed = np.vstack([by_fixed, all_empty])
    budget.hold(len(codes_of) * (k + 3) * 8, f"the counts of the codes of span {d}")
    return codes_of, np.zeros(len(codes_of), dtype=np.uint64), by_fixed


def _translates(masks: np.ndarray, d: int) -> np.ndarray:
    """Column q: each mask of points of the d-cube moved by xor with q (bit p set when bit
    p xor q of the mask is), built one input at a time by swapping the halves of each block."""
    out = np.empty((len(masks), 2**d), dtype=np.uint64)
    out[:, 0] = masks
    for i in range(d):
        shift, low = np.uint64(2**i), np.uint64(_HALVES[i])
        half = out[:, : 2**i]
        out[:, 2**i : 2 ** (i + 1)] = ((half >> shift) & low) | ((half & low) << shift)
    return out


_HALVES = [  # the bits p of a 64-bit mask whose bit i is 0
    0x5555555555555555,
    0x3333333333333333,
    0x0F0F0F0F0F0F0F0F,
    0x00FF00FF00FF00FF,
    0x0000FFFF0000FFFF,
    0x00000000FFFFFFFF,
]


def _permuted(group: list[int], span: int) -> tuple[np.ndarray, np.ndarray]:
    """The points of G on the outputs of its span, moved by each of the d! bijections of those
    outputs onto the coordinates of the d-cube, one row per class of moved sets equal up to a
    translation (a sign choice), and how many bijections fall in each class."""
    outputs = [j for j in range(span.bit_length()) if span >> j & 1]
    d = len(outputs)
    points = np.array([[s >> j & 1 for j in outputs] for s in group], dtype=np.uint64)
    weights = np.uint64(1) << np.arange(d, dtype=np.uint64)
    orders = itertools.permutations(range(d))
    moved = np.array([(points[:, list(order)] * weights).sum(axis=1) for order in orders])
    moved = moved.astype(np.uint64).reshape(-1, len(group))
    masks = np.bitwise_or.reduce(np.uint64(1) << moved, axis=1)
    _, first, counts = np.unique(
        _translates(masks, d).min(axis=1), return_index=True, return_counts=True
    )
    return moved[first].astype(np.intp), counts.astype(np.int64)


def _cells_group(k: int, group: list[int], codes, needs, by_fixed, budget: _Budget) -> dict:
    """The sweep's {c: placements} for one group, over the cells of the d-sets of inputs
    (d = the span of G; the module docstring's count over the cells).

    A signed bijection is a bijection pi of the outputs onto the coordinates with a sign
    vector v: phi(s) = pi(s) xor v.  So phi(G) <= A exactly when v lies in every translate
    A xor pi(s), s in G, and B <= phi(G) exactly when v lies in every translate pi(G) xor b,
    b in B: F(A, B) is, over pi, the number of v in the intersection.  The bijections whose
    moved sets are translates of each other give the same number, so one of each class
    (at most d! of them) is tested."""
    span = span_of(group)
    d = span.bit_count()
    z = k - d
    moved, times = _permuted(group, span)
    wide = np.flatnonzero(np.bitwise_count(codes) >= len(group))  # else F = 0
    budget.spend(
        1 + len(wide) * moved.size // ANDS_PER_UNIT, f"the images of a group of {len(group)}"
    )
    # B's side, per class and distinct B: the signs v with B <= pi(G) xor v
    class_masks = np.bitwise_or.reduce(np.uint64(1) << moved.astype(np.uint64), axis=1)
    class_moves = _translates(class_masks, d)
    need_values, need_of = np.unique(needs[wide], return_inverse=True)
    signs_b = np.full((len(need_values), len(moved)), np.uint64(2**2**d - 1), dtype=np.uint64)
    for n, need in enumerate(need_values.tolist()):
        for b in range(2**d):
            if need >> b & 1:
                signs_b[n] &= class_moves[:, b]
    fits = np.zeros(len(codes), dtype=np.int64)  # F(A, B)
    # codes tested against every class at once: their translates, the gathered points, the
    # signs and their counts stay within IMAGE_CHUNK entries each
    step = max(1, IMAGE_CHUNK // max(moved.size, 2**d))
    budget.hold(IMAGE_CHUNK * 8 * 4, f"the images of a group of {len(group)}")
    for lo in range(0, len(wide), step):
        part = wide[lo : lo + step]
        moves = _translates(codes[part], d)  # (codes, 2^d): A xor q for every q
        signs = np.bitwise_and.reduce(moves[:, moved], axis=2)  # (codes, classes)
        signs &= signs_b[need_of.reshape(-1)[lo : lo + step]]
        fits[part] = np.bitwise_count(signs).astype(np.int64) @ times
    budget.release(IMAGE_CHUNK * 8 * 4)
    by_a = (fits[:, None] * by_fixed).sum(axis=0).tolist()
    raw = {z - a: by_a[a] * math.perm(z, a) for a in range(z + 1)}
    return {c: w // math.comb(z, c) for c, w in raw.items()}


def _members(points: np.ndarray, mask: int) -> list[int]:
    """The points of S* in the group whose bit set over ``points`` is ``mask``."""
    return [int(points[i]) for i in range(len(points)) if mask >> i & 1]


def how_counted(k: int, group: list[int], seen_small) -> str:
    """How one group is counted: ``"cube"`` or ``"pair"`` in closed form (no observed point
    of S*; :func:`_cube_group`, :func:`_pair_group`), ``"cells"`` over the cells of the d-sets
    of inputs (:func:`cells_fit`), else ``"sweep"``."""
    if len(seen_small) == 0 and _cube_shape(group) is not None:
        return "cube"
    if len(seen_small) == 0 and len(group) == 2:
        return "pair"
    return "cells" if cells_fit(k, span_of(group).bit_count(), seen_small) else "sweep"


def plan(codes, k: int, observed) -> list[tuple[str, int, int]]:
    """(how it is counted, points, span) of every group the count would take, without counting
    (call only when :func:`applies`): the groups left to the sweep are the ones whose time
    grows fastest with k and the support (bench/counting_sparse.py ``--plan``)."""
    points, seen_small, _ = observed_by_class(codes, observed)
    found = []
    for mask in _groups(k, points):
        group = _members(points, mask)
        found.append((how_counted(k, group, seen_small), len(group), span_of(group).bit_count()))
    return sorted(found)


def disentangled_input_sweep(codes, k: int, observed, *, budget: _Budget) -> SearchResult:
    """N_opt (pairs) and n_distinct of the disentangled family by the sweep over the inputs
    (see the module docstring); ``observed`` are state indices, ``codes`` the label of every
    state.  Call only when :func:`applies`.

    >>> from nesybench.logic import all_states
    >>> from nesybench.counting.search import _Budget, disentangled_search
    >>> codes = all_states(4).prod(axis=1)              # x1 & x2 & x3 & x4: one model
    >>> seen = np.array([0, 3, 9])                      # none of them the model
    >>> r = disentangled_input_sweep(codes, 4, seen, budget=_Budget(None, "count", "o"))
    >>> r.n_pairs == disentangled_search(codes, (2,) * 4, seen).n_pairs
    True
    """
    points, seen_small, seen_other = observed_by_class(codes, observed)
    budget.hold(2**k * len(points) * 8 * 4, "the table of groups")
    groups = _groups(k, points)
    budget.release(2**k * len(points) * 8 * 4)
    pairs = distinct = 0
    if len(seen_small) == 0:  # constants that select no point of S*: the image avoids it
        for c in range(k + 1):
            selecting = sum(by_c.get(c, 0) for by_c in groups.values())
            n = math.comb(k, c) * 2**c - selecting
            placements = math.perm(k, k - c) * 2 ** (k - c)
            distinct += n * placements
            pairs += n * placements * math.factorial(c)
    subcubes: _Subcubes | None = None  # built once for every group that reads it
    cells: dict[int, tuple] = {}  # the cell codes per span d, shared by the groups of that span
    for mask, by_c in groups.items():
        group = _members(points, mask)
        how = how_counted(k, group, seen_small)
        if how == "sweep":
            ways = _sweep(k, group, seen_other, seen_small, budget)
        else:
            if subcubes is None:
                subcubes = _Subcubes(k, seen_other, budget)
            if how == "cube":
                ways = _cube_group(k, group, subcubes)
            elif how == "pair":
                ways = _pair_group(k, group, subcubes)
            else:
                d = span_of(group).bit_count()
                if d not in cells:
                    cells[d] = _cell_codes(k, d, subcubes, seen_small, budget)
                ways = _cells_group(k, group, *cells[d], budget)
        for c, n in by_c.items():
            distinct += n * ways.get(c, 0)
            pairs += n * ways.get(c, 0) * math.factorial(c)
    if subcubes is not None:
        budget.release(subcubes.held())
    budget.release(sum(len(found) * (k + 3) * 8 for found, *_ in cells.values()))
    return SearchResult(pairs, distinct, budget.used)
