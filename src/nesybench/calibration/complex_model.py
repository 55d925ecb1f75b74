"""ComplEx link predictor in numpy (Trouillon et al. 2016).

Each entity and relation is a vector of ``dim`` complex numbers stored as two
real arrays (``re``, ``im``), so 8 complex dimensions are 16 real ones.  The
score of ``(h, r, t)`` is

    s = Re(<e_h, w_r, conj(e_t)>) = sum_k Re(e_h[k] * w_r[k] * conj(e_t[k]))
      = sum_k  hr wr tr + hi wr ti + hr wi ti - hi wi tr

and training minimises the logistic loss ``softplus(-y s)`` with ``y = +1``
for a known triple and ``y = -1`` for a corruption, so the model's own
probability that a triple holds is ``sigmoid(s)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics.calibration import sigmoid
from ..progress import progress
from .world import corrupt


@dataclass
class ComplEx:
    """Embeddings: ``ent_re, ent_im`` of shape (n_entities, dim); ``rel_re, rel_im`` (n_relations,
    dim)."""

    ent_re: np.ndarray
    ent_im: np.ndarray
    rel_re: np.ndarray
    rel_im: np.ndarray

    @classmethod
    def init(
        cls, n_entities: int, n_relations: int, *, dim: int, scale: float, rng: np.random.Generator
    ) -> ComplEx:
        draw = lambda n: rng.normal(0.0, scale, size=(n, dim))  # noqa: E731
        return cls(draw(n_entities), draw(n_entities), draw(n_relations), draw(n_relations))

    def score(self, heads, relations, tails) -> np.ndarray:
        """``Re(<e_h, w_r, conj(e_t)>)`` for index arrays of equal length."""
        hr, hi = self.ent_re[heads], self.ent_im[heads]
        tr, ti = self.ent_re[tails], self.ent_im[tails]
        wr, wi = self.rel_re[relations], self.rel_im[relations]
        return np.sum(hr * wr * tr + hi * wr * ti + hr * wi * ti - hi * wi * tr, axis=1)

    def gradient_step(self, heads, relations, tails, y, *, lr: float, l2: float) -> float:
        """One step on the mean of ``softplus(-y s) + l2/2 * |params of the batch|^2``; returns the
        mean loss.

        ``d softplus(-y s) / ds = -y sigmoid(-y s)``; the partials of ``s`` are
        ``ds/dhr = wr tr + wi ti``, ``ds/dhi = wr ti - wi tr``, ``ds/dwr = hr tr + hi ti``,
        ``ds/dwi = hr ti - hi tr``, ``ds/dtr = hr wr - hi wi``, ``ds/dti = hi wr + hr wi``.
        """
        hr, hi = self.ent_re[heads], self.ent_im[heads]
        tr, ti = self.ent_re[tails], self.ent_im[tails]
        wr, wi = self.rel_re[relations], self.rel_im[relations]
        s = np.sum(hr * wr * tr + hi * wr * ti + hr * wi * ti - hi * wi * tr, axis=1)
        loss = float(np.mean(np.logaddexp(0.0, -y * s)))
        g = (-y * sigmoid(-y * s) / len(s))[:, None]
        grads = {
            ("ent_re", "h"): g * (wr * tr + wi * ti) + l2 * hr / len(s),
            ("ent_im", "h"): g * (wr * ti - wi * tr) + l2 * hi / len(s),
            ("rel_re", "r"): g * (hr * tr + hi * ti) + l2 * wr / len(s),
            ("rel_im", "r"): g * (hr * ti - hi * tr) + l2 * wi / len(s),
            ("ent_re", "t"): g * (hr * wr - hi * wi) + l2 * tr / len(s),
            ("ent_im", "t"): g * (hi * wr + hr * wi) + l2 * ti / len(s),
        }
        index = {"h": heads, "r": relations, "t": tails}
        # All partials are taken at the old parameters, then applied together;
        # np.add.at accumulates repeated indices in a fixed order (deterministic).
        for (name, role), grad in grads.items():
            np.add.at(getattr(self, name), index[role], -lr * grad)
        return loss


def train_complex(
    train_triples,
    entities,
    relations,
    *,
    dim: int,
    epochs: int,
    lr: float,
    l2: float,
    init_scale: float,
    rng_init: np.random.Generator,
    rng_corrupt: np.random.Generator,
    known=None,
    show_progress: bool = True,
) -> tuple[ComplEx, pd.DataFrame]:
    """Train ComplEx by SGD: each epoch is one step on every positive plus one fresh corruption of
    each.

    A corruption replaces head or tail by a uniformly drawn entity and is
    redrawn while it is a triple in ``known`` (default: the training triples),
    so a positive is never pushed down as its own negative.  Returns the model
    and a curve with the mean loss every epoch.
    """
    ent_id = {e: i for i, e in enumerate(entities)}
    rel_id = {r: i for i, r in enumerate(relations)}
    known = set(train_triples) if known is None else set(known)
    pos = np.array([[ent_id[h], rel_id[r], ent_id[t]] for h, r, t in train_triples])
    model = ComplEx.init(len(entities), len(relations), dim=dim, scale=init_scale, rng=rng_init)
    y = np.concatenate([np.ones(len(pos)), -np.ones(len(pos))])
    curve = []
    epochs_iter = (
        progress(range(epochs), desc="calibration: ComplEx epochs")
        if show_progress
        else range(epochs)
    )
    for epoch in epochs_iter:
        negs = []
        for tr in train_triples:
            neg = corrupt(tr, entities, rng_corrupt)
            while neg in known:
                neg = corrupt(tr, entities, rng_corrupt)
            negs.append([ent_id[neg[0]], rel_id[neg[1]], ent_id[neg[2]]])
        batch = np.vstack([pos, np.array(negs)])
        loss = model.gradient_step(batch[:, 0], batch[:, 1], batch[:, 2], y, lr=lr, l2=l2)
        curve.append((epoch + 1, loss))
    return model, pd.DataFrame(curve, columns=["epoch", "loss"])
