"""The before/after audit of a K-way head's evaluation rows under one fitted calibrator.

The calibrators themselves (``Multiclass<Method>Calibrator``) are in
:mod:`nesybench.metrics.calibrators`, the one module of fitted calibrators.

:func:`calibrate_multiclass` fits one method on the calibration rows and
returns the before/after summary (``ece_top``, ``ece_classwise``, ``nll``,
``brier``, ``acc``; :mod:`nesybench.metrics.multiclass`) on the evaluation rows,
the per-class reliability data, the fitted parameters and the invariances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..constraints import Boolean, Options, validate_params
from ..errors import InputError, check_claim
from . import MULTICLASS_METHODS
from .calibration import BINNING
from .calibrators import DEFAULT_REG, REG, make_multiclass_calibrator, ranking_invariances
from .multiclass import (
    SUMMARY_KEYS,
    check_logits,
    multiclass_reliability,
    multiclass_summary,
    softmax,
)


@dataclass
class MulticlassRepair:
    """One method fitted on the calibration rows and audited on the evaluation rows.

    ``before``/``after``: :func:`~nesybench.metrics.multiclass.multiclass_summary`
    of the evaluation rows under ``softmax(z)`` and under the calibrator;
    ``probs_after``: the calibrated probabilities of every row;
    ``reliability``: per-reading (``before``/``after``) top-label and per-class
    reliability tables of the evaluation rows; ``invariance``: over every row.
    """

    method: str
    calibrator: object
    params: dict
    n_classes: int
    probs_after: np.ndarray
    before: dict
    after: dict
    invariance: dict[str, bool]
    reliability: pd.DataFrame

    def table(self) -> pd.DataFrame:
        """The before/after table: one row per metric (``ece_top`` ... ``acc``)."""
        return pd.DataFrame(
            {
                "metric": list(SUMMARY_KEYS),
                "before": [self.before[k] for k in SUMMARY_KEYS],
                "after": [self.after[k] for k in SUMMARY_KEYS],
                "method": self.method,
            }
        )


def check_calibration_split(labels, is_cal) -> None:
    """Both halves non-empty and at least two classes among the calibration rows."""
    y = np.asarray(labels)
    is_cal = np.asarray(is_cal, dtype=bool)
    if is_cal.shape != y.shape:
        raise InputError(
            f"is_cal must have one entry per label, got {is_cal.shape[0]} and {y.shape[0]}"
        )
    for name, mask in (("cal", is_cal), ("eval", ~is_cal)):
        if not mask.any():
            raise InputError(f"split {name!r} is empty; need rows with split == {name!r}")
    present = np.unique(y[is_cal])
    if present.size < 2:
        raise InputError(
            f"split 'cal' has only class {int(present[0])} ({int(is_cal.sum())} rows); "
            "fitting a calibrator needs at least two classes"
        )


@validate_params(
    {**BINNING, "method": Options(MULTICLASS_METHODS), "reg": REG, "reliability": Boolean()}
)
def calibrate_multiclass(
    logits,
    labels,
    is_cal,
    *,
    method: str,
    n_bins: int = 10,
    right_closed: bool = False,
    strategy: str = "uniform",
    reg: float = DEFAULT_REG,
    reliability: bool = True,
) -> MulticlassRepair:
    """Fit ``method`` on the rows where ``is_cal``; audit the other rows before and after.

    ``logits`` ``(n, K)``, ``labels`` ``(n,)`` class indices, ``is_cal`` ``(n,)`` booleans.
    ``reliability=False`` skips the per-class reliability tables (``reliability`` is then
    an empty frame): a sweep that audits hundreds of heads draws diagrams for few of them.
    For ``temperature`` the argmax and per-row class ranking are asserted unchanged
    (:func:`ranking_invariances`; a failure is a :class:`~nesybench.errors.ClaimFailed`).

    >>> z = [[2.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 1.0]]
    >>> rep = calibrate_multiclass(z, [0, 1, 1, 1, 0, 0], [1, 1, 1, 1, 0, 0], method="temperature")
    >>> rep.params["tau"] > 1, rep.invariance
    (True, {'argmax': True, 'ranking': True})
    """
    y, z = check_logits(labels, logits, name="labels")
    is_cal = np.asarray(is_cal, dtype=bool)
    check_calibration_split(y, is_cal)
    calibrator = make_multiclass_calibrator(method, reg=reg).fit(z[is_cal], y[is_cal])
    q = calibrator.predict_proba(z)
    ev = ~is_cal
    opts = dict(n_bins=n_bins, right_closed=right_closed, strategy=strategy)
    p0 = softmax(z)
    after_logits = calibrator.predict_logits(z) if calibrator.predict_logits is not None else None
    before = multiclass_summary(y[ev], p0[ev], logits=z[ev], **opts)
    after = multiclass_summary(
        y[ev], q[ev], logits=None if after_logits is None else after_logits[ev], **opts
    )
    invariance = ranking_invariances(z, q)
    if method == "temperature":
        check_claim(
            invariance["argmax"] and invariance["ranking"],
            f"temperature scaling (tau = {calibrator.tau_:.6g}) keeps every row's argmax and class "
            f"ranking, got {invariance}",
        )
    if reliability:
        tables = pd.concat(
            [
                multiclass_reliability(y[ev], p0[ev], **opts).assign(reading="before"),
                multiclass_reliability(y[ev], q[ev], **opts).assign(reading="after"),
            ],
            ignore_index=True,
        )
        tables = tables[["reading"] + [c for c in tables.columns if c != "reading"]]
    else:
        tables = pd.DataFrame()
    return MulticlassRepair(
        method=method,
        calibrator=calibrator,
        params=calibrator.params(),
        n_classes=int(z.shape[1]),
        probs_after=q,
        before=before,
        after=after,
        invariance=invariance,
        reliability=tables,
    )
