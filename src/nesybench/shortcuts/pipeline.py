"""Stage functions of the shortcuts instrument (see docs/CONTRIBUTING.md).

generate: seeded concept tasks (X, G, Y) for train / test / ood, certified.
count:    N_opt per task and support fraction, for each extractor family,
          certified against independent oracles before the table is printed.
"""

from __future__ import annotations

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
from ..errors import UserError, check_claim
from ..logic.cnf import from_dimacs
from ..logic.knowledge import make_knowledge
from .report import count_table_wide
from .tasks import POINT_COLUMNS, SPLITS, certify_task, make_task, resolve_knowledge, task_rows

# ---------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------


def _frac_key(frac: float) -> str:
    """A metrics-key-safe spelling of a fraction: 0.75 -> "0p75"."""
    return f"{frac:g}".replace(".", "p")


def _generated_fracs(params: dict) -> dict[str, list[float]]:
    """Support fractions generated per task: the table's, plus the demo's and the bias line's for
    the demo task."""
    demo = params["demo"]
    if demo["task"] not in params["tasks"]:
        raise UserError(
            "params.yaml: shortcuts.demo.task must be one of "
            f"{', '.join(sorted(params['tasks']))}, got {demo['task']!r}"
        )
    out = {}
    for name in sorted(params["tasks"]):
        fracs = set(params["support_fracs"])
        if name == demo["task"]:
            fracs |= {params["support_frac"], demo.get("bias_frac", 0.5)}
        out[name] = sorted(fracs, reverse=True)
    return out


def _model_datasets(params: dict) -> list[tuple[str, float]]:
    """(task, support) of every dataset the concept models train on: head-to-head, OOD, incidence
    cells."""
    models, incidence = params["models"], params["incidence"]
    pairs = {
        (models["task"], float(models["support_frac"])),
        (models["task"], float(models["ood_support_frac"])),
    }
    pairs |= {
        (task, float(frac)) for task in incidence["tasks"] for frac in incidence["support_fracs"]
    }
    for task, _ in pairs:
        if task not in params["tasks"]:
            raise UserError(
                "params.yaml: shortcuts.models.task and shortcuts.incidence.tasks must name "
                f"tasks in shortcuts.tasks ({', '.join(sorted(params['tasks']))}), got {task!r}"
            )
    return sorted(pairs)


def _task_from_params(p: dict, name: str, frac: float, sizes: dict):
    """The seeded task `name` at support `frac` with the per-state sizes of `sizes` (demo or
    models)."""
    return make_task(
        resolve_knowledge(name, p["tasks"][name], seed=p["seed"]),
        name=name,
        n_train_per_state=sizes["n_train_per_state"],
        n_test_per_state=sizes["n_test_per_state"],
        n_distractors=p["n_distractors"],
        support_frac=frac,
        noise=p["noise"],
        seed=p["seed"],
    )


def _generate_model_points(ctx) -> None:
    """The model datasets (more points per state than the demo), certified like every other task."""
    p = ctx.params
    rows = []
    for name, frac in _model_datasets(p):
        task = _task_from_params(p, name, frac, p["models"])
        certify_task(task)  # raises ClaimFailed on any broken promise
        rows.extend(task_rows(task))
    ctx.log(
        f"model datasets: {len(rows)} points over {len(_model_datasets(p))} (task, support) "
        "pairs, certified"
    )
    ctx.write_table(
        "model_points",
        pd.DataFrame(rows, columns=POINT_COLUMNS),
        key=["task", "support_frac", "split", "point"],
    )


