"""Stage functions of the calibration instrument (spec ch07).

generate   the academic KG, the labelled set (positives + seeded corruptions), cal/eval split
count      base rate and class mix of each half
train      ComplEx link predictor; raw scores of every labelled triple
score      BEFORE audit of the evaluation half under the model's own reading p = sigmoid(s)
calibrate  temperature / Platt / isotonic fitted on the calibration half; AFTER audits,
           ledger, invariances, bootstrap intervals; the spec's claims asserted
"""

from __future__ import annotations

import pandas as pd

from ..errors import check_claim
from ..metrics.calibration import (
    bootstrap_interval,
    brier_score,
    expected_calibration_error,
    nll_from_probs,
    roc_auc,
    sigmoid,
)
from .audit import audit, ledger_table, repair
from .complex_model import train_complex
from .methods import METHODS
from .seeds import child_rng
from .world import build_labelled, entity_table, load_world, stratified_split, triple_table


def _tau_reading(tau: float) -> str:
    if tau > 1:
        return "raw reading too confident, scores shrink"
    if tau < 1:
        return "raw reading too timid, scores stretch"
    return "unchanged"


def _triple_text(df: pd.DataFrame) -> pd.Series:
    return "(" + df["head"] + ", " + df["relation"] + ", " + df["tail"] + ")"


def _printable_reliability(table: pd.DataFrame) -> tuple[pd.DataFrame, list[int]]:
    """The report's display of every bin, and the list of empty bins for the console note."""
    from .report import reliability_display

    return reliability_display(table), table.loc[table["count"] == 0, "bin"].tolist()


def _bin_opts(params: dict) -> dict:
    return dict(n_bins=params["n_bins"], strategy=params["strategy"])


# ---------------------------------------------------------------- generate
def generate(ctx) -> None:
    p = ctx.params
    world = load_world()
    labelled = build_labelled(world, corruptions=p["corruptions"], seed=p["seed"])
    labelled["split"] = stratified_split(
        labelled["label"].to_numpy(), seed=p["seed"], fraction=p["cal_fraction"]
    )
    ctx.write_table("entities", entity_table(world), key=["entity_id"])
    ctx.write_table(
        "train_triples", triple_table(world.train, split="train"), key=["head", "relation", "tail"]
    )
    ctx.write_table(
        "heldout_triples",
        triple_table(world.heldout, split="heldout"),
        key=["head", "relation", "tail"],
    )
    ctx.write_table("labelled", labelled, key=["triple_id"])
    ctx.log(
        f"{len(world.entities)} entities, {len(world.known_true)} known-true triples "
        f"({len(world.train)} trained on, {len(world.heldout)} held out), {len(labelled)} labelled"
    )
    ctx.write_metrics(
        {
            "world": {
                "entities": len(world.entities),
                "relations": len(world.relations),
                "known_true": len(world.known_true),
                "train_triples": len(world.train),
                "heldout_triples": len(world.heldout),
                "labelled": len(labelled),
            }
        }
    )


# ---------------------------------------------------------------- count
def count(ctx) -> None:
    labelled = ctx.read_table("labelled", stage="generate")
    rows = []
    for split in ("all", "cal", "eval"):
        part = labelled if split == "all" else labelled[labelled["split"] == split]
        pos = int(part["label"].sum())
        rows.append(
            {
                "split": split,
                "n": len(part),
                "positives": pos,
                "negatives": len(part) - pos,
                "base_rate": pos / len(part),
                "heldout_positives": int((part["source"] == "heldout").sum()),
            }
        )
    mix = pd.DataFrame(rows)
    ctx.print_table("[0] labelled set: class mix per half (stratified split)", mix)
    # The stratified split's promise: each class goes to the calibration half in the
    # same proportion, up to rounding to whole triples.
    frac = ctx.params["cal_fraction"]
    by = mix.set_index("split")
    for cls in ("positives", "negatives"):
        share = frac * by.loc["all", cls]
        check_claim(
            abs(by.loc["cal", cls] - share) <= 0.5,
            f"stratified split: the calibration half holds {frac} of the {cls} up to rounding, "
            f"got {by.loc['cal', cls]} of {by.loc['all', cls]}",
        )
    ctx.write_table("class_mix", mix, key=["split"])
    ctx.write_metrics(
        {
            "base_rate": float(mix.loc[0, "base_rate"]),
            "class_mix": {
                s: {"n": int(r.n), "positives": int(r.positives), "negatives": int(r.negatives)}
                for s, r in zip(mix["split"], mix.itertuples())
            },
        }
    )


