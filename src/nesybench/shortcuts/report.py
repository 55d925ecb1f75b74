"""The shortcuts section of the nesybench report: every number read from the pipeline's artifacts.

``section(loader)`` concatenates the blocks of the generator and the count (here), of
the concept nets over seeds (:mod:`.report_models`) and of the real digits and
concept-head calibration (:mod:`.digits.report`).
"""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report.figures import new_figure
from .count_tables import count_table_wide

SPLITS = ("train", "test", "ood")


def n_opt_figure(table: pd.DataFrame):
    """log2 N_opt against the support fraction, one line per task (solid: joint, dashed:
    disentangled)."""
    fig, ax = new_figure(5.0, 3.4)
    for i, task in enumerate(sorted(table["task"].unique())):
        for extractor, style in (("joint", "-o"), ("disentangled", "--s")):
            rows = table[(table["task"] == task) & (table["extractor"] == extractor)].sort_values(
                "support_frac"
            )
            if len(rows):
                ax.plot(
                    rows["support_frac"],
                    rows["log2_n_opt"],
                    style,
                    color=f"C{i}",
                    label=f"{task} ({extractor})",
                    markersize=4,
                )
    ax.set_xlabel("support fraction")
    ax.set_ylabel("log2 N_opt")
    ax.invert_xaxis()  # read left to right as the support shrinks
    ax.legend(fontsize=7)
    return fig


def generate_blocks(loader) -> list[Block]:
    p = loader.params
    demo = p["demo"]
    cert = loader.table("generate", "certificate")
    name, frac, bias = demo["task"], p["support_frac"], demo.get("bias_frac", 0.5)
    rows = cert[(cert["task"] == name) & (cert["support_frac"] == frac)].set_index("split")
    shown = pd.DataFrame(
        [
            {
                "split": split,
                "points": int(rows.loc[split, "points"]),
                "input dims": int(rows.loc[split, "input_dims"]),
                "states seen": int(rows.loc[split, "n_states"]),
                "states": rows.loc[split, "states"] or "-",
                "y = K(g)": "holds (asserted)" if rows.loc[split, "points"] else "empty split",
            }
            for split in SPLITS
        ]
    )
    pooled = rows.loc["all"]
    biased = cert[(cert["task"] == name) & (cert["support_frac"] == bias)].set_index("split")
    params = {
        "task": name,
        "knowledge": rows.loc["train", "knowledge"],
        "support_frac": frac,
        "seed": p["seed"],
        "noise": p["noise"],
        "n_distractors": p["n_distractors"],
        "per state": f"{demo['n_train_per_state']} train / {demo['n_test_per_state']} test",
    }
    return [
        Heading("Generator certificate", level=3),
        Table(f"demo task {name}: every split ships its gold concepts", shown, params=params),
        Paragraph(
            "Concept coordinates carry their bit: corr(x_j, g_j) = "
            + ", ".join(f"{c:.3f}" for c in pooled["corr_concept"])
            + " (asserted >= 0.9). Distractors carry no label: |corr(x_d, y)| = "
            + (", ".join(f"{c:.3f}" for c in pooled["abs_corr_distractor"]) or "-")
            + " (asserted <= 0.3). Both over the pooled points of all splits."
        ),
        Paragraph(
            f"Support bias {bias:g}: train sees only "
            f"{{{biased.loc['train', 'states'].replace(',', ', ')}}}; "
            f"the ood split covers exactly {{{biased.loc['ood', 'states'].replace(',', ', ')}}}."
        ),
    ]


