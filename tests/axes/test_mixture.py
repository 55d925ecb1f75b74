from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.axes.mixture import (
    aggregate,
    all_ties,
    mixture_report,
    mixture_weights,
    pure_depth_ranking,
    tie,
)
from nesybench.errors import InputError

A = [1.0000, 0.9659, 0.5000, 0.5000]
B = [0.9266, 1.0000, 0.8321, 1.0000]
N = [804, 352, 280, 64]


def test_aggregate_spec_values():
    assert round(aggregate(A, N), 4) == 0.8773
    assert round(aggregate(B, N), 4) == 0.9293


def test_tie_spec_values_and_equal_aggregates():
    t = tie(A, B, 0, 1)
    assert round(t.pi, 4) == 0.3172 and round(t.accuracy, 4) == 0.9767
    assert t.pi * A[0] + (1 - t.pi) * A[1] == pytest.approx(
        t.pi * B[0] + (1 - t.pi) * B[1], abs=1e-12
    )


def test_all_ties_marks_pairs_without_a_crossing():
    ties = {t.depths: t for t in all_ties(A, B)}
    assert len(ties) == 6
    # b leads at depths 1, 2 and 3: no mix of two of them ties
    assert all(ties[p].pi is None for p in [(1, 2), (1, 3), (2, 3)])
    assert all(0 <= ties[p].pi <= 1 for p in [(0, 1), (0, 2), (0, 3)])
    assert tie([0.5, 0.5], [0.5, 0.5], 0, 1).pi is None  # identical profiles: no unique tie


def test_pure_depth_ranking_flips_with_the_bank():
    firsts = [r["first"] for r in pure_depth_ranking(A, B)]
    assert firsts == ["a", "b", "b", "b"]
    assert pure_depth_ranking([0.5], [0.5])[0]["first"] == "tie"


def test_mixture_weights_sum_to_one():
    pi = mixture_weights(N)
    assert pi.sum() == pytest.approx(1.0) and round(pi[0], 3) == 0.536


@pytest.mark.parametrize(
    "a, b, n, message",
    [
        ([1.2, 0.5], [0.5, 0.5], None, "in \\[0, 1\\]"),
        ([0.5, 0.5], [0.5], None, "must be 2"),
        ([0.5, 0.5], [0.5, 0.5], [1, -1], ">= 0"),
        ([0.5, 0.5], [0.5, 0.5], [1, 2, 3], "must be 2 counts"),
        ([0.5, 0.5], [0.5, 0.5], [0, 0], "not all be zero"),
    ],
)
def test_mixture_report_rejects_bad_input(a, b, n, message):
    with pytest.raises(InputError, match=message):
        mixture_report(a, b, n)


_acc = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.tuples(
            st.lists(_acc, min_size=k, max_size=k), st.lists(_acc, min_size=k, max_size=k)
        )
    )
)
def test_all_ties_property(profiles):
    a, b = profiles
    for t in all_ties(a, b):
        i, j = t.depths
        if t.pi is None:
            # no tie in [0, 1]: one system is at least as good at both depths (no strict crossing)
            assert (a[i] - b[i]) * (a[j] - b[j]) >= 0 or (a[i] - b[i]) + (b[j] - a[j]) == 0
        else:
            assert 0.0 <= t.pi <= 1.0
            agg_a = t.pi * a[i] + (1 - t.pi) * a[j]
            agg_b = t.pi * b[i] + (1 - t.pi) * b[j]
            assert agg_a == pytest.approx(agg_b, abs=1e-9)
            assert t.accuracy == pytest.approx(agg_a, abs=1e-12)


def test_mixture_weights_do_not_overflow_on_huge_counts():
    assert mixture_weights([1e308, 1e308]).tolist() == [0.5, 0.5]
    report = mixture_report([1.0, 0.1], [0.1, 1.0], [1e308, 1e308])
    assert report["aggregate_a"] == pytest.approx(0.55) and report["aggregate_b"] == pytest.approx(
        0.55
    )
    assert mixture_weights([5e-324, 0.0]).tolist() == [1.0, 0.0]


@settings(max_examples=50, deadline=None)
@given(
    st.integers(2, 12).flatmap(
        lambda k: st.tuples(
            st.lists(_acc, min_size=k, max_size=k), st.lists(_acc, min_size=k, max_size=k)
        )
    )
)
def test_all_ties_vectorised_equals_tie_pair_by_pair(profiles):
    a, b = profiles
    fast = all_ties(a, b)
    assert [t.depths for t in fast] == [(i, j) for i in range(len(a)) for j in range(i + 1, len(a))]
    for t in fast:
        assert t == tie(a, b, *t.depths)


def test_all_ties_refuses_more_depths_than_the_cap():
    from nesybench.axes.mixture import MAX_TIE_DEPTHS

    n = MAX_TIE_DEPTHS + 1
    with pytest.raises(InputError, match=f"at most {MAX_TIE_DEPTHS} depths .* got {n}"):
        all_ties([0.5] * n, [0.4] * n)
    assert len(all_ties([0.5] * MAX_TIE_DEPTHS, [0.4] * MAX_TIE_DEPTHS)) == 500 * 499 // 2
