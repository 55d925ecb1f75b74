"""The forward chainer: strategies cross-checked, against clingo, and its closed forms."""

from __future__ import annotations

import clingo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.reasoning.chainer import NotStratifiable, forward_chain, query, stratify
from nesybench.reasoning.terms import Atom, Literal, Rule


def pos(pred, *args):
    return Literal(Atom(pred, tuple(args)))


def neg(pred, *args):
    return Literal(Atom(pred, tuple(args)), positive=False)


def chain_program(m):
    facts = [Atom("cites", (f"p{i}", f"p{i + 1}")) for i in range(m)]
    rules = [
        Rule(Atom("reach", ("X", "Y")), (pos("cites", "X", "Y"),)),
        Rule(Atom("reach", ("X", "Z")), (pos("cites", "X", "Y"), pos("reach", "Y", "Z"))),
    ]
    return facts, rules


# ---------------------------------------------------------------- random programs

CONSTANTS = ("a", "b", "c")
ARITY = {"p0": 1, "p1": 2, "p2": 1, "p3": 2, "p4": 1}
LEVEL = {"p0": 0, "p1": 0, "p2": 1, "p3": 1, "p4": 2}  # negation only on lower levels
VARS = ("X", "Y", "Z")


@st.composite
def programs(draw):
    facts = []
    for pred in ("p0", "p1", "p2"):  # p2 has facts and rules (both)
        for _ in range(draw(st.integers(0, 4))):
            facts.append(
                Atom(pred, tuple(draw(st.sampled_from(CONSTANTS)) for _ in range(ARITY[pred])))
            )
    rules = []
    for _ in range(draw(st.integers(1, 5))):
        head_pred = draw(st.sampled_from(["p2", "p3", "p4"]))
        body = []
        for _ in range(draw(st.integers(1, 3))):
            # positive literals: same or lower level (recursion allowed)
            pred = draw(st.sampled_from([p for p in ARITY if LEVEL[p] <= LEVEL[head_pred]]))
            args = tuple(draw(st.sampled_from(VARS + ("a",))) for _ in range(ARITY[pred]))
            body.append(pos(pred, *args))
        bound = sorted({a for lit in body for a in lit.atom.args if a in VARS})
        choices = bound + ["a", "b"]
        for _ in range(draw(st.integers(0, 1))):
            lower = [p for p in ARITY if LEVEL[p] < LEVEL[head_pred]]
            pred = draw(st.sampled_from(lower))
            body.append(neg(pred, *(draw(st.sampled_from(choices)) for _ in range(ARITY[pred]))))
        head = Atom(
            head_pred, tuple(draw(st.sampled_from(choices)) for _ in range(ARITY[head_pred]))
        )
        rules.append(Rule(head, tuple(body)))
    return facts, rules


