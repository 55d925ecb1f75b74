"""Independent oracles for the optima counter: literal enumeration, closed forms, and the
previous per-permutation path.

The enumerations share nothing with the factored product, the searches or the
DIMACS encodings except the label map ``K.labels``, so an agreement certifies
the counter.  They take any knowledge (binary or categorical) and the support
as state strings (see :mod:`nesybench.logic.states`).

:func:`count_disentangled_per_permutation` is the binary disentangled path the
counter used before the search: one exact count over the bit maps f per
distinct permuted support (GF(2) elimination for parity, Ganak otherwise).
It is kept as a second exact path to check the search against where it
finishes, and as the baseline of ``bench/counting_disentangled.py``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from ..logic.knowledge import Knowledge
from ..logic.states import all_states, parse_state, state_index
from ..progress import progress

__all__ = [
    "enumerate_joint",
    "enumerate_joint_images",
    "enumerate_disentangled",
    "enumerate_shared",
    "count_disentangled_per_permutation",
    "parity_closed_form",
    "JOINT_ENUMERATION_LIMIT",
    "DISENTANGLED_ENUMERATION_MAX_K",
    "ENUMERATION_LIMIT",
]

JOINT_ENUMERATION_LIMIT = 2**16  # |G|^|G| maps: 256 at k = 2, 16,777,216 at k = 3
DISENTANGLED_ENUMERATION_MAX_K = 6  # binary: k! * 4^k pairs, 2,949,120 at k = 6
ENUMERATION_LIMIT = 3_000_000  # pairs (pi, f) or maps f checked one by one


def _rows(knowledge, states: Sequence[str]) -> np.ndarray:
    dims = knowledge.domains
    return np.array([parse_state(s, dims) for s in states], dtype=np.int64).reshape(-1, len(dims))


def enumerate_joint(knowledge, support: Sequence[str], *, supervised: Sequence[str] = ()) -> int:
    """Count, one by one, the maps alpha: G -> G with K(alpha(g)) = K(g) on the support.

    No factorization: every one of the |G|^|G| maps is built and checked
    (256 maps at k = 2).  Supervised states must also satisfy alpha(g) = g.
    """
    dims = knowledge.domains
    n_states = math.prod(dims)
    if n_states**n_states > JOINT_ENUMERATION_LIMIT:
        raise InputError(
            f"method enumerate: the joint family has {n_states}^{n_states} maps at "
            f"k={knowledge.k}, above the enumeration limit {JOINT_ENUMERATION_LIMIT:,}; "
            "use --method factored or exact"
        )
    labels = knowledge.labels(all_states(dims))
    observed = [state_index(parse_state(s, dims), dims) for s in support]
    pinned = {state_index(parse_state(s, dims), dims) for s in supervised}
    count = 0
    for alpha in itertools.product(range(n_states), repeat=n_states):
        if all(labels[alpha[g]] == labels[g] for g in observed) and all(
            alpha[g] == g for g in pinned
        ):
            count += 1
    return count


def enumerate_joint_images(
    knowledge, support: Sequence[str], *, supervised: Sequence[str] = ()
) -> int:
    """Joint N_opt with every tuple of images of the observed states checked one by one.

    The images of unobserved states are unconstrained: |G| each, in closed form.
    Checks |G|^|s| tuples (at most ``ENUMERATION_LIMIT``).
    """
    dims = knowledge.domains
    n_states = math.prod(dims)
    n_obs = len(support)
    if n_states**n_obs > ENUMERATION_LIMIT:
        raise InputError(
            f"method enumerate: {n_states}^{n_obs} image tuples, above the enumeration limit "
            f"{ENUMERATION_LIMIT:,}"
        )
    labels = knowledge.labels(all_states(dims))
    observed = [state_index(parse_state(s, dims), dims) for s in support]
    pinned = {state_index(parse_state(s, dims), dims) for s in supervised}
    count = 0
    for images in itertools.product(range(n_states), repeat=n_obs):
        if all(
            labels[img] == labels[g] and (g not in pinned or img == g)
            for g, img in zip(observed, images)
        ):
            count += 1
    return count * n_states ** (n_states - n_obs)


class _Labels:
    """K's labels through a table of every state (one evaluation of K per state, not per call)."""

    def __init__(self, knowledge) -> None:
        self.dims = knowledge.domains
        self.table = knowledge.labels(all_states(self.dims))

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        index = np.zeros(len(rows), dtype=np.int64)
        for j, d in enumerate(self.dims):
            index = index * d + rows[:, j]
        return self.table[index]


