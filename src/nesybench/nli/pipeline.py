"""nli stage functions: generate -> count -> score (no training: the systems are symbolic).

generate  data/generate/nli/{prontoqa,folio}.parquet
count     data/count/nli/{label_mix,depth_mix}.parquet + metrics.json
score
data/score/nli/{traces,per_depth,metric_trap,worked_example,folio_predictions,folio_per_label}.parquet
          + metrics.json + reports/plots/nli-per_depth.csv

Every directional claim the printed tables make is checked with ``check_claim``.
"""

from __future__ import annotations

import pandas as pd

from ..errors import UserError, check_claim
from ..reasoning.grammar import parse_context, parse_sentence, split_sentences
from .checker import FLAGS, check_trace
from .folio_lite import LABEL_ORDER
from .folio_lite import generate_corpus as generate_folio
from .prontoqa_lite import ProntoExample
from .prontoqa_lite import generate_corpus as generate_prontoqa
from .scoring import (
    FOLIO_SYSTEMS,
    SYSTEMS,
    folio_per_label,
    gold_theory,
    score_folio,
    score_prontoqa,
    summarize,
)
from .systems import majority_label


# ---------------------------------------------------------------- params
def _validate(params: dict) -> None:
    """Cross-key checks the JSON schema cannot express."""
    _label_mix(params)
    hops = params["prontoqa"]["hops"]
    if params["worked_example_hops"] not in hops:
        raise UserError(
            f"params.yaml: nli.worked_example_hops must be one of prontoqa.hops {hops}, got "
            f"{params['worked_example_hops']}"
        )


def _label_mix(params: dict) -> dict[str, float]:
    mix = params["folio"]["label_mix"]
    out = {"True": mix["p_true"], "False": mix["p_false"], "Unknown": mix["p_unknown"]}
    total = sum(out.values())
    if abs(total - 1.0) > 1e-9:
        raise UserError(f"params.yaml: nli.folio.label_mix must sum to 1, got {total:g}")
    return out


# ---------------------------------------------------------------- generate
def generate(ctx) -> None:
    _validate(ctx.params)
    pq, fl = ctx.params["prontoqa"], ctx.params["folio"]
    ctx.log(f"PrOntoQA-lite: {pq['n_per_hops']} examples for each of hops {pq['hops']}")
    pronto = generate_prontoqa(
        pq["hops"], pq["n_per_hops"], seed=pq["seed"], corrupt_prob=pq["corrupt_prob"]
    )
    for ex in pronto:
        _check_round_trip(ex)
    folio = generate_folio(
        fl["n"], seed=fl["seed"], label_mix=_label_mix(ctx.params), max_chain=fl["max_chain"]
    )
    for ex in folio:
        theory = parse_context(ex.context)
        check_claim(
            theory.ok,
            f"FOLIO-lite {ex.id}: every generated sentence parses, failed on {theory.failures[:1]}",
        )
    ctx.write_table("prontoqa", pd.DataFrame([e.as_record() for e in pronto]), key=["id"])
    ctx.write_table("folio", pd.DataFrame([e.as_record() for e in folio]), key=["id"])
    n_corrupt = sum(e.corrupted >= 0 for e in pronto)
    ctx.write_metrics(
        {
            "corpus": {
                "prontoqa_n": len(pronto),
                "prontoqa_corrupted": n_corrupt,
                "folio_n": len(folio),
            }
        }
    )
    ctx.log(
        f"PrOntoQA-lite: {len(pronto)} examples, {n_corrupt} corrupted; FOLIO-lite: {len(folio)} "
        "examples"
    )


def _check_round_trip(ex: ProntoExample) -> None:
    """Every strict sentence parses back to its logic; the corrupted one does not."""
    sentences = split_sentences(ex.context)
    for j, sentence in enumerate(sentences[:-1]):
        res = parse_sentence(sentence)
        if j == ex.corrupted:
            check_claim(
                not res.ok,
                f"{ex.id}: the corrupted sentence must fail the strict grammar: {sentence!r}",
            )
        else:
            check_claim(
                res.kind == "rule" and sentence == ex.gold_rules[j],
                f"{ex.id}: rule sentence {j} round-trips",
            )
    check_claim(
        parse_sentence(sentences[-1]).atom == ex.axiom, f"{ex.id}: the instance axiom round-trips"
    )
    check_claim(parse_sentence(ex.question).kind == "question", f"{ex.id}: the question parses")


