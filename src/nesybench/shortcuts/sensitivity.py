"""What the head-to-head's claims depend on: its knobs, one at a time (nesybench.sensitivity).

calibrate  variant      one knob level, one block of seeds: the concept-net blocks of the
                        default run (train, score, calibrate concepts) re-run in memory with
                        that level, on the head-to-head's and the OOD batch's datasets
calibrate  sensitivity  every setting's per-seed verdicts of the head-to-head claims and of
                        the concept-head temperature claim: the "what the claim depends on"
                        table; the kind of optimum every label-only run lands on, at every
                        training setting and label-perfect threshold

A label-perfect threshold (``models.min_acc_y``) needs no retraining: the aggregate rescores
the default runs (:func:`.incidence.rescore_runs`).  Every other knob level reruns the
blocks' own stage functions (:func:`nesybench.sensitivity.run_in_memory`), so a variant is
computed by the code of the default run and differs from it in that one value only.
"""

from __future__ import annotations

import pandas as pd

from ..errors import check_claim
from ..logic.knowledge import all_states, state_str
from ..metric_keys import variant_segment
from ..metrics.stats import wilson_interval
from ..sensitivity import (
    DEFAULT,
    apply_variant,
    check_knob_reaches,
    knob_table,
    knobs,
    run_variant,
    sensitivity_metrics,
    sensitivity_table,
    variant_token,
    variant_tokens,
)
from ..sweep import SeedClaim
from .artifacts import RESCORED
from .blocks import gather
from .claims import CALIBRATION_CLAIMS, H2H_CLAIMS
from .incidence import OPTIMUM_KINDS, optimum_kind, rescore_runs
from .summaries import concept_calibration_summary, h2h_summary
from .tasks import generated_tasks

__all__ = ["CLAIMS", "variant", "sensitivity"]

THRESHOLD = "models.min_acc_y"
CONCEPT_CLAIM = next(c for c in CALIBRATION_CLAIMS if c.name == "concept_temperature_lowers_ece")
CLAIMS: tuple[SeedClaim, ...] = (*H2H_CLAIMS, CONCEPT_CLAIM)

# The default run's block jobs a variant re-runs, and what it keeps of them (under its names).
CHAIN = (("train", "concepts"), ("score", "concepts"), ("calibrate", "concepts"))
KEEP = {
    ("score", "concept_runs"): ("variant_runs", ["task", "support_frac", "seed", "model"]),
    ("score", "concept_panels"): ("variant_panels", ["seed", "model"]),
    ("calibrate", "concept_calibration"): ("variant_calibration", ["seed", "model", "method"]),
}


def variant_section(section: dict, token: str) -> dict:
    """The section with the knob level of ``token``, its incidence cells cut to the
    head-to-head's dataset (the claims read the head-to-head and the OOD batch only)."""
    out = apply_variant(section, token)
    m = out["models"]
    out["incidence"] = {"tasks": [m["task"]], "support_fracs": [float(m["support_frac"])]}
    return out


def variant(ctx) -> None:
    """One knob level, one block: the head-to-head and OOD nets retrained with that level."""
    section = variant_section(ctx.section, ctx.wildcards["variant"])
    tables = run_variant(ctx, CHAIN, list(KEEP), section=section)
    for source, (name, key) in KEEP.items():
        ctx.write_table(name, tables[source], key=key)


def _settings(ctx) -> dict[str, dict[str, pd.DataFrame]]:
    """Every training setting's runs, panels and concept-head calibration over the seeds."""
    m = ctx.params["models"]
    h2h = (m["task"], float(m["support_frac"]))
    ood = (m["task"], float(m["ood_support_frac"]))
    runs = gather(ctx, "concept_runs", "score")
    keep = [(t, f) in (h2h, ood) for t, f in zip(runs["task"], runs["support_frac"])]
    out = {
        DEFAULT: {
            "runs": runs[keep].reset_index(drop=True),
            "panels": gather(ctx, "concept_panels", "score"),
            "calibration": gather(ctx, "concept_calibration", "calibrate"),
        }
    }
    for token in variant_tokens(ctx.params, rescored=RESCORED):
        out[token] = {
            key: gather(ctx, f"variant_{key}", "calibrate", variant=token)
            for key in ("runs", "panels", "calibration")
        }
    return out


def _thresholds(section: dict) -> list[float]:
    """The default label-perfect threshold and every measured level of it."""
    knob = next((k for k in knobs(section) if k.path == THRESHOLD), None)
    return [
        float(section["models"]["min_acc_y"]),
        *(float(v) for v in (knob.levels if knob else ())),
    ]


def _verdicts(tables: dict, section: dict, threshold: float) -> pd.DataFrame:
    """One row per seed: the head-to-head summary at ``threshold`` and the concept claim."""
    models = {**section["models"], "min_acc_y": threshold}
    runs = rescore_runs(tables["runs"], min_acc_y=threshold)
    h2h = h2h_summary(
        tables["panels"], runs, models=models, thresholds=section["claims"]["thresholds"]
    )
    cal = concept_calibration_summary(tables["calibration"])
    return h2h.merge(cal, on="seed", how="inner", validate="one_to_one")