def count_blocks(loader) -> list[Block]:
    p = loader.params
    table = loader.table("count", "n_opt")
    cert = loader.table("generate", "certificate")
    wide = count_table_wide(table, task_order=sorted(p["tasks"]))
    formulas = cert.drop_duplicates("task").sort_values("task")
    notes = "; ".join(
        f"{row.task}: {row.knowledge} (k={row.k})" for row in formulas.itertuples(index=False)
    )
    return [
        Heading("Counting the optima before training", level=3),
        Table(
            "N_opt vs support fraction (support read off the generated train split)",
            wide,
            params={
                "method": p["count"]["method"],
                "extractors": ", ".join(p["count"]["extractors"]),
                "seed": p["seed"],
            },
            note="N_opt = #{alpha : K(alpha(g)) = K(g) on every observed g}; shortcuts = N_opt - "
            "1. N_opt (joint): alpha any map of the joint states to themselves; N_opt "
            "(disentangled): alpha(g)_j = f_j(g_pi(j)), a permutation pi of the concepts and one "
            "map f_j per concept (identity, negation or a constant for a bit), the family of "
            "rsbench's counter; N_opt counts the pairs (pi, f). "
            "Every exact count is compared with the oracles listed before it is written. "
            "Knowledge: " + notes,
            floatfmt="{:.2f}",
        ),
        Figure(
            "log2 N_opt vs support fraction",
            n_opt_figure(table),
            name="shortcuts-n_opt",
            caption="Shrinking the support drops constraints: the joint count grows strictly "
            "(asserted).",
        ),
    ]


def _short(value: str, log2: float) -> str:
    """A count as digits when short, else as a power of two."""
    value = str(value)
    return value if len(value) <= 15 else f"2^{log2:.1f}"


def categorical_blocks(loader) -> list[Block]:
    """MNIST-Addition: N_opt of the three extractor families per support, and the plans."""
    p = loader.params.get("categorical")
    if not p:
        return []
    counts = loader.table("count", "categorical_counts")
    plans = loader.table("count", "categorical_plans")
    blocks: list[Block] = [
        Heading("MNIST-Addition: counting the optima of categorical concepts", level=3),
        Paragraph(
            "Digits 0-9 with y = their sum. Three extractor families: `joint` (any map of the "
            "digit pairs), `disentangled` (a permutation of the positions and one digit map per "
            "position; N_opt counts the pairs, `n_distinct` the distinct maps they induce) and "
            "`shared` (one digit map for both positions: what a single digit classifier can "
            "land on). Supports: every pair, the pairs of equal parity, and rsbench's "
            "MNAdd-EvenOdd training pairs. Every count is checked against the closed forms and "
            "independent engines listed, and the supervision plan says which observed pairs to "
            "label (greedily) and how many optima remain."
        ),
    ]
    for task, rows in counts.groupby("task", sort=True):
        shown = rows.assign(
            n_opt=[_short(v, lg) for v, lg in zip(rows["n_opt"], rows["log2_n_opt"])],
            n_distinct=[
                _short(v, lg) if v is not None else "-"
                for v, lg in zip(rows["n_distinct"], rows["log2_n_opt"])
            ],
            n_opt_after_plan=[
                str(v) if len(str(v)) <= 15 else "large" for v in rows["n_opt_after_plan"]
            ],
        )[
            [
                "support",
                "n_support",
                "extractor",
                "n_opt",
                "log2_n_opt",
                "n_distinct",
                "certified_by",
                "plan",
                "n_opt_after_plan",
            ]
        ]
        blocks.append(
            Table(
                f"{task}: N_opt per support and extractor family (domains "
                f"{rows['domains'].iloc[0]})",
                shown,
                params={"extractors": ", ".join(p["extractors"]), "budget": p["budget"]},
            )
        )
    shared = plans[plans["extractor"] == "shared"]
    if len(shared):
        blocks.append(
            Table(
                "Supervision plans of the shared family: the pair labelled at each step, N_opt "
                "after it, and the best possible for that many labels",
                shared[["task", "support", "step", "state", "n_opt", "optimum_n_opt", "gap"]],
                params={"budget": p["budget"]},
            )
        )
    return blocks


def _cell(row) -> str:
    """A count cell: the integer when short, else 2^log2 (the exact value is listed below)."""
    if row.status != "exact":
        return row.status
    text = row.n_opt_exact
    return text if len(text) <= 15 else f"2^{row.log2_n_opt:,.1f}"


