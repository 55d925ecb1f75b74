"""Stage functions of the calibration instrument (spec ch07): read, call, write.

Every number here depends on a seed (the corruptions, the split, the model's init and its
training draws), so the instrument runs as a sweep of ``n_seeds`` seeds:

generate            the academic KG (the same for every seed)
generate  seed      the labelled set (positives + seeded corruptions) and its cal/eval split
count               class mix of each half, per seed (the split's promise asserted on each)
train     seed      ComplEx link predictor; raw scores of every labelled triple
score     seed      BEFORE audit of the eval half under the model's own reading sigmoid(s)
calibrate seed      temperature / Platt / isotonic fitted on the cal half; AFTER audits,
                    ledger, invariances; a one-row summary with the directional claims
calibrate aggregate the distribution over seeds, claim rates, the exhibit seed (picked by a
                    declared rule) and its bootstrap intervals

Claims live in :mod:`.claims`, console tables in :mod:`.printing`.
"""

from __future__ import annotations

import pandas as pd

from ..metrics.calibration import sigmoid
from ..sweep import check_claims, claim_table, distribution_table, pick_exhibit, sweep_metrics
from . import claims, printing
from .audit import audit, ledger_table, repair
from .complex_model import train_complex
from .methods import METHODS
from .summaries import (
    SEED_METRICS,
    bootstrap_table,
    class_mix,
    embedding_table,
    heldout_table,
    seed_summary,
)
from .world import build_labelled, entity_table, load_world, stratified_split, triple_table

EXHIBIT_METRIC = "ece_change_temperature"


def pick_calibration_exhibit(summary: pd.DataFrame, *, rule: str, chapter: dict) -> dict:
    """The worked example's seed.  ``chapter_median``: the median ECE change under temperature
    among the seeds whose evaluation half holds as many held-out true facts as the chapter's
    (``chapter.heldout_in_eval``), else (no such seed, said so) among all seeds; the other
    rules (median, min, max, first) over all seeds."""
    if rule != "chapter_median":
        return {**pick_exhibit(summary, metric=EXHIBIT_METRIC, rule=rule), "statement": ""}
    k = int(chapter["heldout_in_eval"])
    match = summary[summary["heldout_in_eval"] == k]
    picked = pick_exhibit(match if len(match) else summary, metric=EXHIBIT_METRIC, rule="median")
    statement = (
        f"the median {EXHIBIT_METRIC} among the {len(match)} of {len(summary)} seeds whose "
        f"evaluation half holds {k} held-out true facts, as the chapter's does"
        if len(match)
        else f"no seed's evaluation half holds {k} held-out true facts as the chapter's does, "
        f"so the median {EXHIBIT_METRIC} over all {len(summary)} seeds"
    )
    return {**picked, "rule": rule, "statement": statement}


def _bin_opts(params: dict) -> dict:
    return dict(n_bins=params["n_bins"], strategy=params["strategy"])


def _scored(ctx) -> pd.DataFrame:
    """This seed's labelled triples with the model's raw scores, by triple id."""
    labelled = ctx.read_table("labelled", stage="generate", seed=ctx.seed)
    scores = ctx.read_table("scores", stage="train", seed=ctx.seed)
    df = labelled.merge(scores, on="triple_id", how="inner", validate="one_to_one")
    return df.sort_values("triple_id", kind="mergesort").reset_index(drop=True)


# ---------------------------------------------------------------- generate
def generate(ctx) -> None:
    """The world every seed shares: entities, trained and held-out triples."""
    world = load_world()
    ctx.write_table("entities", entity_table(world), key=["entity_id"])
    triple_key = ["head", "relation", "tail"]
    ctx.write_table("train_triples", triple_table(world.train, split="train"), key=triple_key)
    ctx.write_table("heldout_triples", triple_table(world.heldout, split="heldout"), key=triple_key)
    ctx.write_metrics(
        {
            "world": {
                "entities": len(world.entities),
                "relations": len(world.relations),
                "known_true": len(world.known_true),
                "train_triples": len(world.train),
                "heldout_triples": len(world.heldout),
            }
        }
    )


def generate_seed(ctx) -> None:
    """One seed's labelled set and its stratified cal/eval split."""
    p = ctx.params
    labelled = build_labelled(load_world(), corruptions=p["corruptions"], seed=ctx.seed)
    labelled["split"] = stratified_split(
        labelled["label"].to_numpy(),
        seed=ctx.seed,
        fraction=p["cal_fraction"],
        heldout=(labelled["source"] == "heldout").to_numpy(),
        stratify=p["stratify"],
    )
    ctx.write_table("labelled", labelled, key=["triple_id"])
    ctx.write_metrics({"labelled": len(labelled), "positives": int(labelled["label"].sum())})


