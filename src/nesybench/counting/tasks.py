"""rsbench's tasks as named tasks: the knowledge and training support read from rsbench's code.

Each task of rsbench (``github:unitn-sml/rsbench-code``: the evaluation suite ``rsseval``,
the counter ``rsscount`` and the generator ``rssgen``) is encoded here as a structure of
:mod:`nesybench.counting.factor`, so that it is counted exactly where its structure
allows, even far past a label table.  The builder of each task cites the file and
function its knowledge and support come from; the encoding is our own.  Where rsbench's
code does not fix the training support (it lives in data files), the task says so and
observes every state its knowledge labels: a free choice, overridable on every call.

>>> from nesybench.counting.tasks import count_task, get_task
>>> task = get_task("rsbench/mnadd-evenodd")
>>> task.domains, task.n_observed
((10, 10), 16)
>>> count_task(task, "shared").n_opt            # one digit classifier: 6 even x 6 odd maps
36
>>> count_task(task, "disentangled").n_opt
2592
>>> count_task(get_task("rsbench/sdd-oia"), "disentangled").n_opt   # 2^21 states, 21 concepts
31104

``nesybench tasks`` lists them; ``nesybench count --task rsbench/<name>`` counts one;
:func:`knowledge_frame` and :func:`support_frame` write a task as the tables
``--knowledge-table`` and ``--support-file`` read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pandas as pd

from ..errors import InputError
from ..logic.knowledge import TableKnowledge
from ..logic.states import all_states, parse_states
from .factor import (
    MAX_TABLE_STATES,
    AllEqual,
    CountRefused,
    Outputs,
    Table,
    count_structure,
    plan_structure,
    split_support,
)
from .optima import CountResult
from .planning import SupervisionPlan

__all__ = [
    "Concept",
    "NamedTask",
    "TASKS",
    "RSBENCH_EVEN_ODD_PAIRS",
    "RSBENCH_HALF_PAIRS",
    "task_names",
    "get_task",
    "count_task",
    "exact_text",
    "plan_task",
    "knowledge_frame",
    "support_frame",
    "CountRefused",
]

# rsseval/rss/datasets/shortcutmnist.py, SHORTMNIST.filtrate: the training pairs (first digit,
# second digit) of MNAdd-EvenOdd; train_c_mask2 keeps each pair swapped as well.
RSBENCH_EVEN_ODD_PAIRS = ((0, 6), (2, 8), (4, 6), (4, 8), (1, 5), (3, 7), (1, 9), (3, 9))
# rsseval/rss/datasets/halfmnist.py, HALFMNIST.filtrate: the training pairs of MNAdd-Half
# (digits 0-4), each swapped as well.
RSBENCH_HALF_PAIRS = ((0, 0), (0, 1), (2, 3), (2, 4))
DIGITS = tuple(str(v) for v in range(10))
BIT = ("0", "1")


@dataclass(frozen=True)
class Concept:
    """A concept's name and the names of its values (value i is written i in a state)."""

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class NamedTask:
    """A named task: concepts, outputs, the structure of its knowledge and support, sources.

    ``support_note`` says where the training support comes from (rsbench's code, or a free
    choice); ``published`` is rsbench's own published count, if any, as ``(value, where)``.
    """

    name: str
    title: str
    concepts: tuple[Concept, ...]
    outputs: tuple[str, ...]
    source: str
    support_note: str
    build: Callable[[], object] = field(repr=False)
    published: tuple[int, str] | None = None

    @property
    def structure(self):
        return _built(self.name)

    @property
    def domains(self) -> tuple[int, ...]:
        return tuple(len(c.values) for c in self.concepts)

    @property
    def k(self) -> int:
        return len(self.concepts)

    @property
    def n_states(self) -> int:
        return math.prod(self.domains)

    @property
    def n_observed(self) -> int:
        return self.structure.n_observed

    def support_rows(self) -> np.ndarray | None:
        """The observed states as rows (None when every state is observed)."""
        node = self.structure
        if node.n_observed == node.n_states:
            return None
        table = node.table()
        return all_states(self.domains)[table.support]

    def knowledge(self) -> TableKnowledge:
        """K as a label table (tasks of at most 2^22 states)."""
        table = self.structure.table()
        return TableKnowledge(table.domains, table.codes, table.names, source=self.name)


