"""The seed blocks a stage job reads: its own block's seeds, and a block table over the sweep.

Both pipelines of the instrument (the concept nets, :mod:`.pipeline`, and the digits,
:mod:`.digits.stages`) train, score and calibrate per block of ``seed_block`` seeds
(:mod:`.artifacts`); their aggregates read the blocks covering seeds ``0 .. n_seeds - 1``.
"""

from __future__ import annotations

import pandas as pd

from .artifacts import block_seeds, n_blocks
from .summaries import seeds_of

__all__ = ["gather", "job_seeds"]


def job_seeds(ctx) -> list[int]:
    """The seeds of the job's block (its ``block`` wildcard)."""
    return block_seeds(ctx.wildcards["block"], ctx.params["seed_block"])


def gather(ctx, name: str, stage: str, **wildcards) -> pd.DataFrame:
    """A block table over the blocks covering the sweep, restricted to seeds 0..n_seeds-1."""
    frames = [
        ctx.read_table(name, stage=stage, block=b, **wildcards) for b in range(n_blocks(ctx.params))
    ]
    return seeds_of(frames, ctx.seeds)
