"""Each gadget: the spec's exact numbers, its pinning check, and its failure check firing on
tampering."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nesybench.axes.gadgets import (
    proof_width,
    query_joins,
    scale,
    semantics,
    soundness,
    termination,
    trust,
)
from nesybench.errors import ClaimFailed


def test_soundness_spec_values():
    r = soundness.run()
    assert (r.true_positives, r.n_truth, r.n_pred) == (14, 14, 36)
    assert r.recall == 1.0 and round(r.precision, 3) == 0.389
    assert len(r.fabricated) == 22 and ("Professor", "Student") in r.fabricated
    soundness.check(r)
    with pytest.raises(ClaimFailed, match="recall"):
        soundness.check(replace(r, recall=0.9))
    with pytest.raises(ClaimFailed, match="fabricate"):
        soundness.check(replace(r, precision=1.0, fabricated=()))


def test_soundness_subsumers_are_the_reflexive_transitive_closure():
    s = soundness.subsumers()
    assert s["PhDStudent"] == {"PhDStudent", "Student", "Researcher", "Person", "Thing"}
    assert s["Organization"] == {"Organization", "Thing"}


def test_termination_spec_values():
    r = termination.run((10, 20, 40))
    assert [c.atoms for c in r["regress"]] == [21, 41, 81]
    assert not any(c.saturated for c in r["regress"])
    assert [(c.atoms, c.firings, c.saturated) for c in r["control"]] == [(10, 3, True)] * 3
    termination.check(r)
    with pytest.raises(ClaimFailed, match="control must saturate"):
        termination.check({**r, "control": r["regress"]})
    with pytest.raises(ClaimFailed, match="must not saturate"):
        termination.check({**r, "regress": r["control"]})


def test_termination_size_is_one_plus_two_per_firing():
    for budget in (1, 5, 17):
        run = termination.restricted_chase(*termination.regress_program(), budget=budget)
        assert run.atoms == 1 + 2 * budget and run.firings == budget


def test_proof_width_spec_values():
    r = proof_width.run(10)
    assert (r.horn_leaves, r.disjunctive_leaves) == (1, 1024)
    assert r.horn_depth == r.horn_chainer_depth == 20 and r.disjunctive_depths == (20,)
    proof_width.check(r)
    with pytest.raises(ClaimFailed, match="2\\^k"):
        proof_width.check(replace(r, disjunctive_leaves=1000))
    with pytest.raises(ClaimFailed, match="Horn depth"):
        proof_width.check(replace(r, disjunctive_depths=(19, 20)))


@pytest.mark.parametrize("k", [1, 3, 6])
def test_proof_width_leaves_double_per_rung(k):
    r = proof_width.run(k)
    assert r.disjunctive_leaves == 2**k and r.horn_depth == 2 * k


def test_query_joins_spec_values():
    rows = query_joins.run(range(2, 8))
    assert [r.witnesses for r in rows] == [6, 6, 18, 30, 66, 126]
    assert [r.probes for r in rows] == [42, 114, 258, 546, 1122, 2274]
    assert all(r.answer for r in rows)
    ratios = [round(b.probes / a.probes, 2) for a, b in zip(rows, rows[1:])]
    assert ratios == [2.71, 2.26, 2.12, 2.05, 2.03]
    query_joins.check(rows)
    with pytest.raises(ClaimFailed, match="tr\\(M\\^k\\)"):
        query_joins.check([replace(rows[0], witnesses=7)] + rows[1:])


def test_semantics_spec_values():
    r = semantics.run(20, seed=15)
    assert (r.n_monotone, r.n_candidates) == (20, 20)
    assert r.independent_before == ("alice",) and r.independent_after == ()
    semantics.check(r)
    with pytest.raises(ClaimFailed, match="retract"):
        semantics.check(replace(r, independent_after=("alice",)))
    with pytest.raises(ClaimFailed, match="monotone"):
        semantics.check(replace(r, n_monotone=19))


def test_semantics_candidates_are_new_facts():
    from nesybench.axes.gadgets import academic

    cands = semantics.candidate_additions(20, seed=1)
    assert len(set(cands)) == 20 and not set(cands) & set(academic.facts())


def test_trust_spec_values():
    rows = trust.run()
    assert [(r.extractor, r.task_accuracy, r.concept_accuracy) for r in rows] == [
        ("faithful", 1.0, 1.0),
        ("swapped", 1.0, 0.0),
    ]
    trust.check(rows)
    with pytest.raises(ClaimFailed, match="concept accuracy"):
        trust.check([rows[0], replace(rows[1], concept_accuracy=1.0)])


def test_scale_spec_values():
    rows = scale.run((8, 16, 32))
    assert [(r.closure, r.waves_naive, r.waves_semi) for r in rows] == [
        (44, 8, 8),
        (152, 16, 16),
        (560, 32, 32),
    ]
    assert [(r.probes_naive, r.probes_semi) for r in rows] == [
        (1776, 340),
        (24480, 2344),
        (368192, 17488),
    ]
    assert [round(r.ratio, 1) for r in rows] == [5.2, 10.4, 21.1]
    assert all(r.oracle_equal for r in rows)
    scale.check(rows)
    with pytest.raises(ClaimFailed, match="waves"):
        scale.check([replace(rows[0], waves_semi=7)] + rows[1:])
    with pytest.raises(ClaimFailed, match="grow"):
        scale.check(rows[::-1])
