"""The academic knowledge graph and the labelled set built from it.

The world is data (``data/academic_kg.yaml``): typed entities, relations and
the known-true triples, some marked ``heldout`` (true facts the link predictor
never trains on).  The world is closed: a triple not listed is false.

The labelled set reads link prediction as binary classification: every
known-true triple is a positive, and each positive gets ``corruptions``
seeded negatives made by replacing its head or its tail with a uniformly
drawn entity, redrawn until the result is neither a known-true triple nor a
duplicate of a negative already drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from ..errors import InputError
from ..seeds import child_rng

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class World:
    """Entities (in file order), their kinds, relations, and the known-true triples."""

    entities: tuple[str, ...]
    kinds: tuple[str, ...]
    relations: tuple[str, ...]
    train: tuple[Triple, ...]
    heldout: tuple[Triple, ...]

    @property
    def known_true(self) -> tuple[Triple, ...]:
        return self.train + self.heldout


def default_world_path() -> Path:
    return Path(str(resources.files("nesybench.calibration") / "data" / "academic_kg.yaml"))


def load_world(path: str | Path | None = None) -> World:
    """Read and check a world file; any defect is a ``InputError`` naming the file and field."""
    path = Path(path) if path is not None else default_world_path()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: world file not found") from None
    except yaml.YAMLError:
        raise InputError(f"{path}: not valid YAML") from None
    if not isinstance(raw, dict) or set(raw) != {"entities", "relations", "triples"}:
        raise InputError(
            f"{path}: the keys must be entities, relations, triples, got "
            f"{sorted(raw) if isinstance(raw, dict) else raw!r}"
        )
    entities, kinds = [], []
    for kind, names in raw["entities"].items():
        for name in names:
            entities.append(str(name))
            kinds.append(str(kind))
    if len(set(entities)) != len(entities):
        raise InputError(f"{path}: entities: names must be unique")
    relations = [str(r) for r in raw["relations"]]
    train, heldout = [], []
    for i, row in enumerate(raw["triples"]):
        if not (
            isinstance(row, list) and len(row) in (3, 4) and (len(row) == 3 or row[3] == "heldout")
        ):
            raise InputError(
                f"{path}: triples[{i}]: expected [head, relation, tail] or [head, relation, tail, "
                f"heldout], got {row!r}"
            )
        h, r, t = (str(x) for x in row[:3])
        if h not in entities or t not in entities or r not in relations:
            raise InputError(f"{path}: triples[{i}]: unknown entity or relation in {row!r}")
        (heldout if len(row) == 4 else train).append((h, r, t))
    if len(set(train + heldout)) != len(train) + len(heldout):
        raise InputError(f"{path}: triples: a triple is listed twice")
    return World(tuple(entities), tuple(kinds), tuple(relations), tuple(train), tuple(heldout))


def entity_table(world: World) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "entity_id": np.arange(len(world.entities)),
            "entity": list(world.entities),
            "kind": list(world.kinds),
        }
    )


def triple_table(triples, *, split: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "head": [h for h, _, _ in triples],
            "relation": [r for _, r, _ in triples],
            "tail": [t for _, _, t in triples],
            "split": split,
        }
    )


def corrupt(triple: Triple, entities, rng: np.random.Generator) -> Triple:
    """Replace the head or the tail (fair coin) by a uniformly drawn entity."""
    h, r, t = triple
    replace_head = rng.random() < 0.5
    e = entities[int(rng.integers(len(entities)))]
    return (e, r, t) if replace_head else (h, r, e)


def build_labelled(
    world: World, *, corruptions: int, seed: int, max_redraws: int = 10_000
) -> pd.DataFrame:
    """Every known-true triple as a positive plus ``corruptions`` seeded negatives each.

    Returns columns ``triple_id, head, relation, tail, label, source, parent``;
    ``source`` is ``train``/``heldout`` for positives and ``corruption`` for
    negatives, ``parent`` the ``triple_id`` of the positive a negative corrupts.
    """
    rng = child_rng(seed, "labelled-corruptions")
    known = set(world.known_true)
    rows = []
    for source, triples in (("train", world.train), ("heldout", world.heldout)):
        for tr in triples:
            rows.append((*tr, 1, source, -1))
    positives = list(rows)
    seen: set[Triple] = set()
    for parent, (h, r, t, *_rest) in enumerate(positives):
        for _ in range(corruptions):
            for _attempt in range(max_redraws):
                neg = corrupt((h, r, t), world.entities, rng)
                if neg not in known and neg not in seen:
                    break
            else:
                raise InputError(
                    f"world: cannot draw {corruptions} distinct corruptions of {(h, r, t)}; lower "
                    "calibration.corruptions"
                )
            seen.add(neg)
            rows.append((*neg, 0, "corruption", parent))
    df = pd.DataFrame(rows, columns=["head", "relation", "tail", "label", "source", "parent"])
    df.insert(0, "triple_id", np.arange(len(df)))
    return df


STRATIFY = ("label", "label_heldout")


def stratified_split(
    labels, *, seed: int, fraction: float = 0.5, heldout=None, stratify: str = "label"
) -> np.ndarray:
    """``"cal"``/``"eval"`` per row, the same share of each class in both halves.

    ``stratify="label"`` (the chapter's split): within each class the rows are permuted by a
    seeded generator and the first ``round(fraction * n_class)`` go to ``cal``; classes are
    processed in order 0, 1 so the result depends only on ``labels`` and ``seed``.  How many
    held-out true facts land in the evaluation half is then left to the draw
    (hypergeometric).

    ``stratify="label_heldout"`` also splits the held-out rows (``heldout``, booleans) as
    evenly as the class sizes allow: each class keeps its ``round(fraction * n_class)`` rows
    in ``cal``, shared out between its held-out and other rows by largest remainder, a tie
    going to a seeded side.  With 3 held-out facts in halves of 9 positives, the evaluation
    half holds 1 or 2 of them, never 0 or 3.
    """
    labels = np.asarray(labels)
    if stratify not in STRATIFY:
        raise InputError(
            f"calibration.stratify must be one of {', '.join(STRATIFY)}, got {stratify!r}"
        )
    if stratify == "label_heldout":
        return _split_label_heldout(labels, np.asarray(heldout, dtype=bool), seed, fraction)
    rng = child_rng(seed, "cal-eval-split")
    split = np.empty(labels.size, dtype=object)
    for cls in (0, 1):
        idx = np.flatnonzero(labels == cls)
        order = idx[rng.permutation(idx.size)]
        n_cal = int(round(fraction * idx.size))
        split[order[:n_cal]] = "cal"
        split[order[n_cal:]] = "eval"
    return split.astype(str)


def _split_label_heldout(labels, heldout, seed: int, fraction: float) -> np.ndarray:
    rng = child_rng(seed, "cal-eval-split", "label_heldout")
    split = np.full(labels.size, "eval", dtype=object)
    for cls in (0, 1):
        in_class = labels == cls
        n_cal = int(round(fraction * int(in_class.sum())))
        strata = [np.flatnonzero(in_class & (heldout == flag)) for flag in (True, False)]
        quota = [fraction * s.size for s in strata]
        take = [int(np.floor(q)) for q in quota]
        # largest remainder first; equal remainders in a seeded order
        ties = rng.permutation(len(strata))
        ranked = sorted(range(len(strata)), key=lambda i: (-(quota[i] - take[i]), int(ties[i])))
        for i in ranked[: n_cal - sum(take)]:
            take[i] += 1
        for rows, n in zip(strata, take):
            split[rows[rng.permutation(rows.size)][:n]] = "cal"
    return split.astype(str)
