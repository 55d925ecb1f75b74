"""Exact disentangled counts of binary tasks counted from the small label class.

Near the satisfiability threshold a random 3-CNF has a handful of models, so
one label class S* is tiny (1 to a few dozen of the 2^k states) while the
observed support O is anything from 1% to all of the states.  The search over
(pi(j), f_j) (:mod:`nesybench.counting.search`) carries every observed state
through every output and its sub-problems stop merging on such supports; this
count works from S* instead.  It applies to binary concepts, knowledge with at
most two labels and no supervised state; the dispatcher in
:func:`nesybench.counting.optima.count_disentangled` chooses it then (see
:func:`applies`).

The map as a partial injection
------------------------------

States are k-bit masks (bit b is concept k - 1 - b, as in ``all_states``).  A
pair (pi, f) with non-constant outputs J and constant values c induces

    alpha(g)_j = g_pi(j) xor e_j  (j in J),     alpha(g)_j = c_j  (j not in J).

Write iota for the partial injection input pi(j) -> output j (defined on the
sources T = pi(J)).  The k - |T| constant outputs take the unused sources in
any order, so each map alpha is induced by (k - |T|)! pairs and N_opt (pairs)
weighs every map by that factor, n_distinct by 1.

Let O* = O & S* and O' = O - S* (the observed states of the other label).  The
map keeps every label exactly when alpha(g) is in S* for g in O* and outside
S* for g in O'.

Anchoring (O* not empty)
------------------------

Fix one anchor o in O*.  Its image s = alpha(o) is a point of S*, and given s
the signs and constants are forced: e_j = s_j xor o_pi(j), c_j = s_j.  So the
maps with alpha(o) = s correspond one to one to the partial injections iota,
and for every state g, with D(g) = g xor o the inputs where g differs from o,

    alpha(g) = s xor iota(D(g) & T),

so alpha(g) is in S* exactly when iota(D(g) & T) is one of the *supports*
Supp_s = {s xor s' : s' in S*} (each a set of outputs; the empty set for s).
Every support lies in U, the outputs where the points of S* differ (the span
of S*); the other outputs are *rigid* (every point of S* agrees there).

Split iota into kappa, the inputs that feed the outputs of U (a partial
injection U -> inputs, image I), and L = T - I, the inputs that feed rigid
outputs: (k - u)_|L| ways (falling factorial, u = |U|), all counted alike
because no support contains a rigid output.  A support S is in the image of
alpha exactly when every output of S is fed (S within the domain of kappa);
its preimage is then the fibre

    alpha^-1(s xor S) = {g : g agrees with x_S = o xor kappa(S) on T},

a subcube of the input space.  The two conditions become:

* every realized support's fibre holds no state of O' (for S = {} this is the
  anchor's own fibre: T meets every D(b), b in O');
* every o' in O* lies in a realized fibre: o' differs from o on T only
  inside I, and kappa^-1(D(o')) is a support.

The count is a search over kappa (outputs of U one at a time: a constant or
an unused input), carrying

* for each o' in O* the set of supports still consistent with its pullback
  (a bit set; an empty set closes the branch), and
* the source sets T still possible: those whose anchor fibre is empty of O'
  (listed once), that contain I, and on which each support realized so far
  has an empty fibre (an empty list closes the branch).

At a leaf the remaining sets T with (T - I) disjoint from every D(o') count,
each with weight (k - u)_|T - I| (k - |T|)! (pairs) or (k - u)_|T - I|
(maps).  Summing over s in S* gives N_opt: each map with alpha(o) in S* is
counted once, and every map keeping the labels has alpha(o) in S*.

Fibres are looked up in one table over the 3^k subcubes (``_empty_subcubes``:
subcube z holds no state of O'), built by the recursion emp(z with * at i) =
emp(z, i = 0) and emp(z, i = 1).

No observed state in S* (O* empty)
----------------------------------

With |S*| <= 2 this is closed form.  S* empty: every pair keeps the labels.
S* = {p}: a map keeps them unless p is in its image and p's fibre holds an
observed state.  For a source set T (|T| = t) there are C(k, t) output sets
J; the constants avoid p in 2^(k-t) - 1 of their choices (then all t! 2^t
bijections with signs count) and match p in one (then the t! bijections
sending a point q of the T-cube to p count when q's fibre is empty).  So

    N_opt = sum_T k! (2^k - 2^t + G(T)),
    n_distinct = sum_T C(k, t) t! ((2^(k-t) - 1) 2^t + G(T)),

with G(T) the number of points of the T-cube whose fibre holds no observed
state, summed from the subcube table.  (With the permutation fixed, J = T and
the bijection is the identity: both counts are sum_T (2^(k-t) - 1) 2^t + G(T).)
S* = {p, q} (h = |p xor q| outputs apart, Delta those outputs): the constants
put both points in the image only when J contains Delta (C(k - h, t - h) of the
output sets J); otherwise at most one of them, each counted as above.  With
both in the image, a bijection J -> T sends Delta onto some h-set V of T (h!
(t - h)! bijections per V) and the signs pick q's pullback x along with p's,
x xor V: the pair counts when both fibres are empty.  The number of such
(V, x) over every T of size t is the coefficient of y^t w^h in

    sum over subcubes z, V within the fixed bits of z:
        E(z) E(z xor V) y^|fixed bits| w^|V|
      = sum_tau E^(tau)^2 prod_b lambda(tau_b),

where E^ is the table E of empty subcubes transformed along every bit,
(E(*), E(0) + E(1), E(0) - E(1)) =: (A, S, D), and lambda(A) = 1,
lambda(S) = y (1 + w) / 2, lambda(D) = y (1 - w) / 2 (the 2 x 2 kernel
[[y, yw], [yw, y]] on the fixed values has eigenvectors (1, 1) and (1, -1)).
So one transform of the table and the squares summed by their numbers of S and D
give it (``_pair_terms``).  With the permutation fixed V is Delta itself:
lambda(A) = 0 on Delta, lambda(S) = 1/2, lambda(D) = -1/2 there, and 1, 1/2, 1/2
elsewhere.  With three or more points in S* and none observed the fibres
interact beyond pairs (a product of three tables has no such kernel);
:func:`applies` declines and the search counts.

Fixed permutation: iota(i) = i, so kappa may only feed output j from input j,
the inputs of L must be rigid coordinates and every weight is 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .search import SearchResult, _Budget

__all__ = [
    "applies",
    "closed_form",
    "disentangled_small_class",
    "memory_estimate",
    "narrow",
    "span_of",
    "two_point_closed_form",
    "work_floor",
    "MAX_K",
]

MAX_K = 16  # the subcube table has 3^k entries (43 MB at k = 16)
MAX_CLASS = 64  # points of S*: one anchored search per point (parity's 2^(k-1) would be slow)


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.astype(np.uint64)).astype(np.int64)


def span_of(points) -> int:
    """The outputs where the points differ, as a bit set (0 for one point or none)."""
    points = [int(p) for p in points]
    span = 0
    for p in points:
        span |= p ^ points[0]
    return span


def _classes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(the states of the smaller label class S*, its complement's mask), or None with more than
    two labels."""
    values, counts = np.unique(codes, return_counts=True)
    if len(values) > 2:
        return None
    if len(values) == 1:
        return np.zeros(0, dtype=np.int64), np.ones(len(codes), bool)
    small = values[int(np.argmin(counts))]  # ties: the first label
    in_small = codes == small
    return np.flatnonzero(in_small).astype(np.int64), ~in_small


