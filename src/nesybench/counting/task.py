"""A counting task: the knowledge K, the observed support and the supervised states.

:class:`CountingTask` is what every count function of :mod:`nesybench.counting`
takes.  The support and the supervised states are kept as canonical state
strings (see :mod:`nesybench.logic.states`), sorted in the order of
``all_states``; ``support=None`` means every state is observed.

:func:`support_states` draws the seeded support the pipeline and
``nesybench count --support-frac`` use: the first ``max(1, round(F * |G|))``
states of a permutation seeded by (seed, the domains), so smaller supports are
nested in larger ones.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..logic.knowledge import KNOWLEDGE_TYPES, make_knowledge, read_knowledge_table
from ..logic.states import (
    MAX_LISTED_STATES,
    all_states,
    as_domains,
    is_binary,
    parse_states,
    plain_count,
    state_str,
    state_text,
    states_index,
)
from ..seeds import child_rng

__all__ = ["CountingTask", "support_states", "make_task"]


def _state_rows(states: Sequence[str], dims) -> np.ndarray:
    """Canonical state strings -> their ``(n, k)`` values (one split per string)."""
    if not states:
        return np.zeros((0, len(dims)), dtype=np.int64)
    if all(d == 2 for d in dims) and ":" not in states[0]:
        return np.frombuffer("".join(states).encode(), dtype=np.uint8).reshape(
            len(states), len(dims)
        ).astype(np.int64) - ord("0")
    return np.array([s.split(":") for s in states], dtype=np.int64).reshape(-1, len(dims))


def _sorted_states(states: Sequence[str], dims) -> tuple[tuple[str, ...], np.ndarray]:
    rows = _state_rows(states, dims)
    order = np.argsort(states_index(rows, dims), kind="stable")
    return tuple(states[i] for i in order.tolist()), rows[order]


@dataclass(frozen=True, eq=False)
class CountingTask:
    """What a count needs: ``knowledge`` (with its ``domains``), the observed ``support``
    (state strings; None = every state) and the ``supervised`` observed states.

    >>> from nesybench.logic import make_knowledge
    >>> task = CountingTask(make_knowledge("sum", (10, 10)), ["3:5", "0:0"], supervised=["0:0"])
    >>> task.support, task.supervised, task.n_states
    (('0:0', '3:5'), ('0:0',), 100)
    """

    knowledge: object
    support: tuple[str, ...] | None = None
    supervised: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.knowledge, KNOWLEDGE_TYPES):
            raise InputError(
                "knowledge must be a Knowledge, SumKnowledge or TableKnowledge (see "
                f"nesybench.logic.make_knowledge), got {type(self.knowledge).__name__}"
            )
        dims = self.domains
        support = self.support
        if support is not None:
            if isinstance(support, str):
                raise InputError(f"support must be a list of states, got the string {support!r}")
            support, rows = _sorted_states(
                parse_states(list(support), dims, field_name="support"), dims
            )
            if not support:
                raise InputError("support must contain at least one state")
            object.__setattr__(self, "_rows", rows)
        if isinstance(self.supervised, str):
            raise InputError(
                f"supervised must be a list of states, got the string {self.supervised!r}"
            )
        supervised = parse_states(list(self.supervised), dims, field_name="supervised")
        if support is not None:
            observed = set(support)
            for g in supervised:
                if g not in observed:
                    raise InputError(
                        f"supervised: state {g!r} is not in the support (supervision applies "
                        "to observed states)"
                    )
        object.__setattr__(self, "support", support)
        object.__setattr__(self, "supervised", _sorted_states(supervised, dims)[0])

    @property
    def domains(self) -> tuple[int, ...]:
        return tuple(self.knowledge.domains)

    @property
    def k(self) -> int:
        return len(self.domains)

    @property
    def n_states(self) -> int:
        return math.prod(self.domains)

    @property
    def is_binary(self) -> bool:
        return is_binary(self.domains)

    @property
    def n_observed(self) -> int:
        return self.n_states if self.support is None else len(self.support)

    def observed_states(self) -> tuple[str, ...]:
        """The support as state strings (every state listed when ``support`` is None)."""
        if self.support is not None:
            return self.support
        return tuple(state_str(row, self.domains) for row in all_states(self.domains))

    def observed_rows(self) -> np.ndarray:
        """The observed states as an ``(n, k)`` int array, in ``all_states`` order."""
        if self.support is None:
            return all_states(self.domains)
        return self._rows.copy()

    def pinned_mask(self) -> np.ndarray:
        """Which observed rows are supervised."""
        if not self.supervised:  # without listing every state's string
            return np.zeros(self.n_observed, dtype=bool)
        pinned = set(self.supervised)
        return np.array([s in pinned for s in self.observed_states()], dtype=bool)

    def with_supervised(self, supervised: Iterable[str]) -> CountingTask:
        """The same task with another set of supervised states."""
        return CountingTask(self.knowledge, self.support, tuple(supervised))

    def describe(self) -> str:
        dims = self.domains
        shape = f"k = {len(dims)}" if is_binary(dims) else f"domains {list(dims)}"
        return f"{self.knowledge.describe()}   {shape}, {plain_count(self.n_states)} states"


def support_states(
    domains, support_frac: float, *, seed: int, stream: tuple = ()
) -> tuple[str, ...]:
    """The observed support: the first max(1, round(F * |G|)) states of a seeded permutation.

    ``domains`` is the binary ``k`` or the domain sizes; the permutation is seeded
    by ``(seed, "support", k, *stream)`` for binary tasks and ``(seed, "support", "10x10",
    *stream)`` otherwise, independent of F, so smaller supports are nested in larger ones;
    ``stream`` names the task's own permutation when tasks of one width must not share it.
    Returned in permutation order; ``round`` is Python's (ties to even).

    >>> support_states(2, 0.5, seed=0) == support_states(2, 0.5, seed=0)
    True
    >>> len(support_states((10, 10), 0.25, seed=3))
    25
    """
    if (
        isinstance(support_frac, bool)
        or not isinstance(support_frac, numbers.Real)
        or not 0 < support_frac <= 1
    ):
        raise InputError(f"support_frac must be in (0, 1], got {support_frac!r}")
    dims = as_domains(domains)
    n_states = math.prod(dims)
    if n_states > MAX_LISTED_STATES:
        raise InputError(
            f"support_frac: draws from all {plain_count(n_states)} states, above "
            f"{MAX_LISTED_STATES:,}; "
            "list the support instead"
        )
    n_keep = max(1, round(support_frac * n_states))
    name = len(dims) if is_binary(dims) else "x".join(map(str, dims))
    order = child_rng(seed, "support", name, *stream).permutation(n_states)
    binary = is_binary(dims)
    return tuple(state_text(row, binary) for row in all_states(dims)[order[:n_keep]].tolist())


def make_task(
    knowledge,
    domains=None,
    support=None,
    *,
    supervised: Sequence[str] = (),
    knowledge_table: str | None = None,
) -> CountingTask:
    """A task from plain values: ``knowledge`` ("xor", "sum", a CNF string, or a knowledge
    object), ``domains`` (binary k or sizes; optional for a table), the support as state
    strings ("all" or None for every state) and the supervised states.

    >>> make_task("sum", [10, 10], ["3:5", "5:3"]).n_observed
    2
    """
    if knowledge_table is not None:
        knowledge = read_knowledge_table(knowledge_table, domains=domains)
    elif isinstance(knowledge, str):
        if domains is None:
            raise InputError("domains: needed to build the knowledge from a spec string")
        knowledge = make_knowledge(knowledge, domains)
    if isinstance(support, str) and support == "all":
        support = None
    return CountingTask(knowledge, None if support is None else tuple(support), tuple(supervised))
