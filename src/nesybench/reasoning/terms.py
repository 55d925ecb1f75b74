"""Plain-data logic terms shared by the prover, the forward chainer and the grammar.

An argument that starts with an upper-case letter or ``_`` is a variable
(Prolog convention); anything else is a constant.  Negation in rule bodies is
negation as failure (``Literal(atom, positive=False)``).
"""

from __future__ import annotations

from dataclasses import dataclass


def is_variable(term: str) -> bool:
    """True for ``X``, ``Who``, ``_tmp``; False for ``max``, ``alice``."""
    return bool(term) and (term[0].isupper() or term[0] == "_")


@dataclass(frozen=True, order=True)
class Atom:
    """``pred(args...)``; a unary atom ``yumpus(max)`` is ``Atom("yumpus", ("max",))``."""

    pred: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(self.args)})" if self.args else self.pred

    @property
    def is_ground(self) -> bool:
        return not any(is_variable(a) for a in self.args)


@dataclass(frozen=True, order=True)
class Literal:
    """An atom in a rule body, positive or negated as failure."""

    atom: Atom
    positive: bool = True

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"not {self.atom}"


@dataclass(frozen=True, order=True)
class Rule:
    """``head :- body`` with the body a tuple of literals (conjunction)."""

    head: Atom
    body: tuple[Literal, ...] = ()

    def __str__(self) -> str:
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(str(b) for b in self.body)}."
