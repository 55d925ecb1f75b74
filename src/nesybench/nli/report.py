"""The nli section of the report: every number read from the pipeline's artifacts.

The sweep first (distributions over seeds and the claims' rates), then the exhibit seed's
tables labelled with the rule that picked it, then the vendored real benchmarks.
"""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report.sensitivity import sensitivity_blocks
from ..report.sweep import default_intro, sweep_blocks
from ..sweep import describe_exhibit
from .folio_lite import LABEL_ORDER
from .printing import depth_display, interval_display

COLORS = {"translate-then-prove": "tab:blue", "greedy": "tab:red"}


def per_depth_figure(per_depth_dist: pd.DataFrame, *, n_seeds: int):
    """Mean label (solid) and strict-proof (dashed) accuracy per hop count over seeds, with
    the 95% bootstrap interval of the mean as error bars."""
    from ..report.figures import new_figure

    fig, ax = new_figure()
    for (system, metric), g in per_depth_dist.groupby(["system", "metric"], sort=True):
        if metric not in ("label_acc", "proof_acc"):
            continue
        g = g.sort_values("hops")
        ax.errorbar(
            g["hops"],
            g["mean"],
            yerr=[g["mean"] - g["lo"], g["hi"] - g["mean"]],
            marker="o" if metric == "label_acc" else "s",
            linestyle="-" if metric == "label_acc" else "--",
            color=COLORS.get(system, "tab:gray"),
            # hollow, larger proof markers: where the two accuracies coincide (the pipeline's
            # label acc is its proof acc) both stay visible
            markerfacecolor="none" if metric == "proof_acc" else None,
            markersize=8 if metric == "proof_acc" else 5,
            capsize=3,
            label=f"{system}: {metric.replace('_acc', '')} acc",
        )
    ax.set_xlabel("hops (rule applications of the gold proof)")
    ax.set_ylabel(f"accuracy, mean over {n_seeds} seeds")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(sorted(per_depth_dist["hops"].unique()))
    ax.legend(fontsize=7, loc="lower left")
    return fig


def _corpus_text(p: dict, n_seeds: int) -> str:
    pq, fl = p["prontoqa"], p["folio"]
    mix = fl["label_mix"]
    return (
        f"Each of {n_seeds} seeds draws its own PrOntoQA-lite corpus ({pq['n_per_hops']} "
        f"examples for each of hops {pq['hops']}: a fictional subclass chain with one dead-end "
        f"distractor rule per hop; with probability {pq['corrupt_prob']} an example has one rule "
        'paraphrased out of the strict grammar, "All Xes are Ys.") and its own FOLIO-lite '
        f"corpus ({fl['n']} examples, target label mix True/False/Unknown = {mix['p_true']}/"
        f"{mix['p_false']}/{mix['p_unknown']}). The step checker "
        "asks of every line of a trace: **parsed**, **valid** (it follows from established "
        "facts by one context rule), **linear** (it uses the previous line's conclusion), "
        "**connects** (the last line decides the query); a trace is a proof when all four hold "
        f"(`strict`). Greedy may fire {pq['greedy_cap']} rules. Asserted on every seed (a seed "
        "where one breaks fails its job): every generated sentence parses back; every gold "
        "chain of thought is strict; every answered translate-then-prove trace is strict and "
        "right, and it abstains exactly on the corrupted examples; a strict greedy trace has "
        "the right label, so rfwr = label acc - proof acc; greedy's proofs fail at every depth "
        "from 2 and its labels are perfect wherever 2 x hops <= the cap; the dual query is "
        "exact on FOLIO-lite and greedy CWA sits exactly at the never-Unknown cap 1 - P(Unknown)."
    )


