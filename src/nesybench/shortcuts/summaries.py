"""The shortcuts instrument's tables over seeds, built from the blocks' rows (no I/O, no printing).

Every function takes the per-model rows the block jobs wrote (one row per model and seed)
and returns a table the aggregates write: one summary row per seed for the head-to-heads,
distributions per sweep cell, incidence with Wilson intervals, and the exhibits picked by
their declared rules.  The digit pipeline's tables are in :mod:`.digits.summaries`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..errors import InputError
from ..metrics.stats import wilson_interval
from ..sweep import Metric
from .claims import calibration_seed_claims, h2h_seed_claims
from .incidence import incidence_counts

__all__ = [
    "H2H_METRICS",
    "CALIBRATION_METRICS",
    "by_seed",
    "panel_word",
    "metric_token",
    "seeds_of",
    "h2h_summary",
    "incidence_table",
    "ood_table",
    "scan_exhibit",
    "calibration_summary",
    "concept_calibration_summary",
]

PANEL = ("acc_y", "acc_c", "f1_c", "cls_c", "ece_c")
# A panel column's word in the seed summaries and metric keys (nesybench.metric_keys: one
# spelling, ``accuracy``; every concept metric named ``concept_*``); the panels themselves keep
# rsbench's column names (AccY, AccC, F1(C), Cls(C), ECE(C)).
PANEL_WORD = {
    "acc_y": "task_accuracy",
    "acc_y_ood": "task_accuracy_ood",
    "acc_c": "concept_accuracy",
    "f1_c": "concept_f1",
    "cls_c": "concept_collapse",
    "ece_c": "concept_ece",
}


def panel_word(column: str) -> str:
    """A panel column's summary word: ``acc_c`` -> ``concept_accuracy``."""
    return PANEL_WORD[column]


H2H_METRICS = (
    *(Metric(f"label_only_{panel_word(k)}", f"label-only {k} (test)") for k in PANEL),
    *(Metric(f"sup_{panel_word(k)}", f"concept-supervised twin {k} (test)") for k in PANEL),
    Metric("ood_task_accuracy_test", "label-only AccY on the biased support (test)"),
    Metric("ood_task_accuracy_ood", "label-only AccY off the biased support (ood)"),
)

CALIBRATION_METRICS = (
    Metric("label_only_tau", "label-only net: fitted temperature"),
    Metric(
        "label_only_tau_at_edge", "label-only net: tau on the search-bracket edge (share of seeds)"
    ),
    Metric("label_only_ece_before", "label-only net: ECE(C) before (test)"),
    Metric("label_only_ece_after", "label-only net: ECE(C) after temperature (test)"),
    Metric("label_only_ece_change", "label-only net: ECE(C) change"),
    Metric("sup_tau", "twin: fitted temperature"),
    Metric("sup_tau_at_edge", "twin: tau on the search-bracket edge (share of seeds)"),
    Metric("sup_ece_change", "twin: ECE(C) change"),
    Metric("digits_label_only_ece_before", "label-only digit heads: top-label ECE before (test)"),
    Metric("digits_label_only_ece_after", "label-only digit heads: top-label ECE after (test)"),
    Metric("digits_label_only_ece_change", "label-only digit heads: top-label ECE change"),
    Metric("digits_sup_ece_change", "supervised digit heads: top-label ECE change"),
)


def metric_token(text: str) -> str:
    """A metrics-key-safe spelling (no dots): ``concept_sup=0.01`` -> ``concept_sup_0p01``.

    >>> metric_token("concept_sup=0.1+entropy=1"), metric_token(0.75)
    ('concept_sup_0p1_and_entropy_1', 'support_0p75')
    """
    if isinstance(text, float):
        return f"support_{text:g}".replace(".", "p")
    return str(text).replace(".", "p").replace("=", "_").replace("+", "_and_")


