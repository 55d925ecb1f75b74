"""The jobs of the nli instrument and the artifacts each writes (see nesybench.artifacts)."""

from ..artifacts import Job, Registry

ARTIFACTS = Registry(
    "nli",
    [
        Job("generate", tables=("prontoqa", "folio")),
        Job("count", tables=("label_mix", "depth_mix")),
        Job(
            "score",
            tables=(
                "traces",
                "per_depth",
                "metric_trap",
                "worked_example",
                "worked_example_text",
                "folio_predictions",
                "folio_per_label",
            ),
            plots=("per_depth",),
        ),
    ],
)
