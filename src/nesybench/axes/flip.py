"""The flip probe (RobustLR-style logic edit).

In every evaluation theory one rule with an extra condition is edited so that
the condition's polarity flips (``c`` becomes ``not c`` or back); gold labels
are recomputed by the forward chainer on the edited theory and only the
questions whose label flips are kept.  On those, the soft reasoner is scored
before the edit (old theory, old labels) and after it (edited theory, new
labels); the prover re-derives every new label from the edited theory, so a
translate-then-prove system tracks every flip by construction -- which is
checked question by question, not assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from ..reasoning.chainer import forward_chain
from ..reasoning.prover import Prover
from ..reasoning.terms import Atom, Literal, Rule, Theory
from ..seeds import child_rng
from .lexical import answer
from .soft_reasoner import SoftReasoner, feature_matrix


def flip_one_condition(theory: Theory, rng: np.random.Generator) -> tuple[Theory, int | None]:
    """The theory with one seeded rule's extra condition negated (or un-negated).

    Returns ``(edited, rule_index)``; ``rule_index`` is None (and the theory
    unchanged) when no rule has an extra condition.
    """
    candidates = [i for i, r in enumerate(theory.rules) if len(r.body) > 1]
    if not candidates:
        return theory, None
    i = candidates[int(rng.integers(len(candidates)))]
    rule = theory.rules[i]
    extra = rule.body[1]
    edited_rule = Rule(rule.head, (rule.body[0], Literal(extra.atom, positive=not extra.positive)))
    rules = theory.rules[:i] + (edited_rule,) + theory.rules[i + 1 :]
    return replace(theory, rules=rules), i


def flip_probe(
    questions: pd.DataFrame,
    theories: Mapping[tuple[str, int], Theory],
    model: SoftReasoner,
    *,
    seed: int,
) -> pd.DataFrame:
    """One row per question whose gold label flips under its theory's edit.

    Columns: ``split, qid, theory, depth, edited_rule, label_before, label_after,
    soft_before, soft_after, prover_after``.
    """
    edited: dict[tuple[str, int], Theory] = {}
    edited_rule: dict[tuple[str, int], int | None] = {}
    for key in sorted(
        {(s, int(t)) for s, t in questions[["split", "theory"]].itertuples(index=False)}
    ):
        rng = child_rng(seed, "flip", key[0], key[1])
        edited[key], edited_rule[key] = flip_one_condition(theories[key], rng)
    closures = {k: forward_chain(t.facts, t.rules) for k, t in edited.items()}
    new_label = np.array(
        [
            closures[(s, int(t))].holds(Atom(p, (e,))) != bool(n)
            for s, t, p, e, n in questions[
                ["split", "theory", "pred", "entity", "negated"]
            ].itertuples(index=False)
        ],
        dtype=bool,
    )
    flipped = questions.loc[new_label != questions["label"].to_numpy(dtype=bool)].copy()
    flipped["label_after"] = new_label[new_label != questions["label"].to_numpy(dtype=bool)]
    if flipped.empty:
        return flipped.assign(soft_before=[], soft_after=[], prover_after=[], edited_rule=[])
    flipped["soft_before"] = model.predict(feature_matrix(flipped, theories))
    flipped["soft_after"] = model.predict(feature_matrix(flipped, edited))
    provers = {k: Prover(t.facts, t.rules) for k, t in edited.items()}
    flipped["prover_after"] = [
        answer(Atom(("not_" if n else "") + p, (e,)), provers[(s, int(t))])
        for s, t, p, e, n in flipped[["split", "theory", "pred", "entity", "negated"]].itertuples(
            index=False
        )
    ]
    flipped["edited_rule"] = [
        edited_rule[(s, int(t))] for s, t in flipped[["split", "theory"]].itertuples(index=False)
    ]
    out = flipped.rename(columns={"label": "label_before"})
    return out[
        [
            "split",
            "qid",
            "theory",
            "depth",
            "edited_rule",
            "label_before",
            "label_after",
            "soft_before",
            "soft_after",
            "prover_after",
        ]
    ].reset_index(drop=True)


def flip_summary(flips: pd.DataFrame) -> dict[str, float | int]:
    """Counts and accuracies of the probe (``soft_*`` against the label of its own theory)."""
    n = len(flips)
    before = int((flips["soft_before"] == flips["label_before"]).sum()) if n else 0
    after = int((flips["soft_after"] == flips["label_after"]).sum()) if n else 0
    prover = int((flips["prover_after"] == flips["label_after"]).sum()) if n else 0
    return {
        "n_flipped": n,
        "soft_correct_before": before,
        "soft_accuracy_before": before / n if n else float("nan"),
        "soft_tracked_after": after,
        "soft_accuracy_after": after / n if n else float("nan"),
        "prover_tracked_after": prover,
        "prover_accuracy_after": prover / n if n else float("nan"),
    }
