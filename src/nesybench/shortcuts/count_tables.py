"""The count stage's tables: N_opt per task x support fraction x extractor, each count
certified by every independent oracle feasible at its size, and the DIMACS formulas that were
model-counted (artifacts a user can recount with any #SAT solver)."""

from __future__ import annotations

import math

import pandas as pd

from ..counting import (
    ExactCounter,
    count_optima,
    disentangled_encoding,
    enumerate_disentangled,
    enumerate_joint,
    joint_encoding,
    knowledge_cnf,
    label_class_sizes,
    parity_closed_form,
)
from ..counting.oracles import DISENTANGLED_ENUMERATION_MAX_K, JOINT_ENUMERATION_LIMIT
from ..errors import InputError, check_claim
from ..logic.cnf import from_dimacs
from ..progress import log

JOINT_ENCODING_CERTIFY_MAX_K = (
    7  # ganak on the k * 2^k-variable joint encoding: ~1 s at k = 7, ~20 s at k = 8
)
SINGLE_FORMULA_CERTIFY_MAX_K = (
    4  # ganak on the disentangled encoding with pi as variables: 0.5 s at k = 4, 1 min at k = 6
)


def certify_row(knowledge, support, extractor, result, *, seed) -> tuple[list[str], dict]:
    """Recount with every oracle that is feasible and check they agree with ``result``.

    Returns the names of the oracles that agreed and the DIMACS formulas
    (name -> (CNF, model count)) that become artifacts.
    """
    k = knowledge.k
    value = result.value
    agreed, formulas = [], {}
    if extractor == "joint":
        if (2**k) ** (2**k) <= JOINT_ENUMERATION_LIMIT and result.method != "enumerate":
            enumerated = enumerate_joint(knowledge, support)
            check_claim(
                enumerated == value,
                f"joint N_opt {value} != literal enumeration {enumerated} (k={k}, support "
                f"{support})",
            )
            agreed.append("enumeration")
        if knowledge.is_parity:
            closed = parity_closed_form(k, len(support))
            check_claim(
                closed == value,
                f"joint N_opt {value} != parity closed form {closed} (k={k}, |s|={len(support)})",
            )
            agreed.append("closed_form")
        formulas["knowledge"] = (
            knowledge_cnf(knowledge),
            label_class_sizes(knowledge, seed=seed)[1],
        )
        if k <= JOINT_ENCODING_CERTIFY_MAX_K:
            cnf = joint_encoding(knowledge, support)
            counted = ExactCounter(seed=seed).count(cnf).value
            check_claim(
                counted == value,
                f"joint N_opt {value} != ganak count of the joint encoding {counted} (k={k})",
            )
            agreed.append("ganak_encoding")
            formulas["optima"] = (cnf, counted)
        if result.method != "factored":
            factored = count_optima(knowledge, support, method="factored", seed=seed).n_opt
            check_claim(
                factored == value, f"joint N_opt {value} != factored product {factored} (k={k})"
            )
            agreed.append("factored")
    else:
        if result.method == "enumerate":
            summed = count_optima(
                knowledge, support, extractor="disentangled", method="exact", seed=seed
            ).n_opt
            check_claim(
                summed == value,
                f"disentangled N_opt {value} != per-permutation exact count {summed} (k={k})",
            )
            agreed.append("exact")
        elif k <= DISENTANGLED_ENUMERATION_MAX_K - 1:
            enumerated = enumerate_disentangled(knowledge, support)
            check_claim(
                enumerated == value,
                f"disentangled N_opt {value} != enumeration of all (pi, f) {enumerated} (k={k})",
            )
            agreed.append("enumeration")
        cnf = disentangled_encoding(knowledge, support)
        if k <= SINGLE_FORMULA_CERTIFY_MAX_K:
            # The DIMACS artifact (pi as variables) is counted whole, independently of
            # the per-permutation sum that produced the value.
            counted = ExactCounter(seed=seed).count(cnf).value
            check_claim(
                counted == value,
                f"disentangled N_opt {value} != ganak count of the single-formula encoding "
                f"{counted} (k={k})",
            )
            agreed.append("ganak_encoding")
        formulas["optima"] = (cnf, value)
    return agreed, formulas


def oracle_feasible(knowledge, extractor: str) -> bool:
    """Whether :func:`certify_row` has at least one independent recount at this size."""
    k = knowledge.k
    if extractor == "joint":
        return k <= JOINT_ENCODING_CERTIFY_MAX_K or knowledge.is_parity
    return k <= DISENTANGLED_ENUMERATION_MAX_K - 1


def frac_key(frac: float) -> str:
    """A metrics-key-safe spelling of a fraction: 0.75 -> "0p75"."""
    return f"{frac:g}".replace(".", "p")


def check_generated_supports(name: str, fracs: list[float], supports: dict) -> None:
    """Every fraction's support was generated (that two fractions keep distinct numbers of
    states, so no two rows are identical, is checked at load time by
    :mod:`nesybench.shortcuts.params_checks`)."""
    for frac in fracs:
        if (name, frac) not in supports:
            raise InputError(
                f"data/generate/shortcuts: no train split for task {name!r} at support "
                f"{frac:g}; rerun generate"
            )


