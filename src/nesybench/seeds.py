"""The one seed derivation of nesybench: a root seed from params.yaml and a path of names.

Every random choice in the project comes from a generator made here::

    rng = child_rng(params["seed"], "support", k)          # one named stream
    ss = child_seed(params["seed"], "incidence", task, i)   # a SeedSequence, e.g. for a model init

Each element of the path is turned into a 32-bit word by SHA-256 of its text
(``str(part)``; stable across runs, platforms and Python versions, unlike
``hash``) and the words become the ``spawn_key`` of a ``numpy.random.SeedSequence``
whose entropy is the root seed.  Streams with different paths are independent,
and adding a new stream never shifts the draws of an existing one.  Integers and
their decimal strings name the same stream (``3`` and ``"3"``), by design: a
path element is a name.
"""

from __future__ import annotations

import functools
import hashlib
import numbers

import numpy as np

from .errors import InputError

__all__ = ["child_rng", "child_seed", "path_word"]

MAX_SEED = 2**63 - 1


def path_word(part: object) -> int:
    """The 32-bit word a path element contributes: the first 4 bytes of SHA-256 of ``str(part)``.

    >>> path_word("support")
    134448801
    """
    if isinstance(part, (bool, np.bool_)):
        part = int(part)
    return _text_word(str(part))


@functools.lru_cache(maxsize=65536)
def _text_word(text: str) -> int:
    # memoised: generators derive thousands of streams whose paths share most of their names
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little")


def _check_seed(seed: object) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise InputError(f"seed must be an integer in [0, 2^63), got {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise InputError(f"seed must be an integer in [0, 2^63), got {seed}")
    return seed


def child_seed(seed: int, *path: object) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the stream named ``path`` under the root ``seed``.

    >>> int(child_seed(0, "a").generate_state(1)[0]) == int(child_seed(0, "a").generate_state(1)[0])
    True
    """
    return np.random.SeedSequence(
        entropy=_check_seed(seed), spawn_key=tuple(path_word(p) for p in path)
    )


def child_rng(seed: int, *path: object) -> np.random.Generator:
    """A ``numpy.random.Generator`` for the stream named ``path`` under the root ``seed``.

    >>> draw = lambda: int(child_rng(7, "prontoqa", 3).integers(0, 10**6))
    >>> draw() == draw()
    True
    >>> float(child_rng(7, "a").random()) != float(child_rng(7, "b").random())
    True
    """
    return np.random.default_rng(child_seed(seed, *path))
