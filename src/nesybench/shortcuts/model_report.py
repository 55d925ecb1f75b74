"""Report blocks of the shortcuts concept models (train / score / calibrate stages).

Every number is read from a pipeline artifact through the loader; the prose
only names what the asserted claims already checked when the stages ran.
"""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report.figures import new_figure

MODELS = ("label_only", "concept_sup")


def _alpha_text(alpha: pd.DataFrame, model: str) -> str:
    rows = alpha[alpha["model"] == model].sort_values("true_state")
    return " ".join(f"{r.true_state}->{r.predicted_state}" for r in rows.itertuples(index=False))


def incidence_figure(incidence: pd.DataFrame):
    """Shortcut rate against the support fraction, one line per task, 95% Wilson error bars."""
    fig, ax = new_figure(5.0, 3.4)
    for i, task in enumerate(sorted(incidence["task"].unique())):
        rows = incidence[incidence["task"] == task].sort_values("support_frac")
        err = [rows["rate"] - rows["rate_lo"], rows["rate_hi"] - rows["rate"]]
        ax.errorbar(
            rows["support_frac"],
            rows["rate"],
            yerr=err,
            fmt="-o",
            color=f"C{i}",
            capsize=3,
            markersize=4,
            label=f"{task} (k={int(rows['k'].iloc[0])})",
        )
    ax.set_xlabel("support fraction")
    ax.set_ylabel("shortcut rate (label-only runs)")
    ax.set_ylim(-0.02, 1.02)
    ax.invert_xaxis()  # read left to right as the support shrinks
    ax.legend(fontsize=7)
    return fig


def curves_figure(curves: pd.DataFrame):
    """Label NLL per epoch of the two head-to-head models (log scale)."""
    fig, ax = new_figure(5.0, 3.0)
    for i, model in enumerate(MODELS):
        rows = curves[curves["model"] == model].sort_values("epoch")
        ax.plot(rows["epoch"], rows["label_nll"].clip(lower=1e-12), color=f"C{i}", label=model)
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("label NLL (train)")
    ax.legend(fontsize=7)
    return fig


