"""Report blocks of the concept-bottleneck nets over seeds: the head-to-head, OOD, incidence.

Every number is read from a pipeline artifact through the loader; the prose only names
what the stages checked.  Distributions and claim rates come first; the single-seed
exhibit follows, labelled with the rule that picked its seed and its rank.
"""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report.sweep import sweep_blocks


def sweep_tables(dist: pd.DataFrame, claims: pd.DataFrame, *, what: str) -> list[Block]:
    """A distribution table and a claims table, with the findings spelled out in prose."""
    n = int(dist["n_seeds"].max())
    intro = (
        f"{what}: every number below depends on the seed, so it is computed on seeds 0..{n - 1} "
        "and reported as the mean, the standard deviation and a 95% percentile-bootstrap "
        "interval of the mean over seeds. Each of the chapter's directional claims is checked "
        "on every seed and reported as a rate with a 95% Wilson interval; a claim marked "
        "*enforced* fails the run below its threshold (`claims` in params.yaml), the others are "
        "reported as they come out."
    )
    return sweep_blocks(dist, claims, n_seeds=n, intro=intro, label=what)


def _alpha_text(alpha: pd.DataFrame, model: str) -> str:
    rows = alpha[alpha["model"] == model].sort_values("true_state")
    return " ".join(f"{r.true_state}->{r.predicted_state}" for r in rows.itertuples(index=False))


def exhibit_blocks(loader) -> list[Block]:
    """The head-to-head exhibit: the seed its rule picked, the panel, alpha, occurrence."""
    from .figures import curves_figure

    m = loader.params["models"]
    ex = loader.table("score", "exhibit").iloc[0]
    if pd.isna(ex["seed"]):
        return [
            Heading("Worked example: the head-to-head", level=3),
            Paragraph(
                f"Rule `{ex['rule']}`: {ex['statement']}. No scanned seed collapses "
                f"(0 of {int(ex['n_scan'])}), so there is no exhibit; the distribution above "
                "is the result."
            ),
        ]
    panel = loader.table("score", "exhibit_panel").sort_values("row")
    alpha = loader.table("score", "exhibit_alpha")
    occurrence = loader.table("score", "exhibit_occurrence")
    seed = int(ex["seed"])
    label = (
        f"seed {seed}: {ex['statement']} ({int(ex['n_collapse'])} of {int(ex['n_scan'])} scanned "
        f"seeds collapse); its label-only AccC {ex['value']:.4f} ranks {int(ex['rank'])} of "
        f"{int(ex['n_scan'])} in the scan (1 = lowest)"
    )
    rename = {"label_only": "label-only", "concept_sup": "concept-sup"}
    return [
        Heading("Worked example: the head-to-head, one initialisation, two optima", level=3),
        Paragraph(
            f"**Worked example.** One seed, picked by the rule declared in params.yaml "
            f"(`exhibit.head_to_head: {ex['rule']}`): {label}. Two nets from that seed's "
            f"initialisation: **label-only**, alpha = `{_alpha_text(alpha, 'label_only')}`; "
            f"**concept-sup**, concept labels on {m['concept_sup_points']} training points, "
            f"alpha = `{_alpha_text(alpha, 'concept_sup')}`. The distribution above says how "
            "typical it is."
        ),
        Table(
            "exhibit: concept panel on the test split",
            panel[["metric", "label_only", "concept_sup", "reading"]].rename(columns=rename),
            params={"seed": seed, "task": m["task"], "epochs": m["epochs"]},
            note="Asserted when the stage ran: the caught alpha is one of the optima the counter "
            "counts on the support, non-injective and not the identity (what the rule picks). "
            "The chapter's thresholds are claims over seeds (above), not checks of one seed.",
        ),
        Table(
            "exhibit: learned relabeling alpha (true state -> majority predicted state, test)",
            alpha.pivot(index="true_state", columns="model", values="predicted_state")
            .reset_index()
            .rename(columns={"true_state": "true state", **rename})[
                ["true state", "label-only", "concept-sup"]
            ],
            params={"seed": seed},
        ),
        Table(
            "exhibit: occurrence vector v, how often each joint state is predicted (test)",
            occurrence.pivot(index="state", columns="model", values="count")
            .reset_index()
            .rename(columns=rename)[["state", "label-only", "concept-sup"]],
            params={"seed": seed},
        ),
        Figure(
            "exhibit: training curves",
            curves_figure(loader.table("train", "exhibit_curves")),
            name="shortcuts-curves",
            caption="Both nets drive the label loss down; labels alone cannot tell them apart.",
        ),
    ]


