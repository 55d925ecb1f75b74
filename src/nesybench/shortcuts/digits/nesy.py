"""The neuro-symbolic digit model: one shared digit encoder, the label computed exactly through
the knowledge.

Architecture (numpy only)::

    x_j (64 pixels of image j) -> h_j = tanh(x_j W1 + b1) -> z_j = h_j W2 + b2 (10 logits)
    p_j = softmax(z_j)                        the digit distribution of position j
    p(y | x) = sum_{c : K(c) = y} prod_j p_j(c_j)

The encoder's weights are shared by every position (the ``shared`` extractor
family of the counter: one map applied to each digit).  ``p(y | x)`` is the
exact probabilistic semantics of DeepProbLog / the semantic loss, computed by
enumerating every digit tuple ``c`` (100 for two digits 0-9) with the engine
of :mod:`nesybench.shortcuts.model` (:class:`~nesybench.shortcuts.model.KnowledgeTable`
and its label-likelihood gradient).  There is no label head: trained from
``y`` alone, any relabeling of the digits that keeps ``K`` on the observed
support is an equally good optimum (a reasoning shortcut).

Loss on a mini-batch ``B`` (``S`` its concept-supervised points)::

    L = (1/|B|) sum_i -ln p_K(y_i | x_i)                                    label
      + w_c (1/|S|) sum_{i in S} sum_j -ln p_j(g_ij | x_ij)                 concept supervision
      + w_m (1/|B|) sum_i -ln p_K2(y2_i | x_i)                              multi-task
      + w_h (1 - (1/k) sum_j H(pbar_j) / ln V),  pbar_j = (1/|B|) sum_i p_j(x_ij)   entropy

The concept term is 0 on batches without supervised points (rsbench's masked
concept loss); the entropy term is rsbench's mitigation that pushes the
batch-mean digit distribution of every position towards uniform, so a
collapsed map (two digits read as one) costs; the multi-task term adds a
second knowledge ``K2`` over the same digits (e.g. the product).  Every
gradient is analytic (checked against finite differences in the tests);
training is Adam on shuffled mini-batches.

Determinism: the initialisation (stream ``("digits", "init")`` of the seed),
the supervised subset (``("digits", "supervised")``) and the batch order
(``("digits", "batches")``) come from :func:`nesybench.seeds.child_rng`, so the
label-only model and its mitigated twins of one seed start from the same
weights and see the same batches; BLAS runs on one thread during training and
prediction, so the bytes do not depend on the machine's core count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ...seeds import child_rng
from ..model import KnowledgeTable, _losses_and_logit_grads
from .tasks import KNOWLEDGE, DigitTask, all_tuples, knowledge_labels

__all__ = [
    "NesyConfig",
    "DEFAULT_CONFIG",
    "Variant",
    "EncoderParams",
    "NesyModel",
    "knowledge_table",
    "init_encoder",
    "digit_logits",
    "digit_probs",
    "probs_from_logits",
    "loss_and_grads",
    "supervised_points",
    "train_nesy",
    "train_nesy_seeds",
    "predict_labels",
    "one_blas_thread",
]

ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


@dataclass(frozen=True)
class NesyConfig:
    """Size and optimiser of the digit model (the same for every variant of a sweep)."""

    hidden: int = 64
    epochs: int = 20
    batch_size: int = 32
    lr: float = 0.01
    init_scale: float = 1.0

    def __post_init__(self):
        for name in ("hidden", "epochs", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InputError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("lr", "init_scale"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise InputError(f"{name} must be a finite number > 0, got {value!r}")


DEFAULT_CONFIG = NesyConfig()


@dataclass(frozen=True)
class Variant:
    """What a model is trained with beyond the label: the mitigations of the sweep.

    ``concept_sup`` is the fraction of training points whose gold digits are used
    (0, 0.01, 0.1, ...); ``entropy_weight`` the weight ``w_h`` of the entropy
    term; ``multitask`` a second knowledge (a key of
    :data:`~nesybench.shortcuts.digits.tasks.KNOWLEDGE`) trained jointly with weight
    ``multitask_weight``; ``concept_weight`` the weight ``w_c`` of the concept term.
    """

    concept_sup: float = 0.0
    entropy_weight: float = 0.0
    multitask: str | None = None
    multitask_weight: float = 1.0
    concept_weight: float = 1.0

    def __post_init__(self):
        if not (
            isinstance(self.concept_sup, (int, float))
            and not isinstance(self.concept_sup, bool)
            and 0.0 <= self.concept_sup <= 1.0
        ):
            raise InputError(f"concept_sup must be a fraction in [0, 1], got {self.concept_sup!r}")
        for name in ("entropy_weight", "multitask_weight", "concept_weight"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.multitask is not None and self.multitask not in KNOWLEDGE:
            raise InputError(
                f"multitask must be None or one of {', '.join(KNOWLEDGE)}, got {self.multitask!r}"
            )

    @property
    def name(self) -> str:
        """A short stable name, e.g. ``label_only``, ``concept_sup=0.01``,
        ``entropy=1+concept_sup=0.1``."""
        parts = []
        if self.concept_sup > 0:
            parts.append(f"concept_sup={self.concept_sup:g}")
        if self.entropy_weight > 0:
            parts.append(f"entropy={self.entropy_weight:g}")
        if self.multitask:
            parts.append(f"multitask={self.multitask}")
        return "+".join(parts) or "label_only"


@dataclass
class EncoderParams:
    """The shared digit encoder: ``W1 (d, H)``, ``b1 (H,)``, ``W2 (H, V)``, ``b2 (V,)``."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    NAMES = ("W1", "b1", "W2", "b2")

    def arrays(self) -> list[np.ndarray]:
        return [self.W1, self.b1, self.W2, self.b2]

    def copy(self) -> EncoderParams:
        return EncoderParams(*(a.copy() for a in self.arrays()))


