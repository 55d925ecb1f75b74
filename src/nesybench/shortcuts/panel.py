"""The concept-quality panel: the numbers that separate what label accuracy cannot.

Inputs are plain arrays, so the same functions score the pipeline's trained
models and a user's own model (``nesybench score-concepts``):

- ``c_true``: ``(n, k)`` gold concept values (ints);
- ``probs``: a list of ``k`` arrays, ``probs[j]`` of shape ``(n, V_j)`` with
  ``V_j >= 2``, the probability of each value of concept ``j`` (rows sum to 1);
- the predicted value of concept ``j`` is the argmax of ``probs[j]`` (first
  maximum on ties).

Joint concept states are indexed lexicographically with concept 0 the most
significant digit (mixed radix over ``V_0, ..., V_{k-1}``).

The panel (:func:`concept_panel`):

==================  =========================================================================
``acc_c``           AccC, the fraction of (point, concept) pairs right
``acc_c_exact``     the fraction of points with every concept right (exact match)
``f1_c``            macro F1 per concept, averaged over concepts
``cls_c``           Cls(C), entropy form, against the gold: ``1 - H(pred states) / H(gold
                    states)``, floored at 0; 0 for a perfect predictor
``cls_c_count``     Cls(C), count form, against the gold: the fraction of the ``n_gold_states``
                    joint states the gold occupies that are never predicted
``cls_c_all``       the entropy form against all ``n_states = prod_j V_j`` joint states:
                    ``1 - H(pred states) / ln(n_states)``
``cls_c_count_all`` the count form against all joint states: ``1 - (#predicted) / n_states``
``ece_c``           ECE(C), top-label ECE pooled over every head (the one ECE of nesybench)
``ece_c_values``    ECE of the points whose gold value of concept ``j`` is ``u``, per ``(j, u)``
``entropy_c``       mean over (point, concept) of the normalised entropy ``H(p_ij) / ln V_j``
``cls_c_groups``    every collapse form per named group of concepts (their joint states)
``acc_y``           AccY; with several label outputs the mean over outputs, plus
                    ``acc_y_outputs`` (per output) and ``acc_y_exact`` (all outputs right)
==================  =========================================================================

The long-format concept table these arrays come from (the pipeline's artifact, a user's
Parquet or CSV) is read and written by :mod:`.concept_table`; this module only computes.

Where rsbench's evaluation (``rsseval``) uses other conventions, see
``docs/rsbench-conformance.md``; ``tests/shortcuts/test_rsbench_conformance.py`` pins
both sets of numbers on the same predictions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..logic.states import state_str

# scikit-learn (F1) and the ECE engine load on first use: a job that only trains or reads
# relabelings starts without them.

MAX_OCCURRENCE_STATES = 4096  # the occurrence vector is listed up to this many joint states


def _f1_score():
    from sklearn.metrics import f1_score

    return f1_score


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
        _f1_score()(c_true[:, j], c_pred[:, j], average="macro", zero_division=0.0)
        for j in range(c_true.shape[1])
    ]
    return float(np.mean(scores))


def occurrence_vector(c_pred, n_values: Sequence[int]) -> np.ndarray:
    """``v_c``: how often each joint state ``c`` is predicted, whatever the truth (column sums of
    the state confusion matrix)."""
    m = int(np.prod([int(v) for v in n_values]))
    return np.bincount(state_index(c_pred, n_values), minlength=m).astype(np.int64)


def concept_collapse_entropy(occurrence) -> float:
    """Cls(C), entropy form over all joint states: 1 - the normalised entropy of state usage.

    Notes
    -----
    ``v~ = v / sum(v)``, ``H = -sum_c v~_c ln v~_c`` (``0 ln 0 = 0``),
    ``Cls = 1 - H / ln m`` with ``m = len(v)`` the number of joint states.
    0 when every state is used equally, 1 when one state absorbs everything;
    0 when there is a single state (nothing to collapse).  The panel's ``cls_c``
    measures against the gold's states instead (:func:`concept_collapse`).

    >>> round(concept_collapse_entropy([100, 200, 0, 100]), 12)
    0.25
    """
    v = np.asarray(occurrence, dtype=float)
    if len(v) < 2:
        return 0.0
    v = v / v.sum()
    nz = v[v > 0]
    h = float(-np.sum(nz * np.log(nz)))
    return 1.0 - h / math.log(len(v))


def concept_collapse_count(occurrence) -> float:
    """Cls(C), count form over all joint states: the fraction of joint states never predicted.

    Notes
    -----
    ``Cls = 1 - p / m`` with ``p`` the number of states predicted at least
    once and ``m = len(v)``.

    >>> concept_collapse_count([100, 200, 0, 100])
    0.25
    """
    v = np.asarray(occurrence)
    return 1.0 - float(np.count_nonzero(v)) / len(v)


def _state_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct joint states (rows, lexicographic = mixed-radix order) and how often each occurs."""
    states, counts = np.unique(np.asarray(values, dtype=np.int64), axis=0, return_counts=True)
    return states, counts


