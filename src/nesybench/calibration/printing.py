"""What the calibration stages print on the console (the report has the same tables)."""

from __future__ import annotations

import pandas as pd

from ..console import print_table
from ..sweep import describe_exhibit
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


def tau_reading(tau: float) -> str:
    if tau > 1:
        return "raw reading too confident, scores shrink"
    if tau < 1:
        return "raw reading too timid, scores stretch"
    return "unchanged"


def class_mix(table: pd.DataFrame) -> None:
    print_table("[0] labelled set: class mix per half, every seed (stratified split)", table)


def before(ctx, audit, exhibit: pd.DataFrame, s, y) -> None:
    b = audit.summary
    print(
        f"\n[1] seed {ctx.seed}: raw scores read as p = sigmoid(s); positives in "
        f"[{s[y == 1].min():.3f}, {s[y == 1].max():.3f}], negatives in "
        f"[{s[y == 0].min():.3f}, {s[y == 0].max():.3f}]"
    )
    worst = exhibit.loc[exhibit["p"].idxmin()]
    print(f"  {worst['triple']} is TRUE but gets p = {worst['p']:.4f}")
    p = ctx.params
    print_table(
        f"[2] seed {ctx.seed} BEFORE: reliability of sigmoid(s) on the eval half, {p['n_bins']} "
        f"{p['strategy']} bins (left-closed, last bin closed); acc_lo/acc_hi = 95% Wilson",
        reliability_display(audit.reliability),
    )
    print(
        f"  ECE = {b['ece']:.4f}  MCE = {b['mce']:.4f}  Brier = {b['brier']:.4f}  "
        f"NLL = {b['nll']:.4f}  acc(0.5) = {b['acc']:.4f}  AUC = {b['auc']:.4f}"
    )


def after(ctx, fit, repairs: dict, ledger, inv, exhibit, p: dict) -> None:
    t = p["temperature"]
    print(
        f"\n[3] seed {ctx.seed}: tau* = {fit.tau:.4f} ({fit.direction}: {tau_reading(fit.tau)}) "
        f"by golden-section over [{t['lo']}, {t['hi']}] in {fit.iterations} iterations; "
        f"cal-half NLL {fit.nll_at_1:.4f} -> {fit.nll:.4f}"
    )
    print_table(
        f"[5] seed {ctx.seed} ledger on the eval half: before, after each method, moved?",
        ledger.drop(columns=["order", "measures"]),
    )
    print_table(
        f"[6] seed {ctx.seed} invariances over all labelled triples (bit-identical?)",
        inv.pivot(index="property", columns="method", values="held").reset_index()[
            ["property", *METHODS]
        ],
    )
    wrong_before = int((exhibit["p"] < 0.5).sum())
    wrong_after = int((exhibit["p_temperature"] < 0.5).sum())
    print(
        f"  {wrong_before} of {len(exhibit)} held-out facts sit below 0.5 before, {wrong_after} "
        "after: a sign-preserving map cannot move a wrong decision"
    )


def sweep(ctx, dist: pd.DataFrame, claims: pd.DataFrame, exhibit: dict, boot: pd.DataFrame) -> None:
    print_table(
        f"calibration over {int(dist['n_seeds'].max())} seeds: mean, sd and 95% bootstrap "
        "interval of the mean",
        dist.drop(columns=["order", "label"]),
    )
    print_table(
        "the chapter's directional claims, per seed (Wilson 95% interval of the rate)",
        claims.drop(columns=["order", "statement", "enforced"]),
    )
    print(f"  worked example: {describe_exhibit(exhibit)}")
    print_table("[7] bootstrap intervals on the exhibit seed's eval half", boot)