def observed_by_class(codes, observed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S*, the observed states in S*, the other observed states), each sorted; two labels at
    most."""
    codes = np.asarray(codes)
    observed = np.unique(np.asarray(observed, dtype=np.int64))
    small, _ = _classes(codes)
    in_small = np.zeros(len(codes), bool)
    in_small[small] = True
    return small, observed[in_small[observed]], observed[~in_small[observed]]


def applies(codes, dims: Sequence[int], observed, pinned) -> bool:
    """True when this count handles the task: binary concepts (k <= 16), at most two labels, no
    supervised state, and either an observed state in the smaller class or at most two states in
    it."""
    if any(int(d) != 2 for d in dims) or len(dims) > MAX_K or len(dims) == 0:
        return False
    if pinned is not None and np.asarray(pinned, bool).any():
        return False
    found = _classes(np.asarray(codes))
    if found is None:
        return False
    small, _ = found
    if len(small) > MAX_CLASS:
        return False
    if len(small) <= 2:
        return True
    return bool(np.isin(np.asarray(observed, dtype=np.int64), small).any())


def memory_estimate(k: int, two_points: bool = False) -> int:
    """Bytes the count holds at its peak: the subcube table while it is built (3 bytes per
    subcube), the fibre counts (with the transformed table and its keys for the two-point
    closed form, ``two_points``) or the stack of source sets (one filtered copy per output)."""
    fibres = 3**k * 2 + 2**k * 16 + (_pair_bytes(k) if two_points else 0)
    return 3**k * 3 + max(fibres, 2**k * 8 * 4 * (k + 2))


def closed_form(codes, observed) -> bool:
    """No observed state lies in S*: where :func:`applies`, the count is in closed form."""
    return len(observed_by_class(codes, observed)[1]) == 0


def two_point_closed_form(codes, observed) -> bool:
    """S* has two points and neither is observed: the closed form that transforms the table."""
    small, seen_small, _ = observed_by_class(codes, observed)
    return len(small) == 2 and len(seen_small) == 0


def _pair_bytes(k: int) -> int:
    """The two-point closed form: the transformed table (int32) with one bit's step of
    temporaries (three thirds of it), the keys (int16) and one chunk of squares."""
    return 3**k * 4 * 2 + 3**k * 2 + min(_CHUNK, 3**k) * 8 * 4


def narrow(codes, observed) -> bool:
    """The count is expected to be cheap: the closed form (no observed state in S*), or a span
    of S* over at most half the outputs.  The anchored search branches on the outputs of the
    span and a branch closes only once a whole support is decided, so a wide span (k = 12
    random 3-CNF: six models over 11 of 12 outputs, 7,000 sub-problems at full support and
    past 150,000 at half) costs more than the search, a narrow one (k = 14: eleven models over
    6 outputs, 160 to 1,400) far less."""
    if closed_form(codes, observed):
        return True
    small, _ = _classes(np.asarray(codes))
    k = int(len(codes)).bit_length() - 1
    return span_of(small).bit_count() <= k // 2


def work_floor(k: int) -> int:
    """Sub-problems the count spends whatever the task: the closed form's charge for the 3^k
    subcube table (the anchored search spends at least one per output on top)."""
    return 1 + 3**k // 4096


# ---- the table of empty subcubes -------------------------------------------------


def _empty_subcubes(k: int, occupied: np.ndarray, budget: _Budget) -> np.ndarray:
    """``emp[z]``: subcube z (ternary digits: 0, 1 or 2 = free; digit b has weight 3^b and
    belongs to bit b) holds none of the ``occupied`` states.  Charged to ``budget`` first."""
    budget.hold(3**k * 3, f"the table of the 3^{k} subcubes")
    emp = np.ones(2**k, dtype=bool)
    emp[occupied] = False
    emp = emp.reshape((2,) * k)  # axis a is bit k - 1 - a, as the state index
    for axis in range(k):
        both = np.take(emp, [0], axis=axis) & np.take(emp, [1], axis=axis)
        emp = np.concatenate([emp, both], axis=axis)
    budget.release(3**k * 2)
    return emp.reshape(-1)


class _Ternary:
    """Index of the subcube (fixed bits T, values x) in the table: sum_b 3^b (x_b if b in T
    else 2), by one look-up table per byte of (T, x)."""

    def __init__(self, k: int) -> None:
        self.tables = []
        t = np.arange(256)[:, None]
        x = np.arange(256)[None, :]
        for lo in range(0, k, 8):
            table = np.zeros((256, 256), dtype=np.int64)
            for b in range(lo, min(lo + 8, k)):
                table += 3**b * np.where((t >> (b - lo)) & 1 == 1, (x >> (b - lo)) & 1, 2)
            self.tables.append(table)

    def __call__(self, fixed: np.ndarray, x) -> np.ndarray:
        out = np.zeros(len(fixed), dtype=np.int64)
        x = np.asarray(x, dtype=np.int64)
        for n, table in enumerate(self.tables):
            out += table[(fixed >> (8 * n)) & 255, (x >> (8 * n)) & 255]
        return out


# ---- the count -------------------------------------------------------------------


def disentangled_small_class(
    codes,
    k: int,
    observed,
    *,
    fixed_permutation: bool = False,
    budget: _Budget,
) -> SearchResult:
    """N_opt (pairs) and n_distinct of the disentangled family, counted from the small label
    class (see the module docstring); ``observed`` are state indices, ``codes`` the label of
    every state.  Call only when :func:`applies`.

    >>> from nesybench.logic import all_states
    >>> from nesybench.counting.search import _Budget, disentangled_search
    >>> codes = all_states(4).prod(axis=1)              # x1 & x2 & x3 & x4: one model
    >>> seen = np.array([0, 3, 15])
    >>> r = disentangled_small_class(codes, 4, seen, budget=_Budget(None, "count", "o"))
    >>> r.n_pairs == disentangled_search(codes, (2,) * 4, seen).n_pairs
    True
    """
    small, seen_small, seen_other = observed_by_class(codes, observed)
    emp = _empty_subcubes(k, seen_other, budget)
    ternary = _Ternary(k)
    if len(seen_small) == 0:
        return _closed_form(k, small, emp, fixed_permutation, budget)
    return _anchored(k, small, seen_small, emp, ternary, fixed_permutation, budget)


def _fibre_counts(k: int, emp: np.ndarray) -> np.ndarray:
    """G(T) for every source set T: points of the T-cube whose fibre is empty (the table
    summed over the values of the fixed bits)."""
    arr = emp.reshape((3,) * k).astype(np.uint8)
    for axis in range(k):
        if axis == 7:  # counts pass 255 after eight sums
            arr = arr.astype(np.int64)
        fixed = np.take(arr, [0], axis=axis) + np.take(arr, [1], axis=axis)
        arr = np.concatenate([fixed, np.take(arr, [2], axis=axis)], axis=axis)
    free = np.arange(2**k)  # axis a, index 1 = free: bit k - 1 - a of the flat index
    out = np.zeros(2**k, dtype=np.int64)
    out[free ^ (2**k - 1)] = arr.reshape(-1)
    return out


_CHUNK = 2**22  # squares summed per pass (exact: see _pair_terms)


def _transformed(k: int, emp: np.ndarray) -> np.ndarray:
    """The table of empty subcubes with every bit's (0, 1, free) taken to (free, 0 + 1, 0 - 1)
    (A, S, D of the module docstring), as int32 (|entry| <= 2^k)."""
    arr = emp.astype(np.int32)
    for b in range(k):
        a = arr.reshape(3 ** (k - 1 - b), 3, 3**b)  # the middle axis is digit b
        zero = a[:, 0].copy()
        total, diff = zero + a[:, 1], zero - a[:, 1]
        a[:, 0] = a[:, 2]
        a[:, 1] = total
        a[:, 2] = diff
    return arr


def _keys(k: int, codes_of_bit) -> np.ndarray:
    """Per transformed entry, the sum over its bits b of ``codes_of_bit(b)[letter]`` (letters
    A, S, D), in the table's order (digit b has weight 3^b)."""
    key = np.zeros(1, dtype=np.int16)
    for b in range(k):
        key = np.add.outer(np.asarray(codes_of_bit(b), dtype=np.int16), key).reshape(-1)
    return key


