"""The soft reasoner: a bag-of-local-features logistic regression.

A stand-in for a statistical reader.  It looks one step around the queried
atom and no further:

* ``stated``   -- the queried atom is a stated fact of the theory;
* ``one_step`` -- some rule for the queried predicate has all its *positive*
  body literals stated for the entity (negated conditions are ignored);
* ``negated``  -- the question carries "not";

plus the two products with ``negated`` (so a linear model can flip its answer
under "not").  Trained on depths 0-1 only, it answers depth-0 questions from
``stated`` and depth-1 questions from ``one_step``, and has no evidence at all
beyond: its accuracy at depth >= 2 falls to chance on a balanced bank.

    P(label = True | x) = sigmoid(w . x + b)       (scikit-learn LogisticRegression)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..reasoning.terms import Atom, Theory

FEATURES = ("stated", "one_step", "negated", "stated_x_negated", "one_step_x_negated")


def local_features(
    theory: Theory, pred: str, entity: str, negated: bool, *, bind_entity: bool = True
) -> dict[str, float]:
    """The five local features of one question (see the module docstring).

    With ``bind_entity=False`` the reader matches words, not bindings: ``stated``
    holds when ``pred`` is stated of anyone, and ``one_step`` when some rule for
    ``pred`` has each positive condition stated of someone -- the entity-binding
    blindness of a bag-of-words reader, which irrelevant facts about other people
    exploit (the grid's distractor axis).
    """
    facts = set(theory.facts)
    if bind_entity:
        stated = Atom(pred, (entity,)) in facts
        one_step = any(
            rule.head.pred == pred
            and all(Atom(lit.atom.pred, (entity,)) in facts for lit in rule.body if lit.positive)
            for rule in theory.rules
        )
    else:
        words = {f.pred for f in facts}
        stated = pred in words
        one_step = any(
            rule.head.pred == pred
            and all(lit.atom.pred in words for lit in rule.body if lit.positive)
            for rule in theory.rules
        )
    n = float(negated)
    return {
        "stated": float(stated),
        "one_step": float(one_step),
        "negated": n,
        "stated_x_negated": float(stated) * n,
        "one_step_x_negated": float(one_step) * n,
    }


def feature_matrix(
    questions: pd.DataFrame, theories: Mapping[tuple[str, int], Theory]
) -> np.ndarray:
    """Rows of :data:`FEATURES` for every question (columns ``split, theory, pred, entity,
    negated``)."""
    rows = [
        [local_features(theories[(s, int(t))], p, e, bool(n))[f] for f in FEATURES]
        for s, t, p, e, n in questions[["split", "theory", "pred", "entity", "negated"]].itertuples(
            index=False
        )
    ]
    return np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))


class SoftReasoner:
    """Logistic regression over :data:`FEATURES`; coefficients round-trip through a table."""

    def __init__(self, *, C: float = 1.0):
        self.C = C
        self.coef_: np.ndarray | None = None
        self.intercept_: float = 0.0

    def fit(self, X, y) -> SoftReasoner:
        # scikit-learn costs about a second to import: only the jobs that fit pay for it
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=self.C, solver="lbfgs", max_iter=1000)
        model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=int))
        self.coef_ = model.coef_[0].astype(float)
        self.intercept_ = float(model.intercept_[0])
        return self

    def predict_proba(self, X) -> np.ndarray:
        """P(True) per row: ``1 / (1 + exp(-(X w + b)))``."""
        if self.coef_ is None:
            raise RuntimeError("SoftReasoner is not fitted")
        z = np.asarray(X, dtype=float) @ self.coef_ + self.intercept_
        return 1.0 / (1.0 + np.exp(-z))

    def predict(self, X) -> np.ndarray:
        return self.predict_proba(X) >= 0.5

    def to_table(self) -> pd.DataFrame:
        if self.coef_ is None:
            raise RuntimeError("SoftReasoner is not fitted")
        return pd.DataFrame(
            {
                "feature": list(FEATURES) + ["(intercept)"],
                "coef": [*map(float, self.coef_), self.intercept_],
            }
        )

    @classmethod
    def from_table(cls, table: pd.DataFrame) -> SoftReasoner:
        coefs = dict(zip(table["feature"], table["coef"]))
        model = cls()
        model.coef_ = np.asarray([float(coefs[f]) for f in FEATURES])
        model.intercept_ = float(coefs["(intercept)"])
        return model


def accuracy_by_depth(questions: pd.DataFrame, predictions) -> pd.DataFrame:
    """``depth, n, correct, accuracy`` of boolean predictions against ``questions.label``."""
    df = pd.DataFrame(
        {
            "depth": questions["depth"].to_numpy(),
            "correct": np.asarray(predictions, dtype=bool)
            == questions["label"].to_numpy(dtype=bool),
        }
    )
    out = df.groupby("depth", sort=True)["correct"].agg(["size", "sum"]).reset_index()
    out.columns = ["depth", "n", "correct"]
    out["accuracy"] = out["correct"] / out["n"]
    return out
