"""RuleTaker-lite: a depth-stratified, label-balanced question bank.

The predicate vocabulary is layered: four stated layer-0 properties, and
derived heads at layers 1, 2 and 3 (two at layers 1 and 2; ``layer3_heads``, one by
default, at layer 3).  Every rule for a layer-L head takes its
one positive body literal from layer L-1, so an atom's depth under the
immediate-consequence operator is its layer -- the depth knob is structural,
then checked independently by the forward chainer (depth) and the SLD prover
(every positive label re-derived backwards).

The chapter states the bank's depth mix (804 / 352 / 280 / 64 of 1,500 questions at depths
0-3), not its vocabulary.  With two heads at layer 3 the same generator puts about 13% of
the questions at depth 3; with one it gives 5.6% over seeds 0-19 (3.7-6.9% per seed, the
chapter's 4.3% inside that range) and leaves depths 0-2 bit-identical, since the layer-3
rules are drawn last.

Balance: every derivable atom is paired with a seeded non-derivable atom of
the same layer in the same theory, and both are asked plainly and negated, so
each depth stratum is exactly 50/50 True/False and the word "not" carries no
information about the label.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, check_claim
from ..reasoning.chainer import forward_chain
from ..reasoning.grammar.prontoqa import render_question
from ..reasoning.prover import Prover
from ..reasoning.terms import Atom, Literal, Rule, Theory
from ..seeds import child_rng

VARIABLE = "X"

#: predicate -> layer; layer 0 is stated, layers 1-3 are derived heads.
LAYERS: dict[str, int] = {
    "cited": 0,
    "funded": 0,
    "tenured": 0,
    "visiting": 0,
    "productive": 1,
    "collaborative": 1,
    "senior": 2,
    "published": 2,
    "distinguished": 3,
    "eminent": 3,
}
STATED = tuple(p for p, layer in LAYERS.items() if layer == 0)
MAX_LAYER = max(LAYERS.values())

#: the property words generated theories draw from: the bank's ten layered predicates first,
#: then more, so a vocabulary of size v is ``VOCABULARY[:v]`` (the grid's vocabulary knob)
VOCABULARY: tuple[str, ...] = (
    *LAYERS,
    "curious", "careful", "famous", "tireless", "modest", "rigorous", "creative", "patient",
    "ambitious", "thorough", "skeptical", "generous", "prudent", "diligent", "candid", "agile",
    "brilliant", "keen", "lucid", "meticulous", "observant", "resourceful", "steady", "vigilant",
    "witty", "bold", "calm", "cheerful", "clever", "diplomatic", "energetic", "friendly",
    "honest", "kind", "loyal", "optimistic", "organized", "polite", "punctual", "quiet",
    "reliable", "sincere", "tidy", "wise", "young", "busy", "retired", "tenacious",
    "outspoken", "reserved", "playful", "gentle", "brave", "rich",
)  # fmt: skip

#: entity names (lower case constants; the grammar capitalises them)
NAMES = (
    "anne",
    "bruno",
    "carla",
    "dmitri",
    "elena",
    "farid",
    "greta",
    "hiro",
    "ines",
    "jonas",
    "kira",
    "luca",
    "mona",
    "nils",
    "olga",
    "pavel",
)


@dataclass(frozen=True)
class BankConfig:
    """The generator's knobs (the ``axes.bank`` section of params.yaml)."""

    n_train_theories: int = 60
    n_eval_theories: int = 42
    n_entities: int = 3
    rules_per_head: int = 1
    fact_prob: float = 0.5
    extra_prob: float = 0.5
    negate_prob: float = 0.5
    layer3_heads: int = 1  # derived heads at layer 3 (the first of LAYERS' layer-3 words)


def layer_of(pred: str) -> int:
    return LAYERS[pred]


def bank_layers(config: BankConfig) -> dict[str, int]:
    """The predicates a bank uses and their layers: :data:`LAYERS` with only the first
    ``config.layer3_heads`` of its layer-3 heads."""
    deepest = [p for p, layer in LAYERS.items() if layer == MAX_LAYER]
    if not 1 <= config.layer3_heads <= len(deepest):
        raise InputError(f"layer3_heads must be in 1..{len(deepest)}, got {config.layer3_heads}")
    dropped = set(deepest[config.layer3_heads :])
    return {p: layer for p, layer in LAYERS.items() if p not in dropped}


