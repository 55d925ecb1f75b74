"""What the nli stages print on the console (the report has the same tables)."""

from __future__ import annotations

import pandas as pd

from ..console import print_table
from ..sweep import describe_exhibit
from .folio_lite import LABEL_ORDER
from .scoring import SYSTEMS


def generated(ctx, n_pronto: int, n_corrupt: int, n_folio: int) -> None:
    ctx.log(
        f"PrOntoQA-lite: {n_pronto} examples, {n_corrupt} with a corrupted rule; "
        f"FOLIO-lite: {n_folio} examples; every strict sentence parses back"
    )


def per_seed_counts(table: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """Counts ``n`` with one column per seed (``seed <s>``); a missing cell counts 0."""
    wide = table.pivot_table(index=index, columns="seed", values="n", aggfunc="sum", fill_value=0)
    wide.columns = [f"seed {c}" for c in wide.columns]
    return wide.reset_index()


def count(mix: pd.DataFrame, depth: pd.DataFrame) -> None:
    print_table(
        "[2] label mix per seed: examples per gold label (best blind guess = the max)",
        per_seed_counts(mix, ["dataset", "label"]),
    )
    print_table(
        "depth mix per seed (PrOntoQA-lite hops; FOLIO-lite depth of the decisive atom, "
        "0 = Unknown)",
        per_seed_counts(depth, ["dataset", "depth"]),
    )


def depth_display(per_depth: pd.DataFrame) -> pd.DataFrame:
    """Per hop count: label and proof accuracy of both systems side by side."""
    wide = per_depth.pivot(index="hops", columns="system", values=["label_acc", "proof_acc"])
    return pd.DataFrame(
        {
            "hops": wide.index.astype(int),
            "pipeline label": wide[("label_acc", SYSTEMS[0])].to_numpy(),
            "pipeline proof": wide[("proof_acc", SYSTEMS[0])].to_numpy(),
            "greedy label": wide[("label_acc", SYSTEMS[1])].to_numpy(),
            "greedy proof": wide[("proof_acc", SYSTEMS[1])].to_numpy(),
        }
    )


def score_seed(ctx, per_depth, trap, folio_table, answered: dict) -> None:
    n_each = "/".join(str(n) for n in sorted(set(per_depth["n"])))
    print_table(
        f"[3] seed {ctx.seed}: per-depth accuracy (label vs strict proof), {n_each} examples each",
        depth_display(per_depth),
        floatfmt="{:.2f}",
    )
    print_table(
        f"[5] seed {ctx.seed}: metric trap (PrOntoQA-lite, abstentions count wrong)",
        trap,
        floatfmt="{:.3f}",
    )
    print(
        f"  on the {answered['n']} examples it answers, translate-then-prove scores label "
        f"{answered['label_acc']:.3f}, proof {answered['proof_acc']:.3f}"
    )
    print_table(
        f"[4] seed {ctx.seed}: FOLIO-lite accuracy per gold label (3-way open world)",
        folio_table.rename(columns={f"acc_{y}": y for y in LABEL_ORDER}),
        floatfmt="{:.3f}",
    )


def interval_display(dist: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """A long distribution table as ``mean [lo, hi]`` strings, one column per metric."""
    shown = dist.assign(
        value=[
            f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
            for m, lo, hi in zip(dist["mean"], dist["lo"], dist["hi"])
        ]
    )
    wide = shown.pivot(index=keys, columns="metric", values="value")
    wide = wide[list(dict.fromkeys(dist["metric"]))].reset_index()  # metrics in table order
    wide.columns.name = None
    return wide


def sweep(ctx, dist: pd.DataFrame, claims: pd.DataFrame, exhibit: dict, per_depth) -> None:
    n = int(dist["n_seeds"].max())
    print_table(
        f"nli over {n} seeds: mean, sd and 95% bootstrap interval of the mean",
        dist.drop(columns=["order", "label"]),
    )
    print_table(
        f"[3] per-depth accuracy over {n} seeds: mean [95% bootstrap interval]",
        interval_display(
            per_depth[per_depth["metric"].isin(["label_acc", "proof_acc"])], ["system", "hops"]
        ),
    )
    print_table(
        "the chapter's directional claims, per seed (Wilson 95% interval of the rate)",
        claims.drop(columns=["order", "statement", "enforced"]),
    )
    print(f"  exhibit: {describe_exhibit(exhibit)}")


def benchmarks(inventory, agreement, audit, scores, depth) -> None:
    print_table("vendored benchmarks: questions and input-blind baselines", inventory)
    print_table(
        "reference labelers vs gold (agreement over the parsed questions)",
        agreement,
    )
    print_table(
        f"FOLIO label audit: {len(audit)} examples the prover does not confirm",
        audit[["file", "id", "status", "gold", "derived"]],
    )
    print_table("score-nli on the shipped predictions: accuracy beside every baseline", scores)
    print_table("score-nli per proof depth, beside the majority baseline of each depth", depth)


def programs(frames: dict, checker) -> None:
    print_table(
        "LLM-written logic programs (Logic-LM's format), both semantics", frames["programs"]
    )
    causes = frames["program_causes"]
    print_table("the cause of each wrong answer", causes[causes["n"] > 0])
    print(
        f"  {len(frames['program_disagreements'])} items answered differently by the two semantics"
    )
    print_table(
        "the step checker's two readings (nesybench, PrOntoQA main), per corruption kind", checker
    )
    print_table("why programs do not run (failure classes)", frames["program_failures"])