def seeds_of(frames: Sequence[pd.DataFrame], seeds: Sequence[int]) -> pd.DataFrame:
    """The rows of the sweep's seeds from the blocks' tables (a block may hold more seeds);
    every seed must be present."""
    table = pd.concat(list(frames), ignore_index=True)
    table = table[table["seed"].isin(list(seeds))].reset_index(drop=True)
    missing = sorted(set(seeds) - set(table["seed"].astype(int)))
    if missing:
        raise InputError(f"the blocks hold no rows for seed {missing[0]}; rerun the block jobs")
    return table


# ---- binary concept nets ----------------------------------------------------------------


def by_seed(table: pd.DataFrame, what: str) -> pd.DataFrame:
    """One model's rows indexed by seed; a seed twice is refused, naming ``what``."""
    dup = table.duplicated("seed")
    if dup.any():
        raise InputError(f"{what}: seed {int(table.loc[dup, 'seed'].iloc[0])} appears twice")
    return table.set_index("seed")


def h2h_summary(
    panels: pd.DataFrame, runs: pd.DataFrame, *, models: Mapping, thresholds: Mapping
) -> pd.DataFrame:
    """One row per seed: both head-to-head nets' panels, the label-only run's outcome, the OOD
    run's accuracies, and the directional claims' verdicts (:func:`.claims.h2h_seed_claims`)."""
    task, frac = models["task"], float(models["support_frac"])
    lo = by_seed(panels[panels["model"] == "label_only"], "label-only panels")
    sup = by_seed(panels[panels["model"] == "concept_sup"], "twin panels")
    at = runs[(runs["task"] == task) & (runs["support_frac"] == frac)]
    lo_run = by_seed(at[at["model"] == "label_only"], "label-only runs")
    sup_run = by_seed(at[at["model"] == "concept_sup"], "twin runs")
    ood = runs[
        (runs["task"] == task)
        & (runs["support_frac"] == float(models["ood_support_frac"]))
        & (runs["model"] == "label_only")
    ]
    ood = by_seed(ood, "OOD runs")
    rows = []
    for seed in sorted(lo.index):
        row = {"seed": int(seed)}
        row.update({f"label_only_{panel_word(k)}": float(lo.loc[seed, k]) for k in PANEL})
        row.update({f"sup_{panel_word(k)}": float(sup.loc[seed, k]) for k in PANEL})
        alpha = dict(pair.split("->") for pair in sup_run.loc[seed, "alpha"].split())
        row.update(
            label_only_shortcut=bool(lo_run.loc[seed, "shortcut"]),
            label_only_collapse=bool(lo_run.loc[seed, "collapse"]),
            sup_identity=all(k == v for k, v in alpha.items()),
            label_only_alpha=str(lo.loc[seed, "alpha"]),
            ood_task_accuracy_test=float(ood.loc[seed, "acc_y_test"]),
            ood_task_accuracy_ood=float(ood.loc[seed, "acc_y_ood"]),
            ood_label_perfect=bool(ood.loc[seed, "label_perfect"]),
            ood_correct=bool(ood.loc[seed, "acc_y_ood"] >= float(models["min_acc_y"])),
        )
        row.update(h2h_seed_claims(row, thresholds))
        rows.append(row)
    return pd.DataFrame(rows)


def incidence_table(
    runs: pd.DataFrame, cells: Sequence[tuple], log2_n_opt: Mapping
) -> pd.DataFrame:
    """Per incidence cell (task, support fraction): the label-only runs' counts over seeds, the
    shortcut rate with its 95% Wilson interval, and ``log2 N_opt`` of the cell's support."""
    rows = []
    for task, frac, k, support in cells:
        sel = runs[
            (runs["task"] == task)
            & (runs["support_frac"] == frac)
            & (runs["model"] == "label_only")
        ]
        counts = incidence_counts(sel["label_perfect"], sel["shortcut"], sel["collapse"])
        rows.append(
            {
                "task": task,
                "k": int(k),
                "support_frac": float(frac),
                "n_observed": len(support),
                "log2_n_opt": float(log2_n_opt[task, frac]),
                **counts,
            }
        )
    return pd.DataFrame(rows)


