"""Stage functions of the axes instrument (spec ch15): read, call, write.

Every sampled number depends on a seed (the bank's theories and labels, the synonym draws,
the grid, the soft reasoners fitted on them, the flip probe's edits), so the instrument runs
as a sweep of ``n_seeds`` seeds:

generate  seed       RuleTaker-lite depth bank (balanced, labels re-derived) with lexical
                     rewrites; the difficulty grid and its training grid (labels re-derived
                     from the rendered text)
count                the realized depth mix of every seed's bank; design arithmetic
train     seed       the soft reasoner on the bank's depths 0-1, and on the training grid
score     seed       the bank: per-depth factorization beside the soft reasoner, synonym x
                     depth, flip probe, mixture ties; the grid: three reference systems'
                     degradation profiles; a one-row summary of the seed's numbers
score     gadgets    the seven gadgets, completeness pinned in each (semantics on every seed)
score     aggregate  distributions over seeds, claim rates, the exhibit seed (declared rule),
                     profiles, interaction and regression coefficients over seeds

Claims live in :mod:`.claims`, console tables in :mod:`.printing`, tables in
:mod:`.summaries`, :mod:`.bank_scores` and :mod:`.benchmark`.
"""

from __future__ import annotations

import pandas as pd

from ..sweep import check_claims, claim_table, distribution_table, pick_exhibit, sweep_metrics
from . import claims, printing
from .bank import MAX_LAYER, BankConfig, balance_table, build_bank, theories_from_table
from .bank_scores import score_bank
from .benchmark import (
    answer_grid,
    answers_frame,
    cell_frame,
    coefficients,
    fit_grid_reasoner,
    generate_grids,
    grid_numbers,
    interaction_frame,
    predictions_from_frame,
    profile_frame,
    score_systems,
)
from .grid import grid_table, records_from_table
from .lexical import apply_synonyms
from .scoring import grid_from_records
from .soft_reasoner import SoftReasoner, accuracy_by_depth, feature_matrix
from .summaries import (
    SEED_METRICS,
    coefficients_over_seeds,
    depth_mix,
    design_frame,
    design_metrics,
    gadget_metrics,
    gadget_table,
    over_seeds,
    per_depth_plot,
    profile_plot,
    query_table,
    run_gadgets,
    scale_table,
    seed_summary,
)

#: the metric whose distribution picks the exhibit seed (by the rule ``axes.exhibit``)
EXHIBIT_METRIC = "coverage_repaired"


def _bank(ctx, seed: int):
    """A seed's bank questions and the theories rebuilt from its bank table."""
    questions = ctx.read_table("questions", stage="generate", seed=seed)
    bank = ctx.read_table("bank", stage="generate", seed=seed)
    return questions, theories_from_table(bank, questions)


def _grid(ctx, seed: int):
    """A seed's grid as validated records (``Grid``) and its three systems' answers."""
    records = records_from_table(ctx.read_table("grid", stage="generate", seed=seed))
    grid = grid_from_records(list(enumerate(records, start=1)), source=f"grid of seed {seed}")
    answers = ctx.read_table("grid_answers", stage="score", seed=seed)
    return records, grid, predictions_from_frame(answers)


# ---------------------------------------------------------------- generate
def generate_seed(ctx) -> None:
    """One seed's depth bank (with lexical rewrites) and its two grids."""
    p, seed = ctx.params, ctx.seed
    ctx.log("depth bank: theories, labels by the forward chainer, re-derived by the prover")
    bank, questions, _ = build_bank(BankConfig(**p["bank"]), seed=seed)
    questions = apply_synonyms(questions, prob=p["lexical"]["synonym_prob"], seed=seed)
    balance = balance_table(questions)
    claims.check_bank_balance(balance, seed=seed)
    eval_depths = set(questions.loc[questions["split"] == "eval", "depth"].astype(int))
    claims.check_depths_covered(eval_depths, MAX_LAYER, seed=seed)
    ctx.log("difficulty grid: every label re-derived from the rendered text")
    grid, grid_train = generate_grids(p, seed=seed)
    ctx.write_table("bank", bank, key=["split", "theory", "item"])
    ctx.write_table("questions", questions, key=["split", "qid"])
    ctx.write_table("grid", grid_table(grid), key=["position"])
    ctx.write_table("grid_train", grid_table(grid_train), key=["position"])
    printing.balance(ctx, balance)
    ctx.write_metrics(
        {
            "n_questions": {s: int((questions["split"] == s).sum()) for s in ("train", "eval")},
            "n_rewritten_eval": int(questions.loc[questions["split"] == "eval", "rewritten"].sum()),
            "grid_questions": len(grid),
            "grid_train_questions": len(grid_train),
        }
    )


