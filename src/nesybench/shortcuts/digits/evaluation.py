"""Train, predict and score digit models: the functions the report's head-to-head and the
mitigation sweep call.

Three steps, each a plain function:

1. :func:`train_model` trains one model (a digit-model variant, or the neural
   baseline) for one seed on one task; :func:`predict` returns its
   :class:`Predictions`: per split, the gold digits and labels, the predicted
   labels and, for the digit model, the digit logits and probabilities of every
   position (:func:`train_and_predict` does both).  The pipeline stores a digit
   model's weights (:func:`model_arrays`) and rebuilds it with :func:`model_from_arrays`,
   and the baseline's predicted labels (:func:`predictions_from_labels`).
2. :func:`evaluate` scores predictions: AccY in distribution (test) and out of
   it (ood), and the concept panel of :mod:`nesybench.shortcuts.panel` on the
   test split (AccC, F1(C), Cls(C), ECE(C)), the learned digit map (true digit
   -> majority predicted digit), whether the map is the identity, and shortcut
   incidence: *label-perfect on the support* (test AccY at least
   ``min_acc_y``; the test split holds only support tuples) *but the map is not
   the identity*.  Whether the map is one of the optima the counter counted is
   asked of the ``is_optimum`` function passed in (the counter's membership
   test, never re-implemented here; see :func:`counter_is_optimum`).
3. :func:`sweep_cell` does both for one (support, mitigation, seed) cell and
   returns one row of metrics.

Mitigations are spelled as in :attr:`nesybench.shortcuts.digits.nesy.Variant.name`
(``label_only``, ``concept_sup=0.01``, ``entropy=1``, ``multitask=product``,
joined by ``+``), plus ``neural`` for the baseline without concepts;
:func:`~nesybench.shortcuts.digits.mitigations.parse_mitigation` reads them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...metrics.stats import wilson_interval
from ..concept_table import concept_table
from ..panel import concept_panel, is_identity, is_injective, learned_relabeling
from .baselines import LabelMLP, predict_label_mlp, train_label_mlp
from .mitigations import NEURAL, parse_mitigation
from .nesy import (
    DEFAULT_CONFIG,
    EncoderParams,
    NesyConfig,
    NesyModel,
    Variant,
    digit_logits,
    one_blas_thread,
    predict_labels,
    probs_from_logits,
    train_nesy,
    train_nesy_seeds,
)
from .tasks import SPLITS, DigitTask, tuple_string

__all__ = [
    "SplitPredictions",
    "Predictions",
    "IsOptimum",
    "train_model",
    "predict",
    "model_arrays",
    "model_from_arrays",
    "predictions_from_labels",
    "train_and_predict",
    "digit_map",
    "digit_confusion",
    "map_string",
    "concept_frame",
    "evaluate",
    "sweep_cell",
    "counter_is_optimum",
    "counter_count",
    "directional_claims",
]

MAP_SPLITS = ("test", "ood")  # the learned map is read off every test image a model sees

# The membership test of the counter: is this digit map (applied to every position, the shared
# family) one of the optima counted for this support?  Keyword-only arguments as named here.
IsOptimum = Callable[..., bool]


@dataclass(frozen=True)
class SplitPredictions:
    """One split's gold and predicted values; ``digit_logits`` / ``digit_probs`` are ``(n, k, V)``
    for the digit model and None for the neural baseline."""

    digits: np.ndarray
    y: np.ndarray
    y_pred: np.ndarray
    digit_logits: np.ndarray | None = None
    digit_probs: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.y.shape[0])


@dataclass(frozen=True)
class Predictions:
    """Every split's predictions of one trained model."""

    model: str  # "nesy" or "neural"
    mitigation: str  # Variant.name, or "neural"
    seed: int
    knowledge: str
    n_digits: int
    support_name: str
    support: tuple
    splits: dict  # split name -> SplitPredictions

    @property
    def has_concepts(self) -> bool:
        return self.model != NEURAL


