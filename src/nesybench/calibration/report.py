"""The calibration section of the report: every number read from the pipeline's artifacts."""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Paragraph, Table
from ..report.sensitivity import counts_of, sensitivity_blocks
from ..report.sweep import default_intro, sweep_blocks
from ..sweep import describe_exhibit
from .methods import METHODS
from .printing import reliability_display


def reliability_figure(panels: dict[str, pd.DataFrame], *, title: str):
    """Reliability diagram(s): accuracy vs confidence per non-empty bin with 95% Wilson bars
    above, and below each the number of points per bin as bars over the bin's own range (the
    classic layout: bin counts printed beside the points overlap wherever bins are close)."""
    from ..report.figures import new_figure_grid

    fig, axes = new_figure_grid(
        2,
        len(panels),
        width=3.0 * len(panels),
        height=4.2,
        squeeze=False,
        sharex=True,
        gridspec_kw={"height_ratios": [3, 1]},
    )
    top, bottom = axes
    for ax, hist, (name, table) in zip(top, bottom, panels.items()):
        shown = table[table["count"] > 0]
        ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1)
        ax.errorbar(
            shown["conf"],
            shown["acc"],
            yerr=[shown["acc"] - shown["acc_lo"], shown["acc_hi"] - shown["acc"]],
            fmt="o",
            capsize=3,
            color="C0",
        )
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(name, fontsize=9)
        hist.bar(
            shown["lo"],
            shown["count"],
            width=shown["hi"] - shown["lo"],
            align="edge",
            color="C0",
            alpha=0.6,
            edgecolor="white",
        )
        for lo, hi, n in zip(shown["lo"], shown["hi"], shown["count"]):
            hist.annotate(
                f"{int(n)}",
                ((lo + hi) / 2, n),
                textcoords="offset points",
                xytext=(0, 1),
                ha="center",
                va="bottom",
                fontsize=7,
            )
        hist.set_ylim(0, 1.35 * float(table["count"].max() or 1))
        hist.set_xlabel("mean confidence in bin")
    top[0].set_ylabel("observed accuracy")
    bottom[0].set_ylabel("points")
    fig.suptitle(title, fontsize=9)
    return fig


def conditional_blocks(loader) -> list[Block]:
    """The temperature claims by the number of held-out true facts in the evaluation half."""
    table = loader.table("calibrate", "conditional")
    k = int(loader.params["chapter"]["heldout_in_eval"])
    cell = [
        counts_of(h, n) + (f" ({lo:.2f}-{hi:.2f})" if n else "")
        for h, n, lo, hi in zip(
            table["holds_on"], table["n_seeds"], table["rate_lo"], table["rate_hi"]
        )
    ]
    wide = table.assign(cell=cell).pivot(
        index=["setting", "heldout_in_eval", "chapter_case", "n_seeds"],
        columns="claim",
        values="cell",
    )
    order = list(dict.fromkeys(table["claim"]))
    settings = list(dict.fromkeys(table["setting"]))
    shown = wide.reset_index()[["setting", "heldout_in_eval", "chapter_case", "n_seeds", *order]]
    shown = shown.assign(rank=shown["setting"].map(settings.index)).sort_values(
        ["rank", "heldout_in_eval"], kind="mergesort"
    )
    shown = shown.drop(columns="rank").rename(
        columns={
            "heldout_in_eval": "held-out facts in eval",
            "chapter_case": "chapter's case",
            "n_seeds": "seeds",
        }
    )
    shown["chapter's case"] = shown["chapter's case"].map({True: "yes", False: ""})
    return [
        Paragraph(
            "The mechanism behind the temperature claims: the only badly calibrated points of "
            "this world are its held-out true facts (never trained on; the raw model gives some "
            "of them p near 0). A split stratified by label alone leaves how many of them land "
            "in the evaluation half to the draw (0 to 3, hypergeometric); the chapter's half "
            f"holds {k}. Each cell: on how many of the seeds with that many held-out facts in "
            "the evaluation half the claim holds, and the 95% Wilson interval of the rate."
        ),
        Table(
            "Temperature claims conditional on the held-out true facts in the evaluation half",
            shown,
            params={"chapter.heldout_in_eval": k},
            note="The rows of one setting and claim partition its seeds (asserted: they add up "
            "to the claim's count over all seeds).",
        ),
    ]


