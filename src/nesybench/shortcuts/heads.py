"""Calibrating concept heads: the binary nets' heads and the digit models' 10-way heads alike.

A head's rows (one per point and concept, pooled) are split into a calibration part and an
evaluation part; :func:`nesybench.metrics.multiclass_calibration.calibrate_multiclass` (the
one K-way calibration engine) fits the method on the first and audits the second.  For
``temperature`` it also asserts that every row's argmax and class ranking are unchanged, so
concept accuracy cannot move: calibration cannot repair wrong meaning.
"""

from __future__ import annotations

import numpy as np

from ..metrics.multiclass import SUMMARY_KEYS
from ..metrics.multiclass_calibration import calibrate_multiclass
from .digits.nesy import one_blas_thread

__all__ = ["calibrate_heads", "repair_row"]


def calibrate_heads(
    z_cal, y_cal, z_eval, y_eval, *, method: str, n_bins: int = 10, reliability: bool = False
):
    """Fit ``method`` on the logits ``z_cal`` ``(m, V)`` with gold values ``y_cal``; audit
    ``z_eval`` / ``y_eval``.  Returns the :class:`MulticlassRepair` (with its per-class
    reliability tables when ``reliability``).

    >>> z = np.array([[3.0, 0.0], [0.0, 3.0], [3.0, 0.0], [0.0, 3.0]])
    >>> rep = calibrate_heads(z, [0, 0, 1, 1], z, [0, 1, 0, 1], method="temperature")
    >>> rep.params["tau"] > 1, rep.after["acc"] == rep.before["acc"]
    (True, True)
    """
    z = np.vstack([np.asarray(z_cal, dtype=float), np.asarray(z_eval, dtype=float)])
    y = np.concatenate([np.asarray(y_cal, dtype=np.int64), np.asarray(y_eval, dtype=np.int64)])
    is_cal = np.arange(len(y)) < len(y_cal)
    with one_blas_thread():
        return calibrate_multiclass(
            z, y, is_cal, method=method, n_bins=n_bins, reliability=reliability
        )


def repair_row(rep) -> dict:
    """A repair's method, fitted temperature (NaN for the other methods; ``at_bracket_edge``:
    the NLL optimum lies beyond the search bracket) and its before / after summary on the
    evaluation rows as flat columns ``<metric>_before`` / ``<metric>_after``."""
    fit = getattr(rep.calibrator, "fit_", None)  # temperature: the golden-section search
    row = {
        "method": rep.method,
        "tau": float(rep.params.get("tau", np.nan)),
        "at_bracket_edge": bool(fit.at_bracket_edge) if fit is not None else False,
    }
    for key in SUMMARY_KEYS:
        row[f"{key}_before"] = float(rep.before[key])
        row[f"{key}_after"] = float(rep.after[key])
    row["n_eval"] = int(rep.before["n"])
    return row
