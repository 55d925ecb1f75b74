"""The axes instrument's tables, built from the library's results (the stages only write them).

Per seed (the depth bank): :func:`depth_mix`, :func:`per_depth_table`,
:func:`synonym_depth_table`, :func:`mixture_tables`, :func:`bank_numbers`; with the grid's
numbers (:func:`nesybench.axes.benchmark.grid_numbers`) they make the seed's one-row
:func:`seed_summary`, whose columns :data:`SEED_METRICS` lists.

Once (no seed decides them): :func:`design_frame`, the seven gadgets (:func:`run_gadgets`,
:func:`gadget_table`, :func:`gadget_metrics`).

Over the sweep: :func:`over_seeds` (mean, sd, a bootstrap interval of the mean over seeds,
min, max of any per-seed table's value column, per group), used for the per-depth profile,
the grid's degradation profiles, the depth x distractors table and the regression
coefficients (:func:`coefficients_over_seeds`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..sweep import Metric, seed_statistics
from . import design as design_mod
from . import mixture as mixture_mod
from .bank import LAYERS, MAX_LAYER
from .grid import AXES
from .lexical import REPAIRABLE, SYNONYMS

SYSTEM_NAMES = {
    "soft_reasoner": "soft reasoner",
    "pipeline": "parse-then-prove",
    "depth_capped": "depth-capped",
}


# --------------------------------------------------------------------------- the depth bank


def depth_mix(questions: pd.DataFrame) -> pd.DataFrame:
    """Per split and depth: ``n`` questions and the realized mix ``pi = n / N``."""
    rows = []
    for split, g in questions.groupby("split", sort=True):
        counts = g.groupby("depth").size()
        pi = mixture_mod.mixture_weights(counts.to_numpy())
        rows += [
            {"split": split, "depth": int(d), "n": int(n), "pi": float(w)}
            for (d, n), w in zip(counts.items(), pi)
        ]
    return pd.DataFrame(rows)


def per_depth_table(
    questions: pd.DataFrame, pipeline: pd.DataFrame, soft_correct: np.ndarray
) -> pd.DataFrame:
    """The per-depth factorization (coverage x accuracy on parsed) beside the soft reasoner."""
    df = questions[["qid", "depth"]].copy()
    df = df.merge(
        pipeline[["qid", "parsed_strict", "parsed", "correct"]], on="qid", validate="one_to_one"
    )
    df["soft_correct"] = soft_correct
    rows = []
    for depth, g in df.groupby("depth", sort=True):
        parsed = g[g["parsed"]]
        rows.append(
            {
                "depth": int(depth),
                "n": len(g),
                "coverage_strict": float(g["parsed_strict"].mean()),
                "coverage": float(g["parsed"].mean()),
                "acc_on_parsed": float(parsed["correct"].mean()) if len(parsed) else float("nan"),
                "overall": float(g["correct"].mean()),
                "soft_reasoner": float(g["soft_correct"].mean()),
            }
        )
    return pd.DataFrame(rows)


def synonym_depth_table(questions: pd.DataFrame, pipeline: pd.DataFrame) -> pd.DataFrame:
    """Which synonym hits which depth: rewrites, unparsed questions, coverage lost at its depth."""
    df = questions.merge(pipeline[["qid", "parsed"]], on="qid", validate="one_to_one")
    rows = []
    for pred in sorted(SYNONYMS):
        g = df[df["pred"] == pred]
        rows.append(
            {
                "synonym": SYNONYMS[pred],
                "predicate": pred,
                "depth": LAYERS[pred],
                "repairable": pred in REPAIRABLE,
                "n_questions": len(g),
                "n_rewritten": int(g["rewritten"].sum()),
                "n_unparsed": int((~g["parsed"]).sum()),
                "coverage_loss_at_depth": float(
                    (~g["parsed"]).sum() / (df["depth"] == LAYERS[pred]).sum()
                ),
            }
        )
    return pd.DataFrame(rows)


def mixture_tables(per_depth: pd.DataFrame) -> tuple[pd.DataFrame, dict, list[dict]]:
    """The mixture confound on one bank: two-depth ties and pure-depth winners.

    Returns ``(table, numbers, ties)``: the table (``kind`` tie or pure), the numbers of the
    seed's summary, and the raw ties (for the structural check).
    """
    a = per_depth["soft_reasoner"].to_numpy()
    b = per_depth["overall"].to_numpy()
    report = mixture_mod.mixture_report(a, b, per_depth["n"].to_numpy())
    first_names = {"a": "soft_reasoner", "b": "pipeline", "tie": "tie"}
    rows = [
        {
            "kind": "tie",
            "depth_i": t["depths"][0],
            "depth_j": t["depths"][1],
            "pi": t["pi"],
            "accuracy": t["accuracy"],
            "first": "",
        }
        for t in report["ties"]
    ]
    rows += [
        {
            "kind": "pure",
            "depth_i": r["depth"],
            "depth_j": r["depth"],
            "pi": 1.0,
            "accuracy": float("nan"),
            "first": first_names[r["first"]],
        }
        for r in report["pure_depth"]
    ]
    table = pd.DataFrame(rows)
    firsts = [first_names[r["first"]] for r in report["pure_depth"]]
    first_tie = next((t for t in report["ties"] if t["depths"] == [0, 1]), None)
    numbers = {
        "mixture_aggregate_soft": report["aggregate_a"],
        "mixture_aggregate_pipeline": report["aggregate_b"],
        "mixture_n_ties": sum(t["pi"] is not None for t in report["ties"]),
        "mixture_soft_first": firsts.count("soft_reasoner"),
        "mixture_pipeline_first": firsts.count("pipeline"),
        "mixture_tie_01_pi0": (
            float("nan") if first_tie is None or first_tie["pi"] is None else first_tie["pi"]
        ),
    }
    return table, numbers, report["ties"]


def bank_numbers(
    per_depth: pd.DataFrame, pipeline: pd.DataFrame, flip: Mapping, mixture: Mapping
) -> dict[str, float]:
    """The depth bank's numbers of one seed (columns of :func:`seed_summary`)."""
    soft = dict(zip(per_depth["depth"], per_depth["soft_reasoner"]))
    overall = dict(zip(per_depth["depth"], per_depth["overall"]))
    deepest = int(per_depth["depth"].max())
    parsed = pipeline[pipeline["parsed"]]
    out: dict[str, float] = {f"soft_depth_{d}": float(v) for d, v in soft.items()}
    out |= {f"pipeline_depth_{d}": float(v) for d, v in overall.items()}
    out |= {
        "soft_depth_deepest": float(soft[deepest]),
        "soft_depth_drop": float(soft[0] - soft[deepest]),
        "coverage_strict": float(pipeline["parsed_strict"].mean()),
        "coverage_repaired": float(pipeline["parsed"].mean()),
        "accuracy_on_parsed": float(parsed["correct"].mean()) if len(parsed) else float("nan"),
        "flip_n": int(flip["n_flipped"]),
        "flip_soft_accuracy_before": float(flip["soft_accuracy_before"]),
        "flip_soft_accuracy_after": float(flip["soft_accuracy_after"]),
        "flip_prover_accuracy_after": float(flip["prover_accuracy_after"]),
    }
    return out | dict(mixture)


