"""Named child random generators: one seed in params.yaml, one stream per purpose."""

from __future__ import annotations

import numpy as np


def child_rng(seed: int, name: str) -> np.random.Generator:
    """A generator seeded by ``(seed, name)``: streams with different names are independent.

    The name's UTF-8 bytes enter the ``SeedSequence`` entropy, so adding a new
    stream never shifts the draws of an existing one.
    """
    return np.random.default_rng(np.random.SeedSequence([int(seed), *name.encode("utf-8")]))
