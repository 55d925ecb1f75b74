from __future__ import annotations

import numpy as np

from nesybench.axes.soft_reasoner import (
    FEATURES,
    SoftReasoner,
    accuracy_by_depth,
    feature_matrix,
    local_features,
)
from nesybench.reasoning.terms import Atom, Literal, Rule, Theory


def test_soft_reasoner_collapses_with_depth(default_bank, fitted_reasoner):
    _, questions, theories = default_bank
    ev = questions[questions["split"] == "eval"]
    acc = accuracy_by_depth(ev, fitted_reasoner.predict(feature_matrix(ev, theories))).set_index(
        "depth"
    )["accuracy"]
    assert acc[3] <= 0.65
    assert acc[0] - acc[3] >= 0.25
    assert acc[0] == 1.0  # stated facts are read off directly
    assert acc[2] == acc[3] == 0.5  # no local evidence beyond depth 1 on a balanced bank


def test_local_features_ignore_negated_conditions():
    x = ("X",)
    t = Theory(
        (Atom("cited", ("anne",)), Atom("funded", ("anne",))),
        (
            Rule(
                Atom("productive", x),
                (Literal(Atom("cited", x)), Literal(Atom("funded", x), positive=False)),
            ),
        ),
        entities=("anne",),
    )
    f = local_features(t, "productive", "anne", True)
    # one_step fires although the negated condition fails: the reasoner looks one step and no
    # further
    assert f == {
        "stated": 0.0,
        "one_step": 1.0,
        "negated": 1.0,
        "stated_x_negated": 0.0,
        "one_step_x_negated": 1.0,
    }


def test_soft_reasoner_table_round_trip(default_bank, fitted_reasoner):
    _, questions, theories = default_bank
    X = feature_matrix(questions.head(100), theories)
    again = SoftReasoner.from_table(fitted_reasoner.to_table())
    np.testing.assert_array_equal(again.predict_proba(X), fitted_reasoner.predict_proba(X))
    assert list(fitted_reasoner.to_table()["feature"]) == [*FEATURES, "(intercept)"]
