"""Concept states: tuples of values, their one text form, and the list of all of them.

A task has k concepts; concept j takes the values ``0 .. d_j - 1`` (its domain
size ``d_j >= 2``).  A state is a k-tuple of values.  Its text form:

* binary tasks (every ``d_j = 2``): a k-character bit string, leftmost
  character = concept 1 (``(1, 0) -> "10"``);
* any other task: the values joined by ``:`` (``(3, 5) -> "3:5"``).

:func:`parse_state` reads both forms (a binary state may also be written
``1:0``) and accepts ASCII digits only.  Functions take the domains either as a
sequence ``(d_1, ..., d_k)`` or, for binary tasks, as the integer ``k``.
:func:`all_states` lists the states in lexicographic order (concept 1 most
significant), so the row of a state is its mixed-radix number
(:func:`state_index`).

>>> state_str((1, 0)), state_str((3, 5), (10, 10))
('10', '3:5')
>>> parse_state("3:5", (10, 10)), parse_state("10", 2)
((3, 5), (1, 0))
>>> all_states((2, 3)).tolist()
[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import InputError

__all__ = [
    "Domains",
    "as_domains",
    "is_binary",
    "n_states",
    "all_states",
    "state_str",
    "state_text",
    "parse_state",
    "parse_states",
    "state_index",
    "states_index",
    "MAX_LISTED_STATES",
    "plain_count",
]

Domains = tuple[int, ...]
MAX_LISTED_STATES = 2**24  # all_states of 2^24 rows x k integers is the most ever built
MAX_DOMAIN = 2**31 - 1
_ASCII_DIGITS = frozenset("0123456789")


def plain_count(n: int) -> str:
    """A count as a person reads it: ``4,096``, or ``2^1000`` / ``about 10^40`` when huge.

    >>> plain_count(4096), plain_count(2**1000), plain_count(10**40 + 7)
    ('4,096', '2^1000', 'about 10^40.0')
    """
    if n < 10**12:
        return f"{n:,}"
    if n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"about 10^{math.log10(n):.1f}"


def as_domains(domains: int | Iterable[int], *, field_name: str = "domains") -> Domains:
    """``k`` (binary) or ``(d_1, ..., d_k)`` as a tuple of ints, each >= 2; InputError otherwise.

    >>> as_domains(3), as_domains([10, 10])
    ((2, 2, 2), (10, 10))
    """
    if isinstance(domains, (numbers.Integral, np.integer)) and not isinstance(domains, bool):
        k = int(domains)
        if k < 1:
            raise InputError(f"k must be an integer >= 1, got {k}")
        return (2,) * k
    if isinstance(domains, (str, bytes)) or not isinstance(domains, Iterable):
        raise InputError(
            f"{field_name}: expected a list of domain sizes like [10, 10], got {domains!r}"
        )
    out = []
    for j, d in enumerate(domains, start=1):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Integral, np.integer)):
            raise InputError(f"{field_name}: domain {j} must be an integer >= 2, got {d!r}")
        if not 2 <= int(d) <= MAX_DOMAIN:
            raise InputError(
                f"{field_name}: domain {j} must be an integer in [2, {MAX_DOMAIN}], got {int(d)}"
            )
        out.append(int(d))
    if not out:
        raise InputError(f"{field_name}: expected at least one concept, got an empty list")
    return tuple(out)


def is_binary(domains: int | Iterable[int]) -> bool:
    """Whether every concept has two values (the bit-string form applies)."""
    return all(d == 2 for d in as_domains(domains))


def n_states(domains: int | Iterable[int]) -> int:
    """``d_1 * ... * d_k``, the number of concept states."""
    return math.prod(as_domains(domains))


def all_states(domains: int | Iterable[int]) -> np.ndarray:
    """Every state as a ``(prod d_j, k)`` int64 array, lexicographic, concept 1 most significant.

    >>> all_states(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    dims = as_domains(domains)
    total = math.prod(dims)
    if total > MAX_LISTED_STATES:
        what = f"2^{len(dims)}" if all(d == 2 for d in dims) else plain_count(total)
        raise InputError(
            f"k: listing all {what} states needs at most {MAX_LISTED_STATES:,} states "
            f"(k <= 24 for binary concepts), got k={len(dims)}"
        )
    index = np.arange(total, dtype=np.int64)
    out = np.empty((total, len(dims)), dtype=np.int64)
    for j in range(len(dims) - 1, -1, -1):
        out[:, j] = index % dims[j]
        index //= dims[j]
    return out


def state_str(values: Iterable[int], domains: int | Iterable[int] | None = None) -> str:
    """The text form of a state (see the module docstring).

    Without ``domains`` the state is taken as binary when every value is 0 or 1.
    """
    values = [int(v) for v in values]
    binary = is_binary(domains) if domains is not None else all(v in (0, 1) for v in values)
    return state_text(values, binary)


def state_text(values: Sequence[int], binary: bool) -> str:
    """:func:`state_str` with the form already decided (for many states of one task)."""
    if binary:
        return "".join("1" if v else "0" for v in values)
    return ":".join(str(v) for v in values)


def _expected(dims: Domains) -> str:
    if all(d == 2 for d in dims):
        return f"a {len(dims)}-character bit string of 0/1 (leftmost = concept 1)"
    ranges = ", ".join(f"0..{d - 1}" for d in dims[:4]) + (", ..." if len(dims) > 4 else "")
    return f"{len(dims)} values joined by ':' (ranges {ranges})"


def parse_state(
    text: str, domains: int | Iterable[int], *, field_name: str = "state"
) -> tuple[int, ...]:
    """A state's text form -> its tuple of values; InputError naming the fault otherwise.

    >>> parse_state("0:1", 2)
    (0, 1)
    """
    return _parse_state(text, as_domains(domains), field_name)


def _parse_state(text: str, dims: Domains, field_name: str) -> tuple[int, ...]:
    k = len(dims)
    if not isinstance(text, str):
        raise InputError(f"{field_name}: expected {_expected(dims)}, got {text!r}")
    stripped = text.strip()
    if ":" in stripped or (k == 1 and dims[0] != 2):
        parts = [p.strip() for p in stripped.split(":")]
    elif all(d == 2 for d in dims):
        parts = list(stripped)
        if len(parts) != k or any(ch not in "01" for ch in parts):
            raise InputError(f"{field_name}: expected {_expected(dims)}, got {text!r}")
    else:
        raise InputError(f"{field_name}: expected {_expected(dims)}, got {text!r}")
    if len(parts) != k:
        raise InputError(
            f"{field_name}: state {text!r} has {len(parts)} values, expected {k} "
            f"(one per concept, joined by ':')"
        )
    values = []
    for j, (part, d) in enumerate(zip(parts, dims), start=1):
        if not part or not set(part) <= _ASCII_DIGITS or len(part) > 12:
            raise InputError(
                f"{field_name}: state {text!r}: value {part!r} of concept {j} is not a "
                f"non-negative integer written with the digits 0-9"
            )
        value = int(part)
        if value >= d:
            raise InputError(
                f"{field_name}: state {text!r}: value {value} of concept {j} is out of range "
                f"[0, {d - 1}]"
            )
        values.append(value)
    return tuple(values)


def parse_states(
    texts: Sequence[str], domains: int | Iterable[int], *, field_name: str = "support"
) -> list[str]:
    """Validate a list of states (form, range, no duplicates); returns their canonical text forms.

    >>> parse_states(["1:0", "11"], 2)
    ['10', '11']
    """
    dims = as_domains(domains)
    binary = all(d == 2 for d in dims)
    seen: dict[str, str] = {}
    out = []
    for text in texts:
        canonical = state_text(_parse_state(text, dims, field_name), binary)
        if canonical in seen:
            first = seen[canonical]
            same = "" if first == text else f" (the same state as {first!r})"
            raise InputError(f"{field_name}: duplicate state {text!r}{same}")
        seen[canonical] = text
        out.append(canonical)
    return out


def state_index(values: Sequence[int], domains: int | Iterable[int]) -> int:
    """Row of a state in :func:`all_states` (its mixed-radix number).

    >>> state_index((1, 2), (2, 3))
    5
    """
    index = 0
    for v, d in zip(values, as_domains(domains)):
        index = index * d + int(v)
    return index


def states_index(states: np.ndarray, domains: int | Iterable[int]) -> np.ndarray:
    """:func:`state_index` of every row of an ``(n, k)`` array."""
    dims = as_domains(domains)
    states = np.asarray(states, dtype=np.int64).reshape(-1, len(dims))
    index = np.zeros(len(states), dtype=np.int64)
    for j, d in enumerate(dims):
        index = index * d + states[:, j]
    return index
