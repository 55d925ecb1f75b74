"""The calibration section of the nesybench report: every number read from the pipeline's artifacts.
The calibration section of the nesybench report: every number read from the pipeline's artifacts."""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Paragraph, Table
from .methods import METHODS


def reliability_display(table: pd.DataFrame) -> pd.DataFrame:
    """Every bin of a reliability table, empty ones included, with its range spelled out."""
    shown = table.sort_values("bin").copy()
    shown.insert(
        0,
        "range",
        [
            f"[{lo:.2f},{hi:.2f}{']' if hi >= 1.0 else ')'}"
            for lo, hi in zip(shown["lo"], shown["hi"])
        ],
    )
    return shown[["range", "count", "conf", "acc", "gap", "acc_lo", "acc_hi"]].reset_index(
        drop=True
    )


def reliability_figure(panels: dict[str, pd.DataFrame], *, title: str):
    """Reliability diagram(s): accuracy vs confidence per non-empty bin, 95% Wilson bars, counts
    annotated."""
    from ..report.figures import new_figure_grid

    fig, axes = new_figure_grid(1, len(panels), width=3.0 * len(panels), height=3.4, squeeze=False)
    axes = axes[0]
    for ax, (name, table) in zip(axes, panels.items()):
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
        for conf, acc, n in zip(shown["conf"], shown["acc"], shown["count"]):
            ax.annotate(
                f"n={int(n)}", (conf, acc), textcoords="offset points", xytext=(4, -10), fontsize=7
            )
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("mean confidence in bin")
    axes[0].set_ylabel("observed accuracy")
    fig.suptitle(title, fontsize=9)
    return fig


def section(loader) -> list[Block]:
    p = loader.params
    gen = loader.metrics("generate")
    score_m = loader.metrics("score")
    cal_m = loader.metrics("calibrate")
    mix = loader.table("count", "class_mix")
    before = loader.table("score", "before_reliability")
    after = loader.table("calibrate", "after_reliability")
    exhibit = loader.table("calibrate", "exhibit_after")
    trace = loader.table("calibrate", "temperature_trace")
    ledger = loader.table("calibrate", "ledger")
    inv = loader.table("calibrate", "invariance")
    boot = loader.table("calibrate", "bootstrap")
    params = {
        "seed": p["seed"],
        "corruptions": p["corruptions"],
        "bins": p["n_bins"],
        "strategy": p["strategy"],
    }
    tau = cal_m["tau"]
    blocks: list[Block] = [
        Paragraph(
            f"A ComplEx link predictor ({p['model']['dim']} complex dimensions, "
            f"{p['model']['epochs']} SGD epochs on "
            f"softplus(-y s)) is trained on {gen['world.train_triples']} of the "
            f"{gen['world.known_true']} known-true "
            f"triples of a {gen['world.entities']}-entity academic knowledge graph; "
            f"{gen['world.heldout_triples']} true "
            f"facts are held out. The labelled set has {gen['world.labelled']} triples: every "
            "known-true triple plus "
            f"{p['corruptions']} seeded corruptions each. Calibrators are fitted on the `cal` "
            "half and every audit "
            "below is on the `eval` half. Bins: "
            + (
                "equal width, edges b/B, left-closed [b/B, (b+1)/B) with the last bin closed so p "
                "= 1.0 lands in it; "
                if p["strategy"] == "uniform"
                else "equal mass (quantile edges), left-closed; "
            )
            + "acc_lo/acc_hi is the 95% Wilson interval of each bin's accuracy."
        ),
        Table("Class mix per half", mix, params=params),
        Table(
            "Held-out true facts: the model's own probability sigmoid(s), and after temperature",
            exhibit.drop(columns="triple_id"),
            params=params,
            note=f"Scores of positives span [{score_m['score_range.pos_min']:.3f}, "
            f"{score_m['score_range.pos_max']:.3f}], "
            f"negatives [{score_m['score_range.neg_min']:.3f}, "
            f"{score_m['score_range.neg_max']:.3f}]. "
            f"The lowest held-out probability, {score_m['heldout_min_p']:.4f}, belongs to a TRUE "
            "triple: "
            "confidently wrong.",
        ),
        Table(
            "BEFORE: reliability of p = sigmoid(s) on the evaluation half",
            reliability_display(before),
            params=params,
            note=f"ECE {score_m['ece_before']:.4f}, MCE {score_m['mce_before']:.4f}, Brier "
            f"{score_m['brier_before']:.4f}, "
            f"NLL {score_m['nll_before']:.4f}, acc(0.5) {score_m['acc_before']:.4f}, AUC "
            f"{score_m['auc']:.4f}. "
            "Every bin is listed; an empty bin has no confidence or accuracy (–).",
        ),
        Table(
            "Golden-section search for tau (NLL on the calibration half)",
            trace,
            params=params,
            floatfmt="{:.6g}",
            note=f"tau* = {tau:.4f} ({cal_m['tau_direction']}); NLL on the calibration half "
            f"{cal_m['nll_cal_at_tau1']:.4f} at tau = 1 -> {cal_m['nll_cal_at_tau']:.4f} at tau*. "
            "Valid because "
            "the NLL is convex in 1/tau, hence unimodal in tau on the bracket.",
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
            note="Temperature scaling is asserted at run time to leave the 0.5 decisions, "
            "accuracy, the stable "
            "argsort of all probabilities and the AUC bit-identical, and to strictly lower the "
            "eval-half ECE.",
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
            note="Stratified percentile bootstrap (class counts fixed per resample). The "
            "intervals are wide: "
            "63 points cannot certify small calibration differences.",
        ),
        Figure(
            "Reliability diagrams",
            reliability_figure(
                {"before: sigmoid(s)": before, **{m: after[after["method"] == m] for m in METHODS}},
                title="evaluation half; bars = 95% Wilson interval, n = bin count",
            ),
            name="calibration-reliability",
            caption="Points on the dashed diagonal are calibrated; bins holding one or two points "
            "carry wide bars.",
        ),
    ]
    return blocks