def sweep_section(loader, n_seeds: int) -> list[Block]:
    dist = loader.table("score", "distribution")
    per_depth = loader.table("score", "per_depth_dist")
    trap = loader.table("score", "metric_trap_dist")
    folio = loader.table("score", "folio_dist")
    mix = loader.table("score", "label_mix_dist")
    sweep = {"n_seeds": n_seeds}
    return [
        Heading("PrOntoQA-lite and FOLIO-lite over seeds"),
        Paragraph(_corpus_text(loader.params, n_seeds)),
        *sweep_blocks(
            dist,
            loader.table("score", "claims"),
            n_seeds=n_seeds,
            intro=default_intro("the two sampled corpora", n_seeds),
        ),
        Table(
            f"Per-depth accuracy over {n_seeds} seeds: mean [95% bootstrap interval of the "
            "mean] (abstention = wrong)",
            interval_display(per_depth, ["system", "hops"]),
            params=sweep,
        ),
        Figure(
            "Per-depth accuracy over seeds",
            per_depth_figure(per_depth, n_seeds=n_seeds),
            name="nli-per_depth",
            caption="Solid: label accuracy; dashed: strict-proof accuracy; bars: 95% bootstrap "
            "interval of the mean over seeds. Greedy's proofs fail from 3 hops on, and its labels "
            "fall at 5 hops where the firing budget runs out.",
        ),
        Table(
            f"Metric-trap summary over {n_seeds} seeds: mean [95% bootstrap interval of the mean]",
            interval_display(trap, ["system"]),
            params=sweep,
        ),
        Table(
            f"Label mix over {n_seeds} seeds: share of each gold label (the largest is the best "
            "input-blind guess)",
            interval_display(mix, ["dataset", "label"]),
            params=sweep,
        ),
        Table(
            f"FOLIO-lite accuracy per gold label over {n_seeds} seeds",
            interval_display(folio, ["system"]),
            params=sweep,
        ),
    ]


def exhibit_section(loader, exhibit: pd.Series) -> list[Block]:
    seed = int(exhibit["seed"])
    p = loader.params
    text = loader.table("score", "worked_example_text", seed=seed)
    worked = loader.table("score", "worked_example", seed=seed)
    meta = loader.metadata("score", "worked_example", seed=seed)
    per_depth = loader.table("score", "per_depth", seed=seed)
    trap = loader.table("score", "metric_trap", seed=seed)
    folio = loader.table("score", "folio_per_label", seed=seed)
    mix = loader.table("count", "label_mix")
    mix = mix[(mix["seed"] == seed) & (mix["dataset"] == "folio")]
    counts = "/".join(str(int(n)) for n in mix.set_index("label").loc[list(LABEL_ORDER), "n"])
    at = {"seed": seed}
    example = meta.get("example_id") or "none on this seed"
    greedy = trap.set_index("system").loc["greedy"]
    blocks: list[Block] = [
        Heading("The exhibit seed: the chapter's tables on one draw"),
        Paragraph(
            f"**Worked example.** The tables below show one seed, picked by a rule declared in "
            f"params.yaml (`exhibit: {p['exhibit']}`): {describe_exhibit(exhibit)}. Within it, "
            f"the example shown is {meta.get('rule', '')} ({example}). They illustrate the "
            "mechanics; the distributions above say how typical they are."
        ),
    ]
    if len(text):
        blocks += [
            Table(f"Worked example {example}: context and question", text, params=at),
            Table(
                "Worked example: both systems' traces and the checker's verdicts", worked, params=at
            ),
        ]
    blocks += [
        Table(
            "Per-depth label and strict-proof accuracy on the exhibit seed",
            depth_display(per_depth),
            params=at,
            floatfmt="{:.2f}",
        ),
        Table(
            "Metric-trap summary on the exhibit seed",
            trap,
            params=at,
            floatfmt="{:.3f}",
            note=f"greedy's right-for-wrong-reason rate {greedy['rfwr']:.3f} = label acc "
            f"{greedy['label_acc']:.3f} - proof acc {greedy['proof_acc']:.3f}.",
        ),
        Table(
            f"FOLIO-lite accuracy per gold label on the exhibit seed (True/False/Unknown = "
            f"{counts})",
            folio.rename(columns={f"acc_{y}": y for y in LABEL_ORDER}),
            params=at,
            floatfmt="{:.3f}",
        ),
    ]
    return blocks


