"""Report blocks of the sensitivity analysis: the knobs and what each claim depends on."""

from __future__ import annotations

import pandas as pd

from .blocks import Block, Heading, Paragraph, Table

__all__ = ["sensitivity_blocks", "counts_of", "sensitivity_display"]


def counts_of(holds: int, n: int) -> str:
    """``3 of 5``: a count of seeds, printed as a count."""
    return f"{int(holds)} of {int(n)}"


def knobs_display(knobs: pd.DataFrame) -> pd.DataFrame:
    return knobs.rename(
        columns={
            "provenance": "default's provenance",
            "source": "what the chapter says / why chosen",
            "levels": "levels measured",
            "changed": "default changed",
        }
    )[
        [
            "knob",
            "default",
            "default's provenance",
            "what the chapter says / why chosen",
            "levels measured",
            "default changed",
        ]
    ]


def sensitivity_display(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim and setting; the statement once per claim, counts as counts."""
    first = ~table["claim"].duplicated()
    return pd.DataFrame(
        {
            "claim": table["statement"].where(first, ""),
            "setting": table["setting"],
            "default's provenance": table["provenance"],
            "holds on": [counts_of(k, n) for k, n in zip(table["holds_on"], table["n_seeds"])],
            "rate": table["rate"],
            "Wilson 95% lo": table["rate_lo"],
            "Wilson 95% hi": table["rate_hi"],
            "change vs default": table["change"].where(table["setting"] != "default"),
        }
    )


def sensitivity_blocks(loader, stage: str, *, what: str, note: str = "") -> list[Block]:
    """The knobs with their provenance, then every claim's rate at every measured level."""
    knobs = loader.table(stage, "knobs")
    table = loader.table(stage, "sensitivity")
    n = int(table["n_seeds"].max()) if len(table) else 0
    settings = [s for s in dict.fromkeys(table["setting"]) if s != "default"]
    measured = (
        "The levels measured besides the defaults: " + ", ".join(f"`{s}`" for s in settings) + "."
        if settings
        else "No level besides the defaults is measured in this run (the full profile, "
        "`workflow/profiles/full`, measures more)."
    )
    changed = knobs[knobs["changed"] != ""]
    defaults = (
        " Defaults changed in this version: "
        + "; ".join(f"`{r.knob}` {r.changed} to {r.default}" for r in changed.itertuples())
        + "."
        if len(changed)
        else ""
    )
    return [
        Heading(f"What the {what} claims depend on", level=3),
        Paragraph(
            "Every open setup choice behind these claims is a declared knob (`knobs` in "
            "params.yaml) with the provenance of its default: *stated by the chapter* or "
            "*chosen here*. Each claim is measured at every declared level, one knob at a time "
            f"around the defaults, on the same seeds as the default run (seeds 0..{n - 1}); the "
            "default row is the default run (asserted equal, seed by seed, where the run's own "
            "summary is at hand), and a level that moves no per-seed number stops the run (the "
            f"knob would not reach the model). {measured}{defaults}"
        ),
        Table("Open setup choices: each default and where it comes from", knobs_display(knobs)),
        Table(
            "What each claim depends on: its rate over seeds at each measured level",
            sensitivity_display(table),
            params={"n_seeds": n},
            note=(
                "holds on = seeds on which the claim holds; rate with its 95% Wilson interval; "
                "change = rate minus the default's. " + note
            ).strip(),
        ),
    ]
