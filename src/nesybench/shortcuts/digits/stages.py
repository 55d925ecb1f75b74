"""Stage functions of the digit pipeline (MNIST-Addition on real handwritten digits).

generate  digits    every digit support's task: image pools, tuples with gold digits, certified
train     digits    one block of seeds: every digit support x mitigation model
score     digits    one block: digit panels, maps, shortcut flags, confusion matrices
calibrate digits    one block: the digit heads' calibrators, fitted on val, audited on test

and the digit halves of the two aggregates (``score aggregate`` and ``calibrate aggregate``
are one job each for both pipelines; :mod:`..pipeline` calls :func:`aggregate_scores` and
:func:`aggregate_calibration`).  The jobs are declared in :mod:`..artifacts` and run through
``STAGE_FUNCTIONS`` in :mod:`..pipeline`.  Heavy modules are imported inside the functions.
"""

from __future__ import annotations

import pandas as pd

from ...sweep import check_claims, claim_table, distribution_table, sweep_metrics
from ..blocks import gather, job_seeds

__all__ = [
    "aggregate_calibration",
    "aggregate_scores",
    "calibrate_digits",
    "generate_digits",
    "score_digits",
    "train_digits",
]


def generate_digits(ctx) -> None:
    """Every digit support's task: image pools, tuples with gold digits, the certificate, and
    sample images of the head-to-head support."""
    from .. import printing
    from . import sweep, tasks

    d = ctx.params["digits"]
    generated = sweep.generate_tasks(d, seed=int(ctx.params["seed"]))
    tables = sweep.generated_tables(generated)
    cert = pd.concat(
        [tasks.certificate(t).assign(support=name) for name, t in generated.items()],
        ignore_index=True,
    )
    h2h = d["head_to_head"]["support"]
    ctx.write_table("digit_tuples", tables["tuples"], key=["support", "split", "point"])
    ctx.write_table("digit_pools", tables["pools"], key=["support", "image"])
    ctx.write_table("digit_supports", tables["supports"], key=["support", "state"])
    ctx.write_table("digit_certificate", cert, key=["support", "kind", "split", "item"])
    ctx.write_table(
        "digit_samples",
        tasks.sample_table(generated[h2h], n=12).assign(support=h2h),
        key=["point", "position"],
    )
    printing.digit_certificate(cert, generated)
    ctx.write_metrics(
        {
            "digits": {
                name: {
                    "n_support": len(t.support),
                    **{f"{split}_points": len(t.splits[split]) for split in tasks.SPLITS},
                }
                for name, t in generated.items()
            }
        }
    )


def _digit_tasks(ctx) -> dict:
    """Every digit support's task, read back from the generate stage's tables."""
    from .tasks import task_from_tables

    tuples = ctx.read_table("digit_tuples", stage="generate")
    pools = ctx.read_table("digit_pools", stage="generate")
    supports = ctx.read_table("digit_supports", stage="generate")
    seed = int(ctx.params["seed"])
    return {
        name: task_from_tables(tuples, pools, supports, support=name, seed=seed)
        for name in ctx.params["digits"]["supports"]
    }


def train_digits(ctx) -> None:
    """One block of seeds: every (digit support, mitigation) model."""
    from . import mitigations, sweep

    d = ctx.params["digits"]
    weights, labels = sweep.train_block(
        _digit_tasks(ctx),
        mitigations=mitigations.mitigation_names(d),
        seeds=job_seeds(ctx),
        config=sweep.config_from_params(d),
        log=ctx.log,
    )
    ctx.write_table("digit_weights", weights, key=["support", "mitigation", "seed", "array"])
    ctx.write_table("digit_label_predictions", labels, key=["support", "seed", "split", "point"])


def _digit_predictions(ctx):
    from . import mitigations, sweep

    d = ctx.params["digits"]
    block = ctx.wildcards["block"]
    return sweep.block_predictions(
        _digit_tasks(ctx),
        ctx.read_table("digit_weights", stage="train", block=block),
        ctx.read_table("digit_label_predictions", stage="train", block=block),
        mitigations=mitigations.mitigation_names(d),
        seeds=job_seeds(ctx),
        config=sweep.config_from_params(d),
    )


def score_digits(ctx) -> None:
    """One block: every digit model's panel, map, shortcut flag, whether its map is one of the
    counter's optima, and its confusion matrix."""
    from . import sweep
    from .evaluation import counter_is_optimum

    d = ctx.params["digits"]
    runs, confusion = sweep.score_block(
        _digit_predictions(ctx),
        min_acc_y=float(d["min_acc_y"]),
        n_bins=int(d["n_bins"]),
        is_optimum=counter_is_optimum,
    )
    ctx.write_table("digit_runs", runs, key=["support", "mitigation", "seed"])
    ctx.write_table(
        "digit_confusion",
        confusion,
        key=["support", "mitigation", "seed", "true_digit", "predicted_digit"],
    )


def calibrate_digits(ctx) -> None:
    """One block: every digit model's heads calibrated (fitted on val, audited on test)."""
    from .. import claims
    from . import mitigations, sweep

    d = ctx.params["digits"]
    h2h = d["head_to_head"]["support"]
    supervised = mitigations.supervised_name(d)
    table, reliability = sweep.calibrate_block(
        _digit_predictions(ctx),
        methods=list(d["calibration"]["methods"]),
        n_bins=int(d["n_bins"]),
        reliability_for={(h2h, "label_only"), (h2h, supervised)},
    )
    claims.check_accuracy_kept(table, what="digit model", name="mitigation")
    ctx.write_table("digit_calibration", table, key=["support", "mitigation", "seed", "method"])
    ctx.write_table(
        "digit_reliability",
        reliability,
        key=["support", "mitigation", "seed", "method", "reading", "target", "class", "bin"],
    )