def _sums(dims) -> list[int]:
    return all_states(dims).sum(axis=1).tolist()


def _pairs_mask(pairs, d: int) -> np.ndarray:
    grid = all_states((d, d))
    keep = {p for a, b in pairs for p in ((a, b), (b, a))}
    return np.array([tuple(r) in keep for r in grid.tolist()], dtype=bool)


# ---- the tasks: one builder each, citing rsbench's code ---------------------------------


def _mnadd() -> Table:
    """MNAdd: two MNIST digits 0-9, y = their sum, trained on every pair.

    Knowledge: rsseval/rss/models/utils/utils_problog.py, ``build_worlds_queries_matrix``
    (task ``"addmnist"``: ``w_q[w, q] = 1`` iff digit1 + digit2 == q), used by
    models/mnistdpl.py ``MnistDPL.__init__`` and models/mnistsl.py ``MnistSL.__init__``
    (utils/mnist_ltn_loss.py ``ADDMNISTsat_agg_loss`` states the same sum).  Support:
    datasets/utils/mnist_creation.py ``create_dataset`` draws ``samples_x_world`` images of
    every world in ``product(range(10), repeat=2)`` (dataset ``addmnist``).
    """
    return Table.from_labels((10, 10), _sums((10, 10)))


def _mnadd_evenodd() -> Table:
    """MNAdd-EvenOdd (dataset ``shortmnist``): y = the sum of two digits, trained on 16 pairs.

    Knowledge as MNAdd (``build_worlds_queries_matrix``, task ``"addmnist"``).  Support:
    rsseval/rss/datasets/shortcutmnist.py, ``SHORTMNIST.filtrate``: the train mask keeps
    0+6, 2+8, 4+6, 4+8, 1+5, 3+7, 1+9, 3+9 (``train_c_mask1``) and each pair swapped
    (``train_c_mask2``): 16 ordered pairs, all even-even or odd-odd.
    """
    return Table.from_labels(
        (10, 10), _sums((10, 10)), support=_pairs_mask(RSBENCH_EVEN_ODD_PAIRS, 10)
    )


def _mnadd_half() -> Table:
    """MNAdd-Half (dataset ``halfmnist``): digits 0-4, y = their sum, trained on 7 pairs.

    Knowledge: ``build_worlds_queries_matrix(2, 5, "addmnist")`` (models/mnistdpl.py
    ``MnistDPL.__init__`` sets ``n_facts = 5`` for ``halfmnist``; the encoder has
    ``c_dim=5``, datasets/halfmnist.py ``HALFMNIST.get_backbone``).  Support:
    datasets/halfmnist.py ``HALFMNIST.filtrate``: 0+0, 0+1, 2+3, 2+4 and each swapped.
    """
    return Table.from_labels((5, 5), _sums((5, 5)), support=_pairs_mask(RSBENCH_HALF_PAIRS, 5))


def _mnmath() -> Outputs:
    """MNMath (dataset ``mnmath``): eight digits, two outputs that share no digit.

    Knowledge: rsseval/rss/models/mnmathdpl.py ``MNMATHDPL.problog_inference`` reads digits
    1-4 through models/utils/utils_problog.py ``create_mnmath_sum`` (y1 = 1 iff
    d1 + d2 == d3 + d4) and digits 5-8 through ``create_mnmath_prod`` (y2 = 1 iff
    d5 * d6 == d7 * d8), and returns the pair (y1, y2).  Support: not in the code (the
    images and labels are read from ``data/mnmath``, datasets/utils/mnmath_creation.py
    ``MNMATHDataset``): a free choice; here every state.
    """
    grid = all_states((10, 10))
    products = (grid[:, 0] * grid[:, 1]).tolist()
    return Outputs(
        (
            AllEqual(Table.from_labels((10, 10), _sums((10, 10))), 2, "sum_equal"),
            AllEqual(Table.from_labels((10, 10), products), 2, "product_equal"),
        )
    )