def sample_rule(
    head: str,
    rng: np.random.Generator,
    *,
    extra_prob: float,
    negate_prob: float,
    layers: dict[str, int] = LAYERS,
) -> Rule:
    """One rule for ``head``: a positive body literal from the layer below (this
    pins depth to the layer index) and, with probability ``extra_prob``, one more
    layer-0 literal, negated (as failure) with probability ``negate_prob``."""
    x = (VARIABLE,)
    below = [p for p, layer in layers.items() if layer == layers[head] - 1]
    body = [Literal(Atom(below[int(rng.integers(len(below)))], x))]
    if rng.random() < extra_prob:
        extra = STATED[int(rng.integers(len(STATED)))]
        negated = bool(rng.random() < negate_prob)
        if extra != body[0].atom.pred:
            body.append(Literal(Atom(extra, x), positive=not negated))
    return Rule(Atom(head, x), tuple(body))


def sample_theory(split: str, index: int, rng: np.random.Generator, config: BankConfig) -> Theory:
    """A theory with ``n_entities`` people, stated layer-0 facts and ``rules_per_head`` rules per
    head, keyed ``(split, index)``."""
    picks = rng.choice(len(NAMES), size=config.n_entities, replace=False)
    entities = tuple(sorted(NAMES[int(i)] for i in picks))
    facts = tuple(
        Atom(p, (e,)) for e in entities for p in STATED if rng.random() < config.fact_prob
    )
    layers = bank_layers(config)
    rules = tuple(
        sample_rule(
            head, rng, extra_prob=config.extra_prob, negate_prob=config.negate_prob, layers=layers
        )
        for head, layer in layers.items()
        if layer > 0
        for _ in range(config.rules_per_head)
    )
    return Theory(facts, rules, entities=entities, key=(split, index))


def theory_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """Child generator derived by name, so theories do not depend on generation order."""
    return child_rng(seed, "bank", split, index)


def generate_theories(config: BankConfig, *, seed: int) -> list[Theory]:
    theories = []
    for split, count in (("train", config.n_train_theories), ("eval", config.n_eval_theories)):
        theories += [
            sample_theory(split, i, theory_rng(seed, split, i), config) for i in range(count)
        ]
    return theories


def label_theory(
    theory: Theory, rng: np.random.Generator, *, layers: dict[str, int] = LAYERS
) -> list[dict]:
    """The balanced questions of one theory (four per derivable/non-derivable pair).

    When a layer has more derivable than non-derivable atoms, a seeded subset
    of the derivable ones is kept so that every kept atom has a distinct
    partner (balance is exact, never approximate).

    Depth is read from the forward chainer and must equal the layer; every
    label is re-derived by the backward prover (positive: a proof exists;
    negative: none does).  Both are asserted with ``check_claim``.
    """
    closure = forward_chain(theory.facts, theory.rules)
    prover = Prover(theory.facts, theory.rules)
    split, index = theory.key
    rows = []
    for layer in range(MAX_LAYER + 1):
        atoms = [
            Atom(p, (e,)) for p, lay in layers.items() if lay == layer for e in theory.entities
        ]
        derivable = [a for a in atoms if closure.holds(a)]
        underivable = [a for a in atoms if not closure.holds(a)]
        for a in derivable:
            check_claim(
                closure.depth(a) == layer,
                f"theory {split}/{index}: depth of {a} must be its layer {layer}, "
                f"got {closure.depth(a)}",
            )
            check_claim(
                prover.prove(a) is not None,
                f"theory {split}/{index}: the backward prover must re-derive {a}",
            )
        for a in underivable:
            check_claim(
                prover.prove(a) is None,
                f"theory {split}/{index}: the prover proves {a}, which the chainer does not derive",
            )
        n_pairs = min(len(derivable), len(underivable))
        if n_pairs == 0:
            continue
        keep = sorted(int(i) for i in rng.choice(len(derivable), size=n_pairs, replace=False))
        partners = rng.permutation(len(underivable))[:n_pairs]
        for pair, (i, j) in enumerate(zip(keep, partners)):
            for atom, holds in ((derivable[i], True), (underivable[int(j)], False)):
                for negated in (False, True):
                    rows.append(
                        {
                            "split": split,
                            "theory": index,
                            "layer": layer,
                            "depth": layer,
                            "pair": pair,
                            "pred": atom.pred,
                            "entity": atom.args[0],
                            "negated": negated,
                            "holds": holds,
                            "label": holds != negated,
                            "entities": ",".join(theory.entities),
                        }
                    )
    return rows


