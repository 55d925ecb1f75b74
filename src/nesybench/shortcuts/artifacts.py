"""The jobs of the shortcuts instrument and the artifacts each writes (see nesybench.artifacts).

Everything trained is computed per seed, in blocks of ``seed_block`` consecutive seeds
(``<step>/block-<b>/`` folders; one job trains a block's models as one batch).  A block's params
omit the sweep keys, so raising ``n_seeds`` adds blocks and reruns none; the aggregates
read the blocks covering seeds ``0 .. n_seeds - 1``.

generate            concept tasks (demo, counting table, model datasets), certified
generate  digits    MNIST-Addition tuples per digit support, image pools, certificate, samples
count               N_opt per task x support x extractor, certified
count     rsbench   rsbench's named tasks: N_opt per family, greedy plans down to N_opt = 1
train     concepts  per block: label-only nets on every model dataset, the concept-supervised twin
train     exhibit   the head-to-head exhibit: the first collapsing seed of a declared scan, its twin
train     digits    per block: every digit support x mitigation model
score     concepts  per block: run outcomes (alpha, shortcut, collapse) and head-to-head panels
score     digits    per block: the digit panel, map, confusion, shortcut per model
score     aggregate distributions over seeds, claim rates, incidence, OOD, the exhibits
calibrate concepts  per block: temperature on the head-to-head nets' concept heads
calibrate digits    per block: the digit heads' calibrators (val -> test), before / after
calibrate aggregate distributions and claim rates of both; the exhibit's reliability
calibrate variant   per knob level and block: the concept-net blocks re-run with that level
calibrate sensitivity  every claim's rate at every measured knob level; kinds of optimum
"""

from __future__ import annotations

from ..artifacts import SEED_BLOCK, Job, Registry
from ..sensitivity import variant_instances

__all__ = ["ARTIFACTS", "RESCORED", "block_instances", "block_seeds", "n_blocks"]

# Knobs the sensitivity aggregate applies by rescoring finished runs (no variant jobs).
RESCORED = ("models.min_acc_y",)


def n_blocks(section) -> int:
    """Blocks covering seeds ``0 .. n_seeds - 1`` (the last may hold seeds beyond n_seeds)."""
    size = int(section["seed_block"])
    return -(-int(section["n_seeds"]) // size)


def block_instances(section) -> list[dict]:
    return [{SEED_BLOCK: b} for b in range(n_blocks(section))]


def block_seeds(block: int, seed_block: int) -> list[int]:
    """The seeds of one block: ``block * seed_block .. (block + 1) * seed_block - 1``.

    >>> block_seeds(2, 5)
    [10, 11, 12, 13, 14]
    """
    return list(range(int(block) * int(seed_block), (int(block) + 1) * int(seed_block)))


def _block(stage: str, step: str, tables: tuple[str, ...], doc: str) -> Job:
    return Job(
        stage,
        step,
        tables=tables,
        metrics=False,
        wildcards=(SEED_BLOCK,),
        instances=block_instances,
        doc=doc,
    )


ARTIFACTS = Registry(
    "shortcuts",
    [
        # Everything upstream of the blocks reads no sweep key: growing n_seeds reruns none.
        Job("generate", tables=("points", "certificate", "model_points"), sweep_free=True),
        Job(
            "generate",
            "digits",
            tables=(
                "digit_tuples",
                "digit_pools",
                "digit_supports",
                "digit_certificate",
                "digit_samples",
            ),
            sweep_free=True,
            doc="MNIST-Addition tuples of every digit support, with gold digits",
        ),
        Job(
            "count",
            tables=("n_opt", "dimacs", "categorical_counts", "categorical_plans"),
            plots=("n_opt",),
            sweep_free=True,
        ),
        Job(
            "count",
            "rsbench",
            tables=("rsbench_counts", "rsbench_plans", "rsbench_notes"),
            params=("rsbench",),
            doc="rsbench's named tasks: N_opt per family at each task's support, greedy plans",
        ),
        _block("train", "concepts", ("concept_weights",), "one block's concept nets"),
        Job(
            "train",
            "exhibit",
            tables=("exhibit_scan", "exhibit_concepts", "exhibit_labels", "exhibit_curves"),
            sweep_free=True,
            doc="the head-to-head exhibit: the first collapsing seed of the scan and its twin",
        ),
        _block(
            "train",
            "digits",
            ("digit_weights", "digit_label_predictions"),
            "one block's digit models",
        ),
        _block("score", "concepts", ("concept_runs", "concept_panels"), "one block's outcomes"),
        _block("score", "digits", ("digit_runs", "digit_confusion"), "one block's digit panels"),
        Job(
            "score",
            "aggregate",
            tables=(
                "h2h_summaries",
                "h2h_distribution",
                "h2h_claims",
                "exhibit",
                "exhibit_panel",
                "exhibit_alpha",
                "exhibit_occurrence",
                "ood",
                "incidence",
                "digit_summaries",
                "digit_distribution",
                "digit_claims",
                "digit_sweep",
                "digit_incidence",
                "digit_exhibit",
                "digit_exhibit_panel",
                "digit_exhibit_maps",
                "digit_exhibit_confusion",
            ),
            plots=("incidence", "digit_incidence"),
        ),
        _block(
            "calibrate",
            "concepts",
            ("concept_calibration",),
            "one block's concept-head calibration",
        ),
        _block(
            "calibrate",
            "digits",
            ("digit_calibration", "digit_reliability"),
            "one block's digit-head calibration",
        ),
        Job(
            "calibrate",
            "aggregate",
            tables=(
                "calibration_summaries",
                "calibration_distribution",
                "calibration_claims",
                "digit_calibration_table",
                "digit_exhibit_reliability",
            ),
        ),
        Job(
            "calibrate",
            "variant",
            tables=("variant_runs", "variant_panels", "variant_calibration"),
            metrics=False,
            wildcards=("variant", SEED_BLOCK),
            instances=variant_instances(block_instances, rescored=RESCORED),
            doc="one knob level, one block: the head-to-head and OOD nets retrained with it",
        ),
        Job(
            "calibrate",
            "sensitivity",
            tables=("sensitivity", "knobs", "optimum_kinds", "optimum_seeds"),
            doc="every claim at every measured knob level; the kind of optimum of each run",
        ),
    ],
)
