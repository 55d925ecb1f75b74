"""PrOntoQA's own proof evaluator, rebuilt for its fragment, and the agreement with check-trace.

:func:`prontoqa_verdict` re-implements what PrOntoQA's ``evaluate_response``
decides (read from asaparov/prontoqa; no code copied) on PrOntoQA's fragment
(one name, unary concepts, single-premise rules, conjunctions):

* a step that is a context sentence is **correct**; a rule not in the context
  that composes at most two context rules is a **skip** step;
* a fact ``f`` is **correct** when the rule concluding it and its premise are
  both correct steps stated earlier, one of them the step just before; when
  the rule is not stated (taken from the context) or the premise is not
  stated but provable, the step is **non-atomic**; a conjunction is correct
  when every conjunct was stated before, non-atomic when each is provable;
* anything else (and anything resting on an incorrect step) is **incorrect**;
* the proof is *strictly* correct when a correct step states the gold
  conclusion, *broadly* correct when a correct, skip or non-atomic step does.
  Invalid steps elsewhere do not matter.

:func:`corrupt_chain` makes 14 kinds of chains from a gold chain (the gold
itself among them) and :func:`agreement_table` counts, per kind, how often
nesybench's verdicts (strict: :func:`~nesybench.nli.checker.check_trace`;
broad: :func:`~nesybench.nli.checker.classify_steps`) agree with these.

The deliberate conventions that separate the two checkers:

1. **Stated rules.**  PrOntoQA wants the rule of each step written out; a
   fact-only chain is non-atomic there (broad, not strict).  nesybench reads
   a fact-only chain as strict when it is linear: the rule is in the context.
2. **Unused bad steps.**  PrOntoQA ignores an invalid step the conclusion
   does not rest on; nesybench's strict and broad verdicts fail on any
   invalid step.
3. **Reaching the conclusion.**  PrOntoQA asks whether the gold conclusion is
   stated by a good step anywhere; nesybench asks that the *last* fact be the
   question's atom (or its negation).
4. **Skips.**  A skipped hop is non-atomic for PrOntoQA (the premise is
   provable); nesybench's broad reading calls it a skip, its strict reading
   invalid.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..reasoning.grammar import (
    STEP_LEXICON,
    Theory,
    complement,
    make_rule,
    parse_sentence,
    render_fact,
    render_rule,
    split_step,
)
from ..reasoning.terms import Atom, Rule
from ..seeds import child_rng
from .checker import _closure_of, _premise, _rule_path, check_trace, classify_steps

CORRUPTIONS = (
    "gold",
    "skip_one",
    "skip_two",
    "reorder_blocks",
    "wrong_intermediate",
    "drop_rules",
    "drop_conclusion",
    "negate_conclusion",
    "unstated_rule",
    "all_plural",
    "therefore",
    "so",
    "since",
    "conjunction",
)


@dataclass(frozen=True)
class ProntoVerdict:
    classes: tuple[str, ...]
    strict: bool
    broad: bool


def _parse_step(line: str):
    parts = [parse_sentence(p, lexicon=STEP_LEXICON) for p in split_step(line)]
    if not parts or any(p.kind not in ("fact", "rule") for p in parts):
        return None
    if line.strip().lower().startswith("since ") and len(parts) == 2:
        return ("since", parts[0].value, parts[1].value)
    if len(parts) > 1:
        return ("and", tuple(p.value for p in parts))
    return parts[0].value


def prontoqa_verdict(trace: list[str], theory: Theory, conclusion: Atom) -> ProntoVerdict:
    """PrOntoQA's verdict on ``trace`` (module docstring); ``conclusion`` is the gold last fact."""
    steps: list = []
    for line in trace:
        p = _parse_step(line)
        if isinstance(p, tuple) and p[0] == "since":
            steps.extend([p[1], p[2]])  # PrOntoQA splits "Since A, B" into A and B
        else:
            steps.append(p)
    axioms = set(theory.facts) | set(theory.rules)
    classes: list[str] = []
    strict = broad = False
    for i, step in enumerate(steps):
        prev = steps[:i]
        good = [s for s, c in zip(prev, classes) if c != "incorrect"]
        correct = [s for s, c in zip(prev, classes) if c == "correct"]
        if step is None:
            cls = "incorrect"
        elif isinstance(step, tuple):
            conj = step[1]
            if all(c in correct for c in conj):
                cls = "correct"
            elif all(
                c in _closure_of({s for s in good if isinstance(s, Atom)}, theory.rules)
                for c in conj
            ):
                cls = "non-atomic"
            else:
                cls = "incorrect"
        elif step in axioms:
            cls = "correct"
        elif isinstance(step, Rule):
            cls = "skip" if _rule_path(step, theory.rules) else "incorrect"
        else:
            cls = _fact_class(step, steps, i, classes, theory)
        classes.append(cls)
        target = step[1][-1] if isinstance(step, tuple) else step
        if target == conclusion and cls != "incorrect":
            broad = True
            strict = strict or cls == "correct"
    return ProntoVerdict(tuple(classes), strict, broad)


