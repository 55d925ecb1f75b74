"""The jobs of the axes instrument and the artifacts each writes (see nesybench.artifacts)."""

from ..artifacts import Job, Registry

ARTIFACTS = Registry(
    "axes",
    [
        Job("generate", tables=("bank", "questions")),
        Job("count", tables=("depth_mix", "design")),
        Job("train", tables=("soft_reasoner",)),
        Job(
            "score",
            tables=("per_depth", "synonym_depth", "flip", "mixture", "gadgets"),
            plots=("per_depth",),
        ),
    ],
)
