"""Seven gadgets, one per difficulty axis beyond completeness.

Each module pins the completeness axis (a full fixpoint, recall exactly 1, or
equal derivation depth across the compared conditions) and still shows its
own failure; ``run_*`` measures, ``check_*`` asserts the pin and the failure
with :func:`nesybench.errors.check_claim`.
"""

from . import proof_width, query_joins, scale, semantics, soundness, termination, trust

GADGETS = ("soundness", "termination", "proof_width", "query_joins", "semantics", "trust", "scale")
MODULES = {
    "soundness": soundness,
    "termination": termination,
    "proof_width": proof_width,
    "query_joins": query_joins,
    "semantics": semantics,
    "trust": trust,
    "scale": scale,
}
