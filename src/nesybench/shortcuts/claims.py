"""The chapter's claims about concept models, each a named check (thresholds live in params.yaml).

Two kinds, as in every instrument (:mod:`nesybench.sweep`):

* **directional** -- what the chapter found on its one committed seed: "labels cannot tell
  the two models apart", "every concept-level metric can" (AccC, F1(C), Cls(C), ECE(C) past
  the chapter's thresholds), "the OOD alarm rings", and on real digits "concept supervision
  lowers shortcut incidence; in-distribution AccY cannot tell the models apart; OOD AccY
  can".  Each is a boolean per seed (the functions ``*_seed_claims``), summarised over the
  sweep as a rate with a Wilson interval and enforced only where ``claims.<name>.enforce``
  says so; the thresholds they compare with are ``claims.thresholds``;
* **structural** -- exact counts and identities that must hold on every seed and every
  exhibit: the counter's survivors of the biased support, the exhibit's caught relabeling
  being a counted, non-injective, non-identity optimum, calibration keeping every argmax.
  Each raises ``ClaimFailed`` in the job where it breaks.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..counting import is_optimum
from ..errors import check_claim
from ..sweep import SeedClaim
from .panel import alpha_string, is_identity, is_injective

__all__ = [
    "H2H_CLAIMS",
    "DIGIT_CLAIMS",
    "CALIBRATION_CLAIMS",
    "h2h_seed_claims",
    "digit_seed_claims",
    "calibration_seed_claims",
    "check_exhibit_alpha",
    "check_ood_survivors",
    "check_accuracy_kept",
]

# ---- directional, per seed -------------------------------------------------------------

H2H_CLAIMS = (
    SeedClaim(
        "h2h_labels_indistinguishable",
        "labels cannot tell them apart: both models reach AccY >= acc_y_min",
    ),
    SeedClaim(
        "h2h_twin_identity",
        "the concept-supervised twin's relabeling alpha is the identity",
    ),
    SeedClaim(
        "h2h_label_only_collapses",
        "the label-only net lands on a collapsing shortcut (label-perfect, alpha non-injective)",
        metric="label_only_concept_collapse",
    ),
    SeedClaim(
        "h2h_acc_c_separates",
        "AccC separates: label-only <= acc_c_shortcut_max, twin >= acc_c_twin_min",
        metric="label_only_concept_accuracy",
    ),
    SeedClaim(
        "h2h_f1_c_separates",
        "F1(C) separates: label-only <= acc_c_shortcut_max, twin >= acc_c_twin_min",
        metric="label_only_concept_f1",
    ),
    SeedClaim(
        "h2h_cls_c_separates",
        "Cls(C) separates: label-only >= cls_c_shortcut_min, twin <= cls_c_twin_max, "
        "gap >= cls_c_gap_min",
    ),
    SeedClaim(
        "h2h_ece_c_separates",
        "ECE(C) separates: label-only >= ece_c_shortcut_min, twin <= ece_c_twin_max",
        metric="label_only_concept_ece",
    ),
    SeedClaim(
        "ood_alarm",
        "the OOD alarm rings: on the biased support the label-only net's AccY off the support "
        "is below its AccY on it",
        metric="ood_task_accuracy_ood",
    ),
)

DIGIT_CLAIMS = (
    SeedClaim(
        "digits_supervision_removes_shortcut",
        "concept supervision lowers shortcut incidence: the label-only digit model lands on a "
        "shortcut and its concept-supervised twin (same init, same batches) does not",
    ),
    SeedClaim(
        "digits_labels_indistinguishable",
        "in-distribution AccY cannot tell the label-only and supervised digit models apart: "
        "|difference| <= digits_id_tolerance",
        metric="task_accuracy_gap",
    ),
    SeedClaim(
        "digits_ood_separates",
        "OOD AccY can: supervised - label-only >= digits_ood_margin",
        metric="task_accuracy_ood_gap",
    ),
)

CALIBRATION_CLAIMS = (
    SeedClaim(
        "concept_temperature_lowers_ece",
        "temperature scaling (fitted on train) lowers the label-only net's ECE(C) on test",
        metric="label_only_ece_change",
    ),
    SeedClaim(
        "digits_temperature_lowers_ece",
        "calibration (fitted on val) lowers the label-only digit heads' top-label ECE on test",
        metric="digits_label_only_ece_change",
    ),
)


def h2h_seed_claims(row: Mapping, t: Mapping) -> dict[str, bool]:
    """The head-to-head's directional claims on one seed.

    ``row`` holds the seed's panel numbers (``label_only_*`` label-only, ``sup_*`` twin), the flags
    ``label_only_collapse`` and ``sup_identity`` and the OOD accuracies; ``t`` is
    ``claims.thresholds``.
    """
    lo = {k.removeprefix("label_only_"): v for k, v in row.items() if k.startswith("label_only_")}
    sup = {k[4:]: v for k, v in row.items() if k.startswith("sup_")}
    return {
        "h2h_labels_indistinguishable": bool(
            lo["task_accuracy"] >= t["acc_y_min"] and sup["task_accuracy"] >= t["acc_y_min"]
        ),
        "h2h_twin_identity": bool(row["sup_identity"]),
        "h2h_label_only_collapses": bool(row["label_only_collapse"]),
        "h2h_acc_c_separates": bool(
            lo["concept_accuracy"] <= t["acc_c_shortcut_max"]
            and sup["concept_accuracy"] >= t["acc_c_twin_min"]
        ),
        "h2h_f1_c_separates": bool(
            lo["concept_f1"] <= t["acc_c_shortcut_max"] and sup["concept_f1"] >= t["acc_c_twin_min"]
        ),
        "h2h_cls_c_separates": bool(
            lo["concept_collapse"] >= t["cls_c_shortcut_min"]
            and sup["concept_collapse"] <= t["cls_c_twin_max"]
            and lo["concept_collapse"] - sup["concept_collapse"] >= t["cls_c_gap_min"]
        ),
        "h2h_ece_c_separates": bool(
            lo["concept_ece"] >= t["ece_c_shortcut_min"]
            and sup["concept_ece"] <= t["ece_c_twin_max"]
        ),
        "ood_alarm": bool(row["ood_task_accuracy_ood"] < row["ood_task_accuracy_test"]),
    }


def digit_seed_claims(row: Mapping, t: Mapping) -> dict[str, bool]:
    """The digit head-to-head's directional claims on one seed (paired: same init, same
    batches).  ``row`` holds ``label_only_shortcut``, ``sup_shortcut``, ``task_accuracy_gap``
    (label-only - supervised, test) and ``task_accuracy_ood_gap`` (supervised - label-only,
    ood)."""
    return {
        "digits_supervision_removes_shortcut": bool(
            row["label_only_shortcut"] and not row["sup_shortcut"]
        ),
        "digits_labels_indistinguishable": bool(
            abs(row["task_accuracy_gap"]) <= t["digits_id_tolerance"]
        ),
        "digits_ood_separates": bool(row["task_accuracy_ood_gap"] >= t["digits_ood_margin"]),
    }


def calibration_seed_claims(row: Mapping) -> dict[str, bool]:
    """Calibration's directional claims on one seed: the ECE of the label-only concept heads
    (binary nets and digit model) goes down."""
    return {
        "concept_temperature_lowers_ece": bool(row["label_only_ece_change"] < 0),
        "digits_temperature_lowers_ece": bool(row["digits_label_only_ece_change"] < 0),
    }


# ---- structural -----------------------------------------------------------------------


def check_exhibit_alpha(alpha: Mapping[str, str], knowledge, support) -> None:
    """The exhibit's caught relabeling is what its rule promised: one of the optima the counter
    counts on the support (asked of the counter), non-injective and not the identity."""
    text = alpha_string(dict(alpha))
    check_claim(
        is_optimum(dict(alpha), knowledge, list(support)),
        f"the caught alpha {text} is one of the counted optima on support {list(support)}",
    )
    check_claim(not is_injective(dict(alpha)), f"the caught alpha {text} is non-injective")
    check_claim(not is_identity(dict(alpha)), f"the caught alpha {text} is not the identity")


def check_ood_survivors(counted: Mapping) -> None:
    """Enumerating every map G -> G agrees with the counter, and the biased optima that stay
    label-correct everywhere are exactly the full-support optima."""
    if counted["counted_by"] != "enumeration":
        return  # the factored fallback IS the counter: nothing independent to compare
    check_claim(
        counted["n_opt_biased"] == counted["n_opt_counter"],
        f"enumeration agrees with the counter on the biased support: {counted['n_opt_biased']} "
        f"vs {counted['n_opt_counter']}",
    )
    check_claim(
        counted["n_survivors"] == counted["n_opt_full"],
        "the biased optima that stay label-correct everywhere are exactly the full-support "
        f"optima: {counted['n_survivors']} vs {counted['n_opt_full']}",
    )


def check_accuracy_kept(table, *, what: str, name: str = "model") -> None:
    """A calibrator that keeps every argmax (temperature) leaves the accuracy bit-identical:
    checked on every row of a calibration table (columns ``method``, ``seed``, ``name``,
    ``acc_before``, ``acc_after``)."""
    for row in table.to_dict("records"):
        if row["method"] != "temperature":
            continue
        check_claim(
            row["acc_after"] == row["acc_before"],
            f"calibration cannot repair meaning: {what} {row[name]} (seed {row['seed']}) keeps "
            f"its accuracy under temperature, {row['acc_before']!r} -> {row['acc_after']!r}",
        )
