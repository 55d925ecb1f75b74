"""First-order formulas: the parser (all connectives, any arity), printing, z3's dual query."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.reasoning.fol import (
    MAX_NESTING,
    And,
    Const,
    Eq,
    Exists,
    FolSyntaxError,
    Forall,
    Func,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Var,
    Xor,
    dual_query,
    parse_formula,
)

A, B, C, D = (Pred(n) for n in "ABCD")


@pytest.mark.parametrize(
    "text, formula",
    [
        ("¬A", Not(A)),
        ("~A", Not(A)),
        ("A ∧ B ∧ C", And((A, B, C))),
        ("A & B", And((A, B))),
        ("A ∨ B | C", Or((A, B, C))),
        ("A ⊕ B", Xor(A, B)),
        ("A → B → C", Implies(A, Implies(B, C))),
        ("A -> B", Implies(A, B)),
        ("A ↔ B", Iff(A, B)),
        ("A <-> B", Iff(A, B)),
        ("A ⟷ B", Iff(A, B)),
        ("A ∧ B ∨ C", Or((And((A, B)), C))),
        ("A ∨ B ⊕ C", Xor(Or((A, B)), C)),
        ("A ⊕ B → C ∨ D", Implies(Xor(A, B), Or((C, D)))),
        ("A → B ↔ C", Iff(Implies(A, B), C)),
        ("¬(A ∧ B)", Not(And((A, B)))),
    ],
)
def test_connectives_and_binding(text, formula):
    assert parse_formula(text) == formula


def test_quantifiers_bind_variables_and_other_names_are_constants():
    f = parse_formula("∀x ∀y (Knows(x, y, rina) ∧ ∃z Likes(z, x) → Friend(x))")
    assert isinstance(f, Forall) and isinstance(f.body, Forall)
    conj = f.body.body
    assert conj.args[0] == Pred("Knows", (Var("x"), Var("y"), Const("rina")))
    # the scope of ∃z extends as far right as possible: over the implication
    assert conj.args[1] == Exists(
        "z", Implies(Pred("Likes", (Var("z"), Var("x"))), Pred("Friend", (Var("x"),)))
    )
    assert parse_formula("Drinks(x)") == Pred("Drinks", (Const("x"),))  # free: a constant


def test_ascii_quantifiers_equality_functions_and_odd_names():
    f = parse_formula("forall x (P(x) -> x = father(bob) | x != gpt-3)")
    assert f == Forall(
        "x",
        Implies(
            Pred("P", (Var("x"),)),
            Or((Eq(Var("x"), Func("father", (Const("bob"),))), Not(Eq(Var("x"), Const("gpt-3"))))),
        ),
    )
    assert parse_formula("Grade(a+) ∨ Visited(mr.smith, c++)").args[1].args[0] == Const("mr.smith")
    assert parse_formula("Superhero(captain america)") == Pred(
        "Superhero", (Const("captain america"),)
    )
    assert parse_formula("P(a) ∧ Q(b).") == And(
        (Pred("P", (Const("a"),)), Pred("Q", (Const("b"),)))
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty formula"),
        ("P(a))", r"unexpected '\)'"),
        ("(P(a)", "ends early"),
        ("P(a) Q(b)", "unexpected 'Q'"),
        ("∀ (P(x))", "a variable after the quantifier"),
        ("P(a,)", "a term"),
        ("P(a) ∧", "ends early"),
        ("∀x x", "used as a formula"),
        ("P(a) # Q", "unexpected character"),
        ("(" * (MAX_NESTING + 5) + "P" + ")" * (MAX_NESTING + 5), "nested deeper"),
        ("¬" * 5000 + "P", "nested deeper"),
    ],
)
def test_syntax_errors_name_the_problem(text, message):
    with pytest.raises(FolSyntaxError, match=message):
        parse_formula(text)


def test_syntax_error_is_a_user_error_and_a_value_error():
    with pytest.raises(InputError):
        parse_formula(42)
    assert issubclass(FolSyntaxError, InputError) and issubclass(FolSyntaxError, ValueError)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_raises_only_the_syntax_error(text):
    try:
        parse_formula(text)
    except FolSyntaxError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "∀x",
                "∃y",
                "(",
                ")",
                "P(x)",
                "Q(a, y)",
                "¬",
                "∧",
                "∨",
                "→",
                "↔",
                "⊕",
                ",",
                "x",
                "=",
                "≠",
                "R",
            ]
        ),
        max_size=20,
    )
)
def test_token_soup_raises_only_the_syntax_error(tokens):
    try:
        parse_formula(" ".join(tokens))
    except FolSyntaxError:
        pass


# ---------------------------------------------------------------- printing round trip
ATOMS = st.sampled_from(
    [
        Pred("P", (Var("x"),)),
        Pred("Q", (Var("x"), Const("bob"))),
        Pred("R"),
        Eq(Var("x"), Const("ann")),
    ]
)


def formulas():
    return st.recursive(
        ATOMS,
        lambda sub: st.one_of(
            st.builds(Not, sub),
            st.builds(lambda a, b: And((a, b)), sub, sub),
            st.builds(lambda a, b: Or((a, b)), sub, sub),
            st.builds(Xor, sub, sub),
            st.builds(Implies, sub, sub),
            st.builds(Iff, sub, sub),
        ),
        max_leaves=8,
    ).map(lambda body: Forall("x", body))


@settings(max_examples=200, deadline=None)
@given(formulas())
def test_printed_formula_parses_back_to_itself(f):
    assert parse_formula(str(f)) == f


# ---------------------------------------------------------------- z3
def _eval(f, world):
    """Truth of a propositional formula under ``world`` (name -> bool), by hand."""
    if isinstance(f, Pred):
        return world[f.name]
    if isinstance(f, Not):
        return not _eval(f.body, world)
    if isinstance(f, And):
        return all(_eval(a, world) for a in f.args)
    if isinstance(f, Or):
        return any(_eval(a, world) for a in f.args)
    if isinstance(f, Xor):
        return _eval(f.left, world) != _eval(f.right, world)
    if isinstance(f, Implies):
        return (not _eval(f.left, world)) or _eval(f.right, world)
    return _eval(f.left, world) == _eval(f.right, world)


def _brute_label(premises, conclusion):
    worlds = [dict(zip("ABC", bits)) for bits in itertools.product([False, True], repeat=3)]
    models = [w for w in worlds if all(_eval(p, w) for p in premises)]
    if not models:
        return "Inconsistent"
    if all(_eval(conclusion, w) for w in models):
        return "True"
    if not any(_eval(conclusion, w) for w in models):
        return "False"
    return "Unknown"


PROP = st.recursive(
    st.sampled_from([A, B, C]),
    lambda sub: st.one_of(
        st.builds(Not, sub),
        st.builds(lambda a, b: And((a, b)), sub, sub),
        st.builds(lambda a, b: Or((a, b)), sub, sub),
        st.builds(Xor, sub, sub),
        st.builds(Implies, sub, sub),
        st.builds(Iff, sub, sub),
    ),
    max_leaves=5,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(PROP, max_size=3), PROP)
def test_dual_query_matches_truth_tables_on_propositional_formulas(premises, conclusion):
    assert dual_query(premises, conclusion).label == _brute_label(premises, conclusion)


@pytest.mark.parametrize(
    "premises, conclusion, label",
    [
        (["∀x (Man(x) → Mortal(x))", "Man(socrates)"], "Mortal(socrates)", "True"),
        (["∀x (Man(x) → ¬God(x))", "Man(socrates)"], "God(socrates)", "False"),
        (["∀x (Man(x) → Mortal(x))"], "Mortal(zeus)", "Unknown"),
        (["P(a)", "¬P(a)"], "Q(b)", "Inconsistent"),
        (["∀x ∀y (Parent(x, y) → Older(x, y))", "Parent(ann, bob)"], "Older(ann, bob)", "True"),
        (["∀x (Bird(x) → Flies(x))", "∃x Bird(x)"], "∃x Flies(x)", "True"),
        (["a = b", "P(a)"], "P(b)", "True"),
        (["∀x (P(x) ⊕ Q(x))", "P(c)"], "Q(c)", "False"),
        (["∀x (P(x) ↔ Q(x, x))", "Q(d, d)"], "P(d)", "True"),
        # a name used with two arities is two symbols: no clash, no inference across them
        (["P(a)", "∀x (P(x, x) → R(x))"], "R(a)", "Unknown"),
    ],
)
def test_dual_query_first_order(premises, conclusion, label):
    result = dual_query([parse_formula(p) for p in premises], parse_formula(conclusion))
    assert result.label == label


def test_dual_query_rejects_a_bad_time_limit():
    with pytest.raises(InputError, match="time_limit"):
        dual_query([], parse_formula("P"), time_limit=0)