# ---------------------------------------------------------------- count
def count(ctx) -> None:
    """Class mix of each half on every seed; the stratified split's promise on each."""
    frames = []
    for seed in ctx.seeds:
        mix = class_mix(ctx.read_table("labelled", stage="generate", seed=seed))
        claims.check_stratified_split(
            mix, fraction=ctx.params["cal_fraction"], seed=seed, stratify=ctx.params["stratify"]
        )
        mix.insert(0, "seed", seed)
        frames.append(mix)
    table = pd.concat(frames, ignore_index=True)
    ctx.write_table("class_mix", table, key=["seed", "split"])
    printing.class_mix(table)
    first = table[table["seed"] == ctx.seeds[0]].set_index("split")
    ctx.write_metrics(
        {
            "base_rate": float(first.loc["all", "base_rate"]),
            "labelled": int(first.loc["all", "n"]),
            "seeds_checked": len(ctx.seeds),
        }
    )


# ---------------------------------------------------------------- train
def train_seed(ctx) -> None:
    """ComplEx on the training triples; raw scores of this seed's labelled set."""
    m = ctx.params["model"]
    world = load_world()
    model, curve = train_complex(
        world.train,
        world.entities,
        world.relations,
        dim=m["dim"],
        epochs=m["epochs"],
        lr=m["lr"],
        l2=m["l2"],
        init_scale=m["init_scale"],
        rng_init=ctx.rng("complex-init"),
        rng_corrupt=ctx.rng("complex-train-corruptions"),
    )
    labelled = ctx.read_table("labelled", stage="generate", seed=ctx.seed)
    ent = {e: i for i, e in enumerate(world.entities)}
    rel = {r: i for i, r in enumerate(world.relations)}
    scores = model.score(
        labelled["head"].map(ent).to_numpy(),
        labelled["relation"].map(rel).to_numpy(),
        labelled["tail"].map(ent).to_numpy(),
    )
    ctx.write_table("embeddings", embedding_table(model, world), key=["kind", "name", "k"])
    ctx.write_table(
        "scores",
        pd.DataFrame({"triple_id": labelled["triple_id"], "score": scores}),
        key=["triple_id"],
    )
    ctx.write_table("training_curve", curve, key=["epoch"])
    ctx.log(f"final training loss {curve['loss'].iloc[-1]:.4f} after {m['epochs']} epochs")
    ctx.write_metrics({"loss_final": float(curve["loss"].iloc[-1]), "epochs": int(m["epochs"])})


# ---------------------------------------------------------------- score
def score_seed(ctx) -> None:
    """BEFORE: the reliability of p = sigmoid(s) on this seed's evaluation half."""
    df = _scored(ctx)
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    ev = (df["split"] == "eval").to_numpy()
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **_bin_opts(ctx.params))
    claims.check_brier_identity(before.summary)
    exhibit = heldout_table(df)
    b = before.summary
    ctx.write_table("before_reliability", before.reliability, key=["bin"])
    ctx.write_table(
        "before_summary",
        pd.DataFrame({"metric": list(b), "value": [float(v) for v in b.values()]}),
        key=["metric"],
    )
    ctx.write_table("heldout_exhibit", exhibit, key=["triple_id"])
    printing.before(ctx, before, exhibit, s, y)
    ctx.write_metrics(
        {
            **{k: b[k] for k in ("ece", "mce", "nll", "brier", "auc", "ce2_debiased")},
            "accuracy": b["acc"],
            "prediction_range": {
                "pos_min": float(s[y == 1].min()),
                "pos_max": float(s[y == 1].max()),
                "neg_min": float(s[y == 0].min()),
                "neg_max": float(s[y == 0].max()),
            },
            "heldout_min_p": float(exhibit["p"].min()),
        }
    )


# ---------------------------------------------------------------- calibrate
def _repairs(df: pd.DataFrame, p: dict) -> dict:
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    t = p["temperature"]
    is_cal = (df["split"] == "cal").to_numpy()
    return {
        m: repair(
            m,
            s,
            y,
            is_cal,
            lo=t["lo"],
            hi=t["hi"],
            tol=t["tol"],
            trace_every=t["trace_every"],
            platt_c=p["platt_c"],
            **_bin_opts(p),
        )
        for m in METHODS
    }


