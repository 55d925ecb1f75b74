"""N_opt: the number of relabelings alpha that keep every observed label.

    N_opt = |{ alpha in A : K(alpha(g)) = K(g) for every observed g in s }|,
    reasoning shortcuts = N_opt - 1   (the identity is always an optimum).

Two extractor families A:

* ``joint`` -- alpha is any map G -> G.  The condition constrains each image
  separately, so the count factors over states:

      N_opt = prod_{g in s} |{c : K(c) = K(g)}|  *  (2^k)^(2^k - |s|)

  and only the class sizes need a model count: n1 = #SAT(K) (one Ganak call,
  so a CNF over k = 30 latent bits is cheap), n0 = 2^k - n1.
* ``disentangled`` -- alpha(g)_j = f_j(g_pi(j)), pi a permutation of the k
  concepts, f_j one of identity, negation, constant 0, constant 1 (the family
  of the public rsbench counter, count-rss).  N_opt counts pairs (pi, f).
  ``exact`` sums, over the permutations, one Ganak count over the bit maps f
  per distinct permuted support; ``approx`` hands the single DIMACS encoding
  with pi as variables (:mod:`nesybench.counting.encode`) to ApproxMC.

Supervision: a subset of the observed states whose images are pinned,
alpha(g) = g.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import UserError
from ..logic.knowledge import Knowledge, all_states, parse_state, parse_states
from ..progress import progress
from .counters import ApproxCounter, ExactCounter
from .encode import bit_maps_encoding, disentangled_encoding, joint_encoding, knowledge_cnf
from .oracles import enumerate_disentangled, enumerate_joint

__all__ = [
    "CountResult",
    "count_optima",
    "is_optimum",
    "label_class_sizes",
    "EXTRACTORS",
    "METHODS",
]

EXTRACTORS = ("joint", "disentangled")
METHODS = ("auto", "enumerate", "factored", "exact", "approx")
MAX_MATERIALIZED_BITS = 2**22  # larger exact counts are kept as their factors only
JOINT_ENCODING_MAX_K = 10  # the joint encoding has k * 2^k projection variables
MAX_JSON_DIGITS = 4000
LIST_STATES_MAX_K = 16


@dataclass(frozen=True)
class CountResult:
    """One count of the optima.

    ``n_opt`` is the exact count (None when approximate, or when the exact
    integer would exceed 2^22 bits: then ``factors`` holds it as a product of
    ``base ** exponent``).  ``estimate`` is the approximate count and
    ``(epsilon, delta)`` its guarantee.  ``dimacs`` is a DIMACS formula whose
    model count is N_opt (the joint or disentangled encoding); for
    ``factored`` it is K itself, whose model count is the class size n1.
    """

    k: int
    support: tuple[str, ...] | None  # sorted bit strings; None = all 2^k states
    n_observed: int
    extractor: str
    method: str
    exact: bool
    log2_n_opt: float
    n_opt: int | None = None
    estimate: int | None = None
    epsilon: float | None = None
    delta: float | None = None
    factors: tuple[tuple[int, int], ...] = ()
    dimacs: str = field(default="", repr=False)
    supervised: tuple[str, ...] = ()
    fixed_permutation: bool = False

    @property
    def n_shortcuts(self) -> int | None:
        """N_opt - 1 (None when N_opt is not materialized)."""
        return None if self.n_opt is None else self.n_opt - 1

    @property
    def value(self) -> int | None:
        """The exact count, or the estimate when approximate."""
        return self.n_opt if self.exact else self.estimate

    def to_json(self) -> dict:
        """The ``nesybench count --json`` record.

        ``n_opt``/``n_shortcuts`` are decimal strings (the estimate when
        ``exact`` is false), null above 4,000 digits; ``log2_n_opt`` is always set.
        """
        value = self.value
        digits_ok = (
            value is not None
            and value.bit_length() <= MAX_JSON_DIGITS * math.log2(10)
            and len(str(value)) <= MAX_JSON_DIGITS
        )
        if self.support is not None:
            support = list(self.support)
        elif self.k <= LIST_STATES_MAX_K:
            support = ["".join(map(str, row)) for row in all_states(self.k)]
        else:
            support = None  # an implicit full support too large to list
        out = {
            "k": self.k,
            "n_states": 2**self.k,
            "support": support,
            "extractor": self.extractor,
            "n_opt": str(value) if digits_ok else None,
            "n_shortcuts": str(value - 1) if digits_ok else None,
            "log2_n_opt": self.log2_n_opt,
            "method": self.method,
            "exact": self.exact,
        }
        if not self.exact:
            out["epsilon"] = self.epsilon
            out["delta"] = self.delta
        return out


def _log2(value: int) -> float:
    return math.log2(value) if value > 0 else float("-inf")


def label_class_sizes(knowledge: Knowledge, *, seed: int = 0) -> tuple[int, int]:
    """``(n0, n1)``: how many of the 2^k states K labels 0 and 1; n1 by one exact #SAT call."""
    n1 = ExactCounter(seed=seed).count(knowledge_cnf(knowledge)).value
    return 2**knowledge.k - n1, n1


