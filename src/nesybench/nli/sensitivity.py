"""What the nli claims depend on: its knobs, one at a time (nesybench.sensitivity).

score  variant      one knob level, one seed: the seed's chain (generate seed, score seed)
                    re-run in memory with that level; its summary row
score  sensitivity  every setting's per-seed verdicts: the "what the claim depends on" table
"""

from __future__ import annotations

import pandas as pd

from ..sensitivity import (
    DEFAULT,
    check_knob_reaches,
    knob_table,
    run_variant,
    sensitivity_metrics,
    sensitivity_table,
    variant_tokens,
)
from .claims import SEED_CLAIMS, seed_claims

__all__ = ["variant", "sensitivity"]

CHAIN = (("generate", "seed"), ("score", "seed"))
KEEP = ("score", "summary")


def variant(ctx) -> None:
    """One knob level, one seed: the corpora drawn and scored again with that level."""
    tables = run_variant(ctx, CHAIN, [KEEP])
    ctx.write_table("variant_summary", tables[KEEP], key=["seed"])


def sensitivity(ctx) -> None:
    """Every claim at every measured knob level, over the default run's seeds."""
    p = ctx.params

    def summaries(name: str, **wildcards) -> pd.DataFrame:
        frames = [ctx.read_table(name, stage="score", seed=s, **wildcards) for s in ctx.seeds]
        return pd.concat(frames, ignore_index=True)

    settings = {DEFAULT: summaries("summary")}
    for token in variant_tokens(p):
        settings[token] = summaries("variant_summary", variant=token)
        check_knob_reaches(settings[DEFAULT], settings[token], token=token)
    verdicts = {name: seed_claims(frame, p["claims"]) for name, frame in settings.items()}
    table = sensitivity_table(verdicts, SEED_CLAIMS, p)
    ctx.write_table("sensitivity", table, key=["order"])
    ctx.write_table("knobs", knob_table(p), key=["order"])
    ctx.log(f"{len(verdicts)} settings x {len(SEED_CLAIMS)} claims over {len(ctx.seeds)} seeds")
    ctx.write_metrics(sensitivity_metrics(table, p))
