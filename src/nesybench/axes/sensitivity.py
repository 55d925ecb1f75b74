"""What the axes claims depend on: the bank's knobs, one at a time (nesybench.sensitivity).

score  variant      one knob level, one seed: the depth bank generated, its soft reasoner
                    trained and both systems scored again with that level (the bank's part of
                    generate seed, train seed and score seed, by the same functions); the
                    bank's columns of the seed summary
score  sensitivity  every setting's per-seed verdicts: the "what the claim depends on" table,
                    and the mixture numbers (the depth mix, both aggregates, the tie weight)
                    at every level

The variants re-run the bank only: the knobs declared here (``axes.knobs``) do not reach the
difficulty grid, whose claim is judged at the default setting alone.
"""

from __future__ import annotations

import pandas as pd

from ..io import parquet_bytes
from ..metric_keys import variant_segment
from ..sensitivity import (
    DEFAULT,
    apply_variant,
    check_knob_reaches,
    knob_table,
    sensitivity_metrics,
    sensitivity_table,
    variant_tokens,
)
from ..sweep import seed_statistics
from . import claims
from .bank import MAX_LAYER, BankConfig, balance_table, build_bank, theories_from_table
from .bank_scores import score_bank
from .lexical import apply_synonyms
from .soft_reasoner import SoftReasoner, feature_matrix

__all__ = ["GRID_CLAIMS", "MIXTURE_METRICS", "bank_summary", "variant", "sensitivity"]

GRID_CLAIMS = ("grid_distractors_move_soft",)
# The mixture numbers each level is reported with (mean over seeds and a bootstrap interval).
MIXTURE_METRICS = (
    "depth_share_3",
    "mixture_aggregate_soft",
    "mixture_aggregate_pipeline",
    "mixture_tie_01_pi0",
)


def _as_read(df: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """``df`` as the next stage reads it: written to Parquet bytes and read back."""
    from ..sensitivity import _read_bytes

    data = parquet_bytes(df, key=key, instrument="axes", stage="generate", params_hash="")
    return _read_bytes(data)


def bank_summary(section: dict, seed: int) -> pd.DataFrame:
    """One seed's bank numbers (the bank's columns of the seed summary), computed as the
    default run's generate, train and score jobs compute them, structural claims included."""
    bank, questions, _ = build_bank(BankConfig(**section["bank"]), seed=seed)
    questions = apply_synonyms(questions, prob=section["lexical"]["synonym_prob"], seed=seed)
    claims.check_bank_balance(balance_table(questions), seed=seed)
    eval_depths = set(questions.loc[questions["split"] == "eval", "depth"].astype(int))
    claims.check_depths_covered(eval_depths, MAX_LAYER, seed=seed)
    bank = _as_read(bank, ["split", "theory", "item"])
    questions = _as_read(questions, ["split", "qid"])
    theories = theories_from_table(bank, questions)
    max_depth = section["soft_reasoner"]["train_max_depth"]
    train_q = questions[(questions["split"] == "train") & (questions["depth"] <= max_depth)]
    x = feature_matrix(train_q, theories)
    model = SoftReasoner(C=section["soft_reasoner"]["C"]).fit(x, train_q["label"])
    model = SoftReasoner.from_table(_as_read(model.to_table(), ["feature"]))
    eval_q = questions[questions["split"] == "eval"].reset_index(drop=True)
    scored = score_bank(eval_q, theories, model, seed=seed)
    claims.check_parsed_exact(scored.pipeline, seed=seed)
    claims.check_synonyms_hit_depths(scored.per_depth, scored.synonym_depth, seed=seed)
    claims.check_prover_tracks_flips(scored.flip, seed=seed)
    soft, overall = scored.per_depth["soft_reasoner"], scored.per_depth["overall"]
    claims.check_ties(scored.ties, soft.to_numpy(), overall.to_numpy(), seed=seed)
    depth = eval_q["depth"].astype(int)
    mix = {f"depth_share_{d}": float((depth == d).mean()) for d in range(MAX_LAYER + 1)}
    return pd.DataFrame([{"seed": int(seed), **scored.numbers, **mix}])


def variant(ctx) -> None:
    """One knob level, one seed: the bank's numbers with that level."""
    section = apply_variant(ctx.section, ctx.wildcards["variant"])
    ctx.log(f"depth bank of seed {ctx.seed} with {ctx.wildcards['variant']}")
    ctx.write_table("variant_summary", bank_summary(section, ctx.seed), key=["seed"])


def _verdicts(frame: pd.DataFrame, thresholds: dict, *, grid: bool) -> pd.DataFrame:
    judged = claims.seed_verdicts(
        frame if grid else frame.assign(grid_soft_distractor_drop=float("nan")), thresholds
    )
    return judged if grid else judged.drop(columns=list(GRID_CLAIMS))


def _mixture(summaries: dict[str, pd.DataFrame]) -> pd.DataFrame:
    rows = []
    for setting, frame in summaries.items():
        for metric in MIXTURE_METRICS:
            # one resample set per metric: equal columns of two settings get equal intervals
            stats = seed_statistics(frame[metric].to_numpy(dtype=float), name=f"mixture/{metric}")
            rows.append({"order": len(rows), "setting": setting, "metric": metric, **stats})
    return pd.DataFrame(rows)


def sensitivity(ctx) -> None:
    """Every claim at every measured knob level; the mixture numbers at each level."""
    p = ctx.params
    main = pd.concat(
        [ctx.read_table("summary", stage="score", seed=s) for s in ctx.seeds], ignore_index=True
    )
    mix = ctx.read_table("depth_mix", stage="count")
    evals = mix[mix["split"] == "eval"]
    shares = evals.pivot(index="seed", columns="depth", values="pi")
    main = main.assign(
        **{f"depth_share_{d}": main["seed"].map(shares[d]).astype(float) for d in shares.columns}
    )
    summaries = {DEFAULT: main}
    verdicts = {DEFAULT: _verdicts(main, p["claims"], grid=True)}
    for token in variant_tokens(p):
        frame = pd.concat(
            [
                ctx.read_table("variant_summary", stage="score", variant=token, seed=s)
                for s in ctx.seeds
            ],
            ignore_index=True,
        )
        check_knob_reaches(main[frame.columns], frame, token=token)
        summaries[token] = frame
        verdicts[token] = _verdicts(frame, p["claims"], grid=False)
    table = sensitivity_table(verdicts, claims.statements(p["claims"]), p)
    mixture = _mixture(summaries)
    ctx.write_table("sensitivity", table, key=["order"])
    ctx.write_table("knobs", knob_table(p), key=["order"])
    ctx.write_table("sensitivity_mixture", mixture, key=["order"])
    ctx.log(f"{len(verdicts)} settings over {len(ctx.seeds)} seeds")
    ctx.write_metrics(
        {
            **sensitivity_metrics(table, p),
            **{
                f"sensitivity_mixture.{r['metric']}.{variant_segment(r['setting'])}": {
                    k: r[k] for k in ("mean", "lo", "hi", "n_seeds")
                }
                for r in mixture.to_dict("records")
            },
        }
    )
