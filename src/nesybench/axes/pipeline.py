"""Stage functions of the axes instrument (generate, count, train, score).

generate  RuleTaker-lite depth bank (train/eval theories, balanced questions), lexical rewrites
count     realized depth mix pi_d of the evaluation bank; design arithmetic
train     soft reasoner (logistic regression on local features), depths <= train_max_depth only
score     per-depth factorization (soft reasoner vs translate-then-prove), synonym x depth,
          flip probe, mixture ties, the seven gadgets
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UserError, check_claim
from ..stages import StageContext
from . import design as design_mod
from . import mixture as mixture_mod
from .bank import LAYERS, BankConfig, balance_table, build_bank, theories_from_table
from .flip import flip_probe, flip_summary
from .gadgets import MODULES as GADGETS
from .lexical import REPAIRABLE, SYNONYMS, apply_synonyms, repair_lexicon, run_pipeline
from .soft_reasoner import SoftReasoner, accuracy_by_depth, feature_matrix


def check_params(params: dict) -> None:
    """Cross-key constraints the JSON schema cannot state; every stage checks them first."""
    g = params["gadgets"]
    for key in ("chase_budgets", "scale_chains"):
        if list(g[key]) != sorted(g[key]):
            raise UserError(f"params.yaml: axes.gadgets.{key} must be increasing, got {g[key]}")
    if g["cycle_k_max"] < g["cycle_k_min"] + 2:
        raise UserError(
            f"params.yaml: axes.gadgets.cycle_k_max must be >= cycle_k_min + 2 "
            f"(three queries give two probe ratios), got {g['cycle_k_min']}..{g['cycle_k_max']}"
        )


def _bank_config(params: dict) -> BankConfig:
    return BankConfig(**params["bank"])


# --------------------------------------------------------------------------- generate


def generate(ctx: StageContext) -> None:
    p = ctx.params
    check_params(p)
    ctx.log("sampling theories, labelling with the forward chainer, re-deriving with the prover")
    bank, questions, _ = build_bank(_bank_config(p), seed=p["seed"])
    questions = apply_synonyms(questions, prob=p["lexical"]["synonym_prob"], seed=p["seed"])
    balance = balance_table(questions)
    for r in balance.itertuples():
        check_claim(
            r.n_true == r.n_false,
            f"{r.split} depth {r.depth}: must be exactly 50/50 True/False, got "
            f"{r.n_true}/{r.n_false}",
        )
        check_claim(
            r.true_rate_plain == 0.5 and r.true_rate_negated == 0.5,
            f"{r.split} depth {r.depth}: 'not' must carry no label information, got True rates "
            f"{r.true_rate_plain} (plain) vs {r.true_rate_negated} (negated)",
        )
    eval_depths = set(questions.loc[questions["split"] == "eval", "depth"])
    check_claim(
        eval_depths == set(range(max(LAYERS.values()) + 1)),
        f"the evaluation bank must cover every depth 0..{max(LAYERS.values())}, got "
        f"{sorted(eval_depths)}",
    )
    ctx.write_table("bank", bank, key=["split", "theory", "item"])
    ctx.write_table("questions", questions, key=["split", "qid"])
    ctx.print_table(
        "[axes] question balance per split and depth (asserted exactly 50/50; 'not' uninformative)",
        balance,
    )
    ctx.write_metrics(
        {
            "n_theories": {
                "train": p["bank"]["n_train_theories"],
                "eval": p["bank"]["n_eval_theories"],
            },
            "n_questions": {s: int((questions["split"] == s).sum()) for s in ("train", "eval")},
            "n_rewritten_eval": int(questions.loc[questions["split"] == "eval", "rewritten"].sum()),
        }
    )


# --------------------------------------------------------------------------- count


def count(ctx: StageContext) -> None:
    p = ctx.params
    check_params(p)
    questions = ctx.read_table("questions", stage="generate")
    rows = []
    for split, g in questions.groupby("split", sort=True):
        counts = g.groupby("depth").size()
        pi = mixture_mod.mixture_weights(counts.to_numpy())
        rows += [
            {"split": split, "depth": int(d), "n": int(n), "pi": float(w)}
            for (d, n), w in zip(counts.items(), pi)
        ]
    mix = pd.DataFrame(rows)
    d = p["design"]
    table = pd.DataFrame(
        design_mod.design_table(
            axes=d["axes"], levels=d["levels"], half_width=d["half_width"], p=d["p"], z=d["z"]
        )
    )
    ctx.write_table("depth_mix", mix, key=["split", "depth"])
    ctx.write_table("design", table, key=["quantity"])
    ctx.print_table("[axes] realized depth mix pi_d = n_d / N", mix)
    ctx.print_table("[axes] design arithmetic (computed)", table)
    ev = mix[mix["split"] == "eval"]
    ctx.write_metrics(
        {
            "eval_n": {f"depth_{int(r.depth)}": int(r.n) for r in ev.itertuples()},
            "eval_pi": {f"depth_{int(r.depth)}": float(r.pi) for r in ev.itertuples()},
            "design": {
                "ofat_cells": design_mod.ofat_cells(axes=d["axes"], levels=d["levels"]),
                "factorial_cells": design_mod.factorial_cells(axes=d["axes"], levels=d["levels"]),
                "questions_per_cell": design_mod.questions_per_cell(
                    half_width=d["half_width"], p=d["p"], z=d["z"]
                ),
                "questions_total": int(
                    table.loc[table["quantity"] == "questions for the full grid", "value"].iloc[0]
                ),
            },
        }
    )


# --------------------------------------------------------------------------- train


def _generated_bank(ctx: StageContext):
    """The generate stage's questions and the theories rebuilt from its bank table."""
    questions = ctx.read_table("questions", stage="generate")
    return questions, theories_from_table(ctx.read_table("bank", stage="generate"), questions)