def _entropy_of_counts(counts: np.ndarray) -> float:
    v = counts.astype(float) / counts.sum()
    nz = v[v > 0]
    return float(-np.sum(nz * np.log(nz)))


def concept_collapse(c_true, c_pred, n_values: Sequence[int]) -> dict:
    """Concept collapse in four forms: against the states the gold occupies, and against all states.

    Returns ``cls_c``, ``cls_c_count`` (gold-referenced), ``cls_c_all``,
    ``cls_c_count_all`` (all-states), and the denominators ``n_gold_states``
    (distinct joint states in ``c_true``), ``n_states`` (``prod_j V_j``) and
    ``n_pred_states`` (distinct joint states in ``c_pred``).

    Notes
    -----
    With ``G*`` the gold's joint states, ``P`` the predicted ones, ``g~`` and
    ``v~`` their frequencies and ``H`` the Shannon entropy (``0 ln 0 = 0``)::

        cls_c           = max(0, 1 - H(v~) / H(g~))      (0 when H(g~) = 0: one gold state)
        cls_c_count     = |G* \\ P| / |G*|                (gold states never predicted)
        cls_c_all       = 1 - H(v~) / ln(prod_j V_j)
        cls_c_count_all = 1 - |P| / prod_j V_j

    ``H(g~) = ln |G*|`` when the gold is uniform over its states, so on a test
    set that covers every state equally both pairs coincide.  A perfect
    predictor (``v~ = g~``, ``P = G*``) scores 0 in the gold forms whatever
    states the gold occupies; the all-states forms charge it for states the
    test set never shows.  ``cls_c`` compares diversity only (a model spreading
    its predictions more evenly than the gold scores 0); ``cls_c_count``
    counts which gold states are covered.  Only distinct states are stored,
    so ``prod_j V_j`` may be astronomically large.

    >>> c_true = [[0, 0], [0, 1], [1, 0]]          # 3 of the 4 joint states occur
    >>> out = concept_collapse(c_true, c_true, [2, 2])
    >>> out["cls_c"], out["cls_c_count"], out["cls_c_count_all"]
    (0.0, 0.0, 0.25)
    """
    c_true = np.asarray(c_true, dtype=np.int64)
    c_pred = np.asarray(c_pred, dtype=np.int64)
    gold_states, gold_counts = _state_counts(c_true)
    pred_states, pred_counts = _state_counts(c_pred)
    n_states = math.prod(int(v) for v in n_values)
    h_pred = _entropy_of_counts(pred_counts)
    m_gold = len(gold_states)
    # The same kernel on both sides: a perfect predictor (same counts) scores exactly 0.
    h_gold = _entropy_of_counts(gold_counts)
    predicted = {tuple(r) for r in pred_states.tolist()}
    covered = sum(tuple(r) in predicted for r in gold_states.tolist())
    return {
        "cls_c": max(0.0, 1.0 - h_pred / h_gold) if h_gold > 0 else 0.0,
        "cls_c_count": 1.0 - float(covered) / m_gold,
        "cls_c_all": 1.0 - h_pred / math.log(n_states) if n_states > 1 else 0.0,
        "cls_c_count_all": 1.0 - float(len(pred_states)) / n_states,
        "n_gold_states": int(m_gold),
        "n_pred_states": int(len(pred_states)),
        "n_states": int(n_states),
    }


