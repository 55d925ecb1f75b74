"""Fictional vocabulary shared by the two nli corpora.

Made-up concept nouns (PrOntoQA's design choice): no pretrained model knows
that every wumpus is a jompus, so a right answer must come from the context.
Every random draw of the corpora comes from :func:`nesybench.seeds.child_rng`.
"""

from __future__ import annotations

CONCEPTS = (
    "wumpus",
    "yumpus",
    "zumpus",
    "dumpus",
    "rompus",
    "numpus",
    "tumpus",
    "vumpus",
    "impus",
    "jompus",
    "gorpus",
    "shumpus",
    "lempus",
    "sterpus",
    "grimpus",
    "lorpus",
    "brimpus",
)
NAMES = ("Sam", "Max", "Alex", "Polly", "Rex", "Sally", "Stella", "Wren", "Fae")
