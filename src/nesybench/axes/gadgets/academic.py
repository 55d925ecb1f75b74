"""The small academic world the semantics and trust gadgets share (plain data)."""

from __future__ import annotations

from ...reasoning.terms import Atom, Literal, Rule

PEOPLE = ("alice", "bob", "carol", "dave", "erin")
PROFESSORS = ("alice", "bob")
STUDENTS = ("carol", "dave", "erin")
#: who advises whom; alice is the only person nobody advises
ADVISES = (("alice", "bob"), ("alice", "carol"), ("bob", "dave"), ("bob", "erin"))


def atom(pred: str, *args: str) -> Atom:
    return Atom(pred, tuple(args))


def lit(pred: str, *args: str, positive: bool = True) -> Literal:
    return Literal(Atom(pred, tuple(args)), positive)


def facts() -> list[Atom]:
    out = [atom("person", p) for p in PEOPLE]
    out += [atom("professor", p) for p in PROFESSORS] + [atom("student", s) for s in STUDENTS]
    out += [atom("advises", x, y) for x, y in ADVISES]
    return out


def horn_rules() -> list[Rule]:
    """The monotone core: concepts, advising and academic ancestry."""
    return [
        Rule(atom("researcher", "X"), (lit("professor", "X"),)),
        Rule(atom("researcher", "X"), (lit("student", "X"),)),
        Rule(atom("advised", "Y"), (lit("advises", "X", "Y"),)),
        Rule(atom("ancestor", "X", "Y"), (lit("advises", "X", "Y"),)),
        Rule(atom("ancestor", "X", "Z"), (lit("advises", "X", "Y"), lit("ancestor", "Y", "Z"))),
    ]


def naf_rule() -> Rule:
    """independent(X) if person(X) and not advised(X) -- stratified negation as failure."""
    return Rule(atom("independent", "X"), (lit("person", "X"), lit("advised", "X", positive=False)))