def group_collapse(
    c_true, c_pred, n_values: Sequence[int], groups: Mapping[str, Sequence[int]]
) -> dict[str, dict]:
    """:func:`concept_collapse` of each named group of concepts, on the joint states of its columns.

    ``groups`` maps a name to concept indices (e.g. ``{"colour": [0, 2], "shape": [1, 3]}``).

    >>> out = group_collapse([[0, 0], [1, 1]], [[0, 0], [0, 1]], [2, 2], {"a": [0], "b": [1]})
    >>> out["a"]["cls_c_count"], out["b"]["cls_c_count"]
    (0.5, 0.0)
    """
    c_true = np.asarray(c_true, dtype=np.int64)
    c_pred = np.asarray(c_pred, dtype=np.int64)
    k = c_true.shape[1]
    out = {}
    for name, members in groups.items():
        idx = [int(j) for j in members]
        if not idx or len(set(idx)) != len(idx) or min(idx) < 0 or max(idx) >= k:
            raise InputError(
                f"groups[{name!r}] must list distinct concept indices in [0, {k - 1}], got {idx}"
            )
        out[name] = concept_collapse(c_true[:, idx], c_pred[:, idx], [n_values[j] for j in idx])
    return out


def _top_label_pairs(c_true, probs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Pooled (confidence, correctness) of every (point, concept) pair, concept-major."""
    c_true = np.asarray(c_true)
    conf = np.concatenate([np.max(np.asarray(p, dtype=float), axis=1) for p in probs])
    correct = np.concatenate(
        [
            (np.argmax(np.asarray(p), axis=1) == c_true[:, j]).astype(int)
            for j, p in enumerate(probs)
        ]
    )
    return conf, correct


def concept_ece(
    c_true, probs: Sequence[np.ndarray], *, n_bins: int = 10, right_closed: bool = False
) -> float:
    """ECE(C): top-label expected calibration error pooled over every concept head.

    Notes
    -----
    Each (point, concept) pair is one scored prediction with confidence
    ``max_u p_j(u)`` and correctness ``[argmax_u p_j(u) = g_ij]``; the ``n k``
    pairs go into the one ECE of nesybench
    (:func:`nesybench.metrics.calibration.expected_calibration_error`,
    ``ECE = sum_b (n_b/N) |acc(b) - conf(b)|``, ``n_bins`` equal-width bins,
    left-closed unless ``right_closed``).
    """
    conf, correct = _top_label_pairs(c_true, probs)
    from ..metrics.calibration import expected_calibration_error

    return expected_calibration_error(
        correct, np.clip(conf, 0.0, 1.0), n_bins=n_bins, right_closed=right_closed
    )


def concept_value_ece(
    c_true, probs: Sequence[np.ndarray], *, n_bins: int = 10, right_closed: bool = False
) -> list[dict]:
    """Per-concept-value ECE: the top-label ECE of head ``j`` on the points whose gold is ``u``.

    Returns one ``{"concept", "value", "n", "ece"}`` per (concept, value), ``ece``
    None where no point has that gold value.

    Notes
    -----
    ``ECE_{j,u} = ECE(c, q)`` over ``{i : g_ij = u}`` with ``q_i = max_v p_ij(v)`` and
    ``c_i = [argmax_v p_ij(v) = u]``, the one ECE of nesybench.

    >>> probs = [np.array([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]])]
    >>> [round(r["ece"], 4) for r in concept_value_ece([[0], [1], [1]], probs)]
    [0.1, 0.55]
    """
    from ..metrics.calibration import expected_calibration_error

    c_true = np.asarray(c_true)
    rows = []
    for j, p in enumerate(probs):
        p = np.asarray(p, dtype=float)
        pred, conf = np.argmax(p, axis=1), np.clip(np.max(p, axis=1), 0.0, 1.0)
        for u in range(p.shape[1]):
            mask = c_true[:, j] == u
            n = int(mask.sum())
            ece = (
                expected_calibration_error(
                    (pred[mask] == u).astype(int),
                    conf[mask],
                    n_bins=n_bins,
                    right_closed=right_closed,
                )
                if n
                else None
            )
            rows.append({"concept": j, "value": u, "n": n, "ece": ece})
    return rows


def concept_entropy(probs: Sequence[np.ndarray]) -> float:
    """Mean per-sample concept entropy, normalised to [0, 1] per head.

    Notes
    -----
    ``(1/(n k)) sum_i sum_j H(p_ij) / ln V_j`` with ``H(p) = -sum_v p(v) ln p(v)``
    (``0 ln 0 = 0``): 0 when every head is certain, 1 when every head is uniform.

    >>> concept_entropy([np.array([[0.5, 0.5], [1.0, 0.0]])])
    0.5
    """
    from scipy.special import entr

    per_head = [
        entr(np.asarray(p, dtype=float)).sum(axis=1) / math.log(np.asarray(p).shape[1])
        for p in probs
    ]
    return float(np.mean(np.concatenate(per_head)))


def concept_exact_match(c_true, c_pred) -> float:
    """Exact-match concept accuracy: the fraction of points whose every concept is right.

    Notes
    -----
    ``AccC_exact = (1/n) sum_i prod_j [c_hat_ij = g_ij]``.

    >>> concept_exact_match([[1, 0], [1, 1]], [[0, 1], [1, 1]])
    0.5
    """
    return float(np.mean(np.all(np.asarray(c_true) == np.asarray(c_pred), axis=1)))


def label_accuracies(y_true, y_pred, *, names: Sequence[str] | None = None) -> dict:
    """AccY of one label column, or of several outputs: per output, their mean, and exact match.

    ``y_true`` and ``y_pred`` are ``(n,)`` or ``(n, q)``.  One output gives
    ``{"acc_y"}``; ``q`` outputs give ``acc_y`` (the mean over outputs),
    ``acc_y_outputs`` (``{name: accuracy}``, names default to ``"0", "1", ...``)
    and ``acc_y_exact`` (the fraction of points with every output right).

    >>> label_accuracies([[0, 1], [1, 1]], [[0, 1], [1, 0]], names=["a", "b"])
    {'acc_y': 0.75, 'acc_y_outputs': {'a': 1.0, 'b': 0.5}, 'acc_y_exact': 0.5}
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise InputError(
            f"y_true and y_pred must have equal shape, got {y_true.shape} and {y_pred.shape}"
        )
    if y_true.ndim == 1:
        return {"acc_y": label_accuracy(y_true, y_pred)}
    names = [str(i) for i in range(y_true.shape[1])] if names is None else list(names)
    if len(names) != y_true.shape[1]:
        raise InputError(f"names must name the {y_true.shape[1]} outputs, got {len(names)}")
    right = y_true == y_pred
    return {
        "acc_y": float(np.mean(right)),
        "acc_y_outputs": {n: float(np.mean(right[:, q])) for q, n in enumerate(names)},
        "acc_y_exact": float(np.mean(np.all(right, axis=1))),
    }


