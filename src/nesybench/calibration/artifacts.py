"""The calibration instrument's jobs and the artifacts each writes (see nesybench.artifacts).

Everything seeded is computed once per seed (``seed/seed-<s>/`` folders); ``calibrate aggregate``
summarises the sweep.
"""

from ..artifacts import SEED, Job, Registry

ARTIFACTS = Registry(
    "calibration",
    [
        Job("generate", tables=("entities", "train_triples", "heldout_triples"), params=()),
        Job(
            "generate",
            "seed",
            tables=("labelled",),
            wildcards=(SEED,),
            params=("corruptions", "cal_fraction"),
        ),
        Job("count", tables=("class_mix",), params=("n_seeds", "cal_fraction")),
        Job(
            "train",
            "seed",
            tables=("embeddings", "scores", "training_curve"),
            wildcards=(SEED,),
            params=("model",),
        ),
        Job(
            "score",
            "seed",
            tables=("before_reliability", "before_summary", "heldout_exhibit"),
            wildcards=(SEED,),
            params=("n_bins", "strategy"),
        ),
        Job(
            "calibrate",
            "seed",
            tables=(
                "after_reliability",
                "ledger",
                "invariance",
                "temperature_trace",
                "exhibit_after",
                "summary",
            ),
            wildcards=(SEED,),
            params=("n_bins", "strategy", "temperature", "platt_c"),
        ),
        Job(
            "calibrate",
            "aggregate",
            tables=("summaries", "distribution", "claims", "exhibit", "bootstrap"),
            plots=("reliability",),
        ),
    ],
)