# ---------------------------------------------------------------- count
def count(ctx) -> None:
    pronto = ctx.read_table("prontoqa", stage="generate")
    folio = ctx.read_table("folio", stage="generate")
    rows = []
    for dataset, labels, vocab in (
        ("prontoqa", pronto["gold_label"], ("True", "False")),
        ("folio", folio["gold_label"], LABEL_ORDER),
    ):
        n = len(labels)
        for y in vocab:
            k = int((labels == y).sum())
            rows.append({"dataset": dataset, "label": y, "n": k, "frac": k / n})
    mix = pd.DataFrame(rows)
    depth = (
        pronto.groupby("hops", sort=True)
        .agg(n=("id", "size"), n_corrupted=("is_corrupted", "sum"))
        .reset_index()
        .assign(dataset="prontoqa", frac_corrupted=lambda d: d["n_corrupted"] / d["n"])
    )
    depth = depth.rename(columns={"hops": "depth"})[
        ["dataset", "depth", "n", "n_corrupted", "frac_corrupted"]
    ]
    fdepth = (
        folio.groupby("depth", sort=True)
        .agg(n=("id", "size"))
        .reset_index()
        .assign(dataset="folio", n_corrupted=0, frac_corrupted=0.0)
    )
    depth = pd.concat(
        [depth, fdepth[["dataset", "depth", "n", "n_corrupted", "frac_corrupted"]]],
        ignore_index=True,
    )
    depth["n_corrupted"] = depth["n_corrupted"].astype("int64")
    ctx.write_table("label_mix", mix, key=["dataset", "label"])
    ctx.write_table("depth_mix", depth, key=["dataset", "depth"])

    metrics = {}
    for dataset, group in mix.groupby("dataset", sort=True):
        fr = dict(zip(group["label"], group["frac"]))
        labels = pronto["gold_label"] if dataset == "prontoqa" else folio["gold_label"]
        major = majority_label(list(labels))
        metrics[dataset] = {
            "n": int(group["n"].sum()),
            **{f"mix_{y}": float(fr[y]) for y in fr},
            "majority_label": major,
            # scored, not read off the mix: the constant guess against every gold label
            "majority_baseline_acc": float((labels == major).mean()),
            # E[acc] of an input-blind guesser ranges over [min_y p_y, max_y p_y]
            "best_blind_guess_acc": float(max(fr.values())),
            "worst_blind_guess_acc": float(min(fr.values())),
            "uniform_guess_acc": 1.0 / len(fr),
        }
    for dataset, m in metrics.items():
        check_claim(
            m["majority_baseline_acc"] == m["best_blind_guess_acc"],
            f"{dataset}: the majority baseline scores the best input-blind guess max_y p_y: "
            f"{m['majority_baseline_acc']:.4f} vs {m['best_blind_guess_acc']:.4f}",
        )
    ctx.write_metrics({"mix": metrics})
    ctx.print_table("[2] label mix (best input-blind guess = majority frequency)", mix)
    ctx.print_table(
        "depth mix (PrOntoQA-lite hops; FOLIO-lite depth of the decisive atom, 0 = Unknown)", depth
    )


