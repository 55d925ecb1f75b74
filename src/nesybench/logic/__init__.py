"""Propositional logic as plain data: CNF formulas, DIMACS, variable pools, concept states."""

from .cnf import CNF, IdPool, evaluate, from_dimacs, parse_cnf
from .knowledge import Knowledge, all_states, make_knowledge, parse_state, parse_states, state_str

__all__ = [
    "CNF",
    "IdPool",
    "Knowledge",
    "all_states",
    "evaluate",
    "from_dimacs",
    "make_knowledge",
    "parse_cnf",
    "parse_state",
    "parse_states",
    "state_str",
]