def generate(ctx) -> None:
    """Generate and certify every (task, support fraction); write points and the certificate."""
    p = ctx.params
    demo = p["demo"]
    point_rows, cert_rows, metrics = [], [], {}
    certificates = {}
    for name, fracs in _generated_fracs(p).items():
        for frac in fracs:
            task = _task_from_params(p, name, frac, demo)
            knowledge = task.knowledge
            cert = certify_task(task)  # raises ClaimFailed on any broken promise
            certificates[name, frac] = cert
            ctx.log(
                f"{name} at support {frac:g}: {len(task.support)}/{2**task.k} states, certified"
            )
            point_rows.extend(task_rows(task))
            for split in (*SPLITS, "all"):
                info = cert["splits"].get(split)
                cert_rows.append(
                    {
                        "task": name,
                        "support_frac": frac,
                        "split": split,
                        "knowledge": knowledge.spec,
                        "k": task.k,
                        "n_distractors": task.n_distractors,
                        "points": info["points"]
                        if info
                        else sum(cert["splits"][s]["points"] for s in SPLITS),
                        "input_dims": task.k + task.n_distractors,
                        "n_states": len(info["states"]) if info else 2**task.k,
                        "states": ",".join(info["states"])
                        if info
                        else ",".join(sorted(cert["support"] + cert["ood_states"])),
                        "labels_hold": True,
                        "corr_concept": cert["corr_concept"] if split == "all" else [],
                        "abs_corr_distractor": cert["abs_corr_distractor"]
                        if split == "all"
                        else [],
                    }
                )
            key = f"{name}.support_{_frac_key(frac)}"
            metrics[f"{key}.n_support"] = len(task.support)
            metrics[f"{key}.corr_concept_min"] = min(cert["corr_concept"])
            if cert["abs_corr_distractor"]:
                metrics[f"{key}.abs_corr_distractor_max"] = max(cert["abs_corr_distractor"])
    # The demo task at `shortcuts.support_frac` is what `dvc exp run -S shortcuts.support_frac=...`
    # moves.
    demo_cert = certificates[demo["task"], p["support_frac"]]
    metrics["demo.support_frac"] = p["support_frac"]
    metrics["demo.n_support"] = len(demo_cert["support"])
    for split in SPLITS:
        metrics[f"demo.{split}_points"] = demo_cert["splits"][split]["points"]
    points = pd.DataFrame(point_rows, columns=POINT_COLUMNS)
    ctx.write_table("points", points, key=["task", "support_frac", "split", "point"])
    _generate_model_points(ctx)
    ctx.write_table("certificate", pd.DataFrame(cert_rows), key=["task", "support_frac", "split"])
    ctx.write_metrics(metrics)
    _print_certificate(ctx, certificates)


def _print_certificate(ctx, certificates: dict) -> None:
    p = ctx.params
    demo = p["demo"]
    name, frac = demo["task"], p["support_frac"]
    cert = certificates[name, frac]
    knowledge = resolve_knowledge(name, p["tasks"][name], seed=p["seed"])
    k = cert["k"]
    rows = []
    for split in SPLITS:
        info = cert["splits"][split]
        rows.append(
            {
                "split": split,
                "points": info["points"],
                "input dims": info["input_dims"] if info["points"] else "-",
                "states seen": len(info["states"]),
                "y = K(g) on every point": "holds (asserted)" if info["points"] else "empty split",
            }
        )
    ctx.print_table(
        f"shortcuts generator certificate: demo task {name} ({knowledge.describe()}), support "
        f"{frac:.2f} "
        f"({len(cert['support'])}/{2**k} states), {p['n_distractors']} distractor dims "
        f"({demo['n_train_per_state']} train / {demo['n_test_per_state']} test per state)",
        pd.DataFrame(rows),
    )
    print(
        "  concept dims carry their bit:   corr(x_j, g_j) = "
        + ", ".join(f"{c:.3f}" for c in cert["corr_concept"])
    )
    if cert["abs_corr_distractor"]:
        print(
            "  distractors carry no label:  |corr(x_d, y)| = "
            + ", ".join(f"{c:.3f}" for c in cert["abs_corr_distractor"])
        )
    bias = demo.get("bias_frac", 0.5)
    biased = certificates[name, bias]
    print(
        f"  support bias {bias:g}: train sees only "
        f"{{{', '.join(biased['splits']['train']['states'])}}}; "
        f"the ood split covers exactly {{{', '.join(biased['splits']['ood']['states'])}}}"
    )
    others = [
        {
            "task": t,
            "frac": f,
            "train states": ",".join(c["splits"]["train"]["states"]),
            "ood states": ",".join(c["splits"]["ood"]["states"]) or "-",
            "min corr(x_j,g_j)": min(c["corr_concept"]),
            "max |corr(x_d,y)|": max(c["abs_corr_distractor"])
            if c["abs_corr_distractor"]
            else float("nan"),
        }
        for (t, f), c in sorted(certificates.items(), key=lambda item: (item[0][0], -item[0][1]))
    ]
    ctx.print_table(
        "all generated tasks (every promise asserted)", pd.DataFrame(others), floatfmt="{:.3f}"
    )


# ---------------------------------------------------------------------------
# count
# ---------------------------------------------------------------------------

JOINT_ENCODING_CERTIFY_MAX_K = (
    7  # ganak on the k * 2^k-variable joint encoding: ~1 s at k = 7, ~20 s at k = 8
)
SINGLE_FORMULA_CERTIFY_MAX_K = (
    4  # ganak on the disentangled encoding with pi as variables: 0.5 s at k = 4, 1 min at k = 6
)


