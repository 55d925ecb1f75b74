"""The axes chapter's claims, each a named check (thresholds live in params.yaml).

Two kinds, as everywhere in nesybench:

* **structural** -- what must hold on every seed because of how the bank, the grid and the
  systems are built: exact 50/50 balance, the prover-backed pipeline exact on every question
  it parses, coverage lost exactly at the depths an unrepairable synonym hits, the prover
  tracking every flipped label, a tie mix giving equal aggregates, the depth-capped reasoner
  exact up to its cap and at chance beyond it, the seven gadgets' pinned numbers.  Each
  raises ``ClaimFailed`` in the job of the seed where it breaks, naming the seed and the
  numbers.
* **directional** -- what the chapter found on its one bank ("the soft reasoner falls to
  chance at depth 3", "distractors move the soft reasoner"): sampled banks and grids may
  disagree, so each is a column of the per-seed summary (:func:`seed_verdicts`, thresholds
  from ``axes.claims.<name>``), summarised over the sweep as a rate by
  :mod:`nesybench.sweep` and enforced only where ``axes.claims.<name>.enforce`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..errors import check_claim
from ..sweep import SeedClaim
from .gadgets import MODULES as GADGETS

_EPS = 1e-12

# Directional claims: name, statement, the summary metric it is about.
SEED_CLAIMS = (
    SeedClaim(
        "soft_deep_near_chance",
        "the soft reasoner's accuracy at the deepest depth is at most claims.max_accuracy",
        metric="soft_depth_deepest",
    ),
    SeedClaim(
        "soft_drops_with_depth",
        "the soft reasoner loses at least claims.min_drop from depth 0 to the deepest depth",
        metric="soft_depth_drop",
    ),
    SeedClaim(
        "repair_raises_coverage",
        "the repair lexicon raises the pipeline's coverage strictly, and not to 1",
        metric="coverage_repaired",
    ),
    SeedClaim(
        "soft_misses_flips",
        "the soft reasoner misses some of the flip probe's flipped labels",
        metric="flip_soft_accuracy_after",
    ),
    SeedClaim(
        "mixture_rankings_differ",
        "pure-depth banks rank the soft reasoner and the pipeline differently",
        metric="mixture_soft_first",
    ),
    SeedClaim(
        "mixture_tie_exists",
        "some two-depth mix ties the soft reasoner and the pipeline",
        metric="mixture_n_ties",
    ),
    SeedClaim(
        "grid_distractors_move_soft",
        "on the grid, the soft reasoner loses at least claims.min_drop from the fewest to the "
        "most distractors per hop (at the depths it was trained on)",
        metric="grid_soft_distractor_drop",
    ),
)


def seed_verdicts(summary: pd.DataFrame, claims: Mapping[str, Mapping]) -> pd.DataFrame:
    """``summary`` with one boolean column per directional claim, judged on its numbers with
    the thresholds of ``axes.claims``."""
    s = summary
    verdicts = {
        "soft_deep_near_chance": s["soft_depth_deepest"]
        <= claims["soft_deep_near_chance"]["max_accuracy"],
        "soft_drops_with_depth": s["soft_depth_drop"]
        >= claims["soft_drops_with_depth"]["min_drop"],
        "repair_raises_coverage": (s["coverage_strict"] < s["coverage_repaired"])
        & (s["coverage_repaired"] < 1.0),
        "soft_misses_flips": (s["flip_n"] > 0) & (s["flip_soft_accuracy_after"] < 1.0),
        "mixture_rankings_differ": (s["mixture_soft_first"] > 0)
        & (s["mixture_pipeline_first"] > 0),
        "mixture_tie_exists": s["mixture_n_ties"] > 0,
        "grid_distractors_move_soft": s["grid_soft_distractor_drop"]
        >= claims["grid_distractors_move_soft"]["min_drop"],
    }
    return s.assign(**{name: value.astype(bool) for name, value in verdicts.items()})


def statements(claims: Mapping[str, Mapping]) -> tuple[SeedClaim, ...]:
    """:data:`SEED_CLAIMS` with the thresholds of params.yaml spelled into each statement."""
    out = []
    for c in SEED_CLAIMS:
        text = c.statement
        for key in ("max_accuracy", "min_drop"):
            if key in claims.get(c.name, {}):
                text = text.replace(f"claims.{key}", f"{claims[c.name][key]:g}")
        out.append(SeedClaim(c.name, text, metric=c.metric))
    return tuple(out)


# --------------------------------------------------------------------------- the depth bank


def check_bank_balance(balance: pd.DataFrame, *, seed: int) -> None:
    """Every split and depth exactly 50/50 True/False, and 'not' carrying no label information."""
    for r in balance.itertuples():
        check_claim(
            r.n_true == r.n_false,
            f"seed {seed}, {r.split} depth {r.depth} must be exactly 50/50 True/False, got "
            f"{r.n_true}/{r.n_false}",
        )
        check_claim(
            r.true_rate_plain == 0.5 and r.true_rate_negated == 0.5,
            f"seed {seed}, {r.split} depth {r.depth}: 'not' must carry no label information, "
            f"got True rates {r.true_rate_plain} (plain) vs {r.true_rate_negated} (negated)",
        )


def check_depths_covered(eval_depths: set[int], max_depth: int, *, seed: int) -> None:
    """The evaluation bank has questions at every depth 0..max_depth (the per-depth tables need
    them)."""
    check_claim(
        eval_depths == set(range(max_depth + 1)),
        f"seed {seed}: the evaluation bank must cover every depth 0..{max_depth}, got "
        f"{sorted(eval_depths)}",
    )


def check_parsed_exact(pipeline: pd.DataFrame, *, seed: int) -> None:
    """Translate-then-prove answers every question it parses correctly (P(correct | parsed) = 1)."""
    wrong = pipeline[pipeline["parsed"] & ~pipeline["correct"]]
    check_claim(
        wrong.empty,
        f"seed {seed}: translate-then-prove must answer every parsed question correctly; "
        f"{len(wrong)} wrong, first qid {wrong['qid'].iloc[0] if len(wrong) else None}",
    )


def check_synonyms_hit_depths(
    per_depth: pd.DataFrame, synonym_depth: pd.DataFrame, *, seed: int
) -> None:
    """Coverage falls below 1 at exactly the depths an unrepairable synonym hits."""
    lossy = set(synonym_depth.loc[synonym_depth["n_unparsed"] > 0, "depth"])
    for r in per_depth.itertuples():
        check_claim(
            (r.coverage < 1.0) == (r.depth in lossy),
            f"seed {seed}, depth {r.depth}: coverage {r.coverage:.4f} must fall below 1 exactly "
            f"when an unrepairable synonym hits it (lossy depths {sorted(lossy)})",
        )


def check_prover_tracks_flips(flip: Mapping, *, seed: int) -> None:
    """The prover re-derives every flipped label from the edited theory."""
    check_claim(
        flip["prover_tracked_after"] == flip["n_flipped"],
        f"seed {seed}: the prover must track every flipped question, got "
        f"{flip['prover_tracked_after']}/{flip['n_flipped']}",
    )


def check_ties(ties: list[dict], a, b, *, seed: int) -> None:
    """At every tie mix ``pi`` over depths (i, j), the two aggregates are equal."""
    for t in ties:
        if t["pi"] is None:
            continue
        i, j = t["depths"]
        ta = t["pi"] * a[i] + (1 - t["pi"]) * a[j]
        tb = t["pi"] * b[i] + (1 - t["pi"]) * b[j]
        check_claim(
            abs(ta - tb) < 1e-12,
            f"seed {seed}: the tie over depths {i},{j} must give equal aggregates, got {ta} vs "
            f"{tb}",
        )


# --------------------------------------------------------------------------- the grid


def _cells(score: Mapping) -> list[dict]:
    return list(score["per_cell"])


def check_pipeline_exact(pipeline: Mapping, *, seed: int = 0) -> None:
    """Accuracy on answered questions is 1.0 in every cell that answered any; some answered."""
    answered = [c for c in _cells(pipeline) if c["answered"]]
    check_claim(
        bool(answered), f"seed {seed}: the pipeline must answer some grid questions, got none"
    )
    wrong = [c for c in answered if c["correct"] != c["answered"]]
    check_claim(
        not wrong,
        f"seed {seed}: the prover-backed pipeline must be exact on every question it parses; "
        f"{len(wrong)} cell(s) are not, first {wrong[0]['cell'] if wrong else None} with "
        f"{wrong[0]['correct'] if wrong else 0}/{wrong[0]['answered'] if wrong else 0} correct",
    )


def check_capped_at_chance(capped: Mapping, *, cap: int, seed: int = 0) -> None:
    """Every cell with depth <= cap: accuracy 1.0; every cell beyond: accuracy == chance."""
    beyond = [c for c in _cells(capped) if c["cell"]["depth"] > cap]
    within = [c for c in _cells(capped) if c["cell"]["depth"] <= cap]
    check_claim(bool(beyond), f"the grid must hold depths beyond the cap {cap} to test it")
    off = [c for c in beyond if c["chance"] is None or abs(c["accuracy"] - c["chance"]) > _EPS]
    check_claim(
        not off,
        f"seed {seed}: the depth-capped reasoner (cap {cap}) must score chance in every cell "
        f"beyond its cap; {len(off)} cell(s) do not, first {off[0]['cell'] if off else None}: "
        f"accuracy {off[0]['accuracy'] if off else None} vs chance "
        f"{off[0]['chance'] if off else None}",
    )
    missed = [c for c in within if c["accuracy"] != 1.0]
    check_claim(
        not missed,
        f"seed {seed}: the depth-capped reasoner (cap {cap}) must be exact up to its cap; "
        f"{len(missed)} cell(s) are not, first {missed[0]['cell'] if missed else None}",
    )


def check_prover_immune_to_distractors(pipeline: Mapping, *, seed: int = 0) -> None:
    """The pipeline answers at every distractor level, and exactly (accuracy on answered 1.0)."""
    for level, stats in pipeline["per_axis"]["distractors"].items():
        check_claim(
            stats["answered"] > 0 and stats["accuracy_answered"] == 1.0,
            f"seed {seed}: distractors must not move the prover: the pipeline's accuracy on "
            f"answered questions must be 1.0 at {level} distractors per hop, got "
            f"{stats['accuracy_answered']} on {stats['answered']} answered",
        )


def check_grid(scores: Mapping[str, Mapping], axes_params: Mapping, *, seed: int) -> None:
    """The grid's structural claims on one seed's scores of the three systems."""
    check_pipeline_exact(scores["pipeline"], seed=seed)
    check_capped_at_chance(scores["depth_capped"], cap=axes_params["grid"]["depth_cap"], seed=seed)
    check_prover_immune_to_distractors(scores["pipeline"], seed=seed)


# --------------------------------------------------------------------------- the gadgets


def check_gadgets(results: Mapping[str, object]) -> None:
    """Each gadget's pinned control and its failure (the gadget modules' own ``check``)."""
    for name, result in results.items():
        GADGETS[name].check(result)