@dataclass
class NesyModel:
    """A trained digit model: its weights, how it was trained, and its training curve."""

    params: EncoderParams
    config: NesyConfig
    variant: Variant
    knowledge: str
    n_digits: int
    n_positions: int
    supervised: np.ndarray  # indices of the training points whose gold digits were used
    loss_curve: np.ndarray = field(default_factory=lambda: np.zeros(0))  # mean batch loss / epoch


_CONTROLLER: dict = {}


def _blas_controller():
    """One ``threadpoolctl.ThreadpoolController`` per set of loaded libraries.

    Building a controller scans every loaded shared library (milliseconds each time); a
    block job enters :class:`one_blas_thread` hundreds of times, so the scan is kept and
    redone only when new libraries have been loaded since.
    """
    import sys

    from threadpoolctl import ThreadpoolController

    key = len(sys.modules)
    if _CONTROLLER.get("key") != key:
        _CONTROLLER.update(key=key, controller=ThreadpoolController())
    return _CONTROLLER["controller"]


class one_blas_thread:
    """Context manager: BLAS on one thread (results then do not depend on the core count)."""

    def __enter__(self):
        self._limits = _blas_controller().limit(limits=1, user_api="blas")
        return self

    def __exit__(self, *exc):
        self._limits.restore_original_limits()
        return False


def knowledge_table(knowledge: str, *, n_digits: int, n_positions: int) -> KnowledgeTable:
    """``K`` over every digit tuple (lexicographic), as the label engine's lookup table.

    >>> kb = knowledge_table("sum", n_digits=10, n_positions=2)
    >>> kb.states.shape, kb.classes.tolist()[:3], int(kb.classes.max())
    ((100, 2), [0, 1, 2], 18)
    """
    states = np.asarray(all_tuples(n_digits, n_positions), dtype=np.int64)
    return KnowledgeTable(states, knowledge_labels(knowledge, states), n_values=n_digits)


