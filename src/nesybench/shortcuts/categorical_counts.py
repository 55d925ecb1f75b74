"""MNIST-Addition count tables: the three extractor families on categorical concepts, certified.

:func:`categorical_count_tables` takes the ``shortcuts.categorical`` section of
params.yaml::

    categorical:
      extractors: [joint, disentangled, shared]
      budget: 2                       # concept labels in each supervision plan
      exact_max_subsets: 5000         # subsets tried for the plan's exact optimum
      tasks:
        mnadd2:
          knowledge: sum
          domains: [10, 10]
          supports: {full: all, same_parity: same_parity, evenodd: rsbench_evenodd}

and returns one row per (task, support, extractor) with N_opt, log2 N_opt and
``n_distinct``, one row per supervision-plan step, and flat metrics.  A support
is a name or an explicit list of states (``["0:6", "6:0"]``):

* ``all`` -- every state;
* ``same_parity`` -- the states whose values all have the same parity;
* ``rsbench_evenodd`` -- the training support of rsbench's MNAdd-EvenOdd
  (MNIST-Even-Odd, rsbench's ``shortmnist`` dataset: the filter of
  ``rsseval/rss/datasets/shortcutmnist.py`` in unitn-sml/rsbench-code, which
  keeps the digit pairs 0+6, 2+8, 4+6, 4+8, 1+5, 3+7, 1+9, 3+9 and each pair
  swapped: 16 ordered pairs, all even-even or odd-odd; it exists for two
  digits 0-9 only).

Every number is checked before it is returned (``ClaimFailed`` otherwise):

* closed forms: the joint count equals prod over observed g of |class(K(g))|
  times |G|^(unobserved), with the class sizes tallied from every state; at
  full support a sum admits exactly one shared map (the identity) and, for the
  disentangled family, exactly the prod_D m_D! permutations of equal-domain
  digits with identity maps; on rsbench's even-odd support the shared family
  has exactly 36 maps (f(4) = 10 - f(6), f(8) = 2 + f(6), f(2) = 8 - f(6),
  f(0) = 6 - f(6) keep every value in 0..9 only for f(6) in 1..6, and the odd
  digits likewise for f(1) in 1..6);
* enumeration where it runs (pairs or maps checked one by one; the shared
  family one connected component of values at a time), and the same support
  rule on digits 0..2, where every family is enumerated;
* the two exact disentangled engines (the search with shared sub-problems and
  the per-permutation component search) agree;
* shared <= disentangled, n_distinct <= N_opt, disentangled n_distinct <= joint,
  and a smaller support never has fewer optima;
* each plan's N_opt never grows along the picks, and its exact optimum is at
  most the greedy count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..counting import (
    CountingTask,
    count_disentangled,
    count_joint,
    count_shared,
    enumerate_disentangled,
    enumerate_joint_images,
    enumerate_shared,
    plan_supervision,
)
from ..counting.bypermutation import disentangled_by_permutation
from ..counting.oracles import ENUMERATION_LIMIT
from ..counting.search import disentangled_search
from ..counting.tasks import RSBENCH_EVEN_ODD_PAIRS  # read from rsbench's code, once
from ..errors import InputError, check_claim
from ..logic.knowledge import make_knowledge
from ..logic.states import all_states, parse_states, state_str, states_index

__all__ = [
    "CategoricalCounts",
    "categorical_count_tables",
    "named_support",
    "RSBENCH_EVEN_ODD_PAIRS",
    "SUPPORT_NAMES",
]

SUPPORT_NAMES = ("all", "same_parity", "rsbench_evenodd")
FAMILIES = ("joint", "disentangled", "shared")
REDUCED_DIGITS = 3  # the enumeration cross-check runs the same support rule on digits 0..2
EVEN_ODD_SHARED = 36


def named_support(name: str, domains) -> tuple[str, ...] | None:
    """The states of a named support (None for ``all``), in ``all_states`` order.

    >>> len(named_support("rsbench_evenodd", (10, 10))), len(named_support("same_parity", (10, 10)))
    (16, 50)
    """
    dims = tuple(domains)
    if name == "all":
        return None
    grid = all_states(dims)
    if name == "same_parity":
        keep = (grid % 2 == grid[:, :1] % 2).all(axis=1)
        return tuple(state_str(row, dims) for row in grid[keep])
    if name == "rsbench_evenodd":
        if dims != (10, 10):
            raise InputError(
                f"support rsbench_evenodd: rsbench's MNAdd-EvenOdd pairs are two digits 0-9 "
                f"(domains [10, 10]), got domains {list(dims)}"
            )
        pairs = set(RSBENCH_EVEN_ODD_PAIRS) | {(b, a) for a, b in RSBENCH_EVEN_ODD_PAIRS}
        return tuple(state_str(p, dims) for p in sorted(pairs))
    raise InputError(f"support must be one of {', '.join(SUPPORT_NAMES)} or a list, got {name!r}")


@dataclass(frozen=True)
class CategoricalCounts:
    """``counts``: one row per (task, support, extractor); ``plans``: one row per plan step;
    ``metrics``: flat ``categorical.<task>.<support>.<extractor>.<name>`` numbers."""

    counts: pd.DataFrame
    plans: pd.DataFrame
    metrics: dict


def _task(spec: dict, support) -> CountingTask:
    """A task's counting problem on one support (both parse: checked at load time by
    :mod:`nesybench.shortcuts.params_checks`)."""
    knowledge = make_knowledge(spec["knowledge"], tuple(spec["domains"]))
    dims = knowledge.domains
    if isinstance(support, str):
        states = named_support(support, dims)
    else:
        states = tuple(parse_states(list(support), dims, field_name="states"))
    return CountingTask(knowledge, states)


def _enumerated(task: CountingTask, family: str):
    """The count by literal enumeration when it fits (pairs, distinct maps), else None."""
    dims = task.domains
    support = list(task.observed_states())
    if family == "joint":
        if task.n_states ** len(support) > ENUMERATION_LIMIT:
            return None
        value = enumerate_joint_images(task.knowledge, support)
        return value, value
    if family == "shared":
        if dims[0] ** dims[0] > ENUMERATION_LIMIT:
            return None
        value = enumerate_shared(task.knowledge, support)
        return value, value
    n_perms = math.prod(math.factorial(list(dims).count(d)) for d in set(dims))
    if n_perms * math.prod(d**d for d in dims) > ENUMERATION_LIMIT:
        return None
    return enumerate_disentangled(task.knowledge, support, distinct=True)


def _shared_by_components(task: CountingTask) -> int | None:
    """Shared N_opt by enumerating f on each connected component of values (values that occur
    in one observed state are connected), constraints checked state by state; None if too big."""
    d = task.domains[0]
    rows = task.observed_rows()
    labels = task.knowledge.labels(rows)
    parent = list(range(d))

    def find(v: int) -> int:
        while parent[v] != v:
            v = parent[v]
        return v

    for row in rows.tolist():
        for v in row[1:]:
            parent[find(v)] = find(row[0])
    shown = sorted({v for row in rows.tolist() for v in row})
    components: dict[int, list[int]] = {}
    for v in shown:
        components.setdefault(find(v), []).append(v)
    total = d ** (d - len(shown))
    for values in components.values():
        if d ** len(values) > ENUMERATION_LIMIT:
            return None
        position = {v: i for i, v in enumerate(values)}
        maps = np.indices((d,) * len(values)).reshape(len(values), -1).T  # every f on the comp.
        ok = np.ones(len(maps), dtype=bool)
        for row, label in zip(rows.tolist(), labels.tolist()):
            if row[0] in position:
                images = maps[:, [position[v] for v in row]]
                ok &= task.knowledge.labels(images) == label
        total *= int(ok.sum())
    return total


def _count(task: CountingTask, family: str):
    if family == "joint":
        return count_joint(task)
    if family == "disentangled":
        return count_disentangled(task)
    return count_shared(task)


def _joint_closed_form(task: CountingTask) -> int:
    codes = task.knowledge.labels(all_states(task.domains))
    sizes = np.bincount(codes)
    observed = codes[states_index(task.observed_rows(), task.domains)]
    return math.prod(int(sizes[c]) for c in observed.tolist()) * task.n_states ** (
        task.n_states - task.n_observed
    )


def _checks(task: CountingTask, family: str, result, label: str, support_rule) -> list[str]:
    """Every independent check that applies to this count (ClaimFailed when one fails)."""
    agreed = []
    value, distinct = result.n_opt, result.n_distinct
    dims = task.domains
    full_sum = task.support is None and task.knowledge.spec == "sum"
    if family == "joint":
        closed = _joint_closed_form(task)
        check_claim(closed == value, f"{label}: joint N_opt {value} != closed form {closed}")
        agreed.append("closed_form")
    elif full_sum and family == "shared":
        check_claim(
            value == 1, f"{label}: a sum at full support admits one shared map, got {value}"
        )
        agreed.append("closed_form")
    elif full_sum:
        perms = math.prod(math.factorial(list(dims).count(d)) for d in set(dims))
        check_claim(
            value == perms == distinct,
            f"{label}: a sum at full support admits the {perms} digit permutations, got "
            f"N_opt {value}, n_distinct {distinct}",
        )
        agreed.append("closed_form")
    if family == "shared" and support_rule == "rsbench_evenodd":
        check_claim(
            value == EVEN_ODD_SHARED,
            f"{label}: rsbench's even-odd support admits {EVEN_ODD_SHARED} shared maps, "
            f"got {value}",
        )
        agreed.append("closed_form")
    if family == "shared":
        by_parts = _shared_by_components(task)
        if by_parts is not None:
            check_claim(
                by_parts == value,
                f"{label}: shared N_opt {value} != enumeration over value components {by_parts}",
            )
            agreed.append("enumeration_by_component")
    enumerated = _enumerated(task, family)
    if enumerated is not None:
        check_claim(
            tuple(enumerated) == (value, distinct),
            f"{label}: {family} (N_opt, n_distinct) = ({value}, {distinct}) != enumeration "
            f"{tuple(enumerated)}",
        )
        agreed.append("enumeration")
    if family == "disentangled":
        codes = task.knowledge.labels(all_states(dims))
        rows = task.observed_rows()
        search = disentangled_search(codes, dims, states_index(rows, dims))
        by_perm = disentangled_by_permutation(codes, dims, rows)
        check_claim(
            (search.n_pairs, search.n_distinct) == by_perm[:2] == (value, distinct),
            f"{label}: the disentangled engines disagree: search ({search.n_pairs}, "
            f"{search.n_distinct}), per permutation {by_perm[:2]}",
        )
        agreed.append("both_engines")
    return agreed


def _reduced_check(name: str, spec: dict, support_name: str, rule, families) -> list[str]:
    """The same support rule on digits 0..2, where every family is enumerated."""
    if not isinstance(rule, str) or rule == "rsbench_evenodd":
        return []
    reduced = {**spec, "domains": [min(d, REDUCED_DIGITS) for d in spec["domains"]]}
    task = _task(reduced, rule)
    for family in families:
        if family == "shared" and len(set(task.domains)) != 1:
            continue
        result = _count(task, family)
        enumerated = _enumerated(task, family)
        if enumerated is None:
            continue
        check_claim(
            tuple(enumerated) == (result.n_opt, result.n_distinct),
            f"{name} {support_name} on digits 0..{REDUCED_DIGITS - 1}: {family} "
            f"({result.n_opt}, {result.n_distinct}) != enumeration {tuple(enumerated)}",
        )
    return [f"same_rule_digits_0_{REDUCED_DIGITS - 1}"]


def categorical_count_tables(params: dict) -> CategoricalCounts:
    """Count, certify and plan every (task, support, extractor) of ``shortcuts.categorical``.

    Examples
    --------
    >>> tables = categorical_count_tables({
    ...     "extractors": ["shared", "disentangled"], "budget": 1,
    ...     "tasks": {"mnadd2": {"knowledge": "sum", "domains": [10, 10],
    ...                          "supports": {"full": "all", "evenodd": "rsbench_evenodd"}}}})
    >>> tables.counts[["support", "extractor", "n_opt", "n_distinct"]].values.tolist()
    [['evenodd', 'disentangled', '2592', '2592'], ['evenodd', 'shared', '36', '36'], \
['full', 'disentangled', '2', '2'], ['full', 'shared', '1', '1']]
    """
    families = list(params.get("extractors", FAMILIES))
    budget = int(params.get("budget", 2))
    exact_max = int(params.get("exact_max_subsets", 5000))
    rows, plan_rows, metrics = [], [], {}
    for name in sorted(params["tasks"]):
        spec = params["tasks"][name]
        counted: dict[tuple[str, str], tuple] = {}
        for support_name in sorted(spec["supports"]):
            rule = spec["supports"][support_name]
            task = _task(spec, rule)
            reduced = _reduced_check(name, spec, support_name, rule, families)
            for family in families:
                label = f"{name} {support_name} ({family})"
                result = _count(task, family)
                agreed = _checks(task, family, result, label, rule) + reduced
                counted[support_name, family] = (task, result)
                plan = plan_supervision(
                    task,
                    min(budget, task.n_observed),
                    extractor=family,
                    exact_max_subsets=exact_max,
                )
                _check_plan(plan, label)
                rows.append(_row(name, support_name, task, result, agreed, plan))
                plan_rows.extend(_plan_rows(name, support_name, plan))
                key = f"categorical.{name}.{support_name}.{family}"
                metrics[f"{key}.log2_n_opt"] = float(result.log2_n_opt)
                if result.n_opt < 2**53:
                    metrics[f"{key}.n_opt"] = int(result.n_opt)
        _check_families(name, counted, families)
    counts = pd.DataFrame(rows).sort_values(["task", "support", "extractor"], kind="mergesort")
    plans = pd.DataFrame(plan_rows, columns=PLAN_COLUMNS)
    plans = plans.sort_values(["task", "support", "extractor", "step"], kind="mergesort")
    return CategoricalCounts(
        counts.reset_index(drop=True), plans.reset_index(drop=True), dict(sorted(metrics.items()))
    )


PLAN_COLUMNS = ["task", "support", "extractor", "step", "state", "n_opt", "optimum_n_opt", "gap"]


def _row(name, support_name, task, result, agreed, plan) -> dict:
    return {
        "task": name,
        "domains": ",".join(map(str, task.domains)),
        "support": support_name,
        "n_support": task.n_observed,
        "extractor": result.extractor,
        "n_opt": str(result.n_opt),
        "log2_n_opt": float(result.log2_n_opt),
        "n_distinct": None if result.n_distinct is None else str(result.n_distinct),
        "method": result.method,
        "certified_by": ",".join(agreed),
        "plan": ",".join(plan.picks) or "-",
        "n_opt_after_plan": str(plan.n_opt[-1]),
    }


def _plan_rows(name, support_name, plan) -> list[dict]:
    out = []
    for step, state in enumerate(plan.picks, start=1):
        best = plan.optimum[step - 1] if step - 1 < len(plan.optimum) else None
        out.append(
            {
                "task": name,
                "support": support_name,
                "extractor": plan.extractor,
                "step": step,
                "state": state,
                "n_opt": str(plan.n_opt[step]),
                "optimum_n_opt": None if best is None else str(best[1]),
                "gap": None if plan.gap(step) is None else str(plan.gap(step)),
            }
        )
    return out


def _check_plan(plan, label: str) -> None:
    check_claim(
        all(a >= b for a, b in zip(plan.n_opt, plan.n_opt[1:])),
        f"{label}: the supervision plan's N_opt grew along the picks: {plan.n_opt}",
    )
    for b in range(1, len(plan.picks) + 1):
        gap = plan.gap(b)
        check_claim(
            gap is None or gap >= 0,
            f"{label}: the exact optimum for {b} labels exceeds the greedy count (gap {gap})",
        )


def _check_families(name: str, counted: dict, families) -> None:
    supports = sorted({s for s, _ in counted})
    for s in supports:
        got = {f: counted[s, f][1] for f in families if (s, f) in counted}
        if "shared" in got and "disentangled" in got:
            check_claim(
                got["shared"].n_opt <= got["disentangled"].n_opt,
                f"{name} {s}: shared N_opt {got['shared'].n_opt} > disentangled "
                f"{got['disentangled'].n_opt} (every shared map is a disentangled pair)",
            )
        if "disentangled" in got:
            dis = got["disentangled"]
            check_claim(
                dis.n_distinct <= dis.n_opt,
                f"{name} {s}: n_distinct {dis.n_distinct} > N_opt {dis.n_opt}",
            )
            if "joint" in got:
                check_claim(
                    dis.n_distinct <= got["joint"].n_opt,
                    f"{name} {s}: disentangled maps {dis.n_distinct} > joint maps",
                )
    for family in families:
        for a in supports:
            for b in supports:
                task_a, res_a = counted[a, family]
                task_b, res_b = counted[b, family]
                if set(task_a.observed_states()) < set(task_b.observed_states()):
                    check_claim(
                        res_a.log2_n_opt >= res_b.log2_n_opt,
                        f"{name} ({family}): support {a} is inside {b} but has fewer optima "
                        f"({res_a.n_opt} < {res_b.n_opt})",
                    )