def state_string(values: Sequence[int]) -> str:
    """``(1, 0) -> "10"``, ``(3, 12) -> "3:12"``: the one state text form of nesybench."""
    return state_str(values)


def learned_relabeling(c_true, c_pred) -> dict[str, str]:
    """alpha: each true joint state -> the state the model predicts most often on its points.

    Read off the evaluated clusters: among the points whose gold state is ``g``,
    the majority predicted joint state (ties broken towards the
    lexicographically smallest state string, so the map is deterministic).  Only
    true states that occur in ``c_true`` get an entry.

    >>> learned_relabeling([[0, 1], [0, 1], [1, 1]], [[0, 1], [1, 1], [1, 1]])
    {'01': '01', '11': '11'}
    """
    c_true, c_pred = np.asarray(c_true), np.asarray(c_pred)
    if len(c_true) == 0:
        return {}
    true_states, t_idx = np.unique(c_true, axis=0, return_inverse=True)
    pred_states, p_idx = np.unique(c_pred, axis=0, return_inverse=True)
    counts = np.zeros((len(true_states), len(pred_states)), dtype=np.int64)
    np.add.at(counts, (t_idx.reshape(-1), p_idx.reshape(-1)), 1)
    pred_keys = [state_string(r) for r in pred_states]
    alpha = {}
    for row, state in zip(counts, true_states):
        best = row.max()
        alpha[state_string(state)] = min(k for k, c in zip(pred_keys, row) if c == best)
    return dict(sorted(alpha.items()))


