"""Which observed states to give concept labels to: a greedy supervision plan.

A concept label on an observed state g pins its image, alpha(g) = g, and
removes every optimum that moves g.  With a budget of B labels,
:func:`plan_supervision` picks greedily: at each step the state whose label
leaves the fewest optima (N_opt recounted exactly for every candidate; ties go
to the state listed first), and it stops early once N_opt = 1 (only the
identity is left, so further labels remove nothing).  For small cases it also
finds the exact optimum, the best set of b labels for each b <= B by trying
every subset, so the greedy gap is visible.

The identity always survives, so N_opt >= 1 and a greedy run that reaches 1
is optimal.  For the joint family the greedy choice is exactly optimal at any
budget (each label divides N_opt by its state's label-class size,
independently of the others); the disentangled and shared families couple the
states, and there greedy can fall short.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..progress import log
from .optima import (
    EXTRACTORS,
    CountResult,
    class_sizes,
    count_disentangled,
    count_joint,
    count_shared,
)
from .search import MAX_SUBPROBLEMS, SearchTooLarge
from .task import CountingTask

__all__ = ["SupervisionPlan", "plan_supervision", "EXACT_PLAN_MAX_SUBSETS"]

EXACT_PLAN_MAX_SUBSETS = 5000  # subsets tried for the exact optimum (all budgets together)
PROGRESS_MIN_CANDIDATES = 200  # a greedy step over this many candidates logs a progress line


@dataclass(frozen=True)
class SupervisionPlan:
    """The greedy picks with N_opt after each, and the exact optimum where it was computed.

    ``n_opt[0]`` is N_opt before any new label; ``n_opt[b]`` after the b-th
    pick.  ``optimum[b - 1]`` is ``(best states, N_opt)`` for b labels, or None
    where trying every subset was too costly (``optimum_reason`` says why).
    """

    extractor: str
    budget: int
    n_candidates: int
    picks: tuple[str, ...]
    n_opt: tuple[int, ...]
    log2_n_opt: tuple[float, ...]
    optimum: tuple[tuple[tuple[str, ...], int] | None, ...]
    optimum_reason: str | None = None

    @property
    def stopped_early(self) -> bool:
        return len(self.picks) < self.budget

    def gap(self, b: int) -> int | None:
        """Greedy N_opt minus the optimum's at budget b (None when either is unknown)."""
        if b > len(self.picks):
            greedy = self.n_opt[-1]
        else:
            greedy = self.n_opt[b]
        best = self.optimum[b - 1] if b - 1 < len(self.optimum) else None
        if best is None or greedy is None:
            return None
        return greedy - best[1]

    def to_json(self) -> dict:
        """The ``nesybench plan-supervision --json`` record (counts as decimal strings)."""
        return {
            "extractor": self.extractor,
            "budget": self.budget,
            "n_candidates": self.n_candidates,
            "n_opt_before": _str(self.n_opt[0]),
            "picks": [
                {"state": s, "n_opt": _str(n), "log2_n_opt": lg}
                for s, n, lg in zip(self.picks, self.n_opt[1:], self.log2_n_opt[1:])
            ],
            "stopped_early": self.stopped_early,
            "optimum": [
                None
                if best is None
                else {"budget": b, "states": list(best[0]), "n_opt": _str(best[1])}
                for b, best in enumerate(self.optimum, start=1)
            ],
            "greedy_gap": [self.gap(b) for b in range(1, len(self.optimum) + 1)],
            "optimum_reason": self.optimum_reason,
        }


def _str(value: int | None) -> str | None:
    return None if value is None else str(value)


def _counter(extractor: str, **options) -> Callable[[CountingTask], CountResult]:
    if extractor == "joint":
        return lambda task: count_joint(task)
    if extractor == "disentangled":
        return lambda task: count_disentangled(task, distinct=False, **options)
    return lambda task: count_shared(task, **options)


def _key(result: CountResult) -> tuple:
    return (result.log2_n_opt, result.n_opt if result.n_opt is not None else 0)