def model_blocks(loader) -> list[Block]:
    """Head-to-head, alpha, occurrence, OOD, incidence and concept-head calibration."""
    p = loader.params
    m = p["models"]
    tasks = loader.table("train", "tasks").set_index("use")
    panel = loader.table("score", "panel").sort_values("row")
    alpha = loader.table("score", "alpha")
    occurrence = loader.table("score", "occurrence")
    ood = loader.table("score", "ood")
    incidence = loader.table("score", "incidence")
    curves = loader.table("train", "curves")
    h2h = tasks.loc["head_to_head"]
    model_params = {
        "task": m["task"],
        "support_frac": m["support_frac"],
        "seed": p["seed"],
        "per state": f"{m['n_train_per_state']} train / {m['n_test_per_state']} test",
        "hidden": m["hidden"],
        "epochs": m["epochs"],
        "lr": m["lr"],
        "init scales": f"{m['init_scale_hidden']} / {m['init_scale_heads']}",
        "sweep seeds": m["sweep_seeds"],
        "picked seed": int(h2h["picked_seed"]),
    }
    blocks: list[Block] = [
        Heading("The head-to-head: one initialisation, two optima", level=3),
        Paragraph(
            f"Two models from the same initialisation (sweep seed {int(h2h['picked_seed'])} of "
            f"{m['sweep_seeds']}, "
            f"the first label-only run whose relabeling is label-perfect and non-injective). "
            f"**label-only**: alpha = `{_alpha_text(alpha, 'label_only')}`. "
            f"**concept-sup**: concept labels on {int(h2h['n_concept_sup'])} of "
            f"{int(h2h['n_train'])} training points, "
            f"alpha = `{_alpha_text(alpha, 'concept_sup')}`."
        ),
        Table(
            "concept panel on the test split",
            panel[["metric", "label_only", "concept_sup", "reading"]].rename(
                columns={"label_only": "label-only", "concept_sup": "concept-sup"}
            ),
            params=model_params,
            note="Asserted when the stage ran: both AccY >= 0.95; label-only AccC and F1(C) <= "
            "0.8, twin >= 0.95; "
            "label-only Cls(C) >= 0.2, twin <= 0.05; label-only ECE(C) >= 0.15, twin <= 0.05; Cls "
            "gap >= 0.15; "
            "the caught alpha is a counted optimum, non-injective and not the identity; the "
            "twin's alpha is the identity.",
        ),
    ]
    alpha_wide = alpha.pivot(
        index="true_state", columns="model", values="predicted_state"
    ).reset_index()
    occ_wide = occurrence.pivot(index="state", columns="model", values="count").reset_index()
    blocks += [
        Table(
            "learned relabeling alpha (true state -> majority predicted state on its test points)",
            alpha_wide.rename(
                columns={
                    "true_state": "true state",
                    "label_only": "label-only",
                    "concept_sup": "concept-sup",
                }
            )[["true state", "label-only", "concept-sup"]],
        ),
        Table(
            "occurrence vector v: how often each joint state is predicted on the test split",
            occ_wide.rename(columns={"label_only": "label-only", "concept_sup": "concept-sup"})[
                ["state", "label-only", "concept-sup"]
            ],
        ),
        Figure(
            "training curves of the head-to-head",
            curves_figure(curves),
            name="shortcuts-curves",
            caption="Both models drive the label loss down; labels alone cannot tell them apart.",
        ),
        Heading("Out-of-distribution: the cheap alarm", level=3),
    ]
    row = ood.iloc[0]
    blocks += [
        Table(
            "label-only models on a biased support, scored off it",
            ood.rename(
                columns={
                    "n_opt_biased": "N_opt (biased)",
                    "n_survivors_counted": "survivors (counted)",
                    "survivor_share_counted": "survivor share",
                    "n_ood_correct": "runs OOD-correct",
                    "mean_acc_y_test": "AccY test (mean)",
                    "mean_acc_y_ood": "AccY ood (mean)",
                }
            ),
            params={
                "task": m["task"],
                "support_frac": m["ood_support_frac"],
                "runs": m["ood_seeds"],
            },
            note="Survivors are counted by enumerating every map G -> G with the counter's "
            "is_optimum: "
            "the biased optima that stay label-correct on the unobserved states; asserted equal "
            "to the "
            "full-support N_opt. Asserted: mean AccY on the ood split is below the "
            "in-distribution mean.",
        ),
        Paragraph(
            f"Of the {int(row['n_opt_biased'])} optima on support "
            f"{{{row['support'].replace(',', ', ')}}}, "
            f"{int(row['n_survivors_counted'])} stay label-correct off the support; the trained "
            "runs reach mean AccY "
            f"{row['mean_acc_y_ood']:.4f} on the ood split against {row['mean_acc_y_test']:.4f} "
            "in distribution. "
            "The survivors include every full-support shortcut: no label metric on any split "
            "moves for those."
        ),
        Heading("Shortcut incidence", level=3),
        Table(
            "label-only runs landing on a label-perfect alpha other than the identity (95% Wilson)",
            incidence,
            params={
                "seeds per cell": p["incidence"]["seeds"],
                "tasks": ", ".join(p["incidence"]["tasks"]),
                "min AccY": m["min_acc_y"],
            },
            note="alpha is read off the test clusters (observed states) and the ood clusters "
            "(unobserved ones); "
            "collapse = label-perfect and non-injective.",
        ),
        Figure(
            "shortcut rate vs support fraction",
            incidence_figure(incidence),
            name="shortcuts-incidence",
            caption="Error bars: 95% Wilson intervals over the seeds of each cell.",
        ),
    ]
    if loader.exists("calibrate", "concept_calibration"):
        cal = loader.table("calibrate", "concept_calibration")
        blocks += [
            Heading("Concept-head calibration", level=3),
            Table(
                "temperature scaling of the concept heads (one tau per model, fitted on train, "
                "scored on test)",
                cal[
                    [
                        "model",
                        "tau",
                        "direction",
                        "at_bracket_edge",
                        "ece_c_before",
                        "ece_c_after",
                        "acc_c_before",
                        "acc_c_after",
                    ]
                ],
                note="Asserted: the label-only model's ECE(C) goes down and AccC is bit-identical "
                "for both models "
                "(a positive temperature keeps every argmax): calibration cannot repair wrong "
                "meaning. "
                "A tau at the bracket edge means the NLL optimum lies outside the search bracket.",
            ),
        ]
    return blocks
