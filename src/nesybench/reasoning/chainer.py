"""The one forward chainer of nesybench: Datalog with stratified negation as failure.

Three separate things, datafrog style:

* **facts** -- ground :class:`~nesybench.reasoning.terms.Atom` objects (depth 0);
* **rules** -- :class:`~nesybench.reasoning.terms.Rule` objects, n-ary, with
  variables and negated body literals (negation as failure);
* **the fixpoint loop** -- :func:`forward_chain`, which only asks "did this wave
  add anything?".

Depth semantics
---------------
The depth of an atom is the first wave of the immediate-consequence operator

    T(I) = facts  U  { h.theta : (h :- B+, not B-) in rules,
                               B+.theta subset of I,  B-.theta disjoint from M }

in which it appears (facts are at depth 0), where ``M`` is the perfect model
of the stratified program.  When no negated predicate is derived by a rule,
``M`` restricted to negated predicates is just the facts and one pass suffices;
otherwise the strata are first evaluated in order to obtain ``M`` and the
depths are then read off the same operator with negation checked against ``M``
(the perfect model is the least model of that reduct, which is checked).

Two strategies, checked in tests to give identical relations and depths:

* ``"naive"``: every wave re-joins every rule against the whole store;
* ``"semi-naive"``: every wave joins each rule once per positive body literal,
  that literal restricted to the previous wave's delta, the literals before it
  to older atoms and the ones after it to all atoms, so no rule instance is
  derived twice.

Closed and open world
---------------------
``world="closed"`` (the default) reads ``not a`` in a body as negation as
failure, as above.  ``world="open"`` is the open-world reading used by
three-way benchmarks: nothing is false for lack of a proof.  Classical negation
is reified (``not_p`` is the predicate "known not p", see
:func:`~nesybench.reasoning.terms.complement`): explicit negative facts are
``not_p`` atoms, a negated conclusion is a ``not_p`` head, and a negated body
literal ``not p(X)`` holds only when ``not_p(X)`` is in the model.  The program
is then positive, so there are no strata; :meth:`Closure.label` gives the
three-way answer (True if the atom is derived, False if its complement is,
Unknown otherwise) and :attr:`Closure.conflicts` lists the atoms derived both
ways.  Contraposition is not applied (rules are read as directed), which is
the reading of the rule-language benchmarks (ProofWriter).

With ``proofs=True`` every derived atom keeps the first rule instance that
derived it; :meth:`Closure.proof` rebuilds the derivation tree from those
records.  Its depth equals the atom's depth, because an atom first derived in
wave ``w`` has a premise first derived in wave ``w - 1``.

Cost model
----------
``probes`` counts the match tests a nested-loop join performs: for each body
literal, under each partial binding reaching it, every stored atom of that
literal's predicate in the literal's wave range counts one probe; a negated
literal costs one membership probe.  Joins are evaluated left to right in the
written order (semi-naive moves the delta literal first); the probe count is
derived from relation sizes while the actual matching uses hash indexes, so
large chains stay fast without changing the count.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import InputError
from .prover import Proof
from .terms import (
    Atom,
    Literal,
    Rule,
    complement,
    is_negated,
    is_variable,
    open_world_rule,
    substitute,
)

STRATEGIES = ("semi-naive", "naive")
WORLDS = ("closed", "open")

Binding = dict[str, str]


class NotStratifiable(InputError):
    """A predicate depends negatively on itself (through a cycle of rules)."""


@dataclass(frozen=True)
class Closure:
    """The result of :func:`forward_chain`.

    Attributes
    ----------
    atoms : dict[Atom, int]
        Every atom of the perfect model mapped to its depth (facts at 0),
        ordered by (depth, atom).
    rounds : int
        Waves that added at least one atom (the fixpoint is confirmed by one
        more, unproductive wave, whose probes are counted too).
    probes : int
        Join probes of the whole run (see the module docstring).
    strategy : str
        ``"naive"`` or ``"semi-naive"``.
    strata : tuple[tuple[str, ...], ...]
        Derived predicates grouped by stratum, lowest first.
    world : str
        ``"closed"`` or ``"open"`` (module docstring).
    support : dict or None
        With ``proofs=True``: each derived atom -> (the rule as stated, its
        positive premises, the atoms checked absent), the first instance that
        derived it.
    """

    atoms: dict[Atom, int]
    rounds: int
    probes: int
    strategy: str
    strata: tuple[tuple[str, ...], ...] = field(default=())
    world: str = "closed"
    support: dict[Atom, tuple[Rule, tuple[Atom, ...], tuple[Atom, ...]]] | None = field(
        default=None, repr=False
    )

    def holds(self, atom: Atom) -> bool:
        return atom in self.atoms

    def depth(self, atom: Atom) -> int | None:
        """Depth of ``atom``, or ``None`` when it is not entailed."""
        return self.atoms.get(atom)

    def label(self, atom: Atom) -> str:
        """The open-world answer about ``atom``: ``"True"`` if it holds, ``"False"`` if its
        complement holds, ``"Unknown"`` if neither, ``"Inconsistent"`` if both."""
        yes, no = atom in self.atoms, complement(atom) in self.atoms
        if yes and no:
            return "Inconsistent"
        return "True" if yes else "False" if no else "Unknown"

    @property
    def conflicts(self) -> list[Atom]:
        """Positive atoms derived together with their complement (an inconsistent theory)."""
        return sorted(
            a for a in self.atoms if not is_negated(a.pred) and complement(a) in self.atoms
        )

    def proof(self, atom: Atom) -> Proof | None:
        """The derivation tree of ``atom`` (None when it does not hold); needs ``proofs=True``.

        Every node cites the rule as the program states it; its depth is ``depth(atom)``.
        """
        if self.support is None:
            raise InputError("proof: run forward_chain(..., proofs=True) to keep derivations")
        if atom not in self.atoms:
            return None
        built: dict[Atom, Proof] = {}
        # Iterative post-order: derivations can be deeper than Python's recursion limit.
        stack = [(atom, False)]
        while stack:
            node, expanded = stack.pop()
            if node in built:
                continue
            record = self.support.get(node)
            if record is None:
                built[node] = Proof(node)
                continue
            rule, premises, absent = record
            if expanded:
                built[node] = Proof(node, rule, tuple(built[p] for p in premises), absent)
            else:
                stack.append((node, True))
                stack.extend((p, False) for p in premises if p not in built)
        return built[atom]

    def relation(self, pred: str) -> list[tuple[str, ...]]:
        """The argument tuples of ``pred`` in the model, sorted."""
        return sorted(a.args for a in self.atoms if a.pred == pred)

    def __len__(self) -> int:
        return len(self.atoms)


# ---------------------------------------------------------------------------
# Facts: a store of ground atoms stamped with the wave that added them.
# ---------------------------------------------------------------------------


class _Relation:
    """All atoms of one predicate, in insertion (= wave) order, with lazy hash indexes."""

    __slots__ = ("atoms", "stamps", "indexes")

    def __init__(self) -> None:
        self.atoms: list[Atom] = []
        self.stamps: list[int] = []
        # bound positions -> key values -> (stamps, atoms), both in wave order
        self.indexes: dict[
            tuple[int, ...], dict[tuple[str, ...], tuple[list[int], list[Atom]]]
        ] = {}

    def add(self, atom: Atom, stamp: int) -> None:
        self.atoms.append(atom)
        self.stamps.append(stamp)
        for positions, index in self.indexes.items():
            self._index_one(index, positions, atom, stamp)

    @staticmethod
    def _index_one(index, positions, atom: Atom, stamp: int) -> None:
        key = tuple(atom.args[p] for p in positions)
        bucket = index.get(key)
        if bucket is None:
            index[key] = bucket = ([], [])
        bucket[0].append(stamp)
        bucket[1].append(atom)

    def count(self, lo: int, hi: int) -> int:
        """Number of atoms with ``lo <= stamp < hi``."""
        return bisect_left(self.stamps, hi) - bisect_left(self.stamps, lo)

    def candidates(
        self, positions: tuple[int, ...], key: tuple[str, ...], lo: int, hi: int
    ) -> list[Atom]:
        """Atoms with the given values at ``positions`` and ``lo <= stamp < hi``."""
        if not positions:
            return self.atoms[bisect_left(self.stamps, lo) : bisect_left(self.stamps, hi)]
        index = self.indexes.get(positions)
        if index is None:
            index = self.indexes[positions] = {}
            for atom, stamp in zip(self.atoms, self.stamps):
                self._index_one(index, positions, atom, stamp)
        bucket = index.get(key)
        if bucket is None:
            return []
        stamps, atoms = bucket
        return atoms[bisect_left(stamps, lo) : bisect_left(stamps, hi)]


class _Store:
    """Ground atoms by predicate; ``stamp`` is the wave that first added the atom."""

    def __init__(self) -> None:
        self.relations: dict[str, _Relation] = {}
        self.stamp: dict[Atom, int] = {}

    def add(self, atom: Atom, stamp: int) -> bool:
        if atom in self.stamp:
            return False
        self.stamp[atom] = stamp
        rel = self.relations.get(atom.pred)
        if rel is None:
            rel = self.relations[atom.pred] = _Relation()
        rel.add(atom, stamp)
        return True

    def relation(self, pred: str) -> _Relation | None:
        return self.relations.get(pred)


# ---------------------------------------------------------------------------
# The join kernel: one conjunctive body, each positive literal over a wave range.
# ---------------------------------------------------------------------------


class _Counter:
    __slots__ = ("probes",)

    def __init__(self) -> None:
        self.probes = 0


def _join(
    positives: Sequence[tuple[Atom, int, int]],
    negatives: Sequence[Atom],
    store: _Store,
    negation_model: Mapping[Atom, object] | set[Atom],
    counter: _Counter,
) -> list[Binding]:
    """All bindings satisfying ``positives`` (each ``(atom, lo, hi)`` over its wave range)
    in order, then ``negatives`` by failure against ``negation_model``."""
    bindings: list[Binding] = [{}]
    for pattern, lo, hi in positives:
        rel = store.relation(pattern.pred)
        if rel is None:
            return []
        size = rel.count(lo, hi)
        # The nested-loop bill: every partial binding tests every atom in range.
        counter.probes += size * len(bindings)
        if size == 0:
            return []
        extended: list[Binding] = []
        for binding in bindings:
            positions, key = [], []
            for i, arg in enumerate(pattern.args):
                if not is_variable(arg):
                    positions.append(i)
                    key.append(arg)
                elif arg in binding:
                    positions.append(i)
                    key.append(binding[arg])
            for atom in rel.candidates(tuple(positions), tuple(key), lo, hi):
                new = _unify(pattern, atom, binding)
                if new is not None:
                    extended.append(new)
        bindings = extended
        if not bindings:
            return []
    for pattern in negatives:
        counter.probes += len(bindings)
        bindings = [b for b in bindings if substitute(pattern, b) not in negation_model]
    return bindings


def _unify(pattern: Atom, atom: Atom, binding: Binding) -> Binding | None:
    """Extend ``binding`` so ``pattern`` matches the ground ``atom`` (repeated variables too)."""
    if len(pattern.args) != len(atom.args):
        return None
    new = dict(binding)
    for p, a in zip(pattern.args, atom.args):
        if is_variable(p):
            bound = new.get(p)
            if bound is None:
                new[p] = a
            elif bound != a:
                return None
        elif p != a:
            return None
    return new


# ---------------------------------------------------------------------------
# Program checks: groundness, safety, stratification.
# ---------------------------------------------------------------------------


def _check_program(facts: list[Atom], rules: list[Rule]) -> None:
    for fact in facts:
        if not isinstance(fact, Atom):
            raise InputError(f"facts must be Atom objects, got {fact!r}")
        if not fact.is_ground:
            raise InputError(f"facts: every fact must be ground, got {fact}")
    for rule in rules:
        if not isinstance(rule, Rule):
            raise InputError(f"rules must be Rule objects, got {rule!r}")
        bound = {a for lit in rule.body if lit.positive for a in lit.atom.args if is_variable(a)}
        needed = [a for a in rule.head.args if is_variable(a)]
        needed += [
            a for lit in rule.body if not lit.positive for a in lit.atom.args if is_variable(a)
        ]
        unsafe = sorted(set(needed) - bound)
        if unsafe:
            raise InputError(
                f"rule {rule}: variable {unsafe[0]} must occur in a positive body literal (range "
                "restriction)"
            )


def stratify(rules: Iterable[Rule]) -> tuple[tuple[str, ...], ...]:
    """Derived predicates grouped into strata, lowest first.

    ``stratum(h) >= stratum(p)`` for a positive body predicate ``p`` and
    ``stratum(h) > stratum(q)`` for a negated one; facts-only predicates sit
    below everything.  Raises :class:`NotStratifiable` when a predicate depends
    negatively on itself.
    """
    rules = list(rules)
    heads = sorted({r.head.pred for r in rules})
    level = {p: 0 for p in heads}
    # Longest-path relaxation; more than len(heads) raises means a negative cycle.
    limit = len(heads)
    changed = True
    while changed:
        changed = False
        for rule in rules:
            h = rule.head.pred
            for lit in rule.body:
                q = lit.atom.pred
                if q not in level:
                    continue
                need = level[q] + (0 if lit.positive else 1)
                if level[h] < need:
                    level[h] = need
                    changed = True
                    if need > limit:
                        raise NotStratifiable(
                            f"rules: program is not stratifiable: {h} depends negatively on itself "
                            f"(through 'not {q}' in rule {rule})"
                        )
    strata: dict[int, list[str]] = {}
    for p in heads:
        strata.setdefault(level[p], []).append(p)
    return tuple(tuple(strata[k]) for k in sorted(strata))


# ---------------------------------------------------------------------------
# The fixpoint loop.
# ---------------------------------------------------------------------------


def _split(rule: Rule) -> tuple[list[Atom], list[Atom]]:
    return (
        [lit.atom for lit in rule.body if lit.positive],
        [lit.atom for lit in rule.body if not lit.positive],
    )


def _fire(
    rule: Rule,
    store: _Store,
    *,
    wave: int,
    delta_lo: int,
    strategy: str,
    negation_model,
    counter: _Counter,
) -> list[tuple[Atom, Binding]]:
    """Heads derivable by ``rule`` from atoms stamped before ``wave``, each with its binding.

    Semi-naive restricts to instances using at least one atom stamped in
    ``[delta_lo, wave)``; naive takes every instance over ``[0, wave)``.
    """
    positives, negatives = _split(rule)
    if not positives:
        # A body of negations only (or empty): fires once, in the first wave.
        if strategy == "naive" or delta_lo == 0:
            return [
                (substitute(rule.head, b), b)
                for b in _join([], negatives, store, negation_model, counter)
            ]
        return []
    if strategy == "naive":
        plan = [(p, 0, wave) for p in positives]
        return [
            (substitute(rule.head, b), b)
            for b in _join(plan, negatives, store, negation_model, counter)
        ]
    heads: list[tuple[Atom, Binding]] = []
    for i, delta_atom in enumerate(positives):
        # Instances whose first delta literal is the i-th: literals before it
        # read old atoms, the i-th the delta, those after it everything.
        plan = [(delta_atom, delta_lo, wave)]
        plan += [(p, 0, delta_lo) for p in positives[:i]]
        plan += [(p, 0, wave) for p in positives[i + 1 :]]
        heads.extend(
            (substitute(rule.head, b), b)
            for b in _join(plan, negatives, store, negation_model, counter)
        )
    return heads


def _saturate(
    rules: list[Rule],
    store: _Store,
    *,
    first_wave: int,
    strategy: str,
    negation_model,
    counter: _Counter,
    support: dict | None = None,
    stated: Mapping[Rule, Rule] | None = None,
) -> int:
    """Apply ``rules`` wave by wave until a wave adds nothing; returns the next free wave number.

    With ``support``, record for each new atom the rule instance that added it
    (``stated`` maps a rewritten rule back to the rule as the program states it).
    """
    wave, delta_lo = first_wave, 0
    # Semi-naive: a rule none of whose positive literals has a predicate with atoms in the last
    # wave derives nothing and probes nothing, so only the rules reading a changed predicate are
    # fired (in program order); a chain of n rules costs O(n) rule firings, not O(n^2).
    readers: dict[str, list[int]] = {}
    for k, rule in enumerate(rules):
        for pred in dict.fromkeys(lit.atom.pred for lit in rule.body if lit.positive):
            readers.setdefault(pred, []).append(k)
    active: Sequence[int] = range(len(rules))
    while True:
        changed: set[str] = set()
        for k in active:
            rule = rules[k]
            for head, binding in _fire(
                rule,
                store,
                wave=wave,
                delta_lo=delta_lo,
                strategy=strategy,
                negation_model=negation_model,
                counter=counter,
            ):
                if store.add(head, wave):
                    changed.add(head.pred)
                    if support is not None:
                        positives, negatives = _split(rule)
                        support[head] = (
                            stated.get(rule, rule) if stated else rule,
                            tuple(substitute(p, binding) for p in positives),
                            tuple(substitute(n, binding) for n in negatives),
                        )
        if not changed:
            return wave
        if strategy == "semi-naive":
            active = sorted({k for pred in changed for k in readers.get(pred, ())})
        delta_lo, wave = wave, wave + 1


def _open_world(rules: list[Rule]) -> tuple[list[Rule], dict[Rule, Rule]]:
    """Every rule in its open-world reading, and each rewritten rule -> the rule as stated."""
    rewritten, stated = [], {}
    for rule in rules:
        new = open_world_rule(rule)
        rewritten.append(new)
        if new != rule:
            stated.setdefault(new, rule)
    return rewritten, stated


def forward_chain(
    facts: Iterable[Atom],
    rules: Iterable[Rule],
    *,
    strategy: str = "semi-naive",
    world: str = "closed",
    proofs: bool = False,
) -> Closure:
    """Perfect model of a stratified Datalog program, with the depth of every atom.

    Parameters
    ----------
    facts : iterable of Atom
        Ground atoms (depth 0); explicit negative facts are ``not_<pred>`` atoms.
    rules : iterable of Rule
        Range-restricted rules.
    strategy : {"semi-naive", "naive"}, keyword-only
        Evaluation strategy; both give the same atoms and depths.
    world : {"closed", "open"}, keyword-only
        How a negated body literal ``not p`` reads: as negation as failure
        (closed) or as the explicit negative atom ``not_p`` (open); see the
        module docstring.
    proofs : bool, keyword-only
        Keep the first derivation of every atom, for :meth:`Closure.proof`.

    Returns
    -------
    Closure

    Notes
    -----
    ``depth(a) = 0`` for a fact, else ``min`` over rule instances deriving ``a``
    of ``1 + max(depth of its positive body atoms)`` -- the first wave of the
    immediate-consequence operator (module docstring).  Raises ``InputError`` for
    non-ground facts, unsafe rules and non-stratifiable programs.

    >>> from nesybench.reasoning.terms import Atom, Literal, Rule
    >>> edge = [Atom("e", ("a", "b")), Atom("e", ("b", "c"))]
    >>> e_xy, p_yz = Literal(Atom("e", ("X", "Y"))), Literal(Atom("p", ("Y", "Z")))
    >>> tc = [Rule(Atom("p", ("X", "Y")), (e_xy,)), Rule(Atom("p", ("X", "Z")), (e_xy, p_yz))]
    >>> c = forward_chain(edge, tc)
    >>> c.depth(Atom("p", ("a", "c"))), c.rounds, len(c)
    (2, 2, 5)

    Open world: "the bear is big; if something is big and not red then it is not kind".

    >>> x = ("X",)
    >>> r = Rule(Atom("not_kind", x), (Literal(Atom("big", x)), Literal(Atom("red", x), False)))
    >>> bear = ("bear",)
    >>> forward_chain([Atom("big", bear)], [r], world="open").label(Atom("kind", bear))
    'Unknown'
    >>> c = forward_chain([Atom("big", bear), Atom("not_red", bear)], [r], world="open")
    >>> c.label(Atom("kind", bear)), c.depth(Atom("not_kind", bear))
    ('False', 1)
    """
    if strategy not in STRATEGIES:
        raise InputError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if world not in WORLDS:
        raise InputError(f"world must be one of {', '.join(WORLDS)}, got {world!r}")
    facts = list(facts)
    rules = list(rules)
    stated: dict[Rule, Rule] = {}
    if world == "open":
        rules, stated = _open_world(rules)
    _check_program(facts, rules)
    strata = stratify(rules)
    derived = {r.head.pred for r in rules}
    counter = _Counter()

    negates_derived = any(
        not lit.positive and lit.atom.pred in derived for r in rules for lit in r.body
    )
    if negates_derived:
        # Stratum by stratum: a negated predicate is complete before it is read.
        staged = _Store()
        for fact in facts:
            staged.add(fact, 0)
        wave = 1
        for stratum in strata:
            members = set(stratum)
            stratum_rules = [r for r in rules if r.head.pred in members]
            wave = _saturate(
                stratum_rules,
                staged,
                first_wave=wave,
                strategy=strategy,
                negation_model=staged.stamp,
                counter=counter,
            )
        negation_model: Mapping[Atom, int] | None = staged.stamp
    else:
        negation_model = None

    # One pass of the operator T with negation read against the perfect model
    # (or, when only facts are negated, against the facts, which never change).
    store = _Store()
    for fact in facts:
        store.add(fact, 0)
    support: dict | None = {} if proofs else None
    end = _saturate(
        rules,
        store,
        first_wave=1,
        strategy=strategy,
        negation_model=store.stamp if negation_model is None else negation_model,
        counter=counter,
        support=support,
        stated=stated,
    )
    if negation_model is not None and set(store.stamp) != set(negation_model):
        raise RuntimeError(
            "perfect model and reduct fixpoint differ: stratified evaluation is broken"
        )
    atoms = dict(sorted(store.stamp.items(), key=lambda kv: (kv[1], kv[0])))
    return Closure(
        atoms=atoms,
        rounds=end - 1,
        probes=counter.probes,
        strategy=strategy,
        strata=strata,
        world=world,
        support=support,
    )


def query(body: Sequence[Literal], atoms: Iterable[Atom] | Closure) -> tuple[list[Binding], int]:
    """All bindings of a conjunctive query over ground atoms, and the join probes spent.

    ``body`` is evaluated left to right under the cost model of the module
    docstring; negated literals are checked against ``atoms`` by failure.
    Returns ``(bindings, probes)``; a Boolean query is true iff ``bindings``
    is non-empty, and ``len(bindings)`` counts its witnesses.
    """
    source = atoms.atoms if isinstance(atoms, Closure) else list(atoms)
    store = _Store()
    for atom in source:
        store.add(atom, 0)
    bound = {a for lit in body if lit.positive for a in lit.atom.args if is_variable(a)}
    for lit in body:
        if not lit.positive:
            loose = sorted({a for a in lit.atom.args if is_variable(a)} - bound)
            if loose:
                raise InputError(
                    f"query: variable {loose[0]} of 'not {lit.atom}' must occur in a positive "
                    "literal"
                )
    counter = _Counter()
    plan = [(lit.atom, 0, 1) for lit in body if lit.positive]
    negatives = [lit.atom for lit in body if not lit.positive]
    bindings = _join(plan, negatives, store, store.stamp, counter)
    return bindings, counter.probes