def _all_maps(d: int) -> np.ndarray:
    """Every map [d] -> [d] as a row of images: (d^d, d)."""
    return np.array(list(itertools.product(range(d), repeat=d)), dtype=np.int64).reshape(-1, d)


def _permutations(dims, fixed: bool) -> list[tuple[int, ...]]:
    k = len(dims)
    if fixed:
        return [tuple(range(k))]
    return [
        p for p in itertools.permutations(range(k)) if all(dims[p[j]] == dims[j] for j in range(k))
    ]


def enumerate_disentangled(
    knowledge,
    support: Sequence[str],
    *,
    supervised: Sequence[str] = (),
    fixed_permutation: bool = False,
    distinct: bool = False,
):
    """Count, pair by pair, the (pi, f) with alpha(g)_j = f_j(g_pi(j)) preserving the labels.

    pi runs over the permutations that only swap concepts of equal domain size
    (only the identity when ``fixed_permutation``), f over all maps f_j of each
    domain to itself; the f's of one pi are checked together as one array.
    With ``distinct=True`` returns ``(pairs, distinct maps alpha on all states)``.
    """
    dims = knowledge.domains
    k = len(dims)
    perms = _permutations(dims, fixed_permutation)
    n_f = math.prod(d**d for d in dims)
    if all(d == 2 for d in dims) and k > DISENTANGLED_ENUMERATION_MAX_K:
        raise InputError(
            f"method enumerate: the disentangled family has {math.factorial(k)} * 4^{k} pairs "
            f"at k={k}, above the enumeration limit k <= {DISENTANGLED_ENUMERATION_MAX_K}; "
            "use --method exact or approx"
        )
    if len(perms) * n_f > ENUMERATION_LIMIT:
        raise InputError(
            f"method enumerate: the disentangled family has {len(perms) * n_f:,} pairs, above "
            f"the enumeration limit {ENUMERATION_LIMIT:,}; use --method exact"
        )
    observed = _rows(knowledge, support)
    labels_of = _Labels(knowledge)
    observed_labels = labels_of(observed) if len(observed) else np.zeros(0, np.int64)
    pinned = {tuple(parse_state(s, dims)) for s in supervised}
    maps = [_all_maps(d) for d in dims]  # maps[j]: (d_j^d_j, d_j)
    # every combination of one map per output: index arrays (n_f,) per output
    choice = np.indices([len(m) for m in maps]).reshape(k, -1)
    grid = all_states(dims) if distinct else None
    total = 0
    seen: set[bytes] = set()
    for perm in perms:
        ok = np.ones(n_f, dtype=bool)
        for g, label in zip(observed, observed_labels):
            images = np.stack(
                [maps[j][choice[j], g[perm[j]]] for j in range(k)], axis=1
            )  # (n_f, k)
            ok &= labels_of(images) == label
            if tuple(g.tolist()) in pinned:
                ok &= (images == g[None, :]).all(axis=1)
        total += int(ok.sum())
        if distinct:
            for f in np.flatnonzero(ok).tolist():
                alpha = np.stack(
                    [maps[j][choice[j, f]][grid[:, perm[j]]] for j in range(k)], axis=1
                )
                seen.add(alpha.tobytes())
    return (total, len(seen)) if distinct else total


def enumerate_shared(knowledge, support: Sequence[str], *, supervised: Sequence[str] = ()) -> int:
    """Count, map by map, the f: [d] -> [d] with K(f(g_1), ..., f(g_k)) = K(g) on the support."""
    dims = knowledge.domains
    if len(set(dims)) != 1:
        raise InputError(f"extractor shared: needs equal domains, got {list(dims)}")
    d = dims[0]
    if d**d > ENUMERATION_LIMIT:
        raise InputError(
            f"method enumerate: the shared family has {d}^{d} maps, above the enumeration "
            f"limit {ENUMERATION_LIMIT:,}; use --method exact"
        )
    observed = _rows(knowledge, support)
    labels = knowledge.labels(observed) if len(observed) else np.zeros(0, np.int64)
    pinned = {tuple(parse_state(s, dims)) for s in supervised}
    maps = _all_maps(d)
    ok = np.ones(len(maps), dtype=bool)
    for g, label in zip(observed, labels):
        images = maps[:, g]  # (d^d, k)
        ok &= knowledge.labels(images) == label
        if tuple(g.tolist()) in pinned:
            ok &= (images == g[None, :]).all(axis=1)
    return int(ok.sum())


