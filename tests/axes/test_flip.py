from __future__ import annotations

import numpy as np

from nesybench.axes.flip import flip_one_condition, flip_probe, flip_summary
from nesybench.reasoning.terms import Atom, Literal, Rule, Theory


def test_flip_one_condition_negates_the_extra_literal_only():
    x = ("X",)
    rules = (
        Rule(Atom("productive", x), (Literal(Atom("cited", x)),)),
        Rule(
            Atom("senior", x),
            (Literal(Atom("productive", x)), Literal(Atom("funded", x), positive=False)),
        ),
    )
    t = Theory((), rules, entities=("anne",), key=("eval", 0))
    edited, index = flip_one_condition(t, np.random.default_rng(0))
    assert index == 1
    assert edited.rules[0] == rules[0]
    assert edited.rules[1].body == (rules[1].body[0], Literal(Atom("funded", x), positive=True))
    unchanged, none = flip_one_condition(
        Theory((), rules[:1], entities=("anne",), key=("eval", 1)), np.random.default_rng(0)
    )
    assert none is None and unchanged.rules == rules[:1]


def test_flip_probe_prover_tracks_every_flip(default_bank, fitted_reasoner):
    _, questions, theories = default_bank
    ev = questions[questions["split"] == "eval"]
    flips = flip_probe(ev, theories, fitted_reasoner, seed=15)
    stats = flip_summary(flips)
    assert stats["n_flipped"] > 0
    assert (flips["label_after"] != flips["label_before"]).all()
    assert stats["prover_tracked_after"] == stats["n_flipped"]
    # the stand-in misses flips: its one-step feature ignores negated conditions
    assert stats["soft_tracked_after"] < stats["n_flipped"]
