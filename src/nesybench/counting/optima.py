"""N_opt: the number of relabelings alpha that keep every observed label.

    N_opt = |{ alpha in A : K(alpha(g)) = K(g) for every observed g in s }|,
    reasoning shortcuts = N_opt - 1   (the identity is always an optimum).

Concept j takes the values 0 .. d_j - 1 (binary concepts: d_j = 2).  Three
extractor families A:

* ``joint`` -- alpha is any map G -> G.  The condition constrains each image
  separately, so the count factors over states:

      N_opt = prod_{g in s} |{c : K(c) = K(g)}|  *  |G|^(|G| - |s|)

  and only the label-class sizes are needed: one Ganak call for a CNF over
  binary concepts (so k = 30 is cheap), a convolution for a sum, a tally for
  a table.
* ``disentangled`` -- alpha(g)_j = f_j(g_pi(j)): pi a permutation of the
  concepts that only swaps concepts of equal domain size, f_j any map of the
  domain to itself (for binary concepts: identity, negation, constant 0,
  constant 1, the family of the public rsbench counter, count-rss).  N_opt
  counts the pairs (pi, f); ``n_distinct`` counts the distinct maps alpha they
  induce (pairs whose f_j are constant induce the same alpha).
* ``shared`` -- alpha(g)_j = f(g_j): one map f for every concept (equal
  domains), no permutation; the family of one digit classifier applied to each
  digit, as MNIST-Addition models are built.

Exact engines: the factored product (joint); a search over (pi(j), f_j) with
shared sub-problems (:mod:`nesybench.counting.search`: binary concepts and many
permutations) or, for categorical concepts with few permutations, one
constraint problem per permutation counted by search with component caching
and variable elimination (:mod:`nesybench.counting.bypermutation`); a search
over the values of f (shared).  Values that no support state shows are
unconstrained and counted in closed form.  Independent checks: literal
enumeration and closed forms (:mod:`nesybench.counting.oracles`), Ganak on the
DIMACS encodings (:mod:`nesybench.counting.encode`), and, for binary
disentangled counts, the previous per-permutation path (``method=
"permutations"``).  ``method="approx"`` hands the DIMACS encoding (binary
concepts) to ApproxMC with its (epsilon, delta) guarantee.

Supervision: a subset of the observed states whose images are pinned,
alpha(g) = g.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, bad_value
from ..logic.knowledge import Knowledge, SumKnowledge, TableKnowledge
from ..logic.states import all_states, parse_state, plain_count, state_str, states_index
from .counters import ApproxCounter, ExactCounter
from .encode import disentangled_encoding, joint_encoding, knowledge_cnf
from .task import CountingTask

__all__ = [
    "CountResult",
    "count_optima",
    "count_joint",
    "count_disentangled",
    "count_shared",
    "class_sizes",
    "is_optimum",
    "label_class_sizes",
    "EXTRACTORS",
    "METHODS",
    "MAX_SEARCH_STATES",
    "MAX_EPSILON",
]

EXTRACTORS = ("joint", "disentangled", "shared")
METHODS = ("auto", "enumerate", "factored", "exact", "approx", "permutations")
MAX_MATERIALIZED_BITS = 2**22  # larger exact counts are kept as their factors only
JOINT_ENCODING_MAX_K = 10  # the joint encoding has k * 2^k projection variables
MAX_JSON_DIGITS = 4000
LIST_STATES_MAX = 2**16
MAX_SEARCH_STATES = 2**22  # the searches tabulate K over every state
SMALL_CLASS_SHARE = 4  # the small-class count may spend 1/4 of the budget before the search
TRIAL = 1024  # sub-problems of the small-class count's trial, beyond its table's work
FALLBACKS = ("none", "ganak", "approx")  # what answers when the exact searches refuse
ENCODING_BYTES_PER_CLAUSE = 200  # the CNF as Python tuples and Ganak's copy of it
SEARCH_ENGINE = "search over (pi(j), f_j) with shared sub-problems"
SMALL_CLASS_ENGINE = "count from the small label class (anchored partial injections)"
CLOSED_FORM_ENGINE = "count from the small label class (closed form, no observed point in it)"
INPUT_SWEEP_ENGINE = "count from the small label class (sweep over the inputs)"
MAX_EPSILON = 10.0  # as the params schema: a looser ApproxMC tolerance says nothing
ENCODING_MAX_CLAUSES = 5_000_000
DIMACS_ARTIFACT_MAX_K = 12  # the disentangled DIMACS string beside an exact count
PERMUTATIONS_MAX_COUNTS = 40_320  # the previous path: at most 8! model counts unless asked
PER_PERMUTATION_MAX = 720  # categorical tasks with at most this many permutations: one problem each
DISTINCT_ENUMERATION_MAX = 2_000_000  # pairs x states checked for n_distinct by enumeration
SHARED_ALL_MAPS = 256  # d^d maps f checked one by one (binary: 4; three values: 27)
SHARED_CONSTRAINT_MAX_CELLS = 2**22  # shared counts as one constraint problem up to these cells
SHARED_RESIDUAL_MAX_STATES = 2**16  # the residual search interns sets of all states (8 KB each)


@dataclass(frozen=True)
class CountResult:
    """One count of the optima.

    ``n_opt`` is the exact count (None when approximate, or when the exact
    integer would exceed 2^22 bits: then ``factors`` holds it as a product of
    ``base ** exponent``).  ``estimate`` is the approximate count and
    ``(epsilon, delta)`` its guarantee.  ``n_distinct`` is the number of
    distinct maps alpha (the disentangled family's pairs can collapse; None
    with ``n_distinct_reason`` when not computed).  ``dimacs`` is a DIMACS
    formula whose model count is N_opt (binary concepts; for ``factored`` it is
    K itself, whose model count is the class size n1).  ``engine`` names the
    exact algorithm that produced the count.
    """

    k: int
    support: tuple[str, ...] | None  # sorted state strings; None = every state
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
    domains: tuple[int, ...] = ()
    n_distinct: int | None = None
    n_distinct_reason: str | None = None
    engine: str = ""
    subproblems: int = 0

    @property
    def n_shortcuts(self) -> int | None:
        """N_opt - 1 (None when N_opt is not materialized)."""
        return None if self.n_opt is None else self.n_opt - 1

    @property
    def value(self) -> int | None:
        """The exact count, or the estimate when approximate."""
        return self.n_opt if self.exact else self.estimate

    @property
    def n_states(self) -> int:
        return math.prod(self.domains) if self.domains else 2**self.k

    def to_json(self) -> dict:
        """The ``nesybench count --json`` record.

        ``n_opt``/``n_shortcuts``/``n_distinct`` are decimal strings (the estimate
        when ``exact`` is false), null above 4,000 digits; ``log2_n_opt`` is
        always set; ``domains`` lists the domain sizes.
        """
        value = self.value
        dims = self.domains or (2,) * self.k
        if self.support is not None:
            support = list(self.support)
        elif self.n_states <= LIST_STATES_MAX:
            support = [state_str(row, dims) for row in all_states(dims)]
        else:
            support = None  # an implicit full support too large to list
        n_distinct, reason = self.n_distinct, self.n_distinct_reason
        if n_distinct is not None and not _digits_ok(n_distinct):
            n_distinct, reason = None, "over 4,000 digits"
        out = {
            "k": self.k,
            "domains": list(dims),
            "n_states": self.n_states,
            "support": support,
            "extractor": self.extractor,
            "n_opt": str(value) if _digits_ok(value) else None,
            "n_shortcuts": str(value - 1) if _digits_ok(value) else None,
            "log2_n_opt": self.log2_n_opt,
            "n_distinct": None if n_distinct is None else str(n_distinct),
            "n_distinct_reason": None if n_distinct is not None else reason,
            "method": self.method,
            "exact": self.exact,
        }
        if not self.exact:
            out["epsilon"] = self.epsilon
            out["delta"] = self.delta
        return out


def _digits_ok(value: int | None) -> bool:
    return (
        value is not None
        and value.bit_length() <= MAX_JSON_DIGITS * math.log2(10)
        and len(str(value)) <= MAX_JSON_DIGITS
    )


def _log2(value: int) -> float:
    return math.log2(value) if value > 0 else float("-inf")


# ---- label classes ------------------------------------------------------------


def label_class_sizes(knowledge: Knowledge, *, seed: int = 0) -> tuple[int, int]:
    """``(n0, n1)``: how many of the 2^k states K labels 0 and 1; n1 by one exact #SAT call."""
    n1 = ExactCounter(seed=seed).count(knowledge_cnf(knowledge)).value
    return 2**knowledge.k - n1, n1