def clingo_model(facts, rules):
    def lit_text(lit):
        return ("" if lit.positive else "not ") + str(lit.atom).replace(" ", "")

    lines = [f"{str(f).replace(' ', '')}." for f in facts]
    lines += [
        f"{str(r.head).replace(' ', '')} :- {', '.join(lit_text(b) for b in r.body)}."
        for r in rules
    ]
    lines += [f"#defined {p}/{n}." for p, n in ARITY.items()]
    ctl = clingo.Control(["--warn=none", "0"])
    ctl.add("base", [], "\n".join(lines))
    ctl.ground([("base", [])])
    models = []
    ctl.solve(
        on_model=lambda m: models.append(
            {Atom(s.name, tuple(str(a) for a in s.arguments)) for s in m.symbols(atoms=True)}
        )
    )
    assert len(models) == 1, "a stratified program has exactly one stable model"
    return models[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_forward_chain_strategies_agree_with_each_other_and_clingo(program):
    facts, rules = program
    naive = forward_chain(facts, rules, strategy="naive")
    semi = forward_chain(facts, rules, strategy="semi-naive")
    assert naive.atoms == semi.atoms  # same atoms and same depths
    assert naive.rounds == semi.rounds
    assert set(semi.atoms) == clingo_model(facts, rules)
    assert all(semi.atoms[f] == 0 for f in facts)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_forward_chain_depth_is_one_plus_max_positive_body_depth(program):
    # Independent check of the depth semantics: every derived atom has a
    # supporting rule instance whose positive body atoms are all shallower.
    facts, rules = program
    closure = forward_chain(facts, rules)
    for atom, depth in closure.atoms.items():
        if depth == 0:
            assert atom in facts
            continue
        support = []
        for rule in rules:
            positives = [lit for lit in rule.body if lit.positive]
            for binding in query(rule.body, closure)[0]:
                head = Atom(rule.head.pred, tuple(binding.get(a, a) for a in rule.head.args))
                if head == atom:
                    support.append(
                        1
                        + max(
                            closure.atoms[
                                Atom(lit.atom.pred, tuple(binding.get(a, a) for a in lit.atom.args))
                            ]
                            for lit in positives
                        )
                    )
        assert min(support) == depth


# ---------------------------------------------------------------- closed forms


@pytest.mark.parametrize(
    "m, probes_naive, probes_semi", [(8, 1776, 340), (16, 24480, 2344), (32, 368192, 17488)]
)
def test_forward_chain_citation_chain_closed_forms(m, probes_naive, probes_semi):
    facts, rules = chain_program(m)
    naive = forward_chain(facts, rules, strategy="naive")
    semi = forward_chain(facts, rules, strategy="semi-naive")
    assert len(semi) == (m + 1) * m // 2 + m  # C(m+1, 2) + m
    assert naive.atoms == semi.atoms
    assert naive.rounds == semi.rounds == m
    assert (naive.probes, semi.probes) == (probes_naive, probes_semi)
    assert semi.depth(Atom("reach", ("p0", f"p{m}"))) == m


@pytest.mark.parametrize(
    "k, witnesses, probes",
    [(2, 6, 42), (3, 6, 114), (4, 18, 258), (5, 30, 546), (6, 66, 1122), (7, 126, 2274)],
)
def test_query_cycle_witnesses_equal_trace(k, witnesses, probes):
    edges = [Atom("edge", (x, y)) for x in "abc" for y in "abc" if x != y]
    v = [f"X{i}" for i in range(k)]
    bindings, spent = query([pos("edge", v[i], v[(i + 1) % k]) for i in range(k)], edges)
    assert len(bindings) == witnesses == 2**k + 2 * (-1) ** k
    assert spent == probes


def test_forward_chain_naf_retraction():
    people = [Atom("person", (p,)) for p in ("alice", "bob", "carol")]
    advises = [Atom("advises", ("alice", "bob")), Atom("advises", ("alice", "carol"))]
    rules = [
        Rule(Atom("advised", ("Y",)), (pos("advises", "X", "Y"),)),
        Rule(Atom("independent", ("X",)), (pos("person", "X"), neg("advised", "X"))),
    ]
    before = forward_chain(people + advises, rules)
    after = forward_chain(people + advises + [Atom("advises", ("bob", "alice"))], rules)
    assert before.relation("independent") == [("alice",)]
    assert after.relation("independent") == []
    assert before.depth(Atom("independent", ("alice",))) == 1  # negation costs no wave
    assert before.strata == (("advised",), ("independent",))


def test_forward_chain_depth_under_negated_derived_predicate():
    facts = [Atom("s", ("a",)), Atom("q", ("a",)), Atom("q", ("b",))]
    rules = [
        Rule(Atom("r", ("X",)), (pos("s", "X"),)),
        Rule(Atom("t", ("X",)), (pos("r", "X"),)),
        Rule(Atom("p", ("X",)), (pos("q", "X"), neg("t", "X"))),
    ]
    for strategy in ("naive", "semi-naive"):
        c = forward_chain(facts, rules, strategy=strategy)
        assert c.atoms == {
            Atom("q", ("a",)): 0,
            Atom("q", ("b",)): 0,
            Atom("s", ("a",)): 0,
            Atom("p", ("b",)): 1,
            Atom("r", ("a",)): 1,
            Atom("t", ("a",)): 2,
        }
        assert c.rounds == 2


def test_forward_chain_rejects_non_stratifiable_program():
    rules = [
        Rule(Atom("p", ("X",)), (pos("d", "X"), neg("q", "X"))),
        Rule(Atom("q", ("X",)), (pos("d", "X"), neg("p", "X"))),
    ]
    with pytest.raises(NotStratifiable, match="not stratifiable"):
        forward_chain([Atom("d", ("a",))], rules)
    with pytest.raises(InputError):
        stratify(rules)


@pytest.mark.parametrize(
    "facts, rules, message",
    [
        ([Atom("d", ("X",))], [], "must be ground"),
        ([], [Rule(Atom("p", ("X", "Y")), (pos("d", "X"),))], "range restriction"),
        ([], [Rule(Atom("p", ("X",)), (pos("d", "X"), neg("e", "Y")))], "range restriction"),
    ],
)
def test_forward_chain_rejects_bad_programs(facts, rules, message):
    with pytest.raises(InputError, match=message):
        forward_chain(facts, rules)


def test_forward_chain_rejects_unknown_strategy():
    with pytest.raises(InputError, match="strategy"):
        forward_chain([], [], strategy="magic")


def test_forward_chain_positive_recursion_within_a_stratum():
    # same-generation style recursion with constants and repeated variables
    facts = [Atom("e", ("a", "a")), Atom("e", ("a", "b")), Atom("e", ("b", "c"))]
    rules = [
        Rule(Atom("loop", ("X",)), (pos("e", "X", "X"),)),
        Rule(Atom("r", ("X", "Y")), (pos("e", "X", "Y"),)),
        Rule(Atom("r", ("X", "Z")), (pos("r", "X", "Y"), pos("r", "Y", "Z"))),
    ]
    c = forward_chain(facts, rules)
    assert c.relation("loop") == [("a",)]
    assert c.relation("r") == [("a", "a"), ("a", "b"), ("a", "c"), ("b", "c")]
    assert c.depth(Atom("r", ("a", "c"))) == 2


def test_query_negation_and_unsafe_negation():
    atoms = [Atom("person", ("a",)), Atom("person", ("b",)), Atom("advised", ("b",))]
    bindings, probes = query([pos("person", "X"), neg("advised", "X")], atoms)
    assert bindings == [{"X": "a"}]
    assert probes == 2 + 2  # two person atoms scanned, then one membership probe per binding
    with pytest.raises(InputError, match="must occur in a positive literal"):
        query([pos("person", "X"), neg("advised", "Y")], atoms)
    assert query([pos("person", "X"), pos("advised", "X")], forward_chain(atoms, []))[0] == [
        {"X": "b"}
    ]
