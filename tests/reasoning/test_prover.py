"""The SLD prover: proofs, unification, loop check, negation as failure, clingo as oracle."""

from __future__ import annotations

import clingo
import numpy as np
import pytest

from nesybench.reasoning.prover import Prover, prove, unify
from nesybench.reasoning.terms import Atom, Literal, Rule


def A(pred, *args):
    return Atom(pred, tuple(str(a) for a in args))


def R(head, *body):
    return Rule(head, tuple(b if isinstance(b, Literal) else Literal(b) for b in body))


def NOT(atom):
    return Literal(atom, positive=False)


def test_prove_chain_returns_linear_proof():
    facts = [A("wumpus", "sam")]
    rules = [
        R(A("rompus", "X"), A("wumpus", "X")),
        R(A("yumpus", "X"), A("wumpus", "X")),
        R(A("zumpus", "X"), A("rompus", "X")),
        R(A("jompus", "X"), A("zumpus", "X")),
    ]
    proof = prove(A("jompus", "sam"), facts, rules)
    assert [str(s.fact) for s in proof.steps()] == [
        "wumpus(sam)",
        "rompus(sam)",
        "zumpus(sam)",
        "jompus(sam)",
    ]
    assert [s.rule for s in proof.steps()] == [None, rules[0], rules[2], rules[3]]
    assert proof.steps()[-1].premises == (A("zumpus", "sam"),)
    assert proof.depth == 3
    assert prove(A("jompus", "max"), facts, rules) is None
    assert prove(A("impus", "sam"), facts, rules) is None


def test_prove_nary_with_variables_and_left_recursion():
    # path(X,Z) :- path(X,Y), edge(Y,Z) is left-recursive: without the loop check
    # a depth-first SLD search would never return.
    edges = [A("edge", "a", "b"), A("edge", "b", "c"), A("edge", "c", "a"), A("edge", "d", "e")]
    rules = [
        R(A("path", "X", "Y"), A("edge", "X", "Y")),
        R(A("path", "X", "Z"), A("path", "X", "Y"), A("edge", "Y", "Z")),
    ]
    p = Prover(edges, rules)
    assert p.prove(A("path", "a", "a")) is not None
    assert p.prove(A("path", "a", "e")) is None
    proof = p.prove(A("path", "a", "Who"))  # non-ground goal: bound to the first answer
    assert proof.atom.is_ground and proof.atom.pred == "path" and proof.atom.args[0] == "a"


def test_prove_negation_as_failure_stratified():
    facts = [A("bird", "tweety"), A("bird", "pingu"), A("penguin", "pingu")]
    rules = [
        R(A("flies", "X"), A("bird", "X"), NOT(A("abnormal", "X"))),
        R(A("abnormal", "X"), A("penguin", "X")),
    ]
    proof = prove(A("flies", "tweety"), facts, rules)
    assert proof is not None and proof.absent == (A("abnormal", "tweety"),)
    assert prove(A("flies", "pingu"), facts, rules) is None


def test_prove_floundering_and_unstratified_are_errors():
    with pytest.raises(ValueError, match="floundering"):
        prove(A("p", "a"), [A("q", "a")], [R(A("p", "X"), NOT(A("r", "Y")), A("q", "X"))])
    with pytest.raises(ValueError, match="not stratified"):
        prove(A("p", "a"), [A("q", "a")], [R(A("p", "X"), A("q", "X"), NOT(A("p", "X")))])


def test_unify_consistent_bindings():
    assert unify(A("e", "X", "X"), A("e", "a", "b")) is None
    assert unify(A("e", "X", "Y"), A("e", "a", "b")) == {"X": "a", "Y": "b"}
    assert unify(A("e", "X"), A("f", "X")) is None


def _clingo_model(facts, rules):
    text = "".join(f"{f}." for f in facts) + "".join(str(r) for r in rules)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    models = []
    ctl.solve(on_model=lambda m: models.append({str(s) for s in m.symbols(atoms=True)}))
    assert len(models) == 1  # stratified programs have exactly one stable model
    return models[0]


def _random_program(rng):
    consts = ["a", "b", "c"]
    # strata: level-0 preds are EDB, each higher level may negate only lower levels
    preds = [("e0", 2), ("e1", 1), ("p1", 1), ("p2", 2), ("q1", 1), ("q2", 2)]
    level = {"e0": 0, "e1": 0, "p1": 1, "p2": 1, "q1": 2, "q2": 2}
    facts = sorted(
        {A("e0", *rng.choice(consts, 2)) for _ in range(4)}
        | {A("e1", rng.choice(consts)) for _ in range(2)}
    )
    rules = []
    for _ in range(6):
        hp, ha = preds[rng.integers(2, len(preds))]
        head_vars = ["X", "Y"][:ha]
        body = [Literal(A("e0", "X", "Y"))]
        bp, ba = preds[rng.integers(0, len(preds))]
        if level[bp] <= level[hp]:
            body.append(Literal(A(bp, *(["Y", "X"][:ba]))))
        np_, na = preds[rng.integers(0, len(preds))]
        if level[np_] < level[hp] and rng.random() < 0.5:
            body.append(NOT(A(np_, *(["X", "Y"][:na]))))
        rules.append(Rule(A(hp, *head_vars), tuple(body)))
    return facts, rules


@pytest.mark.parametrize("seed", range(25))
def test_prove_agrees_with_clingo_on_random_stratified_programs(seed):
    rng = np.random.default_rng(seed)
    facts, rules = _random_program(rng)
    model = _clingo_model(facts, rules)
    consts = ["a", "b", "c"]
    p = Prover(facts, rules)
    for pred, arity in [("p1", 1), ("p2", 2), ("q1", 1), ("q2", 2)]:
        for args in np.array(np.meshgrid(*[consts] * arity)).T.reshape(-1, arity):
            atom = A(pred, *map(str, args))
            assert (p.prove(atom) is not None) == (str(atom).replace(" ", "") in model), (
                atom,
                [str(r) for r in rules],
            )


def test_prove_too_deep_is_a_value_error_not_a_crash():
    n = 3000
    rules = [Rule(A(f"c{i + 1}", "X"), (Literal(A(f"c{i}", "X")),)) for i in range(n)]
    with pytest.raises(ValueError, match="recursion limit"):
        prove(A(f"c{n}", "sam"), [A("c0", "sam")], rules)


@pytest.mark.parametrize("seed", range(25))
def test_prove_agrees_with_forward_chainer(seed):
    from nesybench.reasoning.chainer import forward_chain

    facts, rules = _random_program(np.random.default_rng(1000 + seed))
    closure = forward_chain(facts, rules)
    p = Prover(facts, rules)
    for pred in ("p1", "p2", "q1", "q2"):
        derived = {a for a in closure.atoms if a.pred == pred}
        arity = 1 if pred.endswith("1") else 2
        proved = {pr.atom for pr in p.solutions(A(pred, *["X", "Y"][:arity]))}
        assert proved == derived, pred
