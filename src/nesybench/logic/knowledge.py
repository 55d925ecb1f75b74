"""Concept states and the knowledge K that labels them.

A concept state is a k-bit vector; its text form is a k-character bit string
whose leftmost character is x1 (``(1, 0) -> "10"``).  ``all_states(k)`` lists
the 2^k states in lexicographic order of that string.

The knowledge is either k-bit parity (``"xor"``: label = g_1 + ... + g_k mod 2)
or a CNF over x1..xk (label 1 when the state satisfies the formula).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import UserError
from .cnf import CNF, evaluate, parse_cnf

__all__ = ["Knowledge", "make_knowledge", "all_states", "state_str", "parse_state", "parse_states"]

XOR = "xor"
MAX_LISTED_K = 24  # all_states(24) is already 2^24 x 24 integers


def all_states(k: int) -> np.ndarray:
    """The 2^k concept states as a (2^k, k) int array, lexicographic, x1 most significant.

    >>> all_states(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    if k < 1:
        raise UserError(f"k: must be >= 1, got {k}")
    if k > MAX_LISTED_K:
        raise UserError(f"k: listing all 2^k states needs k <= {MAX_LISTED_K}, got {k}")
    index = np.arange(2**k, dtype=np.int64)
    shifts = np.arange(k - 1, -1, -1, dtype=np.int64)
    return ((index[:, None] >> shifts[None, :]) & 1).astype(np.int64)


def state_str(state: Iterable[int]) -> str:
    """``(1, 0) -> "10"`` (leftmost character is x1)."""
    return "".join("1" if int(b) else "0" for b in state)


def parse_state(text: str, k: int, *, field_name: str = "state") -> tuple[int, ...]:
    """``"10" -> (1, 0)``; a UserError unless ``text`` is a k-character 0/1 string."""
    if not isinstance(text, str) or len(text) != k or any(ch not in "01" for ch in text):
        raise UserError(
            f"{field_name}: expected a {k}-character bit string of 0/1 (leftmost = x1), got "
            f"{text!r}"
        )
    return tuple(int(ch) for ch in text)


def parse_states(texts: Sequence[str], k: int, *, field_name: str = "support") -> list[str]:
    """Validate a list of bit strings: right length, only 0/1, no duplicates. Returns them
    unchanged."""
    seen: set[str] = set()
    for text in texts:
        parse_state(text, k, field_name=field_name)
        if text in seen:
            raise UserError(f"{field_name}: duplicate state {text!r}")
        seen.add(text)
    return list(texts)


def state_index(text: str) -> int:
    """Row of ``text`` in :func:`all_states` (the bit string read as a binary number)."""
    return int(text, 2)


@dataclass(frozen=True)
class Knowledge:
    """The label map K: {0,1}^k -> {0,1}, from ``spec`` ("xor" or a CNF string) and ``k``."""

    spec: str
    k: int
    cnf: CNF | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.k, (int, np.integer)) or isinstance(self.k, bool) or self.k < 1:
            raise UserError(f"k: must be an integer >= 1, got {self.k!r}")
        object.__setattr__(self, "k", int(self.k))
        if not isinstance(self.spec, str):
            raise UserError(f"knowledge: expected 'xor' or a CNF string, got {self.spec!r}")
        if self.spec.strip().lower() != XOR:
            object.__setattr__(
                self, "cnf", parse_cnf(self.spec, n_vars=self.k, field_name="knowledge")
            )

    @property
    def is_parity(self) -> bool:
        return self.cnf is None

    def labels(self, states: np.ndarray) -> np.ndarray:
        """(n, k) 0/1 states -> (n,) int labels K(g)."""
        states = np.asarray(states)
        if states.ndim != 2 or states.shape[1] != self.k:
            raise ValueError(f"states must have shape (n, {self.k}), got {states.shape}")
        if self.cnf is None:
            return (states.sum(axis=1) % 2).astype(np.int64)
        return evaluate(self.cnf, states).astype(np.int64)

    def describe(self) -> str:
        return f"{self.k}-bit parity" if self.is_parity else self.cnf.to_string()


def make_knowledge(spec: str, k: int) -> Knowledge:
    """``"xor"`` or a CNF string over x1..xk; UserError on a bad formula or k < 1."""
    return Knowledge(spec, k)
