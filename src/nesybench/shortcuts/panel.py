"""The concept-quality panel: five numbers that separate what label accuracy cannot.

Inputs are plain arrays, so the same functions score the pipeline's trained
models and a user's own model (``nesybench score-concepts``):

- ``c_true``: ``(n, k)`` gold concept values (ints);
- ``probs``: a list of ``k`` arrays, ``probs[j]`` of shape ``(n, V_j)``, the
  probability of each value of concept ``j`` (rows sum to 1);
- the predicted value of concept ``j`` is the argmax of ``probs[j]`` (first
  maximum on ties).

Joint concept states are indexed lexicographically with concept 0 the most
significant digit (mixed radix over ``V_0, ..., V_{k-1}``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score

from ..errors import UserError
from ..logic.states import state_str
from ..metrics.calibration import expected_calibration_error

CONCEPT_COLUMNS = ("point", "concept", "gold", "probs")
SUM_TOL = 1e-6


def predicted_concepts(probs: Sequence[np.ndarray]) -> np.ndarray:
    """Argmax value of every head: ``(n, k)``."""
    return np.stack([np.argmax(np.asarray(p), axis=1) for p in probs], axis=1)


def state_index(values: np.ndarray, n_values: Sequence[int]) -> np.ndarray:
    """Mixed-radix index of each row of ``values`` (concept 0 most significant)."""
    values = np.asarray(values, dtype=np.int64)
    index = np.zeros(values.shape[0], dtype=np.int64)
    for j, radix in enumerate(n_values):
        index = index * int(radix) + values[:, j]
    return index


def label_accuracy(y_true, y_pred) -> float:
    """AccY: fraction of points whose predicted label equals the gold label.

    Notes
    -----
    ``AccY = (1/n) sum_i [y_hat_i = y_i]``.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float(np.mean(y_true == y_pred))


def concept_accuracy(c_true, c_pred) -> float:
    """AccC: fraction of (point, concept) pairs predicted right.

    Notes
    -----
    ``AccC = (1/(n k)) sum_i sum_j [c_hat_ij = g_ij]``.

    >>> concept_accuracy([[1, 0], [1, 1]], [[0, 1], [1, 1]])
    0.5
    """
    return float(np.mean(np.asarray(c_true) == np.asarray(c_pred)))


def concept_macro_f1(c_true, c_pred) -> float:
    """Macro F1(C): per concept, the unweighted mean of per-value F1; then the mean over concepts.

    Notes
    -----
    For concept ``j`` and value ``u``: ``P = TP/(TP+FP)``, ``R = TP/(TP+FN)``,
    ``F1_u = 2PR/(P+R)`` (0 when undefined); ``F1_j = mean_u F1_u`` over the
    values that occur in the gold or the predicted column of concept ``j``
    (scikit-learn's ``average="macro"``); ``F1(C) = mean_j F1_j``.  A value the
    model has stopped predicting has recall 0 and costs its full share.

    >>> round(concept_macro_f1([[0], [0], [1], [1]], [[0], [0], [0], [1]]), 4)
    0.7333
    """
    c_true, c_pred = np.asarray(c_true), np.asarray(c_pred)
    scores = [
        f1_score(c_true[:, j], c_pred[:, j], average="macro", zero_division=0.0)
        for j in range(c_true.shape[1])
    ]
    return float(np.mean(scores))


def occurrence_vector(c_pred, n_values: Sequence[int]) -> np.ndarray:
    """``v_c``: how often each joint state ``c`` is predicted, whatever the truth (column sums of
    the state confusion matrix)."""
    m = int(np.prod([int(v) for v in n_values]))
    return np.bincount(state_index(c_pred, n_values), minlength=m).astype(np.int64)


def concept_collapse_entropy(occurrence) -> float:
    """Cls(C), entropy form: one minus the normalised entropy of predicted-state usage.

    Notes
    -----
    ``v~ = v / sum(v)``, ``H = -sum_c v~_c ln v~_c`` (``0 ln 0 = 0``),
    ``Cls = 1 - H / ln m`` with ``m = len(v)`` the number of joint states.
    0 when every state is used equally, 1 when one state absorbs everything.

    >>> round(concept_collapse_entropy([100, 200, 0, 100]), 12)
    0.25
    """
    v = np.asarray(occurrence, dtype=float)
    v = v / v.sum()
    nz = v[v > 0]
    h = float(-np.sum(nz * np.log(nz)))
    return 1.0 - h / math.log(len(v))


def concept_collapse_count(occurrence) -> float:
    """Cls(C), count form: the fraction of joint states never predicted.

    Notes
    -----
    ``Cls = 1 - p / m`` with ``p`` the number of states predicted at least
    once and ``m = len(v)``.

    >>> concept_collapse_count([100, 200, 0, 100])
    0.25
    """
    v = np.asarray(occurrence)
    return 1.0 - float(np.count_nonzero(v)) / len(v)


