"""The shortcuts generator: seeded concept tasks with gold concepts on every split.

Shape of a task (the logic-task family of rsbench):

1. sample a concept state g in {0,1}^k (balanced over the states of a split);
2. label it from the knowledge, y = K(g), never from the input;
3. render the input: x_j = (2 g_j - 1) + noise * eps_j for the k concept
   coordinates (eps ~ N(0, 1)), then ``n_distractors`` pure N(0, 1) coordinates.

The support knob: a permutation of the 2^k states keeps its first
``max(1, round(support_frac * 2^k))`` states as the observed support.  Each task draws
its permutation from its own stream (:func:`support_stream`): ``(seed, k)`` for k-bit
parity, ``(seed, k, <knowledge>)`` for any other knowledge, so two tasks share a support
only when they are the same task.  Because the permutation does not depend on the
fraction, smaller supports are nested in larger ones.  train and test sample the support;
ood samples exactly the unobserved states (empty at full support).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..counting.optima import label_class_sizes
from ..counting.task import support_states
from ..errors import InputError, check_claim
from ..logic.knowledge import Knowledge, all_states, make_knowledge, parse_state, state_str
from ..seeds import child_rng

__all__ = [
    "Knowledge",
    "make_knowledge",
    "random_3cnf",
    "all_states",
    "state_str",
    "child_rng",
    "support_states",
    "support_stream",
    "Split",
    "ConceptTask",
    "make_task",
    "certify_task",
    "resolve_knowledge",
    "CertifiedTask",
    "certified_tasks",
    "generated_tasks",
    "task_from_rows",
    "SPLITS",
    "CONCEPT_CORR_MIN",
    "DISTRACTOR_CORR_MAX",
]

SPLITS = ("train", "test", "ood")
CONCEPT_CORR_MIN = 0.9  # corr(x_j, g_j) must reach this: the intended concepts are learnable
DISTRACTOR_CORR_MAX = 0.3  # |corr(x_d, y)| must stay below this: no label side channel
MAX_TASK_K = 16  # tasks enumerate their 2^k states
RANDOM_CNF_MAX_DRAWS = 1000


def support_stream(knowledge: Knowledge) -> tuple[str, ...]:
    """The name of a task's support permutation beyond ``(seed, "support", k)``: none for
    k-bit parity (whose stream the chapter's XOR supports come from), the knowledge's spec
    for anything else (a CNF over k bits must not reuse the parity task's support).

    >>> support_stream(make_knowledge("xor", 2)), support_stream(make_knowledge("(x1 | x2)", 2))
    ((), ('(x1 | x2)',))
    """
    return () if knowledge.spec == "xor" else (knowledge.spec,)


def random_3cnf(k: int, m: int, rng: np.random.Generator) -> Knowledge:
    """A random 3-CNF over x1..xk with ``m`` clauses, redrawn until both labels occur.

    Each clause picks 3 distinct variables (with repetition only when k < 3) and
    independent random signs.  "Both labels occur" (0 < #SAT(K) < 2^k) is
    decided by one exact model count, so it works at any k.
    """
    if k < 1:
        raise InputError(f"k must be >= 1, got {k}")
    if m < 1:
        raise InputError(f"m: a random 3-CNF needs at least 1 clause, got {m}")
    for _ in range(RANDOM_CNF_MAX_DRAWS):
        clauses = []
        for _ in range(m):
            variables = rng.choice(k, size=3, replace=k < 3) + 1
            signs = rng.integers(0, 2, size=3)
            clauses.append(
                "("
                + " | ".join(("~" if s else "") + f"x{v}" for v, s in zip(variables, signs))
                + ")"
            )
        knowledge = make_knowledge(" & ".join(clauses), k)
        n0, n1 = label_class_sizes(knowledge)
        if n0 > 0 and n1 > 0:
            return knowledge
    raise InputError(
        f"random 3-CNF: no draw with both labels in {RANDOM_CNF_MAX_DRAWS} tries at k={k}, m={m}"
    )


def resolve_knowledge(name: str, spec: dict, *, seed: int) -> Knowledge:
    """The knowledge of a params task entry ``{knowledge: xor | <CNF> | random3cnf, k, [m]}``
    (``m`` only for random3cnf; :mod:`nesybench.shortcuts.params_checks` builds every entry
    once at load time and names the key of one that fails)."""
    kind, k = spec["knowledge"], spec["k"]
    if kind == "random3cnf":
        return random_3cnf(k, spec["m"], child_rng(seed, "knowledge", name))
    return make_knowledge(kind, k)


@dataclass
class Split:
    """One split: inputs X (n, k + n_distractors), gold concepts G (n, k), labels Y (n,)."""

    X: np.ndarray
    G: np.ndarray
    Y: np.ndarray

    def __len__(self) -> int:
        return len(self.Y)

    def states(self) -> list[str]:
        """The distinct concept states present, sorted."""
        return sorted({state_str(row) for row in self.G})


@dataclass
class ConceptTask:
    name: str
    knowledge: Knowledge
    k: int
    n_distractors: int
    support: tuple[str, ...]  # bit strings, permutation order
    splits: dict[str, Split] = field(default_factory=dict)
    support_frac: float = 1.0
    noise: float | None = 0.25  # None for a task read back from points (not recorded there)

    @property
    def unobserved(self) -> tuple[str, ...]:
        kept = set(self.support)
        return tuple(state_str(row) for row in all_states(self.k) if state_str(row) not in kept)


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _sample_split(
    knowledge: Knowledge,
    states: tuple[str, ...],
    n_per_state: int,
    *,
    noise: float,
    n_distractors: int,
    rng,
) -> Split:
    k = knowledge.k
    if not states:
        return Split(
            np.zeros((0, k + n_distractors)),
            np.zeros((0, k), dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
    G = np.repeat(
        np.array([parse_state(s, k) for s in states], dtype=np.int64), n_per_state, axis=0
    )
    G = G[rng.permutation(len(G))]  # balanced per state, in random order
    # x_concept = (2g - 1) + noise * eps ; x_distractor ~ N(0, 1), concept-free.
    X = np.hstack(
        [
            (2.0 * G - 1.0) + noise * rng.standard_normal((len(G), k)),
            rng.standard_normal((len(G), n_distractors)),
        ]
    )
    return Split(X, G, knowledge.labels(G))


def make_task(
    knowledge: Knowledge,
    *,
    name: str,
    n_train_per_state: int,
    n_test_per_state: int,
    n_distractors: int = 2,
    support_frac: float = 1.0,
    noise: float = 0.25,
    seed: int = 0,
) -> ConceptTask:
    """A seeded concept task with train / test (support) and ood (complement) splits.

    A pure function of its arguments: the support is seeded by ``(seed, k)`` and the
    knowledge (:func:`support_stream`), each split's draws by ``(seed, name, split)``.
    """
    if not isinstance(knowledge, Knowledge):
        raise TypeError(f"knowledge must be a Knowledge, got {type(knowledge).__name__}")
    k = knowledge.k
    if k > MAX_TASK_K:
        raise InputError(
            f"k: a generated task enumerates its 2^k states; k must be <= {MAX_TASK_K}, got {k}"
        )
    n_train = _check_count(n_train_per_state, "n_train_per_state", 1)
    n_test = _check_count(n_test_per_state, "n_test_per_state", 1)
    n_distractors = _check_count(n_distractors, "n_distractors", 0)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not noise >= 0:
        raise InputError(f"noise must be a number >= 0, got {noise!r}")
    labels = knowledge.labels(all_states(k))
    if labels.min() == labels.max():
        raise InputError(
            f"knowledge: a task needs both labels among the 2^{k} states; {knowledge.describe()} "
            f"gives only label {labels[0]}"
        )
    support = support_states(k, support_frac, seed=seed, stream=support_stream(knowledge))
    unobserved = tuple(s for s in (state_str(r) for r in all_states(k)) if s not in set(support))
    draws = {
        "train": (support, n_train),
        "test": (support, n_test),
        "ood": (unobserved, n_test),
    }
    splits = {
        split: _sample_split(
            knowledge,
            states,
            n,
            noise=float(noise),
            n_distractors=n_distractors,
            rng=child_rng(seed, "task", name, split),
        )
        for split, (states, n) in draws.items()
    }
    return ConceptTask(
        name, knowledge, k, n_distractors, support, splits, float(support_frac), float(noise)
    )


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 2 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def certify_task(task: ConceptTask) -> dict:
    """Check every promise of the generator; raise ClaimFailed on the first broken one.

    Checked: y = K(g) on every point of every split; the train (and test)
    support equals the requested support; ood covers exactly its complement;
    corr(x_j, g_j) >= 0.9 for every concept coordinate and |corr(x_d, y)| <= 0.3
    for every distractor, both over the pooled points of all splits (a single
    split may hold a concept constant, e.g. at support {00, 10}).

    Returns the certificate numbers: per split ``points``, ``input_dims``,
    ``states``; pooled ``corr_concept`` and ``abs_corr_distractor``.
    """
    k, nd = task.k, task.n_distractors
    requested = sorted(task.support)
    complement = sorted(task.unobserved)
    out: dict = {
        "task": task.name,
        "k": k,
        "support": requested,
        "ood_states": complement,
        "splits": {},
    }
    for split in SPLITS:
        data = task.splits[split]
        check_claim(
            data.X.shape == (len(data), k + nd) and data.G.shape == (len(data), k),
            f"{task.name}/{split}: X is {data.X.shape}, G is {data.G.shape}, expected (n, "
            f"{k + nd}) and (n, {k})",
        )
        labels = task.knowledge.labels(data.G) if len(data) else data.Y
        check_claim(
            np.array_equal(labels, data.Y),
            f"{task.name}/{split}: y != K(g) on {int((labels != data.Y).sum())} points",
        )
        out["splits"][split] = {
            "points": len(data),
            "input_dims": k + nd,
            "states": data.states(),
            "labels_hold": True,
        }
    check_claim(
        out["splits"]["train"]["states"] == requested,
        f"{task.name}: train support {out['splits']['train']['states']} != requested {requested}",
    )
    check_claim(
        out["splits"]["test"]["states"] == requested,
        f"{task.name}: test support {out['splits']['test']['states']} != requested {requested}",
    )
    check_claim(
        out["splits"]["ood"]["states"] == complement,
        f"{task.name}: ood states {out['splits']['ood']['states']} != the complement {complement}",
    )
    X = np.vstack([task.splits[s].X for s in SPLITS])
    G = np.vstack([task.splits[s].G for s in SPLITS])
    Y = np.concatenate([task.splits[s].Y for s in SPLITS])
    corr_concept = [_corr(X[:, j], G[:, j]) for j in range(k)]
    corr_distractor = [abs(_corr(X[:, k + d], Y)) for d in range(nd)]
    for j, c in enumerate(corr_concept, start=1):
        check_claim(
            c >= CONCEPT_CORR_MIN,
            f"{task.name}: concept coordinate x{j} has corr(x_j, g_j) = {c:.3f} < "
            f"{CONCEPT_CORR_MIN}",
        )
    for d, c in enumerate(corr_distractor, start=1):
        check_claim(
            c <= DISTRACTOR_CORR_MAX,
            f"{task.name}: distractor {d} has |corr(x_d, y)| = {c:.3f} > {DISTRACTOR_CORR_MAX}",
        )
    out["corr_concept"] = corr_concept
    out["abs_corr_distractor"] = corr_distractor
    return out


POINT_COLUMNS = ["task", "support_frac", "split", "point", "x", "g", "y", "support"]


def task_rows(task: ConceptTask) -> list[tuple]:
    """One row per point of every split, in the layout of the generate stage's point tables.

    The support is kept in permutation order (``support`` column) so that a task
    read back with :func:`task_from_rows` is the task that was written.
    """
    support = ",".join(task.support)
    rows = []
    for split in SPLITS:
        data = task.splits[split]
        for i in range(len(data)):
            rows.append(
                (
                    task.name,
                    task.support_frac,
                    split,
                    i,
                    data.X[i].tolist(),
                    state_str(data.G[i]),
                    int(data.Y[i]),
                    support,
                )
            )
    return rows


def task_from_rows(points, task: CertifiedTask, *, support_frac: float) -> ConceptTask:
    """Rebuild the ConceptTask the generate stage wrote for ``task`` at ``support_frac`` (float64
    round-trips through Parquet exactly; the noise level is not recorded, so it is None)."""
    name, knowledge, n_distractors = task.name, task.knowledge, task.n_distractors
    rows = points[(points["task"] == name) & (points["support_frac"] == support_frac)]
    if rows.empty:
        raise InputError(
            f"no generated points for task {name!r} at support {support_frac:g}; rerun the "
            "generate stage"
        )
    k = knowledge.k
    splits = {}
    for split in SPLITS:
        part = rows[rows["split"] == split].sort_values("point")
        if part.empty:
            splits[split] = Split(
                np.zeros((0, k + n_distractors)),
                np.zeros((0, k), dtype=np.int64),
                np.zeros(0, dtype=np.int64),
            )
            continue
        X = np.array(part["x"].tolist(), dtype=float)
        G = np.array([parse_state(g, k) for g in part["g"]], dtype=np.int64)
        splits[split] = Split(X, G, part["y"].to_numpy(dtype=np.int64))
    support = tuple(rows["support"].iloc[0].split(","))
    return ConceptTask(
        name=name,
        knowledge=knowledge,
        k=k,
        n_distractors=n_distractors,
        support=support,
        splits=splits,
        support_frac=support_frac,
        noise=None,
    )


@dataclass(frozen=True)
class CertifiedTask:
    """A generated task as the generate stage certified it: the formula its labels obey and
    the width of its inputs (``k`` concept coordinates, then ``n_distractors``)."""

    name: str
    knowledge: Knowledge
    n_distractors: int


def certified_tasks(certificate: pd.DataFrame, *, source: str = "certificate") -> dict:
    """Every generated task by name, read off the generate stage's certificate.

    The one way a stage after generate loads a task: the formula is the one the generator
    certified its points against (``knowledge``, ``k``), never rebuilt from params.yaml, so a
    task has one source of truth however params change after generate ran.  Every row of a
    task (one per support fraction and split) must state the same formula and width.
    """
    out = {}
    for name, rows in certificate.groupby("task", sort=True):
        forms = sorted(
            set(zip(rows["knowledge"], rows["k"].astype(int), rows["n_distractors"].astype(int)))
        )
        if len(forms) != 1:
            raise InputError(
                f"{source}: task {name!r} must state one knowledge, k and n_distractors, got "
                f"{len(forms)} ({forms[:2]}); rerun the generate stage"
            )
        spec, k, n_distractors = forms[0]
        out[str(name)] = CertifiedTask(str(name), make_knowledge(str(spec), k), n_distractors)
    return out


def generated_tasks(ctx) -> dict:
    """The tasks a stage job after generate works on: :func:`certified_tasks` of the generate
    stage's certificate (a declared input of every rule that calls this)."""
    return certified_tasks(
        ctx.read_table("certificate", stage="generate"),
        source=str(ctx.registry.path("generate", "certificate")),
    )
