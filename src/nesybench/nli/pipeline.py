"""Stage functions of the nli instrument (spec ch21): read, call, write.

The corpora are sampled, so every table computed on them depends on a seed and runs as a
sweep of ``n_seeds`` seeds (no training: every system is symbolic):

generate  seed        one seed's PrOntoQA-lite and FOLIO-lite corpora (every sentence parsed back)
count                 label mix and depth mix of every seed's corpora (majority = best blind guess)
score     seed        both PrOntoQA-lite systems through the step checker, the three FOLIO-lite
                      systems; per-depth, metric-trap and FOLIO-lite tables, the worked example,
                      and a one-row summary; the structural claims asserted on this seed
score     aggregate   distributions over seeds, the directional claims' rates, the exhibit seed
                      (picked by a declared rule), the per-depth plot
score     benchmarks  the vendored real benchmarks (not seeded): reference-labeler agreement,
                      FOLIO's label audit, ``score-nli`` on the shipped predictions

Claims live in :mod:`.claims`, tables in :mod:`.summaries` and :mod:`.benchmark_tables`,
console output in :mod:`.printing`.
"""

from __future__ import annotations

import pandas as pd

from ..progress import progress
from ..sweep import check_claims, claim_table, distribution_table, pick_exhibit, sweep_metrics
from . import claims, printing, programs_stage
from .benchmark_tables import (
    benchmark_metrics,
    inventory_table,
    reference_agreement,
    score_files,
    score_nli_depth_table,
    score_nli_table,
)
from .prontoqa_lite import ProntoExample
from .readers import read_benchmark
from .scoring import folio_per_label, score_folio, score_prontoqa
from .summaries import (
    SEED_METRICS,
    TRAP_COLUMNS,
    answered_summary,
    blind_guess_metrics,
    corpora,
    depth_mix_table,
    label_mix_table,
    metric_trap_table,
    over_seeds,
    per_depth_metrics,
    per_depth_plot,
    per_depth_table,
    seed_summary,
    stack_seeds,
    worked_example,
)
from .vendored import FOLIO_TIME_LIMIT, LOGICBENCH_DIR, REFERENCE_FILES, shipped_predictions

EXHIBIT_METRIC = "label_gap"
FOLIO_VALUES = ("acc_True", "acc_False", "acc_Unknown", "overall")


# ---------------------------------------------------------------- generate
def generate_seed(ctx) -> None:
    """One seed's corpora; every strict sentence parses back to its logic."""
    pronto, folio = corpora(ctx.params, seed=ctx.seed)
    claims.check_prontoqa_round_trip(pronto)
    claims.check_folio_parses(folio)
    ctx.write_table("prontoqa", pd.DataFrame([e.as_record() for e in pronto]), key=["id"])
    ctx.write_table("folio", pd.DataFrame([e.as_record() for e in folio]), key=["id"])
    n_corrupt = sum(e.corrupted >= 0 for e in pronto)
    ctx.write_metrics(
        {"prontoqa_n": len(pronto), "prontoqa_corrupted": n_corrupt, "folio_n": len(folio)}
    )
    printing.generated(ctx, len(pronto), n_corrupt, len(folio))


# ---------------------------------------------------------------- count
def count(ctx) -> None:
    """Label mix and depth mix of every seed; the majority baseline is the best blind guess."""
    mixes, depths = {}, {}
    for seed in ctx.seeds:
        pronto = ctx.read_table("prontoqa", stage="generate", seed=seed)
        folio = ctx.read_table("folio", stage="generate", seed=seed)
        mix = label_mix_table(pronto, folio)
        guess = {
            name: blind_guess_metrics(mix[mix["dataset"] == name], df["gold_label"], name)
            for name, df in (("prontoqa", pronto), ("folio", folio))
        }
        claims.check_majority_is_best_blind_guess(guess, seed=seed)
        mixes[seed], depths[seed] = mix, depth_mix_table(pronto, folio)
    mix, depth = stack_seeds(mixes), stack_seeds(depths)
    ctx.write_table("label_mix", mix, key=["seed", "dataset", "label"])
    ctx.write_table("depth_mix", depth, key=["seed", "dataset", "depth"])
    ctx.write_metrics({"seeds_checked": len(ctx.seeds)})
    printing.count(mix, depth)