def _squares_by_key(values: np.ndarray, key: np.ndarray, n_keys: int) -> list[int]:
    """Exact sums of values^2 per key (keys >= n_keys dropped).  bincount sums in float64, so
    each square (at most 4^k <= 2^32) is split at bit 20, so that a chunk's sums stay exact."""
    out = [0] * n_keys
    for lo in range(0, len(values), _CHUNK):
        sq = values[lo : lo + _CHUNK].astype(np.int64) ** 2
        kk = key[lo : lo + _CHUNK].astype(np.int64)
        keep = kk < n_keys
        sq, kk = sq[keep], kk[keep]
        high = np.bincount(kk, weights=(sq >> 20).astype(np.float64), minlength=n_keys)
        low = np.bincount(kk, weights=(sq & (2**20 - 1)).astype(np.float64), minlength=n_keys)
        for n in range(n_keys):
            out[n] += (int(high[n]) << 20) + int(low[n])
    return out


def _pair_terms(k: int, emp: np.ndarray, delta: int, fixed_permutation: bool) -> list[int]:
    """Per t, the pairs (T of size t, x) whose two fibres (T, x) and (T, x xor V) are empty:
    V over the h-subsets of T (free permutation), or V = delta (fixed, T containing delta);
    h = |delta| (the module docstring)."""
    h = bin(delta).count("1")
    if not fixed_permutation:
        return pair_terms_of(k, pair_spectrum(k, emp), h)
    values = _transformed(k, emp)
    # key t (k + 1) + (D letters inside delta); A inside delta weighs 0: keyed out of range
    out_of_range = (k + 1) ** 2
    key = _keys(
        k,
        lambda b: (out_of_range, k + 1, k + 2) if delta >> b & 1 else (0, k + 1, k + 1),
    )
    sums = _squares_by_key(values, key, (k + 1) ** 2)
    terms = []
    for t in range(k + 1):
        signed = sum((-1) ** d * sums[t * (k + 1) + d] for d in range(k + 1))
        terms.append(_exact_div(signed, 2**t))
    return terms