def ood_table(summary: pd.DataFrame, counted: Mapping, *, task: str, support: str) -> pd.DataFrame:
    """The OOD runs over seeds beside the counted survivors of the biased support.

    ``ood_correct`` counts the label-perfect runs whose AccY off the support is also at least
    ``min_acc_y``; its share is compared with the counted survivor share.
    """
    n = len(summary)
    perfect = summary["ood_label_perfect"].astype(bool)
    correct = summary["ood_correct"].astype(bool) & perfect
    lo, hi = wilson_interval(int(correct.sum()), int(perfect.sum()))
    return pd.DataFrame(
        [
            {
                "task": task,
                "support": support,
                "n_opt_biased": int(counted["n_opt_biased"]),
                "n_survivors_counted": int(counted["n_survivors"]),
                "survivor_share_counted": counted["n_survivors"] / counted["n_opt_biased"],
                "counted_by": counted["counted_by"],
                "n_seeds": n,
                "n_label_perfect": int(perfect.sum()),
                "n_ood_correct": int(correct.sum()),
                "ood_correct_share": float(correct.sum() / perfect.sum())
                if perfect.any()
                else float("nan"),
                "ood_correct_lo": lo,
                "ood_correct_hi": hi,
                "mean_acc_y_test": float(summary["ood_task_accuracy_test"].mean()),
                "mean_acc_y_ood": float(summary["ood_task_accuracy_ood"].mean()),
            }
        ]
    )


def scan_exhibit(scan: pd.DataFrame, *, n_scan: int) -> dict:
    """The head-to-head exhibit of rule ``first_collapse``: the first scanned seed whose
    label-only net collapses, with its rank in the scan by label-only test AccC (1 = lowest;
    ties by seed) and the number of collapsing seeds in the scan.  ``seed`` is None when no
    scanned seed collapses."""
    picked = scan[scan["collapse"]].sort_values("seed")
    base = {
        "rule": "first_collapse",
        "statement": f"the first of seeds 0..{n_scan - 1} whose label-only net collapses "
        "(label-perfect, alpha non-injective)",
        "n_scan": int(n_scan),
        "n_collapse": int(scan["collapse"].sum()),
        "metric": "acc_c_test",
    }
    if picked.empty:
        return {**base, "seed": None, "rank": None, "value": float("nan")}
    seed = int(picked["seed"].iloc[0])
    ordered = scan.sort_values(["acc_c_test", "seed"], kind="mergesort")["seed"].tolist()
    value = float(picked["acc_c_test"].iloc[0])
    return {**base, "seed": seed, "rank": ordered.index(seed) + 1, "value": value}


# ---- digits -------------------------------------------------------------------------------


def concept_calibration_summary(concept: pd.DataFrame) -> pd.DataFrame:
    """One row per seed: the temperature fitted to each head-to-head net's concept heads, their
    ECE(C) before and after, and the concept claim's verdict (the label-only heads' ECE(C)
    goes down)."""
    lo = by_seed(concept[concept["model"] == "label_only"], "label-only calibration")
    sup = by_seed(concept[concept["model"] == "concept_sup"], "twin calibration")
    rows = []
    for seed in sorted(lo.index):
        row = {
            "seed": int(seed),
            "label_only_tau": float(lo.loc[seed, "tau"]),
            "label_only_tau_at_edge": bool(lo.loc[seed, "at_bracket_edge"]),
            "label_only_ece_before": float(lo.loc[seed, "ece_top_before"]),
            "label_only_ece_after": float(lo.loc[seed, "ece_top_after"]),
            "sup_tau": float(sup.loc[seed, "tau"]),
            "sup_tau_at_edge": bool(sup.loc[seed, "at_bracket_edge"]),
            "sup_ece_change": float(
                sup.loc[seed, "ece_top_after"] - sup.loc[seed, "ece_top_before"]
            ),
        }
        row["label_only_ece_change"] = row["label_only_ece_after"] - row["label_only_ece_before"]
        row["concept_temperature_lowers_ece"] = bool(row["label_only_ece_change"] < 0)
        rows.append(row)
    return pd.DataFrame(rows)


