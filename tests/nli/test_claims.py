"""The nli chapter's claims: directional verdicts per seed and the benchmark checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nesybench.errors import ClaimFailed
from nesybench.nli.claims import (
    SEED_CLAIMS,
    check_baselines_beside,
    check_majority_is_best_blind_guess,
    check_no_crash,
    check_parse_failures_counted,
    check_proofwriter_total,
    seed_claims,
)

THRESHOLDS = {
    "greedy_wins_labels": {"min_rate": 0.8, "enforce": False},
    "greedy_loses_proofs": {"min_rate": 0.8, "enforce": True, "min_gap": 0.25},
    "greedy_right_for_wrong_reason": {"min_rate": 0.8, "enforce": True},
    "greedy_deep_collapse": {"min_rate": 0.8, "enforce": True},
    "majority_beats_uniform": {"min_rate": 0.8, "enforce": True},
}


def _summary(**columns) -> pd.DataFrame:
    base = {
        "seed": [0, 1],
        "label_gap": [0.1, 0.0],
        "proof_gap": [0.25, 0.2],
        "greedy_rfwr": [0.5, 0.0],
        "deep_label_gap": [-0.1, 0.0],
        "folio_majority_accuracy": [0.5, 1 / 3],
    }
    return pd.DataFrame({**base, **columns})


def test_seed_claims_at_their_boundaries():
    out = seed_claims(_summary(), THRESHOLDS)
    assert out["greedy_wins_labels"].tolist() == [True, False]  # a tie is not a win
    assert out["greedy_loses_proofs"].tolist() == [True, False]  # gap == min_gap holds
    assert out["greedy_right_for_wrong_reason"].tolist() == [True, False]
    assert out["greedy_deep_collapse"].tolist() == [True, False]
    assert out["majority_beats_uniform"].tolist() == [True, False]  # exactly 1/3 does not beat
    assert {c.name for c in SEED_CLAIMS} <= set(out.columns)
    assert {c.metric for c in SEED_CLAIMS} <= set(out.columns)


def test_seed_claims_read_min_gap_from_params():
    strict = {**THRESHOLDS, "greedy_loses_proofs": {**THRESHOLDS["greedy_loses_proofs"]}}
    strict["greedy_loses_proofs"]["min_gap"] = 0.1
    assert seed_claims(_summary(), strict)["greedy_loses_proofs"].tolist() == [True, True]


def test_majority_identity_names_the_seed():
    good = {"folio": {"majority_baseline_acc": 0.5, "best_blind_guess_acc": 0.5}}
    check_majority_is_best_blind_guess(good, seed=3)
    bad = {"folio": {"majority_baseline_acc": 0.4, "best_blind_guess_acc": 0.5}}
    with pytest.raises(ClaimFailed, match="seed 3, folio: the majority baseline"):
        check_majority_is_best_blind_guess(bad, seed=3)


def test_no_crash_quotes_the_first_crash():
    check_no_crash([])
    with pytest.raises(ClaimFailed, match="2 crash\\(es\\); first: f: q1: KeyError: 'x'"):
        check_no_crash([("f: q1", "KeyError: 'x'"), ("f: q2", "ValueError")])


def _agreement(**overrides) -> pd.DataFrame:
    row = {
        "benchmark": "proofwriter",
        "file": "pw.json",
        "n": 10,
        "parsed": 10,
        "n_agree": 10,
        "True": 4,
        "False": 3,
        "Unknown": 3,
        "Inconsistent": 0,
        "Undecided": 0,
    }
    return pd.DataFrame([{**row, **overrides}])


def test_proofwriter_agreement_must_be_total():
    check_proofwriter_total(_agreement())
    with pytest.raises(ClaimFailed, match="ProofWriter agreement is total: 9 agree, 10 parsed"):
        check_proofwriter_total(_agreement(n_agree=9))
    with pytest.raises(ClaimFailed, match="9 parsed, of 10"):
        check_proofwriter_total(_agreement(parsed=9, n_agree=9, Unknown=2))
    with pytest.raises(ClaimFailed, match="a ProofWriter file is among"):
        check_proofwriter_total(_agreement(benchmark="folio"))


def test_parse_failures_are_counted():
    check_parse_failures_counted(_agreement(parsed=9, n_agree=9, Unknown=2))
    with pytest.raises(ClaimFailed, match="parsed 10 = sum of outcomes 9"):
        check_parse_failures_counted(_agreement(Unknown=2))


def test_baselines_beside_every_accuracy():
    scores = pd.DataFrame(
        [
            {
                "system": "s",
                "benchmark": "proofwriter",
                "accuracy": 0.6,
                "majority": 0.4,
                "uniform": 1 / 3,
                "blind_lo": 0.3,
                "blind_hi": 0.4,
                "always_unknown": 0.3,
            }
        ]
    )
    depth = pd.DataFrame({"majority": [0.5, 1.0]})
    check_baselines_beside(scores, depth)
    with pytest.raises(ClaimFailed, match="'always Unknown' is printed"):
        check_baselines_beside(scores.assign(always_unknown=np.nan), depth)
    with pytest.raises(ClaimFailed, match="beside the majority, uniform"):
        check_baselines_beside(scores.assign(majority=np.nan), depth)
    with pytest.raises(ClaimFailed, match="majority baseline of its depth"):
        check_baselines_beside(scores, pd.DataFrame({"majority": [np.nan]}))
    # PrOntoQA has no Unknown label: no 'always Unknown' column is needed there
    check_baselines_beside(scores.assign(benchmark="prontoqa", always_unknown=np.nan), depth)
