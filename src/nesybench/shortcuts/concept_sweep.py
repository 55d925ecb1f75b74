"""The concept-bottleneck models over seeds: every number of the head-to-head, OOD and incidence.

Each sweep seed ``s`` is one initialisation per task, ``child_seed(s, "shortcuts",
"init", task)``.  On every dataset the models use (a task at a support fraction, as the
generate stage wrote it), seed ``s`` trains one label-only net; on the head-to-head
dataset it also trains the concept-supervised twin from the SAME initialisation, with
concept labels on ``concept_sup_points`` training points (stratified by state, stream
``("shortcuts", "concept_sup")`` of ``s``).  The label-only run of seed ``s`` on the
head-to-head dataset is therefore the same run whether it is read as the head-to-head,
an incidence cell or the exhibit scan: one model, one number.

Seeds are trained as one batch (:func:`nesybench.shortcuts.model.train` trains ``B``
models side by side), which is why a job takes a block of seeds.

Functions here compute; the stage functions in :mod:`.pipeline` read, call and write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..logic.knowledge import Knowledge, all_states, state_str
from ..seeds import child_rng, child_seed
from .concept_table import concept_table
from .incidence import evaluate_runs, runs_frame
from .model import (
    ConceptNetConfig,
    ConceptNetParams,
    KnowledgeTable,
    concept_logits,
    concept_probs,
    init_params,
    predict_labels,
    train,
)
from .panel import concept_panel, learned_relabeling, predicted_concepts
from .tasks import CertifiedTask, task_from_rows
from .weights import read_weights, weights_table

__all__ = [
    "MODELS",
    "ConceptData",
    "model_config",
    "model_datasets",
    "load_dataset",
    "init_seeds",
    "supervised_points",
    "train_block",
    "block_weights",
    "batch_from_weights",
    "run_rows",
    "panel_rows",
    "head_logits",
    "calibration_rows",
    "prediction_tables",
    "exhibit_pair",
    "count_survivors",
    "empty_predictions",
]

MODELS = ("label_only", "concept_sup")
WEIGHT_NAMES = ("W1", "b1", "W2", "b2")
WEIGHT_KEYS = ["task", "support_frac", "seed", "model"]


@dataclass(frozen=True)
class ConceptData:
    """One (task, support fraction) dataset of the concept models, as the generate stage wrote
    it: the knowledge, its lookup table, the observed support and ``(X, G, Y)`` per split."""

    task: str
    support_frac: float
    knowledge: Knowledge
    kb: KnowledgeTable
    support: tuple[str, ...]
    splits: dict

    @property
    def n_train(self) -> int:
        return int(len(self.splits["train"][2]))


def model_config(models: dict) -> ConceptNetConfig:
    """The net and its training run, from ``shortcuts.models``."""
    return ConceptNetConfig(
        hidden=int(models["hidden"]),
        epochs=int(models["epochs"]),
        lr=float(models["lr"]),
        init_scale_hidden=float(models["init_scale_hidden"]),
        init_scale_heads=float(models["init_scale_heads"]),
        concept_weight=float(models["concept_weight"]),
        bias_init=str(models["bias_init"]),
        bias_scale=float(models["bias_scale"]),
    )


def model_datasets(params: dict) -> list[tuple[str, float]]:
    """(task, support) of every dataset the concept models train on, sorted: the
    head-to-head's, the OOD batch's and every incidence cell's."""
    models, incidence = params["models"], params["incidence"]
    pairs = {
        (models["task"], float(models["support_frac"])),
        (models["task"], float(models["ood_support_frac"])),
    }
    pairs |= {(t, float(f)) for t in incidence["tasks"] for f in incidence["support_fracs"]}
    return sorted(pairs)  # every task a key of params["tasks"] (the schema's x-key-of)


def load_dataset(points: pd.DataFrame, task: CertifiedTask, support_frac: float):
    """The dataset ``(task, support_frac)`` read back from the generate stage's model points,
    with the task's certified formula (:func:`.tasks.certified_tasks`)."""
    knowledge = task.knowledge
    data = task_from_rows(points, task, support_frac=float(support_frac))
    states = all_states(knowledge.k)
    splits = {
        name: (
            np.asarray(s.X, dtype=float),
            np.asarray(s.G, dtype=np.int64),
            np.asarray(s.Y, dtype=np.int64),
        )
        for name, s in data.splits.items()
    }
    return ConceptData(
        task=task.name,
        support_frac=float(support_frac),
        knowledge=knowledge,
        kb=KnowledgeTable(states, knowledge.labels(states)),
        support=tuple(data.support),
        splits=splits,
    )


