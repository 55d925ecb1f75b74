"""The calibration instrument's jobs and the artifacts each writes (see nesybench.artifacts).

Everything seeded is computed once per seed (``seed/seed-<s>/`` folders); ``calibrate aggregate``
summarises the sweep.  ``calibrate variant`` re-runs one seed's chain with one knob level
(``variant/variant-<knob>=<level>/seed-<s>/``); ``calibrate sensitivity`` tabulates every claim at
every measured level, and the claims conditional on the held-out facts in the eval half.
"""

from ..artifacts import SEED, Job, Registry, seed_values
from ..sensitivity import variant_instances

# The keys one seed's chain reads (generate seed, train seed, calibrate seed): a variant
# job's params, so adding a level or a seed reruns no finished variant.
CHAIN_PARAMS = (
    "corruptions",
    "cal_fraction",
    "stratify",
    "model",
    "n_bins",
    "strategy",
    "temperature",
    "platt_c",
)


def _seeds(section) -> list[dict]:
    return [{SEED: s} for s in seed_values(section)]


ARTIFACTS = Registry(
    "calibration",
    [
        Job("generate", tables=("entities", "train_triples", "heldout_triples"), params=()),
        Job(
            "generate",
            "seed",
            tables=("labelled",),
            wildcards=(SEED,),
            params=("corruptions", "cal_fraction", "stratify"),
        ),
        Job("count", tables=("class_mix",), params=("n_seeds", "cal_fraction", "stratify")),
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
        Job(
            "calibrate",
            "variant",
            tables=("variant_summary",),
            metrics=False,
            wildcards=("variant", SEED),
            instances=variant_instances(_seeds),
            params=CHAIN_PARAMS,
            doc="one knob level, one seed: the seed's chain (generate, train, calibrate) re-run",
        ),
        Job(
            "calibrate",
            "sensitivity",
            tables=("sensitivity", "knobs", "conditional"),
            doc="every claim at every measured knob level; claims by held-out facts in eval",
        ),
    ],
)