def class_sizes(knowledge, *, seed: int = 0) -> dict[int, int]:
    """``{label code: number of states with that label}`` for any knowledge.

    Binary knowledge: one Ganak call; a sum: a convolution of the domains; a
    table: a tally.  Nothing lists the states except the table, which already
    does.

    >>> from nesybench.logic import make_knowledge
    >>> class_sizes(make_knowledge("sum", (2, 3)))
    {0: 1, 1: 2, 2: 2, 3: 1}
    """
    if isinstance(knowledge, Knowledge):
        n0, n1 = label_class_sizes(knowledge, seed=seed)
        return {c: n for c, n in ((0, n0), (1, n1)) if n}
    if isinstance(knowledge, SumKnowledge):
        return knowledge.class_sizes()
    counts = np.bincount(knowledge.codes)
    return {c: int(n) for c, n in enumerate(counts.tolist()) if n}


# ---- validation -----------------------------------------------------------------


def _check_options(
    extractor, method, epsilon, delta, max_subproblems, max_states, max_memory=None
) -> None:
    if extractor not in EXTRACTORS:
        raise InputError(f"extractor must be one of {', '.join(EXTRACTORS)}, got {extractor!r}")
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "approx":
        if (
            isinstance(epsilon, bool)
            or not isinstance(epsilon, (int, float))
            or not 0 < epsilon <= MAX_EPSILON
        ):
            raise InputError(f"epsilon must be in (0, {MAX_EPSILON:g}], got {epsilon!r}")
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
            raise InputError(f"delta must be in (0, 1), got {delta!r}")
    for name, value in (
        ("max_subproblems", max_subproblems),
        ("max_states", max_states),
        ("max_memory", max_memory),
    ):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0
        ):
            raise InputError(f"{name} must be an integer >= 0 (0 = no limit), got {value!r}")