# ---------------------------------------------------------------- count
def count(ctx) -> None:
    """The realized depth mix of every seed's bank; the factorial-design arithmetic."""
    p = ctx.params
    mix = pd.concat(
        [
            depth_mix(ctx.read_table("questions", stage="generate", seed=s)).assign(seed=s)
            for s in ctx.seeds
        ],
        ignore_index=True,
    )
    design = design_frame(p["design"])
    ctx.write_table("depth_mix", mix, key=["seed", "split", "depth"])
    ctx.write_table("design", design, key=["quantity"])
    printing.count(mix, design)
    ctx.write_metrics({"seeds": len(ctx.seeds), "design": design_metrics(design)})


# ---------------------------------------------------------------- train
def train_seed(ctx) -> None:
    """The soft reasoner on the bank's shallow training questions, and on the training grid."""
    p, seed = ctx.params, ctx.seed
    questions, theories = _bank(ctx, seed)
    max_depth = p["soft_reasoner"]["train_max_depth"]
    train_q = questions[(questions["split"] == "train") & (questions["depth"] <= max_depth)]
    ctx.log(f"soft reasoner on {len(train_q)} bank questions of depth <= {max_depth}")
    x = feature_matrix(train_q, theories)
    model = SoftReasoner(C=p["soft_reasoner"]["C"]).fit(x, train_q["label"])
    acc = accuracy_by_depth(train_q, model.predict(x))
    train_records = records_from_table(ctx.read_table("grid_train", stage="generate", seed=seed))
    ctx.log(f"soft reasoner on {len(train_records)} training-grid questions")
    grid_model = fit_grid_reasoner(train_records, p)
    ctx.write_table("soft_reasoner", model.to_table(), key=["feature"])
    ctx.write_table("grid_soft_reasoner", grid_model.to_table(), key=["feature"])
    printing.soft_reasoners(ctx, model, grid_model)
    ctx.write_metrics(
        {
            "n_train": len(train_q),
            "fit_accuracy": {f"depth_{int(r.depth)}": r.accuracy for r in acc.itertuples()},
        }
    )


# ---------------------------------------------------------------- score
def score_seed(ctx) -> None:
    """One seed: the bank's two systems, flip probe and mixture; the grid's three systems."""
    p, seed = ctx.params, ctx.seed
    questions, theories = _bank(ctx, seed)
    eval_q = questions[questions["split"] == "eval"].reset_index(drop=True)
    model = SoftReasoner.from_table(ctx.read_table("soft_reasoner", stage="train", seed=seed))
    ctx.log(f"bank: soft reasoner, translate-then-prove, flip probe on {len(eval_q)} questions")
    bank = score_bank(eval_q, theories, model, seed=seed)
    claims.check_parsed_exact(bank.pipeline, seed=seed)
    claims.check_synonyms_hit_depths(bank.per_depth, bank.synonym_depth, seed=seed)
    claims.check_prover_tracks_flips(bank.flip, seed=seed)
    soft, overall = bank.per_depth["soft_reasoner"], bank.per_depth["overall"]
    claims.check_ties(bank.ties, soft.to_numpy(), overall.to_numpy(), seed=seed)

    records = records_from_table(ctx.read_table("grid", stage="generate", seed=seed))
    grid = grid_from_records(list(enumerate(records, start=1)), source=f"grid of seed {seed}")
    grid_model = SoftReasoner.from_table(
        ctx.read_table("grid_soft_reasoner", stage="train", seed=seed)
    )
    predictions = answer_grid(records, grid_model, p)
    scores = score_systems(grid, predictions, p, seed=seed, regress=False)
    claims.check_grid(scores, p, seed=seed)

    summary = seed_summary(seed, bank.numbers, grid_numbers(scores, p))
    ctx.write_table("per_depth", bank.per_depth, key=["depth"])
    ctx.write_table("synonym_depth", bank.synonym_depth, key=["predicate"])
    ctx.write_table("flip", bank.flips, key=["split", "qid"])
    ctx.write_table("mixture", bank.mixture, key=["kind", "depth_i", "depth_j"])
    ctx.write_table("grid_answers", answers_frame(grid, predictions), key=["system", "id"])
    ctx.write_table("grid_profile", profile_frame(scores), key=["system", "axis", "order"])
    ctx.write_table(
        "grid_interaction", interaction_frame(scores), key=["system", "depth", "distractors"]
    )
    cells = cell_frame(scores)
    ctx.write_table("grid_cells", cells, key=["system", *grid.axes])
    ctx.write_table("summary", summary, key=["seed"])
    printing.seed_scores(ctx, bank, scores)
    ctx.write_metrics({k: v for k, v in summary.iloc[0].items() if k != "seed"})