# ---------------------------------------------------------------- score
def _check_prontoqa_claims(
    traces: pd.DataFrame, per_depth: pd.DataFrame, trap: dict, *, min_gap: float
) -> None:
    pipe = traces[traces["system"] == SYSTEMS[0]]
    greedy = traces[traces["system"] == SYSTEMS[1]]
    answered = pipe[~pipe["abstained"]]
    rate = float(answered["strict"].mean()) if len(answered) else float("nan")
    check_claim(
        len(answered) > 0 and rate == 1.0,
        f"every translate-then-prove trace passes the checker: rate {rate}",
    )
    check_claim(
        bool(answered["correct"].all()), "translate-then-prove is right on every example it answers"
    )
    abst = set(pipe.loc[pipe["abstained"], "id"])
    corr = set(pipe.loc[pipe["is_corrupted"], "id"])
    check_claim(
        abst == corr,
        f"the pipeline abstains exactly on the corrupted examples: {len(abst)} abstained, "
        f"{len(corr)} corrupted, {len(abst ^ corr)} differ",
    )
    tp, tg = trap[SYSTEMS[0]], trap[SYSTEMS[1]]
    check_claim(
        tg["label_acc"] > tp["label_acc"],
        f"greedy wins the label column: {tg['label_acc']:.3f} vs {tp['label_acc']:.3f}",
    )
    gap = tp["proof_acc"] - tg["proof_acc"]
    check_claim(gap >= min_gap, f"greedy loses the proof column by >= {min_gap}: gap {gap:.3f}")
    check_claim(
        bool((~greedy["strict"] | greedy["correct"]).all()),
        "a strict greedy trace always carries the right label",
    )
    n_right, n_strict = int(greedy["correct"].sum()), int(greedy["strict"].sum())
    n_rfwr = int((greedy["correct"] & ~greedy["strict"]).sum())
    check_claim(n_rfwr > 0, f"greedy right-for-wrong-reason rate > 0: {n_rfwr} examples")
    check_claim(
        n_rfwr == n_right - n_strict,
        f"rfwr = label acc - proof acc for greedy: {n_rfwr} vs {n_right} - {n_strict}",
    )
    deep = per_depth[(per_depth["system"] == SYSTEMS[1]) & (per_depth["hops"] >= 2)]
    check_claim(
        bool((deep["proof_acc"] == 0.0).all()),
        f"greedy proof accuracy is 0 at every depth >= 2: {deep['proof_acc'].tolist()}",
    )
    # The goal is always derivable, so greedy's label is right exactly when it reaches the goal.
    check_claim(
        bool((greedy["correct"] == (greedy["goal_firing"] > 0)).all()),
        "greedy is right exactly when it reaches the goal within the cap",
    )
    mismatch = greedy[greedy["goal_firing"] != greedy["predicted_goal_firing"]]
    check_claim(
        mismatch.empty,
        "the last hop's order coin predicts where greedy reaches the goal on every example; "
        f"wrong on {mismatch['id'].tolist()[:5]}",
    )
    # Counts, not float rates: at every depth right = strict = answered for the pipeline.
    for hops, g in pipe.groupby("hops", sort=True):
        n_right, n_strict, n_answered = (
            int(g["correct"].sum()),
            int(g["strict"].sum()),
            int((~g["abstained"]).sum()),
        )
        check_claim(
            n_right == n_strict == n_answered,
            f"pipeline label acc = proof acc = coverage at {hops} hops: {n_right}, {n_strict}, "
            f"{n_answered} of {len(g)}",
        )


def _worked_example(
    examples: list[ProntoExample], traces: pd.DataFrame, *, hops: int
) -> tuple[ProntoExample, pd.DataFrame]:
    """The first clean example at ``hops`` where both are right and only greedy's proof fails."""
    by_id = {e.id: e for e in examples}
    wide = traces.pivot(index="id", columns="system", values=["correct", "strict"])
    for ex_id in sorted(wide.index):
        ex = by_id[ex_id]
        if ex.hops != hops or ex.corrupted >= 0:
            continue
        w = wide.loc[ex_id]
        if (
            w[("correct", SYSTEMS[0])]
            and w[("correct", SYSTEMS[1])]
            and w[("strict", SYSTEMS[0])]
            and not w[("strict", SYSTEMS[1])]
        ):
            rows = traces[traces["id"] == ex_id][
                ["system", "label", "gold_label", "trace", *FLAGS, "reason"]
            ]
            return ex, rows.reset_index(drop=True)
    raise UserError(
        f"params.yaml: nli.worked_example_hops={hops}: no clean example where only greedy's proof "
        "fails"
    )