def is_injective(alpha: dict[str, str]) -> bool:
    """Whether no two true states share a predicted state (a permutation on its domain)."""
    return len(set(alpha.values())) == len(alpha)


def is_identity(alpha: dict[str, str]) -> bool:
    return all(k == v for k, v in alpha.items())


def alpha_string(alpha: dict[str, str]) -> str:
    """``"00->00 01->01 10->01 11->11"``."""
    return " ".join(f"{k}->{alpha[k]}" for k in sorted(alpha))


def binning_note(n_bins: int, right_closed: bool) -> str:
    """The bin convention of an ECE number, as the reports state it."""
    if right_closed:
        return f"{n_bins} equal-width bins, right-closed (b/B, (b+1)/B], 0 in bin 0"
    return f"{n_bins} equal-width bins, left-closed [b/B, (b+1)/B), 1 in bin B-1"


def concept_panel(
    c_true,
    probs: Sequence[np.ndarray],
    *,
    y_true=None,
    y_pred=None,
    output_names: Sequence[str] | None = None,
    groups: Mapping[str, Sequence[int]] | None = None,
    n_bins: int = 10,
    right_closed: bool = False,
) -> dict:
    """Every panel metric of one model on one split, as a dict (keys in the module docstring).

    Always: ``n_points``, ``n_concepts``, ``acc_c``, ``acc_c_exact``, ``f1_c``,
    the four collapse forms and their denominators (:func:`concept_collapse`),
    ``ece_c``, ``ece_c_values``, ``ece_binning`` (the convention in words),
    ``entropy_c`` and ``occurrence`` (counts of every joint state, lexicographic;
    None beyond :data:`MAX_OCCURRENCE_STATES` states).  With labels: the keys of
    :func:`label_accuracies`.  With ``groups``: ``cls_c_groups`` (name -> the
    collapse forms of that group) and ``cls_c_groups_mean`` /
    ``cls_c_count_groups_mean`` (means over groups).
    """
    c_true = np.asarray(c_true, dtype=np.int64)
    c_pred = predicted_concepts(probs)
    n_values = [np.asarray(p).shape[1] for p in probs]
    collapse = concept_collapse(c_true, c_pred, n_values)
    out = {
        "n_points": int(c_true.shape[0]),
        "n_concepts": int(c_true.shape[1]),
        "acc_c": concept_accuracy(c_true, c_pred),
        "acc_c_exact": concept_exact_match(c_true, c_pred),
        "f1_c": concept_macro_f1(c_true, c_pred),
        **collapse,
        "ece_c": concept_ece(c_true, probs, n_bins=n_bins, right_closed=right_closed),
        "ece_c_values": concept_value_ece(c_true, probs, n_bins=n_bins, right_closed=right_closed),
        "ece_binning": binning_note(n_bins, right_closed),
        "entropy_c": concept_entropy(probs),
        "occurrence": (
            [int(v) for v in occurrence_vector(c_pred, n_values)]
            if collapse["n_states"] <= MAX_OCCURRENCE_STATES
            else None
        ),
    }
    if groups:
        per_group = group_collapse(c_true, c_pred, n_values, groups)
        out["cls_c_groups"] = per_group
        out["cls_c_groups_mean"] = float(np.mean([g["cls_c"] for g in per_group.values()]))
        out["cls_c_count_groups_mean"] = float(
            np.mean([g["cls_c_count"] for g in per_group.values()])
        )
    if y_true is not None:
        out.update(label_accuracies(y_true, y_pred, names=output_names))
    return out