# ---------------------------------------------------------------- score
def score_seed(ctx) -> None:
    """Both PrOntoQA-lite systems through the checker and the FOLIO-lite systems, one seed."""
    p = ctx.params
    pronto = ctx.read_table("prontoqa", stage="generate", seed=ctx.seed)
    folio = ctx.read_table("folio", stage="generate", seed=ctx.seed)
    examples = [ProntoExample.from_record(r) for r in pronto.to_dict("records")]
    claims.check_gold_chains(examples)
    traces = score_prontoqa(examples, cap=p["prontoqa"]["greedy_cap"])
    per_depth, trap = per_depth_table(traces), metric_trap_table(traces)
    claims.check_pipeline(traces)
    claims.check_greedy(traces, per_depth, cap=p["prontoqa"]["greedy_cap"])
    worked, text, meta = worked_example(examples, traces, hops=p["worked_example_hops"])
    fpreds = score_folio(folio)
    ftable = folio_per_label(fpreds)
    claims.check_folio(fpreds, ftable)
    summary = seed_summary(ctx.seed, traces, per_depth, ftable, pronto=pronto, folio=folio)

    ctx.write_table("traces", traces, key=["id", "system"])
    ctx.write_table("per_depth", per_depth, key=["system", "hops"])
    ctx.write_table("metric_trap", trap, key=["system"])
    ctx.write_table("worked_example", worked, key=["system"], metadata=meta)
    ctx.write_table("worked_example_text", text, key=["line"], metadata=meta)
    ctx.write_table("folio_predictions", fpreds, key=["id", "system"])
    ctx.write_table("folio_per_label", ftable, key=["system"])
    ctx.write_table("summary", summary, key=["seed"])
    ctx.write_metrics(
        {
            **{k: v for k, v in summary.iloc[0].items() if k != "seed"},
            "pipeline_answered_label_accuracy": answered_summary(traces)["label_acc"],
            "worked_example": meta["example_id"],
        }
    )
    printing.score_seed(ctx, per_depth, trap, ftable, answered_summary(traces))


def _stacked(ctx, name: str) -> pd.DataFrame:
    return stack_seeds({s: ctx.read_table(name, stage="score", seed=s) for s in ctx.seeds})


def score_aggregate(ctx) -> None:
    """The sweep: distributions, claim rates and the exhibit seed; the per-depth plot."""
    p = ctx.params
    summary = claims.seed_claims(_stacked(ctx, "summary"), p["claims"])
    dist = distribution_table(summary, SEED_METRICS)
    verdicts = claim_table(summary, claims.SEED_CLAIMS, p["claims"])
    exhibit = pick_exhibit(summary, metric=EXHIBIT_METRIC, rule=p["exhibit"])
    per_depth = over_seeds(_stacked(ctx, "per_depth"), keys=["system", "hops"], values=TRAP_COLUMNS)
    trap = over_seeds(_stacked(ctx, "metric_trap"), keys=["system"], values=TRAP_COLUMNS)
    folio = over_seeds(_stacked(ctx, "folio_per_label"), keys=["system"], values=FOLIO_VALUES)
    mix = over_seeds(
        ctx.read_table("label_mix", stage="count"), keys=["dataset", "label"], values=["frac"]
    )

    ctx.write_table("summaries", summary, key=["seed"])
    ctx.write_table("distribution", dist, key=["order"])
    ctx.write_table("claims", verdicts, key=["order"])
    ctx.write_table("exhibit", pd.DataFrame([exhibit]), key=["seed"])
    ctx.write_table("per_depth_dist", per_depth, key=["system", "hops", "metric"])
    ctx.write_table("metric_trap_dist", trap, key=["system", "metric"])
    ctx.write_table("folio_dist", folio, key=["system", "metric"])
    ctx.write_table("label_mix_dist", mix, key=["dataset", "label", "metric"])
    ctx.write_plot("per_depth", per_depth_plot(per_depth))
    printing.sweep(ctx, dist, verdicts, exhibit, per_depth)
    check_claims(verdicts, where=f"nli over {len(summary)} seeds")
    ctx.write_metrics(
        {
            **sweep_metrics(dist, verdicts, claims.SEED_CLAIMS),
            **per_depth_metrics(per_depth),
            "exhibit": {"seed": exhibit["seed"], "rank": exhibit["rank"]},
        }
    )