def question_text(pred: str, entity: str, negated: bool) -> str:
    """The question sentence, rendered by the shared grammar (properties are adjectives)."""
    return render_question(Atom(("not_" if negated else "") + pred, (entity,)), adjective=True)


def build_bank(config: BankConfig, *, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, list[Theory]]:
    """Theories and questions as tables.

    Returns ``(bank, questions, theories)``: ``bank`` has one row per fact or
    rule (``split, theory, item, kind, head, entity, body, extra, extra_positive``),
    ``questions`` one row per question (``qid`` unique within its split).
    """
    theories = generate_theories(config, seed=seed)
    bank_rows, question_rows = [], []
    for t in theories:
        split, index = t.key
        for item, fact in enumerate(t.facts):
            bank_rows.append(
                {
                    "split": split,
                    "theory": index,
                    "item": item,
                    "kind": "fact",
                    "head": fact.pred,
                    "entity": fact.args[0],
                    "body": "",
                    "extra": "",
                    "extra_positive": True,
                }
            )
        for item, rule in enumerate(t.rules, start=len(t.facts)):
            extra = rule.body[1] if len(rule.body) > 1 else None
            bank_rows.append(
                {
                    "split": split,
                    "theory": index,
                    "item": item,
                    "kind": "rule",
                    "head": rule.head.pred,
                    "entity": "",
                    "body": rule.body[0].atom.pred,
                    "extra": extra.atom.pred if extra else "",
                    "extra_positive": bool(extra.positive) if extra else True,
                }
            )
        question_rows += label_theory(
            t, child_rng(seed, "label", split, index), layers=bank_layers(config)
        )
    bank = pd.DataFrame(bank_rows)
    questions = pd.DataFrame(question_rows)
    questions["text"] = [
        question_text(p, e, n)
        for p, e, n in zip(questions["pred"], questions["entity"], questions["negated"])
    ]
    questions = questions.sort_values(
        ["split", "theory", "layer", "pair", "holds", "negated"],
        ascending=[True, True, True, True, False, True],
        kind="mergesort",
    )
    questions.insert(0, "qid", questions.groupby("split").cumcount().astype("int64"))
    return bank, questions.reset_index(drop=True), theories


def theories_from_table(
    bank: pd.DataFrame, questions: pd.DataFrame
) -> dict[tuple[str, int], Theory]:
    """Rebuild the theories from the ``bank`` and ``questions`` tables of the generate stage."""
    x = (VARIABLE,)
    out: dict[tuple[str, int], Theory] = {}
    entities = {
        (s, int(t)): tuple(e.split(","))
        for s, t, e in questions[["split", "theory", "entities"]]
        .drop_duplicates()
        .itertuples(index=False)
    }
    for (split, index), group in bank.groupby(["split", "theory"], sort=True):
        group = group.sort_values("item")
        facts = tuple(Atom(r.head, (r.entity,)) for r in group.itertuples() if r.kind == "fact")
        rules = []
        for r in group.itertuples():
            if r.kind != "rule":
                continue
            body = [Literal(Atom(r.body, x))]
            if r.extra:
                body.append(Literal(Atom(r.extra, x), positive=bool(r.extra_positive)))
            rules.append(Rule(Atom(r.head, x), tuple(body)))
        key = (str(split), int(index))
        ents = entities.get(key, tuple(sorted({f.args[0] for f in facts})))
        out[key] = Theory(facts, tuple(rules), entities=ents, key=key)
    # theories without any fact still have rules in the bank; entities come from questions
    return out


def balance_table(questions: pd.DataFrame) -> pd.DataFrame:
    """Per split and depth: n, True, False, and the True rate among plain and negated questions."""
    rows = []
    for (split, depth), g in questions.groupby(["split", "depth"], sort=True):
        rows.append(
            {
                "split": split,
                "depth": int(depth),
                "n": len(g),
                "n_true": int(g["label"].sum()),
                "n_false": int((~g["label"]).sum()),
                "true_rate_plain": float(g.loc[~g["negated"], "label"].mean()),
                "true_rate_negated": float(g.loc[g["negated"], "label"].mean()),
            }
        )
    return pd.DataFrame(rows)
