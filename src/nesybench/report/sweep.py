"""Report blocks of a seed sweep: the distribution over seeds and the claims' rates."""

from __future__ import annotations

import pandas as pd

from .blocks import Block, Paragraph, Table

CLAIM_COLUMNS = [
    "statement",
    "holds_on",
    "n_seeds",
    "rate",
    "rate_lo",
    "rate_hi",
    "min_rate",
    "enforced",
    "verdict",
]


INTERVAL_NAMES = {"lo": "mean lo (95%)", "hi": "mean hi (95%)"}
RATE_NAMES = {"rate_lo": "Wilson 95% lo", "rate_hi": "Wilson 95% hi"}


def default_intro(what: str, n_seeds: int) -> str:
    """The paragraph that says how a sweep's numbers are computed and its claims judged."""
    return (
        f"Every number of {what} depends on a seed, so it is computed on {n_seeds} seeds and "
        "reported as a distribution: the mean, the standard deviation and a 95% percentile-"
        "bootstrap interval of the mean over seeds. Each of the chapter's directional claims is "
        "checked on every seed; the rate carries a 95% Wilson interval. A claim marked "
        "*enforced* fails the run below its threshold; the others are reported as they come out."
    )


def sweep_blocks(
    dist: pd.DataFrame,
    claims: pd.DataFrame,
    *,
    n_seeds: int,
    intro: str,
    label: str | None = None,
) -> list[Block]:
    """The distribution over seeds and the claim rates, as two tables with the findings spelled.

    ``dist`` and ``claims`` are :func:`nesybench.sweep.distribution_table` and
    :func:`nesybench.sweep.claim_table`; ``intro`` opens the paragraph (see
    :func:`default_intro`), and a claim below its declared rate that is not enforced is appended
    to it as a finding, with the fraction of seeds on which it holds.  ``label`` prefixes the two
    table titles when an instrument shows more than one sweep.
    """
    findings = claims[~claims["verdict"].str.startswith(("holds", "FAILS"))]
    text = intro
    if len(findings):
        listed = "; ".join(
            f"'{r.statement}' holds on {r.holds_on} of {r.n_seeds} seeds"
            for r in findings.itertuples(index=False)
        )
        text += f" **Findings below the chapter's claims:** {listed}."
    if label:
        titles = (f"{label}: distribution over {n_seeds} seeds", f"{label}: the chapter's claims")
    else:
        titles = (f"Distribution over {n_seeds} seeds", "The chapter's directional claims")
    return [
        Paragraph(text),
        Table(
            titles[0],
            dist[["label", "mean", "sd", "lo", "hi", "min", "max", "n_seeds"]].rename(
                columns=INTERVAL_NAMES
            ),
            params={"n_seeds": n_seeds},
            note="mean lo / mean hi: the 95% percentile-bootstrap interval of the mean over "
            "seeds (seeds resampled, the same resamples for every row); min / max: the "
            "extreme seeds.",
        ),
        Table(
            f"{titles[1]}, seed by seed",
            claims[CLAIM_COLUMNS].rename(columns=RATE_NAMES),
            params={"n_seeds": n_seeds},
            note="rate: the share of seeds on which the claim holds, with its 95% Wilson interval.",
        ),
    ]
