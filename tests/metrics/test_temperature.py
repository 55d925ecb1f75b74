"""Golden-section search and temperature fits against independent minimisers and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from nesybench.errors import InputError
from nesybench.metrics.calibration import nll_from_scores, sigmoid
from nesybench.metrics.multiclass import nll_from_logits
from nesybench.metrics.temperature import (
    INV_PHI,
    fit_temperature,
    fit_temperature_softmax,
    golden_section,
)


def _overconfident(seed, n=400, inflate=2.5):
    rng = np.random.default_rng(seed)
    true_logit = rng.normal(0, 2, n)
    y = (rng.random(n) < sigmoid(true_logit)).astype(int)
    return inflate * true_logit, y


def test_golden_section_widths_match_spec_trace():
    # The spec prints the bracket width every 10 iterations over [0.05, 20]: 19.95 * phi^k.
    r = golden_section(lambda x: (x - 1.4) ** 2, 0.05, 20.0, tol=1e-8)
    widths = {row["iteration"]: row["width"] for row in r.trace}
    assert f"{widths[10]:.3e}" == "1.622e-01"
    assert f"{widths[20]:.3e}" == "1.319e-03"
    assert f"{widths[30]:.3e}" == "1.072e-05"
    assert f"{widths[40]:.3e}" == "8.718e-08"
    for k, w in widths.items():
        assert w == pytest.approx(19.95 * INV_PHI**k, rel=1e-9)
    assert (
        r.converged
        and r.width <= 1e-8
        and r.iterations == math.ceil(math.log(1e-8 / 19.95) / math.log(INV_PHI))
    )


def test_golden_section_finds_minimum_and_is_deterministic():
    f = lambda x: (x - 2.0) ** 2 + 0.1 * abs(x - 2.0)  # noqa: E731 - unimodal, not smooth
    a = golden_section(f, -3.0, 7.0, tol=1e-10)
    b = golden_section(f, -3.0, 7.0, tol=1e-10)
    assert a == b
    assert a.x == pytest.approx(2.0, abs=1e-9)


def test_golden_section_stops_at_max_iter_and_rejects_bad_bracket():
    r = golden_section(lambda x: x * x, -1.0, 1.0, tol=1e-12, max_iter=5)
    assert r.iterations == 5 and not r.converged and r.trace[-1]["iteration"] == 5
    with pytest.raises(ValueError, match="lo < hi"):
        golden_section(lambda x: x, 1.0, 1.0)


@pytest.mark.parametrize("seed", range(4))
def test_fit_temperature_matches_scipy_minimize_scalar(seed):
    s, y = _overconfident(seed)
    fit = fit_temperature(s, y)
    ref = minimize_scalar(
        lambda t: nll_from_scores(y, s, temperature=t),
        bounds=(0.05, 20.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert abs(fit.tau - ref.x) / ref.x <= 1e-6
    assert fit.nll <= fit.nll_at_1
    assert fit.nll == pytest.approx(nll_from_scores(y, s, temperature=fit.tau), abs=0)


def test_fit_temperature_direction_overconfident_and_underconfident():
    s, y = _overconfident(0, n=4000, inflate=2.5)
    over = fit_temperature(s, y)
    assert over.tau > 1 and over.direction == "overconfident"
    assert over.tau == pytest.approx(2.5, rel=0.15)
    under = fit_temperature(s / 6.0, y)  # scores shrunk below the truth: sharpen
    assert under.tau < 1 and under.direction == "underconfident"


def test_fit_temperature_separable_data_hits_bracket_edge():
    s = np.array([-3.0, -1.0, 1.0, 3.0])
    y = np.array([0, 0, 1, 1])
    fit = fit_temperature(s, y)
    assert fit.at_bracket_edge and fit.tau < 0.06  # NLL keeps falling as tau -> 0


def test_fit_temperature_needs_one_inside_bracket():
    # tau = 1 must lie inside the bracket: lo in (0, 1), hi > 1
    with pytest.raises(
        InputError, match=r"^fit_temperature: lo must be a real number in \(0, 1\), got 1.5$"
    ):
        fit_temperature([0.1, -0.1], [1, 0], lo=1.5, hi=3.0)
    with pytest.raises(
        InputError, match=r"^fit_temperature: hi must be a real number > 1, got 0.9$"
    ):
        fit_temperature([0.1, -0.1], [1, 0], lo=0.5, hi=0.9)


@pytest.mark.parametrize("seed", range(3))
def test_fit_temperature_softmax_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    n, k = 300, 4
    logits = rng.normal(0, 1.5, (n, k))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(k, p=row) for row in probs])
    fit = fit_temperature_softmax(3.0 * logits, labels)
    ref = minimize_scalar(
        lambda t: nll_from_logits(labels, 3.0 * logits, temperature=t),
        bounds=(0.05, 20.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert abs(fit.tau - ref.x) / ref.x <= 1e-6
    assert fit.tau > 1  # logits inflated 3x: overconfident


def test_softmax_with_two_classes_equals_binary_fit():
    s, y = _overconfident(1)
    logits = np.column_stack([np.zeros_like(s), s])  # softmax([0, s]) = sigmoid(s)
    assert fit_temperature_softmax(logits, y).tau == pytest.approx(
        fit_temperature(s, y).tau, rel=1e-6
    )


def test_fit_temperature_softmax_rejects_bad_labels():
    with pytest.raises(ValueError, match="labels"):
        fit_temperature_softmax(np.zeros((3, 2)), np.array([0, 1, 2]))


def test_a_loss_flat_up_to_the_bracket_edge_is_flagged_at_the_edge():
    """Well-separated logits: the NLL rounds to 0 from tau ~ 0.06 down, so the search stops
    short of lo = 0.05; the optimum still lies beyond the bracket, and the flag must say so."""
    logits = np.array([[3.0, 0.0], [0.0, 3.0], [2.0, 0.0], [0.0, 2.0]])
    fit = fit_temperature_softmax(logits, np.array([0, 1, 0, 1]))
    assert fit.tau > fit.lo + 10 * fit.trace[-1]["width"]  # not near the edge by distance
    assert fit.nll_at_lo <= fit.nll and fit.at_bracket_edge
