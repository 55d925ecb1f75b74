"""The nli section of the report: every number read from the pipeline's artifacts."""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report.figures import new_figure


def _per_depth_figure(per_depth: pd.DataFrame):
    fig, ax = new_figure()
    styles = {"translate-then-prove": "tab:blue", "greedy": "tab:red"}
    for system, group in per_depth.groupby("system", sort=True):
        g = group.sort_values("hops")
        color = styles.get(system, "tab:gray")
        ax.plot(g["hops"], g["label_acc"], marker="o", color=color, label=f"{system}: label acc")
        ax.plot(
            g["hops"],
            g["proof_acc"],
            marker="s",
            linestyle="--",
            color=color,
            label=f"{system}: proof acc",
        )
    ax.set_xlabel("hops (rule applications of the gold proof)")
    ax.set_ylabel("accuracy")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(sorted(per_depth["hops"].unique()))
    ax.legend(fontsize=7, loc="lower left")
    return fig


def section(loader) -> list[Block]:
    params = loader.params
    pq, fl = params["prontoqa"], params["folio"]
    text = loader.table("score", "worked_example_text")
    worked = loader.table("score", "worked_example")
    meta = loader.metadata("score", "worked_example")
    per_depth = loader.table("score", "per_depth")
    trap = loader.table("score", "metric_trap")
    folio = loader.table("score", "folio_per_label")
    mix = loader.table("count", "label_mix")
    mix = mix[mix["dataset"] == "folio"].drop(columns=["dataset"]).reset_index(drop=True)
    m = loader.metrics("score")

    gen = {
        "seed": pq["seed"],
        "hops": pq["hops"],
        "n_per_hops": pq["n_per_hops"],
        "corrupt_prob": pq["corrupt_prob"],
        "greedy_cap": pq["greedy_cap"],
    }
    greedy = trap[trap["system"] == "greedy"].iloc[0]
    pipe = trap[trap["system"] == "translate-then-prove"].iloc[0]
    depth_wide = per_depth.pivot(
        index="hops", columns="system", values=["label_acc", "proof_acc", "abstention"]
    )
    depth_wide.columns = [f"{s} {k}" for k, s in depth_wide.columns]
    depth_wide = depth_wide.reset_index()

    blocks: list[Block] = [
        Heading("PrOntoQA-lite: the step checker and the metric trap"),
        Paragraph(
            "Each example is a fictional subclass chain with one dead-end distractor rule per "
            "hop; one in "
            f"{1 / pq['corrupt_prob']:.0f} examples (in expectation) has a rule paraphrased out "
            "of the strict grammar "
            '("All Xes are Ys."). The step checker parses every line of a trace and asks four '
            "questions: "
            "**parsed**, **valid** (each fact follows from established facts by one context rule), "
            "**linear** (it uses the previous line's conclusion), **connects** (the last line "
            "decides the query); "
            "a trace is a proof when all four hold (`strict`)."
        ),
        Table(
            f"Worked example {meta.get('example_id', '')}: context and question", text, params=gen
        ),
        Table(
            "Worked example: both systems' traces and the checker's verdicts", worked, params=gen
        ),
        Table(
            "Per-depth label and strict-proof accuracy (abstentions count wrong)",
            depth_wide,
            params=gen,
            floatfmt="{:.2f}",
        ),
        Figure(
            "Per-depth accuracy",
            _per_depth_figure(per_depth),
            name="nli-per_depth",
            caption="Solid: label accuracy; dashed: strict proof accuracy. The greedy system's "
            "proofs fail from 3 hops on, and its labels collapse at 5 hops where the "
            "firing budget runs out.",
        ),
        Table(
            "Metric-trap summary",
            trap,
            params=gen,
            floatfmt="{:.3f}",
            note=(
                f"greedy wins the label column ({greedy['label_acc']:.3f} vs "
                f"{pipe['label_acc']:.3f}) and loses the "
                f"proof column ({greedy['proof_acc']:.3f} vs {pipe['proof_acc']:.3f}); its "
                "right-for-wrong-reason rate "
                f"P(label right and proof not strict) is {greedy['rfwr']:.3f} = label acc - proof "
                "acc. Every answered "
                "pipeline trace passes the checker (rate "
                f"{m['score.prontoqa.pipeline_trace_pass_rate']:.3f}); it abstains "
                "exactly on the corrupted examples."
            ),
        ),
        Heading("FOLIO-lite: three-way labels and the majority trap"),
        Table(
            "FOLIO-lite label mix (the best input-blind guess scores the majority frequency)",
            mix,
            params={"seed": fl["seed"], "n": fl["n"]},
        ),
        Table(
            "FOLIO-lite accuracy per gold label",
            folio,
            params={"seed": fl["seed"], "n": fl["n"], "label_mix": fl["label_mix"]},
            floatfmt="{:.3f}",
            note=(
                f"majority = {m['score.folio.majority_freq']:.3f} against the 1/3 uniform guess; "
                "never "
                "saying Unknown caps a system "
                f"at 1 - P(Unknown) = {m['score.folio.never_unknown_cap']:.3f}, where greedy CWA "
                "sits "
                f"({m['score.folio.greedy_cwa.acc']:.3f})."
            ),
        ),
    ]
    return blocks
