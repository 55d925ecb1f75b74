import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nesybench.metrics.stats import wilson_interval


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_contains_the_proportion_and_stays_in_unit_interval(case):
    k, n = case
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_interval_closed_form():
    lo, hi = wilson_interval(5, 10)
    z = 1.959963984540054
    half = z / (1 + z * z / 10) * math.sqrt(0.25 / 10 + z * z / 400)
    assert lo == pytest.approx(0.5 - half, abs=1e-15) and hi == pytest.approx(0.5 + half, abs=1e-15)


def test_wilson_interval_extremes_and_empty():
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