def _mnlogic() -> Table:
    """MNLogic (dataset ``xor``, class ``MNLOGIC``): four MNIST bits, y = 1 iff their sum is even.

    Knowledge: rsseval/rss/models/utils/utils_problog.py ``create_xor`` (``w_q[w, 1] = 1`` iff
    (d1 + d2 + d3 + d4) % 2 == 0), used by models/xordpl.py ``XORDPL.__init__``
    (``create_xor(n_digits=2, sequence_len=4)``).  Support: not in the code (read from
    ``data/mnlogic``, datasets/utils/xor_creation.py ``XORDataset``): a free choice; every
    state.
    """
    grid = all_states(4)
    return Table.from_labels((2,) * 4, (1 - grid.sum(axis=1) % 2).tolist())


def _xor() -> Table:
    """XOR of rsbench's counter: three bits, y = their parity, every state observed.

    Knowledge: rsscount/gen-rss-count.py ``XorDataset.make_data`` (y = the running xor of
    the bits); the number of bits is the ``-n`` option, 3 in the README's example
    (``gen-rss-count.py xor -n 3 -E``).  Support: ``-s/--subsample`` defaults to 1.0, every
    state (``Dataset._make_all_data``).
    """
    grid = all_states(3)
    return Table.from_labels((2,) * 3, (grid.sum(axis=1) % 2).tolist())


PATTERNS = ("diff", "pair", "same")  # the index order of utils_problog's np.argmax


def _pattern(name: str) -> Table:
    """diff / pair / same of three ternary values (code 0 / 1 / 2, as ``argmax`` there)."""
    grid = all_states((3, 3, 3))
    a, b, c = grid[:, 0], grid[:, 1], grid[:, 2]
    same = (a == b) & (b == c)
    diff = (a != b) & (a != c) & (b != c)
    code = np.where(same, 2, np.where(diff, 0, 1))
    return Table.from_labels((3, 3, 3), [f"{name}={PATTERNS[v]}" for v in code.tolist()])


def _kandinsky() -> AllEqual:
    """Kandinsky (dataset ``kandinsky``, task ``patterns``): three figures of three objects.

    Knowledge: rsseval/rss/models/utils/utils_problog.py
    ``build_worlds_queries_matrix_KAND(task="patterns")``: a figure's pattern is
    ``3 * argmax([diff_s, pair_s, same_s]) + argmax([diff_c, pair_c, same_c])`` over its
    shapes s1-s3 and colours c1-c3, and y = 1 iff the three figures' patterns are equal
    (``and_or_rule``); models/kanddpl.py ``KandDPL.forward`` applies it per figure and
    ``combine_queries`` joins them (utils/kand_ltn_loss.py states the same same / pair /
    diff patterns).  Concept values: datasets/kandinsky.py ``Kandinsky.get_concept_labels``.
    Support: not in the code (``data/kandinsky-3k-original``): a free choice; every state.
    """
    return AllEqual(Outputs((_pattern("shapes"), _pattern("colours"))), 3)


def _sdd_forward_stop() -> Table:
    """forward and stop from the nine forward/stop concepts (``build_world_queries_matrix_FS``).

    obstacle = car | person | rider | other (``compute_logic_obstacle`` with
    ``create_w_to_y``); a world where green and red lights, or a clear road and an
    obstacle, both hold while some reason to move holds gets no label (its row of w_q is
    left at zero: ``pass``), written ``?``; rsbench's data never shows it, so it is
    outside the support.
    """
    grid = all_states(9)
    green, follow, clear, red, sign = (grid[:, j] == 1 for j in range(5))
    obstacle = grid[:, 5:9].any(axis=1)
    go = green | follow | clear
    invalid = go & ((green & red) | (clear & obstacle))
    stop = red | sign | obstacle
    labels = np.where(
        invalid,
        "forward=? stop=?",
        np.where(stop, "forward=0 stop=1", np.where(go, "forward=1 stop=0", "forward=0 stop=0")),
    )
    return Table.from_labels((2,) * 9, labels.tolist(), support=~invalid)


