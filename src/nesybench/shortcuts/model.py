"""A numpy concept-bottleneck network whose label goes through the knowledge.

Architecture (one model, or a batch of ``B`` models trained side by side)::

    x (d inputs) -> h = tanh(x W1 + b1) (H hidden) -> z_j = h W2_j + b2_j  (one head per concept)
    p_j = softmax(z_j)                       concept j's value distribution
    q(g) = prod_j p_j(g_j)                   joint concept state, heads independent
    P(y) = sum_g q(g) [K(g) = y]             the label is *computed* through the knowledge K

There is no label head: a model trained on labels alone only ever sees
``P(y)``, so any relabeling of the concept states that preserves ``K`` on the
observed support is an equally good optimum (a reasoning shortcut).

Losses (``n`` training points, ``S`` the concept-supervised subset)::

    L = (1/n) sum_i -ln P(y_i | x_i)  +  w * (1/|S|) sum_{i in S} sum_j -ln p_j(g_ij | x_i)

The gradient of the label term with respect to head ``j``'s logits is
``p_j - r_j``, where ``r_j(v) = sum_{g: K(g) = y, g_j = v} q(g) / P(y)`` is the
posterior marginal of concept ``j`` given the observed label; the concept term
contributes ``p_j - onehot(g_j)``.  Both are back-propagated analytically
(checked against finite differences in the tests).

Training is full-batch gradient descent with a fixed number of epochs and a
fixed initialisation drawn from a seed, so a run is a pure function of its
inputs.  A batch of models shares the data and differs only in the
initialisation (and the supervision mask), which is how a seed sweep runs as a
handful of batched matrix products instead of hundreds of Python loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

_LOG_FLOOR = -745.0  # exp() of anything below is 0.0 in float64


BIAS_INITS = ("zero", "gaussian")


@dataclass(frozen=True)
class ConceptNetConfig:
    """Hyper-parameters of the network and its training run."""

    hidden: int = 16
    epochs: int = 600
    lr: float = 1.0
    init_scale_hidden: float = 0.5
    init_scale_heads: float = 4.0
    concept_weight: float = 1.0
    n_values: int = 2  # values per concept (binary concepts in the shortcut tasks)
    # How the biases start: "zero", or "gaussian" (each bias drawn like one more weight of its
    # layer, the weight of a constant input 1, times bias_scale).  Zero biases make the initial
    # net an odd function of x (tanh is odd), which favours heads that read one coordinate.
    bias_init: str = "zero"
    bias_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.bias_init not in BIAS_INITS:
            raise InputError(f"bias_init must be one of {BIAS_INITS}, got {self.bias_init!r}")


@dataclass
class ConceptNetParams:
    """Weights of a batch of ``B`` networks (leading axis = model)."""

    W1: np.ndarray  # (B, d, H)
    b1: np.ndarray  # (B, 1, H)
    W2: np.ndarray  # (B, H, k * V)
    b2: np.ndarray  # (B, 1, k * V)

    def copy(self) -> ConceptNetParams:
        return ConceptNetParams(self.W1.copy(), self.b1.copy(), self.W2.copy(), self.b2.copy())

    def select(self, index: int) -> ConceptNetParams:
        """The single-model batch holding model ``index``."""
        s = slice(index, index + 1)
        return ConceptNetParams(
            self.W1[s].copy(), self.b1[s].copy(), self.W2[s].copy(), self.b2[s].copy()
        )

    @property
    def n_models(self) -> int:
        return self.W1.shape[0]


@dataclass
class TrainResult:
    params: ConceptNetParams
    label_nll: np.ndarray  # (epochs + 1, B): label loss before each step and after the last
    concept_nll: np.ndarray  # (epochs + 1, B): concept loss on the supervised subset (0 if none)


def init_params(
    seeds, *, n_inputs: int, n_concepts: int, config: ConceptNetConfig
) -> ConceptNetParams:
    """One initialisation per seed (each a ``numpy.random.SeedSequence`` or int entropy).

    Weights are Gaussian with standard deviation ``scale / sqrt(fan_in)``.  A small input
    scale keeps the hidden features smooth (points of one concept cluster stay together, so
    a learned relabeling is clean), while a large head scale makes the heads start far from
    uniform: each seed then commits early to one of the label-preserving relabelings, which
    is what makes shortcuts (and collapses) appear in a seed sweep.

    Biases (``config.bias_init``): ``zero``, or ``gaussian`` with the standard deviation of
    their layer's weights times ``config.bias_scale``, drawn after both weight matrices from
    the same stream, so the weights of a seed are the same under either choice.  With zero
    biases the initial net is odd in ``x``; on inputs centred on the +-1 corners that
    favours the relabelings that read one coordinate each (the bijective symmetries).
    """
    H, V = config.hidden, config.n_values
    std_hidden = config.init_scale_hidden / np.sqrt(n_inputs)
    std_heads = config.init_scale_heads / np.sqrt(H)
    blocks = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        W1 = rng.standard_normal((n_inputs, H)) * std_hidden
        W2 = rng.standard_normal((H, n_concepts * V)) * std_heads
        if config.bias_init == "gaussian":
            b1 = rng.standard_normal((1, H)) * (config.bias_scale * std_hidden)
            b2 = rng.standard_normal((1, n_concepts * V)) * (config.bias_scale * std_heads)
        else:
            b1, b2 = np.zeros((1, H)), np.zeros((1, n_concepts * V))
        blocks.append((W1, b1, W2, b2))
    W1, b1, W2, b2 = (np.stack([b[i] for b in blocks]) for i in range(4))
    return ConceptNetParams(W1=W1, b1=b1, W2=W2, b2=b2)


SHORT_AXIS = 16  # up to this length the slice loops win; longer axes (digit tuples) use numpy


def _max_last(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)`` for a short last axis, as elementwise ops.

    numpy reduces over a trailing axis of 2-8 entries slowly; a handful of
    elementwise maxima over slices is several times faster on these shapes.
    """
    if a.shape[-1] > SHORT_AXIS:
        return a.max(axis=-1)
    out = a[..., 0]
    for i in range(1, a.shape[-1]):
        out = np.maximum(out, a[..., i])
    return out


