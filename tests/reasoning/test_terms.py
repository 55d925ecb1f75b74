"""The shared plain data: the one substitution, reified negation, the one Theory."""

from nesybench.reasoning import chainer, prover
from nesybench.reasoning.terms import Atom, Theory, complement, substitute


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


def test_grammar_theory_is_the_terms_theory():
    from nesybench.reasoning import grammar

    assert grammar.Theory is Theory