def _state_labels(ctx) -> dict[str, int]:
    """K(g) of every state of the head-to-head task, from its certified formula."""
    knowledge = generated_tasks(ctx)[ctx.params["models"]["task"]].knowledge
    states = all_states(knowledge.k)
    return {state_str(s): int(y) for s, y in zip(states, knowledge.labels(states))}


def _kinds(settings: dict, section: dict, thresholds: list[float], labels: dict[str, int]):
    """The kind of optimum of every label-only head-to-head run, per setting and threshold:
    per seed, and counted (with the collapse rate and its Wilson interval)."""
    m = section["models"]
    per_seed, counts = [], []
    for setting, tables in settings.items():
        runs = tables["runs"]
        runs = runs[
            (runs["task"] == m["task"])
            & (runs["support_frac"] == float(m["support_frac"]))
            & (runs["model"] == "label_only")
        ]
        for t in thresholds:
            scored = rescore_runs(runs, min_acc_y=t).sort_values("seed")
            kinds = [
                optimum_kind(a, label_perfect=bool(lp), labels=labels)
                for a, lp in zip(scored["alpha"], scored["label_perfect"])
            ]
            for row, kind in zip(scored.itertuples(index=False), kinds):
                per_seed.append(
                    {
                        "setting": setting,
                        "min_acc_y": t,
                        "seed": int(row.seed),
                        "kind": kind,
                        "alpha": row.alpha,
                        "acc_y_test": float(row.acc_y_test),
                    }
                )
            n, k = len(kinds), int(scored["collapse"].sum())
            lo, hi = wilson_interval(k, n)
            counts.append(
                {
                    "order": len(counts),
                    "setting": setting,
                    "min_acc_y": t,
                    "n_seeds": n,
                    **{kind: kinds.count(kind) for kind in OPTIMUM_KINDS},
                    "n_collapse": k,
                    "collapse_rate": k / n,
                    "rate_lo": lo,
                    "rate_hi": hi,
                }
            )
    return pd.DataFrame(per_seed), pd.DataFrame(counts)


def _check_default_is_the_run(ctx, verdicts: pd.DataFrame) -> None:
    """The default setting's verdicts are the default run's (h2h and calibration aggregates)."""
    main = ctx.read_table("h2h_summaries", stage="score").set_index("seed")
    cal = ctx.read_table("calibration_summaries", stage="calibrate").set_index("seed")
    ours = verdicts.set_index("seed")
    for c in CLAIMS:
        theirs = cal if c.name == CONCEPT_CLAIM.name else main
        check_claim(
            ours[c.name].astype(bool).equals(theirs.loc[ours.index, c.name].astype(bool)),
            f"shortcuts sensitivity: the default setting's '{c.name}' verdicts equal the "
            "default run's, seed by seed",
        )


def sensitivity(ctx) -> None:
    """The head-to-head's claims at every measured knob level; the kinds of optimum."""
    p = ctx.params
    settings = _settings(ctx)
    thresholds = _thresholds(p)
    verdicts = {DEFAULT: _verdicts(settings[DEFAULT], p, thresholds[0])}
    _check_default_is_the_run(ctx, verdicts[DEFAULT])
    for token, tables in settings.items():
        if token == DEFAULT:
            continue
        check_knob_reaches(settings[DEFAULT]["panels"], tables["panels"], token=token)
        verdicts[token] = _verdicts(tables, p, thresholds[0])
    for t in thresholds[1:]:
        verdicts[variant_token(THRESHOLD, t)] = _verdicts(settings[DEFAULT], p, t)
    table = sensitivity_table(verdicts, CLAIMS, p)
    per_seed, counts = _kinds(settings, p, thresholds, _state_labels(ctx))
    ctx.write_table("sensitivity", table, key=["order"])
    ctx.write_table("knobs", knob_table(p), key=["order"])
    ctx.write_table("optimum_kinds", counts, key=["order"])
    ctx.write_table("optimum_seeds", per_seed, key=["setting", "min_acc_y", "seed"])
    ctx.log(
        f"{len(verdicts)} settings x {len(CLAIMS)} claims over {len(ctx.seeds)} seeds; "
        f"label-only collapses: "
        + ", ".join(
            f"{r.setting}@{r.min_acc_y:g} {r.n_collapse}/{r.n_seeds}"
            for r in counts.itertuples(index=False)
        )
    )
    ctx.write_metrics(
        {
            **sensitivity_metrics(table, p),
            "optima": {
                variant_segment(r["setting"])
                + "."
                + variant_segment(variant_token(THRESHOLD, r["min_acc_y"])): {
                    **{kind: r[kind] for kind in OPTIMUM_KINDS},
                    "collapse_rate": r["collapse_rate"],
                }
                for r in counts.to_dict("records")
            },
        }
    )