def _seed_metrics() -> tuple[Metric, ...]:
    depths = range(MAX_LAYER + 1)
    metrics = [Metric(f"soft_depth_{d}", f"soft reasoner, bank depth {d}") for d in depths]
    metrics += [
        Metric(f"pipeline_depth_{d}", f"parse-then-prove (overall = coverage), bank depth {d}")
        for d in depths
    ]
    metrics += [
        Metric("soft_depth_deepest", f"soft reasoner at the deepest bank depth ({MAX_LAYER})"),
        Metric("soft_depth_drop", "soft reasoner: depth 0 minus the deepest depth"),
        Metric("coverage_strict", "pipeline coverage, strict grammar"),
        Metric("coverage_repaired", "pipeline coverage after the repair lexicon"),
        Metric("accuracy_on_parsed", "pipeline accuracy on parsed questions"),
        Metric("flip_n", "flip probe: questions whose gold label flips (count per seed)"),
        Metric("flip_soft_accuracy_before", "flip probe: soft reasoner before the edit"),
        Metric("flip_soft_accuracy_after", "flip probe: soft reasoner tracks the flip"),
        Metric("flip_prover_accuracy_after", "flip probe: prover tracks the flip"),
        Metric("mixture_aggregate_soft", "aggregate on the bank's mix, soft reasoner"),
        Metric("mixture_aggregate_pipeline", "aggregate on the bank's mix, parse-then-prove"),
        Metric("mixture_n_ties", "two-depth mixes that tie the two systems (count per seed)"),
        Metric(
            "mixture_soft_first",
            "pure-depth banks that rank the soft reasoner first (count per seed)",
        ),
        Metric(
            "mixture_pipeline_first",
            "pure-depth banks that rank the pipeline first (count per seed)",
        ),
        Metric("mixture_tie_01_pi0", "weight of depth 0 in the depth-0/1 tie"),
    ]
    for system, name in SYSTEM_NAMES.items():
        metrics += [
            Metric(f"grid_{system}_accuracy", f"grid: {name}, accuracy"),
            Metric(f"grid_{system}_coverage", f"grid: {name}, coverage"),
        ]
    metrics += [
        Metric("grid_capped_beyond_cap", "grid: depth-capped, accuracy beyond its cap"),
        Metric(
            "grid_chance_beyond_cap",
            "grid: chance beyond the cap, question-weighted mean of 1 / labels per cell "
            "(1/2 True/False, 1/3 with Unknown)",
        ),
        Metric("grid_soft_clean", "grid: soft reasoner, fewest distractors (trained depths)"),
        Metric("grid_soft_busy", "grid: soft reasoner, most distractors (trained depths)"),
        Metric("grid_soft_distractor_drop", "grid: soft reasoner, fewest minus most distractors"),
    ]
    return tuple(metrics)