def parity_closed_form(k: int, n_observed: int) -> int:
    """N_opt of k-bit parity (joint family) with |s| observed states.

    Each parity class holds 2^(k-1) of the 2^k states, so

        N_opt = (2^(k-1))^|s| * (2^k)^(2^k - |s|) = 2^((k-1)|s| + k(2^k - |s|)).

    >>> parity_closed_form(2, 4), parity_closed_form(2, 3), parity_closed_form(3, 6)
    (16, 32, 262144)
    """
    if not 0 <= n_observed <= 2**k:
        raise InputError(f"need 0 <= n_observed <= 2^k, got {n_observed} at k={k}")
    return 2 ** ((k - 1) * n_observed + k * (2**k - n_observed))


# ---- the previous exact path: one count per permutation -----------------------


def count_disentangled_per_permutation(
    knowledge: Knowledge,
    support: Sequence[str],
    *,
    supervised: Sequence[str] = (),
    fixed_permutation: bool = False,
    seed: int = 0,
) -> int:
    """Exact disentangled N_opt as a sum over permutations of exact counts over the bit maps.

        N_opt = sum_pi #{f : K(f(g o pi)) = K(g) for g in s}

    One count per *distinct* permuted, labelled support (Ganak for a CNF,
    GF(2) elimination for parity): two permutations that send the support to
    the same set of (input, label) rows have the same count over f.  Binary
    knowledge only; it runs all k! permutations, so its cost grows like k!.
    """
    from .counters import ExactCounter
    from .encode import bit_maps_encoding

    if not isinstance(knowledge, Knowledge):
        raise InputError("the per-permutation path counts binary (xor or CNF) knowledge only")
    k = knowledge.k
    states = np.array([parse_state(g, k) for g in support], dtype=np.int64).reshape(-1, k)
    labels = knowledge.labels(states)
    pinned_rows = np.array([g in set(supervised) for g in support], dtype=bool)
    perms = [tuple(range(k))] if fixed_permutation else itertools.permutations(range(k))
    if not fixed_permutation and k >= 7:  # 5,040+ permutations: show progress
        perms = progress(
            perms, desc=f"disentangled count, k={k}: permutations", total=math.factorial(k)
        )
    counter = ExactCounter(seed=seed)
    cache: dict[bytes, int] = {}
    total = 0
    for perm in perms:
        inputs = states[:, list(perm)]  # row i, column j: g_pi(j)
        order = np.lexsort(inputs.T[::-1])
        key = b"|".join(
            [
                inputs[order].tobytes(),
                labels[order].tobytes(),
                pinned_rows[order].tobytes(),
                states[order][pinned_rows[order]].tobytes(),
            ]
        )
        if key not in cache:
            pins = [(i, states[i]) for i in np.flatnonzero(pinned_rows)]
            if knowledge.is_parity:
                cache[key] = _count_bit_maps_parity(inputs, labels, pins, k)
            else:
                cache[key] = counter.count(
                    bit_maps_encoding(knowledge, inputs, labels, pinned=pins)
                ).value
        total += cache[key]
    return total


def _count_bit_maps_parity(inputs: np.ndarray, labels: np.ndarray, pins, k: int) -> int:
    """#f for parity knowledge with pi fixed, by Gaussian elimination over GF(2).

    With a[j][b] = f_j(b), row h with label y says a[1][h_1] + ... + a[k][h_k] = y
    (mod 2), and a pin says a[j][h_j] = g_j: a linear system over the 2k bits
    a, so #f = 2^(2k - rank) when it is consistent and 0 otherwise.
    """
    equations = []
    for row, label in zip(inputs, labels):
        mask = 0
        for j in range(k):
            mask ^= 1 << (2 * j + int(row[j]))
        equations.append((mask, int(label)))
    for i, target in pins:
        equations.extend((1 << (2 * j + int(inputs[i][j])), int(target[j])) for j in range(k))
    basis: dict[int, tuple[int, int]] = {}  # leading bit -> (equation mask, right-hand side)
    for mask, rhs in equations:
        while mask:
            lead = mask.bit_length() - 1
            if lead not in basis:
                basis[lead] = (mask, rhs)
                break
            mask ^= basis[lead][0]
            rhs ^= basis[lead][1]
        else:
            if rhs:  # 0 = 1: no bit map satisfies the rows
                return 0
    return 2 ** (2 * k - len(basis))
