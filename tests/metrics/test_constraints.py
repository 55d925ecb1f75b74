"""Declared parameter constraints (nesybench.constraints): each slip stops at the call."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.constraints import Boolean, Interval, Options, check, validate_params
from nesybench.errors import InputError
from nesybench.metrics.calibration import bin_edges, bin_index, expected_calibration_error

TEMPLATE = r"^[\w.]+: \w+ must be .+, got .+$"  # <where>: <name> must be <constraint>, got <value>


def test_the_slips_issue_24_names_now_stop():
    with pytest.raises(
        InputError, match=r"^bin_index: n_bins must be an integer in \[1, 10000\], got 0$"
    ):
        bin_index([0.2, 0.7], n_bins=0)  # was: all zeros
    with pytest.raises(
        InputError,
        match=r"^expected_calibration_error: right_closed must be True or False, got 'no'$",
    ):
        expected_calibration_error([0, 1], [0.2, 0.7], right_closed="no")  # was: read as true
    with pytest.raises(
        InputError, match=r"^bin_edges: strategy must be one of 'uniform', 'quantile'"
    ):
        bin_edges(n_bins=3, strategy="equal-mass")


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, 0.0])
def test_boolean_refuses_everything_but_a_bool(value):
    assert not Boolean().is_satisfied_by(value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_boolean_accepts_python_and_numpy_bools(value):
    assert Boolean().is_satisfied_by(value)


@pytest.mark.parametrize(
    ("constraint", "good", "bad"),
    [
        (Interval(int, 1, 10), [1, 10, np.int64(5)], [0, 11, True, 2.0, "3", None]),
        (Interval(int, 1, 10, closed="neither"), [2, 9], [1, 10]),
        (Interval(int, 1, 10, closed="left"), [1, 9], [10]),
        (Interval(int, 1, 10, closed="right"), [2, 10], [1]),
        (
            Interval(float, 0, None, closed="neither"),
            [1e-300, 3, np.float64(2.5)],
            [0, -1.0, float("nan"), float("inf"), False, "1"],
        ),
        (Interval(float, None, None), [-1e300, 0], [float("-inf")]),
        (Options(("a", "b")), ["a", "b"], ["c", "A", None, 1, ("a",)]),
    ],
)
def test_constraints_hold_their_values_and_nothing_else(constraint, good, bad):
    assert all(constraint.is_satisfied_by(v) for v in good)
    assert not any(constraint.is_satisfied_by(v) for v in bad)


@pytest.mark.parametrize(
    ("constraint", "text"),
    [
        (Interval(int, 1, 10_000), "an integer in [1, 10000]"),
        (Interval(float, 0, 1, closed="neither"), "a real number in (0, 1)"),
        (Interval(float, 0, 1, closed="left"), "a real number in [0, 1)"),
        (Interval(int, 0, None), "an integer >= 0"),
        (Interval(float, None, 1, closed="neither"), "a real number < 1"),
        (Options(("x", "y")), "one of 'x', 'y'"),
        (Boolean(), "True or False"),
    ],
)
def test_constraints_describe_themselves_for_the_message(constraint, text):
    assert str(constraint) == text


def test_decorator_checks_defaults_alternatives_and_names_the_function():
    @validate_params({"k": [None, Interval(int, 1, None)], "flag": Boolean()})
    def f(x, *, k=None, flag=False):
        return x, k, flag

    assert f(1) == (1, None, False)
    assert f(1, k=np.int64(3), flag=np.bool_(True)) == (1, 3, True)
    with pytest.raises(InputError, match=r"^f: k must be None or an integer >= 1, got 0$") as info:
        f(1, k=np.int64(0))  # a numpy scalar is shown as the number it is
    assert "np." not in str(info.value)
    with pytest.raises(InputError, match=TEMPLATE):
        f(1, flag="yes")


def test_a_constructor_error_names_the_class():
    class Fit:
        @validate_params({"reg": Interval(float, 0, None, closed="neither")})
        def __init__(self, *, reg=1.0):
            self.reg = reg

    with pytest.raises(InputError, match=r"^Fit: reg must be a real number > 0, got -1$"):
        Fit(reg=-1)


def test_a_declaration_naming_no_parameter_fails_at_definition():
    with pytest.raises(TypeError, match="unknown parameters"):

        @validate_params({"n_binz": Interval(int, 1, 10)})
        def g(*, n_bins=10):
            return n_bins


def test_check_is_the_same_rule_for_one_value():
    assert check("n", 3, Interval(int, 1, 5)) == 3
    with pytest.raises(InputError, match=r"^params.yaml: n must be an integer in \[1, 5\], got 6$"):
        check("n", 6, Interval(int, 1, 5), where="params.yaml")
