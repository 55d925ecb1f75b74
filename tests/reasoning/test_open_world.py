"""Open-world labels over reified negation: True / False / Unknown, inconsistency refused."""

from __future__ import annotations

import pytest

from nesybench.errors import InputError
from nesybench.reasoning.chainer import forward_chain
from nesybench.reasoning.grammar import parse_context
from nesybench.reasoning.open_world import (
    answer_depth,
    contradictions,
    open_world_closure,
    open_world_label,
)
from nesybench.reasoning.terms import Atom


def _theory(text):
    t = parse_context(text)
    assert t.ok, t.failures
    return t.facts, t.rules


def test_open_world_label_reads_the_closure_three_ways():
    facts, rules = _theory(
        "Bob is big. Anne is not big. If something is big then it is not red. "
        "If something is not red then it is kind. If something is not big then it is red."
    )
    c = open_world_closure(facts, rules)
    bob, anne, carl = ("bob",), ("anne",), ("carl",)
    assert open_world_label(c, Atom("kind", bob)) == "True"
    assert open_world_label(c, Atom("red", bob)) == "False"
    assert open_world_label(c, Atom("not_red", bob)) == "True"
    assert open_world_label(c, Atom("red", anne)) == "True"
    assert open_world_label(c, Atom("kind", anne)) == "Unknown"
    assert open_world_label(c, Atom("big", carl)) == "Unknown"
    assert answer_depth(c, Atom("kind", bob)) == 2 and answer_depth(c, Atom("red", bob)) == 1
    assert answer_depth(c, Atom("kind", anne)) is None


def test_open_world_closure_refuses_a_contradiction():
    facts, rules = _theory("Bob is big. Bob is not red. If something is big then it is red.")
    assert contradictions(forward_chain(facts, rules)) == [Atom("red", ("bob",))]
    with pytest.raises(InputError, match=r"both red\(bob\) and not_red\(bob\) follow"):
        open_world_closure(facts, rules)


def test_open_world_label_is_the_closed_world_label_on_negation_free_theories():
    facts, rules = _theory("Bob is big. If something is big then it is kind.")
    c = open_world_closure(facts, rules)
    assert open_world_label(c, Atom("kind", ("bob",))) == "True"
    # nothing negative is ever derived, so no statement is False: closed-world False is Unknown
    assert open_world_label(c, Atom("kind", ("anne",))) == "Unknown"