def _one_line(fol: pd.Series) -> pd.Series:
    """Premises one per line in the artifact; ``;``-separated in the report's table cells."""
    return fol.str.replace("\n", " ; ", regex=False)


def _cap_note(row: pd.Series) -> str:
    """The never-Unknown cap 1 - P(Unknown) beside a reader's accuracy (is it sitting there?)."""
    cap = 1 - row["always_unknown"]
    where = "exactly at" if abs(row["accuracy"] - cap) < 1e-12 else "against"
    return (
        f"The closed-world reader never says Unknown: it scores {row['accuracy']:.4f} on "
        f"ProofWriter, {where} the cap 1 - always_unknown = {cap:.4f}."
    )


def benchmark_section(loader) -> list[Block]:
    inventory = loader.table("score", "inventory")
    agreement = loader.table("score", "agreement")
    audit = loader.table("score", "folio_audit")
    scores = loader.table("score", "score_nli")
    depth = loader.table("score", "score_nli_depth")
    m = loader.metrics("score", "benchmarks")
    audit = audit.assign(premises_fol=_one_line(audit["premises_fol"])).drop(columns="order")
    files = {"source": "benchmarks/ (vendored, not seeded)"}
    z3 = {**files, "z3 time limit per call (s)": m["score.folio_time_limit"]}
    pq = scores.set_index("system").loc["prontoqa-greedy"]
    pw = scores.set_index("system").loc["proofwriter-closed-world"]
    return [
        Heading("Real benchmarks: the vendored files (not seeded)"),
        Paragraph(
            "Small samples of ProofWriter, PrOntoQA, FOLIO and LogicBench are vendored under "
            "`benchmarks/` with their licence notices (chosen by a fixed rule, see "
            "`benchmarks/README.md`). Asserted at run time: ProofWriter agreement is total; "
            "the labelers and `score-nli` never crash (a sentence or formula the parser cannot "
            "read is a counted parse failure, quoted in the audit); every accuracy is printed "
            "beside the input-blind baselines."
        ),
        Table(
            "Vendored benchmarks: questions and input-blind baselines of the gold labels",
            inventory,
            params=files,
        ),
        Table(
            "Reference labelers vs gold labels (agreement over the parsed questions)",
            agreement,
            params=z3,
            note="ProofWriter and PrOntoQA: the grammar's dialect, then open-world forward "
            "chaining with explicit negative facts; FOLIO: the FOL annotations on z3 (dual "
            "query). FOLIO's parse rate "
            f"{m['score.agreement.folio.parse_rate']:.3f}, agreement over the parsed "
            f"{m['score.agreement.folio.agreement']:.3f}.",
        ),
        Table(
            f"FOLIO label audit: every example the prover does not confirm ({len(audit)})",
            audit,
            params=z3,
            note=f"{m['score.folio_audit.disagreements']} gold labels the annotated premises do "
            f"not entail as labelled, and {m['score.folio_audit.not_parsed']} annotations the "
            "formula parser cannot read (reason quoted).",
        ),
        Table(
            "score-nli on the shipped predictions: accuracy beside every baseline",
            scores,
            params=files,
            note=f"The metric trap, visible: the greedy reasoner scores label accuracy "
            f"{pq['accuracy']:.3f} on PrOntoQA and proof accuracy {pq['proof_accuracy']:.3f} "
            "from the step checker. " + _cap_note(pw),
        ),
        Table(
            "score-nli per proof depth (depth -1 = no proof), beside each depth's majority "
            "baseline",
            depth,
            params=files,
            note="Where the gold label is Unknown there is no proof; on those questions 'always "
            "Unknown' would score 1.0, and a reader that never says Unknown scores 0.",
        ),
    ]