def _realized_supports(ctx) -> tuple[dict, dict]:
    """Per (task, frac): the support read off the generated train split; and each task's
    knowledge/k."""
    points = ctx.read_table("points", stage="generate")
    cert = ctx.read_table("certificate", stage="generate")
    train_points = points[points["split"] == "train"]
    supports = {
        (task, float(frac)): sorted(set(group["g"]))
        for (task, frac), group in train_points.groupby(["task", "support_frac"], sort=True)
    }
    tasks = {row.task: (row.knowledge, int(row.k)) for row in cert.itertuples(index=False)}
    return supports, tasks


def _certify_row(knowledge, support, extractor, result, *, seed) -> tuple[list[str], dict]:
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


def _oracle_feasible(knowledge, extractor: str) -> bool:
    """Whether :func:`_certify_row` has at least one independent recount at this size."""
    k = knowledge.k
    if extractor == "joint":
        return k <= JOINT_ENCODING_CERTIFY_MAX_K or knowledge.is_parity
    return k <= DISENTANGLED_ENUMERATION_MAX_K - 1


def count(ctx) -> None:
    """N_opt for every task x support fraction x extractor, certified; the table, DIMACS files, plot
    data."""
    p = ctx.params
    opts = p["count"]
    supports, tasks = _realized_supports(ctx)
    rows, dimacs_rows, metrics = [], [], {}
    for name in sorted(p["tasks"]):
        if name not in tasks:
            raise UserError(
                f"data/generate/shortcuts: task {name!r} was not generated; rerun the generate "
                "stage"
            )
        spec, k = tasks[name]
        knowledge = make_knowledge(spec, k)
        fracs = sorted(p["support_fracs"], reverse=True)
        sizes = {}
        for frac in fracs:
            if (name, frac) not in supports:
                raise UserError(
                    f"data/generate/shortcuts: no train split for task {name!r} at support "
                    f"{frac:g}; rerun generate"
                )
            size = len(supports[name, frac])
            if size in sizes:
                raise UserError(
                    f"params.yaml: shortcuts.support_fracs {sizes[size]:g} and {frac:g} keep the "
                    f"same {size} of {2**k} "
                    f"states for task {name}; use fractions that differ by at least 1/{2**k}"
                )
            sizes[size] = frac
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
                    agreed, formulas = _certify_row(
                        knowledge, support, extractor, result, seed=p["seed"]
                    )
                else:  # an estimate: nothing to certify, but its formula is still an artifact
                    agreed, formulas = [], {"optima": (from_dimacs(result.dimacs), result.estimate)}
                if result.exact and _oracle_feasible(knowledge, extractor):
                    check_claim(
                        len(agreed) >= 1,
                        f"{name} at {frac:g} ({extractor}): no independent oracle certified N_opt",
                    )
                elif result.exact:
                    ctx.log(
                        f"{name} at {frac:g} ({extractor}): no independent oracle is feasible at "
                        f"k={k}; reported uncertified"
                    )
                ctx.log(
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
                key = f"{name}.support_{_frac_key(frac)}.{extractor}"
                metrics[f"{key}.log2_n_opt"] = float(result.log2_n_opt)
                if value < 2**53:
                    metrics[f"{key}.n_opt"] = int(value)
    table = pd.DataFrame(rows)
    ctx.write_table("n_opt", table, key=["task", "support_frac", "extractor"])
    ctx.write_table(
        "dimacs", pd.DataFrame(dimacs_rows), key=["task", "support_frac", "extractor", "formula"]
    )
    ctx.write_metrics(metrics)
    joint = table[table["extractor"] == "joint"]
    # Wide (one column per task) so that `dvc plots show` draws one curve per task.
    wide = joint.pivot(index="support_frac", columns="task", values="log2_n_opt")
    ctx.write_plot("n_opt", wide[sorted(wide.columns)].sort_index(ascending=False).reset_index())
    _print_count_table(ctx, table, tasks)


def _print_count_table(ctx, table: pd.DataFrame, tasks: dict) -> None:
    wide = count_table_wide(table, task_order=sorted(tasks))
    ctx.print_table(
        "shortcuts: RS count vs support fraction (support read off the generated train split)",
        wide,
        floatfmt="{:.2f}",
    )
    for name in sorted(tasks):
        spec, k = tasks[name]
        knowledge = make_knowledge(spec, k)
        n0, n1 = label_class_sizes(knowledge)
        print(f"  {name} (k={k}): {knowledge.describe()}   ({n1}/{2**k} states satisfy)")


from .model_stages import calibrate, score, train, train_incidence  # noqa: E402

# The jobs of this instrument (declared in artifacts.py) and the function each runs.
STAGE_FUNCTIONS = {
    ("generate", None): generate,
    ("count", None): count,
    ("train", None): train,
    ("train", "incidence"): train_incidence,
    ("score", None): score,
    ("calibrate", None): calibrate,
}