# ---------------------------------------------------------------------------
# the digit halves of the aggregates
# ---------------------------------------------------------------------------


def _digit_counts(ctx) -> dict:
    """log2 N_opt and n_distinct of every digit support, from the categorical counter."""
    from .evaluation import counter_count

    supports = ctx.read_table("digit_supports", stage="generate")
    out = {}
    for name, rows in supports.groupby("support", sort=True):
        observed = [
            tuple(int(v) for v in s.split(":")) for s in rows.loc[rows["observed"], "state"]
        ]
        first = rows.iloc[0]
        out[name] = counter_count(
            observed,
            knowledge=str(first["knowledge"]),
            n_digits=int(first["n_digits"]),
            n_positions=int(first["n_positions"]),
        )
    return out


def _digit_exhibit(ctx, summary: pd.DataFrame, runs: pd.DataFrame, models: list[str]) -> dict:
    from .summaries import digit_exhibit_panel, pick_digit_exhibit

    p = ctx.params
    support = p["digits"]["head_to_head"]["support"]
    exhibit = pick_digit_exhibit(summary, rule=p["exhibit"]["digits"])
    seed = exhibit["seed"]
    panel, maps = digit_exhibit_panel(runs, support=support, seed=seed, models=models)
    confusion = ctx.read_table("digit_confusion", stage="score", block=seed // int(p["seed_block"]))
    confusion = confusion[
        (confusion["support"] == support)
        & (confusion["seed"] == seed)
        & confusion["mitigation"].isin(models)
    ]
    ctx.write_table("digit_exhibit", pd.DataFrame([{**exhibit, "support": support}]), key=["rule"])
    ctx.write_table("digit_exhibit_panel", panel, key=["row"])
    ctx.write_table("digit_exhibit_maps", maps, key=["model"])
    ctx.write_table(
        "digit_exhibit_confusion", confusion, key=["mitigation", "true_digit", "predicted_digit"]
    )
    return {**exhibit, "maps": maps}


def aggregate_scores(ctx) -> dict:
    """The digit head-to-head over seeds, the mitigation sweep, incidence and the exhibit
    (the digit half of ``score aggregate``); returns its metrics."""
    from .. import claims, printing
    from ..summaries import metric_token
    from .mitigations import mitigation_names, supervised_name
    from .summaries import DIGIT_METRICS, digit_incidence, digit_summary, digit_sweep

    p, d = ctx.params, ctx.params["digits"]
    names, supervised = mitigation_names(d), supervised_name(d)
    supports = list(d["supports"])
    runs = gather(ctx, "digit_runs", "score")
    summary = digit_summary(
        runs,
        support=d["head_to_head"]["support"],
        supervised=supervised,
        thresholds=p["claims"]["thresholds"],
    )
    dist = distribution_table(summary, DIGIT_METRICS)
    verdicts = claim_table(summary, claims.DIGIT_CLAIMS, p["claims"])
    sweep = digit_sweep(runs, supports=supports, mitigations=names)
    table = ctx.read_table("digit_supports", stage="generate")
    sizes = table[table["observed"]].groupby("support").size().to_dict()
    inc = digit_incidence(
        runs, supports=supports, mitigations=names, sizes=sizes, counts=_digit_counts(ctx)
    )
    exhibit = _digit_exhibit(ctx, summary, runs, ["label_only", supervised])
    ctx.write_table("digit_summaries", summary, key=["seed"])
    ctx.write_table("digit_distribution", dist, key=["order"])
    ctx.write_table("digit_claims", verdicts, key=["order"])
    ctx.write_table("digit_sweep", sweep, key=["order", "metric"])
    ctx.write_table("digit_incidence", inc, key=["order"])
    ctx.write_plot("digit_incidence", inc)
    printing.digits(dist, verdicts, sweep, inc, exhibit)
    check_claims(verdicts, where=f"shortcuts digits over {len(summary)} seeds")
    return {
        "digits": sweep_metrics(dist, verdicts, claims.DIGIT_CLAIMS),
        "digit_incidence": {
            r["support"]: {metric_token(r["mitigation"]): r["rate"]}
            for r in inc.to_dict("records")
            if r["mitigation"] != "neural"
        },
        "digit_exhibit": {"seed": exhibit["seed"], "rank": exhibit["rank"]},
    }


def aggregate_calibration(ctx) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The digit half of ``calibrate aggregate``: the per-seed digit calibration rows over the
    sweep and their table per support x mitigation; writes that table and the digit
    exhibit's per-class reliability."""
    from .mitigations import mitigation_names
    from .summaries import digit_calibration_table

    p, d = ctx.params, ctx.params["digits"]
    digits = gather(ctx, "digit_calibration", "calibrate")
    table = digit_calibration_table(
        digits, supports=list(d["supports"]), mitigations=mitigation_names(d)
    )
    seed = int(ctx.read_table("digit_exhibit", stage="score")["seed"].iloc[0])
    reliability = ctx.read_table(
        "digit_reliability", stage="calibrate", block=seed // int(p["seed_block"])
    )
    reliability = reliability[reliability["seed"] == seed]
    ctx.write_table("digit_calibration_table", table, key=["order", "metric"])
    ctx.write_table(
        "digit_exhibit_reliability",
        reliability,
        key=["mitigation", "method", "reading", "target", "class", "bin"],
    )
    return digits, table