def _common(task: CountingTask, extractor: str, method: str, fixed_permutation: bool) -> dict:
    return dict(
        k=task.k,
        support=task.support,
        n_observed=task.n_observed,
        extractor=extractor,
        method=method,
        supervised=task.supervised,
        fixed_permutation=fixed_permutation,
        domains=task.domains,
    )


def _exact(value: int, common: dict, **extra) -> CountResult:
    extra.setdefault("n_distinct", value)
    return CountResult(exact=True, n_opt=value, log2_n_opt=_log2(value), **common, **extra)


def _label_table(task: CountingTask, extractor: str, max_states: int | None, budget=None):
    """The label code of every state, refused (with the size) past ``max_states``; its
    memory (the states listed once, then their labels) is charged to ``budget`` first."""
    n = task.n_states
    if max_states and n > max_states:
        size = plain_count(n)
        if task.is_binary and n < 10**12:
            size = f"2^{task.k} = {size}"
        memory = plain_count(max(1, n * 9 // 2**20))
        memory = f"{memory} MB" if memory.startswith("about") else f"about {memory} MB"
        raise InputError(
            f"extractor {extractor}: the exact count tabulates K over all {size} states "
            f"({memory}), above the limit of {max_states:,} states; "
            "raise it with --max-states N (max_states; 0 = no limit) or count the joint family, "
            "which needs no table"
        )
    if isinstance(task.knowledge, TableKnowledge):
        return task.knowledge.codes
    if budget is not None:
        budget.hold(n * (task.k + 2) * 8, "the label table")
    codes = task.knowledge.labels(all_states(task.domains))
    if budget is not None:
        budget.release(n * (task.k + 1) * 8)  # the listed states are gone, the labels stay
    return codes


# ---- the three families ------------------------------------------------------------


def count_joint(
    task: CountingTask,
    *,
    method: str = "auto",
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 0,
) -> CountResult:
    """N_opt of the joint family (alpha any map of states) on ``task``.

    ``method``: ``auto``/``factored`` (the product over states), ``enumerate``
    (every map, |G|^|G| <= 2^16), ``exact`` (Ganak on the joint encoding; binary,
    k <= 10), ``approx`` (ApproxMC on it).

    >>> from nesybench.logic import make_knowledge
    >>> count_joint(CountingTask(make_knowledge("xor", 2), ["00", "01", "10"])).n_opt
    32
    """
    _check_options("joint", method, epsilon, delta, None, None)
    if method == "auto":
        method = "factored"
    common = _common(task, "joint", method, False)
    if method == "factored":
        return _count_factored(task, seed=seed, common=common)
    if method == "permutations":
        raise InputError("method permutations: applies only to the disentangled extractor")
    support = list(task.observed_states())
    if method == "enumerate":
        from .oracles import enumerate_joint

        value = enumerate_joint(task.knowledge, support, supervised=task.supervised)
        return _exact(value, common, engine="enumeration")
    knowledge = _binary(task, method)
    if task.k > JOINT_ENCODING_MAX_K:
        raise InputError(
            f"method {method}: the joint encoding has k * 2^k variables; k={task.k} is above "
            f"{JOINT_ENCODING_MAX_K}, use --method factored"
        )
    cnf = joint_encoding(knowledge, support, supervised=task.supervised)
    if method == "exact":
        value = ExactCounter(seed=seed).count(cnf).value
        return _exact(value, common, dimacs=cnf.to_dimacs(), engine="ganak")
    return _approx(cnf, common, epsilon, delta, seed)


def _binary(task: CountingTask, method: str) -> Knowledge:
    if not isinstance(task.knowledge, Knowledge):
        raise InputError(
            f"method {method}: model-counts a CNF encoding, which exists for binary xor/CNF "
            f"knowledge only (got {task.knowledge.describe()}); use --method exact or enumerate"
            if method == "approx"
            else f"method {method}: the encoding exists for binary xor/CNF knowledge only; use "
            "--method factored"
        )
    return task.knowledge


def _approx(cnf, common, epsilon, delta, seed) -> CountResult:
    counted = ApproxCounter(epsilon=epsilon, delta=delta, seed=seed + 1).count(cnf)
    return CountResult(
        exact=False,
        estimate=counted.value,
        log2_n_opt=_log2(counted.value),
        epsilon=float(epsilon),
        delta=float(delta),
        dimacs=cnf.to_dimacs(),
        n_distinct_reason="approximate count: distinct maps need an exact count",
        engine="approxmc",
        **common,
    )


def _count_factored(task: CountingTask, *, seed: int, common: dict) -> CountResult:
    knowledge = task.knowledge
    n_states = task.n_states
    pinned = set(task.supervised)
    if isinstance(knowledge, SumKnowledge) and task.support is not None:
        # only the observed sums' classes are needed (2^20-valued digits have 2^21 sums)
        rows = task.observed_rows()
        sizes = {int(c): knowledge.class_size(c) for c in np.unique(rows.sum(axis=1)).tolist()}
    else:
        sizes = class_sizes(knowledge, seed=seed)
    if task.support is None:  # every state observed: the pinned ones leave their classes
        per_class = dict(sizes)
        if pinned:
            rows = np.array([parse_state(g, task.domains) for g in pinned], dtype=np.int64)
            for code in knowledge.labels(rows.reshape(-1, task.k)).tolist():
                per_class[code] -= 1
    else:
        free = [g for g in task.support if g not in pinned]
        rows = np.array([parse_state(g, task.domains) for g in free], dtype=np.int64)
        labels = knowledge.labels(rows.reshape(-1, task.k)) if free else np.zeros(0, np.int64)
        codes, counts = np.unique(labels, return_counts=True)
        per_class = dict(zip(codes.tolist(), counts.tolist()))
    unobserved = n_states - task.n_observed
    # One factor per state: its label-class size if observed (1 if pinned), |G| if not.
    grouped: dict[int, int] = {}
    for code, n in sorted(per_class.items()):
        if n:
            base = sizes.get(code, 0)
            grouped[base] = grouped.get(base, 0) + n
    if unobserved:
        grouped[n_states] = grouped.get(n_states, 0) + unobserved
    factors = tuple(sorted(grouped.items(), key=lambda bx: -bx[0]))
    if isinstance(knowledge, Knowledge):
        # as before: the label-1 class first, then label 0, then the unobserved states
        n0, n1 = sizes.get(0, 0), sizes.get(1, 0)
        ones, zeros = per_class.get(1, 0), per_class.get(0, 0)
        factors = tuple(
            (base, exp) for base, exp in ((n1, ones), (n0, zeros), (n_states, unobserved)) if exp
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
    dimacs = knowledge_cnf(knowledge).to_dimacs() if isinstance(knowledge, Knowledge) else ""
    return CountResult(
        exact=True,
        n_opt=value,
        log2_n_opt=log2_value,
        factors=factors,
        dimacs=dimacs,
        n_distinct=value,
        n_distinct_reason=None if value is not None else "over 2^22 bits (kept as factors)",
        engine="factored",
        **common,
    )


def count_disentangled(
    task: CountingTask,
    *,
    method: str = "auto",
    fixed_permutation: bool = False,
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 0,
    max_subproblems: int | None = None,
    max_states: int | None = MAX_SEARCH_STATES,
    distinct: bool = True,
    with_dimacs: bool = False,
    max_memory: int | None = None,
    fallback: str = "none",
) -> CountResult:
    """N_opt (pairs (pi, f)) and ``n_distinct`` of the disentangled family on ``task``.

    ``method``: ``auto``/``exact`` (the exact search), ``enumerate`` (every
    pair), ``permutations`` (the previous path: one model count per permutation,
    binary), ``approx`` (ApproxMC on the DIMACS encoding, binary).
    ``max_subproblems`` bounds the search (None: the default budget, 0: none);
    ``max_states`` bounds the label table it builds and ``max_memory`` (bytes; None:
    2^30, 0: none) what the search holds.  ``distinct=False`` skips
    ``n_distinct`` where it costs extra (the per-permutation engine);
    ``with_dimacs=True`` also returns the single-formula DIMACS encoding (pi as
    variables; binary knowledge, k <= 12) beside an exact count.  ``fallback`` (one of
    ``FALLBACKS``) says what answers a binary task where the exact searches pass their
    budget: ``none`` refuses, ``ganak`` model-counts the encoding exactly (no budget),
    ``approx`` estimates it with ApproxMC (``epsilon``/``delta``); ``engine`` names the one
    that answered and ``exact`` says whether the count is exact.

    >>> from nesybench.logic import make_knowledge
    >>> r = count_disentangled(CountingTask(make_knowledge("sum", (10, 10))))
    >>> r.n_opt, r.n_distinct                  # the identity and the swap of the two digits
    (2, 2)
    """
    from .search import MAX_MEMORY, MAX_SUBPROBLEMS, _Budget

    _check_options("disentangled", method, epsilon, delta, max_subproblems, max_states, max_memory)
    if fallback not in FALLBACKS:
        raise bad_value("fallback", f"one of {', '.join(FALLBACKS)}", fallback, where="count")
    if method == "auto":
        method = "exact"
    if method == "factored":
        raise InputError(
            "method factored: the product over states exists only for the joint extractor"
        )
    common = _common(task, "disentangled", method, fixed_permutation)
    budget = MAX_SUBPROBLEMS if max_subproblems is None else max_subproblems
    if method == "approx":
        return _approx(
            _disentangled_cnf(task, fixed_permutation, method), common, epsilon, delta, seed
        )
    if method == "permutations":
        from .oracles import count_disentangled_per_permutation

        knowledge = _binary(task, method)
        n_counts = 1 if fixed_permutation else math.factorial(task.k)
        if budget and n_counts > PERMUTATIONS_MAX_COUNTS:
            raise InputError(
                f"method permutations: runs up to k! = {n_counts:,} model counts at k={task.k} "
                f"(about {n_counts * 0.07 / 3600:,.1f} h at 70 ms each), above "
                f"{PERMUTATIONS_MAX_COUNTS:,}; use --method exact, or --max-subproblems 0 to run "
                "it anyway"
            )
        value = count_disentangled_per_permutation(
            knowledge,
            list(task.observed_states()),
            supervised=task.supervised,
            fixed_permutation=fixed_permutation,
            seed=seed,
        )
        return _exact(
            value,
            common,
            n_distinct=None,
            n_distinct_reason="the per-permutation path counts pairs only",
            engine="per-permutation model counts",
            dimacs=_dimacs_artifact(task, fixed_permutation) if with_dimacs else "",
        )
    if method == "enumerate":
        return _enumerate_disentangled(task, fixed_permutation, common)
    memory = MAX_MEMORY if max_memory is None else max_memory or None
    table_budget = _Budget(
        None, "disentangled count", "", memory_limit=memory, memory_option="--max-memory"
    )
    codes = _label_table(task, "disentangled", max_states, table_budget)
    rows = task.observed_rows()
    pinned = task.pinned_mask()
    from .bypermutation import disentangled_by_permutation, n_domain_permutations

    n_perms = 1 if fixed_permutation else n_domain_permutations(task.domains)
    if not task.is_binary and n_perms <= PER_PERMUTATION_MAX:
        pairs, n_distinct, used = disentangled_by_permutation(
            codes,
            task.domains,
            rows,
            pinned=pinned,
            fixed_permutation=fixed_permutation,
            distinct=distinct,
            max_subproblems=budget,
            option="--max-subproblems",
            max_memory=None if memory is None else max(1, memory - table_budget.held),
        )
        engine = "one constraint problem per permutation (component search, elimination)"
    else:
        observed = states_index(rows, task.domains)
        left = None if memory is None else max(1, memory - table_budget.held)
        found, engine = _disentangled_engines(
            task,
            codes,
            observed,
            pinned,
            fixed_permutation,
            budget,
            left,
            (fallback, epsilon, delta, seed),
        )
        if isinstance(found, CountResult):  # the fallback's model count
            return found
        pairs, n_distinct, used = found.n_pairs, found.n_distinct, found.subproblems
    return _exact(
        pairs,
        common,
        n_distinct=n_distinct,
        n_distinct_reason=None if n_distinct is not None else "not asked for (distinct=False)",
        engine=engine,
        subproblems=used,
        dimacs=_dimacs_artifact(task, fixed_permutation) if with_dimacs else "",
    )


def _disentangled_engines(
    task, codes, observed, pinned, fixed_permutation, budget, memory, fallback_options
) -> tuple:
    """(the count, the engine that answered) for a binary (or many-permutation) task.

    Each engine's cost is estimated before it runs.  The small-class count is estimated from
    the size of the small label class (``smallclass.applies``: at most ``MAX_CLASS`` points,
    one anchored search each), its memory (``smallclass.memory_estimate``, the 3^k subcube
    table) and the work of that table (``smallclass.work_floor``); where it does not apply
    the search runs alone, exactly as before.  Where it applies and is expected to be cheap
    (``smallclass.narrow``: the closed form, or the class spans at most half the outputs) it
    gets a trial of its table's work plus TRIAL sub-problems (it answers the narrow classes
    of the benchmark's random 3-CNFs there); past it the search runs on the whole budget
    (none when ``max_subproblems=0``), as before, and past that the small-class count gets
    the rest of its share (1/SMALL_CLASS_SHARE of the budget).  The search has no estimate
    that the task's sizes give (k-bit parity at full support is one sub-problem per level, a
    random CNF at half support passes any budget), so it is never run twice.  Where the class
    is not narrow, or its trial did not answer, the sweep over the inputs
    (``inputsweep.applies``: at most ``inputsweep.MAX_CLASS`` points, a free permutation) runs
    before the search, on the same share of the budget: it answers the k = 12 random 3-CNF at
    half support, six models over 11 of 12 outputs, which both others leave past their
    budgets; with no point of the class observed it was faster than the search on every task
    measured (where it passed its share, the search passed the whole budget too), and it
    answers in 0.3 s the narrow k = 12 class (four models, one observed, 10% support) whose
    trial the anchored count passed and that the search then left past its budget in a
    minute.  Where all pass their budgets, ``fallback`` says
    what answers:
    ``none`` refuses (naming the options), ``ganak`` the exact projected model count of the
    disentangled encoding, ``approx`` ApproxMC's (epsilon, delta) estimate of it.
    """
    from . import inputsweep, smallclass
    from .search import (
        MAX_SUBPROBLEMS,
        MemoryTooLarge,
        SearchTooLarge,
        _Budget,
        disentangled_search,
    )

    fallback = fallback_options[0]

    def search(limit: int | None):
        return disentangled_search(
            codes,
            task.domains,
            observed,
            pinned=pinned,
            fixed_permutation=fixed_permutation,
            max_subproblems=limit,
            option="--max-subproblems",
            max_memory=memory,
        )

    small = smallclass.applies(codes, task.domains, observed, pinned) and (
        memory is None
        or smallclass.memory_estimate(task.k, smallclass.two_point_closed_form(codes, observed))
        <= memory
    )
    share_cap = max(1, (budget or MAX_SUBPROBLEMS) // SMALL_CLASS_SHARE)
    floor = smallclass.work_floor(task.k)

    def share(what: str, limit: int = share_cap) -> _Budget:  # a count from the class
        return _Budget(
            min(limit, share_cap),
            what,
            "--max-subproblems",
            memory_limit=memory,
            memory_option="--max-memory",
        )

    def small_class(limit: int):
        found = smallclass.disentangled_small_class(
            codes,
            task.k,
            observed,
            fixed_permutation=fixed_permutation,
            budget=share("disentangled count from the small label class", limit),
        )
        closed = smallclass.closed_form(codes, observed)
        return found, CLOSED_FORM_ENGINE if closed else SMALL_CLASS_ENGINE

    narrow = small and smallclass.narrow(codes, observed)
    if narrow:  # a trial: table + TRIAL
        try:
            return small_class(floor + TRIAL)
        except MemoryTooLarge:
            small = False  # estimated within the limit but held more: the search may fit
        except SearchTooLarge:
            small = floor + TRIAL < share_cap
    if inputsweep.applies(codes, task.domains, pinned, fixed_permutation):
        try:
            found = inputsweep.disentangled_input_sweep(
                codes,
                task.k,
                observed,
                budget=share("disentangled count by the sweep over the inputs"),
            )
            return found, INPUT_SWEEP_ENGINE
        except SearchTooLarge:  # memory refusals included: the search may hold less
            pass
    refusal: SearchTooLarge | None = None
    try:
        return search(budget), SEARCH_ENGINE
    except MemoryTooLarge:
        raise  # the other engines would not hold less
    except SearchTooLarge as exc:
        refusal = exc
    if small:  # the rest of its share
        try:
            return small_class(share_cap)
        except SearchTooLarge:
            pass
    if fallback == "none":
        fix = (
            "; or --fallback ganak for an exact projected model count of its CNF "
            "encoding (no budget: it may run long), --fallback approx for ApproxMC's "
            "(epsilon, delta) estimate"
            if isinstance(task.knowledge, Knowledge)
            else ""
        )
        raise SearchTooLarge(f"{refusal}{fix}") from None
    return _fallback_count(task, fixed_permutation, fallback_options, memory, refusal), "fallback"


def _fallback_count(task, fixed_permutation, fallback_options, memory, refusal) -> CountResult:
    """The disentangled encoding's model count (projected on pi, t, v) when the searches
    refuse: exact through Ganak, or ApproxMC's estimate when asked for.  Its size is estimated
    (clauses, bytes) and refused before it is built."""
    from .search import _Budget

    fallback, epsilon, delta, seed = fallback_options
    method = f"fallback {fallback}"
    _binary(task, method)
    clauses = _encoding_clauses(task)
    _Budget(
        None,
        f"disentangled count ({method})",
        "",
        memory_limit=memory,
        memory_option="--max-memory",
    ).hold(clauses * ENCODING_BYTES_PER_CLAUSE, f"the CNF encoding (about {clauses:,} clauses)")
    cnf = _disentangled_cnf(task, fixed_permutation, method)
    common = _common(task, "disentangled", "exact", fixed_permutation)
    why = "the exact searches passed their budget" if refusal else "asked for"
    if fallback == "approx":
        estimate = _approx(cnf, common, epsilon, delta, seed)
        return dataclasses.replace(estimate, engine=f"approxmc ({why})")
    value = ExactCounter(seed=seed).count(cnf).value
    return _exact(
        value,
        common,
        n_distinct=None,
        n_distinct_reason="the projected model count counts pairs (pi, f), not distinct maps",
        engine=f"ganak: projected model count of the disentangled encoding ({why})",
    )


def _encoding_clauses(task: CountingTask) -> int:
    """Clauses of the disentangled encoding, estimated: the permutation's at-most-one pairs and,
    per observed state and output, the source bit, the bit map and the label's clauses."""
    k = task.k
    return 2 * k * k * (k - 1) // 2 + 8 * k * task.n_observed * 4


def _disentangled_cnf(task: CountingTask, fixed_permutation: bool, method: str):
    knowledge = _binary(task, method)
    k = task.k
    clauses = _encoding_clauses(task)
    if clauses > ENCODING_MAX_CLAUSES:
        raise InputError(
            f"method {method}: the disentangled encoding would have about {clauses:,} clauses at "
            f"k={k}, above {ENCODING_MAX_CLAUSES:,}; use --method exact"
        )
    return disentangled_encoding(
        knowledge,
        list(task.observed_states()),
        supervised=task.supervised,
        fixed_permutation=fixed_permutation,
    )


def _dimacs_artifact(task: CountingTask, fixed_permutation: bool) -> str:
    """The single-formula encoding beside an exact binary count (small k only)."""
    if not isinstance(task.knowledge, Knowledge) or task.k > DIMACS_ARTIFACT_MAX_K:
        return ""
    return _disentangled_cnf(task, fixed_permutation, "exact").to_dimacs()


def _enumerate_disentangled(task: CountingTask, fixed_permutation: bool, common) -> CountResult:
    from .oracles import enumerate_disentangled

    support = list(task.observed_states())
    pairs = enumerate_disentangled(
        task.knowledge, support, supervised=task.supervised, fixed_permutation=fixed_permutation
    )
    if pairs * task.n_states <= DISTINCT_ENUMERATION_MAX:
        _, distinct = enumerate_disentangled(
            task.knowledge,
            support,
            supervised=task.supervised,
            fixed_permutation=fixed_permutation,
            distinct=True,
        )
        return _exact(pairs, common, n_distinct=distinct, engine="enumeration")
    return _exact(
        pairs,
        common,
        n_distinct=None,
        n_distinct_reason=f"listing the maps of {pairs:,} pairs over {task.n_states:,} states "
        "is above the enumeration limit; use --method exact",
        engine="enumeration",
    )


def count_shared(
    task: CountingTask,
    *,
    method: str = "auto",
    max_subproblems: int | None = None,
    max_states: int | None = MAX_SEARCH_STATES,
    max_memory: int | None = None,
) -> CountResult:
    """N_opt of the shared family (one map f for every concept) on ``task``.

    ``method``: ``auto``/``exact`` (a search over the values of f), ``enumerate``
    (every map, d^d <= 3,000,000).  Needs equal domains.

    >>> from nesybench.logic import make_knowledge
    >>> count_shared(CountingTask(make_knowledge("sum", (10, 10)))).n_opt
    1
    """
    from .bypermutation import shared_by_constraints, shared_cells
    from .search import (
        MAX_MEMORY,
        MAX_SUBPROBLEMS,
        _Budget,
        shared_all_maps,
        shared_by_completion,
        shared_search,
    )

    _check_options("shared", method, 0.8, 0.2, max_subproblems, max_states, max_memory)
    dims = task.domains
    if len(set(dims)) != 1:
        raise InputError(
            f"extractor shared: one map for every concept needs equal domains, got {list(dims)}"
        )
    if method == "auto":
        method = "exact"
    if method not in ("exact", "enumerate"):
        raise InputError(f"method {method}: the shared extractor counts by exact or enumerate")
    common = _common(task, "shared", method, False)
    if method == "enumerate":
        from .oracles import enumerate_shared

        value = enumerate_shared(
            task.knowledge, list(task.observed_states()), supervised=task.supervised
        )
        return _exact(value, common, engine="enumeration")
    budget = _Budget(
        MAX_SUBPROBLEMS if max_subproblems is None else max_subproblems or None,
        "shared count",
        "--max-subproblems",
        memory_limit=MAX_MEMORY if max_memory is None else max_memory or None,
        memory_option="--max-memory",
    )
    codes = _label_table(task, "shared", max_states, budget)
    rows = task.observed_rows()
    pinned = task.pinned_mask()
    d = dims[0]
    if d**d <= SHARED_ALL_MAPS:
        found = shared_all_maps(
            codes, d, task.k, states_index(rows, dims), pinned=pinned, budget=budget
        )
        value, engine = found.n_pairs, f"every one of the {d**d} maps f checked"
    elif shared_cells(d, rows) <= SHARED_CONSTRAINT_MAX_CELLS:
        value = shared_by_constraints(codes, d, task.k, rows, pinned=pinned, budget=budget)
        engine = "one constraint problem over the values of f (component search, elimination)"
    elif task.n_states <= SHARED_RESIDUAL_MAX_STATES:
        found = shared_search(
            codes, d, task.k, states_index(rows, dims), pinned=pinned, budget=budget
        )
        value, engine = found.n_pairs, "search over the values of f"
    else:
        found = shared_by_completion(
            codes, d, task.k, states_index(rows, dims), pinned=pinned, budget=budget
        )
        value, engine = found.n_pairs, "partial maps f checked on completed states"
    return _exact(value, common, engine=engine, subproblems=budget.used)


def count_optima(
    knowledge,
    support: Sequence[str] | None = None,
    *,
    extractor: str = "joint",
    fixed_permutation: bool = False,
    supervised: Sequence[str] = (),
    method: str = "auto",
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 0,
    max_subproblems: int | None = None,
    max_states: int | None = MAX_SEARCH_STATES,
    with_dimacs: bool = False,
    max_memory: int | None = None,
    fallback: str = "none",
) -> CountResult:
    """Count the label-preserving relabelings of ``knowledge`` on ``support``.

    Parameters
    ----------
    knowledge : Knowledge, SumKnowledge, TableKnowledge or CountingTask
        The label map K (its ``domains`` fix the states); a task brings its own
        support and supervision.
    support : sequence of str or None
        Observed states (bit strings for binary concepts, ``3:5`` otherwise);
        None means every state (only the joint family's factored count
        accepts it at any size).
    extractor : {"joint", "disentangled", "shared"}, keyword-only
    fixed_permutation : bool, keyword-only
        Disentangled only: pi is the identity.
    supervised : sequence of str, keyword-only
        Observed states whose image is pinned to themselves.
    method : {"auto", "enumerate", "factored", "exact", "approx", "permutations"}, keyword-only
        ``auto`` is ``factored`` for joint and ``exact`` otherwise; see
        :func:`count_joint`, :func:`count_disentangled`, :func:`count_shared`.
    epsilon, delta : float, keyword-only
        ApproxMC guarantee: P[N/(1+eps) <= N_hat <= (1+eps) N] >= 1 - delta,
        epsilon in (0, 10].
    seed : int, keyword-only
        Solver seed (Ganak; ApproxMC's hashing).
    max_subproblems, max_states : int, keyword-only
        Budgets of the exact searches (0 = no limit).
    max_memory : int, keyword-only
        Bytes the exact searches may hold (None: 2^30; 0 = no limit); charged before
        each large structure is built, so a count past it stops with the estimate.
    with_dimacs : bool, keyword-only
        Disentangled exact counts: also return the DIMACS encoding (``dimacs``).
    fallback : {"none", "ganak", "approx"}, keyword-only
        Disentangled, binary: what answers where the exact searches pass their budget
        (see :func:`count_disentangled`).

    Returns
    -------
    CountResult

    Examples
    --------
    >>> from nesybench.logic import make_knowledge
    >>> count_optima(make_knowledge("xor", 2), ["00", "01", "10", "11"]).n_opt
    16
    """
    _check_options(extractor, method, epsilon, delta, max_subproblems, max_states, max_memory)
    if fixed_permutation and extractor != "disentangled":
        raise InputError("fixed_permutation: applies only to the disentangled extractor")
    if fallback != "none" and extractor != "disentangled":
        raise bad_value("fallback", "none unless the extractor is disentangled", fallback)
    if isinstance(knowledge, CountingTask):
        if support is not None or supervised:
            raise InputError("support, supervised: a CountingTask carries its own")
        task = knowledge
    else:
        task = CountingTask(
            knowledge, None if support is None else tuple(support), tuple(supervised)
        )
    if task.support is None and not (extractor == "joint" and method in ("auto", "factored")):
        if task.n_states > LIST_STATES_MAX and extractor == "joint":
            raise InputError(
                f"support: an implicit full support of {task.n_states:,} states needs the joint "
                "extractor with method factored"
            )
    if extractor == "joint":
        return count_joint(task, method=method, epsilon=epsilon, delta=delta, seed=seed)
    if extractor == "disentangled":
        return count_disentangled(
            task,
            method=method,
            fixed_permutation=fixed_permutation,
            epsilon=epsilon,
            delta=delta,
            seed=seed,
            max_subproblems=max_subproblems,
            max_states=max_states,
            with_dimacs=with_dimacs,
            max_memory=max_memory,
            fallback=fallback,
        )
    return count_shared(
        task,
        method=method,
        max_subproblems=max_subproblems,
        max_states=max_states,
        max_memory=max_memory,
    )


# ---- membership ----------------------------------------------------------------


def is_optimum(
    alpha: Mapping[str, str],
    knowledge,
    support: Sequence[str],
    *,
    missing: str = "error",
) -> bool:
    """True when the relabeling ``alpha`` (state -> state) keeps K(alpha(g)) == K(g) on every
    observed g.

    The joint family's membership test: a learned relabeling is one of the
    N_opt counted optima exactly when this holds.  ``knowledge`` is a knowledge
    object or a mapping from state string to label.  An observed state without
    an image is an error (``missing="error"``) or makes alpha fail
    (``missing="reject"``).

    >>> from nesybench.logic import make_knowledge
    >>> is_optimum({"00": "11", "01": "10"}, make_knowledge("xor", 2), ["00", "01"])
    True
    """
    if missing not in ("error", "reject"):
        raise InputError(f"missing must be 'error' or 'reject', got {missing!r}")
    support = list(support)
    if isinstance(knowledge, Mapping):
        labels = knowledge

        def label(state: str, where: str):
            if state not in labels:
                raise InputError(f"{where}: {state!r} is not a state of the knowledge")
            return labels[state]

        for g in support:
            if g not in alpha:
                if missing == "reject":
                    return False
                raise InputError(f"alpha: no image for observed state {g!r}")
            if label(alpha[g], f"alpha[{g}]") != label(g, "support"):
                return False
        return True
    dims = knowledge.domains
    from ..logic.states import parse_states

    support = parse_states(support, dims, field_name="support")
    images = []
    for g in support:
        if g not in alpha:
            if missing == "reject":
                return False
            raise InputError(f"alpha: no image for observed state {g!r}")
        images.append(parse_state(alpha[g], dims, field_name=f"alpha[{g}]"))
    if not support:
        return True
    observed = np.array([parse_state(g, dims) for g in support], dtype=np.int64)
    return bool(
        np.array_equal(
            knowledge.labels(observed), knowledge.labels(np.array(images, dtype=np.int64))
        )
    )