def _check_folio_claims(preds: pd.DataFrame, table: pd.DataFrame) -> dict:
    gold = preds[preds["system"] == FOLIO_SYSTEMS[0]]["gold_label"]
    n = len(gold)
    freq = {y: float((gold == y).sum()) / n for y in LABEL_ORDER}
    acc = dict(zip(table["system"], table["overall"]))
    check_claim(
        acc[FOLIO_SYSTEMS[0]] == 1.0,
        f"dual-query accuracy is exactly 1.0, got {acc[FOLIO_SYSTEMS[0]]:.4f}",
    )
    major = max(freq.values())
    n_major = int(preds[preds["system"] == FOLIO_SYSTEMS[2]]["correct"].sum())
    check_claim(
        n_major == max(int((gold == y).sum()) for y in LABEL_ORDER),
        f"majority baseline = majority label frequency: {acc[FOLIO_SYSTEMS[2]]:.4f} vs {major:.4f}",
    )
    check_claim(major > 1 / 3, f"majority beats the 1/3 uniform-guess floor: {major:.4f}")
    cwa = preds[preds["system"] == FOLIO_SYSTEMS[1]]
    check_claim(not (cwa["label"] == "Unknown").any(), "greedy CWA never says Unknown")
    cap = 1.0 - freq["Unknown"]
    # In counts, so that no float rounding can decide the claim: right <= n - n_unknown.
    n_right, n_known = int(cwa["correct"].sum()), int((cwa["gold_label"] != "Unknown").sum())
    check_claim(
        n_right <= n_known,
        f"never saying Unknown caps accuracy at 1 - P(Unknown) = {cap:.4f}, got "
        f"{acc[FOLIO_SYSTEMS[1]]:.4f}",
    )
    tf = cwa[cwa["gold_label"] != "Unknown"]
    check_claim(bool(tf["correct"].all()), "greedy CWA is perfect on True/False")
    check_claim(
        n_right == n_known,
        f"greedy CWA sits exactly at the cap {cap:.4f}, got {acc[FOLIO_SYSTEMS[1]]:.4f}",
    )
    return {"mix": freq, "never_unknown_cap": cap}


def score(ctx) -> None:
    _validate(ctx.params)
    pq = ctx.params["prontoqa"]
    cap = pq["greedy_cap"]
    examples = [
        ProntoExample.from_record(r)
        for r in ctx.read_table("prontoqa", stage="generate").to_dict("records")
    ]
    for ex in examples:
        verdict = check_trace(list(ex.gold_cot), gold_theory(ex), parse_sentence(ex.question).atom)
        check_claim(
            verdict.strict and verdict.label == ex.gold_label,
            f"{ex.id}: the gold chain of thought is strict and decides the gold label",
        )
    traces = score_prontoqa(examples, cap=cap)

    per_depth = pd.DataFrame(
        [
            {"system": s, "hops": int(h), **summarize(g)}
            for (s, h), g in traces.groupby(["system", "hops"], sort=True)
        ]
    )
    trap = {s: summarize(traces[traces["system"] == s]) for s in SYSTEMS}
    answered = summarize(traces[(traces["system"] == SYSTEMS[0]) & ~traces["abstained"]])
    _check_prontoqa_claims(traces, per_depth, trap, min_gap=ctx.params["min_proof_gap"])
    trap_df = pd.DataFrame(
        [
            {
                "system": s,
                **{k: trap[s][k] for k in ("label_acc", "proof_acc", "abstention", "rfwr")},
            }
            for s in SYSTEMS
        ]
    )
    ex, worked = _worked_example(examples, traces, hops=ctx.params["worked_example_hops"])
    text = pd.DataFrame(
        {
            "line": range(1, 3 + len(split_sentences(ex.context))),
            "text": [*split_sentences(ex.context), ex.question, f"(gold label: {ex.gold_label})"],
        }
    )

    folio = ctx.read_table("folio", stage="generate")
    fpreds = score_folio(folio)
    ftable = folio_per_label(fpreds)
    fextra = _check_folio_claims(fpreds, ftable)

    ctx.write_table("traces", traces, key=["id", "system"])
    ctx.write_table("per_depth", per_depth, key=["system", "hops"])
    ctx.write_table("metric_trap", trap_df, key=["system"])
    ctx.write_table(
        "worked_example",
        worked,
        key=["system"],
        metadata={"example_id": ex.id, "hops": str(ex.hops)},
    )
    ctx.write_table("worked_example_text", text, key=["line"], metadata={"example_id": ex.id})
    ctx.write_table("folio_predictions", fpreds, key=["id", "system"])
    ctx.write_table("folio_per_label", ftable, key=["system"])
    ctx.write_plot("per_depth", _per_depth_wide(per_depth))

    key = {SYSTEMS[0]: "pipeline", SYSTEMS[1]: "greedy"}
    fkey = {
        FOLIO_SYSTEMS[0]: "dual_query",
        FOLIO_SYSTEMS[1]: "greedy_cwa",
        FOLIO_SYSTEMS[2]: "majority",
    }
    metrics = {
        "prontoqa": {
            **{
                key[s]: {k: trap[s][k] for k in ("label_acc", "proof_acc", "abstention", "rfwr")}
                for s in SYSTEMS
            },
            "per_depth": {f"h{int(h)}": {} for h in sorted(set(per_depth["hops"]))},
            "pipeline_trace_pass_rate": answered["proof_acc"],
            "pipeline_answered_label_acc": answered["label_acc"],
        },
        "folio": {
            **{fkey[s]: {"acc": float(a)} for s, a in zip(ftable["system"], ftable["overall"])},
            "majority_freq": max(fextra["mix"].values()),
            "never_unknown_cap": fextra["never_unknown_cap"],
        },
    }
    for r in per_depth.itertuples():
        metrics["prontoqa"]["per_depth"][f"h{int(r.hops)}"][f"{key[r.system]}_label_acc"] = float(
            r.label_acc
        )
        metrics["prontoqa"]["per_depth"][f"h{int(r.hops)}"][f"{key[r.system]}_proof_acc"] = float(
            r.proof_acc
        )
    ctx.write_metrics(metrics)

    _print_score(
        ctx, ex, text, worked, per_depth, trap_df, ftable, fextra, answered, n_folio=len(folio)
    )