def train(ctx: StageContext) -> None:
    p = ctx.params
    check_params(p)
    questions, theories = _generated_bank(ctx)
    max_depth = p["soft_reasoner"]["train_max_depth"]
    train_q = questions[(questions["split"] == "train") & (questions["depth"] <= max_depth)]
    ctx.log(
        f"fitting the soft reasoner on {len(train_q)} training questions of depth <= {max_depth}"
    )
    model = SoftReasoner(C=p["soft_reasoner"]["C"]).fit(
        feature_matrix(train_q, theories), train_q["label"]
    )
    acc = accuracy_by_depth(train_q, model.predict(feature_matrix(train_q, theories)))
    ctx.write_table("soft_reasoner", model.to_table(), key=["feature"])
    ctx.print_table("[axes] soft reasoner coefficients", model.to_table())
    ctx.write_metrics(
        {
            "n_train": len(train_q),
            "train_accuracy": {
                f"depth_{int(r.depth)}": float(r.accuracy) for r in acc.itertuples()
            },
        }
    )


# --------------------------------------------------------------------------- score


def _per_depth(
    questions: pd.DataFrame, pipeline: pd.DataFrame, soft_correct: np.ndarray
) -> pd.DataFrame:
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


def _synonym_depth(questions: pd.DataFrame, pipeline: pd.DataFrame) -> pd.DataFrame:
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