def calibrate_seed(ctx) -> None:
    """Fit the three calibrators on the cal half; audit the eval half after each."""
    p = ctx.params
    df = _scored(ctx)
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    ev = (df["split"] == "eval").to_numpy()
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **_bin_opts(p)).summary
    repairs = _repairs(df, p)
    temp = repairs["temperature"]
    fit = temp.calibrator.fit_
    claims.check_temperature_fit(fit)
    claims.check_temperature_invariances(temp, before, len(s))

    ledger = ledger_table(before, list(repairs.values()))
    inv = pd.DataFrame(
        [
            {"method": m, "property": prop, "held": held}
            for m, rep in repairs.items()
            for prop, held in rep.invariance.items()
        ]
    )
    exhibit = heldout_table(df, p_after=temp.p_all)
    after_rel = pd.concat(
        [r.after.reliability.assign(method=m) for m, r in repairs.items()], ignore_index=True
    )
    ctx.write_table("after_reliability", after_rel, key=["method", "bin"])
    ctx.write_table("ledger", ledger, key=["order"])
    ctx.write_table("invariance", inv, key=["method", "property"])
    ctx.write_table("temperature_trace", pd.DataFrame(fit.trace), key=["iteration"])
    ctx.write_table("exhibit_after", exhibit, key=["triple_id"])
    summary = seed_summary(
        ctx.seed,
        fit,
        before,
        repairs,
        heldout_min_p=exhibit["p"].min(),
        heldout_in_eval=int((exhibit["split"] == "eval").sum()),
    )
    ctx.write_table("summary", summary, key=["seed"])
    printing.after(ctx, fit, repairs, ledger, inv, exhibit, p)
    ctx.write_metrics(
        {
            **{k: v for k, v in summary.iloc[0].items() if k != "seed"},
            "nll_cal_at_tau1": fit.nll_at_1,
            "nll_cal_at_tau": fit.nll,
            "tau_iterations": fit.iterations,
        }
    )


def calibrate_aggregate(ctx) -> None:
    """The sweep: distributions and claim rates over seeds; the exhibit seed's intervals."""
    p = ctx.params
    summary = pd.concat(
        [ctx.read_table("summary", stage="calibrate", seed=s) for s in ctx.seeds],
        ignore_index=True,
    )
    dist = distribution_table(summary, SEED_METRICS)
    verdicts = claim_table(summary, claims.SEED_CLAIMS, p["claims"])
    exhibit = pick_calibration_exhibit(summary, rule=p["exhibit"], chapter=p["chapter"])
    seed = exhibit["seed"]

    df = ctx.read_table("labelled", stage="generate", seed=seed).merge(
        ctx.read_table("scores", stage="train", seed=seed), on="triple_id", validate="one_to_one"
    )
    df = df.sort_values("triple_id", kind="mergesort").reset_index(drop=True)
    ev = (df["split"] == "eval").to_numpy()
    repairs = _repairs(df, p)
    boot = bootstrap_table(df, ev, repairs, params=p, seed=seed)
    before = ctx.read_table("before_reliability", stage="score", seed=seed)
    after = ctx.read_table("after_reliability", stage="calibrate", seed=seed)

    ctx.write_table("summaries", summary, key=["seed"])
    ctx.write_table("distribution", dist, key=["order"])
    ctx.write_table("claims", verdicts, key=["order"])
    ctx.write_table("exhibit", pd.DataFrame([exhibit]), key=["seed"])
    ctx.write_table("bootstrap", boot, key=["reading", "metric"])
    plot = pd.concat([before.assign(method="before"), after], ignore_index=True)
    plot = plot[plot["count"] > 0][["method", "bin", "conf", "acc", "count", "acc_lo", "acc_hi"]]
    ctx.write_plot("reliability", plot)
    printing.sweep(ctx, dist, verdicts, exhibit, boot)
    check_claims(verdicts, where=f"calibration over {len(summary)} seeds")
    ctx.write_metrics(
        {
            **sweep_metrics(dist, verdicts, claims.SEED_CLAIMS),
            "exhibit": {"seed": seed, "rank": exhibit["rank"]},
        }
    )


def calibrate_variant(ctx) -> None:
    """One knob level, one seed (see :mod:`.sensitivity`)."""
    from .sensitivity import variant

    variant(ctx)


def calibrate_sensitivity(ctx) -> None:
    """Every claim at every measured knob level; claims by held-out facts in eval."""
    from .sensitivity import sensitivity

    sensitivity(ctx)


# The jobs of this instrument (declared in artifacts.py) and the function each runs.
STAGE_FUNCTIONS = {
    ("generate", None): generate,
    ("generate", "seed"): generate_seed,
    ("count", None): count,
    ("train", "seed"): train_seed,
    ("score", "seed"): score_seed,
    ("calibrate", "seed"): calibrate_seed,
    ("calibrate", "aggregate"): calibrate_aggregate,
    ("calibrate", "variant"): calibrate_variant,
    ("calibrate", "sensitivity"): calibrate_sensitivity,
}
