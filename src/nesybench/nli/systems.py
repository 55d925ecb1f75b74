"""The systems the nli instrument measures.

PrOntoQA-lite
    :func:`translate_then_prove` -- strict parse of context and question, abstain
    on any parse failure, else the SLD prover; its trace is the proof flattened
    to fact sentences.  :func:`greedy_reason` -- a deliberately limited system:
    forward from the instance axiom, fire the first applicable rule in listed
    order, stop at the goal or after ``cap`` firings, never abstain.

FOLIO-lite (three-way, open world)
    :func:`dual_query_label` -- prove the query -> True; else prove its
    reified negation -> False; else Unknown.  :func:`greedy_cwa_label` -- the
    closed-world reading through the forward chainer: derivable -> True, else
    False (it can never say Unknown).  :func:`majority_label` -- the best
    input-blind guess.

Labels are the strings ``"True"``, ``"False"``, ``"Unknown"``; an abstention is
``None``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..reasoning.chainer import forward_chain
from ..reasoning.grammar.prontoqa import render_fact
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.prover import Prover
from ..reasoning.terms import Atom, Rule, Theory, base_pred, complement, is_negated

LABELS = ("True", "False", "Unknown")


@dataclass(frozen=True)
class SystemAnswer:
    label: str | None  # None = abstained
    trace: tuple[str, ...]
    reason: str = ""

    @property
    def abstained(self) -> bool:
        return self.label is None


def _statement_label(proved: Atom, question: Atom) -> str:
    """``True`` when the proved atom is the question's statement, ``False`` for its negation."""
    return "True" if proved == question else "False"


def translate_then_prove(context: str, question: str) -> SystemAnswer:
    """Strict translation, then goal-directed proof; abstains on any parse failure."""
    theory = parse_context(context)
    if not theory.ok:
        sentence, why = theory.failures[0]
        return SystemAnswer(None, (), f"context sentence does not parse ({why}): {sentence!r}")
    q = parse_sentence(question)
    if q.kind != "question":
        return SystemAnswer(None, (), f"question does not parse: {q.reason or q.kind}")
    prover = Prover(theory.facts, theory.rules)
    # Try the positive statement first, then its reified negation.
    positive = complement(q.atom) if is_negated(q.atom.pred) else q.atom
    for goal in (positive, complement(positive)):
        proof = prover.prove(goal)
        if proof is not None:
            trace = tuple(
                render_fact(a, adjective=base_pred(a.pred) in theory.adjectives)
                for a in proof.derived()
            )
            return SystemAnswer(_statement_label(goal, q.atom), trace)
    return SystemAnswer("Unknown", (), "neither the statement nor its negation is provable")


def greedy_reason(
    axiom: Atom,
    rules: Sequence[Rule],
    goal: Atom,
    *,
    positive_query: bool,
    cap: int = 9,
    adjectives: frozenset[str] = frozenset(),
) -> tuple[SystemAnswer, int | None]:
    """First-applicable forward chaining from the instance axiom (never abstains).

    Every firing is a sound modus ponens step, but the system does not plan:
    it fires the first listed rule whose premise holds and whose conclusion is
    new, stopping at ``goal`` or after ``cap`` firings.  When the goal is not
    reached it answers as if the statement's atom were false (closed world).

    Returns the answer and the firing at which the goal was reached (1-based),
    or None when it was not reached within the cap.
    """
    entity = axiom.args[0]
    established = {axiom}
    lines: list[str] = []
    reached_at = None
    for firing in range(1, cap + 1):
        fired = None
        for rule in rules:
            if len(rule.body) != 1 or is_negated(rule.head.pred):
                continue  # only positive single-premise rules fire
            premise = Atom(rule.body[0].atom.pred, (entity,))
            head = Atom(rule.head.pred, (entity,))
            if premise in established and head not in established:
                fired = head
                break
        if fired is None:
            break
        established.add(fired)
        lines.append(render_fact(fired, adjective=base_pred(fired.pred) in adjectives))
        if fired == goal:
            reached_at = firing
            break
    reached = reached_at is not None
    label = "True" if reached == positive_query else "False"
    return SystemAnswer(label, tuple(lines)), reached_at


def dual_query_label(theory: Theory, query: Atom) -> str:
    """Open-world three-way label: prove ``query`` -> True, prove ``not_query`` -> False, else
    Unknown.

    Exact on corpora where negated heads are never facts nor rule premises
    (the reification gives up contraposition, see folio_lite).
    """
    prover = Prover(theory.facts, theory.rules)
    if prover.prove(query) is not None:
        return "True"
    if prover.prove(complement(query)) is not None:
        return "False"
    return "Unknown"


def greedy_cwa_label(theory: Theory, query: Atom) -> str:
    """Closed-world reading: ``True`` iff the forward closure contains ``query``; never Unknown."""
    closure = forward_chain(theory.facts, theory.rules)
    return "True" if closure.holds(query) else "False"


def majority_label(labels: Sequence[str]) -> str:
    """The most frequent label (ties broken by the order of :data:`LABELS`).

    Its accuracy ``max_y p_y`` is the best any input-blind guesser can expect:
    E[acc] = sum_y p_y q_y <= max_y p_y for guessing distribution q.
    """
    counts = Counter(labels)
    if not counts:
        raise InputError("majority_label needs at least one label")
    return max(LABELS, key=lambda y: (counts.get(y, 0), -LABELS.index(y)))