def init_encoder(seed: int, *, n_inputs: int, n_values: int, config: NesyConfig) -> EncoderParams:
    """Gaussian weights with standard deviation ``init_scale / sqrt(fan_in)``, zero biases, from
    stream ``("digits", "init")`` of ``seed``."""
    rng = child_rng(seed, "digits", "init")
    H = config.hidden
    W1 = rng.standard_normal((n_inputs, H)) * (config.init_scale / math.sqrt(n_inputs))
    W2 = rng.standard_normal((H, n_values)) * (config.init_scale / math.sqrt(H))
    return EncoderParams(W1, np.zeros(H), W2, np.zeros(n_values))


def _forward(params: EncoderParams, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X (..., d)`` -> hidden ``(m, H)`` and logits ``(m, V)`` over the flattened leading axes."""
    flat = X.reshape(-1, X.shape[-1])
    h = np.tanh(flat @ params.W1 + params.b1)
    return h, h @ params.W2 + params.b2


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def digit_logits(params: EncoderParams, X) -> np.ndarray:
    """Digit logits ``(..., V)`` of pixels ``X (..., d)``."""
    X = np.asarray(X, dtype=np.float64)
    return _forward(params, X)[1].reshape(*X.shape[:-1], params.W2.shape[1])


def probs_from_logits(logits) -> np.ndarray:
    """Softmax over the last axis (computed in log space).

    >>> probs_from_logits([[0.0, 0.0]]).tolist()
    [[0.5, 0.5]]
    """
    return np.exp(_log_softmax(np.asarray(logits, dtype=np.float64)))


def digit_probs(params: EncoderParams, X) -> np.ndarray:
    """Digit probabilities ``(..., V)`` (softmax of :func:`digit_logits`)."""
    return probs_from_logits(digit_logits(params, X))


def loss_and_grads(
    params: EncoderParams,
    X,
    y,
    *,
    kb: KnowledgeTable,
    digits=None,
    sup_mask=None,
    variant: Variant = Variant(),
    kb2: KnowledgeTable | None = None,
    y2=None,
) -> tuple[float, dict, EncoderParams]:
    """The loss of the module docstring on one batch and its gradient.

    Parameters
    ----------
    X : ``(n, k, d)`` pixels of the batch's tuples; ``y`` ``(n,)`` labels under ``kb``.
    digits : ``(n, k)`` gold digits (read only where ``sup_mask`` is 1).
    sup_mask : ``(n,)`` 1 where the point's gold digits are used (None: none are).
    kb2, y2 : the second knowledge and its labels (multi-task; used when
        ``variant.multitask`` is set).

    Returns ``(total, parts, grads)``; ``parts`` holds ``label``, ``concept``,
    ``multitask`` and ``entropy`` (each unweighted).
    """
    X = np.asarray(X, dtype=np.float64)
    n, k, _ = X.shape
    y = np.asarray(y, dtype=np.int64)
    G = np.zeros((n, k), dtype=np.int64) if digits is None else np.asarray(digits, np.int64)
    mask = np.zeros(n) if sup_mask is None else np.asarray(sup_mask, float).reshape(n)
    if variant.multitask and (kb2 is None or y2 is None):
        raise InputError("kb2, y2: the multi-task variant needs the second knowledge's labels")
    stacked = EncoderParams(*(a[None] for a in params.arrays()))
    totals, parts, grads = _block_loss_and_grads(
        stacked,
        X[None],
        y[None],
        G[None],
        mask[None],
        kb=kb,
        variant=variant,
        kb2=kb2,
        y2=None if y2 is None else np.asarray(y2, np.int64)[None],
    )
    return (
        float(totals[0]),
        {key: float(value[0]) for key, value in parts.items()},
        EncoderParams(*(a[0] for a in grads.arrays())),
    )


def _block_loss_and_grads(
    params: EncoderParams,
    X: np.ndarray,
    y: np.ndarray,
    G: np.ndarray,
    mask: np.ndarray,
    *,
    kb: KnowledgeTable,
    variant: Variant,
    kb2: KnowledgeTable | None,
    y2: np.ndarray | None,
) -> tuple[np.ndarray, dict, EncoderParams]:
    """:func:`loss_and_grads` of ``B`` models at once, each on its own batch: weights stacked
    ``(B, ...)``, pixels ``(B, n, k, d)``, labels ``(B, n)``, digits ``(B, n, k)``, mask
    ``(B, n)``.  Every operation acts on each model's slice as it would on that model alone
    (one matrix product per slice, reductions along the model's own axes), so each model's
    numbers are those it gets on its own."""
    B, n, k, d = X.shape
    flat = X.reshape(B, n * k, d)
    h = np.tanh(np.matmul(flat, params.W1) + params.b1[:, None, :])
    z = (np.matmul(h, params.W2) + params.b2[:, None, :]).reshape(B, n, k, -1)
    label_nll, concept_nll, dz = _losses_and_logit_grads(z, y, G, mask, kb, variant.concept_weight)
    parts = {"label": label_nll, "concept": concept_nll}
    total = parts["label"] + variant.concept_weight * parts["concept"]
    if variant.multitask:
        nll2, _, dz2 = _losses_and_logit_grads(z, y2, G, np.zeros((B, n)), kb2, 0.0)
        parts["multitask"] = nll2
        total = total + variant.multitask_weight * parts["multitask"]
        dz = dz + variant.multitask_weight * dz2
    if variant.entropy_weight > 0:
        V = z.shape[-1]
        p = np.exp(_log_softmax(z))  # (B, n, k, V)
        pbar = p.mean(axis=1)  # (B, k, V)
        log_pbar = np.log(pbar)
        entropy = -(pbar * log_pbar).sum(axis=2)  # (B, k)
        parts["entropy"] = 1.0 - entropy.mean(axis=1) / math.log(V)
        total = total + variant.entropy_weight * parts["entropy"]
        # dL/dp_ijv = w (ln pbar_jv + 1) / (k ln V n); then through the softmax of z_ij.
        g = (variant.entropy_weight * (log_pbar + 1.0) / (k * math.log(V) * n))[:, None]
        dz = dz + p * (g - (p * g).sum(axis=-1, keepdims=True))
    dz = dz.reshape(B, n * k, -1)
    da = np.matmul(dz, params.W2.transpose(0, 2, 1)) * (1.0 - h * h)
    grads = EncoderParams(
        np.matmul(flat.transpose(0, 2, 1), da),
        da.sum(axis=1),
        np.matmul(h.transpose(0, 2, 1), dz),
        dz.sum(axis=1),
    )
    return total, parts, grads


def supervised_points(n_train: int, fraction: float, *, seed: int) -> np.ndarray:
    """The sorted indices of the ``round(fraction * n_train)`` training points (at least one when
    ``fraction > 0``) whose gold digits are used, from stream ``("digits", "supervised")``.

    >>> supervised_points(1000, 0.01, seed=0).size, supervised_points(1000, 0.0, seed=0).size
    (10, 0)
    """
    if fraction <= 0:
        return np.zeros(0, dtype=np.int64)
    m = min(n_train, max(1, int(round(fraction * n_train))))
    rng = child_rng(seed, "digits", "supervised")
    return np.sort(rng.permutation(n_train)[:m]).astype(np.int64)


def _flat_views(params: list[EncoderParams]) -> tuple[EncoderParams, np.ndarray]:
    """One flat copy of the weights of ``B`` models, ``theta (B, P)``, and ``EncoderParams``
    whose arrays are views into it, stacked ``(B, ...)`` (Adam then updates every weight with
    a handful of vector operations)."""
    theta = np.stack([np.concatenate([a.ravel() for a in p.arrays()]) for p in params])
    views, start = [], 0
    for a in params[0].arrays():
        views.append(theta[:, start : start + a.size].reshape(len(params), *a.shape))
        start += a.size
    return EncoderParams(*views), theta


def train_nesy(
    task: DigitTask,
    variant: Variant = Variant(),
    *,
    seed: int,
    config: NesyConfig = DEFAULT_CONFIG,
    callback=None,
) -> NesyModel:
    """Train one digit model on ``task``'s training split (see the module docstring).

    ``callback(epoch, mean_loss)`` is called after every epoch (progress lines).
    """
    each = None if callback is None else (lambda epoch, losses: callback(epoch, losses[0]))
    return train_nesy_seeds(task, variant, seeds=[seed], config=config, callback=each)[0]


def train_nesy_seeds(
    task: DigitTask,
    variant: Variant = Variant(),
    *,
    seeds,
    config: NesyConfig = DEFAULT_CONFIG,
    callback=None,
) -> list[NesyModel]:
    """The digit model of ``variant`` for each of ``seeds``, trained side by side: each seed
    with its own initialisation, supervised points and batch order, its Adam steps taken
    together with the others' (:func:`_block_loss_and_grads`).  Each model is the one
    :func:`train_nesy` trains for its seed alone, to the bit (a test holds them equal).

    ``callback(epoch, mean_losses)`` is called after every epoch, one mean loss per seed.
    """
    seeds = [int(s) for s in seeds]
    train_split = task.splits["train"]
    X = train_split.pixels(task.images)
    y, G = train_split.y, train_split.digits
    n, k = G.shape
    kb = knowledge_table(task.knowledge, n_digits=task.n_digits, n_positions=k)
    kb2 = y2 = None
    if variant.multitask:
        kb2 = knowledge_table(variant.multitask, n_digits=task.n_digits, n_positions=k)
        y2 = knowledge_labels(variant.multitask, G)
    supervised = [supervised_points(n, variant.concept_sup, seed=seed) for seed in seeds]
    mask = np.zeros((len(seeds), n))
    for row, points in enumerate(supervised):
        mask[row, points] = 1.0
    params, theta = _flat_views(
        [
            init_encoder(seed, n_inputs=X.shape[-1], n_values=task.n_digits, config=config)
            for seed in seeds
        ]
    )
    m1, m2 = np.zeros_like(theta), np.zeros_like(theta)
    batches = [child_rng(seed, "digits", "batches") for seed in seeds]
    b1, b2 = ADAM_BETAS
    step = 0
    curve = np.zeros((len(seeds), config.epochs))
    with one_blas_thread():
        for epoch in range(config.epochs):
            orders = np.stack([rng.permutation(n) for rng in batches])
            losses = []
            for start in range(0, n, config.batch_size):
                rows = orders[:, start : start + config.batch_size]
                total, _, grads = _block_loss_and_grads(
                    params,
                    X[rows],
                    y[rows],
                    G[rows],
                    np.take_along_axis(mask, rows, axis=1),
                    kb=kb,
                    variant=variant,
                    kb2=kb2,
                    y2=None if y2 is None else y2[rows],
                )
                losses.append(total)
                step += 1
                scale = config.lr * math.sqrt(1.0 - b2**step) / (1.0 - b1**step)
                g = np.concatenate([a.reshape(len(seeds), -1) for a in grads.arrays()], axis=1)
                m1 *= b1
                m1 += (1.0 - b1) * g
                m2 *= b2
                m2 += (1.0 - b2) * (g * g)
                theta -= scale * m1 / (np.sqrt(m2) + ADAM_EPS)  # updates params in place
            for row in range(len(seeds)):
                curve[row, epoch] = float(np.mean([float(t[row]) for t in losses]))
            if callback is not None:
                callback(epoch + 1, curve[:, epoch].tolist())
    return [
        NesyModel(
            params=EncoderParams(*(a[row].copy() for a in params.arrays())),
            config=config,
            variant=variant,
            knowledge=task.knowledge,
            n_digits=task.n_digits,
            n_positions=k,
            supervised=supervised[row],
            loss_curve=curve[row],
        )
        for row in range(len(seeds))
    ]


def predict_labels(model: NesyModel, X, *, knowledge: str | None = None) -> np.ndarray:
    """``argmax_y p(y | x)`` under ``knowledge`` (default: the model's) for pixels ``(n, k, d)``."""
    X = np.asarray(X, dtype=np.float64)
    kb = knowledge_table(
        knowledge or model.knowledge, n_digits=model.n_digits, n_positions=X.shape[1]
    )
    if X.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    with one_blas_thread():
        log_p = _log_softmax(digit_logits(model.params, X))
    return kb.classes[np.argmax(kb.label_log_probs(log_p[None])[0], axis=-1)]
