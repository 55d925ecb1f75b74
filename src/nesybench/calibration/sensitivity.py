"""What the calibration claims depend on: the knobs, and the held-out facts in the eval half.

calibrate  variant      one knob level, one seed: the seed's chain (generate seed, train seed,
                        calibrate seed) re-run in memory with that level; its summary row
calibrate  sensitivity  every setting's per-seed verdicts: the "what the claim depends on"
                        table; and the claims conditional on how many held-out true facts the
                        evaluation half holds (the mechanism: they are the only points a
                        temperature can make better or worse), the chapter's case marked

The only badly calibrated points of this world are its held-out true facts (the model never
trained on them, and gives some of them p near 0).  A split stratified by label alone leaves
their number in the evaluation half to the draw: 0, 1, 2 or 3 (hypergeometric); the chapter's
half holds 2 of them.
"""

from __future__ import annotations

import pandas as pd

from ..errors import check_claim
from ..metric_keys import knob_segment
from ..metrics.stats import wilson_interval
from ..sensitivity import (
    DEFAULT,
    check_knob_reaches,
    knob_table,
    run_variant,
    sensitivity_metrics,
    sensitivity_table,
    variant_tokens,
)
from .claims import SEED_CLAIMS
from .world import load_world

__all__ = ["CONDITIONAL_CLAIMS", "conditional_table", "variant", "sensitivity"]

CHAIN = (("generate", "seed"), ("train", "seed"), ("calibrate", "seed"))
KEEP = ("calibrate", "summary")
# The claims about what temperature scaling does on the evaluation half.
CONDITIONAL_CLAIMS = ("ece_improves", "nll_improves", "brier_rises")


def variant(ctx) -> None:
    """One knob level, one seed: the per-seed chain re-run with that level, its summary kept."""
    tables = run_variant(ctx, CHAIN, [KEEP])
    ctx.write_table("variant_summary", tables[KEEP], key=["seed"])


def conditional_table(
    summaries: dict[str, pd.DataFrame], *, n_heldout: int, chapter: int
) -> pd.DataFrame:
    """Per setting, number of held-out true facts in the evaluation half (0..n_heldout) and
    claim: on how many of those seeds the claim holds, the rate and its Wilson interval."""
    rows = []
    for setting, summary in summaries.items():
        for k in range(n_heldout + 1):
            part = summary[summary["heldout_in_eval"] == k]
            for claim in CONDITIONAL_CLAIMS:
                holds, n = int(part[claim].astype(bool).sum()), len(part)
                lo, hi = wilson_interval(holds, n) if n else (float("nan"), float("nan"))
                rows.append(
                    {
                        "order": len(rows),
                        "setting": setting,
                        "heldout_in_eval": k,
                        "chapter_case": k == chapter,
                        "claim": claim,
                        "holds_on": holds,
                        "n_seeds": n,
                        "rate": holds / n if n else float("nan"),
                        "rate_lo": lo,
                        "rate_hi": hi,
                    }
                )
    return pd.DataFrame(rows)


def _check_conditionals_add_up(table: pd.DataFrame, summaries: dict) -> None:
    """The conditional rows partition the seeds: their counts add up to each setting's rate."""
    for (setting, claim), rows in table.groupby(["setting", "claim"], sort=True):
        total = summaries[setting]
        check_claim(
            int(rows["n_seeds"].sum()) == len(total)
            and int(rows["holds_on"].sum()) == int(total[claim].astype(bool).sum()),
            f"calibration sensitivity: the held-out splits of {setting} add up to its "
            f"{claim} count over {len(total)} seeds",
        )


def sensitivity(ctx) -> None:
    """Every claim at every measured knob level; the claims by held-out facts in eval."""
    p = ctx.params
    summaries = {
        DEFAULT: pd.concat(
            [ctx.read_table("summary", stage="calibrate", seed=s) for s in ctx.seeds],
            ignore_index=True,
        )
    }
    for token in variant_tokens(p):
        summaries[token] = pd.concat(
            [
                ctx.read_table("variant_summary", stage="calibrate", variant=token, seed=s)
                for s in ctx.seeds
            ],
            ignore_index=True,
        )
        check_knob_reaches(summaries[DEFAULT], summaries[token], token=token)
    table = sensitivity_table(summaries, SEED_CLAIMS, p)
    chapter = int(p["chapter"]["heldout_in_eval"])
    conditional = conditional_table(summaries, n_heldout=len(load_world().heldout), chapter=chapter)
    _check_conditionals_add_up(conditional, summaries)
    ctx.write_table("sensitivity", table, key=["order"])
    ctx.write_table("knobs", knob_table(p), key=["order"])
    ctx.write_table("conditional", conditional, key=["order"])
    ctx.log(f"{len(summaries)} settings x {len(SEED_CLAIMS)} claims over {len(ctx.seeds)} seeds")
    by_split = {
        f"conditional.{r['claim']}.{knob_segment('heldout_in_eval', str(r['heldout_in_eval']))}": {
            "claim_rate": r["rate"],
            "lo": r["rate_lo"],
            "hi": r["rate_hi"],
            "n_seeds": r["n_seeds"],
        }
        for r in conditional[conditional["setting"] == DEFAULT].to_dict("records")
    }
    ctx.write_metrics({**sensitivity_metrics(table, p), **by_split})
