"""Model counters as small objects: exact (Ganak) and approximate (ApproxMC).

Both take a :class:`~nesybench.logic.cnf.CNF` and count its models projected
on ``cnf.projection`` (all variables when it is ``None``)::

    ExactCounter().count(cnf)                          -> ModelCount(value, exact=True)
    ApproxCounter(epsilon=0.8, delta=0.2).count(cnf)   -> ModelCount(value, exact=False, ...)
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass

from ..errors import InputError
from ..logic.cnf import CNF

__all__ = ["ModelCount", "ExactCounter", "ApproxCounter"]


@dataclass(frozen=True)
class ModelCount:
    """A model count; for an approximate count, ``(epsilon, delta)`` is its guarantee."""

    value: int
    exact: bool
    solver: str
    epsilon: float | None = None
    delta: float | None = None


@contextlib.contextmanager
def _quiet_stdout():
    """Silence the C++ solvers, which print progress lines on file descriptor 1.

    Ganak prints e.g. ``c o intermediate count: 0`` on unsatisfiable input; that
    would corrupt ``nesybench count --json`` output and the stage tables.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _projection(cnf: CNF) -> list[int]:
    return list(cnf.projection) if cnf.projection is not None else list(range(1, cnf.n_vars + 1))


class ExactCounter:
    """Exact (projected) #SAT through ``pyganak`` (Ganak with Arjun preprocessing).

    ``count(cnf)`` returns the number of assignments to the projection
    variables that extend to a model of ``cnf``, as a Python int.
    """

    solver = "ganak"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    def count(self, cnf: CNF) -> ModelCount:
        import pyganak

        counter = pyganak.Counter(seed=self.seed)
        counter.add_clauses([list(c) for c in cnf.clauses])
        if counter.nof_vars() < cnf.n_vars:
            # Variables no clause mentions are still free bits of the count.
            counter.new_vars(cnf.n_vars - counter.nof_vars())
        if cnf.projection is not None:
            if not cnf.projection:
                value = 1 if self._satisfiable(cnf) else 0
                return ModelCount(value, True, self.solver)
            counter.set_sampling_set(list(cnf.projection))
        with _quiet_stdout():
            value = int(counter.count())
        return ModelCount(value, True, self.solver)

    def _satisfiable(self, cnf: CNF) -> bool:
        full = CNF(cnf.clauses, cnf.n_vars, None)
        return ExactCounter(seed=self.seed).count(full).value > 0


def _unit_propagate(
    clauses: list[tuple[int, ...]],
) -> tuple[list[tuple[int, ...]], dict[int, bool]] | None:
    """Simplify ``clauses`` under their unit clauses to a fixpoint; None on a conflict."""
    assigned: dict[int, bool] = {}
    clauses = [c for c in clauses if not any(-lit in c for lit in c)]  # drop tautologies
    while True:
        units = [c[0] for c in clauses if len(c) == 1]
        if not units:
            return clauses, assigned
        for lit in units:
            var, value = abs(lit), lit > 0
            if assigned.get(var, value) != value:
                return None
            assigned[var] = value
        simplified = []
        for clause in clauses:
            if any(assigned.get(abs(lit)) == (lit > 0) for lit in clause):
                continue
            rest = tuple(lit for lit in clause if abs(lit) not in assigned)
            if not rest:
                return None
            simplified.append(rest)
        clauses = simplified


class ApproxCounter:
    """Approximate projected #SAT through ``pyapproxmc`` (ApproxMC).

    Guarantee (PAC): the estimate ``N_hat`` satisfies
    ``N / (1 + epsilon) <= N_hat <= (1 + epsilon) * N`` with probability at
    least ``1 - delta``, where ``N`` is the true projected count.  The estimate
    is ``cells * 2**hashes`` as ApproxMC reports it; small counts come back exact.

    pyapproxmc 4.4 silently drops projection variables that its preprocessing
    removes from every clause: it counts ``(x1 | x2) & x3-free`` as 3, not 6, and
    ``x1 = ~x2`` as 1, not 2.  So the formula is unit-propagated here first,
    each projection variable left in no clause contributes its factor 2
    explicitly, and every other counted variable is anchored (see ``count``).
    """

    solver = "approxmc"

    def __init__(self, *, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1) -> None:
        if not 0 < epsilon:
            raise InputError(f"epsilon must be > 0, got {epsilon}")
        if not 0 < delta < 1:
            raise InputError(f"delta must be in (0, 1), got {delta}")
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.seed = int(seed)

    def count(self, cnf: CNF) -> ModelCount:
        import pyapproxmc

        projection = _projection(cnf)
        simplified = _unit_propagate(list(cnf.clauses))
        if simplified is None:
            return self._result(0)
        clauses, assigned = simplified
        mentioned = {abs(lit) for clause in clauses for lit in clause}
        free = [v for v in projection if v not in mentioned and v not in assigned]
        counted = [v for v in projection if v in mentioned]
        if not clauses:
            return self._result(2 ** len(free))
        if not counted:
            # No projection variable left to hash: only satisfiability matters.
            sat = ExactCounter().count(CNF(tuple(clauses), cnf.n_vars, ())).value
            return self._result(sat * 2 ** len(free))
        counter = pyapproxmc.Counter(seed=self.seed, epsilon=self.epsilon, delta=self.delta)
        counter.add_clauses([list(c) for c in clauses])
        # Anchor every counted variable with a clause (v | w_v) on a fresh,
        # unprojected w_v: the projected count is unchanged (w_v = 1 satisfies it),
        # but v can no longer vanish in preprocessing (e.g. when a = ~b is
        # substituted away, pyapproxmc counts 1 instead of 2).
        top = max(cnf.n_vars, max(mentioned))
        counter.add_clauses([[v, top + i] for i, v in enumerate(counted, start=1)])
        with _quiet_stdout():
            cells, hashes = counter.count(counted)
        return self._result(int(cells) * 2 ** int(hashes) * 2 ** len(free))

    def _result(self, value: int) -> ModelCount:
        return ModelCount(value, False, self.solver, self.epsilon, self.delta)
