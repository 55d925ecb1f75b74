"""How often does label-only training land on a shortcut?  The incidence sweep.

One sweep cell is a (task, support fraction) pair; in it a batch of label-only
models that differ only in their initialisation seed is trained on the same
data.  Each run is classified from its learned relabeling ``alpha`` (true state
-> majority predicted state, read off the evaluated clusters: the test split
for observed states, the ood split for unobserved ones):

- *label-perfect*: ``K(alpha(g)) = K(g)`` on every observed state and the test
  label accuracy is at least ``min_acc_y`` (alpha is a majority vote, so the
  accuracy guard keeps a noisy model from passing on its majorities alone);
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
from ..metrics.stats import wilson_interval
from .model import (
    ConceptNetConfig,
    KnowledgeTable,
    concept_probs,
    init_params,
    predict_labels,
    train,
)
from .panel import alpha_string, is_identity, is_injective, learned_relabeling, state_string


def init_seed(base_seed: int, name: str, index: int) -> np.random.SeedSequence:
    """Child seed of run ``index`` of the sweep called ``name`` (derived by name, never by position
    in a dict)."""
    return np.random.SeedSequence([int(base_seed), *name.encode("utf-8"), 0, int(index)])


def label_preserving(
    alpha: dict[str, str], label_of: dict[str, int], states: Sequence[str]
) -> bool:
    """``K(alpha(g)) = K(g)`` for every ``g`` in ``states`` (all must be in ``alpha``)."""
    return is_optimum(alpha, label_of, states, missing="reject")


@dataclass(frozen=True)
class RunOutcome:
    seed_index: int
    acc_y_test: float
    acc_c_test: float
    acc_y_ood: float  # NaN when the ood split is empty (full support)
    alpha: dict
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
            "label_perfect": self.label_perfect,
            "shortcut": self.shortcut,
            "collapse": self.collapse,
        }


def evaluate_runs(
    params, kb: KnowledgeTable, splits: dict, support: Sequence[str], *, min_acc_y: float
) -> list[RunOutcome]:
    """Classify every model of a trained batch (see the module docstring).

    ``splits`` maps split name -> ``(X, G, Y)``; ``"test"`` is required,
    ``"ood"`` is used when it has points.
    """
    label_of = {state_string(s): int(y) for s, y in zip(kb.states, kb.labels)}
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
        perfect = label_preserving(alpha, label_of, support) and acc["test"] >= min_acc_y
        outcomes.append(
            RunOutcome(
                seed_index=b,
                acc_y_test=acc["test"],
                acc_c_test=acc_c,
                acc_y_ood=acc.get("ood", float("nan")),
                alpha=dict(sorted(alpha.items())),
                label_perfect=bool(perfect),
                identity=is_identity(alpha),
                injective=is_injective(alpha),
            )
        )
    return outcomes


def train_label_only_sweep(
    X, Y, G, kb: KnowledgeTable, *, seeds, config: ConceptNetConfig, callback=None
):
    """Train one label-only model per seed, all in one batch; returns ``(initial params,
    TrainResult)``."""
    p0 = init_params(
        seeds, n_inputs=np.asarray(X).shape[1], n_concepts=kb.n_concepts, config=config
    )
    return p0, train(p0, X, Y, G, kb, config=config, callback=callback)


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
