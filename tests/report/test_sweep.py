"""Report blocks of a seed sweep: the two tables and the findings spelled out."""

from __future__ import annotations

import pandas as pd

from nesybench.report.blocks import Paragraph, Table
from nesybench.report.sweep import default_intro, sweep_blocks
from nesybench.sweep import Metric, SeedClaim, claim_table, distribution_table

SUMMARY = pd.DataFrame({"seed": [0, 1, 2, 3], "x": [0.1, 0.2, 0.3, 0.4], "up": [1, 1, 1, 0]})
SUMMARY["down"] = SUMMARY["x"] < 0.15


def _blocks(enforce_down: bool, label=None):
    dist = distribution_table(SUMMARY, [Metric("x", "the x")])
    claims = claim_table(
        SUMMARY,
        [SeedClaim("up", "x goes up"), SeedClaim("down", "x goes down")],
        {
            "up": {"min_rate": 0.5, "enforce": True},
            "down": {"min_rate": 0.8, "enforce": enforce_down},
        },
    )
    intro = default_intro("this toy", 4)
    return sweep_blocks(dist, claims, n_seeds=4, intro=intro, label=label)


def test_sweep_blocks_spell_out_findings_below_the_claims():
    text, dist, claims = _blocks(False)
    assert isinstance(text, Paragraph) and isinstance(dist, Table) and isinstance(claims, Table)
    assert "computed on 4 seeds" in text.text
    assert (
        "**Findings below the chapter's claims:** 'x goes down' holds on 1 of 4 seeds" in text.text
    )
    assert "x goes up" not in text.text  # a claim that holds is not a finding
    assert dist.title == "Distribution over 4 seeds" and dist.df["label"].tolist() == ["the x"]
    assert claims.df["verdict"].tolist() == [
        "holds (asserted)",
        "finding: below the chapter's claim",
    ]


def test_sweep_blocks_without_findings_say_nothing_more():
    text, _, claims = _blocks(True)  # an enforced claim below its rate is a failure, not a finding
    assert "Findings" not in text.text and claims.df["verdict"].tolist()[1] == "FAILS"


def test_a_label_prefixes_both_titles_when_an_instrument_shows_several_sweeps():
    _, dist, claims = _blocks(False, label="toy A")
    assert dist.title == "toy A: distribution over 4 seeds"
    assert claims.title == "toy A: the chapter's claims, seed by seed"