def init_seeds(seeds: Sequence[int], task: str) -> list[np.random.SeedSequence]:
    """The initialisation of every sweep seed on ``task`` (stream ``("shortcuts", "init", task)``).

    >>> a, b = init_seeds([3, 3], "xor2")
    >>> a.generate_state(1).tolist() == b.generate_state(1).tolist()
    True
    """
    return [child_seed(int(s), "shortcuts", "init", task) for s in seeds]


def supervised_points(G: np.ndarray, n_points: int, *, seed: int) -> np.ndarray:
    """Sorted indices of the training points whose concept labels the twin of ``seed`` sees.

    Stratified by true state: round robin over the states (sorted), each state's points
    in a seeded order (stream ``("shortcuts", "concept_sup")`` of ``seed``), so 12 of 120
    points cover each of 4 states 3 times instead of leaving coverage to chance.

    >>> G = np.array([[0, 0]] * 5 + [[1, 1]] * 5)
    >>> sorted({tuple(G[i].tolist()) for i in supervised_points(G, 2, seed=0)})
    [(0, 0), (1, 1)]
    """
    rng = child_rng(int(seed), "shortcuts", "concept_sup")
    keys = [state_str(row) for row in G]
    per_state = {}
    for key in sorted(set(keys)):
        idx = np.array([i for i, kk in enumerate(keys) if kk == key], dtype=np.int64)
        per_state[key] = list(rng.permutation(idx))
    chosen: list[int] = []
    while len(chosen) < n_points and any(per_state.values()):
        for key in sorted(per_state):
            if per_state[key] and len(chosen) < n_points:
                chosen.append(int(per_state[key].pop(0)))
    return np.array(sorted(chosen), dtype=np.int64)


def train_block(
    data: ConceptData,
    *,
    seeds: Sequence[int],
    config: ConceptNetConfig,
    twin_points: int | None = None,
    label_only: bool = True,
    callback=None,
):
    """Train the label-only net of every seed on ``data`` and, with ``twin_points``, each
    seed's concept-supervised twin from the same initialisation, all as one batch
    (``label_only=False``: the twins only).

    Returns ``(result, keys)``: the :class:`~nesybench.shortcuts.model.TrainResult` and, per
    model of the batch, ``(seed, model)`` with model ``label_only`` or ``concept_sup``.
    """
    X, G, Y = data.splits["train"]
    init, keys, masks = [], [], []
    if label_only:
        init += init_seeds(seeds, data.task)
        keys += [(int(s), "label_only") for s in seeds]
        masks += [np.zeros(len(Y)) for _ in seeds]
    if twin_points:
        init += init_seeds(seeds, data.task)  # the twin starts from its sibling's weights
        keys += [(int(s), "concept_sup") for s in seeds]
        for s in seeds:
            mask = np.zeros(len(Y))
            mask[supervised_points(G, twin_points, seed=s)] = 1.0
            masks.append(mask)
    if not keys:
        raise InputError("train_block: nothing to train (no label-only nets and no twins)")
    p0 = init_params(init, n_inputs=X.shape[1], n_concepts=data.kb.n_concepts, config=config)
    result = train(p0, X, Y, G, data.kb, sup_mask=np.stack(masks), config=config, callback=callback)
    return result, keys


def block_weights(data: ConceptData, params: ConceptNetParams, keys) -> pd.DataFrame:
    """The trained weights of a batch as a table keyed by (task, support_frac, seed, model)."""
    models = {
        (data.task, data.support_frac, seed, model): {
            name: getattr(params, name)[b] for name in WEIGHT_NAMES
        }
        for b, (seed, model) in enumerate(keys)
    }
    return weights_table(models, keys=WEIGHT_KEYS)