#: every per-seed number the sweep summarises, in report order
SEED_METRICS = _seed_metrics()


def seed_summary(seed: int, *numbers: Mapping[str, float]) -> pd.DataFrame:
    """One seed's row: ``seed`` and every number of :data:`SEED_METRICS`."""
    row: dict = {"seed": int(seed)}
    for part in numbers:
        row |= dict(part)
    missing = [m.name for m in SEED_METRICS if m.name not in row]
    if missing:
        raise KeyError(f"seed summary is missing {missing}")
    return pd.DataFrame([{"seed": row["seed"], **{m.name: row[m.name] for m in SEED_METRICS}}])


# --------------------------------------------------------------------------- once


def design_frame(design: Mapping) -> pd.DataFrame:
    """The factorial-design arithmetic of ``axes.design``."""
    d = design
    return pd.DataFrame(
        design_mod.design_table(
            axes=d["axes"], levels=d["levels"], half_width=d["half_width"], p=d["p"], z=d["z"]
        )
    )


def design_metrics(design: pd.DataFrame) -> dict[str, int]:
    """The design table's four numbers as metrics."""
    value = dict(zip(design["quantity"], design["value"]))
    return {
        "ofat_cells": int(value["one-factor-at-a-time cells"]),
        "factorial_cells": int(value["full factorial cells"]),
        "questions_per_cell": int(value["questions per cell"]),
        "questions_total": int(value["questions for the full grid"]),
    }


def run_gadgets(gadgets: Mapping, *, seeds: Sequence[int]) -> dict:
    """The seven gadgets; the semantics gadget (a seeded draw of candidate additions) once per
    seed of the sweep, the six unseeded ones once."""
    from .gadgets import proof_width, query_joins, scale, semantics, soundness, termination, trust

    g = gadgets
    return {
        "soundness": soundness.run(),
        "termination": termination.run(tuple(g["chase_budgets"])),
        "proof_width": proof_width.run(g["ladder_rungs"]),
        "query_joins": query_joins.run(range(g["cycle_k_min"], g["cycle_k_max"] + 1)),
        "semantics": [semantics.run(g["semantics_candidates"], seed=s) for s in seeds],
        "trust": trust.run(),
        "scale": scale.run(tuple(g["scale_chains"])),
    }


