"""Report blocks of what the head-to-head's claims depend on (see :mod:`.sensitivity`)."""

from __future__ import annotations

import pandas as pd

from ..report.blocks import Block, Paragraph, Table
from ..report.sensitivity import counts_of, sensitivity_blocks
from .incidence import OPTIMUM_KINDS

BIAS = "models.bias_init"
KIND_NAMES = {
    "identity": "identity",
    "symmetry": "bijective symmetry",
    "partial_collapse": "partial collapse",
    "full_collapse": "full collapse",
    "not_label_perfect": "not label-perfect",
}


def _label(setting: str, threshold: float) -> str:
    return f"{setting}, AccY >= {threshold:g}"


def kinds_blocks(loader) -> list[Block]:
    """The kind of optimum each label-only run lands on: counts per setting and threshold, and
    seed by seed at every bias initialisation."""
    counts = loader.table("calibrate", "optimum_kinds")
    seeds = loader.table("calibrate", "optimum_seeds")
    m = loader.params["models"]
    shown = pd.DataFrame(
        {
            "setting": counts["setting"],
            "label-perfect at AccY >=": counts["min_acc_y"],
            **{KIND_NAMES[k]: counts[k] for k in OPTIMUM_KINDS},
            "collapses": [counts_of(k, n) for k, n in zip(counts["n_collapse"], counts["n_seeds"])],
            "collapse rate": counts["collapse_rate"],
            "Wilson 95% lo": counts["rate_lo"],
            "Wilson 95% hi": counts["rate_hi"],
        }
    )
    bias = seeds[(seeds["setting"] == "default") | seeds["setting"].str.startswith(f"{BIAS}=")]
    bias = bias.assign(
        column=[_label(s, t) for s, t in zip(bias["setting"], bias["min_acc_y"])],
        cell=[f"{KIND_NAMES[k]} (AccY {a:.4f})" for k, a in zip(bias["kind"], bias["acc_y_test"])],
    )
    order = list(dict.fromkeys(bias["column"]))
    pivot = bias.pivot(index="seed", columns="column", values="cell").reset_index()[
        ["seed", *order]
    ]
    return [
        Paragraph(
            "The kind of optimum: from each label-only run's learned relabeling alpha on the "
            "head-to-head task. *Identity*; *bijective symmetry* (a label-preserving "
            "permutation other than the identity: Cls(C) = 0 by construction); *partial "
            "collapse* (non-injective); *full collapse* (non-injective down to one predicted "
            "state per label); *not label-perfect* (alpha is no counted optimum, or test AccY is "
            f"below the threshold). The default bias initialisation is `{m['bias_init']}`."
        ),
        Table(
            "Kinds of optimum of the label-only nets, per training setting and label-perfect "
            "threshold",
            shown,
            params={"task": m["task"], "n_seeds": int(counts["n_seeds"].max())},
            note="Counts of seeds. A threshold level rescores the same runs (no retraining); the "
            "collapse claim of the head-to-head is 'collapses' at the default threshold.",
        ),
        Table(
            "Each seed's kind of optimum at every bias initialisation and threshold",
            pivot,
            params={"task": m["task"]},
            note="AccY is the label-only net's test accuracy; both nets of a setting start from "
            "the seed's weights, and a gaussian bias draws only the biases on top of them.",
        ),
    ]


def sensitivity_section(loader) -> list[Block]:
    return [
        *sensitivity_blocks(
            loader,
            "calibrate",
            what="head-to-head",
            note="models.min_acc_y levels rescore the default runs; every other level retrains "
            "the head-to-head and OOD nets of every seed.",
        ),
        *kinds_blocks(loader),
    ]