def pair_spectrum(k: int, emp: np.ndarray) -> list[int]:
    """The squares of the transformed table summed by their numbers of S and D (entry
    n_s (k + 1) + n_d): every h's pair terms with a free permutation are read from them
    (:func:`pair_terms_of`), so one transform serves every distance."""
    key = _keys(k, lambda b: (0, k + 1, 1))
    return _squares_by_key(_transformed(k, emp), key, (k + 1) ** 2)


def pair_terms_of(k: int, phi: list[int], h: int) -> list[int]:
    """Per t, the (T of size t, x, V an h-subset of T) whose fibres (T, x) and (T, x xor V)
    are both empty, from :func:`pair_spectrum`'s sums ``phi`` (free permutation)."""
    terms = []
    for t in range(k + 1):
        total = 0
        for n_s in range(t + 1):
            n_d = t - n_s
            # the coefficient of w^h in (1 + w)^n_s (1 - w)^n_d
            coef = sum(
                math.comb(n_s, i) * math.comb(n_d, h - i) * (-1) ** (h - i)
                for i in range(max(0, h - n_d), min(h, n_s) + 1)
            )
            total += phi[n_s * (k + 1) + n_d] * coef
        terms.append(_exact_div(total, 2**t))
    return terms


def _exact_div(n: int, d: int) -> int:
    q, r = divmod(n, d)
    if r:
        raise AssertionError(f"two-point closed form: {n} is not a multiple of {d}")
    return q


