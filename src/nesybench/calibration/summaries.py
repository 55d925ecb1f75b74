"""The calibration instrument's tables, built from one seed's data (no I/O, no printing)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.calibration import (
    bootstrap_interval,
    brier_score,
    expected_calibration_error,
    nll_from_probs,
    roc_auc,
    sigmoid,
)
from ..seeds import child_rng
from ..sweep import Metric
from .claims import seed_claims
from .methods import METHODS

# The per-seed numbers summarised over the sweep (columns of ``seed_summary``).
SEED_METRICS = (
    Metric("tau", "fitted temperature tau"),
    Metric("ece_before", "eval-half ECE of sigmoid(s)"),
    Metric("ece_after_temperature", "eval-half ECE after temperature"),
    Metric("ece_change_temperature", "ECE change under temperature (after - before)"),
    Metric("ece_after_platt", "eval-half ECE after Platt"),
    Metric("ece_after_isotonic", "eval-half ECE after isotonic"),
    Metric("nll_before", "eval-half NLL of sigmoid(s)"),
    Metric("nll_change_temperature", "NLL change under temperature (after - before)"),
    Metric("brier_before", "eval-half Brier of sigmoid(s)"),
    Metric("brier_after_temperature", "eval-half Brier after temperature"),
    Metric("brier_change_temperature", "Brier change under temperature (after - before)"),
    Metric("accuracy", "eval-half accuracy at 0.5 (unchanged by temperature)"),
    Metric("auc", "eval-half AUC (unchanged by temperature)"),
    Metric("heldout_min_p", "lowest raw probability of a held-out TRUE fact"),
)


def triple_text(df: pd.DataFrame) -> pd.Series:
    return "(" + df["head"] + ", " + df["relation"] + ", " + df["tail"] + ")"


def class_mix(labelled: pd.DataFrame) -> pd.DataFrame:
    """Size, positives, negatives and base rate of the whole set and of each half."""
    rows = []
    for split in ("all", "cal", "eval"):
        part = labelled if split == "all" else labelled[labelled["split"] == split]
        pos = int(part["label"].sum())
        rows.append(
            {
                "split": split,
                "n": len(part),
                "positives": pos,
                "negatives": len(part) - pos,
                "base_rate": pos / len(part),
                "heldout_positives": int((part["source"] == "heldout").sum()),
            }
        )
    return pd.DataFrame(rows)


def embedding_table(model, world) -> pd.DataFrame:
    """Every learned embedding coordinate, long format (kind, name, k, re, im)."""
    rows = []
    for kind, names, re_, im_ in (
        ("entity", world.entities, model.ent_re, model.ent_im),
        ("relation", world.relations, model.rel_re, model.rel_im),
    ):
        for i, name in enumerate(names):
            for k in range(re_.shape[1]):
                rows.append(
                    {
                        "kind": kind,
                        "name": name,
                        "k": k,
                        "re": float(re_[i, k]),
                        "im": float(im_[i, k]),
                    }
                )
    return pd.DataFrame(rows)


def heldout_table(df: pd.DataFrame, *, p_after: np.ndarray | None = None) -> pd.DataFrame:
    """The held-out true facts with their raw probability (and after temperature, if given)."""
    held = df[df["source"] == "heldout"]
    table = pd.DataFrame(
        {
            "triple_id": held["triple_id"],
            "triple": triple_text(held),
            "score": held["score"],
            "p": sigmoid(held["score"].to_numpy()),
        }
    )
    if p_after is not None:
        table["p_temperature"] = p_after[held.index.to_numpy()]
    table["split"] = held["split"]
    return table


def seed_summary(
    seed: int, fit, before: dict, repairs: dict, *, heldout_min_p: float, heldout_in_eval: int
) -> pd.DataFrame:
    """One row: this seed's headline numbers, how many held-out true facts its evaluation half
    holds, and the directional claims' verdicts."""
    after = repairs["temperature"].after.summary
    row = {
        "seed": seed,
        "tau": fit.tau,
        "ece_before": before["ece"],
        "ece_after_temperature": after["ece"],
        "ece_change_temperature": after["ece"] - before["ece"],
        "ece_after_platt": repairs["platt"].after.summary["ece"],
        "ece_after_isotonic": repairs["isotonic"].after.summary["ece"],
        "nll_before": before["nll"],
        "nll_change_temperature": after["nll"] - before["nll"],
        "brier_before": before["brier"],
        "brier_after_temperature": after["brier"],
        "brier_change_temperature": after["brier"] - before["brier"],
        "accuracy": before["acc"],
        "auc": before["auc"],
        "heldout_min_p": float(heldout_min_p),
        "heldout_in_eval": int(heldout_in_eval),
        **seed_claims(
            tau=fit.tau,
            at_edge=bool(fit.at_bracket_edge),
            before=before,
            after=after,
            heldout_min_p=heldout_min_p,
        ),
    }
    return pd.DataFrame([row])


def bootstrap_table(
    df: pd.DataFrame, ev: np.ndarray, repairs: dict, *, params: dict, seed: int
) -> pd.DataFrame:
    """Stratified-bootstrap intervals of ECE, Brier, NLL and AUC for each reading, eval half.

    Each (reading, metric) pair draws from its own named stream of ``seed``, so adding a
    reading never changes another's interval.
    """
    y = df["label"].to_numpy()[ev]
    s = df["score"].to_numpy()[ev]
    opts = dict(n_bins=params["n_bins"], strategy=params["strategy"])
    metrics = {
        "ece": lambda yy, pp: expected_calibration_error(yy, pp, **opts),
        "brier": brier_score,
        "nll": nll_from_probs,
        "auc": roc_auc,
    }
    readings = {"before": sigmoid(s), **{m: repairs[m].p_all[ev] for m in METHODS}}
    bs = params["bootstrap"]
    rows = []
    for reading, probs in readings.items():
        for metric, fn in metrics.items():
            lo, hi = bootstrap_interval(
                fn,
                y,
                probs,
                n_resamples=bs["resamples"],
                level=bs["level"],
                rng=child_rng(seed, "calibration", "bootstrap", reading, metric),
            )
            rows.append(
                {
                    "reading": reading,
                    "metric": metric,
                    "estimate": float(fn(y, probs)),
                    "lo": lo,
                    "hi": hi,
                }
            )
    return pd.DataFrame(rows)