def ood_incidence_blocks(loader) -> list[Block]:
    from .figures import incidence_figure

    p, m = loader.params, loader.params["models"]
    ood = loader.table("score", "ood")
    row = ood.iloc[0]
    incidence = loader.table("score", "incidence")
    return [
        Heading("Out-of-distribution: the cheap alarm, over seeds", level=3),
        Table(
            "label-only nets on the biased support, scored off it",
            ood.drop(columns=["task"]),
            params={"support_frac": m["ood_support_frac"], "n_seeds": p["n_seeds"]},
            note="Counted: every map G -> G enumerated with the counter's is_optimum; asserted "
            "equal to the counter's N_opt, and the survivors (biased optima label-correct on "
            "every state) asserted equal to the full-support N_opt. Measured: over seeds, how "
            "many label-perfect runs stay label-correct off the support (Wilson interval).",
        ),
        Paragraph(
            f"Of the {int(row['n_opt_biased'])} optima on support "
            f"{{{row['support'].replace(',', ', ')}}}, {int(row['n_survivors_counted'])} "
            f"({row['survivor_share_counted']:.0%}) stay label-correct off it; of the "
            f"{int(row['n_label_perfect'])} label-perfect trained runs, "
            f"{int(row['n_ood_correct'])} do. Mean AccY {row['mean_acc_y_ood']:.4f} off the "
            f"support against {row['mean_acc_y_test']:.4f} on it."
        ),
        Heading("Shortcut incidence", level=3),
        Table(
            "label-only runs landing on a label-perfect alpha other than the identity (95% Wilson)",
            incidence,
            params={
                "seeds per cell": p["n_seeds"],
                "tasks": ", ".join(p["incidence"]["tasks"]),
                "min AccY": m["min_acc_y"],
            },
            note="One run per seed and cell (the seed's initialisation on that task). alpha is "
            "read off the test clusters (observed states) and the ood clusters (the others); "
            "label-perfect = alpha is a counted optimum and test AccY >= min AccY; collapse = "
            "label-perfect and non-injective.",
        ),
        Figure(
            "shortcut rate vs support fraction",
            incidence_figure(incidence),
            name="shortcuts-incidence",
            caption="Error bars: 95% Wilson intervals over the seeds of each cell.",
        ),
    ]


def model_blocks(loader) -> list[Block]:
    """The concept nets: distribution and claims, the exhibit, OOD and incidence."""
    from .figures import seeds_figure

    summary = loader.table("score", "h2h_summaries")
    p = loader.params
    blocks: list[Block] = [
        Heading("The head-to-head over seeds: label-only vs concept-supervised", level=3),
        Paragraph(
            "Two AccY thresholds are at work in this section: "
            f"`claims.thresholds.acc_y_min` = {p['claims']['thresholds']['acc_y_min']:g} "
            "('labels cannot tell them apart': both nets reach it on test), and "
            f"`models.min_acc_y` = {p['models']['min_acc_y']:g} (a label-only run counts as "
            "label-perfect, hence as a shortcut or a collapse, only when its alpha is a counted "
            "optimum and its test AccY reaches it; the chapter's label-perfect is AccY >= 0.95)."
        ),
        *sweep_tables(
            loader.table("score", "h2h_distribution"),
            loader.table("score", "h2h_claims"),
            what="Head-to-head",
        ),
        Figure(
            "every seed's panel",
            seeds_figure(
                summary,
                ["acc_y", "acc_c", "f1_c", "cls_c", "ece_c"],
                labels=("label-only", "concept-sup"),
            ),
            name="shortcuts-h2h-seeds",
            caption="One dot per seed; both nets of a seed share their initialisation.",
        ),
    ]
    return [*blocks, *exhibit_blocks(loader), *ood_incidence_blocks(loader)]
