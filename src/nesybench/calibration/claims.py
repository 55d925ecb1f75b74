"""The calibration chapter's claims, each a named check (thresholds live in params.yaml).

Two kinds:

* **structural** -- identities and invariances that must hold on every seed (the Brier
  decomposition, the stratified split, temperature scaling's invariances, NLL not rising at
  the fitted tau, tau inside its bracket); each raises ``ClaimFailed`` in the job of the seed
  where it breaks;
* **directional** -- what the chapter found on its one world ("the raw reading is
  overconfident", "temperature scaling strictly lowers the ECE"), which may hold on some
  seeds only: checked per seed, summarised over the sweep by :mod:`nesybench.sweep`, and
  enforced only where ``claims.<name>.enforce`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..errors import check_claim
from ..sweep import SeedClaim

# Directional claims, one boolean column each in the per-seed summary.
SEED_CLAIMS = (
    SeedClaim(
        "tau_above_1",
        "the raw reading is overconfident: the fitted temperature tau > 1",
        metric="tau",
    ),
    SeedClaim(
        "ece_improves",
        "temperature scaling strictly lowers the eval-half ECE",
        metric="ece_change_temperature",
    ),
    SeedClaim(
        "nll_improves",
        "temperature scaling lowers the eval-half NLL",
        metric="nll_change_temperature",
    ),
    SeedClaim(
        "tau_interior",
        "the calibration-half NLL has an interior minimum: tau is inside its search bracket",
    ),
    SeedClaim(
        "heldout_confidently_wrong",
        "some held-out TRUE fact gets p < 0.5 from the raw model",
        metric="heldout_min_p",
    ),
    SeedClaim(
        "brier_rises",
        "temperature scaling raises the eval-half Brier score (chapter: a hair worse, 0.0216 "
        "-> 0.0221)",
        metric="brier_change_temperature",
    ),
)


def check_stratified_split(
    mix: pd.DataFrame, *, fraction: float, seed: int, stratify: str = "label"
) -> None:
    """Each class goes to the calibration half in the same proportion, up to rounding; with
    ``stratify="label_heldout"`` the held-out true facts too."""
    by = mix.set_index("split")
    strata = ("positives", "negatives")
    if stratify == "label_heldout":
        strata += ("heldout_positives",)
    for cls in strata:
        share = fraction * by.loc["all", cls]
        check_claim(
            abs(by.loc["cal", cls] - share) <= 0.5,
            f"seed {seed}: the stratified split puts {fraction} of the {cls} in the calibration "
            f"half up to rounding, got {by.loc['cal', cls]} of {by.loc['all', cls]}",
        )


def check_brier_identity(summary: Mapping[str, float]) -> None:
    """Brier = calibration + refinement + residual, on the published numbers."""
    parts = summary["brier_calibration"] + summary["brier_refinement"] + summary["brier_residual"]
    check_claim(
        abs(parts - summary["brier"]) <= 1e-12,
        f"Brier = calibration + refinement + residual: {summary['brier']!r} vs {parts!r}",
    )


def check_temperature_fit(fit) -> None:
    """The golden-section search found a temperature no worse than tau = 1.

    (Whether the minimum is interior is a seed claim: on a calibration half that the raw
    scores separate, the NLL keeps falling as tau -> 0 and the search stops at the bracket.)
    """
    check_claim(
        fit.nll <= fit.nll_at_1,
        f"fitted NLL on the calibration half {fit.nll!r} <= NLL at tau=1 {fit.nll_at_1!r}",
    )


def check_temperature_invariances(temp, before: Mapping, n_triples: int) -> None:
    """Temperature scaling is monotone: decisions and accuracy are bit-identical and no two
    scores change order; the stable argsort and the AUC are bit-identical too unless the
    sigmoid's saturation made or broke ties (``same_ties``), which floats allow a monotone
    map to do (:func:`nesybench.metrics.calibrators.invariances`)."""
    inv = temp.invariance
    for prop, what in (
        ("decisions", "leaves decisions bit-identical"),
        ("accuracy", "leaves accuracy bit-identical"),
        ("order", "reverses the order of no two scores"),
    ):
        check_claim(inv[prop], f"temperature scaling {what} over all {n_triples} triples")
    check_claim(
        not inv["same_ties"] or (inv["argsort"] and inv["auc"]),
        f"temperature scaling that makes or breaks no ties leaves the argsort and the AUC "
        f"bit-identical over all {n_triples} triples",
    )
    after = temp.after.summary
    check_claim(
        after["acc"] == before["acc"] and (not inv["same_ties"] or after["auc"] == before["auc"]),
        f"eval-half acc (and AUC, with the same ties) unchanged by temperature: acc "
        f"{before['acc']!r} -> {after['acc']!r}, AUC {before['auc']!r} -> {after['auc']!r}",
    )


def seed_claims(
    *, tau: float, at_edge: bool, before: Mapping, after: Mapping, heldout_min_p: float
) -> dict:
    """The directional claims' verdicts on one seed (columns of the per-seed summary)."""
    return {
        "tau_above_1": bool(tau > 1),
        "tau_interior": not at_edge,
        "ece_improves": bool(after["ece"] < before["ece"]),
        "nll_improves": bool(after["nll"] < before["nll"]),
        "heldout_confidently_wrong": bool(heldout_min_p < 0.5),
        "brier_rises": bool(after["brier"] > before["brier"]),
    }