def _sum_last(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=-1)`` for a short last axis (see :func:`_max_last`), summed left to right."""
    if a.shape[-1] > SHORT_AXIS:
        return a.sum(axis=-1)
    out = a[..., 0]
    for i in range(1, a.shape[-1]):
        out = out + a[..., i]
    return out


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - _max_last(z)[..., None]
    return z - np.log(_sum_last(np.exp(z)))[..., None]


def forward(
    params: ConceptNetParams, X: np.ndarray, *, n_concepts: int
) -> tuple[np.ndarray, np.ndarray]:
    """Hidden activations ``(B, n, H)`` and concept logits ``(B, n, k, V)``."""
    h = np.tanh(np.matmul(X, params.W1) + params.b1)
    z = np.matmul(h, params.W2) + params.b2
    B, n, _ = z.shape
    return h, z.reshape(B, n, n_concepts, -1)


def concept_logits(params: ConceptNetParams, X: np.ndarray, *, n_concepts: int) -> np.ndarray:
    """Concept logits ``(B, n, k, V)``."""
    return forward(params, X, n_concepts=n_concepts)[1]


def concept_probs(params: ConceptNetParams, X: np.ndarray, *, n_concepts: int) -> np.ndarray:
    """Concept probabilities ``(B, n, k, V)`` (softmax of each head)."""
    return np.exp(_log_softmax(concept_logits(params, X, n_concepts=n_concepts)))


class KnowledgeTable:
    """The knowledge as a lookup table over every joint concept state.

    ``states`` is ``(S, k)`` (all ``V**k`` states, lexicographic, concept 0
    most significant) and ``labels`` is ``(S,)``, ``K`` applied to each state.
    """

    def __init__(self, states: np.ndarray, labels: np.ndarray, *, n_values: int = 2):
        self.states = np.asarray(states, dtype=np.int64)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.n_values = n_values
        self.n_concepts = self.states.shape[1]
        self.classes = np.unique(self.labels)
        # onehot[s, j, v] = [states[s, j] == v]: maps a state posterior to concept marginals.
        self.onehot = (self.states[:, :, None] == np.arange(n_values)[None, None, :]).astype(float)

    def log_joint(self, log_p: np.ndarray) -> np.ndarray:
        """``ln q(g) = sum_j ln p_j(g_j)`` for every state: ``(B, n, k, V) -> (B, n, S)``."""
        out = log_p[:, :, 0, :][..., self.states[:, 0]]
        for j in range(1, self.n_concepts):
            out = out + log_p[:, :, j, :][..., self.states[:, j]]
        return out

    def label_log_probs(self, log_p: np.ndarray) -> np.ndarray:
        """``ln P(y = c)`` for each class in ``classes``: ``(B, n, C)``."""
        lq = self.log_joint(log_p)
        out = []
        for c in self.classes:
            sub = lq[:, :, self.labels == c]
            m = sub.max(axis=-1, keepdims=True)
            out.append((m + np.log(np.exp(sub - m).sum(axis=-1, keepdims=True)))[..., 0])
        return np.maximum(np.stack(out, axis=-1), _LOG_FLOOR)


def _losses_and_logit_grads(z, Y, G, sup_mask, kb: KnowledgeTable, concept_weight: float):
    """Per-model losses ``(B,)`` and ``dL/dz`` ``(B, n, k, V)``; labels ``Y`` and concepts ``G``
    shared by the models (``(n,)``, ``(n, k)``) or each model's own (``(B, n)``, ``(B, n, k)``)."""
    B, n, k, V = z.shape
    log_p = _log_softmax(z)
    p = np.exp(log_p)
    lq = kb.log_joint(log_p)  # (B, n, S)
    # (n, S), or (B, n, S) for per-model labels Y (B, n): states that carry the observed label
    consistent = kb.labels == Y[..., None]
    lq_c = np.where(consistent, lq, -np.inf)
    m = _max_last(lq_c)
    w = np.exp(lq_c - m[..., None])
    total = _sum_last(w)
    log_py = m + np.log(total)  # (B, n)
    post = w / total[..., None]  # q(g) [K(g)=y] / P(y)
    r = np.matmul(post, kb.onehot.reshape(len(kb.states), -1)).reshape(
        B, n, k, V
    )  # posterior concept marginals
    label_nll = -log_py.mean(axis=1)
    grad = (p - r) / n
    n_sup = sup_mask.sum(axis=1)  # (B,)
    gold = (G[..., None] == np.arange(V)).astype(float)  # (n, k, V), or (B, n, k, V)
    ce = -_sum_last(_sum_last(gold * log_p))  # (B, n)
    denom = np.maximum(n_sup, 1)[:, None]
    concept_nll = (ce * sup_mask).sum(axis=1) / denom[:, 0]
    grad = grad + concept_weight * (sup_mask / denom)[:, :, None, None] * (p - gold)
    return label_nll, concept_nll, grad


