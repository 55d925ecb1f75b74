"""The neural baseline without concepts: an MLP from the concatenated pixels straight to ``y``.

It is scikit-learn's ``MLPClassifier`` with one hidden layer of the digit
model's width, trained with Adam for the same number of epochs, batch size
and learning rate (:class:`~nesybench.shortcuts.digits.nesy.NesyConfig`).  It has no
digit layer, so it has no concepts to score: it shows what label accuracy
alone reports.  It can only ever predict labels it saw in training, which is
why it fails on the ood split of a biased support.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...seeds import child_seed
from .nesy import DEFAULT_CONFIG, NesyConfig, one_blas_thread
from .tasks import DigitTask

__all__ = ["LabelMLP", "train_label_mlp", "predict_label_mlp"]


@dataclass
class LabelMLP:
    """A fitted label MLP and the knowledge whose labels it predicts."""

    estimator: object  # sklearn.neural_network.MLPClassifier
    knowledge: str
    n_positions: int


def _flat(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return X.reshape(X.shape[0], -1)


def train_label_mlp(task: DigitTask, *, seed: int, config: NesyConfig = DEFAULT_CONFIG) -> LabelMLP:
    """Fit the baseline on ``task``'s training split: ``(n, k * 64)`` pixels -> ``y``.

    The estimator's ``random_state`` is the first word of stream
    ``("digits", "baseline")`` of ``seed``; it runs exactly ``config.epochs``
    epochs (no early stopping; the convergence warning is expected and muted).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    split = task.splits["train"]
    random_state = int(child_seed(seed, "digits", "baseline").generate_state(1)[0])
    estimator = MLPClassifier(
        hidden_layer_sizes=(config.hidden,),
        activation="tanh",
        solver="adam",
        learning_rate_init=config.lr,
        batch_size=config.batch_size,
        max_iter=config.epochs,
        tol=0.0,
        n_iter_no_change=config.epochs + 1,
        early_stopping=False,
        shuffle=True,
        random_state=random_state,
    )
    with one_blas_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(_flat(split.pixels(task.images)), split.y)
    return LabelMLP(estimator=estimator, knowledge=task.knowledge, n_positions=task.n_positions)


def predict_label_mlp(model: LabelMLP, X) -> np.ndarray:
    """Predicted labels for pixels ``(n, k, 64)``."""
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    with one_blas_thread():
        return np.asarray(model.estimator.predict(_flat(X)), dtype=np.int64)
