"""The calibration instrument's jobs and the artifacts each writes (see nesybench.artifacts)."""

from ..artifacts import Job, Registry

ARTIFACTS = Registry(
    "calibration",
    [
        Job("generate", tables=("entities", "train_triples", "heldout_triples", "labelled")),
        Job("count", tables=("class_mix",)),
        Job("train", tables=("embeddings", "scores", "training_curve")),
        Job("score", tables=("before_reliability", "before_summary", "heldout_exhibit")),
        Job(
            "calibrate",
            tables=(
                "after_reliability",
                "ledger",
                "invariance",
                "temperature_trace",
                "bootstrap",
                "exhibit_after",
            ),
            plots=("reliability",),
        ),
    ],
)