def _closed_form(k, small, emp, fixed_permutation, budget) -> SearchResult:
    """No observed state in S*, |S*| <= 2 (the formulas of the module docstring)."""
    budget.spend(work_floor(k), "the closed form")
    sizes = _popcount(np.arange(2**k))
    by_t = np.bincount(sizes, minlength=k + 1).tolist()
    if len(small):
        budget.hold(3**k * 2 + 2**k * 16, "the fibre counts")
        fibres = _fibre_counts(k, emp)
        g_t = [int(fibres[sizes == t].sum()) for t in range(k + 1)]
    else:
        g_t = [0] * (k + 1)
    if len(small) == 2:
        budget.hold(_pair_bytes(k), "the transformed subcube table")
        delta = int(small[0]) ^ int(small[1])
        inside = (np.arange(2**k) & delta) == delta  # source sets T containing delta
        g_in = [int(fibres[inside & (sizes == t)].sum()) for t in range(k + 1)]
        return _two_points(
            k,
            delta,
            by_t,
            g_t,
            g_in,
            _pair_terms(k, emp, delta, fixed_permutation),
            fixed_permutation,
            budget,
        )
    pairs = distinct = 0
    for t in range(k + 1):
        # per source set: the constants that avoid S*, each with 2^t sign choices, plus the
        # points of the T-cube that may map onto the point of S*
        per_t = by_t[t] * (2 ** (k - t) - len(small)) * 2**t + g_t[t]
        if fixed_permutation:
            pairs += per_t
            distinct += per_t
        else:
            pairs += math.factorial(k) * per_t
            distinct += math.comb(k, t) * math.factorial(t) * per_t
    return SearchResult(pairs, distinct, budget.used)