def programs_section(loader) -> list[Block]:
    """LLM-written logic programs in both semantics, the causes, the checker agreement."""
    programs = loader.table("score", "programs")
    causes = loader.table("score", "program_causes")
    disagreements = loader.table("score", "program_disagreements")
    checker = loader.table("score", "checker_agreement")
    failures = loader.table("score", "program_failures")
    per_file = disagreements.groupby("file").size().to_dict()
    both = programs.pivot(index="file", columns="semantics", values="accuracy")
    solver = "; ".join(
        f"{f}: {both.loc[f, 'logic-lm']:.3f} under Logic-LM's solver vs "
        f"{both.loc[f, 'standard']:.3f} "
        f"reading every argument ({per_file.get(f, 0)} items answered differently)"
        for f in both.index
    )
    wide = causes.pivot_table(
        index=["file", "semantics"], columns="cause", values="n", aggfunc="sum"
    ).reset_index()
    return [
        Heading("LLM-written logic programs (Logic-LM's format)"),
        Paragraph(
            "gpt-3.5-turbo's programs for ProofWriter, PrOntoQA and FOLIO questions (a vendored "
            "sample, `benchmarks/logiclm-programs/`) executed by `nesybench execute-programs` in "
            "two semantics: `standard` reads every argument of every atom in the open world; "
            "`logic-lm` reproduces what Logic-LM's own solver does, quirks included. Accuracy "
            "counts a non-executable program as wrong; `accuracy_random_backup` fills it with a "
            "uniform guess, as the paper's backup does. How much of a published number is the "
            f"solver rather than the translation: {solver}."
        ),
        Table("Programs per file and semantics", programs),
        Table(
            "The cause of each wrong answer (translation audit against the question's own "
            "English, parsed into the reference theory)",
            wide,
        ),
        Table(
            "Why programs do not run, per file and semantics (Logic-LM's parsing and execution "
            "errors by cause; `hash_order`: programs Logic-LM may answer otherwise under another "
            "PYTHONHASHSEED)",
            failures,
            note="FOLIO under `logic-lm`: Logic-LM's nltk grammar, its ply lexer (a predicate "
            "name equal to or a prefix of a constant's leaves nothing, or silently the last part "
            "of the formula), nltk's reader and Prover9's symbol checks (a capitalised constant "
            "beside a predicate of the same name is a symbol with two arities); the classes are "
            "listed in `docs/nli.md`. Prover9's 10 s limit and Logic-LM's 60 s parse alarm "
            "depend on the machine and are not modelled.",
        ),
        Table(
            "Items the two semantics answer differently",
            disagreements[["file", "id", "gold", "standard", "logic_lm", "standard_reason"]],
        ),
        Table(
            "The step checker's two readings side by side, per corruption of the vendored gold "
            "chains: nesybench's default (strict: valid, linear, the last step decides; broad: "
            "skips and non-atomic steps allowed) and PrOntoQA main's evaluator "
            "(`--conventions prontoqa`), with the share of chains on which they agree",
            checker,
            note="Every difference is a rule listed in `docs/nli.md` and "
            "`nesybench.nli.prontoqa_eval`: off-path and repeated steps, stated rules, unused "
            "bad steps, reaching the conclusion anywhere, order, restated premises. The "
            "`prontoqa` reading is pinned against PrOntoQA's own evaluator.",
        ),
    ]


def section(loader) -> list[Block]:
    exhibit = loader.table("score", "exhibit").iloc[0]
    n_seeds = int(exhibit["n_seeds"])
    return [
        *sweep_section(loader, n_seeds),
        *sensitivity_blocks(loader, "score", what="PrOntoQA-lite and FOLIO-lite"),
        *exhibit_section(loader, exhibit),
        *benchmark_section(loader),
        *programs_section(loader),
    ]
