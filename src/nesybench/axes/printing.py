"""What the axes stages print on the console (the report has the same tables)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..console import print_table
from ..sweep import describe_exhibit
from .summaries import profile_wide


def balance(ctx, table: pd.DataFrame) -> None:
    print_table(
        f"[axes] seed {ctx.seed}: question balance per split and depth (asserted exactly 50/50; "
        "'not' uninformative)",
        table,
    )


def count(mix: pd.DataFrame, design: pd.DataFrame) -> None:
    ev = mix[mix["split"] == "eval"]
    print_table(
        "[axes] realized depth mix pi_d = n_d / N of the evaluation bank, per seed",
        ev.pivot(index="seed", columns="depth", values="n").reset_index(),
    )
    print_table("[axes] design arithmetic (computed)", design)


def soft_reasoners(ctx, bank_model, grid_model) -> None:
    table = bank_model.to_table().merge(
        grid_model.to_table(), on="feature", suffixes=("_bank", "_grid")
    )
    print_table(f"[axes] seed {ctx.seed}: soft reasoner coefficients (bank, grid)", table)


def seed_scores(ctx, bank, scores: Mapping[str, dict]) -> None:
    print_table(
        f"[axes] seed {ctx.seed}: per-depth factorization (pipeline: coverage x acc-on-parsed) "
        "beside the soft reasoner",
        bank.per_depth,
    )
    print_table(f"[axes] seed {ctx.seed}: which synonym hits which depth", bank.synonym_depth)
    print_table(f"[axes] seed {ctx.seed}: flip probe", pd.DataFrame([bank.flip]))
    print_table(
        f"[axes] seed {ctx.seed}: mixture ties over two depths and pure-depth winners",
        bank.mixture,
    )
    rows = [
        {
            "system": system,
            "accuracy": s["accuracy"],
            "coverage": s["coverage"],
            "on_answered": s["accuracy_answered"],
            "most_moving_axis": s["most_moving_axis"],
        }
        for system, s in scores.items()
    ]
    print_table(f"[axes] seed {ctx.seed}: the grid's three reference systems", pd.DataFrame(rows))


def gadgets(table: pd.DataFrame) -> None:
    print_table(
        "[axes] seven gadgets (completeness pinned in each)",
        table[["number", "axis", "pinned", "measured"]],
    )


def sweep(
    dist: pd.DataFrame, claims: pd.DataFrame, exhibit: dict, tables: Mapping[str, pd.DataFrame]
) -> None:
    n = int(dist["n_seeds"].max())
    print_table(
        f"axes over {n} seeds: mean, sd and 95% bootstrap interval of the mean",
        dist.drop(columns=["order", "label"]),
    )
    print_table(
        "the chapter's directional claims, per seed (Wilson 95% interval of the rate)",
        claims.drop(columns=["order", "statement", "enforced"]),
    )
    print(f"  worked example: {describe_exhibit(exhibit)}")
    print_table(
        f"grid degradation profiles: mean accuracy over {n} seeds",
        profile_wide(tables["profile_over_seeds"]),
    )