def _validate(
    knowledge: Knowledge, support, supervised, extractor, method, fixed_permutation, epsilon, delta
):
    if not isinstance(knowledge, Knowledge):
        raise TypeError(f"knowledge must be a Knowledge, got {type(knowledge).__name__}")
    if extractor not in EXTRACTORS:
        raise UserError(f"extractor: must be one of {', '.join(EXTRACTORS)}, got {extractor!r}")
    if method not in METHODS:
        raise UserError(f"method: must be one of {', '.join(METHODS)}, got {method!r}")
    if fixed_permutation and extractor != "disentangled":
        raise UserError("fixed_permutation: applies only to the disentangled extractor")
    if method == "factored" and extractor != "joint":
        raise UserError(
            "method factored: the product over states exists only for the joint extractor"
        )
    if method == "approx":
        if not (isinstance(epsilon, (int, float)) and epsilon > 0):
            raise UserError(f"epsilon: must be > 0, got {epsilon!r}")
        if not (isinstance(delta, (int, float)) and 0 < delta < 1):
            raise UserError(f"delta: must be in (0, 1), got {delta!r}")
    if support is not None:
        support = parse_states(list(support), knowledge.k, field_name="support")
        if not support:
            raise UserError("support: must contain at least one state")
    supervised = parse_states(list(supervised), knowledge.k, field_name="supervised")
    observed = set(support) if support is not None else None
    for g in supervised:
        if observed is not None and g not in observed:
            raise UserError(
                f"supervised: state {g!r} is not in the support (supervision applies to observed "
                "states)"
            )
    return support, supervised


def count_optima(
    knowledge: Knowledge,
    support: Sequence[str] | None,
    *,
    extractor: str = "joint",
    fixed_permutation: bool = False,
    supervised: Sequence[str] = (),
    method: str = "auto",
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 0,
) -> CountResult:
    """Count the label-preserving relabelings of ``knowledge`` on ``support``.

    Parameters
    ----------
    knowledge : Knowledge
        The label map K over k concepts.
    support : sequence of str or None
        Observed states as k-character bit strings (leftmost = x1); None means
        all 2^k states (only the ``joint``/``factored`` path accepts it at any k).
    extractor : {"joint", "disentangled"}, keyword-only
    fixed_permutation : bool, keyword-only
        Disentangled only: pi is the identity.
    supervised : sequence of str, keyword-only
        Observed states whose image is pinned to themselves.
    method : {"auto", "enumerate", "factored", "exact", "approx"}, keyword-only
        ``auto`` is ``factored`` for joint and ``exact`` for disentangled;
        ``enumerate`` checks maps one by one (small k); ``exact`` model-counts
        with Ganak (joint: the encoding; disentangled: per permutation);
        ``approx`` the DIMACS encoding with ApproxMC.
    epsilon, delta : float, keyword-only
        ApproxMC guarantee: P[N/(1+eps) <= N_hat <= (1+eps) N] >= 1 - delta.
    seed : int, keyword-only
        Solver seed (ApproxMC's hashing).

    Returns
    -------
    CountResult

    Examples
    --------
    >>> from nesybench.logic import make_knowledge
    >>> count_optima(make_knowledge("xor", 2), ["00", "01", "10", "11"]).n_opt
    16
    """
    support, supervised = _validate(
        knowledge, support, supervised, extractor, method, fixed_permutation, epsilon, delta
    )
    k = knowledge.k
    if method == "auto":
        method = "factored" if extractor == "joint" else "exact"
    if support is None and method != "factored":
        if k > 16:
            raise UserError(
                f"support: an implicit full support at k={k} needs the joint extractor with "
                "method factored"
            )
        support = ["".join(map(str, row)) for row in all_states(k)]
    n_observed = 2**k if support is None else len(support)
    common = dict(
        k=k,
        support=tuple(sorted(support)) if support is not None else None,
        n_observed=n_observed,
        extractor=extractor,
        method=method,
        supervised=tuple(sorted(supervised)),
        fixed_permutation=fixed_permutation,
    )

    if method == "factored":
        return _count_factored(knowledge, support, supervised, seed=seed, common=common)
    if method == "enumerate":
        if extractor == "joint":
            value = enumerate_joint(knowledge, support, supervised=supervised)
        else:
            value = enumerate_disentangled(
                knowledge, support, supervised=supervised, fixed_permutation=fixed_permutation
            )
        return CountResult(exact=True, n_opt=value, log2_n_opt=_log2(value), **common)
    # exact / approx: model-count the DIMACS encoding
    if extractor == "joint":
        if k > JOINT_ENCODING_MAX_K:
            raise UserError(
                f"method {method}: the joint encoding has k * 2^k variables; k={k} is above "
                f"{JOINT_ENCODING_MAX_K}, use --method factored"
            )
        cnf = joint_encoding(knowledge, support, supervised=supervised)
    else:
        cnf = disentangled_encoding(
            knowledge, support, supervised=supervised, fixed_permutation=fixed_permutation
        )
    if method == "exact":
        if extractor == "disentangled":
            value = _count_disentangled_by_permutation(
                knowledge,
                support,
                supervised=supervised,
                fixed_permutation=fixed_permutation,
                seed=seed,
            )
        else:
            value = ExactCounter(seed=seed).count(cnf).value
        return CountResult(
            exact=True, n_opt=value, log2_n_opt=_log2(value), dimacs=cnf.to_dimacs(), **common
        )
    counted = ApproxCounter(epsilon=epsilon, delta=delta, seed=seed + 1).count(cnf)
    return CountResult(
        exact=False,
        estimate=counted.value,
        log2_n_opt=_log2(counted.value),
        epsilon=float(epsilon),
        delta=float(delta),
        dimacs=cnf.to_dimacs(),
        **common,
    )