def _print_score(
    ctx, ex, text, worked, per_depth, trap_df, ftable, fextra, answered, *, n_folio
) -> None:
    ctx.print_table(f"[1] worked example {ex.id} (hops={ex.hops}): context and question", text)
    show = worked.assign(trace=worked["trace"].str.replace(" | ", " -> ", regex=False))
    ctx.print_table(
        "    both systems' traces and the checker's verdicts", show.drop(columns=["reason"])
    )
    wide = per_depth.pivot(index="hops", columns="system", values=["label_acc", "proof_acc"])
    depth_tab = pd.DataFrame(
        {
            "hops": wide.index.astype(int),
            "pipeline label": wide[("label_acc", SYSTEMS[0])].to_numpy(),
            "pipeline proof": wide[("proof_acc", SYSTEMS[0])].to_numpy(),
            "greedy label": wide[("label_acc", SYSTEMS[1])].to_numpy(),
            "greedy proof": wide[("proof_acc", SYSTEMS[1])].to_numpy(),
        }
    )
    n_each = "/".join(str(n) for n in sorted(set(per_depth["n"])))
    ctx.print_table(
        f"[3] per-depth accuracy (label vs strict proof), {n_each} examples each",
        depth_tab,
        floatfmt="{:.2f}",
    )
    rf = float(trap_df.loc[trap_df["system"] == SYSTEMS[1], "rfwr"].iloc[0])
    print(f"  greedy right-for-wrong-reason rate: {rf:.3f} (label right, proof not strict)")
    fl = ftable.rename(columns={f"acc_{y}": y for y in LABEL_ORDER})
    mix = fextra["mix"]
    ctx.print_table(
        f"[4] FOLIO-lite (3-way open world, dual query), n={n_folio}, mix True/False/Unknown = "
        + "/".join(str(round(mix[y] * n_folio)) for y in LABEL_ORDER),
        fl,
        floatfmt="{:.3f}",
    )
    print(
        f"  majority beats the 1/3 uniform guess at {max(mix.values()):.3f}; never saying Unknown "
        "caps a system at "
        f"{fextra['never_unknown_cap']:.3f} and greedy CWA sits exactly there"
    )
    ctx.print_table(
        "[5] metric-trap summary (PrOntoQA-lite, abstentions count wrong)",
        trap_df,
        floatfmt="{:.3f}",
    )
    print(
        f"  on the {answered['n']} examples it answers, translate-then-prove scores label "
        f"{answered['label_acc']:.3f}, "
        f"proof {answered['proof_acc']:.3f}"
    )


def _per_depth_wide(per_depth: pd.DataFrame) -> pd.DataFrame:
    """One row per hop count, one column per (system, metric): the shape `dvc plots` draws as
    curves."""
    short = {SYSTEMS[0]: "pipeline", SYSTEMS[1]: "greedy"}
    wide = per_depth.pivot(index="hops", columns="system", values=["label_acc", "proof_acc"])
    wide.columns = [f"{short[system]}_{metric}" for metric, system in wide.columns]
    return wide[sorted(wide.columns)].reset_index()


# The jobs of this instrument (declared in artifacts.py) and the function each runs.
STAGE_FUNCTIONS = {("generate", None): generate, ("count", None): count, ("score", None): score}
