"""Axis 5, semantics change: adding a fact retracts a conclusion.

The Horn core of the academic world is checked monotone under each candidate
fact addition, lfp(F) subset of lfp(F + {f}); then one stratified
negation-as-failure rule, independent(X) if person(X) and not advised(X), makes
the consequence operator antimonotone: adding advises(bob, alice) retracts
independent(alice).  Depth is unchanged; the algebra of the fixpoint is not.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError, check_claim
from ...reasoning.chainer import forward_chain
from ...reasoning.terms import Atom
from ...seeds import child_rng
from . import academic


@dataclass(frozen=True)
class SemanticsResult:
    n_candidates: int
    n_monotone: int
    independent_before: tuple[str, ...]
    independent_after: tuple[str, ...]
    added: str


def candidate_additions(n: int, *, seed: int) -> list[Atom]:
    """``n`` seeded facts drawn from every missing ground atom of the world's stated predicates."""
    present = set(academic.facts())
    pool = [
        academic.atom("advises", x, y) for x in academic.PEOPLE for y in academic.PEOPLE if x != y
    ]
    pool += [academic.atom(c, p) for c in ("professor", "student") for p in academic.PEOPLE]
    pool = sorted(a for a in pool if a not in present)
    if not 1 <= n <= len(pool):
        raise InputError(f"n must be in [1, {len(pool)}], got {n}")
    rng = child_rng(seed, "semantics")
    return [pool[int(i)] for i in sorted(rng.choice(len(pool), size=n, replace=False))]


def run(n_candidates: int = 20, *, seed: int = 0) -> SemanticsResult:
    facts, core = academic.facts(), academic.horn_rules()
    base = set(forward_chain(facts, core).atoms)
    monotone = sum(
        base <= set(forward_chain(facts + [f], core).atoms)
        for f in candidate_additions(n_candidates, seed=seed)
    )
    rules = core + [academic.naf_rule()]
    added = academic.atom("advises", "bob", "alice")
    before = forward_chain(facts, rules).relation("independent")
    after = forward_chain(facts + [added], rules).relation("independent")
    return SemanticsResult(
        n_candidates,
        int(monotone),
        tuple(a[0] for a in before),
        tuple(a[0] for a in after),
        str(added),
    )


def check(r: SemanticsResult) -> None:
    check_claim(
        r.n_monotone == r.n_candidates,
        f"semantics: the Horn core must be monotone under all {r.n_candidates} additions, got "
        f"{r.n_monotone}",
    )
    check_claim(
        r.independent_before == ("alice",),
        f"semantics: independent(alice) must hold before, got {r.independent_before}",
    )
    check_claim(
        "alice" not in r.independent_after,
        f"semantics: adding {r.added} must retract independent(alice), got {r.independent_after}",
    )