def _sdd_turn(side: str) -> Table:
    """turn left / right from six concepts (``build_world_queries_matrix_L`` / ``_R``).

    All six concepts 0: w_q = (0.5, 0.5), the label ``0.5``.  Left: a lane, a green
    left light or a car to follow left means turn (the three stop concepts are not
    read).  Right: the same, unless no right lane, an obstacle or a solid line.
    """
    grid = all_states(6)
    go = grid[:, :3].any(axis=1)
    blocked = grid[:, 3:].any(axis=1)
    turn = go & ~blocked if side == "right" else go
    labels = np.where(
        grid.sum(axis=1) == 0, f"{side}=0.5", np.where(turn, f"{side}=1", f"{side}=0")
    )
    return Table.from_labels((2,) * 6, labels.tolist())


def _sdd_oia() -> Outputs:
    """SDD-OIA (dataset ``sddoia``): 21 binary concepts, the four actions as one tuple of labels.

    Knowledge: rsseval/rss/models/sddoiadpl.py ``SDDOIADPL.problog_inference`` with task
    ``boia``: concepts 0-8 give forward and stop (models/utils/utils_problog.py
    ``build_world_queries_matrix_FS`` over green light, follow, clear, red light, stop
    sign and ``compute_logic_obstacle`` of car, person, rider, other), concepts 9-14 turn
    left (``build_world_queries_matrix_L``), concepts 15-20 turn right
    (``build_world_queries_matrix_R``); ``utils/losses.py`` ``SDDOIA_CE`` reads the 8
    outputs as the pairs of (forward, stop, left, right).  The three blocks share no
    concept.  A label is the action's probability under w_q (``0.5`` where rsbench's
    matrix gives 0.5 / 0.5).  Support: not in the code (``data/mini_boia_out``): a free
    choice; every state rsbench's knowledge labels (835,584 of 2^21).
    """
    return Outputs((_sdd_forward_stop(), _sdd_turn("left"), _sdd_turn("right")))


def _bdd_oia() -> Outputs:
    """BDD-OIA (dataset ``boia``): SDD-OIA's knowledge on BDD-OIA's 21 concepts.

    Knowledge: rsseval/rss/models/boiadpl.py ``BoiaDPL`` subclasses ``SDDOIADPL`` and keeps
    its ``problog_inference`` (task ``boia``), so the rules are SDD-OIA's.  Support: not in
    the code (the observed concept vectors are in ``data/bdd2048/*.pkl``): a free choice;
    every state the knowledge labels, as for SDD-OIA.
    """
    return _built("rsbench/sdd-oia")  # the very same structure: counted once, not twice


CLEVR_PROPERTIES = (
    ("colour", ("red", "blue")),
    ("shape", ("cube", "star", "toroid")),
    ("material", ("rubber", "metal")),
    ("size", ("large", "medium", "small")),
)


def _clevr() -> Outputs:
    """CLEVR (rssgen's example): two objects, y = 1 iff same colour, shape and material.

    rsseval defines no CLEVR knowledge (models/utils/utils_problog.py
    ``build_clevr_worlds_queries_matrix`` is an empty stub), so the task is the generator's
    example: rssgen/examples_config/clevr.yml (symbols color_1, shape_1, material_1,
    size_1, color_2, ...; logic ``And(Eq(color_1, color_2), Eq(shape_1, shape_2),
    Eq(material_1, material_2))``) with the values of rssgen/clevr_config/properties.json.
    The sizes meet no rule, so they are listed last, as a part of their own.  Support: the
    config's ``prop_in_distribution`` draws the observed combinations at random: a free
    choice; every state.
    """
    dims = tuple(len(v) for _, v in CLEVR_PROPERTIES[:3])
    grid = all_states(dims)
    obj = Table.from_labels(dims, [":".join(map(str, r)) for r in grid.tolist()])
    sizes = len(CLEVR_PROPERTIES[3][1])
    return Outputs((AllEqual(obj, 2), Table.from_labels((sizes, sizes), [0] * sizes**2)))