def batch_from_weights(table: pd.DataFrame, data: ConceptData) -> tuple[ConceptNetParams, list]:
    """The batch of ``data``'s models stored in a weights table, and their ``(seed, model)``."""
    rows = table[(table["task"] == data.task) & (table["support_frac"] == data.support_frac)]
    weights = read_weights(rows, keys=WEIGHT_KEYS)
    keys = sorted((seed, model) for _, _, seed, model in weights)
    if not keys:
        raise InputError(
            f"no trained weights for task {data.task!r} at support {data.support_frac:g}; "
            "rerun the train stage"
        )
    arrays = [weights[(data.task, data.support_frac, s, m)] for s, m in keys]
    params = ConceptNetParams(*(np.stack([a[name] for a in arrays]) for name in WEIGHT_NAMES))
    return params, keys


def run_rows(params: ConceptNetParams, keys, data: ConceptData, *, min_acc_y: float):
    """One row per model: test/ood AccY, test AccC, alpha, label-perfect, shortcut, collapse."""
    outcomes = evaluate_runs(
        params, data.kb, data.splits, data.support, knowledge=data.knowledge, min_acc_y=min_acc_y
    )
    runs = runs_frame(outcomes, task=data.task, support_frac=data.support_frac)
    runs.insert(2, "seed", [s for s, _ in keys])
    runs.insert(3, "model", [m for _, m in keys])
    return runs.drop(columns=["seed_index"])


def _split_probs(params: ConceptNetParams, data: ConceptData, split: str):
    X, G, Y = data.splits[split]
    p = concept_probs(params, X, n_concepts=data.kb.n_concepts)
    return G, Y, p, predict_labels(params, X, data.kb)


PANEL_KEYS = ("acc_y", "acc_c", "f1_c", "cls_c", "cls_c_count", "ece_c")


def panel_rows(params: ConceptNetParams, keys, data: ConceptData, *, split: str = "test"):
    """The concept panel of every model on ``split``: one row per model with the panel's
    numbers, the learned relabeling alpha and the occurrence vector."""
    G, Y, p, y_pred = _split_probs(params, data, split)
    k = data.kb.n_concepts
    rows = []
    for b, (seed, model) in enumerate(keys):
        probs = [p[b, :, j, :] for j in range(k)]
        panel = concept_panel(G, probs, y_true=Y, y_pred=y_pred[b])
        alpha = learned_relabeling(G, predicted_concepts(probs))
        rows.append(
            {
                "seed": int(seed),
                "model": model,
                **{key: float(panel[key]) for key in PANEL_KEYS},
                "alpha": " ".join(f"{g}->{alpha[g]}" for g in sorted(alpha)),
                "occurrence": [int(v) for v in panel["occurrence"]],
                "n_points": int(panel["n_points"]),
            }
        )
    return pd.DataFrame(rows)


def head_logits(params: ConceptNetParams, data: ConceptData, split: str):
    """Every concept head's logits pooled over (point, concept): ``(B, n * k, V)`` and the gold
    values ``(n * k,)`` (point-major: point ``i``, concept ``j`` is row ``i * k + j``)."""
    X, G, _ = data.splits[split]
    z = concept_logits(params, X, n_concepts=data.kb.n_concepts)
    B, n, k, V = z.shape
    return z.reshape(B, n * k, V), G.reshape(n * k)


def calibration_rows(
    params: ConceptNetParams, keys, data: ConceptData, *, method: str = "temperature"
) -> pd.DataFrame:
    """Calibrate every model's concept heads (all heads pooled, one fit per model): fitted on
    the training split, audited on the test split.  One row per model."""
    from .heads import calibrate_heads, repair_row

    z_cal, g_cal = head_logits(params, data, "train")
    z_eval, g_eval = head_logits(params, data, "test")
    rows = []
    for b, (seed, model) in enumerate(keys):
        rep = calibrate_heads(z_cal[b], g_cal, z_eval[b], g_eval, method=method)
        rows.append({"seed": int(seed), "model": model, **repair_row(rep)})
    return pd.DataFrame(rows)


def prediction_tables(params: ConceptNetParams, names: Sequence[str], data: ConceptData):
    """The long concept table (model, split, point, concept, gold, probs, logits) and the label
    table (model, split, point, y_true, y_pred) of every split with points."""
    concept_frames, label_frames = [], []
    for split in sorted(data.splits):
        if len(data.splits[split][2]) == 0:
            continue
        G, Y, p, y_pred = _split_probs(params, data, split)
        z = concept_logits(params, data.splits[split][0], n_concepts=data.kb.n_concepts)
        points = np.arange(len(Y), dtype=np.int64)
        for b, name in enumerate(names):
            df = concept_table(
                points,
                G,
                [p[b, :, j, :] for j in range(G.shape[1])],
                logits=[z[b, :, j, :] for j in range(G.shape[1])],
            )
            df.insert(0, "split", split)
            df.insert(0, "model", name)
            concept_frames.append(df)
            label_frames.append(
                pd.DataFrame(
                    {
                        "model": name,
                        "split": split,
                        "point": points,
                        "y_true": Y.astype(np.int64),
                        "y_pred": y_pred[b].astype(np.int64),
                    }
                )
            )
    return pd.concat(concept_frames, ignore_index=True), pd.concat(label_frames, ignore_index=True)


