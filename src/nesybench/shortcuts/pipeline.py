"""Stage functions of the shortcuts instrument's concept-net pipeline (see docs/CONTRIBUTING.md):
read, call, write.  The instrument runs two pipelines; the digits' (MNIST-Addition on real
handwritten digits) are in :mod:`.digits.stages`, and ``STAGE_FUNCTIONS`` below maps every job
of both to its function.

generate            seeded concept tasks (X, G, Y) for train / test / ood, certified
count               N_opt per task and support fraction, for each extractor family,
                    certified against independent oracles before the table is printed
count     rsbench   rsbench's named tasks (counting.tasks): N_opt per family, greedy plans
train     concepts  one block of seeds: label-only nets on every model dataset, the twins
train     exhibit   the head-to-head exhibit (first collapsing seed of a declared scan)
score     concepts  one block: outcomes and head-to-head panels
score     aggregate distributions over seeds, claim rates, incidence (N_opt read from the
                    count stage), OOD, exhibits; the digit half from :mod:`.digits.stages`
calibrate concepts  one block: temperature on the head-to-head nets' concept heads
calibrate aggregate distributions and claim rates; the digit half from :mod:`.digits.stages`
calibrate variant   one knob level x block (:mod:`.sensitivity`)
calibrate sensitivity  every claim at every measured knob level (:mod:`.sensitivity`)

Every stage after generate takes a task's formula from the generate stage's certificate
(:func:`.tasks.certified_tasks`), never from params.yaml again.  The jobs and their artifacts
are declared in :mod:`.artifacts`; the computations live in :mod:`.concept_sweep`,
:mod:`.summaries` (tables over seeds) and :mod:`.claims` (the chapter's claims, thresholds in
params.yaml); console tables in :mod:`.printing`.  Heavy modules are imported inside the
functions that need them.
"""

from __future__ import annotations

import pandas as pd

from ..errors import bad_value, check_claim
from ..logic.knowledge import all_states, state_str
from ..sweep import check_claims, claim_table, distribution_table, sweep_metrics
from . import printing
from .blocks import gather, job_seeds
from .categorical_counts import categorical_count_tables
from .concept_sweep import model_datasets
from .count_tables import count_table, frac_key, n_opt_plot
from .digits import stages as digit_stages
from .tasks import (
    POINT_COLUMNS,
    SPLITS,
    certify_task,
    generated_tasks,
    make_task,
    resolve_knowledge,
    task_rows,
)

# ---------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------