def gadget_table(results: Mapping) -> pd.DataFrame:
    """One row per gadget: what it turns, its pinned control, what it measures."""
    s, t, w, q = (results[k] for k in ("soundness", "termination", "proof_width", "query_joins"))
    sem, tr, sc = results["semantics"], results["trust"], results["scale"]
    by_extractor = {r.extractor: r for r in tr}
    monotone = sorted({f"{r.n_monotone}/{r.n_candidates}" for r in sem})
    rows = [
        (
            "soundness",
            "over-generalising subsumption predictor on a TBox",
            f"recall {s.recall:.3f}",
            f"precision {s.true_positives}/{s.n_pred} = {s.precision:.3f}, "
            f"{len(s.fabricated)} fabricated pairs",
            s.precision,
        ),
        (
            "termination",
            "one existential advisor-regress rule under the chase",
            f"control saturates at {t['control'][0].atoms} atoms after "
            f"{t['control'][0].firings} firings",
            "sizes " + " -> ".join(str(r.atoms) for r in t["regress"]) + ", never saturated",
            float(t["regress"][-1].atoms),
        ),
        (
            "proof width",
            f"Horn ladder vs disjunctive twin, k = {w.k}",
            f"depth per branch {w.horn_depth} in both",
            f"leaves {w.horn_leaves} vs {w.disjunctive_leaves:,}",
            float(w.disjunctive_leaves),
        ),
        (
            "query joins",
            "variables of a Boolean cycle query",
            "same 6-edge graph, same 'yes' answer",
            f"probes {q[0].probes} -> {q[-1].probes:,}",
            float(q[-1].probes),
        ),
        (
            "semantics",
            "one negation-as-failure rule",
            f"Horn core monotone under {' / '.join(monotone)} additions on each of "
            f"{len(sem)} seeds",
            f"adding {sem[0].added} retracts independent(alice)",
            float(len(sem[0].independent_after)),
        ),
        (
            "trust",
            "swapped concept extractor",
            f"task accuracy {by_extractor['faithful'].task_accuracy:.1f} for both",
            f"concept accuracy {by_extractor['faithful'].concept_accuracy:.1f} vs "
            f"{by_extractor['swapped'].concept_accuracy:.1f}",
            by_extractor["swapped"].concept_accuracy,
        ),
        (
            "scale",
            "chain length, naive vs semi-naive",
            "same closure, same waves",
            "probe ratio " + " -> ".join(f"{r.ratio:.1f}x" for r in sc),
            sc[-1].ratio,
        ),
    ]
    return pd.DataFrame(
        [
            {"number": i, "axis": a, "turns": tu, "pinned": p, "measured": m, "value": v}
            for i, (a, tu, p, m, v) in enumerate(rows, start=1)
        ]
    )


def gadget_metrics(results: Mapping) -> dict:
    """The gadgets' numbers as nested metrics (exact: no seed moves them)."""
    s, t, w, q = (results[k] for k in ("soundness", "termination", "proof_width", "query_joins"))
    sem, tr, sc = results["semantics"], results["trust"], results["scale"]
    return {
        "soundness": {
            "recall": s.recall,
            "precision": s.precision,
            "n_truth": s.n_truth,
            "n_pred": s.n_pred,
            "n_fabricated": len(s.fabricated),
        },
        "termination": {
            **{f"regress_atoms_budget_{r.budget}": r.atoms for r in t["regress"]},
            **{f"control_atoms_budget_{r.budget}": r.atoms for r in t["control"]},
            "control_firings": t["control"][0].firings,
        },
        "proof_width": {
            "k": w.k,
            "horn_leaves": w.horn_leaves,
            "disjunctive_leaves": w.disjunctive_leaves,
            "depth": w.horn_depth,
        },
        "query_joins": {f"k{r.k}": {"probes": r.probes, "witnesses": r.witnesses} for r in q},
        "semantics": {
            "monotone_min": min(r.n_monotone for r in sem),
            "candidates": sem[0].n_candidates,
            "seeds": len(sem),
            "independent_before": ",".join(sem[0].independent_before),
            "independent_after": ",".join(sem[0].independent_after),
        },
        "trust": {
            r.extractor: {"task_accuracy": r.task_accuracy, "concept_accuracy": r.concept_accuracy}
            for r in tr
        },
        "scale": {
            f"m{r.m}": {
                "closure": r.closure,
                "waves": r.waves_semi,
                "probes_naive": r.probes_naive,
                "probes_semi": r.probes_semi,
                "ratio": r.ratio,
            }
            for r in sc
        },
    }


