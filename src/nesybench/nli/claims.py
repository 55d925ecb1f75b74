"""The nli chapter's claims, each a named check (thresholds live in params.yaml).

Three kinds:

* **structural, per seed** -- identities and mechanisms that hold on every corpus the
  generators can draw (every generated sentence parses back; every answered
  translate-then-prove trace is a strict proof; the pipeline abstains exactly on the
  corrupted examples; rfwr = label acc - proof acc for greedy; greedy's proofs fail from two
  hops on; the dual query is exact on FOLIO-lite; never saying Unknown caps a system at
  1 - P(Unknown) and greedy CWA sits exactly there).  Each raises ``ClaimFailed`` in the job
  of the seed where it breaks, with the numbers it was checked on;
* **directional, over seeds** (:data:`SEED_CLAIMS`) -- what the chapter found on its one
  draw ("greedy wins the label column"), which may hold on some seeds only: evaluated per
  seed by :func:`seed_claims`, summarised by :mod:`nesybench.sweep`, and enforced only where
  ``nli.claims.<name>.enforce`` says so;
* **benchmarks** -- on the vendored real files: ProofWriter agreement is total, execution
  never crashes (parse failures are counted), and every accuracy is printed beside its
  baselines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import check_claim
from ..reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from ..sweep import SeedClaim
from .checker import check_trace
from .folio_lite import LABEL_ORDER, FolioExample
from .prontoqa_lite import ProntoExample
from .scoring import FOLIO_SYSTEMS, SYSTEMS, gold_theory

# ---------------------------------------------------------------- directional (over seeds)
SEED_CLAIMS = (
    SeedClaim(
        "greedy_wins_labels",
        "greedy wins the label column: its label accuracy exceeds translate-then-prove's "
        "(chapter: 0.817 vs 0.667)",
        metric="label_gap",
    ),
    SeedClaim(
        "greedy_loses_proofs",
        "greedy loses the strict-proof column by at least min_gap (chapter: 0.167 vs 0.667)",
        metric="proof_gap",
    ),
    SeedClaim(
        "greedy_right_for_wrong_reason",
        "greedy is right for the wrong reason on some examples: rfwr > 0 (chapter: 0.650)",
        metric="greedy_rfwr",
    ),
    SeedClaim(
        "greedy_deep_collapse",
        "at the deepest hop count greedy's labels fall below translate-then-prove's "
        "(chapter at 5 hops: 0.45 vs 0.75)",
        metric="deep_label_gap",
    ),
    SeedClaim(
        "majority_beats_uniform",
        "FOLIO-lite's majority baseline beats the 1/3 uniform guess (chapter: 0.500)",
        metric="folio_majority_accuracy",
    ),
)


def seed_claims(summary: pd.DataFrame, thresholds: Mapping[str, Mapping]) -> pd.DataFrame:
    """The directional claims' verdicts on every seed: one boolean column per claim.

    ``thresholds`` is ``nli.claims``; ``greedy_loses_proofs`` reads its ``min_gap``.  Rates
    compare exact fractions of one corpus, so ``> 0`` means "on at least one example".
    """
    min_gap = float(thresholds["greedy_loses_proofs"]["min_gap"])
    verdicts = {
        "greedy_wins_labels": summary["label_gap"] > 0,
        # a small slack so that a gap equal to min_gap in exact counts is not lost to rounding
        "greedy_loses_proofs": summary["proof_gap"] >= min_gap - 1e-12,
        "greedy_right_for_wrong_reason": summary["greedy_rfwr"] > 0,
        "greedy_deep_collapse": summary["deep_label_gap"] < 0,
        "majority_beats_uniform": summary["folio_majority_accuracy"] > 1 / 3 + 1e-12,
    }
    return summary.assign(**{name: col.astype(bool) for name, col in verdicts.items()})


# ---------------------------------------------------------------- generate (per seed)
def check_prontoqa_round_trip(examples: Sequence[ProntoExample]) -> None:
    """Every strict sentence parses back to its logic; the corrupted one does not."""
    for ex in examples:
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
                    f"{ex.id}: rule sentence {j} round-trips: {sentence!r}",
                )
        check_claim(
            parse_sentence(sentences[-1]).atom == ex.axiom,
            f"{ex.id}: the instance axiom round-trips",
        )
        check_claim(parse_sentence(ex.question).kind == "question", f"{ex.id}: the question parses")


def check_folio_parses(examples: Sequence[FolioExample]) -> None:
    """Every generated FOLIO-lite sentence parses in the strict grammar."""
    for ex in examples:
        theory = parse_context(ex.context)
        check_claim(
            theory.ok,
            f"FOLIO-lite {ex.id}: every generated sentence parses, failed on {theory.failures[:1]}",
        )


# ---------------------------------------------------------------- count (per seed)
def check_majority_is_best_blind_guess(metrics: Mapping[str, Mapping], *, seed: int) -> None:
    """The constant majority guess, scored on every gold label, scores max_y p_y."""
    for dataset, m in metrics.items():
        check_claim(
            m["majority_baseline_acc"] == m["best_blind_guess_acc"],
            f"seed {seed}, {dataset}: the majority baseline scores the best input-blind guess "
            f"max_y p_y: {m['majority_baseline_acc']:.4f} vs {m['best_blind_guess_acc']:.4f}",
        )


# ---------------------------------------------------------------- score (per seed)
def check_gold_chains(examples: Sequence[ProntoExample]) -> None:
    """Every gold chain of thought passes the strict checker and decides the gold label."""
    for ex in examples:
        verdict = check_trace(list(ex.gold_cot), gold_theory(ex), parse_sentence(ex.question).atom)
        check_claim(
            verdict.strict and verdict.label == ex.gold_label,
            f"{ex.id}: the gold chain of thought is strict and decides the gold label "
            f"({verdict.reason or verdict.label})",
        )


def check_pipeline(traces: pd.DataFrame) -> None:
    """Translate-then-prove: every answered trace is a strict proof with the right label, it
    abstains exactly on the corrupted examples, and per depth right = strict = answered."""
    pipe = traces[traces["system"] == SYSTEMS[0]]
    answered = pipe[~pipe["abstained"]]
    n_strict = int(answered["strict"].sum())
    check_claim(
        n_strict == len(answered),
        f"every translate-then-prove trace passes the checker: {n_strict} of {len(answered)}",
    )
    n_right = int(answered["correct"].sum())
    check_claim(
        n_right == len(answered),
        f"translate-then-prove is right on every example it answers: {n_right} of {len(answered)}",
    )
    abst, corr = set(pipe.loc[pipe["abstained"], "id"]), set(pipe.loc[pipe["is_corrupted"], "id"])
    check_claim(
        abst == corr,
        f"the pipeline abstains exactly on the corrupted examples: {len(abst)} abstained, "
        f"{len(corr)} corrupted, {len(abst ^ corr)} differ",
    )
    for hops, g in pipe.groupby("hops", sort=True):
        counts = (int(g["correct"].sum()), int(g["strict"].sum()), int((~g["abstained"]).sum()))
        check_claim(
            counts[0] == counts[1] == counts[2],
            f"pipeline label acc = proof acc = coverage at {hops} hops: right {counts[0]}, "
            f"strict {counts[1]}, answered {counts[2]} of {len(g)}",
        )


def check_greedy(traces: pd.DataFrame, per_depth: pd.DataFrame, *, cap: int) -> None:
    """The greedy reasoner's mechanism, on every example (the chapter's derivations)."""
    greedy = traces[traces["system"] == SYSTEMS[1]]
    bad = greedy[greedy["strict"] & ~greedy["correct"]]
    check_claim(
        bad.empty, f"a strict greedy trace always carries the right label: {bad['id'].tolist()[:3]}"
    )
    n_right, n_strict = int(greedy["correct"].sum()), int(greedy["strict"].sum())
    n_rfwr = int((greedy["correct"] & ~greedy["strict"]).sum())
    check_claim(
        n_rfwr == n_right - n_strict,
        f"rfwr = label acc - proof acc for greedy: {n_rfwr} vs {n_right} - {n_strict}",
    )
    rows = per_depth[per_depth["system"] == SYSTEMS[1]]
    deep = rows[rows["hops"] >= 2]
    check_claim(
        bool((deep["proof_acc"] == 0.0).all()),
        f"greedy proof accuracy is 0 at every depth >= 2: {deep['proof_acc'].tolist()}",
    )
    within = rows[2 * rows["hops"] <= cap]
    check_claim(
        bool((within["label_acc"] == 1.0).all()),
        f"greedy labels are perfect wherever 2 x hops <= cap = {cap}: "
        f"{dict(zip(within['hops'], within['label_acc']))}",
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


def check_folio(preds: pd.DataFrame, table: pd.DataFrame) -> None:
    """FOLIO-lite: the dual query is exact; the majority row scores max_y p_y; never saying
    Unknown caps greedy CWA at 1 - P(Unknown), and it sits exactly there (in counts)."""
    acc = dict(zip(table["system"], table["overall"]))
    check_claim(
        acc[FOLIO_SYSTEMS[0]] == 1.0,
        f"dual-query accuracy is exactly 1.0, got {acc[FOLIO_SYSTEMS[0]]:.4f}",
    )
    gold = preds[preds["system"] == FOLIO_SYSTEMS[0]]["gold_label"]
    n_major = int(preds[preds["system"] == FOLIO_SYSTEMS[2]]["correct"].sum())
    top = max(int((gold == y).sum()) for y in LABEL_ORDER)
    check_claim(
        n_major == top,
        f"majority baseline = majority label count: {n_major} vs {top} of {len(gold)}",
    )
    cwa = preds[preds["system"] == FOLIO_SYSTEMS[1]]
    check_claim(not (cwa["label"] == "Unknown").any(), "greedy CWA never says Unknown")
    n_right, n_known = int(cwa["correct"].sum()), int((cwa["gold_label"] != "Unknown").sum())
    tf = cwa[cwa["gold_label"] != "Unknown"]
    check_claim(bool(tf["correct"].all()), "greedy CWA is perfect on True/False")
    check_claim(
        n_right == n_known,
        f"greedy CWA sits exactly at the never-Unknown cap: {n_right} right, "
        f"{n_known} not Unknown, of {len(cwa)}",
    )


# ---------------------------------------------------------------- benchmarks
def check_no_crash(crashes: Sequence[tuple[str, str]]) -> None:
    """Execution never crashes: an unreadable sentence is a counted parse failure."""
    first = f"; first: {crashes[0][0]}: {crashes[0][1]}" if crashes else ""
    check_claim(
        not crashes,
        f"execution never crashes (the reference labelers and score-nli): {len(crashes)} "
        f"crash(es){first}",
    )


def check_parse_failures_counted(agreement: pd.DataFrame) -> None:
    """Every question is either labelled or a counted parse failure: outcomes add up to n."""
    outcomes = ["True", "False", "Unknown", "Inconsistent", "Undecided"]
    for r in agreement.to_dict("records"):
        labelled = sum(int(r[o]) for o in outcomes)
        check_claim(
            labelled == r["parsed"] and r["parsed"] <= r["n"],
            f"{r['file']}: parsed {r['parsed']} = sum of outcomes {labelled} <= n {r['n']}",
        )


def check_proofwriter_total(agreement: pd.DataFrame) -> None:
    """The open-world chainer agrees with ProofWriter's gold label on every vendored question."""
    rows = agreement[agreement["benchmark"] == "proofwriter"]
    check_claim(len(rows) > 0, "a ProofWriter file is among the vendored benchmarks")
    for r in rows.to_dict("records"):
        check_claim(
            r["n_agree"] == r["parsed"] == r["n"],
            f"{r['file']}: ProofWriter agreement is total: {r['n_agree']} agree, "
            f"{r['parsed']} parsed, of {r['n']}",
        )


