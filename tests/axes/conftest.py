"""Shared fixtures: one default bank and a fitted soft reasoner (built once per session)."""

from __future__ import annotations

import pytest

from nesybench.axes.bank import BankConfig, build_bank, theories_from_table
from nesybench.axes.soft_reasoner import SoftReasoner, feature_matrix

SEED = 15


@pytest.fixture(scope="session")
def default_bank():
    bank, questions, theories = build_bank(BankConfig(), seed=SEED)
    return bank, questions, theories_from_table(bank, questions)


@pytest.fixture(scope="session")
def fitted_reasoner(default_bank):
    _, questions, theories = default_bank
    train = questions[(questions["split"] == "train") & (questions["depth"] <= 1)]
    return SoftReasoner(C=10.0).fit(feature_matrix(train, theories), train["label"])
