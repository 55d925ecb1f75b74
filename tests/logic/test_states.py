"""Concept states: the one text form, parsing with errors naming the fault, the state list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.logic import (
    all_states,
    as_domains,
    parse_state,
    parse_states,
    state_index,
    state_str,
    states_index,
)


def test_state_str_binary_and_categorical():
    assert state_str((1, 0, 1)) == "101"
    assert state_str((1, 0), (2, 2)) == "10"
    assert state_str((0, 1), (10, 10)) == "0:1"  # the domains decide, not the values
    assert state_str((3, 12)) == "3:12"


@given(st.lists(st.integers(2, 12), min_size=1, max_size=4), st.data())
def test_parse_state_round_trips(dims, data):
    values = tuple(data.draw(st.integers(0, d - 1)) for d in dims)
    assert parse_state(state_str(values, dims), dims) == values


def test_parse_state_accepts_colons_for_binary_states():
    assert parse_state("1:0", 2) == (1, 0)
    assert parse_states(["1:0", "01"], 2) == ["10", "01"]


@pytest.mark.parametrize(
    "text, dims, fragment",
    [
        ("3:5:1", (10, 10), "state '3:5:1' has 3 values, expected 2"),
        ("3:10", (10, 10), "value 10 of concept 2 is out of range [0, 9]"),
        ("3:-1", (10, 10), "value '-1' of concept 2 is not a non-negative integer"),
        ("3:\u0665", (10, 10), "value '\u0665' of concept 2 is not a non-negative integer"),
        ("3:", (10, 10), "value '' of concept 2"),
        ("35", (10, 10), "expected 2 values joined by ':'"),
        ("012", 2, "expected a 2-character bit string"),
        ("0a", 2, "expected a 2-character bit string"),
        ("2:0", 2, "value 2 of concept 1 is out of range [0, 1]"),
        (7, 2, "expected a 2-character bit string"),
    ],
)
def test_parse_state_errors_name_the_fault(text, dims, fragment):
    with pytest.raises(InputError) as info:
        parse_state(text, dims, field_name="support")
    assert fragment in str(info.value) and str(info.value).startswith("support: ")


def test_parse_states_names_duplicates_in_either_form():
    with pytest.raises(InputError, match="duplicate state '0:1' \\(the same state as '01'\\)"):
        parse_states(["01", "0:1"], 2)
    with pytest.raises(InputError, match="duplicate state '3:5'"):
        parse_states(["3:5", "3:5"], (10, 10))


def test_all_states_mixed_radix_order():
    grid = all_states((2, 3))
    assert grid.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    assert [state_index(row, (2, 3)) for row in grid.tolist()] == list(range(6))
    assert np.array_equal(states_index(grid, (2, 3)), np.arange(6))


@pytest.mark.parametrize(
    "domains, fragment",
    [
        (0, "k must be an integer >= 1, got 0"),
        ([10, 1], "domain 2 must be an integer in [2,"),
        ([], "at least one concept"),
        ("10,10", "expected a list of domain sizes"),
        ([2.5], "domain 1 must be an integer >= 2, got 2.5"),
    ],
)
def test_as_domains_rejects_bad_domains(domains, fragment):
    with pytest.raises(InputError) as info:
        as_domains(domains)
    assert fragment in str(info.value)


def test_all_states_refuses_huge_lists():
    with pytest.raises(InputError, match="k <= 24"):
        all_states(30)