def check_baselines_beside(scores: pd.DataFrame, depth: pd.DataFrame) -> None:
    """Every accuracy the score-nli table prints sits beside finite input-blind baselines."""
    for r in scores.to_dict("records"):
        shown = [r["majority"], r["uniform"], r["blind_lo"], r["blind_hi"]]
        check_claim(
            bool(np.isfinite(shown).all()),
            f"{r['system']}: accuracy {r['accuracy']:.4f} is printed beside the majority, "
            f"uniform and blind-guess baselines, got {shown}",
        )
        check_claim(
            r["benchmark"] not in ("proofwriter", "folio") or np.isfinite(r["always_unknown"]),
            f"{r['system']}: 'always Unknown' is printed where Unknown is a label",
        )
    check_claim(
        bool(np.isfinite(depth["majority"]).all()),
        "every per-depth accuracy is printed beside the majority baseline of its depth",
    )


def check_programs_accounted(runs) -> None:
    """Execution never crashes: every program is executed or counted not executable, with why."""
    for run in runs:
        n = len(run.file.records)
        check_claim(
            len(run.executions) == n and run.summary["n"] == n,
            f"{run.name} ({run.semantics}): {len(run.executions)} executions for {n} programs",
        )
        missing = [e.id for e in run.executions if not e.executable and not e.reason]
        check_claim(
            not missing,
            f"{run.name} ({run.semantics}): a non-executable program has no reason: {missing[:3]}",
        )


def check_gold_chains_agree(checker: pd.DataFrame) -> None:
    """On uncorrupted gold chains both checkers accept every proof, strictly and broadly."""
    gold = checker.set_index("kind").loc["gold"]
    check_claim(
        gold["strict_agree"] == 1.0 and gold["broad_agree"] == 1.0,
        f"the two checkers agree on every gold chain: strict {gold['strict_agree']}, "
        f"broad {gold['broad_agree']}",
    )
