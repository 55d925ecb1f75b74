"""Independent oracles for the optima counter: literal enumeration and the parity closed form.

They share nothing with the factored product or the DIMACS encodings except the
label map ``K.labels``, so an agreement certifies the counter.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..errors import UserError
from ..logic.knowledge import Knowledge, all_states, parse_state

__all__ = [
    "enumerate_joint",
    "enumerate_disentangled",
    "parity_closed_form",
    "JOINT_ENUMERATION_LIMIT",
    "DISENTANGLED_ENUMERATION_MAX_K",
]

JOINT_ENUMERATION_LIMIT = 2**16  # (2^k)^(2^k) maps: 256 at k = 2, 16,777,216 at k = 3
DISENTANGLED_ENUMERATION_MAX_K = 6  # k! * 4^k pairs: 6,144 at k = 4, 2,949,120 at k = 6

# f code (2 * t + v) applied to an input bit b: identity, negation, constant 0, constant 1.
_F_TABLE = np.array([[0, 1], [1, 0], [0, 0], [1, 1]], dtype=np.int64)


def enumerate_joint(
    knowledge: Knowledge, support: Sequence[str], *, supervised: Sequence[str] = ()
) -> int:
    """Count, one by one, the maps alpha: G -> G with K(alpha(g)) = K(g) on the support.

    No factorization: every one of the |G|^|G| maps is built and checked
    (256 maps at k = 2).  Supervised states must also satisfy alpha(g) = g.
    """
    n_states = 2**knowledge.k
    if n_states**n_states > JOINT_ENUMERATION_LIMIT:
        raise UserError(
            f"method enumerate: the joint family has {n_states}^{n_states} maps at "
            f"k={knowledge.k}, "
            f"above the enumeration limit {JOINT_ENUMERATION_LIMIT:,}; use --method factored or "
            "exact"
        )
    labels = knowledge.labels(all_states(knowledge.k))
    observed = [int(s, 2) for s in support]
    pinned = {int(s, 2) for s in supervised}
    count = 0
    for alpha in itertools.product(range(n_states), repeat=n_states):
        if all(labels[alpha[g]] == labels[g] for g in observed) and all(
            alpha[g] == g for g in pinned
        ):
            count += 1
    return count


def enumerate_disentangled(
    knowledge: Knowledge,
    support: Sequence[str],
    *,
    supervised: Sequence[str] = (),
    fixed_permutation: bool = False,
) -> int:
    """Count, pair by pair, the (pi, f) with alpha(g)_j = f_j(g_pi(j)) preserving the observed
    labels.

    Every permutation pi (only the identity when ``fixed_permutation``) and
    every f in {identity, negation, constant 0, constant 1}^k is checked; the
    f's are checked together as one array per pi.
    """
    k = knowledge.k
    if k > DISENTANGLED_ENUMERATION_MAX_K:
        raise UserError(
            f"method enumerate: the disentangled family has {math.factorial(k)} * 4^{k} pairs at "
            f"k={k}, "
            f"above the enumeration limit k <= {DISENTANGLED_ENUMERATION_MAX_K}; use --method "
            "exact or approx"
        )
    observed = np.array([parse_state(s, k) for s in support], dtype=np.int64).reshape(-1, k)
    observed_labels = knowledge.labels(observed) if len(observed) else np.zeros(0, dtype=np.int64)
    pinned = {s for s in supervised}
    codes = ((np.arange(4**k)[:, None] >> (2 * np.arange(k)[None, :])) & 3).astype(
        np.int64
    )  # (4^k, k)
    perms = [tuple(range(k))] if fixed_permutation else list(itertools.permutations(range(k)))
    total = 0
    for perm in perms:
        ok = np.ones(len(codes), dtype=bool)
        for g, label in zip(observed, observed_labels):
            source = g[list(perm)]  # input bit feeding each output concept
            images = _F_TABLE[codes, source[None, :]]  # (4^k, k)
            ok &= knowledge.labels(images) == label
            if "".join(map(str, g)) in pinned:
                ok &= (images == g[None, :]).all(axis=1)
        total += int(ok.sum())
    return total


def parity_closed_form(k: int, n_observed: int) -> int:
    """N_opt of k-bit parity (joint family) with |s| observed states.

    Each parity class holds 2^(k-1) of the 2^k states, so

        N_opt = (2^(k-1))^|s| * (2^k)^(2^k - |s|) = 2^((k-1)|s| + k(2^k - |s|)).

    >>> parity_closed_form(2, 4), parity_closed_form(2, 3), parity_closed_form(3, 6)
    (16, 32, 262144)
    """
    if not 0 <= n_observed <= 2**k:
        raise ValueError(f"need 0 <= n_observed <= 2^k, got {n_observed} at k={k}")
    return 2 ** ((k - 1) * n_observed + k * (2**k - n_observed))