def _fact_class(fact: Atom, steps: list, i: int, classes: list[str], theory: Theory) -> str:
    entity = fact.args[0]
    stated = {j: s for j, s in enumerate(steps[:i]) if classes[j] != "incorrect"}
    rules = [r for r in theory.rules if r.head.pred == fact.pred]
    rules += [s for s in stated.values() if isinstance(s, Rule) and s.head.pred == fact.pred]
    best = "incorrect"
    for rule in rules:
        premise = _premise(rule, entity)
        if premise is None:
            continue
        at = [j for j, s in stated.items() if s == premise]
        rule_at = [j for j, s in stated.items() if s == rule]
        if at and rule_at and (i - 1 in at or i - 1 in rule_at):
            if classes[at[-1]] == "correct" and classes[rule_at[-1]] == "correct":
                return "correct"
            best = "non-atomic"
        elif at and i - 1 in at:
            best = "non-atomic"  # the rule is taken from the context, not stated
        elif premise in _closure_of(
            {s for s in stated.values() if isinstance(s, Atom)}, theory.rules
        ) and (i - 1 in stated):
            best = "non-atomic"
    return best


# ---------------------------------------------------------------- corruptions


def corrupt_chain(chain: list[str], kind: str, theory: Theory, *, seed: int, key: str) -> list[str]:
    """One of the :data:`CORRUPTIONS` of a gold chain (fact, rule, fact, rule, ..., fact).

    Random choices (which block to move) come from ``child_rng(seed, "corrupt", kind, key)``.
    """
    if kind not in CORRUPTIONS:
        raise ValueError(f"kind must be one of {CORRUPTIONS}, got {kind!r}")
    rng = child_rng(seed, "corrupt", kind, key)
    c = list(chain)
    n_blocks = (len(c) - 1) // 2  # (rule, fact) pairs after the first fact
    if kind == "gold" or n_blocks < 3:
        return c
    if kind == "skip_one":
        b = int(rng.integers(0, n_blocks - 1))
        return c[: 1 + 2 * b] + c[3 + 2 * b :]
    if kind == "skip_two":
        return c[:1] + c[5:]
    if kind == "reorder_blocks":
        b = int(rng.integers(0, n_blocks - 1))
        s = 1 + 2 * b
        return c[:s] + c[s + 2 : s + 4] + c[s : s + 2] + c[s + 4 :]
    if kind == "wrong_intermediate":
        facts = [k for k in range(2, len(c) - 1, 2)]
        k = facts[int(rng.integers(0, len(facts)))]
        atom = parse_sentence(c[k]).atom
        others = sorted({r.head.pred for r in theory.rules} - {atom.pred, complement(atom).pred})
        if not others:
            return c
        wrong = Atom(others[int(rng.integers(0, len(others)))], atom.args)
        return c[:k] + [render_fact(wrong, adjective=wrong.pred in theory.adjectives)] + c[k + 1 :]
    if kind == "drop_rules":
        return [s for k, s in enumerate(c) if k % 2 == 0]
    if kind == "drop_conclusion":
        return c[:-2]
    if kind == "negate_conclusion":
        atom = parse_sentence(c[-1]).atom
        neg = complement(atom)
        from ..reasoning.terms import base_pred

        return c[:-1] + [render_fact(neg, adjective=base_pred(neg.pred) in theory.adjectives)]
    if kind == "unstated_rule":
        rule = parse_sentence(c[1]).rule
        fake = make_rule(rule.head.pred.replace("not_", ""), rule.body[0].atom.pred)
        return c[:1] + [render_rule(fake)] + c[2:] if fake not in theory.rules else c
    if kind == "all_plural":
        out = []
        for s in c:
            r = parse_sentence(s)
            if r.kind == "rule" and not r.rule.head.pred.startswith("not_") and not r.adjective:
                plural = render_rule(r.rule, style="plural")
                out.append("All " + plural[:1].lower() + plural[1:])
            else:
                out.append(s)
        return out
    if kind == "therefore":
        return [
            ("Therefore, " + s[:1].lower() + s[1:]) if k >= 2 and k % 2 == 0 else s
            for k, s in enumerate(c)
        ]
    if kind == "so":
        return [("So " + s) if k >= 2 and k % 2 == 0 else s for k, s in enumerate(c)]
    if kind == "since":
        out = [c[0]]
        for k in range(1, len(c) - 1, 2):
            out += [c[k], f"Since {c[k - 1].rstrip('.')}, {c[k + 1]}"]
        return out
    # conjunction: the last two derived facts in one step
    _a, b = parse_sentence(c[-3]).atom, parse_sentence(c[-1]).atom
    second = render_fact(b, adjective=b.pred.replace("not_", "") in theory.adjectives)
    return c[:-3] + [c[-2], c[-3].rstrip(".") + " and " + second[:1].lower() + second[1:]]


