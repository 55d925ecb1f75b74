"""How often does label-only training land on a shortcut?  The incidence sweep.

One sweep cell is a (task, support fraction) pair; in it a batch of label-only
models that differ only in their initialisation seed is trained on the same
data.  Each run is classified from its learned relabeling ``alpha`` (true state
-> majority predicted state, read off the evaluated clusters: the test split
for observed states, the ood split for unobserved ones):

- *label-perfect*: alpha is one of the optima the counter counts on the observed
  support (``K(alpha(g)) = K(g)`` on every observed state, asked of
  :func:`nesybench.counting.is_optimum`, never re-implemented) and the test label
  accuracy is at least ``min_acc_y`` (alpha is a majority vote, so the accuracy guard
  keeps a noisy model from passing on its majorities alone);
- *shortcut*: label-perfect and ``alpha`` is not the identity;
- *collapse*: label-perfect and ``alpha`` is not injective.

The rate of shortcuts gets a 95% Wilson interval
(:func:`nesybench.metrics.stats.wilson_interval`, the one interval engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..counting import is_optimum
from ..logic.knowledge import Knowledge
from ..metrics.stats import wilson_interval
from .model import KnowledgeTable, concept_probs, predict_labels
from .panel import alpha_string, is_identity, is_injective, learned_relabeling


@dataclass(frozen=True)
class RunOutcome:
    seed_index: int
    acc_y_test: float
    acc_c_test: float
    acc_y_ood: float  # NaN when the ood split is empty (full support)
    alpha: dict
    alpha_optimum: bool  # alpha covers the support and is one of the counted optima
    label_perfect: bool
    identity: bool
    injective: bool

    @property
    def shortcut(self) -> bool:
        return self.label_perfect and not self.identity

    @property
    def collapse(self) -> bool:
        return self.label_perfect and not self.injective

    def row(self) -> dict:
        return {
            "seed_index": self.seed_index,
            "acc_y_test": self.acc_y_test,
            "acc_c_test": self.acc_c_test,
            "acc_y_ood": self.acc_y_ood,
            "alpha": alpha_string(self.alpha),
            "alpha_optimum": self.alpha_optimum,
            "identity": self.identity,
            "injective": self.injective,
            "label_perfect": self.label_perfect,
            "shortcut": self.shortcut,
            "collapse": self.collapse,
        }


def evaluate_runs(
    params,
    kb: KnowledgeTable,
    splits: dict,
    support: Sequence[str],
    *,
    knowledge: Knowledge,
    min_acc_y: float,
) -> list[RunOutcome]:
    """Classify every model of a trained batch (see the module docstring).

    ``splits`` maps split name -> ``(X, G, Y)``; ``"test"`` is required,
    ``"ood"`` is used when it has points.  ``knowledge`` is the task's knowledge
    (``kb`` is its lookup table), for the counter's membership test.
    """
    k = kb.n_concepts
    evaluated = {}
    for name in ("test", "ood"):
        if name not in splits or len(splits[name][1]) == 0:
            continue
        X, G, Y = splits[name]
        P = concept_probs(params, X, n_concepts=k)
        evaluated[name] = (G, Y, P.argmax(axis=-1), predict_labels(params, X, kb))
    outcomes = []
    for b in range(params.n_models):
        alpha: dict[str, str] = {}
        acc = {}
        for name, (G, Y, c_pred, y_pred) in evaluated.items():
            alpha.update(learned_relabeling(G, c_pred[b]))
            acc[name] = float(np.mean(y_pred[b] == Y))
            if name == "test":
                acc_c = float(np.mean(c_pred[b] == G))
        optimum = all(g in alpha for g in support) and is_optimum(alpha, knowledge, support)
        perfect = optimum and acc["test"] >= min_acc_y
        outcomes.append(
            RunOutcome(
                seed_index=b,
                acc_y_test=acc["test"],
                acc_c_test=acc_c,
                acc_y_ood=acc.get("ood", float("nan")),
                alpha=dict(sorted(alpha.items())),
                alpha_optimum=bool(optimum),
                label_perfect=bool(perfect),
                identity=is_identity(alpha),
                injective=is_injective(alpha),
            )
        )
    return outcomes


def incidence_counts(label_perfect, shortcut, collapse) -> dict:
    """Counts of one sweep cell and its shortcut rate with a 95% Wilson interval.

    Parameters
    ----------
    label_perfect, shortcut, collapse : sequences of bool, one entry per run.

    Notes
    -----
    ``rate = n_shortcut / n_runs``; interval from
    :func:`~nesybench.metrics.stats.wilson_interval`.
    """
    label_perfect = np.asarray(label_perfect, dtype=bool)
    shortcut = np.asarray(shortcut, dtype=bool)
    collapse = np.asarray(collapse, dtype=bool)
    n = int(len(shortcut))
    n_short = int(shortcut.sum())
    lo, hi = wilson_interval(n_short, n)
    return {
        "n_runs": n,
        "n_label_perfect": int(label_perfect.sum()),
        "n_identity": int((label_perfect & ~shortcut).sum()),
        "n_shortcut": n_short,
        "n_collapse": int(collapse.sum()),
        "rate": n_short / n if n else float("nan"),
        "rate_lo": lo,
        "rate_hi": hi,
    }


def incidence_summary(outcomes: Sequence[RunOutcome]) -> dict:
    """:func:`incidence_counts` of a list of classified runs."""
    return incidence_counts(
        [o.label_perfect for o in outcomes],
        [o.shortcut for o in outcomes],
        [o.collapse for o in outcomes],
    )


def runs_frame(outcomes: Sequence[RunOutcome], **columns) -> pd.DataFrame:
    """One row per run, with constant ``columns`` (e.g. task, support) in front."""
    rows = [{**columns, **o.row()} for o in outcomes]
    return pd.DataFrame(rows)


def rescore_runs(runs: pd.DataFrame, *, min_acc_y: float) -> pd.DataFrame:
    """The runs' verdicts at another label-perfect threshold (``models.min_acc_y``).

    A run's alpha, whether it is a counted optimum, and its test AccY do not depend on the
    threshold; only ``label_perfect`` (optimum and AccY >= ``min_acc_y``) and with it
    ``shortcut`` and ``collapse`` do, so no model is retrained.
    """
    perfect = runs["alpha_optimum"].astype(bool) & (runs["acc_y_test"] >= float(min_acc_y))
    return runs.assign(
        label_perfect=perfect,
        shortcut=perfect & ~runs["identity"].astype(bool),
        collapse=perfect & ~runs["injective"].astype(bool),
    )


OPTIMUM_KINDS = ("identity", "symmetry", "partial_collapse", "full_collapse", "not_label_perfect")


def optimum_kind(alpha: str, *, label_perfect: bool, labels: dict[str, int]) -> str:
    """The kind of optimum a run lands on, from its learned relabeling ``alpha``.

    ``identity``; ``symmetry`` (a bijective label-preserving map other than the identity);
    ``full_collapse`` (non-injective, down to one predicted state per label: the fewest a
    label-preserving map can use); ``partial_collapse`` (non-injective, more states than
    that); ``not_label_perfect``.  ``labels`` maps each true state to its label.

    >>> xor = {"00": 0, "01": 1, "10": 1, "11": 0}
    >>> optimum_kind("00->00 01->01 10->01 11->11", label_perfect=True, labels=xor)
    'partial_collapse'
    >>> optimum_kind("00->11 01->10 10->10 11->11", label_perfect=True, labels=xor)
    'full_collapse'
    """
    if not label_perfect:
        return "not_label_perfect"
    pairs = dict(pair.split("->") for pair in alpha.split())
    if all(k == v for k, v in pairs.items()):
        return "identity"
    image = set(pairs.values())
    if len(image) == len(pairs):
        return "symmetry"
    n_labels = len({labels[g] for g in pairs})
    return "full_collapse" if len(image) == n_labels else "partial_collapse"