def _score_systems(
    ctx: StageContext, questions, theories, model
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    ctx.log(f"soft reasoner and translate-then-prove on {len(questions)} evaluation questions")
    soft_pred = model.predict(feature_matrix(questions, theories))
    soft_correct = soft_pred == questions["label"].to_numpy(dtype=bool)
    pipeline = run_pipeline(questions, theories, lexicon=repair_lexicon())
    parsed = pipeline[pipeline["parsed"]]
    wrong = parsed[~parsed["correct"]]
    check_claim(
        wrong.empty,
        f"translate-then-prove must answer every parsed question correctly; "
        f"{len(wrong)} wrong, first qid {wrong['qid'].iloc[0] if len(wrong) else None}",
    )
    return (
        _per_depth(questions, pipeline, soft_correct),
        _synonym_depth(questions, pipeline),
        pipeline,
    )


def _check_per_depth(
    per_depth: pd.DataFrame, pipeline: pd.DataFrame, synonym_depth: pd.DataFrame, claims: dict
) -> None:
    soft = dict(zip(per_depth["depth"], per_depth["soft_reasoner"]))
    deepest = int(per_depth["depth"].max())
    check_claim(
        soft[deepest] <= claims["soft_deep_max"],
        f"soft reasoner depth-{deepest} accuracy must be <= {claims['soft_deep_max']}, got "
        f"{soft[deepest]:.4f}",
    )
    check_claim(
        soft[0] - soft[deepest] >= claims["soft_drop_min"],
        f"soft reasoner must lose >= {claims['soft_drop_min']} from depth 0 to depth {deepest}, "
        f"got {soft[0]:.4f} -> {soft[deepest]:.4f}",
    )
    check_claim(
        (per_depth["acc_on_parsed"] == 1.0).all(),
        f"acc-on-parsed must be 1.0 at every depth, got {per_depth['acc_on_parsed'].tolist()}",
    )
    strict, repaired = float(pipeline["parsed_strict"].mean()), float(pipeline["parsed"].mean())
    check_claim(
        strict < repaired < 1.0,
        "coverage after repair must be strictly above strict coverage and below 1, got "
        f"{strict:.4f} -> {repaired:.4f}",
    )
    # the synonym x depth interaction: coverage is lost exactly at the depths an unrepairable
    # synonym hits
    lossy = set(synonym_depth.loc[synonym_depth["n_unparsed"] > 0, "depth"])
    for r in per_depth.itertuples():
        check_claim(
            (r.coverage < 1.0) == (r.depth in lossy),
            f"depth {r.depth}: coverage {r.coverage:.4f} must fall below 1 exactly when an "
            "unrepairable "
            f"synonym hits it (lossy depths {sorted(lossy)})",
        )


def _gadgets(params: dict) -> tuple[pd.DataFrame, dict]:
    from .gadgets import proof_width, query_joins, scale, semantics, soundness, termination, trust

    g = params["gadgets"]
    results = {
        "soundness": soundness.run(),
        "termination": termination.run(tuple(g["chase_budgets"])),
        "proof_width": proof_width.run(g["ladder_rungs"]),
        "query_joins": query_joins.run(range(g["cycle_k_min"], g["cycle_k_max"] + 1)),
        "semantics": semantics.run(g["semantics_candidates"], seed=params["seed"]),
        "trust": trust.run(),
        "scale": scale.run(tuple(g["scale_chains"])),
    }
    for name, result in results.items():
        GADGETS[name].check(result)
    s, t, w, q, sem, tr, sc = (
        results[k]
        for k in (
            "soundness",
            "termination",
            "proof_width",
            "query_joins",
            "semantics",
            "trust",
            "scale",
        )
    )
    by_extractor = {r.extractor: r for r in tr}
    rows = [
        {
            "number": 1,
            "axis": "soundness",
            "turns": "over-generalising subsumption predictor on a TBox",
            "pinned": f"recall {s.recall:.3f}",
            "measured": f"precision {s.true_positives}/{s.n_pred} = {s.precision:.3f}, "
            f"{len(s.fabricated)} fabricated pairs",
            "value": s.precision,
        },
        {
            "number": 2,
            "axis": "termination",
            "turns": "one existential advisor-regress rule under the chase",
            "pinned": f"control saturates at {t['control'][0].atoms} atoms after "
            f"{t['control'][0].firings} firings",
            "measured": "sizes "
            + " -> ".join(str(r.atoms) for r in t["regress"])
            + ", never saturated",
            "value": float(t["regress"][-1].atoms),
        },
        {
            "number": 3,
            "axis": "proof width",
            "turns": f"Horn ladder vs disjunctive twin, k = {w.k}",
            "pinned": f"depth per branch {w.horn_depth} in both",
            "measured": f"leaves {w.horn_leaves} vs {w.disjunctive_leaves:,}",
            "value": float(w.disjunctive_leaves),
        },
        {
            "number": 4,
            "axis": "query joins",
            "turns": "variables of a Boolean cycle query",
            "pinned": "same 6-edge graph, same 'yes' answer",
            "measured": f"probes {q[0].probes} -> {q[-1].probes:,}",
            "value": float(q[-1].probes),
        },
        {
            "number": 5,
            "axis": "semantics",
            "turns": "one negation-as-failure rule",
            "pinned": f"Horn core monotone under {sem.n_monotone}/{sem.n_candidates} additions",
            "measured": f"adding {sem.added} retracts independent(alice)",
            "value": float(len(sem.independent_after)),
        },
        {
            "number": 6,
            "axis": "trust",
            "turns": "swapped concept extractor",
            "pinned": f"task accuracy {by_extractor['faithful'].task_accuracy:.1f} for both",
            "measured": f"concept accuracy {by_extractor['faithful'].concept_accuracy:.1f} vs "
            f"{by_extractor['swapped'].concept_accuracy:.1f}",
            "value": by_extractor["swapped"].concept_accuracy,
        },
        {
            "number": 7,
            "axis": "scale",
            "turns": "chain length, naive vs semi-naive",
            "pinned": "same closure, same waves",
            "measured": "probe ratio " + " -> ".join(f"{r.ratio:.1f}x" for r in sc),
            "value": sc[-1].ratio,
        },
    ]
    metrics = {
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
            "monotone": sem.n_monotone,
            "candidates": sem.n_candidates,
            "independent_before": ",".join(sem.independent_before),
            "independent_after": ",".join(sem.independent_after),
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
    return pd.DataFrame(rows), metrics


def _mixture(per_depth: pd.DataFrame, mix: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    a = per_depth["soft_reasoner"].to_numpy()
    b = per_depth["overall"].to_numpy()
    n = mix.set_index("depth").loc[per_depth["depth"], "n"].to_numpy()
    report = mixture_mod.mixture_report(a, b, n)
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
            "first": {"a": "soft_reasoner", "b": "pipeline", "tie": "tie"}[r["first"]],
        }
        for r in report["pure_depth"]
    ]
    table = pd.DataFrame(rows)
    winners = set(table.loc[table["kind"] == "pure", "first"]) - {"tie"}
    check_claim(
        winners == {"soft_reasoner", "pipeline"},
        "the pure-depth banks must rank the two systems differently (the mixture confound), got "
        f"{sorted(winners)}",
    )
    tied = [t for t in report["ties"] if t["pi"] is not None]
    check_claim(bool(tied), "some two-depth mix must tie the two systems")
    for t in tied:
        i, j = t["depths"]
        ta = t["pi"] * a[i] + (1 - t["pi"]) * a[j]
        tb = t["pi"] * b[i] + (1 - t["pi"]) * b[j]
        check_claim(
            abs(ta - tb) < 1e-12,
            f"tie over depths {i},{j} must give equal aggregates, got {ta} vs {tb}",
        )
    first = next((t for t in report["ties"] if t["depths"] == [0, 1]), None)
    metrics = {
        "aggregate_soft_reasoner": report["aggregate_a"],
        "aggregate_pipeline": report["aggregate_b"],
        "tie_01_pi0": first["pi"] if first else None,
        "tie_01_accuracy": first["accuracy"] if first else None,
        "n_tied_pairs": len(tied),
    }
    return table, metrics


def score(ctx: StageContext) -> None:
    p = ctx.params
    check_params(p)
    questions, theories = _generated_bank(ctx)
    model = SoftReasoner.from_table(ctx.read_table("soft_reasoner", stage="train"))
    mix = ctx.read_table("depth_mix", stage="count")
    eval_q = questions[questions["split"] == "eval"].reset_index(drop=True)

    per_depth, synonym_depth, pipeline = _score_systems(ctx, eval_q, theories, model)
    _check_per_depth(per_depth, pipeline, synonym_depth, p["claims"])

    ctx.log("flip probe: negate one condition per theory, relabel, re-prove")
    flips = flip_probe(eval_q, theories, model, seed=p["seed"])
    flip_stats = flip_summary(flips)
    check_claim(flip_stats["n_flipped"] > 0, "the flip probe must flip at least one gold label")
    check_claim(
        flip_stats["soft_tracked_after"] < flip_stats["n_flipped"],
        "the soft reasoner must miss some flips (its one-step feature ignores negated "
        "conditions), "
        f"got {flip_stats['soft_tracked_after']}/{flip_stats['n_flipped']}",
    )
    check_claim(
        flip_stats["prover_tracked_after"] == flip_stats["n_flipped"],
        "the prover must track every flipped question, got "
        f"{flip_stats['prover_tracked_after']}/{flip_stats['n_flipped']}",
    )

    mixture_table, mixture_metrics = _mixture(per_depth, mix[mix["split"] == "eval"])
    ctx.log("seven gadgets")
    gadget_table, gadget_metrics = _gadgets(p)

    ctx.write_table("per_depth", per_depth, key=["depth"])
    ctx.write_table("synonym_depth", synonym_depth, key=["predicate"])
    ctx.write_table("flip", flips, key=["split", "qid"])
    ctx.write_table("mixture", mixture_table, key=["kind", "depth_i", "depth_j"])
    ctx.write_table("gadgets", gadget_table, key=["number"])
    ctx.write_plot(
        "per_depth",
        per_depth[
            ["depth", "soft_reasoner", "overall", "coverage_strict", "coverage", "acc_on_parsed"]
        ],
    )

    ctx.print_table(
        "[axes] per-depth factorization (pipeline: coverage x acc-on-parsed) beside the soft "
        "reasoner",
        per_depth,
    )
    ctx.print_table("[axes] which synonym hits which depth", synonym_depth)
    ctx.print_table("[axes] flip probe", pd.DataFrame([flip_stats]))
    ctx.print_table("[axes] mixture: ties over two depths and pure-depth winners", mixture_table)
    ctx.print_table(
        "[axes] seven gadgets (completeness pinned in each)",
        gadget_table[["number", "axis", "pinned", "measured"]],
    )

    ctx.write_metrics(
        {
            "soft_reasoner": {
                f"depth_{int(r.depth)}": r.soft_reasoner for r in per_depth.itertuples()
            },
            "pipeline": {f"depth_{int(r.depth)}": r.overall for r in per_depth.itertuples()},
            "coverage_strict": float(pipeline["parsed_strict"].mean()),
            "coverage_repaired": float(pipeline["parsed"].mean()),
            "acc_on_parsed": float(pipeline.loc[pipeline["parsed"], "correct"].mean()),
            "flip": flip_stats,
            "mixture": mixture_metrics,
            "gadgets": gadget_metrics,
        }
    )


# The jobs of this instrument (declared in artifacts.py) and the function each runs.
STAGE_FUNCTIONS = {
    ("generate", None): generate,
    ("count", None): count,
    ("train", None): train,
    ("score", None): score,
}