def _digits(n: int, d: int = 10) -> tuple[Concept, ...]:
    return tuple(Concept(f"digit_{j}", DIGITS[:d]) for j in range(1, n + 1))


def _sdd_concepts() -> tuple[Concept, ...]:
    names = (
        "green_light follow clear red_light stop_sign car person rider other_obstacle "
        "left_lane left_green_light left_follow no_left_lane left_obstacle left_solid_line "
        "right_lane right_green_light right_follow no_right_lane right_obstacle "
        "right_solid_line"
    ).split()
    return tuple(Concept(n, BIT) for n in names)


def _kand_concepts() -> tuple[Concept, ...]:
    shapes, colours = ("square", "circle", "triangle"), ("red", "yellow", "blue")
    return tuple(
        Concept(f"figure_{f}_{what}_{o}", values)
        for f in (1, 2, 3)
        for what, values in (("shape", shapes), ("colour", colours))
        for o in (1, 2, 3)
    )


FREE = "not fixed by rsbench's code (data files): a free choice; here "
_TASKS = (
    NamedTask(
        "rsbench/mnadd",
        "MNAdd",
        _digits(2),
        ("sum",),
        "rsseval/rss/models/utils/utils_problog.py: build_worlds_queries_matrix (addmnist); "
        "rsseval/rss/datasets/utils/mnist_creation.py: create_dataset",
        "every pair (create_dataset draws every world)",
        _mnadd,
    ),
    NamedTask(
        "rsbench/mnadd-evenodd",
        "MNAdd-EvenOdd",
        _digits(2),
        ("sum",),
        "rsseval/rss/datasets/shortcutmnist.py: SHORTMNIST.filtrate; "
        "rsseval/rss/models/utils/utils_problog.py: build_worlds_queries_matrix (addmnist)",
        "16 ordered pairs (SHORTMNIST.filtrate)",
        _mnadd_evenodd,
        published=(
            49,
            "rsseval/README.md: 'the number of deterministic RSs was calculated to be 49 by "
            "solving a linear system'",
        ),
    ),
    NamedTask(
        "rsbench/mnadd-half",
        "MNAdd-Half",
        _digits(2, 5),
        ("sum",),
        "rsseval/rss/datasets/halfmnist.py: HALFMNIST.filtrate; "
        "rsseval/rss/models/mnistdpl.py: MnistDPL.__init__ (n_facts = 5)",
        "7 ordered pairs of digits 0-4 (HALFMNIST.filtrate)",
        _mnadd_half,
    ),
    NamedTask(
        "rsbench/mnmath",
        "MNMath",
        _digits(8),
        ("sum_equal", "product_equal"),
        "rsseval/rss/models/mnmathdpl.py: MNMATHDPL.problog_inference; "
        "rsseval/rss/models/utils/utils_problog.py: create_mnmath_sum, create_mnmath_prod",
        FREE + "every state",
        _mnmath,
    ),
    NamedTask(
        "rsbench/mnlogic",
        "MNLogic",
        tuple(Concept(f"bit_{j}", BIT) for j in range(1, 5)),
        ("even",),
        "rsseval/rss/models/xordpl.py: XORDPL.__init__; "
        "rsseval/rss/models/utils/utils_problog.py: create_xor",
        FREE + "every state",
        _mnlogic,
    ),
    NamedTask(
        "rsbench/xor",
        "XOR",
        tuple(Concept(f"bit_{j}", BIT) for j in range(1, 4)),
        ("parity",),
        "rsscount/gen-rss-count.py: XorDataset.make_data (-n 3, the README's example)",
        "every state (-s/--subsample defaults to 1.0)",
        _xor,
    ),
    NamedTask(
        "rsbench/kandinsky",
        "Kandinsky",
        _kand_concepts(),
        ("same_pattern",),
        "rsseval/rss/models/utils/utils_problog.py: build_worlds_queries_matrix_KAND "
        "(patterns); rsseval/rss/models/kanddpl.py: KandDPL.forward, combine_queries",
        FREE + "every state",
        _kandinsky,
    ),
    NamedTask(
        "rsbench/sdd-oia",
        "SDD-OIA",
        _sdd_concepts(),
        ("forward", "stop", "left", "right"),
        "rsseval/rss/models/sddoiadpl.py: SDDOIADPL.problog_inference; "
        "rsseval/rss/models/utils/utils_problog.py: build_world_queries_matrix_FS, _L, _R",
        FREE + "every state the knowledge labels (835,584 of 2^21)",
        _sdd_oia,
    ),
    NamedTask(
        "rsbench/bdd-oia",
        "BDD-OIA",
        _sdd_concepts(),
        ("forward", "stop", "left", "right"),
        "rsseval/rss/models/boiadpl.py: BoiaDPL (SDDOIADPL's knowledge); "
        "rsseval/rss/datasets/boia.py: BOIA",
        FREE + "every state the knowledge labels (835,584 of 2^21)",
        _bdd_oia,
    ),
    NamedTask(
        "rsbench/clevr",
        "CLEVR",
        tuple(
            Concept(f"{name}_{o}", values) for o in (1, 2) for name, values in CLEVR_PROPERTIES[:3]
        )
        + tuple(Concept(f"size_{o}", CLEVR_PROPERTIES[3][1]) for o in (1, 2)),
        ("same_object",),
        "rssgen/examples_config/clevr.yml, rssgen/clevr_config/properties.json (rsseval's "
        "build_clevr_worlds_queries_matrix is an empty stub)",
        FREE + "every state",
        _clevr,
    ),
)
TASKS: dict[str, NamedTask] = {t.name: t for t in _TASKS}