def concept_ece(c_true, probs: Sequence[np.ndarray], *, n_bins: int = 10) -> float:
    """ECE(C): top-label expected calibration error pooled over every concept head.

    Notes
    -----
    Each (point, concept) pair is one scored prediction with confidence
    ``max_u p_j(u)`` and correctness ``[argmax_u p_j(u) = g_ij]``; the ``n k``
    pairs go into the one ECE of nesybench
    (:func:`nesybench.metrics.calibration.expected_calibration_error`,
    ``ECE = sum_b (n_b/N) |acc(b) - conf(b)|``, ``n_bins`` equal-width bins).
    """
    c_true = np.asarray(c_true)
    conf = np.concatenate([np.max(np.asarray(p, dtype=float), axis=1) for p in probs])
    correct = np.concatenate(
        [
            (np.argmax(np.asarray(p), axis=1) == c_true[:, j]).astype(int)
            for j, p in enumerate(probs)
        ]
    )
    return expected_calibration_error(correct, np.clip(conf, 0.0, 1.0), n_bins=n_bins)


def state_string(values: Sequence[int]) -> str:
    """``(1, 0) -> "10"``, ``(3, 12) -> "3:12"``: the one state text form of nesybench."""
    return state_str(values)


def learned_relabeling(c_true, c_pred) -> dict[str, str]:
    """alpha: each true joint state -> the state the model predicts most often on its points.

    Read off the evaluated clusters: among the points whose gold state is ``g``,
    the majority predicted joint state (ties broken towards the
    lexicographically smallest state, so the map is deterministic).  Only true
    states that occur in ``c_true`` get an entry.
    """
    c_true, c_pred = np.asarray(c_true), np.asarray(c_pred)
    alpha: dict[str, str] = {}
    true_keys = [state_string(r) for r in c_true]
    pred_keys = [state_string(r) for r in c_pred]
    counts: dict[str, dict[str, int]] = {}
    for t, p in zip(true_keys, pred_keys):
        counts.setdefault(t, {}).setdefault(p, 0)
        counts[t][p] += 1
    for t in sorted(counts):
        best = max(counts[t].values())
        alpha[t] = min(p for p, c in counts[t].items() if c == best)
    return alpha


def is_injective(alpha: dict[str, str]) -> bool:
    """Whether no two true states share a predicted state (a permutation on its domain)."""
    return len(set(alpha.values())) == len(alpha)


def is_identity(alpha: dict[str, str]) -> bool:
    return all(k == v for k, v in alpha.items())


def alpha_string(alpha: dict[str, str]) -> str:
    """``"00->00 01->01 10->01 11->11"``."""
    return " ".join(f"{k}->{alpha[k]}" for k in sorted(alpha))


def concept_panel(
    c_true, probs: Sequence[np.ndarray], *, y_true=None, y_pred=None, n_bins: int = 10
) -> dict:
    """Every panel metric of one model on one split, as a dict.

    Keys: ``acc_y`` (only when labels are given), ``acc_c``, ``f1_c``,
    ``cls_c`` (entropy form), ``cls_c_count``, ``ece_c``, ``occurrence``
    (list of counts), ``n_points``, ``n_concepts``.
    """
    c_true = np.asarray(c_true, dtype=np.int64)
    c_pred = predicted_concepts(probs)
    n_values = [np.asarray(p).shape[1] for p in probs]
    occurrence = occurrence_vector(c_pred, n_values)
    out = {
        "n_points": int(c_true.shape[0]),
        "n_concepts": int(c_true.shape[1]),
        "acc_c": concept_accuracy(c_true, c_pred),
        "f1_c": concept_macro_f1(c_true, c_pred),
        "cls_c": concept_collapse_entropy(occurrence),
        "cls_c_count": concept_collapse_count(occurrence),
        "ece_c": concept_ece(c_true, probs, n_bins=n_bins),
        "occurrence": [int(v) for v in occurrence],
    }
    if y_true is not None:
        out["acc_y"] = label_accuracy(y_true, y_pred)
    return out


# ---- the long-format concept table (pipeline artifact and user input) ----------