def calibration_summary(
    concept: pd.DataFrame, digits: pd.DataFrame, *, support: str, supervised: str, method: str
) -> pd.DataFrame:
    """One row per seed: the concept heads' calibration (:func:`concept_calibration_summary`),
    the digit heads' top-label ECE before and after ``method`` (label-only and ``supervised``
    on ``support``), and the claims' verdicts."""
    at = digits[(digits["support"] == support) & (digits["method"] == method)]
    dlo = by_seed(at[at["mitigation"] == "label_only"], "label-only digit calibration")
    dsup = by_seed(at[at["mitigation"] == supervised], f"{supervised} digit calibration")
    rows = []
    for row in concept_calibration_summary(concept).to_dict("records"):
        seed = row["seed"]
        row.update(
            digits_label_only_ece_before=float(dlo.loc[seed, "ece_top_before"]),
            digits_label_only_ece_after=float(dlo.loc[seed, "ece_top_after"]),
            digits_sup_ece_change=float(
                dsup.loc[seed, "ece_top_after"] - dsup.loc[seed, "ece_top_before"]
            ),
        )
        row["digits_label_only_ece_change"] = (
            row["digits_label_only_ece_after"] - row["digits_label_only_ece_before"]
        )
        row.update(calibration_seed_claims(row))
        rows.append(row)
    return pd.DataFrame(rows)


PANEL_ROWS = {
    "acc_y": ("AccY (label acc)", "labels cannot tell them apart"),
    "acc_c": ("AccC (concept acc)", "the shortcut signal: high AccY, low AccC"),
    "f1_c": ("F1(C) macro", "per-concept F1 agrees"),
    "cls_c": ("Cls(C) collapse (entropy)", None),
    "cls_c_count": ("Cls(C) collapse (count)", "the paper's count form of the same"),
    "ece_c": ("ECE(C) 10-bin", "confident AND wrong on concepts"),
}


def _model_panel(concepts, labels, model: str, split: str, *, source: str):
    from .concept_table import unpack_concept_table
    from .panel import concept_panel, learned_relabeling, predicted_concepts

    sel = concepts[(concepts["model"] == model) & (concepts["split"] == split)]
    points, c_true, probs = unpack_concept_table(
        sel.reset_index(drop=True), source=f"{source} [{model}/{split}]"
    )
    lab = labels[(labels["model"] == model) & (labels["split"] == split)].set_index("point")
    lab = lab.loc[points]
    panel = concept_panel(
        c_true, probs, y_true=lab["y_true"].to_numpy(), y_pred=lab["y_pred"].to_numpy()
    )
    return panel, learned_relabeling(c_true, predicted_concepts(probs))


def exhibit_tables(
    concepts: pd.DataFrame, labels: pd.DataFrame, *, state_names: Sequence[str], source: str
):
    """The head-to-head exhibit's panel (one row per metric, one column per model, with the
    chapter's reading), its learned relabelings alpha and occurrence vectors (test split).

    Returns ``(panel, alpha, occurrence, alphas)`` with ``alphas`` model -> alpha dict.
    """
    models = ("label_only", "concept_sup")
    panels, alphas = {}, {}
    for model in models:
        panels[model], alphas[model] = _model_panel(concepts, labels, model, "test", source=source)
    unused = [s for s, c in zip(state_names, panels["label_only"]["occurrence"]) if c == 0]
    cls_reading = (
        f"state{'s' if len(unused) > 1 else ''} {', '.join(unused)} never predicted"
        if unused
        else "usage of the states is uneven"
    )
    panel = pd.DataFrame(
        [
            {
                "row": i,
                "metric": name,
                "key": key,
                **{m: float(panels[m][key]) for m in models},
                "reading": reading or cls_reading,
            }
            for i, (key, (name, reading)) in enumerate(PANEL_ROWS.items())
        ]
    )
    alpha = pd.DataFrame(
        [
            {"model": m, "true_state": g, "predicted_state": a}
            for m in models
            for g, a in alphas[m].items()
        ]
    )
    occurrence = pd.DataFrame(
        [
            {"model": m, "state": s, "count": int(c)}
            for m in models
            for s, c in zip(state_names, panels[m]["occurrence"])
        ]
    )
    return panel, alpha, occurrence, alphas
