"""Open-world labels over explicit negative facts (ProofWriter's True / False / Unknown).

Negation is reified as in the grammar: ``not_red(bob)`` is an ordinary atom,
stated or derived like any other, so the one forward chainer computes the
closure unchanged.  The open-world reading of a statement ``s`` is then

    True     if s is in the closure,
    False    if its complement (``red`` <-> ``not_red``) is,
    Unknown  otherwise,

and a closure holding both an atom and its complement is inconsistent (every
label would follow classically): :func:`open_world_closure` refuses it.

This is deliberately small: one engine (the chainer) and a labelling rule on
top.  An open-world mode of the chainer itself would replace this module.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import InputError
from .chainer import Closure, forward_chain
from .grammar import complement, is_negated
from .terms import Atom, Rule

LABELS = ("True", "False", "Unknown")


def contradictions(closure: Closure) -> list[Atom]:
    """The positive atoms whose complement is in the closure too, sorted."""
    return sorted(
        a for a in closure.atoms if not is_negated(a.pred) and complement(a) in closure.atoms
    )


def open_world_closure(facts: Iterable[Atom], rules: Iterable[Rule]) -> Closure:
    """The forward chainer's closure, checked consistent (no atom beside its complement).

    Raises ``InputError`` naming the first contradiction.

    >>> from nesybench.reasoning.terms import Literal
    >>> x = ("X",)
    >>> rules = [Rule(Atom("not_red", x), (Literal(Atom("big", x)),))]
    >>> c = open_world_closure([Atom("big", ("bob",))], rules)
    >>> open_world_label(c, Atom("red", ("bob",))), open_world_label(c, Atom("cold", ("bob",)))
    ('False', 'Unknown')
    """
    closure = forward_chain(facts, rules)
    bad = contradictions(closure)
    if bad:
        raise InputError(
            f"theory is inconsistent: both {bad[0]} and {complement(bad[0])} follow "
            f"({len(bad)} contradiction{'s' if len(bad) > 1 else ''})"
        )
    return closure


def open_world_label(closure: Closure, statement: Atom) -> str:
    """``"True"`` if ``statement`` is in the closure, ``"False"`` if its complement is, else
    ``"Unknown"``."""
    if closure.holds(statement):
        return "True"
    if closure.holds(complement(statement)):
        return "False"
    return "Unknown"


def answer_depth(closure: Closure, statement: Atom) -> int | None:
    """Depth of the derivation that decides ``statement`` (of it, or of its complement), or None
    when it is Unknown."""
    depth = closure.depth(statement)
    return depth if depth is not None else closure.depth(complement(statement))
