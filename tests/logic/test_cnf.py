"""The one formula parser: text and DIMACS round trips, evaluation, errors naming the position."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.logic import (
    CNF,
    IdPool,
    all_states,
    evaluate,
    from_dimacs,
    make_knowledge,
    parse_cnf,
    state_str,
)

SPEC_CNF = "(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)"


def test_parse_cnf_spec_formula_clauses():
    cnf = parse_cnf(SPEC_CNF)
    assert cnf.clauses == ((1, 2, 3), (2, 3, -1), (-3, -2, 1))
    assert cnf.n_vars == 3


def test_parse_cnf_spec_formula_satisfied_by_five_of_eight():
    # The spec: "satisfied by 5 of the 8 states".
    sat = evaluate(parse_cnf(SPEC_CNF), all_states(3))
    assert int(sat.sum()) == 5
    assert [state_str(s) for s, ok in zip(all_states(3), sat) if not ok] == ["000", "011", "100"]


def test_parse_cnf_unit_clause_without_parentheses_and_whitespace():
    assert parse_cnf("x1&(~x2|x3)").clauses == ((1,), (-2, 3))
    assert parse_cnf("  ( x1 |  ~x2 )  ").clauses == ((1, -2),)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("(x1 | x2", "expected '|' or ')' at end of input"),
        ("(x1 | y2)", "unexpected character 'y' at position 7"),
        ("(x1 | x4)", "variable x4 at position 7 exceeds k=3"),
        ("(x0 | x1)", "variable indices start at x1"),
        ("(x1) (x2)", "expected '&' between clauses at position 6"),
        ("(x1) &", "expected a clause after '&'"),
        ("(x1 | | x2)", "expected a variable x<i> at position 7"),
        ("", "expected a CNF"),
        ("(x\u0661 | x2)", "variable at position 2 must be x followed by the digits 0-9"),
        ("(x1 | x\uff12)", "variable at position 7 must be x followed by the digits 0-9"),
        ("(x\u00b2)", "variable at position 2 must be x followed by the digits 0-9"),
        ("(x)", "variable at position 2 must be x followed by the digits 0-9"),
    ],
)
def test_parse_cnf_errors_name_position(text, fragment):
    with pytest.raises(InputError, match="formula: ") as info:
        parse_cnf(text, n_vars=3)
    assert fragment in str(info.value)


def test_dimacs_round_trip_with_projection_and_comments():
    cnf = CNF(((1, -2), (3,)), 5, projection=(1, 3), comments=("made by a test",))
    text = cnf.to_dimacs()
    assert "p cnf 5 2" in text and "c p show 1 3 0" in text and "c ind 1 3 0" in text
    back = from_dimacs(text)
    assert back == cnf
    assert back.comments == ("made by a test",)


def test_from_dimacs_clause_spanning_lines():
    back = from_dimacs("c hi\np cnf 3 2\n1 -2\n 3 0 -1 0\n")
    assert back.clauses == ((1, -2, 3), (-1,))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1 2 0\n", "clause before the 'p cnf' header"),
        ("p cnf 2 1\n1 3 0\n", "literal 3 exceeds the declared 2 variables"),
        ("p cnf 2 2\n1 0\n", "header declares 2 clauses, found 1"),
        ("p dnf 2 1\n1 0\n", "expected 'p cnf <vars> <clauses>'"),
        ("p cnf 2 1\n1 a 0\n", "expected an integer literal"),
        ("p cnf 2 1\n\u0661 0\n", "expected an integer literal, got '\u0661'"),
        ("p cnf 2 1\n1_0 0\n", "expected an integer literal, got '1_0'"),
        ("p cnf \u0662 1\n1 0\n", "expected 'p cnf <vars> <clauses>'"),
    ],
)
def test_from_dimacs_errors(text, fragment):
    with pytest.raises(InputError) as info:
        from_dimacs(text)
    assert fragment in str(info.value)


clause_st = st.lists(
    st.integers(1, 5).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=4
)


@settings(max_examples=60, deadline=None)
@given(st.lists(clause_st, min_size=1, max_size=6))
def test_text_and_dimacs_round_trips(clauses):
    cnf = CNF(tuple(map(tuple, clauses)), 5)
    assert parse_cnf(cnf.to_string(), n_vars=5) == cnf
    assert from_dimacs(cnf.to_dimacs()) == cnf


@settings(max_examples=60, deadline=None)
@given(st.lists(clause_st, min_size=1, max_size=6))
def test_evaluate_matches_clause_by_clause_reading(clauses):
    cnf = CNF(tuple(map(tuple, clauses)), 5)
    states = all_states(5)
    expected = [
        all(any(bool(s[abs(lit) - 1]) == (lit > 0) for lit in c) for c in clauses) for s in states
    ]
    assert evaluate(cnf, states).tolist() == expected


def test_id_pool_is_explicit_and_stable():
    pool = IdPool()
    names = ["alpha[g=01] = 10", ("pi", 1, 2), "alpha[g=01] = 10", ("t", 1)]
    ids = [pool.id(n) for n in names]
    assert ids == [1, 2, 1, 3]
    assert [pool.name(i) for i in (1, 2, 3)] == ["alpha[g=01] = 10", ("pi", 1, 2), ("t", 1)]
    assert pool.top == 3 and len(pool) == 3 and ("t", 1) in pool
    assert IdPool().top == 0  # a fresh pool shares nothing with the first


def test_knowledge_parity_labels():
    k = make_knowledge("xor", 3)
    states = all_states(3)
    assert k.labels(states).tolist() == [sum(s) % 2 for s in states.tolist()]
    assert k.is_parity and k.cnf is None


def test_all_states_leftmost_is_x1_most_significant():
    assert [state_str(s) for s in all_states(3)] == [
        "".join(b) for b in itertools.product("01", repeat=3)
    ]
    assert np.array_equal(all_states(2), [[0, 0], [0, 1], [1, 0], [1, 1]])


def test_make_knowledge_rejects_bad_k_and_formula():
    with pytest.raises(InputError, match="k must be an integer >= 1, got 0"):
        make_knowledge("xor", 0)
    with pytest.raises(InputError, match="knowledge: variable x3"):
        make_knowledge("(x1 | x3)", 2)