def agreement_table(examples, *, seed: int = 0):
    """Per corruption kind: how often nesybench's and PrOntoQA's verdicts agree.

    ``examples`` are ``(id, theory, question_atom, gold_chain)``.  Columns: ``kind``,
    ``n``, the four pass rates, ``strict_agree``, ``broad_agree``, ``both_agree``.
    """
    import pandas as pd

    rows = []
    for kind in CORRUPTIONS:
        counts = dict.fromkeys(("nb_s", "pq_s", "nb_b", "pq_b", "s", "b", "both"), 0)
        n = 0
        for key, theory, question, chain in examples:
            conclusion = parse_sentence(chain[-1]).atom
            trace = corrupt_chain(chain, kind, theory, seed=seed, key=str(key))
            nb_s = check_trace(trace, theory, question).strict
            nb_b = classify_steps(trace, theory, question).broad
            pq = prontoqa_verdict(trace, theory, conclusion)
            n += 1
            counts["nb_s"] += nb_s
            counts["pq_s"] += pq.strict
            counts["nb_b"] += nb_b
            counts["pq_b"] += pq.broad
            counts["s"] += nb_s == pq.strict
            counts["b"] += nb_b == pq.broad
            counts["both"] += (nb_s == pq.strict) and (nb_b == pq.broad)
        rows.append(
            {
                "kind": kind,
                "n": n,
                "nesybench_strict": counts["nb_s"] / n,
                "prontoqa_strict": counts["pq_s"] / n,
                "nesybench_broad": counts["nb_b"] / n,
                "prontoqa_broad": counts["pq_b"] / n,
                "strict_agree": counts["s"] / n,
                "broad_agree": counts["b"] / n,
                "both_agree": counts["both"] / n,
            }
        )
    return pd.DataFrame(rows)
