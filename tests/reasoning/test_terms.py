"""The shared plain data: the one substitution, reified negation, the one Theory."""

from nesybench.reasoning import chainer, prover
from nesybench.reasoning.terms import (
    Atom,
    Literal,
    Rule,
    Theory,
    complement,
    open_world_rule,
    substitute,
)


def test_substitute_follows_variable_chains_and_keeps_constants():
    atom = Atom("p", ("X", "Y", "Z", "ann"))
    out = substitute(atom, {"X": "Y", "Y": "bob", "ann": "ignored"})
    # X -> Y -> bob; Z unbound stays; a constant is never replaced
    assert out == Atom("p", ("bob", "bob", "Z", "ann"))


def test_substitute_is_the_function_the_prover_and_chainer_use():
    assert prover.substitute is substitute
    assert chainer.substitute is substitute


def test_complement_is_an_involution():
    a = Atom("chases", ("the_cat", "bob"))
    assert complement(a) == Atom("not_chases", ("the_cat", "bob"))
    assert complement(complement(a)) == a


def test_theory_defaults_and_ok():
    t = Theory((Atom("p", ("a",)),), ())
    assert t.ok and t.failures == () and t.entities == () and t.key == ()
    assert not Theory((), (), (("Bad sentence.", "why"),)).ok


def test_the_grammar_reads_contexts_into_the_terms_theory():
    from nesybench.reasoning.grammar.reading import parse_context

    assert type(parse_context("Max is a wumpus.")) is Theory


def test_open_world_rule_reads_negated_conditions_as_explicit_negatives():
    x = ("X",)
    stated = Rule(
        Atom("not_kind", x), (Literal(Atom("big", x)), Literal(Atom("red", x), positive=False))
    )
    read = open_world_rule(stated)
    assert read == Rule(Atom("not_kind", x), (Literal(Atom("big", x)), Literal(Atom("not_red", x))))
    assert open_world_rule(read) is read  # already positive: returned as is


def test_open_world_rule_is_the_chainers():
    assert chainer.open_world_rule is open_world_rule