def train_model(
    task: DigitTask,
    mitigation: str | Variant = "label_only",
    *,
    seed: int,
    config: NesyConfig = DEFAULT_CONFIG,
) -> NesyModel | LabelMLP:
    """Train one model for one seed on ``task``: the digit model of a
    :class:`~nesybench.shortcuts.digits.nesy.Variant` (or its name), or with ``"neural"`` the
    baseline without concepts."""
    variant = parse_mitigation(mitigation)
    if variant == NEURAL:
        return train_label_mlp(task, seed=seed, config=config)
    return train_nesy(task, variant, seed=seed, config=config)


def train_models(
    task: DigitTask,
    mitigation: str | Variant = "label_only",
    *,
    seeds,
    config: NesyConfig = DEFAULT_CONFIG,
) -> list[NesyModel | LabelMLP]:
    """:func:`train_model` for each of ``seeds``: the digit models side by side
    (:func:`~nesybench.shortcuts.digits.nesy.train_nesy_seeds`, each the model its seed gets alone),
    the neural baseline one seed at a time."""
    variant = parse_mitigation(mitigation)
    if variant == NEURAL:
        return [train_label_mlp(task, seed=seed, config=config) for seed in seeds]
    return list(train_nesy_seeds(task, variant, seeds=seeds, config=config))


def _prediction_frame(task: DigitTask, splits: dict, *, model: str, mitigation: str, seed: int):
    return Predictions(
        model=model,
        mitigation=mitigation,
        seed=int(seed),
        knowledge=task.knowledge,
        n_digits=task.n_digits,
        support_name=task.support_name,
        support=task.support,
        splits=splits,
    )


def predict(task: DigitTask, model: NesyModel | LabelMLP, *, seed: int) -> Predictions:
    """Every split's predictions of a trained model on ``task``."""
    images = task.images
    splits = {}
    if isinstance(model, LabelMLP):
        for name in SPLITS:
            data = task.splits[name]
            y_pred = predict_label_mlp(model, data.pixels(images))
            splits[name] = SplitPredictions(data.digits, data.y, y_pred)
        return _prediction_frame(task, splits, model=NEURAL, mitigation=NEURAL, seed=seed)
    for name in SPLITS:
        data = task.splits[name]
        X = data.pixels(images)
        with one_blas_thread():
            logits = digit_logits(model.params, X)
        probs = probs_from_logits(logits)
        splits[name] = SplitPredictions(
            data.digits, data.y, predict_labels(model, X), logits, probs
        )
    return _prediction_frame(task, splits, model="nesy", mitigation=model.variant.name, seed=seed)


def model_arrays(model: NesyModel) -> dict[str, np.ndarray]:
    """A digit model's weights by name (``W1``, ``b1``, ``W2``, ``b2``), as the pipeline stores
    them."""
    return dict(zip(EncoderParams.NAMES, model.params.arrays()))


def model_from_arrays(
    arrays, *, task: DigitTask, mitigation: str | Variant, config: NesyConfig = DEFAULT_CONFIG
) -> NesyModel:
    """The digit model whose weights are ``arrays`` (see :func:`model_arrays`), ready for
    :func:`predict`; ``mitigation`` names the variant it was trained as."""
    variant = parse_mitigation(mitigation)
    if variant == NEURAL:
        raise InputError("mitigation: the neural baseline has no digit weights to rebuild")
    params = EncoderParams(*(np.asarray(arrays[n], dtype=np.float64) for n in EncoderParams.NAMES))
    return NesyModel(
        params=params,
        config=config,
        variant=variant,
        knowledge=task.knowledge,
        n_digits=task.n_digits,
        n_positions=task.n_positions,
        supervised=np.zeros(0, dtype=np.int64),
    )


def predictions_from_labels(task: DigitTask, y_pred: Mapping[str, np.ndarray], *, seed: int):
    """The neural baseline's :class:`Predictions` from its stored predicted labels per split."""
    splits = {}
    for name in SPLITS:
        data = task.splits[name]
        labels = np.asarray(y_pred.get(name, np.zeros(0)), dtype=np.int64)
        if labels.shape != data.y.shape:
            raise InputError(
                f"y_pred[{name!r}] must be {len(data)} predicted labels, got {labels.size}"
            )
        splits[name] = SplitPredictions(data.digits, data.y, labels)
    return _prediction_frame(task, splits, model=NEURAL, mitigation=NEURAL, seed=seed)


