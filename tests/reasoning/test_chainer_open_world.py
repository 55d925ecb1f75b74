"""Open-world forward chaining with explicit negative facts, and derivation trees."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.reasoning.chainer import forward_chain
from nesybench.reasoning.grammar.reading import parse_context
from nesybench.reasoning.terms import Atom, Literal, Rule, open_world_rule

X = ("X",)


def rule(head, *body):
    return Rule(head, tuple(body))


def test_open_world_reads_negated_conditions_as_explicit_negative_facts():
    # If something is big and not red then it is not kind.
    r = rule(Atom("not_kind", X), Literal(Atom("big", X)), Literal(Atom("red", X), False))
    bear, cat = ("bear",), ("cat",)
    facts = [Atom("big", bear), Atom("big", cat), Atom("not_red", cat)]
    open_ = forward_chain(facts, [r], world="open")
    closed = forward_chain(facts, [r], world="closed")
    # open world: the bear is not known to be not red, so nothing follows about it
    assert open_.label(Atom("kind", bear)) == "Unknown"
    assert open_.label(Atom("kind", cat)) == "False"
    # closed world: negation as failure fires for both
    assert closed.holds(Atom("not_kind", bear)) and closed.holds(Atom("not_kind", cat))


def test_label_true_false_unknown_inconsistent():
    a, b = ("a",), ("b",)
    facts = [Atom("p", a), Atom("not_q", a), Atom("p", b), Atom("not_p", b)]
    c = forward_chain(facts, [rule(Atom("q", X), Literal(Atom("p", X)))], world="open")
    assert c.label(Atom("p", a)) == "True"
    assert c.label(Atom("not_p", a)) == "False"  # asking the negative statement
    assert c.label(Atom("r", a)) == "Unknown"
    assert c.label(Atom("q", a)) == "Inconsistent"
    assert c.conflicts == [Atom("p", b), Atom("q", a)]


def test_world_must_be_known():
    with pytest.raises(InputError, match="world must be one of"):
        forward_chain([], [], world="half-open")


def test_proof_needs_proofs_true():
    c = forward_chain([Atom("p", ("a",))], [])
    with pytest.raises(InputError, match="proofs=True"):
        c.proof(Atom("p", ("a",)))


def test_proof_tree_of_a_relational_chain_has_the_closure_depth():
    # chases(X, Y) and sees(Y, bob) -> likes(X, bob); likes(X, bob) -> not_big(X)
    facts = [Atom("chases", ("cat", "dog")), Atom("sees", ("dog", "bob"))]
    rules = [
        rule(
            Atom("likes", ("X", "bob")),
            Literal(Atom("chases", ("X", "Y"))),
            Literal(Atom("sees", ("Y", "bob"))),
        ),
        rule(Atom("not_big", X), Literal(Atom("likes", ("X", "bob")))),
    ]
    c = forward_chain(facts, rules, world="open", proofs=True)
    goal = Atom("not_big", ("cat",))
    proof = c.proof(goal)
    assert proof.depth == c.depth(goal) == 2
    assert proof.rule == rules[1]
    assert [s.fact for s in proof.steps()] == [*facts, Atom("likes", ("cat", "bob")), goal]
    assert c.proof(Atom("big", ("cat",))) is None
    assert c.proof(facts[0]).rule is None  # a given fact


def test_proof_cites_the_rule_as_stated_in_the_open_world():
    r = rule(Atom("q", X), Literal(Atom("p", X), False))
    c = forward_chain([Atom("not_p", ("a",))], [r], world="open", proofs=True)
    proof = c.proof(Atom("q", ("a",)))
    assert proof.rule == r  # not the rewritten not_p(X) body
    assert [p.atom for p in proof.premises] == [Atom("not_p", ("a",))]


PREDS = ["p", "q", "r", "not_p", "not_q"]


@st.composite
def programs(draw):
    consts = ["a", "b", "c"]
    facts = draw(
        st.lists(
            st.builds(lambda p, c: Atom(p, (c,)), st.sampled_from(PREDS), st.sampled_from(consts)),
            max_size=6,
        )
    )
    rules = []
    for _ in range(draw(st.integers(0, 5))):
        head = Atom(draw(st.sampled_from(PREDS)), X)
        body = tuple(
            Literal(Atom(draw(st.sampled_from(["p", "q", "r"])), X), draw(st.booleans()))
            for _ in range(draw(st.integers(1, 2)))
        )
        if not any(lit.positive for lit in body):
            body = (Literal(Atom("p", X)),) + body
        rules.append(Rule(head, body))
    return facts, rules


@settings(max_examples=60, deadline=None)
@given(programs())
def test_open_world_naive_and_semi_naive_agree_and_proofs_match_depths(program):
    facts, rules = program
    semi = forward_chain(facts, rules, world="open", proofs=True)
    naive = forward_chain(facts, rules, world="open", strategy="naive")
    assert semi.atoms == naive.atoms
    for atom, depth in semi.atoms.items():
        proof = semi.proof(atom)
        assert proof.depth == depth
        # every step's premises were established before it (a real derivation)
        seen = set()
        for step in proof.steps():
            assert set(step.premises) <= seen
            seen.add(step.fact)


# ---------------------------------------------------------------- ProofWriter text, open world
def _pw_theory(text):
    theory = parse_context(text, dialect="proofwriter")
    assert theory.ok, theory.failures
    return theory.facts, theory.rules


def test_open_world_labels_of_a_proofwriter_theory_read_three_ways():
    facts, rules = _pw_theory(
        "Bob is big. Anne is not big. If something is big then it is not red. "
        "If something is not red then it is kind. If something is not big then it is red."
    )
    c = forward_chain(facts, rules, world="open")
    bob, anne, carl = ("bob",), ("anne",), ("carl",)
    assert c.label(Atom("kind", bob)) == "True"
    assert c.label(Atom("red", bob)) == "False"
    assert c.label(Atom("not_red", bob)) == "True"
    assert c.label(Atom("red", anne)) == "True"
    assert c.label(Atom("kind", anne)) == "Unknown"
    assert c.label(Atom("big", carl)) == "Unknown"
    assert c.depth(Atom("kind", bob)) == 2 and c.depth(Atom("not_red", bob)) == 1
    assert c.conflicts == []


def test_open_world_flags_a_contradiction_of_a_proofwriter_theory():
    facts, rules = _pw_theory("Bob is big. Bob is not red. If something is big then it is red.")
    c = forward_chain(facts, rules, world="open")
    assert c.conflicts == [Atom("red", ("bob",))]
    assert c.label(Atom("red", ("bob",))) == "Inconsistent"


def test_open_world_false_needs_an_explicit_negative():
    facts, rules = _pw_theory("Bob is big. If something is big then it is kind.")
    c = forward_chain(facts, rules, world="open")
    assert c.label(Atom("kind", ("bob",))) == "True"
    # nothing negative is derived, so no statement is False: the closed-world False is Unknown
    assert c.label(Atom("kind", ("anne",))) == "Unknown"
    assert not forward_chain(facts, rules).holds(Atom("kind", ("anne",)))


def test_open_world_rule_is_the_chainers_reading_of_negated_conditions():
    # forward chaining the rewritten rules in the closed world gives the open-world model
    facts, rules = _pw_theory(
        "Bob is big. Bob is not red. Anne is big. If something is big and not red then it is kind."
    )
    assert any(not lit.positive for r in rules for lit in r.body)
    rewritten = [open_world_rule(r) for r in rules]
    assert all(lit.positive for r in rewritten for lit in r.body)
    open_ = forward_chain(facts, rules, world="open")
    assert forward_chain(facts, rewritten).atoms == open_.atoms
    assert open_.label(Atom("kind", ("bob",))) == "True"
    assert open_.label(Atom("kind", ("anne",))) == "Unknown"