@cache
def _built(name: str):
    return TASKS[name].build()


def task_names() -> list[str]:
    """The named tasks, in the order ``nesybench tasks`` lists them."""
    return list(TASKS)


def get_task(name: str) -> NamedTask:
    """The named task ``name`` (``rsbench/<task>``; the prefix may be left out).

    >>> get_task("mnadd-half").n_states
    25
    """
    if not isinstance(name, str):
        raise InputError(f"task must be a task name such as rsbench/mnadd, got {name!r}")
    full = name if "/" in name else f"rsbench/{name}"
    if full not in TASKS:
        raise InputError(f"task: unknown task {name!r}; expected one of {', '.join(TASKS)}")
    return TASKS[full]


def _structure(task: NamedTask, support: Sequence[str] | None):
    """The task's structure, with ``support`` (state strings) in place of its own if given."""
    if support is None:
        return task.structure
    states = parse_states(list(support), task.domains, field_name="support")
    if not states:
        raise InputError("support must contain at least one state")
    from ..logic.states import parse_state

    rows = np.array([parse_state(s, task.domains) for s in states], dtype=np.int64)
    return split_support(task.structure, rows)


def count_task(
    task: NamedTask | str,
    extractor: str,
    *,
    support: Sequence[str] | None = None,
    supervised: Sequence[str] = (),
    max_subproblems: int | None = None,
    max_memory: int | None = None,
) -> CountResult:
    """N_opt of ``extractor`` on ``task`` at its own support (or ``support``), exact.

    ``max_subproblems`` / ``max_memory`` (bytes) bound each engine count (None: the
    engines' defaults; 0: no limit).  Raises :class:`CountRefused` (a one-line
    ``InputError``) when no exact route exists.
    """
    task = get_task(task) if isinstance(task, str) else task
    node = _structure(task, support)
    return count_structure(
        node,
        extractor,
        supervised=supervised,
        max_subproblems=max_subproblems,
        max_memory=max_memory,
    )


