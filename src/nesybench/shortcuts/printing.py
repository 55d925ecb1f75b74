"""What the shortcuts model stages print on the console (the report has the same tables)."""

from __future__ import annotations

import pandas as pd

from ..console import print_table


def _claims(title: str, verdicts: pd.DataFrame) -> None:
    print_table(
        title,
        verdicts[["claim", "holds_on", "n_seeds", "rate", "rate_lo", "rate_hi", "verdict"]],
    )


def digit_certificate(cert: pd.DataFrame, tasks: dict) -> None:
    rows = []
    for name, task in tasks.items():
        own = cert[(cert["support"] == name) & (cert["item"] == "all")]
        count = own.set_index(["kind", "split"])["count"]
        rows.append(
            {
                "support": name,
                "digits": f"0-{task.n_digits - 1}",
                "observed tuples": f"{len(task.support)}/{task.n_digits**task.n_positions}",
                **{f"{s} points": int(count["tuples", s]) for s in ("train", "val", "test", "ood")},
                **{f"{p} images": int(count["images", p]) for p in ("train", "val", "test")},
                "y = K(gold)": "holds (asserted)",
            }
        )
    print_table(
        "shortcuts digits: MNIST-Addition on scikit-learn's bundled handwritten digits "
        "(images split first, disjoint; tuples built per split)",
        pd.DataFrame(rows),
    )


def head_to_head(dist, verdicts, exhibit: dict, ood: pd.DataFrame) -> None:
    n = int(dist["n_seeds"].max())
    print_table(
        f"head-to-head over {n} seeds: mean, sd and 95% bootstrap interval of the mean",
        dist[["metric", "mean", "sd", "lo", "hi", "min", "max"]],
    )
    _claims("the chapter's head-to-head claims, per seed (95% Wilson interval)", verdicts)
    if exhibit["seed"] is None:
        print(f"  exhibit: none -- no seed of 0..{exhibit['n_scan'] - 1} collapses")
    else:
        print(
            f"  exhibit: seed {exhibit['seed']}, {exhibit['statement']}; "
            f"{exhibit['n_collapse']} of {exhibit['n_scan']} scanned seeds collapse; its "
            f"label-only AccC {exhibit['value']:.4f} ranks {exhibit['rank']} of "
            f"{exhibit['n_scan']} (1 = lowest)"
        )
    print_table(
        "out-of-distribution: label-only nets on the biased support, AccY off it",
        ood.drop(columns=["task"]),
    )


def incidence(table: pd.DataFrame) -> None:
    print_table(
        "shortcut incidence: label-only runs on a label-perfect alpha != identity (95% Wilson)",
        table,
    )


def digits(dist, verdicts, sweep, inc, exhibit: dict) -> None:
    n = int(dist["n_seeds"].max())
    wide = sweep.pivot_table(
        index=["order", "support", "mitigation"], columns="metric", values="mean", sort=False
    ).reset_index()
    print_table(
        f"mitigation sweep on real digits: means over {n} seeds (intervals in the report)",
        wide.drop(columns=["order"]),
        floatfmt="{:.3f}",
    )
    print_table(
        "digit shortcut incidence per support and mitigation (95% Wilson)",
        inc[["support", "mitigation", "n_support", "n_shortcut", "rate", "rate_lo", "rate_hi"]],
        floatfmt="{:.3f}",
    )
    _claims("the chapter's claims on real digits, per seed (paired models)", verdicts)
    print(
        f"  digit exhibit: seed {exhibit['seed']} ({exhibit['statement']}; rank "
        f"{exhibit['rank']} of {exhibit['n_seeds']} by label-only AccC)"
    )
    for row in exhibit["maps"].itertuples(index=False):
        print(f"    {row.model:>18}: {row.digit_map}")


def calibration(dist, verdicts, table: pd.DataFrame) -> None:
    n = int(dist["n_seeds"].max())
    print_table(
        f"concept-head calibration over {n} seeds",
        dist[["metric", "mean", "sd", "lo", "hi"]],
    )
    _claims("calibration claims, per seed", verdicts)
    shown = table[table["metric"].isin(["ece_top", "nll", "acc"])]
    print_table(
        "digit heads before / after calibration (means over seeds; fitted on val, test split)",
        shown[["support", "mitigation", "method", "metric", "before", "after", "change"]],
    )


def count_table(table, tasks: dict) -> None:
    """The spec's N_opt table, wide, and each task's knowledge (``tasks``: CertifiedTask by
    name)."""
    from ..counting import label_class_sizes
    from .count_tables import count_table_wide

    print_table(
        "shortcuts: RS count vs support fraction (support read off the generated train split)",
        count_table_wide(table, task_order=sorted(tasks)),
        floatfmt="{:.2f}",
    )
    for name in sorted(tasks):
        knowledge = tasks[name].knowledge
        k = knowledge.k
        _, n1 = label_class_sizes(knowledge)
        print(f"  {name} (k={k}): {knowledge.describe()}   ({n1}/{2**k} states satisfy)")


def rsbench_counts(counts) -> None:
    shown = counts.assign(
        n_opt=[
            (v if len(v) <= 24 else f"2^{lg:.1f}") if s == "exact" else s
            for v, lg, s in zip(
                counts["n_opt_exact"].fillna(""), counts["log2_n_opt"], counts["status"]
            )
        ]
    )
    print_table(
        "rsbench's named tasks: N_opt per extractor family at each task's support",
        shown[["task", "n_observed", "extractor", "n_opt", "labels_to_one"]],
    )


def categorical_counts(counts) -> None:
    print_table(
        "MNIST-Addition: N_opt per support and extractor family (categorical concepts)",
        counts[
            ["task", "support", "n_support", "extractor", "n_opt", "n_distinct", "certified_by"]
        ],
    )
