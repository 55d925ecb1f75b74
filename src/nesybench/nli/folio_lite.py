"""FOLIO-lite: three-way (True / False / Unknown) entailment over signed rules.

One example over a name ``a``, with concepts drawn without replacement::

    chain       c_0 -> c_1 -> ... -> c_k        positive rules, axiom c_0(a)
    negative    c_j -> not n                    "Every c_j is not an n."
    unrelated   u -> c_1,  v -> not u           u is mentioned, never derivable

and a query chosen by a seeded label draw from ``label_mix``:
True asks ``c_t(a)`` (t >= 1), False asks ``n(a)``, Unknown asks ``u(a)``.

Negation is reified: "Every X is not a Y." compiles to ``not_y(V) :- x(V)``.
The generator never states a negated predicate as a fact nor uses one in a rule
body, so no query needs contraposition and the dual-query labeler
(:func:`~nesybench.nli.systems.dual_query_label`) is exact on this corpus.
The theory has a model (every concept true of ``a`` exactly when derivable,
every ``not_`` predicate likewise): the three labels partition the examples.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..reasoning.grammar.prontoqa import RULE_STYLES, make_rule, render_fact, render_rule
from ..reasoning.terms import Atom
from ..seeds import child_rng
from .vocabulary import CONCEPTS, NAMES

LABEL_ORDER = ("True", "False", "Unknown")


@dataclass(frozen=True)
class FolioExample:
    id: str
    index: int
    name: str
    context: str
    conclusion: str  # the statement to label, e.g. "Sam is a jompus."
    query_pred: str
    gold_label: str
    depth: int  # rule applications from the axiom to the decisive atom (0 for Unknown)

    def as_record(self) -> dict:
        return dict(self.__dict__)


def generate_example(
    index: int, *, seed: int, label_mix: dict[str, float], max_chain: int
) -> FolioExample:
    """One seeded example; its stream depends only on ``(seed, index)``."""
    rng = child_rng(seed, "folio", index)
    probs = [label_mix[y] for y in LABEL_ORDER]
    label = LABEL_ORDER[int(rng.choice(len(LABEL_ORDER), p=probs))]
    k = int(rng.integers(1, max_chain + 1))
    words = [CONCEPTS[i] for i in rng.permutation(len(CONCEPTS))[: k + 4]]
    chain, neg, unknown, other = words[: k + 1], words[k + 1], words[k + 2], words[k + 3]
    name = NAMES[int(rng.integers(len(NAMES)))].lower()
    j = int(rng.integers(0, k + 1))  # the negative rule hangs off chain concept j

    rules = [make_rule(chain[i], chain[i + 1]) for i in range(k)]
    rules.append(make_rule(chain[j], "not_" + neg))
    rules.append(make_rule(unknown, chain[1]))  # u appears only as a premise
    rules.append(
        make_rule(other, "not_" + unknown)
    )  # and its negation hangs off an underivable concept
    order = rng.permutation(len(rules))
    styles = rng.integers(len(RULE_STYLES), size=len(rules))
    sentences = [render_rule(rules[o], style=RULE_STYLES[int(s)]) for o, s in zip(order, styles)]
    sentences.append(render_fact(Atom(chain[0], (name,))))

    if label == "True":
        t = int(rng.integers(1, k + 1))
        query, depth = chain[t], t
    elif label == "False":
        query, depth = neg, j + 1
    else:
        query, depth = unknown, 0
    return FolioExample(
        id=f"fl-{index:03d}",
        index=index,
        name=name,
        context=" ".join(sentences),
        conclusion=render_fact(Atom(query, (name,))),
        query_pred=query,
        gold_label=label,
        depth=depth,
    )


def generate_corpus(
    n: int, *, seed: int, label_mix: dict[str, float], max_chain: int
) -> list[FolioExample]:
    return [
        generate_example(i, seed=seed, label_mix=label_mix, max_chain=max_chain) for i in range(n)
    ]