def score_gadgets(ctx) -> None:
    """The seven gadgets, each with its pinned control and its failure asserted."""
    p = ctx.params
    results = run_gadgets(p["gadgets"], seeds=ctx.seeds)
    claims.check_gadgets({k: v for k, v in results.items() if k != "semantics"})
    for result in results["semantics"]:
        claims.check_gadgets({"semantics": result})
    table = gadget_table(results)
    ctx.write_table("gadgets", table, key=["number"])
    ctx.write_table("gadget_query_joins", query_table(results["query_joins"]), key=["k"])
    ctx.write_table("gadget_scale", scale_table(results["scale"]), key=["m"])
    printing.gadgets(table)
    ctx.write_metrics({"gadgets": gadget_metrics(results)})


def _tables_over_seeds(ctx) -> dict[str, pd.DataFrame]:
    """The per-seed tables gathered and summarised over the sweep."""
    seeds = ctx.seeds

    def read(name: str) -> dict[int, pd.DataFrame]:
        return {s: ctx.read_table(name, stage="score", seed=s) for s in seeds}

    per_depth = {
        s: t.melt(id_vars=["depth"], var_name="measure", value_name="value")
        for s, t in read("per_depth").items()
    }
    ctx.log(f"regression of correctness on the axes, {len(seeds)} seeds x three systems")
    co = {}
    for s in seeds:
        _, grid, predictions = _grid(ctx, s)
        co[s] = coefficients(grid, predictions, ctx.params, seed=s)
    return {
        "per_depth_over_seeds": over_seeds(per_depth, ["measure", "depth"], "value"),
        "profile_over_seeds": over_seeds(
            read("grid_profile"), ["system", "axis", "order", "level"], "accuracy"
        ),
        "interaction_over_seeds": over_seeds(
            read("grid_interaction"), ["system", "depth", "distractors"], "accuracy"
        ),
        "coefficients_over_seeds": coefficients_over_seeds(co),
    }


def score_aggregate(ctx) -> None:
    """The sweep: distributions and claim rates over seeds; the exhibit seed; tables over seeds."""
    p = ctx.params
    summary = pd.concat(
        [ctx.read_table("summary", stage="score", seed=s) for s in ctx.seeds], ignore_index=True
    )
    dist = distribution_table(summary, SEED_METRICS)
    defs = claims.statements(p["claims"])
    verdicts = claim_table(claims.seed_verdicts(summary, p["claims"]), defs, p["claims"])
    exhibit = pick_exhibit(summary, metric=EXHIBIT_METRIC, rule=p["exhibit"])
    tables = _tables_over_seeds(ctx)
    _, grid, predictions = _grid(ctx, exhibit["seed"])
    resamples = p["grid"]["score"]["resamples"]
    boot = coefficients(grid, predictions, p, seed=exhibit["seed"], resamples=resamples)

    ctx.write_table("summaries", summary, key=["seed"])
    ctx.write_table("distribution", dist, key=["order"])
    ctx.write_table("claims", verdicts, key=["order"])
    ctx.write_table("exhibit", pd.DataFrame([exhibit]), key=["seed"])
    keys = {
        "per_depth_over_seeds": ["measure", "depth"],
        "profile_over_seeds": ["system", "axis", "order"],
        "interaction_over_seeds": ["system", "depth", "distractors"],
        "coefficients_over_seeds": ["system", "axis", "level"],
    }
    for name, table in tables.items():
        ctx.write_table(name, table, key=keys[name])
    ctx.write_table("exhibit_coefficients", boot, key=["system", "axis", "level"])
    ctx.write_plot("per_depth", per_depth_plot(tables["per_depth_over_seeds"]))
    ctx.write_plot("profile", profile_plot(tables["profile_over_seeds"]))
    printing.sweep(dist, verdicts, exhibit, tables)
    check_claims(verdicts, where=f"axes over {len(summary)} seeds")
    ctx.write_metrics(
        {
            **sweep_metrics(dist, verdicts, defs),
            "exhibit": {"seed": exhibit["seed"], "rank": exhibit["rank"]},
        }
    )


def score_variant(ctx) -> None:
    """One knob level, one seed: the depth bank again (see :mod:`.sensitivity`)."""
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
    ("train", "seed"): train_seed,
    ("score", "seed"): score_seed,
    ("score", "gadgets"): score_gadgets,
    ("score", "aggregate"): score_aggregate,
    ("score", "variant"): score_variant,
    ("score", "sensitivity"): score_sensitivity,
}