def exhibit_pair(data: ConceptData, scan, seed: int | None, *, config, twin_points: int):
    """The exhibit's two nets: seed ``seed``'s label-only net from the scan (``scan`` trained
    seeds ``0, 1, ...`` in order) and its concept-supervised twin, trained here from the same
    initialisation; with their label and concept NLL per epoch.  ``(None, empty curves)``
    when no seed was picked."""
    columns = ["model", "epoch", "label_nll", "concept_nll"]
    if seed is None:
        return None, pd.DataFrame(columns=columns).astype({"epoch": "int64"})
    twin, _ = train_block(
        data, seeds=[seed], config=config, twin_points=int(twin_points), label_only=False
    )
    b = int(seed)
    pair = ConceptNetParams(
        *(
            np.concatenate([getattr(scan.params, n)[b : b + 1], getattr(twin.params, n)])
            for n in WEIGHT_NAMES
        )
    )
    epochs = np.arange(config.epochs + 1, dtype=np.int64)
    curves = pd.DataFrame(
        {
            "model": np.repeat(MODELS, len(epochs)),
            "epoch": np.tile(epochs, 2),
            "label_nll": np.concatenate([scan.label_nll[:, b], twin.label_nll[:, 0]]),
            "concept_nll": np.concatenate([scan.concept_nll[:, b], twin.concept_nll[:, 0]]),
        }
    )
    return pair, curves


def empty_predictions() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The concept and label tables of :func:`prediction_tables` with no rows."""
    concepts = pd.DataFrame(
        {
            "model": pd.Series(dtype=str),
            "split": pd.Series(dtype=str),
            "point": pd.Series(dtype="int64"),
            "concept": pd.Series(dtype="int64"),
            "gold": pd.Series(dtype="int64"),
            "probs": pd.Series(dtype=object),
            "logits": pd.Series(dtype=object),
        }
    )
    labels = pd.DataFrame(
        {
            "model": pd.Series(dtype=str),
            "split": pd.Series(dtype=str),
            "point": pd.Series(dtype="int64"),
            "y_true": pd.Series(dtype="int64"),
            "y_pred": pd.Series(dtype="int64"),
        }
    )
    return concepts, labels


def count_survivors(knowledge: Knowledge, support: Sequence[str]) -> dict:
    """The optima of the biased ``support`` and those that stay label-correct on every state.

    By enumeration of every map G -> G (the counter's :func:`~nesybench.counting.is_optimum`
    on each) while there are at most the counter's enumeration limit of maps (k <= 2);
    beyond that from the counter's factorization: a survivor is exactly an optimum on all
    states.  Returns ``n_opt_biased``, ``n_survivors``, ``counted_by`` and, for the
    structural check, ``n_opt_counter`` (the counter on the support) and ``n_opt_full``.
    """
    import itertools

    from ..counting import count_optima, is_optimum
    from ..counting.oracles import JOINT_ENUMERATION_LIMIT

    states = [state_str(s) for s in all_states(knowledge.k)]
    n_counter = count_optima(knowledge, list(support)).n_opt
    n_full = count_optima(knowledge, None).n_opt
    out = {"n_opt_counter": n_counter, "n_opt_full": n_full}
    if len(states) ** len(states) > JOINT_ENUMERATION_LIMIT:
        return {**out, "n_opt_biased": n_counter, "n_survivors": n_full, "counted_by": "factored"}
    n_opt = n_survive = 0
    for images in itertools.product(states, repeat=len(states)):
        alpha = dict(zip(states, images))
        if is_optimum(alpha, knowledge, list(support)):
            n_opt += 1
            n_survive += is_optimum(alpha, knowledge, states)
    return {**out, "n_opt_biased": n_opt, "n_survivors": n_survive, "counted_by": "enumeration"}
