"""Run the nli systems over the corpora and score them: one row per (example, system).

``traces`` rows carry the label, the abstention, the checker's four flags and
``strict``; :func:`summarize` turns a group of rows into the metric-trap numbers

    label_acc  = P(label right)            (an abstention is wrong)
    proof_acc  = P(trace strict)
    abstention = P(no answer)
    rfwr       = P(label right and trace not strict)

and ``rfwr = label_acc - proof_acc`` whenever a strict trace implies a right label.
"""

from __future__ import annotations

import pandas as pd

from ..progress import progress
from ..reasoning.grammar.prontoqa import render_fact
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.terms import Theory
from .checker import FLAGS, check_trace
from .folio_lite import LABEL_ORDER
from .prontoqa_lite import ProntoExample
from .systems import (
    dual_query_label,
    greedy_cwa_label,
    greedy_reason,
    majority_label,
    translate_then_prove,
)

SYSTEMS = ("translate-then-prove", "greedy")
FOLIO_SYSTEMS = ("dual-query prover", "greedy CWA", "majority")


def gold_theory(ex: ProntoExample) -> Theory:
    """The uncorrupted context: what the checker and the greedy system read."""
    return parse_context(" ".join(ex.gold_rules) + " " + render_fact(ex.axiom))


def predicted_goal_firing(ex: ProntoExample, *, cap: int) -> int | None:
    """Where the first-applicable scan reaches the goal, from the order coins alone.

    Hop ``i``'s two rules fire as firings ``2i+1`` and ``2i+2`` (an unfired rule
    of an earlier hop is always listed before any later hop's rules), so the goal
    is firing ``2h-1`` when the last hop lists the gold rule first, else ``2h``.
    """
    firing = 2 * ex.hops - 1 if ex.gold_first[-1] else 2 * ex.hops
    return firing if firing <= cap else None


def score_prontoqa(examples: list[ProntoExample], *, cap: int) -> pd.DataFrame:
    """One row per (example, system): label, abstention, the checker's flags, the trace."""
    rows = []
    for ex in progress(examples, desc="nli: PrOntoQA-lite systems + checker"):
        theory = gold_theory(ex)
        question = parse_sentence(ex.question).atom
        pipe = translate_then_prove(ex.context, ex.question)
        greedy, reached_at = greedy_reason(
            ex.axiom, theory.rules, ex.goal, positive_query=ex.positive_query, cap=cap
        )
        for system, ans, reach in ((SYSTEMS[0], pipe, None), (SYSTEMS[1], greedy, reached_at)):
            if ans.abstained:
                flags = {f: False for f in FLAGS}
                reason = ans.reason
            else:
                verdict = check_trace(list(ans.trace), theory, question)
                flags = {f: getattr(verdict, f) for f in FLAGS}
                reason = verdict.reason
            rows.append(
                {
                    "id": ex.id,
                    "hops": ex.hops,
                    "system": system,
                    "gold_label": ex.gold_label,
                    "label": ans.label if ans.label is not None else "abstain",
                    "abstained": ans.abstained,
                    "correct": ans.label == ex.gold_label,
                    **flags,
                    "reason": reason,
                    "trace": " | ".join(ans.trace),
                    "is_corrupted": ex.corrupted >= 0,
                    "goal_firing": -1 if reach is None else int(reach),
                    "predicted_goal_firing": -1
                    if system != "greedy"
                    else (predicted_goal_firing(ex, cap=cap) or -1),
                }
            )
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> dict:
    """The metric-trap numbers of a group of ``traces`` rows (formulas in the module docstring)."""
    n = len(df)
    return {
        "n": n,
        "label_acc": float(df["correct"].mean()),
        "proof_acc": float(df["strict"].mean()),
        "abstention": float(df["abstained"].mean()),
        # right for the wrong reason: P(label right and trace not strict)
        "rfwr": float((df["correct"] & ~df["strict"]).mean()),
    }


def score_folio(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (example, system) on FOLIO-lite.

    The majority baseline is the constant guess of the corpus's most frequent
    gold label (in-sample, as the chapter scores it): its accuracy is max_y p_y.
    """
    majority = majority_label(list(records["gold_label"]))
    rows = []
    for rec in progress(list(records.itertuples(index=False)), desc="nli: FOLIO-lite systems"):
        theory = parse_context(rec.context)
        query = parse_sentence(rec.conclusion).atom
        for system, label in (
            (FOLIO_SYSTEMS[0], dual_query_label(theory, query)),
            (FOLIO_SYSTEMS[1], greedy_cwa_label(theory, query)),
            (FOLIO_SYSTEMS[2], majority),
        ):
            rows.append(
                {
                    "id": rec.id,
                    "system": system,
                    "gold_label": rec.gold_label,
                    "label": label,
                    "correct": label == rec.gold_label,
                }
            )
    return pd.DataFrame(rows)


def folio_per_label(preds: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per gold label, acc_y = P(label = y | gold = y), and overall, per system."""
    rows = []
    for system in FOLIO_SYSTEMS:
        d = preds[preds["system"] == system]
        row = {"system": system}
        for y in LABEL_ORDER:
            sub = d[d["gold_label"] == y]
            row[f"acc_{y}"] = float(sub["correct"].mean()) if len(sub) else float("nan")
        row["overall"] = float(d["correct"].mean())
        rows.append(row)
    return pd.DataFrame(rows)