def section(loader) -> list[Block]:
    p = loader.params
    gen = loader.metrics("generate")
    dist = loader.table("calibrate", "distribution")
    n_sweep = int(dist["n_seeds"].max())
    claims = loader.table("calibrate", "claims")
    exhibit = loader.table("calibrate", "exhibit").iloc[0]
    seed = int(exhibit["seed"])
    score_m = loader.metrics("score", "seed", seed=seed)
    cal_m = loader.metrics("calibrate", "seed", seed=seed)
    mix = loader.table("count", "class_mix")
    before = loader.table("score", "before_reliability", seed=seed)
    after = loader.table("calibrate", "after_reliability", seed=seed)
    held = loader.table("calibrate", "exhibit_after", seed=seed)
    trace = loader.table("calibrate", "temperature_trace", seed=seed)
    ledger = loader.table("calibrate", "ledger", seed=seed)
    inv = loader.table("calibrate", "invariance", seed=seed)
    boot = loader.table("calibrate", "bootstrap")
    label = (
        f"seed {seed}: {exhibit['statement']} (rank {int(exhibit['rank'])} of "
        f"{int(exhibit['n_seeds'])}, {exhibit['metric']} = {exhibit['value']:.4g})"
        if exhibit.get("statement")
        else describe_exhibit(exhibit)
    )
    params = {
        "seed": seed,
        "corruptions": p["corruptions"],
        "bins": p["n_bins"],
        "strategy": p["strategy"],
    }
    tau = cal_m["calibrate.tau"]
    w = "generate.world"
    blocks: list[Block] = [
        Paragraph(
            f"A ComplEx link predictor ({p['model']['dim']} complex dimensions, "
            f"{p['model']['epochs']} SGD epochs on softplus(-y s)) is trained on "
            f"{gen[f'{w}.train_triples']} of the {gen[f'{w}.known_true']} known-true triples of a "
            f"{gen[f'{w}.entities']}-entity academic knowledge graph; "
            f"{gen[f'{w}.heldout_triples']} true facts are held out. Each seed draws its own "
            f"labelled set (every known-true triple plus {p['corruptions']} corruptions each), "
            "its own cal/eval split and its own initialisation. Calibrators are fitted on the "
            "`cal` half and every audit is on the `eval` half. Bins: "
            + (
                "equal width, edges b/B, left-closed [b/B, (b+1)/B) with the last bin closed so "
                "p = 1.0 lands in it; "
                if p["strategy"] == "uniform"
                else "equal mass (quantile edges), left-closed; "
            )
            + "acc_lo/acc_hi is the 95% Wilson interval of each bin's accuracy."
        ),
        *sweep_blocks(
            dist,
            claims,
            n_seeds=n_sweep,
            intro=default_intro("this instrument", n_sweep),
        ),
        Table(
            "Class mix per half, every seed",
            mix,
            params={k: v for k, v in params.items() if k != "seed"},
        ),
        *sensitivity_blocks(loader, "calibrate", what="calibration"),
        *conditional_blocks(loader),
        Paragraph(
            f"**Worked example.** The tables below show one seed, picked by a rule declared in "
            f"params.yaml (`exhibit: {p['exhibit']}`): {label}. They illustrate the mechanics; "
            "the distribution above says how typical they are."
        ),
        Table(
            "Held-out true facts: the model's own probability sigmoid(s), and after temperature",
            held.drop(columns="triple_id"),
            params=params,
            note=f"Scores of positives span [{score_m['score.prediction_range.pos_min']:.3f}, "
            f"{score_m['score.prediction_range.pos_max']:.3f}], "
            f"negatives [{score_m['score.prediction_range.neg_min']:.3f}, "
            f"{score_m['score.prediction_range.neg_max']:.3f}]. "
            f"The lowest held-out probability, {score_m['score.heldout_min_p']:.4f}, belongs to a "
            "TRUE triple.",
        ),
        Table(
            "BEFORE: reliability of p = sigmoid(s) on the evaluation half",
            reliability_display(before),
            params=params,
            note=f"ECE {score_m['score.ece']:.4f}, MCE {score_m['score.mce']:.4f}, "
            f"Brier {score_m['score.brier']:.4f}, NLL {score_m['score.nll']:.4f}, "
            f"acc(0.5) {score_m['score.accuracy']:.4f}, AUC {score_m['score.auc']:.4f}. "
            "Every bin is listed; an empty bin has no confidence or accuracy (–).",
        ),
        Table(
            "Golden-section search for tau (NLL on the calibration half)",
            trace,
            params=params,
            floatfmt="{:.6g}",
            note=f"tau* = {tau:.4f}; NLL on the calibration half "
            f"{cal_m['calibrate.nll_cal_at_tau1']:.4f} at tau = 1 -> "
            f"{cal_m['calibrate.nll_cal_at_tau']:.4f} at tau*. The NLL is convex in 1/tau, "
            "hence unimodal in tau on the bracket, which is what the search needs.",
        ),
    ]
    by_metric = ledger.set_index("metric")
    for m in METHODS:
        note = ", ".join(
            f"{k} {by_metric.loc[k, 'before']:.4f} -> {by_metric.loc[k, m]:.4f}"
            for k in ("ece", "nll", "brier", "acc", "auc")
        )
        blocks.append(
            Table(
                f"AFTER ({m}) on the evaluation half",
                reliability_display(after[after["method"] == m]),
                params=params,
                note=f"Before -> after: {note}. Every bin is listed; empty ones show –.",
            )
        )
    blocks += [
        Table(
            "Ledger: before and after each method; `moved_*` is measured (bitwise change), not "
            "assumed",
            ledger.drop(columns="order"),
            params=params,
            note="On every seed, temperature scaling is asserted at run time to leave the 0.5 "
            "decisions and accuracy bit-identical and to reverse the order of no two scores; "
            "the stable argsort and the AUC are asserted bit-identical too unless a sharp "
            "sigmoid's saturation made or broke ties (`same_ties` below). Whether it lowers "
            "the ECE is the claim rate above.",
        ),
        Table(
            "Invariances over all labelled triples (measured)",
            inv.pivot(index="property", columns="method", values="held").reset_index()[
                ["property", *METHODS]
            ],
            params=params,
        ),
        Table(
            f"Bootstrap {p['bootstrap']['level']:.0%} intervals on the evaluation half",
            boot,
            params={**params, "resamples": p["bootstrap"]["resamples"]},
            note="Stratified percentile bootstrap (class counts fixed per resample) within the "
            "exhibit seed: the intervals are wide, since a half of 63 points cannot certify "
            "small calibration differences.",
        ),
        Figure(
            "Reliability diagrams",
            reliability_figure(
                {"before: sigmoid(s)": before, **{m: after[after["method"] == m] for m in METHODS}},
                title=f"seed {seed}, evaluation half; bars = 95% Wilson interval; "
                "below: points per bin",
            ),
            name="calibration-reliability",
            caption="Points on the dashed diagonal are calibrated; bins holding one or two points "
            "carry wide bars.",
        ),
    ]
    return blocks
