"""THE goal-directed prover: SLD resolution over Datalog with negation as failure.

Programs are plain data from :mod:`nesybench.reasoning.terms`: ground facts
(``Atom``) and rules (``Rule``) whose bodies are conjunctions of literals.  Atoms
are n-ary; arguments starting with an upper-case letter or ``_`` are variables.
There are no function symbols, so every program has a finite Herbrand base.

Search order is Prolog's: body literals left to right, and for each goal the
facts first, then the rules in listed order.  Two things make it total on
Datalog:

* **loop check with answer tables** -- a goal that is a variant (equal up to
  renaming of variables) of one of its ancestors does not recurse; it reuses
  the answers tabled for that variant so far, and the search is repeated until
  a pass finds no new answer (linear tabling).  This terminates on Datalog and
  finds every answer, left recursion included.
* **negation as failure** -- a body literal ``not a`` succeeds when ``a``,
  ground at that point, has no proof.  This is sound for stratified programs
  (no predicate depends negatively on itself) with safe rules (every variable
  of a negative literal is bound by an earlier positive one); a non-ground
  negative literal is a ``ValueError`` ("floundering"), not a silent guess.

:func:`prove` returns a :class:`Proof` tree (each node: the derived ground
atom, the rule used or None for a fact, the sub-proofs of its positive
premises, the atoms checked absent for its negative premises) or None.
:meth:`Proof.steps` flattens it to the chain of steps, premises first.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import InputError
from .terms import Atom, Literal, Rule, is_variable, substitute

__all__ = ["Proof", "ProofStep", "Prover", "prove", "substitute", "unify"]

Subst = dict[str, str]


@dataclass(frozen=True)
class ProofStep:
    """One inference: ``fact`` follows by ``rule`` from ``premises`` (and ``absent`` unprovable)."""

    fact: Atom
    rule: Rule | None
    premises: tuple[Atom, ...] = ()
    absent: tuple[Atom, ...] = ()


@dataclass(frozen=True)
class Proof:
    """A proof tree of a ground atom.  ``rule is None`` means a given fact."""

    atom: Atom
    rule: Rule | None = None
    premises: tuple[Proof, ...] = ()
    absent: tuple[Atom, ...] = ()

    @property
    def depth(self) -> int:
        """Rule applications on the longest branch (a given fact has depth 0)."""
        if self.rule is None:
            return 0
        return 1 + max((p.depth for p in self.premises), default=0)

    def steps(self) -> list[ProofStep]:
        """Post-order chain of steps: every premise appears before the step using it.

        Given facts appear as steps with ``rule=None``; a fact proved twice in the
        tree is listed once, at its first use.
        """
        out: list[ProofStep] = []
        seen: set[Atom] = set()

        def walk(node: Proof) -> None:
            for p in node.premises:
                walk(p)
            if node.atom not in seen:
                seen.add(node.atom)
                out.append(
                    ProofStep(
                        node.atom, node.rule, tuple(p.atom for p in node.premises), node.absent
                    )
                )

        walk(self)
        return out

    def derived(self) -> list[Atom]:
        """The derived (non-given) facts of :meth:`steps`, in order."""
        return [s.fact for s in self.steps() if s.rule is not None]


# ---------------------------------------------------------------- unification
def _walk(term: str, subst: Subst) -> str:
    while is_variable(term) and term in subst:
        term = subst[term]
    return term


def unify(a: Atom, b: Atom, subst: Subst | None = None) -> Subst | None:
    """Most general unifier of two atoms extending ``subst``, or None."""
    if a.pred != b.pred or len(a.args) != len(b.args):
        return None
    out = dict(subst or {})
    for x, y in zip(a.args, b.args):
        x, y = _walk(x, out), _walk(y, out)
        if x == y:
            continue
        if is_variable(x):
            out[x] = y
        elif is_variable(y):
            out[y] = x
        else:
            return None
    return out


def _variant_key(atom: Atom) -> tuple:
    """The atom with variables renamed by first occurrence: equal keys <=> variants."""
    names: dict[str, str] = {}
    args = []
    for t in atom.args:
        if is_variable(t):
            args.append(names.setdefault(t, f"_V{len(names)}"))
        else:
            args.append(t)
    return (atom.pred, tuple(args))


# ---------------------------------------------------------------- prover
class Prover:
    """An indexed program; :meth:`prove` answers goals against it.

    Building the index once and asking many goals is what the dual-query
    labeler and the translate-then-prove pipeline do.
    """

    def __init__(self, facts: Iterable[Atom], rules: Iterable[Rule], *, max_depth: int = 10_000):
        self.facts_by_pred: dict[str, list[Atom]] = defaultdict(list)
        # First-argument index (as in Prolog): a goal with a bound first argument
        # scans only the facts that can match it.
        self.facts_by_first: dict[tuple[str, str], list[Atom]] = defaultdict(list)
        seen: set[Atom] = set()
        for f in facts:
            if not f.is_ground:
                raise InputError(f"facts must be ground, got {f}")
            if f not in seen:
                seen.add(f)
                self.facts_by_pred[f.pred].append(f)
                if f.args:
                    self.facts_by_first[(f.pred, f.args[0])].append(f)
        self.rules_by_pred: dict[str, list[Rule]] = defaultdict(list)
        for r in rules:
            self.rules_by_pred[r.head.pred].append(r)
        self.max_depth = max_depth
        self._fresh = itertools.count()
        self._naf_stack: list[Atom] = []
        self._proved: dict[
            Atom, Proof
        ] = {}  # ground successes are reusable; failures are not (loop check)
        self._table: dict[tuple, dict[Atom, Proof]] = {}  # goal variant -> its answers found so far
        self._n_answers = 0

    def _rename(self, rule: Rule) -> Rule:
        n = next(self._fresh)
        mapping: dict[str, str] = {}

        def r(atom: Atom) -> Atom:
            return Atom(
                atom.pred,
                tuple(
                    mapping.setdefault(t, f"_R{n}_{t}") if is_variable(t) else t for t in atom.args
                ),
            )

        return Rule(r(rule.head), tuple(Literal(r(lit.atom), lit.positive) for lit in rule.body))

    def prove(self, goal: Atom) -> Proof | None:
        """First proof of ``goal`` (its variables bound to the first answer), or None."""
        for proof in self.solutions(goal):
            return proof
        return None

    def solutions(self, goal: Atom) -> Iterator[Proof]:
        """Proofs of distinct answers of ``goal``, in search order, until the answer tables are
        closed.

        A goal that repeats a variant of one of its ancestors does not recurse;
        it consumes the answers tabled for that variant so far.  Those tables may
        still be growing, so the search is re-run until a pass adds no answer
        (linear tabling): the fixpoint makes the search complete on Datalog.
        """
        emitted: set[Atom] = set()
        while True:
            before = self._n_answers
            try:
                for _subst, proof in self._solve(goal, {}, ()):
                    if proof.atom not in emitted:
                        emitted.add(proof.atom)
                        yield proof
            except RecursionError:
                # Each goal on the stack costs a few Python frames: ~300 nested goals fit.
                raise InputError(
                    f"proof search for {goal} is deeper than Python's recursion limit allows"
                ) from None
            if self._n_answers == before:
                return

    def _solve(self, goal: Atom, subst: Subst, ancestors: tuple) -> Iterator[tuple[Subst, Proof]]:
        goal = substitute(goal, subst)
        if goal.is_ground and goal in self._proved:
            yield subst, self._proved[goal]
            return
        key = _variant_key(goal)
        if key in ancestors or len(ancestors) >= self.max_depth:
            # Loop check: a repeated variant consumes tabled answers instead of recursing.
            for answer in list(self._table.get(key, {}).values()):
                s = unify(goal, answer.atom, subst)
                if s is not None:
                    yield s, answer
            return
        ancestors = ancestors + (key,)
        # An answer atom fixes every binding of the goal's variables, so a repeated
        # answer (tabled in an earlier pass and derived again) is skipped: without
        # this, nested non-ground goals would multiply duplicates pass after pass.
        seen: set[Atom] = set()
        for answer in list(self._table.get(key, {}).values()):
            s = unify(goal, answer.atom, subst)
            if s is not None:
                seen.add(answer.atom)
                yield s, answer
        if goal.args and not is_variable(goal.args[0]):
            candidates = self.facts_by_first.get((goal.pred, goal.args[0]), ())
        else:
            candidates = self.facts_by_pred.get(goal.pred, ())
        for fact in candidates:
            s = unify(goal, fact, subst)
            if s is not None and fact not in seen:
                seen.add(fact)
                proof = Proof(fact)
                self._remember(key, proof)
                yield s, proof
        for original in self.rules_by_pred.get(goal.pred, ()):
            rule = self._rename(original)
            s = unify(goal, rule.head, subst)
            if s is None:
                continue
            for s2, premises, absent in self._solve_body(rule.body, s, ancestors):
                head = substitute(rule.head, s2)
                if not head.is_ground:
                    raise InputError(
                        f"unsafe rule: head variables not bound by the body in {original}"
                    )
                if head in seen:
                    continue
                seen.add(head)
                proof = Proof(
                    head, original, premises, absent
                )  # cite the rule as the program states it
                self._remember(key, proof)
                yield s2, proof

    def _solve_body(self, body: tuple[Literal, ...], subst: Subst, ancestors: tuple):
        if not body:
            yield subst, (), ()
            return
        first, rest = body[0], body[1:]
        if first.positive:
            for s, proof in self._solve(first.atom, subst, ancestors):
                for s2, premises, absent in self._solve_body(rest, s, ancestors):
                    yield s2, (proof, *premises), absent
        else:
            atom = substitute(first.atom, subst)
            if not atom.is_ground:
                raise InputError(
                    f"floundering: negative literal 'not {atom}' is not ground when selected"
                )
            # Negation as failure runs in a fresh context: stratification means the
            # negated atom cannot depend on the goal we are inside.
            if atom in self._naf_stack:
                raise InputError(f"program is not stratified: 'not {atom}' depends on itself")
            self._naf_stack.append(atom)
            try:
                provable = self.prove(atom) is not None
            finally:
                self._naf_stack.pop()
            if not provable:
                for s2, premises, absent in self._solve_body(rest, subst, ancestors):
                    yield s2, premises, (atom, *absent)

    def _remember(self, key: tuple, proof: Proof) -> None:
        if proof.atom not in self._proved:
            self._proved[proof.atom] = proof
        answers = self._table.setdefault(key, {})
        if proof.atom not in answers:
            answers[proof.atom] = proof
            self._n_answers += 1


def prove(
    goal: Atom, facts: Iterable[Atom], rules: Iterable[Rule], *, max_depth: int = 10_000
) -> Proof | None:
    """Prove ``goal`` from ``facts`` and ``rules`` by SLD resolution; the proof tree or None.

    Parameters
    ----------
    goal : Atom, ground or with variables (bound to the first answer found).
    facts : ground atoms.
    rules : Datalog rules, body literals positive or negated as failure.
    max_depth : bound on the goal stack (a safety net; the loop check already
        makes the search finite on Datalog).

    Examples
    --------
    >>> from nesybench.reasoning.terms import Atom, Literal, Rule
    >>> r = Rule(Atom("mortal", ("X",)), (Literal(Atom("man", ("X",))),))
    >>> [str(s.fact) for s in prove(Atom("mortal", ("sam",)), [Atom("man", ("sam",))], [r]).steps()]
    ['man(sam)', 'mortal(sam)']
    """
    return Prover(facts, rules, max_depth=max_depth).prove(goal)
