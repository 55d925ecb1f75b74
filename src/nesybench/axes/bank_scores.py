"""One seed's depth bank, scored: the soft reasoner and translate-then-prove on the same
evaluation questions, the flip probe and the mixture confound.

:func:`score_bank` returns every table and number the score stage writes for the bank; the
chapter's structural claims on them are checked by :mod:`nesybench.axes.claims`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..reasoning.terms import Theory
from .flip import flip_probe, flip_summary
from .lexical import repair_lexicon, run_pipeline
from .soft_reasoner import SoftReasoner, feature_matrix
from .summaries import bank_numbers, mixture_tables, per_depth_table, synonym_depth_table


@dataclass(frozen=True)
class BankScores:
    """What :func:`score_bank` computed for one seed."""

    per_depth: pd.DataFrame  # the per-depth factorization beside the soft reasoner
    synonym_depth: pd.DataFrame  # which synonym hits which depth
    pipeline: pd.DataFrame  # translate-then-prove, question by question
    flips: pd.DataFrame  # the flip probe, one row per flipped question
    flip: dict  # the flip probe's counts and accuracies
    mixture: pd.DataFrame  # two-depth ties and pure-depth winners
    ties: list[dict]  # the raw ties (for the structural check)
    numbers: dict[str, float]  # the bank's columns of the seed summary


def score_bank(
    questions: pd.DataFrame,
    theories: Mapping[tuple[str, int], Theory],
    model: SoftReasoner,
    *,
    seed: int,
) -> BankScores:
    """Both systems on ``questions`` (the evaluation split), the flip probe and the mixture."""
    soft_pred = model.predict(feature_matrix(questions, theories))
    soft_correct = soft_pred == questions["label"].to_numpy(dtype=bool)
    pipeline = run_pipeline(questions, theories, lexicon=repair_lexicon())
    per_depth = per_depth_table(questions, pipeline, soft_correct)
    flips = flip_probe(questions, theories, model, seed=seed)
    flip = flip_summary(flips)
    mixture, mixture_numbers, ties = mixture_tables(per_depth)
    return BankScores(
        per_depth=per_depth,
        synonym_depth=synonym_depth_table(questions, pipeline),
        pipeline=pipeline,
        flips=flips,
        flip=flip,
        mixture=mixture,
        ties=ties,
        numbers=bank_numbers(per_depth, pipeline, flip, mixture_numbers),
    )