def train_and_predict(
    task: DigitTask,
    mitigation: str | Variant = "label_only",
    *,
    seed: int,
    config: NesyConfig = DEFAULT_CONFIG,
) -> Predictions:
    """Train one model for one seed on ``task`` and predict every split.

    ``mitigation`` is a :class:`~nesybench.shortcuts.digits.nesy.Variant`, its name, or
    ``"neural"`` for the baseline without concepts.
    """
    return predict(task, train_model(task, mitigation, seed=seed, config=config), seed=seed)


def _pooled(pred: Predictions, splits: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Gold and predicted digits of every (point, position) of ``splits``, flattened."""
    gold = [pred.splits[s].digits.reshape(-1) for s in splits if len(pred.splits[s])]
    guess = [
        pred.splits[s].digit_probs.argmax(axis=-1).reshape(-1)
        for s in splits
        if len(pred.splits[s])
    ]
    return np.concatenate(gold), np.concatenate(guess)


def _require_concepts(pred: Predictions, what: str) -> None:
    if not pred.has_concepts:
        raise InputError(f"pred: the {pred.model} model has no digit predictions to read {what}")


def digit_map(pred: Predictions, *, splits: Sequence[str] = MAP_SPLITS) -> dict[int, int]:
    """The learned digit map: each true digit -> the digit the model predicts most often on its
    images (every position of ``splits`` pooled; ties towards the smaller digit).

    Read through :func:`nesybench.shortcuts.panel.learned_relabeling` with one
    concept (the digit), so the map is the panel's ``alpha``.
    """
    _require_concepts(pred, "a digit map")
    gold, guess = _pooled(pred, splits)
    alpha = learned_relabeling(gold[:, None], guess[:, None])
    return {int(t): int(p) for t, p in alpha.items()}


def digit_confusion(pred: Predictions, *, splits: Sequence[str] = MAP_SPLITS) -> np.ndarray:
    """``(V, V)`` counts: row = true digit, column = predicted digit, over ``splits`` pooled."""
    _require_concepts(pred, "a confusion matrix")
    gold, guess = _pooled(pred, splits)
    V = pred.n_digits
    return np.bincount(gold * V + guess, minlength=V * V).reshape(V, V).astype(np.int64)


def map_string(mapping: Mapping[int, int]) -> str:
    """``{0: 0, 1: 5} -> "0->0 1->5"``."""
    return " ".join(f"{t}->{mapping[t]}" for t in sorted(mapping))


def concept_frame(pred: Predictions, split: str = "test"):
    """One split's digit heads as the panel's long concept table (one row per point and
    position: ``point``, ``concept`` = position, ``gold``, ``probs``, ``logits``), the format
    ``nesybench score-concepts`` reads and the concept-head calibration takes."""
    _require_concepts(pred, "a concept table")
    if split not in pred.splits:
        raise InputError(f"split must be one of {', '.join(pred.splits)}, got {split!r}")
    data = pred.splits[split]
    k = data.digits.shape[1]
    return concept_table(
        np.arange(len(data)),
        data.digits,
        [data.digit_probs[:, j, :] for j in range(k)],
        [data.digit_logits[:, j, :] for j in range(k)],
    )


def _acc(split: SplitPredictions) -> float:
    return float(np.mean(split.y_pred == split.y)) if len(split) else float("nan")


def _panel(split: SplitPredictions, n_bins: int) -> dict:
    """The concept panel with the positions as concepts, and the digit-level collapse (positions
    pooled into one 10-way concept)."""
    k = split.digits.shape[1]
    probs = [split.digit_probs[:, j, :] for j in range(k)]
    panel = concept_panel(split.digits, probs, n_bins=n_bins)
    pooled = concept_panel(
        split.digits.reshape(-1, 1),
        [split.digit_probs.reshape(-1, split.digit_probs.shape[-1])],
        n_bins=n_bins,
    )
    return {**panel, "cls_c_digits": pooled["cls_c"], "cls_c_digits_count": pooled["cls_c_count"]}


PANEL_KEYS = ("acc_c", "f1_c", "cls_c", "cls_c_count", "ece_c", "cls_c_digits")


def evaluate(
    pred: Predictions,
    *,
    is_optimum: IsOptimum | None = None,
    min_acc_y: float = 0.9,
    n_bins: int = 10,
) -> dict:
    """Score one model's predictions (see the module docstring).

    Parameters
    ----------
    pred : the output of :func:`train_and_predict`.
    is_optimum : the counter's membership test, called as
        ``is_optimum(digit_map, support=..., knowledge=..., n_digits=...)`` with
        ``digit_map`` a dict true digit -> predicted digit (the ``shared``
        family) and ``support`` a list of digit tuples; None leaves
        ``map_is_optimum`` None.  The pipeline passes :func:`counter_is_optimum`.
    min_acc_y : test AccY at which a model counts as label-perfect on the support.
    n_bins : bins of ECE(C).

    Returns
    -------
    dict
        ``acc_y`` (test), ``acc_y_val``, ``acc_y_train``, ``acc_y_ood`` (NaN when the ood split
        is empty), the panel on test (``acc_c``, ``f1_c``, ``cls_c``, ``cls_c_count``,
        ``ece_c``, ``cls_c_digits``) and ``acc_c_ood``, ``digit_map`` (``"0->0 1->1 ..."``),
        ``map_identity``, ``map_injective``, ``label_perfect``, ``shortcut``,
        ``map_is_optimum``.  Concept keys are NaN / None for the neural baseline.
    """
    if not (isinstance(min_acc_y, (int, float)) and 0.0 <= min_acc_y <= 1.0):
        raise InputError(f"min_acc_y must be a number in [0, 1], got {min_acc_y!r}")
    row = {
        "acc_y": _acc(pred.splits["test"]),
        "acc_y_ood": _acc(pred.splits["ood"]),
        "acc_y_val": _acc(pred.splits["val"]),
        "acc_y_train": _acc(pred.splits["train"]),
    }
    label_perfect = bool(row["acc_y"] >= min_acc_y)
    row["label_perfect"] = label_perfect
    if not pred.has_concepts:
        row.update({key: float("nan") for key in (*PANEL_KEYS, "acc_c_ood")})
        row.update(
            digit_map=None,
            map_identity=None,
            map_injective=None,
            shortcut=None,
            map_is_optimum=None,
        )
        return row
    panel = _panel(pred.splits["test"], n_bins)
    row.update({key: float(panel[key]) for key in PANEL_KEYS})
    ood = pred.splits["ood"]
    row["acc_c_ood"] = (
        float(np.mean(ood.digit_probs.argmax(-1) == ood.digits)) if len(ood) else (float("nan"))
    )
    mapping = digit_map(pred)
    as_text = {str(t): str(p) for t, p in mapping.items()}
    identity = is_identity(as_text)
    row.update(
        digit_map=map_string(mapping),
        map_identity=identity,
        map_injective=is_injective(as_text),
        shortcut=bool(label_perfect and not identity),
        map_is_optimum=None
        if is_optimum is None
        else bool(
            is_optimum(
                mapping,
                support=list(pred.support),
                knowledge=pred.knowledge,
                n_digits=pred.n_digits,
            )
        ),
    )
    return row


def sweep_cell(
    task: DigitTask,
    mitigation: str | Variant,
    *,
    seed: int,
    config: NesyConfig = DEFAULT_CONFIG,
    is_optimum: IsOptimum | None = None,
    min_acc_y: float = 0.9,
    n_bins: int = 10,
) -> dict:
    """One cell of the mitigation sweep (support x mitigation x seed): train, predict, score.

    Returns one flat row: ``support``, ``n_support``, ``mitigation``, ``model``, ``seed``,
    then every key of :func:`evaluate`.
    """
    pred = train_and_predict(task, mitigation, seed=seed, config=config)
    return {
        "support": task.support_name,
        "n_support": len(task.support),
        "mitigation": pred.mitigation,
        "model": pred.model,
        "seed": int(seed),
        **evaluate(pred, is_optimum=is_optimum, min_acc_y=min_acc_y, n_bins=n_bins),
    }


# The digit-map checks below call the one counter (nesybench.counting): the shared family, one
# map applied to every position, is what a single digit classifier can land on.


def _digit_knowledge(knowledge: str, n_digits: int, n_positions: int):
    """``sum`` as the counter's own knowledge; any other digit knowledge as a label table."""
    from ...logic.knowledge import TableKnowledge, all_states, make_knowledge

    domains = (n_digits,) * n_positions
    if knowledge == "sum":
        return make_knowledge("sum", domains)
    if knowledge == "product":
        labels = [int(np.prod(state)) for state in all_states(domains)]
        return TableKnowledge.from_labels(domains, labels, source="product")
    raise InputError(f"knowledge must be sum or product, got {knowledge!r}")


def counter_is_optimum(
    digit_map: Mapping[int, int], *, support: Sequence[Sequence[int]], knowledge: str, n_digits: int
) -> bool:
    """Is ``digit_map``, applied to every position (the ``shared`` family), one of the optima the
    counter counts for ``support``?  The counter's own membership test decides."""
    from ...counting import is_optimum

    n_positions = len(support[0])
    alpha = {
        tuple_string(state): tuple_string([int(digit_map.get(int(d), -1)) for d in state])
        for state in support
    }
    if any("-" in image for image in alpha.values()):
        return False  # a digit of the support that the map never produced: not a map of it
    k = _digit_knowledge(knowledge, n_digits, n_positions)
    return bool(is_optimum(alpha, k, list(alpha), missing="reject"))


def counter_count(
    support: Sequence[Sequence[int]], *, knowledge: str, n_digits: int, n_positions: int
) -> dict:
    """The counter's optima of ``support`` for the ``shared`` family: ``n_opt``, ``log2_n_opt``
    and ``n_distinct`` (the distinct digit maps among them)."""
    from ...counting import CountingTask, count_shared

    task = CountingTask(
        _digit_knowledge(knowledge, n_digits, n_positions), tuple(tuple_string(s) for s in support)
    )
    result = count_shared(task)
    return {
        "n_opt": int(result.n_opt),
        "log2_n_opt": float(result.log2_n_opt),
        "n_distinct": int(result.n_distinct if result.n_distinct is not None else result.n_opt),
    }


def _rate(flags: Sequence[bool]) -> dict:
    flags = [bool(f) for f in flags]
    n, hits = len(flags), int(sum(flags))
    lo, hi = wilson_interval(hits, n)
    return {"n": n, "hits": hits, "rate": hits / n if n else float("nan"), "lo": lo, "hi": hi}


def directional_claims(
    label_only: Sequence[dict],
    supervised: Sequence[dict],
    *,
    id_tolerance: float = 0.05,
    ood_margin: float = 0.2,
) -> dict:
    """The chapter's three directional claims over paired seeds (row ``i`` of both lists is the
    same seed), as rates with 95% Wilson intervals.

    - ``incidence``: shortcut incidence of each model (``shortcut`` rows), and
      ``supervision_lowers_incidence`` = incidence(supervised) < incidence(label-only);
    - ``acc_y_indistinguishable``: per seed, ``|AccY_lo - AccY_sup| <= id_tolerance``;
    - ``ood_separates``: per seed, ``AccY-OOD_sup - AccY-OOD_lo >= ood_margin``.
    """
    if len(label_only) != len(supervised) or not label_only:
        raise InputError(
            f"label_only, supervised: need the same non-zero number of rows (paired seeds), got "
            f"{len(label_only)} and {len(supervised)}"
        )
    for a, b in zip(label_only, supervised):
        if a["seed"] != b["seed"]:
            raise InputError(
                f"label_only, supervised: rows are not paired (seed {a['seed']} vs {b['seed']})"
            )
    lo_inc = _rate([r["shortcut"] for r in label_only])
    sup_inc = _rate([r["shortcut"] for r in supervised])
    same = _rate(
        [abs(a["acc_y"] - b["acc_y"]) <= id_tolerance for a, b in zip(label_only, supervised)]
    )
    ood_ok = [
        not (math.isnan(a["acc_y_ood"]) or math.isnan(b["acc_y_ood"]))
        and b["acc_y_ood"] - a["acc_y_ood"] >= ood_margin
        for a, b in zip(label_only, supervised)
    ]
    return {
        "incidence_label_only": lo_inc,
        "incidence_supervised": sup_inc,
        "supervision_lowers_incidence": sup_inc["rate"] < lo_inc["rate"],
        "acc_y_indistinguishable": same,
        "ood_separates": _rate(ood_ok),
    }
