"""The engine-level mixture arithmetic shared by axes (the confound) and nli (score-nli)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.metrics.mixture import aggregate, check_profile, mix_range, mixture_weights


def test_aggregate_is_the_count_weighted_mean():
    a, n = [1.0, 0.5, 0.25], [2, 1, 1]
    assert aggregate(a, n) == pytest.approx((2 * 1.0 + 0.5 + 0.25) / 4)


def test_weights_survive_huge_counts():
    assert mixture_weights([1e308, 1e308]).tolist() == [0.5, 0.5]
    assert aggregate([1.0, 0.1], [1e308, 1e308]) == pytest.approx(0.55)


@pytest.mark.parametrize(
    "n, message",
    [
        ([], "non-empty"),
        ([0, 0], "must not all be zero"),
        ([1, -2], ">= 0, got -2"),
        ([1, float("inf")], "finite"),
        ([[1, 2]], "non-empty list"),
    ],
)
def test_weights_refuse_bad_counts(n, message):
    with pytest.raises(InputError, match=message):
        mixture_weights(n)


@pytest.mark.parametrize("a", [[], [1.5], [-0.1], [float("nan")]])
def test_profile_refuses_bad_accuracies(a):
    with pytest.raises(InputError):
        check_profile(a, "a")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(1, 10**6)), min_size=1, max_size=8))
def test_any_mix_lies_between_the_worst_and_best_depth(pairs):
    a, n = [p[0] for p in pairs], [p[1] for p in pairs]
    r = mix_range(a, n)
    assert r["min"] - 1e-12 <= r["realized"] <= r["max"] + 1e-12
    assert r["uniform"] == pytest.approx(float(np.mean(a)))


def test_axes_mixture_uses_the_engine_functions():
    from nesybench.axes import mixture as axes_mixture

    assert axes_mixture.aggregate is aggregate and axes_mixture.mixture_weights is mixture_weights
