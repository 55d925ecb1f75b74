"""The axes instrument's jobs and the artifacts each writes (see nesybench.artifacts).

Everything sampled (the depth bank, the grid, both soft reasoners, the flip probe's edits)
is computed once per seed (``seed/seed-<s>/`` folders); ``score gadgets`` runs the seven gadgets
(unseeded, but for one seeded draw checked on every seed) and ``score aggregate``
summarises the sweep.
"""

from ..artifacts import SEED, Job, Registry, seed_values
from ..sensitivity import variant_instances


def _seeds(section) -> list[dict]:
    return [{SEED: s} for s in seed_values(section)]


ARTIFACTS = Registry(
    "axes",
    [
        Job(
            "generate",
            "seed",
            tables=("bank", "questions", "grid", "grid_train"),
            wildcards=(SEED,),
        ),
        Job("count", tables=("depth_mix", "design")),
        Job("train", "seed", tables=("soft_reasoner", "grid_soft_reasoner"), wildcards=(SEED,)),
        Job(
            "score",
            "seed",
            tables=(
                "per_depth",
                "synonym_depth",
                "flip",
                "mixture",
                "grid_answers",
                "grid_profile",
                "grid_interaction",
                "grid_cells",
                "summary",
            ),
            wildcards=(SEED,),
        ),
        Job("score", "gadgets", tables=("gadgets", "gadget_query_joins", "gadget_scale")),
        Job(
            "score",
            "aggregate",
            tables=(
                "summaries",
                "distribution",
                "claims",
                "exhibit",
                "per_depth_over_seeds",
                "profile_over_seeds",
                "interaction_over_seeds",
                "coefficients_over_seeds",
                "exhibit_coefficients",
            ),
            plots=("per_depth", "profile"),
        ),
        Job(
            "score",
            "variant",
            tables=("variant_summary",),
            metrics=False,
            wildcards=("variant", SEED),
            instances=variant_instances(_seeds),
            params=("bank", "lexical", "soft_reasoner"),
            doc="one knob level, one seed: the depth bank generated, trained and scored with it",
        ),
        Job(
            "score",
            "sensitivity",
            tables=("sensitivity", "knobs", "sensitivity_mixture"),
            doc="every claim at every measured knob level; the mixture numbers at each level",
        ),
    ],
)