def plan_task(
    task: NamedTask | str,
    budget: int,
    *,
    extractor: str = "disentangled",
    support: Sequence[str] | None = None,
    exact_max_subsets: int = 0,
    max_subproblems: int | None = None,
    max_memory: int | None = None,
) -> SupervisionPlan:
    """The greedy supervision plan of ``extractor`` on ``task`` (see ``plan_structure``)."""
    task = get_task(task) if isinstance(task, str) else task
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InputError(f"budget must be an integer >= 1, got {budget!r}")
    node = _structure(task, support)
    if budget > node.n_observed:
        raise InputError(
            f"budget: {budget} labels asked, but only {node.n_observed} observed states can be "
            "labelled"
        )
    return plan_structure(
        node,
        budget,
        extractor=extractor,
        exact_max_subsets=exact_max_subsets,
        max_subproblems=max_subproblems,
        max_memory=max_memory,
    )


SHORT_DIGITS = 60  # a count longer than this is written as its exact product of powers


def exact_text(result: CountResult) -> str:
    """A count written exactly: the integer when short, else its product of powers.

    >>> exact_text(count_task("rsbench/xor", "joint"))
    '65536'
    >>> exact_text(count_task("rsbench/kandinsky", "joint"))   # two label classes, every state
    '350514864^350514864 * 36905625^36905625'
    """
    if result.n_opt is not None and len(str(result.n_opt)) <= SHORT_DIGITS:
        return str(result.n_opt)
    if result.factors:
        return " * ".join(f"{b}^{e}" for b, e in result.factors)
    return str(result.n_opt)


# ---- the task as the tables --knowledge-table and --support-file read -------------------


def _listable(task: NamedTask, what: str) -> None:
    if task.n_states > MAX_TABLE_STATES:
        raise InputError(
            f"{what}: {task.name} has {task.n_states:,} states, above the {MAX_TABLE_STATES:,} a "
            "knowledge table may list"
        )


def knowledge_frame(task: NamedTask | str) -> pd.DataFrame:
    """K as a knowledge table: columns ``c1..ck`` (value codes) and ``y`` (the label), one row
    per state in ``all_states`` order, as ``read_knowledge_table`` reads it.

    >>> knowledge_frame("rsbench/xor").tail(2).values.tolist()
    [[1, 1, 0, 0], [1, 1, 1, 1]]
    """
    task = get_task(task) if isinstance(task, str) else task
    _listable(task, "export-knowledge")
    grid = all_states(task.domains)
    frame = pd.DataFrame(grid, columns=[f"c{j}" for j in range(1, task.k + 1)])
    table = task.structure.table()
    frame["y"] = [table.names[c] for c in table.codes.tolist()]
    return frame


def support_frame(task: NamedTask | str, support: Sequence[str] | None = None) -> pd.DataFrame:
    """The observed states (the task's own, or ``support``) as a support file: columns
    ``c1..ck``, one row per state in ``all_states`` order, as ``--support-file`` reads it.

    >>> support_frame("rsbench/mnadd-half").values.tolist()[:3]
    [[0, 0], [0, 1], [1, 0]]
    """
    task = get_task(task) if isinstance(task, str) else task
    columns = [f"c{j}" for j in range(1, task.k + 1)]
    if support is not None:
        from ..logic.states import parse_state, states_index

        states = parse_states(list(support), task.domains, field_name="support")
        rows = np.array([parse_state(s, task.domains) for s in states], dtype=np.int64)
        rows = rows.reshape(-1, task.k)[np.argsort(states_index(rows, task.domains))]
        return pd.DataFrame(rows, columns=columns)
    _listable(task, "export-support")
    rows = task.support_rows()
    if rows is None:
        rows = all_states(task.domains)
    return pd.DataFrame(rows, columns=columns)