def unpack_concept_table(
    df: pd.DataFrame, *, source: str
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Validate a long-format concept table and return ``(points, c_true, probs)``.

    One row per (point, concept) with columns ``point``, ``concept`` (0-based),
    ``gold`` (gold value index) and ``probs`` (list of value probabilities).
    Returns the sorted point ids ``(n,)``, gold values ``(n, k)`` and per-concept
    probability matrices ``probs[j]`` ``(n, V_j)``.  Any violation raises one
    ``UserError`` line naming ``source`` and the column at fault.
    """
    missing = [c for c in CONCEPT_COLUMNS if c not in df.columns]
    if missing:
        raise UserError(
            f"{source}: missing column {missing[0]!r}; expected columns "
            f"{', '.join(CONCEPT_COLUMNS)}"
        )
    if len(df) == 0:
        raise UserError(f"{source}: no rows")
    for col in ("point", "concept", "gold"):
        values = df[col]
        if values.isna().any():
            raise UserError(f"{source}: column {col!r} has missing (NaN/null) values")
        if not pd.api.types.is_integer_dtype(values):
            raise UserError(f"{source}: column {col!r} must be integers, got dtype {values.dtype}")
    points = df["point"].to_numpy(np.int64)
    concepts = df["concept"].to_numpy(np.int64)
    gold = df["gold"].to_numpy(np.int64)
    if concepts.min() < 0:
        raise UserError(
            f"{source}: column 'concept' must be >= 0 (0-based), got {int(concepts.min())}"
        )
    k = int(concepts.max()) + 1
    present = np.unique(concepts)
    if len(present) != k:
        absent = sorted(set(range(k)) - set(present.tolist()))[0]
        raise UserError(
            f"{source}: concepts must be numbered 0..{k - 1}, concept {absent} has no rows"
        )
    pairs = pd.MultiIndex.from_arrays([points, concepts])
    if pairs.has_duplicates:
        dup = pairs[pairs.duplicated()][0]
        raise UserError(f"{source}: (point, concept) = ({dup[0]}, {dup[1]}) appears more than once")
    unique_points = np.unique(points)
    if len(df) != len(unique_points) * k:
        per_point = pd.Series(concepts).groupby(points).nunique()
        bad = int(per_point[per_point < k].index[0])
        have = sorted(concepts[points == bad].tolist())
        raise UserError(
            f"{source}: point {bad} is missing some concepts: has {have}, expected 0..{k - 1}"
        )
    raw = df["probs"].tolist()
    lengths = np.empty(len(raw), dtype=np.int64)
    for i, value in enumerate(raw):
        if value is None:
            raise UserError(f"{source}: column 'probs' is null in row {i}")
        lengths[i] = len(value)
    order = np.lexsort((points, concepts))  # by concept, then point
    probs: list[np.ndarray] = []
    c_true = np.empty((len(unique_points), k), dtype=np.int64)
    for j in range(k):
        rows = order[concepts[order] == j]
        widths = np.unique(lengths[rows])
        if len(widths) != 1:
            raise UserError(
                f"{source}: probs of concept {j} have different lengths {widths.tolist()}; "
                "every row of one concept must list the same values"
            )
        width = int(widths[0])
        if width < 1:
            raise UserError(f"{source}: probs of concept {j} are empty lists")
        mat = np.array([np.asarray(raw[r], dtype=float) for r in rows], dtype=float).reshape(
            len(rows), width
        )
        if not np.all(np.isfinite(mat)):
            r = rows[np.nonzero(~np.isfinite(mat).all(axis=1))[0][0]]
            raise UserError(
                f"{source}: probs has NaN or infinite values (point {points[r]}, concept {j})"
            )
        if (mat < 0).any():
            r = rows[np.nonzero((mat < 0).any(axis=1))[0][0]]
            raise UserError(f"{source}: probs has negative values (point {points[r]}, concept {j})")
        sums = mat.sum(axis=1)
        off = np.abs(sums - 1.0) > SUM_TOL
        if off.any():
            i = np.nonzero(off)[0][0]
            raise UserError(
                f"{source}: probs must sum to 1 within {SUM_TOL:g}, got {sums[i]!r} "
                f"(point {points[rows[i]]}, concept {j})"
            )
        g = gold[rows]
        if (g < 0).any() or (g >= width).any():
            i = np.nonzero((g < 0) | (g >= width))[0][0]
            raise UserError(
                f"{source}: gold must be in 0..{width - 1} for concept {j} (len(probs) = {width}), "
                f"got {int(g[i])} (point {points[rows[i]]})"
            )
        probs.append(mat)
        c_true[:, j] = g
    return unique_points, c_true, probs


def concept_table(
    points, c_true, probs: Sequence[np.ndarray], logits: Sequence[np.ndarray] | None = None
) -> pd.DataFrame:
    """The long-format table ``unpack_concept_table`` reads: one row per (point, concept)."""
    rows = {"point": [], "concept": [], "gold": [], "probs": []}
    if logits is not None:
        rows["logits"] = []
    points = np.asarray(points, dtype=np.int64)
    for j, p in enumerate(probs):
        rows["point"].extend(points.tolist())
        rows["concept"].extend([j] * len(points))
        rows["gold"].extend(np.asarray(c_true)[:, j].astype(np.int64).tolist())
        rows["probs"].extend([list(map(float, r)) for r in np.asarray(p, dtype=float)])
        if logits is not None:
            rows["logits"].extend([list(map(float, r)) for r in np.asarray(logits[j], dtype=float)])
    df = pd.DataFrame(rows)
    return df.astype({"point": "int64", "concept": "int64", "gold": "int64"})
