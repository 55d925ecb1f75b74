"""Propositional logic as plain data: CNF formulas, DIMACS, variable pools, concept states and the
knowledge that labels them."""

from .cnf import CNF, IdPool, evaluate, from_dimacs, parse_cnf
from .knowledge import (
    KNOWLEDGE_TYPES,
    Knowledge,
    SumKnowledge,
    TableKnowledge,
    knowledge_table_frame,
    make_knowledge,
    read_knowledge_table,
)
from .states import (
    all_states,
    as_domains,
    is_binary,
    n_states,
    parse_state,
    parse_states,
    state_index,
    state_str,
    states_index,
)

__all__ = [
    "CNF",
    "IdPool",
    "KNOWLEDGE_TYPES",
    "Knowledge",
    "SumKnowledge",
    "TableKnowledge",
    "all_states",
    "as_domains",
    "evaluate",
    "from_dimacs",
    "is_binary",
    "knowledge_table_frame",
    "make_knowledge",
    "n_states",
    "parse_cnf",
    "parse_state",
    "parse_states",
    "read_knowledge_table",
    "state_index",
    "state_str",
    "states_index",
]
