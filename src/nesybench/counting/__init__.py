"""Counting the optima of a concept task: how many relabelings of the concepts keep every label.

The API: build a :class:`CountingTask` (the knowledge, which carries the
concepts' domain sizes, the observed support and the supervised states), call
one function per extractor family, and read a :class:`CountResult`, whose
``to_json()`` is the record ``nesybench count --json`` prints.

>>> from nesybench.counting import CountingTask, count_joint, count_disentangled, count_shared
>>> from nesybench.logic import make_knowledge
>>> task = CountingTask(make_knowledge("sum", (10, 10)))          # MNIST-Addition, every pair
>>> count_shared(task).n_opt, count_disentangled(task).n_opt       # one digit map; identity, swap
(1, 2)
>>> even_odd = ["0:6", "6:0", "2:8", "8:2", "4:6", "6:4", "4:8", "8:4",
...             "1:5", "5:1", "3:7", "7:3", "1:9", "9:1", "3:9", "9:3"]
>>> biased = CountingTask(task.knowledge, even_odd)
>>> count_shared(biased).n_opt                                    # 6 even maps x 6 odd maps
36
>>> record = count_disentangled(biased).to_json()
>>> record["n_opt"], record["n_distinct"], record["domains"]
('2592', '2592', [10, 10])
>>> count_joint(CountingTask(make_knowledge("xor", 2), ["00", "01", "10"])).n_opt
32

``plan_supervision(task, budget)`` chooses which observed states to label;
:func:`support_states` draws the seeded support of ``--support-frac``.  The
exact engines, the oracles that certify them and the DIMACS encodings live in
the submodules (see :mod:`nesybench.counting.optima` for the definitions).
"""

from .counters import ApproxCounter, ExactCounter, ModelCount
from .encode import disentangled_encoding, joint_encoding, knowledge_cnf
from .optima import (
    EXTRACTORS,
    METHODS,
    CountResult,
    class_sizes,
    count_disentangled,
    count_joint,
    count_optima,
    count_shared,
    is_optimum,
    label_class_sizes,
)
from .oracles import (
    count_disentangled_per_permutation,
    enumerate_disentangled,
    enumerate_joint,
    enumerate_joint_images,
    enumerate_shared,
    parity_closed_form,
)
from .planning import SupervisionPlan, plan_supervision
from .search import SearchTooLarge
from .task import CountingTask, make_task, support_states

__all__ = [
    "ApproxCounter",
    "CountResult",
    "CountingTask",
    "EXTRACTORS",
    "ExactCounter",
    "METHODS",
    "ModelCount",
    "SearchTooLarge",
    "SupervisionPlan",
    "class_sizes",
    "count_disentangled",
    "count_disentangled_per_permutation",
    "count_joint",
    "count_optima",
    "count_shared",
    "disentangled_encoding",
    "enumerate_disentangled",
    "enumerate_joint",
    "enumerate_joint_images",
    "enumerate_shared",
    "is_optimum",
    "joint_encoding",
    "knowledge_cnf",
    "label_class_sizes",
    "make_task",
    "parity_closed_form",
    "plan_supervision",
    "support_states",
]