# ---------------------------------------------------------------- train
def train(ctx) -> None:
    p, m = ctx.params, ctx.params["model"]
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
        rng_init=child_rng(p["seed"], "complex-init"),
        rng_corrupt=child_rng(p["seed"], "complex-train-corruptions"),
    )
    labelled = ctx.read_table("labelled", stage="generate")
    ent = {e: i for i, e in enumerate(world.entities)}
    rel = {r: i for i, r in enumerate(world.relations)}
    scores = model.score(
        labelled["head"].map(ent).to_numpy(),
        labelled["relation"].map(rel).to_numpy(),
        labelled["tail"].map(ent).to_numpy(),
    )
    emb = []
    for kind, names, re_, im_ in (
        ("entity", world.entities, model.ent_re, model.ent_im),
        ("relation", world.relations, model.rel_re, model.rel_im),
    ):
        for i, name in enumerate(names):
            for k in range(m["dim"]):
                emb.append(
                    {
                        "kind": kind,
                        "name": name,
                        "k": k,
                        "re": float(re_[i, k]),
                        "im": float(im_[i, k]),
                    }
                )
    ctx.write_table("embeddings", pd.DataFrame(emb), key=["kind", "name", "k"])
    ctx.write_table(
        "scores",
        pd.DataFrame({"triple_id": labelled["triple_id"], "score": scores}),
        key=["triple_id"],
    )
    ctx.write_table("training_curve", curve, key=["epoch"])
    ctx.log(f"final training loss {curve['loss'].iloc[-1]:.4f} after {m['epochs']} epochs")
    ctx.write_metrics(
        {"train_loss_final": float(curve["loss"].iloc[-1]), "train_epochs": int(m["epochs"])}
    )


def _scored(ctx) -> pd.DataFrame:
    labelled = ctx.read_table("labelled", stage="generate")
    scores = ctx.read_table("scores", stage="train")
    df = labelled.merge(scores, on="triple_id", how="inner", validate="one_to_one")
    return df.sort_values("triple_id", kind="mergesort").reset_index(drop=True)


# ---------------------------------------------------------------- score
def score(ctx) -> None:
    p = ctx.params
    df = _scored(ctx)
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    ev = (df["split"] == "eval").to_numpy()
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **_bin_opts(p))
    pos_lo, pos_hi, neg_lo, neg_hi = (
        s[y == 1].min(),
        s[y == 1].max(),
        s[y == 0].min(),
        s[y == 0].max(),
    )
    print(
        f"\n[1] raw scores read as probabilities p = sigmoid(s)\n"
        f"  positives score in [{pos_lo:8.3f}, {pos_hi:8.3f}], negatives in [{neg_lo:8.3f}, "
        f"{neg_hi:8.3f}]"
    )
    held = df[df["source"] == "heldout"]
    exhibit = pd.DataFrame(
        {
            "triple_id": held["triple_id"],
            "triple": _triple_text(held),
            "score": held["score"],
            "p": sigmoid(held["score"].to_numpy()),
            "split": held["split"],
        }
    )
    ctx.print_table("  held-out true facts (never trained on):", exhibit.drop(columns="triple_id"))
    worst = exhibit.loc[exhibit["p"].idxmin()]
    print(f"  {worst['triple']} is TRUE but gets p = {worst['p']:.4f}: confidently wrong")
    shown, empty = _printable_reliability(before.reliability)
    n_bins = p["n_bins"]
    ctx.print_table(
        f"[2] BEFORE: reliability of p = sigmoid(s) on the evaluation half, {n_bins} "
        f"{p['strategy']} bins "
        f"(left-closed, last bin closed); acc_lo/acc_hi = 95% Wilson",
        shown,
    )
    b = before.summary
    print(
        f"  ({b['n']} points; empty bins: {empty})\n"
        f"  ECE = {b['ece']:.4f}  MCE = {b['mce']:.4f}  Brier = {b['brier']:.4f}  NLL = "
        f"{b['nll']:.4f}  "
        f"acc(0.5) = {b['acc']:.4f}  AUC = {b['auc']:.4f}"
    )
    # The Brier decomposition is an identity: check it on the artifact we publish.
    parts = b["brier_calibration"] + b["brier_refinement"] + b["brier_residual"]
    check_claim(
        abs(parts - b["brier"]) <= 1e-12,
        f"Brier = calibration + refinement + residual: {b['brier']!r} vs {parts!r}",
    )
    summary = pd.DataFrame({"metric": list(b), "value": [float(v) for v in b.values()]})
    ctx.write_table("before_reliability", before.reliability, key=["bin"])
    ctx.write_table("before_summary", summary, key=["metric"])
    ctx.write_table("heldout_exhibit", exhibit, key=["triple_id"])
    ctx.write_metrics(
        {
            "ece_before": b["ece"],
            "mce_before": b["mce"],
            "nll_before": b["nll"],
            "brier_before": b["brier"],
            "acc_before": b["acc"],
            "auc": b["auc"],
            "ce2_debiased_before": b["ce2_debiased"],
            "score_range": {
                "pos_min": pos_lo,
                "pos_max": pos_hi,
                "neg_min": neg_lo,
                "neg_max": neg_hi,
            },
            "heldout_min_p": float(worst["p"]),
        }
    )


