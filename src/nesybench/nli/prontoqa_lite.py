"""PrOntoQA-lite: fictional subclass chains with a gold chain of thought.

One example with ``h`` hops over a name ``a``::

    chain        c_0 -> c_1 -> ... -> c_h          (gold rules  c_i(X) => c_{i+1}(X))
    distractors  c_i -> d_i  for every hop i       (dead-end branches)
    axiom        c_0(a)
    question     "True or false: A is [not] a c_h."  (seeded polarity)
    gold CoT     c_1(a), ..., c_h(a)               (one sentence per proof step)

The two rules of hop ``i`` are listed next to each other in a seeded order
(``gold_first[i]``), hops in chain order, the axiom last.  With probability
``corrupt_prob`` one rule sentence is replaced by its out-of-grammar paraphrase
(:func:`~nesybench.reasoning.grammar.prontoqa.corrupt_rule`); the symbolic rules are kept
as ``gold_rules`` (what the greedy system reads directly).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..reasoning.grammar.prontoqa import (
    corrupt_rule,
    make_rule,
    render_fact,
    render_question,
    render_rule,
)
from ..reasoning.terms import Atom
from ..seeds import child_rng
from .vocabulary import CONCEPTS, NAMES


@dataclass(frozen=True)
class ProntoExample:
    id: str
    hops: int
    index: int
    name: str  # constant, lower case
    chain: tuple[str, ...]
    distractors: tuple[str, ...]
    gold_first: tuple[bool, ...]  # per hop: gold rule listed before its distractor
    positive_query: bool  # "A is a c_h" (gold True) vs "A is not a c_h" (gold False)
    corrupted: int  # index of the corrupted rule sentence, -1 for none
    gold_rules: tuple[str, ...]  # strict rule sentences in listed order
    context: str
    question: str
    gold_cot: tuple[str, ...]

    @property
    def gold_label(self) -> str:
        return "True" if self.positive_query else "False"

    @property
    def axiom(self) -> Atom:
        return Atom(self.chain[0], (self.name,))

    @property
    def goal(self) -> Atom:
        return Atom(self.chain[-1], (self.name,))

    def as_record(self) -> dict:
        return {
            "id": self.id,
            "hops": self.hops,
            "index": self.index,
            "name": self.name,
            "chain": list(self.chain),
            "distractors": list(self.distractors),
            "gold_first": list(self.gold_first),
            "positive_query": self.positive_query,
            "corrupted": self.corrupted,
            "is_corrupted": self.corrupted >= 0,
            "gold_rules": list(self.gold_rules),
            "context": self.context,
            "question": self.question,
            "gold_cot": list(self.gold_cot),
            "gold_label": self.gold_label,
        }

    @classmethod
    def from_record(cls, rec: dict) -> ProntoExample:
        return cls(
            id=str(rec["id"]),
            hops=int(rec["hops"]),
            index=int(rec["index"]),
            name=str(rec["name"]),
            chain=tuple(rec["chain"]),
            distractors=tuple(rec["distractors"]),
            gold_first=tuple(bool(x) for x in rec["gold_first"]),
            positive_query=bool(rec["positive_query"]),
            corrupted=int(rec["corrupted"]),
            gold_rules=tuple(rec["gold_rules"]),
            context=str(rec["context"]),
            question=str(rec["question"]),
            gold_cot=tuple(rec["gold_cot"]),
        )


def generate_example(hops: int, index: int, *, seed: int, corrupt_prob: float) -> ProntoExample:
    """One seeded example; its stream depends only on ``(seed, hops, index)``."""
    if hops < 1:
        raise InputError(f"hops must be >= 1, got {hops}")
    if 2 * hops + 1 > len(CONCEPTS):
        raise InputError(
            f"hops={hops} needs {2 * hops + 1} concepts, the vocabulary has {len(CONCEPTS)}"
        )
    rng = child_rng(seed, "prontoqa", hops, index)
    words = [CONCEPTS[i] for i in rng.permutation(len(CONCEPTS))[: 2 * hops + 1]]
    chain, distractors = tuple(words[: hops + 1]), tuple(words[hops + 1 :])
    name = NAMES[int(rng.integers(len(NAMES)))]
    gold_first = tuple(bool(x) for x in rng.random(hops) < 0.5)
    positive_query = bool(rng.random() < 0.5)
    corrupt = bool(rng.random() < corrupt_prob)
    corrupted = int(rng.integers(2 * hops)) if corrupt else -1

    rules = []
    for i in range(hops):
        gold, distractor = make_rule(chain[i], chain[i + 1]), make_rule(chain[i], distractors[i])
        rules.extend([gold, distractor] if gold_first[i] else [distractor, gold])
    const = name.lower()
    gold_rules = tuple(render_rule(r) for r in rules)
    sentences = [
        corrupt_rule(r) if j == corrupted else s for j, (r, s) in enumerate(zip(rules, gold_rules))
    ]
    sentences.append(render_fact(Atom(chain[0], (const,))))
    goal = Atom(chain[-1], (const,))
    question = render_question(goal if positive_query else Atom("not_" + goal.pred, goal.args))
    gold_cot = tuple(render_fact(Atom(c, (const,))) for c in chain[1:])
    return ProntoExample(
        id=f"pq-h{hops}-{index:03d}",
        hops=hops,
        index=index,
        name=const,
        chain=chain,
        distractors=distractors,
        gold_first=gold_first,
        positive_query=positive_query,
        corrupted=corrupted,
        gold_rules=gold_rules,
        context=" ".join(sentences),
        question=question,
        gold_cot=gold_cot,
    )


def generate_corpus(
    hops_list, n_per_hops: int, *, seed: int, corrupt_prob: float
) -> list[ProntoExample]:
    """``n_per_hops`` examples for every hop count, ordered by (hops, index)."""
    return [
        generate_example(h, i, seed=seed, corrupt_prob=corrupt_prob)
        for h in sorted(hops_list)
        for i in range(n_per_hops)
    ]
