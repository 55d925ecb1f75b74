"""Speed of the calibration metrics against scikit-learn baselines measured in the same run.

    python bench/calibration_metrics.py [N]

Prints, for N continuous predictions, the time of nesybench's ECE (with the full
reliability statistics), AUC and Brier next to the scikit-learn computation of the
same number, and their ratio (ours / sklearn; < 1 is faster).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, roc_auc_score

from nesybench.metrics.calibration import brier_score, expected_calibration_error, roc_auc


def _best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def _sklearn_ece(y, p):
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10)
    counts = np.bincount(np.searchsorted(np.linspace(0, 1, 11)[1:-1], p), minlength=10)
    counts = counts[counts > 0]
    return float(np.sum(counts / len(p) * np.abs(prob_true - prob_pred)))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = np.random.default_rng(0)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    pairs = {
        "ece": (lambda: expected_calibration_error(y, p), lambda: _sklearn_ece(y, p)),
        "auc": (lambda: roc_auc(y, p), lambda: roc_auc_score(y, p)),
        "brier": (lambda: brier_score(y, p), lambda: brier_score_loss(y, p)),
    }
    print(f"n = {n}")
    print("metric   ours_s   sklearn_s   ratio   |diff|")
    for name, (ours, theirs) in pairs.items():
        t_ours, v_ours = _best_of(ours)
        t_ref, v_ref = _best_of(theirs)
        print(
            f"{name:6s} {t_ours:8.4f}  {t_ref:10.4f}  {t_ours / t_ref:6.2f}  "
            f"{abs(v_ours - v_ref):.1e}"
        )


if __name__ == "__main__":
    main()