# ---------------------------------------------------------------- calibrate
def _bootstrap_table(y, readings: dict, *, params: dict) -> pd.DataFrame:
    """Seeded stratified-bootstrap intervals of ECE, Brier, NLL and AUC for each probability
    reading.

    ``readings`` maps a name to ``(probabilities, point-estimate summary)``; each
    (reading, metric) pair draws from its own named child stream, so adding a
    reading never changes another's interval.
    """
    opts = _bin_opts(params)
    metrics = {
        "ece": lambda yy, pp: expected_calibration_error(yy, pp, **opts),
        "brier": brier_score,
        "nll": nll_from_probs,
        "auc": roc_auc,
    }
    bs = params["bootstrap"]
    rows = []
    for reading, (probs, summary) in readings.items():
        for metric, fn in metrics.items():
            lo, hi = bootstrap_interval(
                fn,
                y,
                probs,
                n_resamples=bs["resamples"],
                level=bs["level"],
                rng=child_rng(params["seed"], f"bootstrap-{reading}-{metric}"),
            )
            rows.append(
                {
                    "reading": reading,
                    "metric": metric,
                    "estimate": float(summary[metric]),
                    "lo": lo,
                    "hi": hi,
                }
            )
    return pd.DataFrame(rows)


def calibrate(ctx) -> None:
    p = ctx.params
    t = p["temperature"]
    df = _scored(ctx)
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    is_cal = (df["split"] == "cal").to_numpy()
    ev = ~is_cal
    opts = _bin_opts(p)
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **opts)
    repairs = {
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
            **opts,
        )
        for m in METHODS
    }
    temp = repairs["temperature"]
    fit = temp.calibrator.fit_
    tau = fit.tau

    # [3] the golden-section trace
    trace = pd.DataFrame(fit.trace)
    ctx.print_table(
        f"[3] temperature scaling: tau by NLL on the calibration half, golden-section over "
        f"[{t['lo']}, {t['hi']}], tol {t['tol']:g}",
        trace[["iteration", "width", "best_f", "best_x"]],
        floatfmt="{:.6g}",
    )
    print(
        f"  tau* = {tau:.4f} ({fit.direction}: "
        f"{_tau_reading(tau)})"
        f"  after {fit.iterations} iterations\n"
        f"  NLL on the calibration half: {fit.nll_at_1:.4f} (tau=1) -> {fit.nll:.4f} (tau*)"
    )
    check_claim(
        fit.nll <= fit.nll_at_1,
        f"fitted NLL on the calibration half {fit.nll!r} <= NLL at tau=1 {fit.nll_at_1!r}",
    )
    if p["expect_direction"] != "any":
        check_claim(
            fit.direction == p["expect_direction"],
            f"the raw reading is {p['expect_direction']} (tau "
            f"{'>' if p['expect_direction'] == 'overconfident' else '<'} 1), "
            f"got tau = {tau:.6f}",
        )
    check_claim(
        not fit.at_bracket_edge, f"tau = {tau:.6g} is inside the bracket [{t['lo']}, {t['hi']}]"
    )

    # [4] AFTER tables
    for k, m in enumerate(METHODS):
        rep = repairs[m]
        shown, empty = _printable_reliability(rep.after.reliability)
        if m == "temperature":
            desc = f"p = sigmoid(s / {tau:.4f})"
        elif m == "platt":
            desc = f"p = sigmoid({rep.params['a']:.4f} s + {rep.params['b']:.4f})"
        else:
            desc = f"an isotonic step map ({int(rep.params['steps'])} thresholds)"
        ctx.print_table(f"[4{'abc'[k]}] AFTER ({m}): the same evaluation half under {desc}", shown)
        print(f"  ({rep.after.summary['n']} points; empty bins: {empty})")
    after = temp.after.summary
    b = before.summary
    check_claim(
        after["ece"] < b["ece"],
        f"ECE on the evaluation half strictly improves under temperature: {b['ece']:.6f} -> "
        f"{after['ece']:.6f}",
    )

    # [5] ledger
    ledger = ledger_table(b, list(repairs.values()))
    ctx.print_table(
        "[5] ledger on the evaluation half: before, after each method, and whether it moved",
        ledger.drop(columns=["order", "measures"]),
    )

    # [6] invariances, measured on all labelled triples
    inv_rows = []
    for m, rep in repairs.items():
        for prop, held in rep.invariance.items():
            inv_rows.append({"method": m, "property": prop, "held": held})
    inv = pd.DataFrame(inv_rows)
    ctx.print_table(
        f"[6] invariances over all {len(s)} labelled triples (bit-identical before vs after)",
        inv.pivot(index="property", columns="method", values="held").reset_index()[
            ["property", *METHODS]
        ],
    )
    for prop in ("decisions", "accuracy", "argsort", "auc"):
        check_claim(
            temp.invariance[prop],
            f"temperature scaling leaves {prop} bit-identical over all {len(s)} triples",
        )
    check_claim(
        after["acc"] == b["acc"] and after["auc"] == b["auc"],
        f"eval-half acc and AUC unchanged by temperature: acc {b['acc']!r} -> {after['acc']!r}, "
        f"AUC {b['auc']!r} -> {after['auc']!r}",
    )

    # [7] bootstrap intervals on the evaluation half
    readings = {
        "before": (sigmoid(s[ev]), b),
        **{m: (repairs[m].p_all[ev], repairs[m].after.summary) for m in METHODS},
    }
    boot = _bootstrap_table(y[ev], readings, params=p)
    bs = p["bootstrap"]
    ctx.log(
        f"bootstrap: {bs['resamples']} stratified resamples x {len(boot)} (reading, metric) pairs "
        "done"
    )
    ctx.print_table(
        f"[7] {bs['level']:.0%} bootstrap intervals on the evaluation half ({bs['resamples']} "
        "stratified resamples;"
        " nll from probabilities clipped at 1e-15)",
        boot,
    )

    # held-out exhibit after temperature
    held = df[df["source"] == "heldout"]
    exhibit = pd.DataFrame(
        {
            "triple_id": held["triple_id"],
            "triple": _triple_text(held),
            "score": held["score"],
            "p": sigmoid(held["score"].to_numpy()),
            "p_temperature": temp.p_all[held.index.to_numpy()],
            "split": held["split"],
        }
    )
    ctx.print_table(
        f"[8] held-out true facts before and after temperature (tau = {tau:.4f})",
        exhibit.drop(columns="triple_id"),
    )
    wrong_before = int((exhibit["p"] < 0.5).sum())
    wrong_after = int((exhibit["p_temperature"] < 0.5).sum())
    print(
        f"  {wrong_before} of {len(exhibit)} held-out facts sit below 0.5 before, {wrong_after} "
        "after: "
        "a sign-preserving map cannot move a wrong decision"
    )

    # artifacts
    after_rel = pd.concat(
        [r.after.reliability.assign(method=m) for m, r in repairs.items()], ignore_index=True
    )
    ctx.write_table("after_reliability", after_rel, key=["method", "bin"])
    ctx.write_table("ledger", ledger, key=["order"])
    ctx.write_table("invariance", inv, key=["method", "property"])
    ctx.write_table("temperature_trace", trace, key=["iteration"])
    ctx.write_table("bootstrap", boot, key=["reading", "metric"])
    ctx.write_table("exhibit_after", exhibit, key=["triple_id"])
    plot = pd.concat([before.reliability.assign(method="before"), after_rel], ignore_index=True)
    plot = plot[plot["count"] > 0][["method", "bin", "conf", "acc", "count", "acc_lo", "acc_hi"]]
    ctx.write_plot("reliability", plot)
    metrics = {
        "tau": tau,
        "tau_direction": fit.direction,
        "tau_iterations": fit.iterations,
        "nll_cal_at_tau1": fit.nll_at_1,
        "nll_cal_at_tau": fit.nll,
        "ece_after": after["ece"],
        "nll_after": after["nll"],
        "brier_after": after["brier"],
        "mce_after": after["mce"],
        "acc_after": after["acc"],
        "auc_after": after["auc"],
        "platt": {"a": repairs["platt"].params["a"], "b": repairs["platt"].params["b"]},
    }
    for m in ("platt", "isotonic"):
        sm = repairs[m].after.summary
        metrics[f"ece_{m}"] = sm["ece"]
        metrics[f"nll_{m}"] = sm["nll"]
        metrics[f"brier_{m}"] = sm["brier"]
        metrics[f"auc_{m}"] = sm["auc"]
        metrics[f"acc_{m}"] = sm["acc"]
        for prop, held_ in repairs[m].invariance.items():
            metrics[f"invariance_{m}_{prop}"] = held_
    ctx.write_metrics(metrics)