def _generated_fracs(params: dict) -> dict[str, list[float]]:
    """Support fractions generated per task: the table's, plus the demo's and the bias line's for
    the demo task."""
    demo = params["demo"]  # its task is a key of params["tasks"] (the schema's x-key-of)
    out = {}
    for name in sorted(params["tasks"]):
        fracs = set(params["support_fracs"])
        if name == demo["task"]:
            fracs |= {params["support_frac"], demo.get("bias_frac", 0.5)}
        out[name] = sorted(fracs, reverse=True)
    return out


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
    for name, frac in model_datasets(p):
        task = _task_from_params(p, name, frac, p["models"])
        certify_task(task)  # raises ClaimFailed on any broken promise
        rows.extend(task_rows(task))
    ctx.log(
        f"model datasets: {len(rows)} points over {len(model_datasets(p))} (task, support) "
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
    certificates, knowledges = {}, {}
    for name, fracs in _generated_fracs(p).items():
        for frac in fracs:
            task = _task_from_params(p, name, frac, demo)
            knowledge = knowledges[name] = task.knowledge
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
            key = f"{name}.support_{frac_key(frac)}"
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
    _print_certificate(ctx, certificates, knowledges[demo["task"]])


def _print_certificate(ctx, certificates: dict, knowledge) -> None:
    """The demo task's certificate (``knowledge``: its formula) and every generated task's."""
    p = ctx.params
    demo = p["demo"]
    name, frac = demo["task"], p["support_frac"]
    cert = certificates[name, frac]
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


def count(ctx) -> None:
    """N_opt of every task x support x extractor, certified; the MNIST-Addition count tables."""
    p = ctx.params
    supports, tasks = _realized_supports(ctx), generated_tasks(ctx)
    table, dimacs, metrics = count_table(p, supports, tasks)
    ctx.write_table("n_opt", table, key=["task", "support_frac", "extractor"])
    ctx.write_table("dimacs", dimacs, key=["task", "support_frac", "extractor", "formula"])
    ctx.write_plot("n_opt", n_opt_plot(table))
    categorical = categorical_count_tables(p["categorical"])
    ctx.write_table("categorical_counts", categorical.counts, key=["task", "support", "extractor"])
    ctx.write_table(
        "categorical_plans", categorical.plans, key=["task", "support", "extractor", "step"]
    )
    ctx.write_metrics({**metrics, **categorical.metrics})
    printing.count_table(table, tasks)
    printing.categorical_counts(categorical.counts)


def count_rsbench(ctx) -> None:
    """rsbench's named tasks: N_opt of every family at each task's support, checked, and the
    greedy plans; the seconds per count go to the log only (artifacts stay byte-identical)."""
    from .rsbench_counts import rsbench_count_tables

    tables = rsbench_count_tables(ctx.params["rsbench"], log=ctx.log)
    ctx.write_table("rsbench_counts", tables.counts, key=["task", "extractor"])
    ctx.write_table("rsbench_plans", tables.plans, key=["task", "extractor", "step"])
    ctx.write_table("rsbench_notes", tables.notes, key=["task", "kind"])
    ctx.write_metrics(tables.metrics)
    printing.rsbench_counts(tables.counts)


def _realized_supports(ctx) -> dict:
    """Per (task, frac): the support read off the generated train split."""
    points = ctx.read_table("points", stage="generate")
    train_points = points[points["split"] == "train"]
    return {
        (task, float(frac)): sorted(set(group["g"]))
        for (task, frac), group in train_points.groupby(["task", "support_frac"], sort=True)
    }


# ---------------------------------------------------------------------------
# train / score / calibrate: the concept models over seeds, in blocks
# ---------------------------------------------------------------------------


def _h2h_key(p: dict) -> tuple[str, float]:
    return p["models"]["task"], float(p["models"]["support_frac"])


def _datasets(ctx):
    """Every model dataset, read back from the generate stage."""
    from .concept_sweep import load_dataset

    points, tasks = ctx.read_table("model_points", stage="generate"), generated_tasks(ctx)
    return [load_dataset(points, tasks[t], f) for t, f in model_datasets(ctx.params)]


def train_concepts(ctx) -> None:
    """One block of seeds: the label-only nets on every model dataset, and the
    concept-supervised twins on the head-to-head dataset."""
    from .concept_sweep import block_weights, model_config, train_block

    p, seeds = ctx.params, job_seeds(ctx)
    config = model_config(p["models"])
    frames = []
    for data in _datasets(ctx):
        twin = (
            int(p["models"]["concept_sup_points"])
            if (data.task, data.support_frac) == _h2h_key(p)
            else None
        )
        result, keys = train_block(data, seeds=seeds, config=config, twin_points=twin)
        frames.append(block_weights(data, result.params, keys))
        ctx.log(f"{data.task} @ {data.support_frac:g}: {len(keys)} nets x {config.epochs} epochs")
    ctx.write_table(
        "concept_weights",
        pd.concat(frames, ignore_index=True),
        key=["task", "support_frac", "seed", "model", "array"],
    )


def train_exhibit(ctx) -> None:
    """The head-to-head exhibit: label-only nets of seeds ``0 .. exhibit_scan - 1`` on the
    head-to-head dataset; the first that collapses and its concept-supervised twin."""
    from . import concept_sweep as cs

    p, models = ctx.params, ctx.params["models"]
    data = next(d for d in _datasets(ctx) if (d.task, d.support_frac) == _h2h_key(p))
    config, n_scan = cs.model_config(models), int(models["exhibit_scan"])
    ctx.log(f"scanning seeds 0..{n_scan - 1} for the first collapsing label-only net")
    scan, keys = cs.train_block(data, seeds=range(n_scan), config=config)
    runs = cs.run_rows(scan.params, keys, data, min_acc_y=float(models["min_acc_y"]))
    picked = runs.loc[runs["collapse"], "seed"]
    runs["picked"] = runs["seed"] == (int(picked.iloc[0]) if len(picked) else -1)
    ctx.write_table("exhibit_scan", runs, key=["seed"])
    seed = int(picked.iloc[0]) if len(picked) else None
    ctx.log(f"exhibit seed: {seed} ({len(picked)} of {n_scan} scanned seeds collapse)")
    pair, curves = cs.exhibit_pair(
        data, scan, seed, config=config, twin_points=int(models["concept_sup_points"])
    )
    concepts, labels = (
        cs.prediction_tables(pair, cs.MODELS, data) if pair else cs.empty_predictions()
    )
    ctx.write_table("exhibit_concepts", concepts, key=["model", "split", "point", "concept"])
    ctx.write_table("exhibit_labels", labels, key=["model", "split", "point"])
    ctx.write_table("exhibit_curves", curves, key=["model", "epoch"])
    ctx.write_metrics({"exhibit": {"scan": n_scan, "seed": -1 if seed is None else seed}})


def score_concepts(ctx) -> None:
    """One block: every net's outcome (alpha, label-perfect, shortcut, collapse) and the
    head-to-head nets' concept panels."""
    from . import concept_sweep as cs

    p = ctx.params
    weights = ctx.read_table("concept_weights", stage="train", block=ctx.wildcards["block"])
    runs, panels = [], None
    for data in _datasets(ctx):
        params, keys = cs.batch_from_weights(weights, data)
        runs.append(cs.run_rows(params, keys, data, min_acc_y=float(p["models"]["min_acc_y"])))
        if (data.task, data.support_frac) == _h2h_key(p):
            panels = cs.panel_rows(params, keys, data)
    ctx.write_table(
        "concept_runs",
        pd.concat(runs, ignore_index=True),
        key=["task", "support_frac", "seed", "model"],
    )
    ctx.write_table("concept_panels", panels, key=["seed", "model"])


def calibrate_concepts(ctx) -> None:
    """One block: temperature scaling of both head-to-head nets' concept heads."""
    from . import claims
    from . import concept_sweep as cs

    weights = ctx.read_table("concept_weights", stage="train", block=ctx.wildcards["block"])
    data = next(d for d in _datasets(ctx) if (d.task, d.support_frac) == _h2h_key(ctx.params))
    params, keys = cs.batch_from_weights(weights, data)
    table = cs.calibration_rows(params, keys, data)
    claims.check_accuracy_kept(table, what="concept net")
    ctx.write_table("concept_calibration", table, key=["seed", "model", "method"])


# ---------------------------------------------------------------------------
# aggregates: distributions over seeds, claim rates, the exhibits
# ---------------------------------------------------------------------------


def _h2h_exhibit(ctx) -> dict:
    """The head-to-head exhibit: the seed its rule picked, its panel, alpha and occurrence."""
    from . import claims
    from .concept_sweep import load_dataset
    from .summaries import exhibit_tables, scan_exhibit

    p = ctx.params
    exhibit = scan_exhibit(
        ctx.read_table("exhibit_scan", stage="train"), n_scan=int(p["models"]["exhibit_scan"])
    )
    concepts = ctx.read_table("exhibit_concepts", stage="train")
    task, frac = _h2h_key(p)
    data = load_dataset(
        ctx.read_table("model_points", stage="generate"), generated_tasks(ctx)[task], frac
    )
    if exhibit["seed"] is not None:
        states = [state_str(s) for s in all_states(data.knowledge.k)]
        panel, alpha, occurrence, alphas = exhibit_tables(
            concepts,
            ctx.read_table("exhibit_labels", stage="train"),
            state_names=states,
            source=str(ctx.registry.path("train", "exhibit_concepts")),
        )
        claims.check_exhibit_alpha(alphas["label_only"], data.knowledge, data.support)
        exhibit["twin_identity"] = all(k == v for k, v in alphas["concept_sup"].items())
    else:
        panel = pd.DataFrame(columns=["row", "metric", "key", "label_only", "concept_sup"])
        alpha = pd.DataFrame(columns=["model", "true_state", "predicted_state"])
        occurrence = pd.DataFrame(columns=["model", "state", "count"])
    ctx.write_table("exhibit", pd.DataFrame([exhibit]), key=["rule"])
    ctx.write_table("exhibit_panel", panel, key=["row"])
    ctx.write_table("exhibit_alpha", alpha, key=["model", "true_state"])
    ctx.write_table("exhibit_occurrence", occurrence, key=["model", "state"])
    return {**exhibit, "support": ",".join(data.support)}


def _aggregate_h2h(ctx, runs: pd.DataFrame) -> dict:
    """The binary head-to-head and the OOD runs over seeds; the exhibit."""
    from . import claims, printing
    from .concept_sweep import count_survivors
    from .summaries import H2H_METRICS, h2h_summary, ood_table

    p = ctx.params
    panels = gather(ctx, "concept_panels", "score")
    summary = h2h_summary(panels, runs, models=p["models"], thresholds=p["claims"]["thresholds"])
    dist = distribution_table(summary, H2H_METRICS)
    verdicts = claim_table(summary, claims.H2H_CLAIMS, p["claims"])
    exhibit = _h2h_exhibit(ctx)
    task, ood_frac = p["models"]["task"], float(p["models"]["ood_support_frac"])
    ood_data = next(d for d in _datasets(ctx) if (d.task, d.support_frac) == (task, ood_frac))
    counted = count_survivors(ood_data.knowledge, ood_data.support)
    claims.check_ood_survivors(counted)
    ood = ood_table(summary, counted, task=task, support=",".join(ood_data.support))
    ctx.write_table("h2h_summaries", summary, key=["seed"])
    ctx.write_table("h2h_distribution", dist, key=["order"])
    ctx.write_table("h2h_claims", verdicts, key=["order"])
    ctx.write_table("ood", ood, key=["task"])
    printing.head_to_head(dist, verdicts, exhibit, ood)
    check_claims(verdicts, where=f"shortcuts head-to-head over {len(summary)} seeds")
    row = ood.iloc[0]
    return {
        "head_to_head": sweep_metrics(dist, verdicts, claims.H2H_CLAIMS),
        "exhibit": {"seed": -1 if exhibit["seed"] is None else exhibit["seed"]},
        "ood": {
            "n_opt_biased": int(row["n_opt_biased"]),
            "n_survivors_counted": int(row["n_survivors_counted"]),
            "ood_correct_share": float(row["ood_correct_share"]),
        },
    }


def _counted_log2(ctx, cells: list) -> dict:
    """log2 N_opt of every incidence cell (joint extractor), read from the count stage's
    certified table, which must have counted the cell's own support."""
    table = ctx.read_table("n_opt", stage="count")
    source = str(ctx.registry.path("count", "n_opt"))
    rows = {
        (r.task, float(r.support_frac)): r
        for r in table[table["extractor"] == "joint"].itertuples(index=False)
    }
    out = {}
    for task, frac, _, support in cells:
        row = rows.get((task, frac))
        if row is None:
            raise bad_value(
                "shortcuts.incidence's cell",
                "a task and support fraction the count stage counted (of shortcuts.tasks x "
                "shortcuts.support_fracs)",
                f"{task} at {frac:g}",
                where=source,
            )
        check_claim(
            set(row.support.split(",")) == set(support),
            f"{source}: the count of {task} at support {frac:g} is of support "
            f"{{{row.support}}}, the model dataset's is {{{','.join(support)}}}",
        )
        out[task, frac] = float(row.log2_n_opt)
    return out


def _aggregate_incidence(ctx, runs: pd.DataFrame) -> dict:
    """The incidence cells: shortcut rate over seeds beside log2 N_opt of each cell."""
    from . import printing
    from .summaries import incidence_table, metric_token

    inc = ctx.params["incidence"]
    data = {(d.task, d.support_frac): d for d in _datasets(ctx)}
    cells = []
    for task in inc["tasks"]:
        for frac in (float(f) for f in inc["support_fracs"]):
            d = data[task, frac]
            cells.append((task, frac, d.knowledge.k, d.support))
    table = incidence_table(runs, cells, _counted_log2(ctx, cells))
    ctx.write_table("incidence", table, key=["task", "support_frac"])
    ctx.write_plot(
        "incidence", table[["task", "support_frac", "log2_n_opt", "rate", "rate_lo", "rate_hi"]]
    )
    printing.incidence(table)
    return {
        "incidence": {
            t: {
                metric_token(r["support_frac"]): {
                    "rate": {"value": r["rate"], "lo": r["rate_lo"], "hi": r["rate_hi"]}
                }
                for r in table[table["task"] == t].to_dict("records")
            }
            for t in inc["tasks"]
        }
    }


def score_aggregate(ctx) -> None:
    """Every seed-dependent table of the concept models as a distribution over seeds, with the
    chapter's claim rates; the exhibits picked by their declared rules."""
    runs = gather(ctx, "concept_runs", "score")
    ctx.write_metrics(
        {
            **_aggregate_h2h(ctx, runs),
            **_aggregate_incidence(ctx, runs),
            **digit_stages.aggregate_scores(ctx),
        }
    )


def calibrate_aggregate(ctx) -> None:
    """Concept-head calibration over seeds: distributions, claim rates (the concept and the digit
    heads' claims), with the digit half (:func:`.digits.stages.aggregate_calibration`)."""
    from . import claims, printing
    from .digits.mitigations import supervised_name
    from .summaries import CALIBRATION_METRICS, calibration_summary

    p, d = ctx.params, ctx.params["digits"]
    digits, table = digit_stages.aggregate_calibration(ctx)
    summary = calibration_summary(
        gather(ctx, "concept_calibration", "calibrate"),
        digits,
        support=d["head_to_head"]["support"],
        supervised=supervised_name(d),
        method=d["calibration"]["methods"][0],
    )
    dist = distribution_table(summary, CALIBRATION_METRICS)
    verdicts = claim_table(summary, claims.CALIBRATION_CLAIMS, p["claims"])
    ctx.write_table("calibration_summaries", summary, key=["seed"])
    ctx.write_table("calibration_distribution", dist, key=["order"])
    ctx.write_table("calibration_claims", verdicts, key=["order"])
    printing.calibration(dist, verdicts, table)
    check_claims(verdicts, where=f"shortcuts concept-head calibration over {len(summary)} seeds")
    ctx.write_metrics({"concept_heads": sweep_metrics(dist, verdicts, claims.CALIBRATION_CLAIMS)})


def calibrate_variant(ctx) -> None:
    """One knob level, one block of seeds (see :mod:`.sensitivity`)."""
    from .sensitivity import variant

    variant(ctx)


def calibrate_sensitivity(ctx) -> None:
    """Every claim at every measured knob level; the kinds of optimum (:mod:`.sensitivity`)."""
    from .sensitivity import sensitivity

    sensitivity(ctx)


# The jobs of this instrument (declared in artifacts.py) and the function each runs: the
# concept nets' here, the digits' in digits/stages.py.
STAGE_FUNCTIONS = {
    ("generate", None): generate,
    ("generate", "digits"): digit_stages.generate_digits,
    ("count", None): count,
    ("count", "rsbench"): count_rsbench,
    ("train", "concepts"): train_concepts,
    ("train", "exhibit"): train_exhibit,
    ("train", "digits"): digit_stages.train_digits,
    ("score", "concepts"): score_concepts,
    ("score", "digits"): digit_stages.score_digits,
    ("score", "aggregate"): score_aggregate,
    ("calibrate", "concepts"): calibrate_concepts,
    ("calibrate", "digits"): digit_stages.calibrate_digits,
    ("calibrate", "aggregate"): calibrate_aggregate,
    ("calibrate", "variant"): calibrate_variant,
    ("calibrate", "sensitivity"): calibrate_sensitivity,
}