def rsbench_blocks(loader) -> list[Block]:
    """rsbench's named tasks: the three families' counts at each task's support, the greedy
    plan down to N_opt = 1, the exact values, refusals and published figures."""
    p = loader.params.get("rsbench")
    if not p:
        return []
    counts = loader.table("count", "rsbench_counts")
    plans = loader.table("count", "rsbench_plans")
    notes = loader.table("count", "rsbench_notes")
    plan_family = p["plan"]["extractor"]
    rows = []
    for name in p["tasks"]:
        task = f"rsbench/{name}"
        group = counts[counts["task"] == task]
        by = {r.extractor: r for r in group.itertuples(index=False)}
        first = group.iloc[0]
        steps = plans[(plans["task"] == task) & (plans["extractor"] == plan_family)]
        steps = steps.sort_values("step")
        row = {
            "task": first["title"],
            "observed / states": f"{int(first['n_observed']):,} / {int(first['n_states']):,}",
        }
        for family in p["extractors"]:
            row[family] = _cell(by[family]) if family in by else "-"
        if "joint" in by and by["joint"].status == "exact":
            labels = by["joint"].labels_to_one
            row["joint: labels to 1"] = "never" if pd.isna(labels) else f"{int(labels):,}"
        row[f"plan ({plan_family}): N_opt after each label"] = (
            " > ".join(steps["n_opt"]) if len(steps) else "not run"
        )
        row["labels to 1"] = (
            str(len(steps) - 1) if len(steps) and steps["n_opt"].iloc[-1] == "1" else "-"
        )
        rows.append(row)
    exact = counts[(counts["status"] == "exact") & (counts["n_opt_exact"].str.len() > 15)]
    refused = counts[counts["status"] != "exact"]
    blocks: list[Block] = [
        Heading("rsbench's tasks: reasoning shortcuts counted before training", level=3),
        Paragraph(
            "Each task's knowledge and training support are read from rsbench's code "
            "(github:unitn-sml/rsbench-code; `nesybench tasks` names the file and function) "
            "and counted at that support, or at every state the knowledge labels where rsbench "
            "leaves the support to data files. Tasks past a label table are counted through "
            "their structure: outputs that share no concept multiply, copies of one pattern "
            "reduce to their pattern. A count that no exact route reaches is refused, never "
            "guessed. The plan labels, greedily, the observed state that leaves the fewest "
            "optima, until only the identity is left; the joint family needs every observed "
            "state of a label class with another state labelled, and never reaches 1 while a "
            "state is unobserved."
        ),
        Table(
            "N_opt of the three extractor families at each task's support, and the greedy "
            "supervision plan",
            pd.DataFrame(rows),
            params={
                "tasks": ", ".join(p["tasks"]),
                "max_subproblems": p["max_subproblems"],
                "plan": plan_family,
            },
            note="Counts are exact: integers up to 15 digits, else 2^log2 with the exact value "
            "below. The seconds each count took are in the stage log.",
        ),
    ]
    if len(exact):
        blocks.append(
            Table(
                "the long counts written out exactly (products of powers)",
                exact[["title", "extractor", "n_opt_exact", "log2_n_opt"]].rename(
                    columns={"title": "task", "n_opt_exact": "N_opt"}
                ),
                floatfmt="{:,.1f}",
            )
        )
    if len(refused):
        blocks.append(
            Paragraph(
                "Not counted: "
                + " ".join(
                    f"{r.title} {r.extractor} ({r.status}): {r.reason}"
                    for r in refused.itertuples(index=False)
                )
            )
        )
    for note in notes.itertuples(index=False):
        blocks.append(Paragraph(note.note))
    return blocks


def section(loader) -> list[Block]:
    """The shortcuts section: the generator certificate and the counts, then the concept nets
    over seeds, then real digits and concept-head calibration."""
    from .digits.report import digit_blocks
    from .report_models import model_blocks
    from .report_sensitivity import sensitivity_section

    return [
        *generate_blocks(loader),
        *count_blocks(loader),
        *categorical_blocks(loader),
        *rsbench_blocks(loader),
        *model_blocks(loader),
        *sensitivity_section(loader),
        *digit_blocks(loader),
    ]
