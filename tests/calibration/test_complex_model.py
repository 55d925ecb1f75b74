"""ComplEx: the score formula, its gradient, and deterministic training."""

from __future__ import annotations

import numpy as np

from nesybench.calibration.complex_model import ComplEx, train_complex
from nesybench.calibration.world import load_world
from nesybench.seeds import child_rng


def _model(seed=0):
    return ComplEx.init(5, 2, dim=8, scale=0.5, rng=np.random.default_rng(seed))


def test_score_is_real_part_of_trilinear_complex_product():
    m = _model()
    h, r, t = np.array([0, 3]), np.array([1, 0]), np.array([4, 4])
    eh = m.ent_re[h] + 1j * m.ent_im[h]
    wr = m.rel_re[r] + 1j * m.rel_im[r]
    et = m.ent_re[t] + 1j * m.ent_im[t]
    expected = np.real(np.sum(eh * wr * np.conj(et), axis=1))
    np.testing.assert_allclose(m.score(h, r, t), expected, rtol=0, atol=1e-12)


def test_gradient_step_matches_finite_differences():
    h, r, t, y = np.array([0, 1]), np.array([1, 0]), np.array([2, 3]), np.array([1.0, -1.0])

    def loss(m):
        return float(np.mean(np.logaddexp(0, -y * m.score(h, r, t))))

    base = _model(1)
    stepped = _model(1)
    lr = 1e-6
    stepped.gradient_step(h, r, t, y, lr=lr, l2=0.0)
    for name in ("ent_re", "ent_im", "rel_re", "rel_im"):
        analytic = (
            getattr(base, name) - getattr(stepped, name)
        ) / lr  # the gradient the step applied
        numeric = np.zeros_like(analytic)
        for idx in np.ndindex(analytic.shape):
            for sign in (+1, -1):
                probe = _model(1)
                getattr(probe, name)[idx] += sign * 1e-6
                numeric[idx] += sign * loss(probe) / 2e-6
        np.testing.assert_allclose(analytic, numeric, atol=1e-6)


def test_training_is_deterministic_and_memorises():
    w = load_world()

    def run():
        return train_complex(
            w.train,
            w.entities,
            w.relations,
            dim=8,
            epochs=1000,
            lr=1.0,
            l2=0.0,
            init_scale=0.1,
            rng_init=child_rng(5, "init"),
            rng_corrupt=child_rng(5, "corrupt"),
            show_progress=False,
        )

    (m1, c1), (m2, c2) = run(), run()
    assert np.array_equal(m1.ent_re, m2.ent_re) and c1.equals(c2)
    assert c1["loss"].iloc[-50:].mean() < 0.1 * c1["loss"].iloc[0]
    ent = {e: i for i, e in enumerate(w.entities)}
    rel = {r: i for i, r in enumerate(w.relations)}
    s = m1.score(
        [ent[h] for h, _, _ in w.train],
        [rel[r] for _, r, _ in w.train],
        [ent[t] for _, _, t in w.train],
    )
    assert np.all(s > 0)  # every training triple is recalled