def score_benchmarks(ctx) -> None:
    """The vendored real benchmarks: agreement, FOLIO's label audit, score-nli examples."""
    files = [(rel, read_benchmark(ctx.root / rel, benchmark=b)) for b, rel in REFERENCE_FILES]
    logicbench = read_benchmark(ctx.root / LOGICBENCH_DIR, benchmark="logicbench")
    inventory = inventory_table([*files, (LOGICBENCH_DIR, logicbench)])
    agreement, audit, crashes = reference_agreement(
        files, time_limit=FOLIO_TIME_LIMIT, progress=lambda q: progress(q, desc="nli: label")
    )
    shipped = [(n, b, ctx.root / g, ctx.root / f) for n, b, g, f in shipped_predictions()]
    reports, crashed = score_files(shipped, time_limit=FOLIO_TIME_LIMIT)
    claims.check_no_crash(crashes + crashed)
    claims.check_parse_failures_counted(agreement)
    claims.check_proofwriter_total(agreement)
    scores = score_nli_table(reports)
    depth = pd.concat([score_nli_depth_table(n, r) for n, r in reports], ignore_index=True)
    claims.check_baselines_beside(scores, depth)

    ctx.write_table("inventory", inventory, key=["benchmark", "file"])
    ctx.write_table("agreement", agreement, key=["benchmark", "file"])
    ctx.write_table("folio_audit", audit, key=["order"])
    ctx.write_table("score_nli", scores, key=["system"])
    ctx.write_table("score_nli_depth", depth, key=["system", "depth"])
    ctx.write_metrics(benchmark_metrics(agreement, audit, scores, time_limit=FOLIO_TIME_LIMIT))
    printing.benchmarks(inventory, agreement, audit, scores, depth)


def score_programs(ctx) -> None:
    """LLM-written logic programs in both semantics; the checker vs PrOntoQA's conventions."""
    runs = programs_stage.program_runs(ctx.root)
    claims.check_programs_accounted(runs)
    frames = programs_stage.program_frames(runs)
    checker = programs_stage.checker_table(ctx.root)
    claims.check_gold_chains_agree(checker)
    keys = {
        "programs": ["file", "semantics"],
        "program_causes": ["file", "semantics", "cause"],
        "program_disagreements": ["file", "id"],
        "program_depths": ["file", "semantics", "depth"],
        "program_failures": ["file", "semantics", "failure"],
    }
    for name, frame in frames.items():
        ctx.write_table(name, frame, key=keys[name])
    ctx.write_table("checker_agreement", checker, key=["kind"])
    ctx.write_metrics(programs_stage.program_metrics(frames["programs"], checker))
    printing.programs(frames, checker)


def score_variant(ctx) -> None:
    """One knob level, one seed (see :mod:`.sensitivity`)."""
    from .sensitivity import variant

    variant(ctx)


def score_sensitivity(ctx) -> None:
    """Every claim at every measured knob level (see :mod:`.sensitivity`)."""
    from .sensitivity import sensitivity

    sensitivity(ctx)


# The jobs of this instrument (declared in artifacts.py) and the function each runs.
STAGE_FUNCTIONS = {
    ("generate", "seed"): generate_seed,
    ("count", None): count,
    ("score", "seed"): score_seed,
    ("score", "aggregate"): score_aggregate,
    ("score", "benchmarks"): score_benchmarks,
    ("score", "programs"): score_programs,
    ("score", "variant"): score_variant,
    ("score", "sensitivity"): score_sensitivity,
}
