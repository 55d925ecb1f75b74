"""The nli instrument's jobs and the artifacts each writes (see nesybench.artifacts).

The corpora are sampled, so everything computed on them runs once per seed (``seed/seed-<s>/``
folders); ``score aggregate`` summarises the sweep.  ``score benchmarks`` measures the
vendored real benchmark files and has no seed.
"""

from ..artifacts import SEED, Job, Registry, seed_values
from ..sensitivity import variant_instances


def _seeds(section) -> list[dict]:
    return [{SEED: s} for s in seed_values(section)]


ARTIFACTS = Registry(
    "nli",
    [
        Job("generate", "seed", tables=("prontoqa", "folio"), wildcards=(SEED,)),
        Job("count", tables=("label_mix", "depth_mix")),
        Job(
            "score",
            "seed",
            tables=(
                "traces",
                "per_depth",
                "metric_trap",
                "worked_example",
                "worked_example_text",
                "folio_predictions",
                "folio_per_label",
                "summary",
            ),
            wildcards=(SEED,),
        ),
        Job(
            "score",
            "aggregate",
            tables=(
                "summaries",
                "distribution",
                "claims",
                "exhibit",
                "per_depth_dist",
                "metric_trap_dist",
                "folio_dist",
                "label_mix_dist",
            ),
            plots=("per_depth",),
        ),
        Job(
            "score",
            "benchmarks",
            tables=("inventory", "agreement", "folio_audit", "score_nli", "score_nli_depth"),
            params=(),
        ),
        Job(
            "score",
            "programs",
            tables=(
                "programs",
                "program_causes",
                "program_disagreements",
                "program_depths",
                "program_failures",
                "checker_agreement",
            ),
            params=(),
            doc="LLM-written logic programs in two semantics; the checker vs PrOntoQA's",
        ),
        Job(
            "score",
            "variant",
            tables=("variant_summary",),
            metrics=False,
            wildcards=("variant", SEED),
            instances=variant_instances(_seeds),
            doc="one knob level, one seed: the seed's corpora drawn and scored with it",
        ),
        Job(
            "score",
            "sensitivity",
            tables=("sensitivity", "knobs"),
            doc="every claim at every measured knob level (nesybench.sensitivity)",
        ),
    ],
)
