"""Fictional vocabulary and seeded streams shared by the two nli corpora.

Made-up concept nouns (PrOntoQA's design choice): no pretrained model knows
that every wumpus is a jompus, so a right answer must come from the context.
"""

from __future__ import annotations

import zlib

import numpy as np

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


def child_rng(seed: int, *path: str | int) -> np.random.Generator:
    """A generator for one named sub-stream: ``child_rng(7, "prontoqa", 3, 12)``.

    Names are hashed with CRC-32 (stable across runs and platforms, unlike
    ``hash``), so adding a stream never shifts another one.
    """
    words = [int(seed)]
    for part in path:
        words.append(part if isinstance(part, int) else zlib.crc32(str(part).encode("utf-8")))
    return np.random.default_rng(np.random.SeedSequence(words))
