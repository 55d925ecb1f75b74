"""The axes claims: directional verdicts from thresholds; structural checks name the seed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from nesybench.axes.claims import (
    SEED_CLAIMS,
    check_bank_balance,
    check_depths_covered,
    check_parsed_exact,
    check_prover_tracks_flips,
    check_synonyms_hit_depths,
    check_ties,
    seed_verdicts,
    statements,
)
from nesybench.axes.summaries import SEED_METRICS
from nesybench.errors import ClaimFailed

REPO = Path(__file__).resolve().parents[2]
CLAIMS = yaml.safe_load((REPO / "params.yaml").read_text())["axes"]["claims"]


def _summary(**changes) -> pd.DataFrame:
    """Two seeds on which every claim holds, with ``changes`` applied to seed 1."""
    row = {m.name: 0.5 for m in SEED_METRICS}
    row |= {
        "soft_depth_deepest": 0.5,
        "soft_depth_drop": 0.5,
        "coverage_strict": 0.8,
        "coverage_repaired": 0.93,
        "flip_n": 100,
        "flip_soft_accuracy_after": 0.7,
        "mixture_soft_first": 1,
        "mixture_pipeline_first": 3,
        "mixture_n_ties": 3,
        "grid_soft_distractor_drop": 0.2,
    }
    return pd.DataFrame([{"seed": 0, **row}, {"seed": 1, **row, **changes}])


def test_every_directional_claim_has_params_and_a_summary_metric():
    assert [c.name for c in SEED_CLAIMS] == list(CLAIMS)
    names = {m.name for m in SEED_METRICS}
    assert all(c.metric in names for c in SEED_CLAIMS)


def test_seed_verdicts_hold_on_a_summary_that_meets_every_claim():
    judged = seed_verdicts(_summary(), CLAIMS)
    assert judged[[c.name for c in SEED_CLAIMS]].all().all()


@pytest.mark.parametrize(
    "changes, claim",
    [
        ({"soft_depth_deepest": 0.66}, "soft_deep_near_chance"),
        ({"soft_depth_drop": 0.24}, "soft_drops_with_depth"),
        ({"coverage_repaired": 0.8}, "repair_raises_coverage"),  # repair gained nothing
        ({"coverage_repaired": 1.0}, "repair_raises_coverage"),  # nothing left to repair
        ({"flip_soft_accuracy_after": 1.0}, "soft_misses_flips"),
        ({"flip_n": 0}, "soft_misses_flips"),
        ({"mixture_soft_first": 0}, "mixture_rankings_differ"),
        ({"mixture_n_ties": 0}, "mixture_tie_exists"),
        ({"grid_soft_distractor_drop": 0.09}, "grid_distractors_move_soft"),
    ],
)
def test_seed_verdicts_fail_exactly_the_claim_whose_number_misses(changes, claim):
    judged = seed_verdicts(_summary(**changes), CLAIMS)
    others = [c.name for c in SEED_CLAIMS if c.name != claim]
    assert judged[claim].tolist() == [True, False]
    assert judged[others].all().all()


def test_seed_verdicts_read_the_thresholds_from_params():
    loose = {**CLAIMS, "soft_deep_near_chance": {**CLAIMS["soft_deep_near_chance"]}}
    loose["soft_deep_near_chance"]["max_accuracy"] = 0.7
    assert seed_verdicts(_summary(soft_depth_deepest=0.66), loose)["soft_deep_near_chance"].all()


def test_statements_spell_the_thresholds():
    text = {c.name: c.statement for c in statements(CLAIMS)}
    assert "at most 0.65" in text["soft_deep_near_chance"]
    assert "at least 0.25" in text["soft_drops_with_depth"]
    assert "at least 0.1 from the fewest" in text["grid_distractors_move_soft"]
    assert all("claims." not in t for t in text.values())


def test_check_bank_balance_names_the_seed_and_the_counts():
    ok = pd.DataFrame(
        [{"split": "eval", "depth": 0, "n_true": 2, "n_false": 2, "true_rate_plain": 0.5,
          "true_rate_negated": 0.5}]
    )  # fmt: skip
    check_bank_balance(ok, seed=0)
    with pytest.raises(ClaimFailed, match="seed 4, eval depth 0 must be exactly 50/50.*3/2"):
        check_bank_balance(ok.assign(n_true=3), seed=4)
    with pytest.raises(ClaimFailed, match="'not' must carry no label information"):
        check_bank_balance(ok.assign(true_rate_plain=0.6), seed=4)


def test_check_depths_covered():
    check_depths_covered({0, 1, 2, 3}, 3, seed=0)
    with pytest.raises(ClaimFailed, match=r"seed 2: .* every depth 0..3, got \[0, 1, 2\]"):
        check_depths_covered({0, 1, 2}, 3, seed=2)


def test_check_parsed_exact_allows_abstentions_not_wrong_answers():
    table = pd.DataFrame(
        {"qid": [0, 1, 2], "parsed": [True, False, True], "correct": [True, False, True]}
    )
    check_parsed_exact(table, seed=0)
    with pytest.raises(ClaimFailed, match="seed 1: .* 1 wrong, first qid 2"):
        check_parsed_exact(table.assign(correct=[True, False, False]), seed=1)


def test_check_synonyms_hit_depths_in_both_directions():
    syn = pd.DataFrame({"depth": [0, 2], "n_unparsed": [3, 0]})
    per_depth = pd.DataFrame({"depth": [0, 1, 2], "coverage": [0.9, 1.0, 1.0]})
    check_synonyms_hit_depths(per_depth, syn, seed=0)
    with pytest.raises(ClaimFailed, match="seed 0, depth 1: coverage 0.9000"):
        check_synonyms_hit_depths(per_depth.assign(coverage=[0.9, 0.9, 1.0]), syn, seed=0)
    with pytest.raises(ClaimFailed, match="seed 0, depth 0: coverage 1.0000"):
        check_synonyms_hit_depths(per_depth.assign(coverage=1.0), syn, seed=0)


def test_check_prover_tracks_flips_and_check_ties():
    check_prover_tracks_flips({"n_flipped": 5, "prover_tracked_after": 5}, seed=0)
    with pytest.raises(ClaimFailed, match="seed 3: the prover must track every flipped"):
        check_prover_tracks_flips({"n_flipped": 5, "prover_tracked_after": 4}, seed=3)
    a, b = [1.0, 0.5], [0.8, 0.9]
    # pi * 1 + (1 - pi) * 0.5 = pi * 0.8 + (1 - pi) * 0.9  <=>  pi = 2/3
    check_ties([{"depths": [0, 1], "pi": 2 / 3}, {"depths": [0, 1], "pi": None}], a, b, seed=0)
    with pytest.raises(ClaimFailed, match="seed 0: the tie over depths 0,1"):
        check_ties([{"depths": [0, 1], "pi": 0.5}], a, b, seed=0)