def count_table(p: dict, supports: dict, tasks: dict) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Every (task, support fraction, extractor) counted and certified: (n_opt, dimacs, metrics).

    ``supports[(task, frac)]`` is the support read off the generated train split and
    ``tasks[name]`` the task's :class:`~.tasks.CertifiedTask` (its certified formula).
    Claims (a certified count where an oracle is feasible, nested supports, N_opt growing as
    the support shrinks) raise ``ClaimFailed``.
    """
    opts = p["count"]
    rows, dimacs_rows, metrics = [], [], {}
    for name in sorted(p["tasks"]):
        if name not in tasks:
            raise InputError(
                f"data/generate/shortcuts: task {name!r} was not generated; rerun the generate "
                "stage"
            )
        knowledge = tasks[name].knowledge
        k = knowledge.k
        fracs = sorted(p["support_fracs"], reverse=True)
        check_generated_supports(name, fracs, supports)
        for extractor in opts["extractors"]:
            previous = None
            for frac in fracs:
                support = supports[name, frac]
                result = count_optima(
                    knowledge,
                    support,
                    extractor=extractor,
                    method=opts["method"],
                    epsilon=opts["epsilon"],
                    delta=opts["delta"],
                    seed=p["seed"],
                )
                if result.exact:
                    agreed, formulas = certify_row(
                        knowledge, support, extractor, result, seed=p["seed"]
                    )
                else:  # an estimate: nothing to certify, but its formula is still an artifact
                    agreed, formulas = [], {"optima": (from_dimacs(result.dimacs), result.estimate)}
                if result.exact and oracle_feasible(knowledge, extractor):
                    check_claim(
                        len(agreed) >= 1,
                        f"{name} at {frac:g} ({extractor}): no independent oracle certified N_opt",
                    )
                elif result.exact:
                    log(
                        f"{name} at {frac:g} ({extractor}): no independent oracle is feasible at "
                        f"k={k}; reported uncertified"
                    )
                log(
                    f"{name} at support {frac:g} ({extractor}): N_opt = {result.value} "
                    f"[{result.method}; agreed: {', '.join(agreed) or '-'}]"
                )
                if previous is not None:
                    prev_support, prev_value = previous
                    check_claim(
                        set(support) <= set(prev_support),
                        f"{name}: support at {frac:g} is not nested in the larger one",
                    )
                    # Growth is a claim about exact counts; an estimate may wobble within 1 +
                    # epsilon.
                    if extractor == "joint" and result.exact:
                        check_claim(
                            result.log2_n_opt > prev_value,
                            f"{name}: N_opt must grow strictly as the support shrinks; log2 "
                            f"{prev_value:.4f} -> {result.log2_n_opt:.4f} at {frac:g}",
                        )
                    elif result.exact:
                        check_claim(
                            result.log2_n_opt >= prev_value,
                            f"{name}: disentangled N_opt must not shrink with the support; log2 "
                            f"{prev_value:.4f} -> {result.log2_n_opt:.4f}",
                        )
                previous = (support, result.log2_n_opt)
                value = result.value
                rows.append(
                    {
                        "task": name,
                        "k": k,
                        "support_frac": frac,
                        "n_support": len(support),
                        "support": ",".join(support),
                        "extractor": extractor,
                        "n_opt": str(value),
                        "n_shortcuts": str(value - 1),
                        "log2_n_opt": float(result.log2_n_opt),
                        "method": result.method,
                        "exact": bool(result.exact),
                        "certified_by": ",".join(agreed),
                    }
                )
                for formula, (cnf, model_count) in formulas.items():
                    dimacs_rows.append(
                        {
                            "task": name,
                            "support_frac": frac,
                            "extractor": extractor,
                            "formula": formula,
                            "n_vars": cnf.n_vars,
                            "n_clauses": len(cnf.clauses),
                            "model_count": str(model_count),
                            "model_count_exact": bool(result.exact or formula == "knowledge"),
                            "dimacs": cnf.to_dimacs(),
                        }
                    )
                key = f"{name}.support_{frac_key(frac)}.{extractor}"
                metrics[f"{key}.log2_n_opt"] = float(result.log2_n_opt)
                if value < 2**53:
                    metrics[f"{key}.n_opt"] = int(value)
    return pd.DataFrame(rows), pd.DataFrame(dimacs_rows), metrics


def n_opt_plot(table: pd.DataFrame) -> pd.DataFrame:
    """log2 N_opt of the joint family, wide (one column per task): one `dvc plots` curve each."""
    joint = table[table["extractor"] == "joint"]
    wide = joint.pivot(index="support_frac", columns="task", values="log2_n_opt")
    return wide[sorted(wide.columns)].sort_index(ascending=False).reset_index()


def _thousands(text: str) -> str:
    """Decimal string -> "84,375"; very long ones as a power of two."""
    return f"{int(text):,}" if len(text) <= 30 else f"~2^{math.log2(int(text)):.1f}"


def count_table_wide(table: pd.DataFrame, *, task_order: list[str]) -> pd.DataFrame:
    """One row per (task, support fraction) with the joint and disentangled counts side by side."""
    wide = []
    for (task, frac), group in table.groupby(["task", "support_frac"], sort=False):
        by = {row.extractor: row for row in group.itertuples(index=False)}
        first = group.iloc[0]
        entry = {
            "task": task,
            "k": int(first["k"]),
            "support": f"{int(first['n_support'])}/{2 ** int(first['k'])}",
            "frac": float(frac),
            "kept states": first["support"],
        }
        if "joint" in by:
            entry["N_opt (joint)"] = _thousands(by["joint"].n_opt)
            entry["shortcuts"] = _thousands(by["joint"].n_shortcuts)
        if "disentangled" in by:
            mark = "" if by["disentangled"].exact else " (approx)"
            entry["N_opt (disentangled)"] = _thousands(by["disentangled"].n_opt) + mark
        entry["certified by"] = "; ".join(f"{e}: {by[e].certified_by or '-'}" for e in by)
        wide.append(entry)
    order = {name: i for i, name in enumerate(task_order)}
    wide.sort(key=lambda e: (order.get(e["task"], len(order)), -e["frac"]))
    return pd.DataFrame(wide)