def _count_factored(knowledge, support, supervised, *, seed, common) -> CountResult:
    k = knowledge.k
    n_states = 2**k
    n0, n1 = label_class_sizes(knowledge, seed=seed)
    pinned = set(supervised)
    if support is None:
        observed_ones, observed_zeros = n1, n0
    else:
        free = [g for g in support if g not in pinned]
        labels = knowledge.labels(
            np.array([parse_state(g, k) for g in free], dtype=np.int64).reshape(-1, k)
        )
        observed_ones = int(labels.sum())
        observed_zeros = len(free) - observed_ones
    unobserved = n_states - common["n_observed"]
    # One factor per state: its label-class size if observed (1 if pinned), 2^k if not.
    factors = tuple(
        (base, exp)
        for base, exp in ((n1, observed_ones), (n0, observed_zeros), (n_states, unobserved))
        if exp
    )
    if any(base == 0 for base, _ in factors):
        log2_value, value = float("-inf"), 0
    else:
        log2_value = sum(exp * math.log2(base) for base, exp in factors)
        value = (
            math.prod(base**exp for base, exp in factors)
            if log2_value <= MAX_MATERIALIZED_BITS
            else None
        )
    return CountResult(
        exact=True,
        n_opt=value,
        log2_n_opt=log2_value,
        factors=factors,
        dimacs=knowledge_cnf(knowledge).to_dimacs(),
        **common,
    )


def _count_disentangled_by_permutation(
    knowledge, support, *, supervised, fixed_permutation, seed
) -> int:
    """Exact disentangled N_opt as a sum over permutations of exact counts over the bit maps.

        N_opt = sum_pi #{f : K(f(g o pi)) = K(g) for g in s}

    One count per *distinct* permuted, labelled support (Ganak for a CNF,
    GF(2) elimination for parity): two permutations that send the support to
    the same set of (input, label) rows have the same count over f, so a
    symmetric knowledge (parity at full support) needs one count for all k!
    permutations.  Ganak on the single formula with pi as
    variables gets the same number (the pipeline checks it at small k) but its
    run time grows like k! (about 1 minute at k = 6 for parity).
    """
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
    a, so #f = 2^(2k - rank) when it is consistent and 0 otherwise.  (Ganak
    has no XOR reasoning; on these systems it is about 10^4 times slower.)
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


def is_optimum(alpha: Mapping[str, str], knowledge: Knowledge, support: Sequence[str]) -> bool:
    """True when the relabeling ``alpha`` (bit string -> bit string) keeps K(alpha(g)) == K(g) on
    every observed g.

    The joint family's membership test: a learned relabeling is one of the
    N_opt counted optima exactly when this holds.
    """
    k = knowledge.k
    support = parse_states(list(support), k, field_name="support")
    images = []
    for g in support:
        if g not in alpha:
            raise UserError(f"alpha: no image for observed state {g!r}")
        images.append(parse_state(alpha[g], k, field_name=f"alpha[{g}]"))
    if not support:
        return True
    observed = np.array([parse_state(g, k) for g in support], dtype=np.int64)
    return bool(
        np.array_equal(
            knowledge.labels(observed), knowledge.labels(np.array(images, dtype=np.int64))
        )
    )