def _two_points(k, delta, by_t, g_t, g_in, both, fixed_permutation, budget) -> SearchResult:
    """S* = {p, q}, delta = p xor q: ``both[t]`` counts the (V, T, x) whose two fibres are
    empty, ``g_t``/``g_in`` the empty fibres of the T of size t (all, those containing delta)."""
    h = bin(delta).count("1")
    pairs = distinct = 0
    for t in range(k + 1):
        if fixed_permutation:  # J = T: p and q share the constants exactly when T holds delta
            n_in = math.comb(k - h, t - h) if t >= h else 0
            per_t = (
                (by_t[t] - n_in) * (2 ** (k - t) - 2) * 2**t
                + 2 * (g_t[t] - g_in[t])
                + n_in * (2 ** (k - t) - 1) * 2**t
                + both[t]
            )
            pairs += per_t
            distinct += per_t
            continue
        j_in = math.comb(k - h, t - h) if t >= h else 0  # output sets J holding delta
        j_out = math.comb(k, t) - j_in
        one = math.factorial(t) * (by_t[t] * (2 ** (k - t) - 2) * 2**t + 2 * g_t[t])
        two = math.factorial(t) * by_t[t] * (2 ** (k - t) - 1) * 2**t
        if t >= h:
            two += math.factorial(h) * math.factorial(t - h) * both[t]
        per_t = j_out * one + j_in * two
        pairs += math.factorial(k - t) * per_t
        distinct += per_t
    return SearchResult(pairs, distinct, budget.used)