class _JointKeys:
    """The joint family in closed form: a label on g divides N_opt by |class(g)|, so ranking a
    set of labels needs no recount (one count of the task, then one division per set)."""

    def __init__(self, task: CountingTask, candidates: list[str]) -> None:
        from ..logic.states import parse_state

        self.base = count_joint(task)
        rows = np.array([parse_state(g, task.domains) for g in candidates], dtype=np.int64)
        codes = task.knowledge.labels(rows.reshape(-1, task.k)) if candidates else []
        sizes = class_sizes(task.knowledge)
        self.size = {g: sizes[int(c)] for g, c in zip(candidates, np.asarray(codes).tolist())}

    def key(self, states) -> tuple:
        """Orders label sets as ``_key`` orders their recounted results (N_opt, exactly)."""
        divisor = math.prod(self.size[g] for g in states)
        if self.base.n_opt is not None:
            return (0.0, self.base.n_opt // divisor)
        return (self.base.log2_n_opt - sum(math.log2(self.size[g]) for g in states), 0)

    def is_one(self, states) -> bool:
        return self.base.n_opt is not None and self.base.n_opt == math.prod(
            self.size[g] for g in states
        )


def _check_plan_cost(n_candidates: int, budget: int, limit) -> None:
    """Refuse at once a plan whose first pick alone would pass the work budget.

    The first pick recounts N_opt for each candidate (at least one sub-problem each) unless
    a candidate leaves N_opt = 1; later picks stop as soon as N_opt reaches 1, so the
    candidates x picks worst case would refuse plans that finish in seconds (rsbench's
    OIA tasks: 41,616 counts at worst, 207 run).  What the later picks spend is metered.
    """
    if limit and n_candidates > limit:
        raise SearchTooLarge(
            f"plan-supervision: the greedy plan's first pick recounts N_opt for each of "
            f"{n_candidates:,} candidates (up to {n_candidates * budget:,} counts over "
            f"{budget} picks), above the limit of {limit:,} sub-problems; raise it with "
            "--max-subproblems N (0 = no limit), or plan on a smaller support"
        )


def _metered(count, limit, most: int):
    """``count`` that adds each recount's sub-problems to the plan's total and stops the plan
    with the figures once the total passes ``limit``; logs progress every few seconds."""
    spent = {"units": 0, "counts": 0, "logged": time.monotonic()}

    def metered(task: CountingTask) -> CountResult:
        result = count(task)
        spent["units"] += max(1, result.subproblems)
        spent["counts"] += 1
        if time.monotonic() - spent["logged"] > 5:
            log(
                f"plan-supervision: {spent['counts']:,} of up to {most:,} counts, "
                f"{spent['units']:,} sub-problems"
            )
            spent["logged"] = time.monotonic()
        if limit and spent["units"] > limit:
            raise SearchTooLarge(
                f"plan-supervision: the recounts passed {limit:,} sub-problems after "
                f"{spent['counts']:,} of up to {most:,} counts; raise the limit with "
                "--max-subproblems N (0 = no limit), or plan on a smaller support"
            )
        return result

    return metered


def plan_supervision(
    task: CountingTask,
    budget: int,
    *,
    extractor: str = "disentangled",
    exact_max_subsets: int = EXACT_PLAN_MAX_SUBSETS,
    max_subproblems: int | None = None,
    max_memory: int | None = None,
) -> SupervisionPlan:
    """Choose up to ``budget`` observed states to label, greedily, and the exact optimum if small.

    Parameters
    ----------
    task : CountingTask
        Knowledge, support (and states already supervised, which stay).
    budget : int
        Number of new concept labels, at most the observed states not yet supervised.
    extractor : {"joint", "disentangled", "shared"}, keyword-only
    exact_max_subsets : int, keyword-only
        Try every subset for the exact optimum while the subsets of all budgets
        b <= B number at most this (0: never).
    max_subproblems : int, keyword-only
        Budget of each recount, and of the whole plan: a plan whose first pick
        (one recount per candidate) would pass it is refused at once; the plan stops
        with the figures once its recounts pass it (None: the default; 0: none).
    max_memory : int, keyword-only
        Bytes each recount may hold (None: the engines' default; 0: none).

    Examples
    --------
    >>> from nesybench.logic import make_knowledge
    >>> plan = plan_supervision(CountingTask(make_knowledge("sum", (10, 10))), 1)
    >>> plan.n_opt, plan.picks                 # one label on 0:1 rules out the swap
    ((2, 1), ('0:1',))
    """
    if extractor not in EXTRACTORS:
        raise InputError(f"extractor must be one of {', '.join(EXTRACTORS)}, got {extractor!r}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InputError(f"budget must be an integer >= 1, got {budget!r}")
    pinned = set(task.supervised)
    n_candidates = task.n_observed - len(pinned)
    if budget > n_candidates:
        raise InputError(
            f"budget: {budget} labels asked, but only {n_candidates} observed state"
            f"{'s' if n_candidates != 1 else ''} can still be labelled"
        )
    limit = MAX_SUBPROBLEMS if max_subproblems is None else max_subproblems
    if extractor != "joint":  # each recount costs at least one sub-problem: refuse at once
        _check_plan_cost(n_candidates, budget, limit)
    candidates = [s for s in task.observed_states() if s not in pinned]
    options = (
        {"max_subproblems": max_subproblems, "max_memory": max_memory}
        if extractor != "joint"
        else {}
    )
    count = _counter(extractor, **options)
    count = _metered(count, limit if extractor != "joint" else 0, n_candidates * budget)
    start = count(task)
    joint = _JointKeys(task, candidates) if extractor == "joint" else None
    picks: list[str] = []
    n_opt, log2s = [start.n_opt], [start.log2_n_opt]
    current = start
    while len(picks) < budget and not (current.n_opt == 1):
        if len(candidates) >= PROGRESS_MIN_CANDIDATES and joint is None:
            log(
                f"plan-supervision: pick {len(picks) + 1} of {budget}, "
                f"{len(candidates) - len(picks)} candidates ({extractor})"
            )
        best, best_result = None, None
        if joint is not None:  # the same pick as recounting every candidate, in closed form
            best = min(
                (g for g in candidates if g not in picks), key=lambda g: joint.key([*picks, g])
            )
            best_result = count(task.with_supervised([*task.supervised, *picks, best]))
        for state in candidates if joint is None else ():
            if state in picks:
                continue
            result = count(task.with_supervised([*task.supervised, *picks, state]))
            if best_result is None or _key(result) < _key(best_result):
                best, best_result = state, result
            if result.n_opt == 1:  # only the identity is left: no label can do better
                break
        picks.append(best)
        n_opt.append(best_result.n_opt)
        log2s.append(best_result.log2_n_opt)
        current = best_result
    optimum, reason = _optimum(
        task, candidates, budget, count, picks, n_opt, exact_max_subsets, joint
    )
    return SupervisionPlan(
        extractor=extractor,
        budget=budget,
        n_candidates=len(candidates),
        picks=tuple(picks),
        n_opt=tuple(n_opt),
        log2_n_opt=tuple(log2s),
        optimum=tuple(optimum),
        optimum_reason=reason,
    )


def _optimum(task, candidates, budget, count, picks, n_opt, limit, joint=None):
    optimum: list = []
    reason = None
    tried = 0
    for b in range(1, budget + 1):
        if b <= len(picks) and n_opt[b] == 1:
            optimum.append((tuple(picks[:b]), 1))  # 1 is the least any labelling leaves
            continue
        if b > len(picks):  # greedy already reached N_opt = 1 with fewer labels
            optimum.append((tuple(picks), 1))
            continue
        n_subsets = math.comb(len(candidates), b)
        if tried + n_subsets > limit:
            optimum.append(None)
            reason = (
                f"the exact optimum for {b} labels needs {n_subsets:,} subsets of the "
                f"{len(candidates)} candidates (limit {limit:,} in all)"
            )
            continue
        tried += n_subsets
        if n_subsets >= PROGRESS_MIN_CANDIDATES:
            log(f"plan-supervision: exact optimum for {b} labels, {n_subsets:,} subsets")
        best, best_result = None, None
        if joint is not None:  # the first subset with the fewest optima, without recounting
            best_key = None
            for subset in itertools.combinations(candidates, b):
                key = joint.key(subset)
                if best_key is None or key < best_key:
                    best, best_key = subset, key
                if joint.is_one(subset):
                    break
            best_result = count(task.with_supervised([*task.supervised, *best]))
        for subset in itertools.combinations(candidates, b) if joint is None else ():
            result = count(task.with_supervised([*task.supervised, *subset]))
            if best_result is None or _key(result) < _key(best_result):
                best, best_result = subset, result
            if result.n_opt == 1:
                break
        optimum.append((tuple(best), best_result.n_opt))
    return optimum, reason