def query_table(results: Mapping) -> pd.DataFrame:
    """Gadget 4: probes and witnesses per cycle length, with the successive probe ratio."""
    df = pd.DataFrame([{"k": r.k, "probes": r.probes, "witnesses": r.witnesses} for r in results])
    df["ratio"] = df["probes"] / df["probes"].shift(1)
    return df


def scale_table(results: Mapping) -> pd.DataFrame:
    """Gadget 7: closure size, waves and the naive / semi-naive probes per chain length."""
    return pd.DataFrame(
        [
            {
                "m": r.m,
                "closure": r.closure,
                "waves": r.waves_semi,
                "naive": r.probes_naive,
                "semi": r.probes_semi,
                "ratio": r.ratio,
            }
            for r in results
        ]
    )


# --------------------------------------------------------------------------- over seeds


def over_seeds(frames: Mapping[int, pd.DataFrame], by: Sequence[str], value: str) -> pd.DataFrame:
    """Per group ``by``: the mean of ``value`` over seeds, its sd, a 95% percentile-bootstrap
    interval of the mean (seeds resampled, the same resamples for every group of the table, so
    two groups with equal per-seed values get equal intervals), min, max and the number of
    seeds with a finite value.

    ``frames`` maps each seed to its per-seed table (one row per group).
    """
    stacked = pd.concat(
        [f[[*by, value]].assign(seed=s) for s, f in sorted(frames.items())], ignore_index=True
    )
    rows = []
    for key, g in stacked.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        values = pd.to_numeric(g[value], errors="coerce").to_numpy(dtype=float)
        stats = seed_statistics(values, name=f"axes/{value}")
        rows.append({**dict(zip(by, key)), **stats})
    return pd.DataFrame(rows)


def coefficients_over_seeds(frames: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """The regression coefficient of each (system, term) over seeds (:func:`over_seeds`)."""
    return over_seeds(frames, ["system", "axis", "level"], "coef")


def per_depth_plot(per_depth: pd.DataFrame) -> pd.DataFrame:
    """Plot data: per bank depth, the mean over seeds of each system's accuracy and coverage."""
    shown = per_depth[per_depth["measure"] != "n"]
    wide = shown.pivot(index="depth", columns="measure", values="mean").reset_index()
    columns = ["soft_reasoner", "overall", "coverage_strict", "coverage", "acc_on_parsed"]
    return wide[["depth", *columns]]


def profile_wide(profile: pd.DataFrame, *, names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The profiles over seeds as one row per (axis, level) and one mean-accuracy column per
    system, axes and levels in declared order (``names`` renames the systems)."""
    seen = [a for a in dict.fromkeys(profile["axis"]) if a not in AXES]
    rank = {axis: i for i, axis in enumerate([*AXES, *seen])}
    wide = profile.pivot(index=["axis", "order", "level"], columns="system", values="mean")
    wide = wide.reset_index().sort_values(
        ["axis", "order"], key=lambda c: c.map(rank) if c.name == "axis" else c
    )
    systems = [s for s in SYSTEM_NAMES if s in wide.columns]
    out = wide[["axis", "level", *systems]].reset_index(drop=True)
    return out.rename(columns=dict(names)) if names else out


def profile_plot(profile: pd.DataFrame) -> pd.DataFrame:
    """Plot data: per system, axis and level, the mean accuracy over seeds and its interval."""
    return profile[["system", "axis", "order", "level", "mean", "lo", "hi"]].rename(
        columns={"mean": "accuracy"}
    )