def _bits(mask: int) -> list[int]:
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def _anchored(k, small, seen_small, emp, ternary, fixed_permutation, budget) -> SearchResult:
    anchor = int(seen_small[0])
    others = [int(g) ^ anchor for g in seen_small[1:]]  # D(o') as input masks
    union_others = 0
    for d in others:
        union_others |= d
    points = [int(p) for p in small]
    span = span_of(points)
    u_bits = _bits(span)
    rigid = (2**k - 1) & ~span
    n_rigid = k - len(u_bits)
    every_set = np.arange(2**k, dtype=np.int64)
    # the source sets, one filtered copy per output of the span on the search's stack
    budget.hold(2**k * 8 * 4 * (k + 2), "the source sets")
    hit = every_set[emp[ternary(every_set, anchor)]]  # T whose anchor fibre is empty
    counts: dict[tuple[int, int], int] = {}
    kind = [sum(1 << n for n, d in enumerate(others) if d >> i & 1) for i in range(k)]

    def search_from(s: int) -> None:  # the maps with alpha(anchor) = s
        supports = [s ^ p for p in points]
        full = (1 << len(supports)) - 1
        contains = {
            j: sum(1 << n for n, sup in enumerate(supports) if sup >> j & 1) for j in u_bits
        }
        # outputs in order: those in the most one-output supports, then the most supports
        order = sorted(
            u_bits,
            key=lambda j: (
                -sum(1 for sup in supports if sup == 1 << j),
                -bin(contains[j]).count("1"),
                j,
            ),
        )
        position = {j: n for n, j in enumerate(order)}
        closing: list[list[int]] = [[] for _ in order]  # supports decided at each position
        for sup in supports:
            if sup:
                closing[max(position[j] for j in _bits(sup))].append(sup)
        kappa: dict[int, int] = {}

        def leaf(used: int, cand: np.ndarray) -> None:  # cand: the sets T completed here
            sizes = _popcount(cand)
            m = bin(used).count("1")
            for t, n in enumerate(np.bincount(sizes).tolist()):
                if n:
                    counts[(m, t)] = counts.get((m, t), 0) + n

        remaining = [sum(1 << j for j in order[p:]) for p in range(len(order) + 1)]

        def visit(p: int, used: int, consistent: list[int], cand: np.ndarray) -> None:
            # keep the source sets T the rest of the search can still complete: the inputs of T
            # that no output of U feeds map to rigid outputs (at most k - u of them) and stay
            # off every D(o'); only the r outputs left can still take inputs
            r = len(order) - p
            free = cand & ~used
            if fixed_permutation:
                ok = (free & ~rigid & ~remaining[p]) == 0
            else:
                ok = (_popcount(free) <= r + n_rigid) & (_popcount(free & union_others) <= r)
            cand = cand[ok]
            if not len(cand):
                return
            budget.spend(1 + len(cand) // 4096, f"output {p + 1} of {len(order)} in the span")
            if p == len(order):
                leaf(used, cand)
                return
            j = order[p]
            inside, outside = contains[j], full & ~contains[j]
            # output j constant: no support containing j is realized
            after = [c & outside for c in consistent]
            if all(after):
                visit(p + 1, used, after, cand)
            inputs = [j] if fixed_permutation else _bits((2**k - 1) & ~used)
            by_kind: dict[int, list[int]] = {}  # inputs alike on every D(o') move C alike
            for i in inputs:
                if not used >> i & 1:
                    by_kind.setdefault(kind[i], []).append(i)
            for key, group in by_kind.items():
                after = [
                    c & (inside if key >> n & 1 else outside) for n, c in enumerate(consistent)
                ]
                if not all(after):
                    continue
                for i in group:
                    sub = cand[(cand >> i) & 1 == 1]
                    kappa[j] = i
                    for sup in closing[p]:
                        if all(jj in kappa for jj in _bits(sup)):
                            x = anchor
                            for jj in _bits(sup):
                                x ^= 1 << kappa[jj]
                            sub = sub[emp[ternary(sub, x)]]
                            if not len(sub):
                                break
                    if len(sub):
                        visit(p + 1, used | 1 << i, after, sub)
                    del kappa[j]

        visit(0, 0, [full] * len(others), hit)

    for s in points:
        search_from(s)

    pairs = distinct = 0
    for (m, t), n in counts.items():
        if fixed_permutation:
            pairs += n
            distinct += n
            continue
        feeds = math.perm(n_rigid, t - m)  # the inputs of L onto rigid outputs
        pairs += n * feeds * math.factorial(k - t)
        distinct += n * feeds
    return SearchResult(pairs, distinct, budget.used)