def loss_and_grads(
    params: ConceptNetParams, X, Y, G, sup_mask, kb: KnowledgeTable, *, concept_weight: float = 1.0
):
    """Total loss per model ``(B,)`` and the gradient of its sum w.r.t. every weight.

    ``sup_mask`` is ``(B, n)`` with 1 where the concept labels of point ``i`` are
    used by model ``b`` (all zeros for a label-only model).
    """
    k = kb.n_concepts
    h, z = forward(params, X, n_concepts=k)
    label_nll, concept_nll, dz = _losses_and_logit_grads(z, Y, G, sup_mask, kb, concept_weight)
    B, n = dz.shape[:2]
    dz = dz.reshape(B, n, -1)
    dW2 = np.matmul(h.transpose(0, 2, 1), dz)
    db2 = dz.sum(axis=1, keepdims=True)
    da = np.matmul(dz, params.W2.transpose(0, 2, 1)) * (1.0 - h * h)
    dW1 = np.matmul(X.T[None], da)
    db1 = da.sum(axis=1, keepdims=True)
    total = label_nll + concept_weight * concept_nll
    return total, label_nll, concept_nll, ConceptNetParams(dW1, db1, dW2, db2)


def train(
    params: ConceptNetParams,
    X,
    Y,
    G,
    kb: KnowledgeTable,
    *,
    sup_mask=None,
    config: ConceptNetConfig,
    callback=None,
) -> TrainResult:
    """Full-batch gradient descent for ``config.epochs`` steps on every model of the batch.

    Parameters
    ----------
    params : ConceptNetParams
        Initial weights (not modified).
    X : (n, d) inputs; Y : (n,) labels; G : (n, k) gold concepts (used only where ``sup_mask`` is
    1).
    kb : KnowledgeTable
    sup_mask : (B, n) array or None (label-only for every model).
    callback : called as ``callback(epoch)`` every 50 epochs (progress lines).
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=np.int64)
    G = np.asarray(G, dtype=np.int64)
    params = params.copy()
    B = params.n_models
    if sup_mask is None:
        sup_mask = np.zeros((B, X.shape[0]))
    sup_mask = np.asarray(sup_mask, dtype=float)
    label_curve = np.empty((config.epochs + 1, B))
    concept_curve = np.empty((config.epochs + 1, B))
    for epoch in range(config.epochs + 1):
        _, lab, con, grads = loss_and_grads(
            params, X, Y, G, sup_mask, kb, concept_weight=config.concept_weight
        )
        label_curve[epoch], concept_curve[epoch] = lab, con
        if epoch == config.epochs:
            break
        params.W1 -= config.lr * grads.W1
        params.b1 -= config.lr * grads.b1
        params.W2 -= config.lr * grads.W2
        params.b2 -= config.lr * grads.b2
        if callback is not None and (epoch + 1) % 50 == 0:
            callback(epoch + 1)
    return TrainResult(params=params, label_nll=label_curve, concept_nll=concept_curve)


def predict_labels(params: ConceptNetParams, X, kb: KnowledgeTable) -> np.ndarray:
    """Most probable label ``argmax_y P(y | x)`` for every model: ``(B, n)``."""
    log_p = _log_softmax(
        concept_logits(params, np.asarray(X, dtype=float), n_concepts=kb.n_concepts)
    )
    return kb.classes[np.argmax(kb.label_log_probs(log_p), axis=-1)]
