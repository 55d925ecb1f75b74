"""Counting the optima of a concept task: model counters, encodings, oracles.

``count_optima(knowledge, support, ...)`` is the entry point; see
:mod:`nesybench.counting.optima` for the definition of N_opt and the two
extractor families.
"""

from .counters import ApproxCounter, ExactCounter, ModelCount
from .encode import disentangled_encoding, joint_encoding, knowledge_cnf
from .optima import EXTRACTORS, METHODS, CountResult, count_optima, is_optimum, label_class_sizes
from .oracles import enumerate_disentangled, enumerate_joint, parity_closed_form

__all__ = [
    "ApproxCounter",
    "CountResult",
    "EXTRACTORS",
    "ExactCounter",
    "METHODS",
    "ModelCount",
    "count_optima",
    "disentangled_encoding",
    "enumerate_disentangled",
    "enumerate_joint",
    "is_optimum",
    "joint_encoding",
    "knowledge_cnf",
    "label_class_sizes",
    "parity_closed_form",
]
