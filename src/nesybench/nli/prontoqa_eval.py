"""PrOntoQA's own proof evaluator as a convention of the step checker, and the corruption kinds
it is compared on.

:func:`prontoqa_verdict` decides a chain of thought the way PrOntoQA's
``evaluate_response`` (asaparov/prontoqa, branch ``main``) does, on PrOntoQA's fragment:
facts about one name, single-premise rules over unary concepts, their negations, and
conjunctions of facts.  It is rebuilt from reading that code (no code copied) and pinned
against the evaluator's own verdicts (``bench/peers/peer_prontoqa.py``; the fixtures in
``tests/nli/fixtures/prontoqa/``).  ``check-trace --conventions prontoqa`` and
``score-nli --conventions prontoqa`` report it in place of nesybench's strict/broad reading.

How PrOntoQA main reads a chain (the rules that matter on this fragment)
-----------------------------------------------------------------------
Steps are split into sentences at ``.`` and ``;``; ``Since A, B`` is the two steps A, B;
``Therefore, A`` is A.  Each step, in order, is one of:

* **correct** -- a sentence of the context (a fact or a rule, wherever it stands, even
  repeated or off the path); or a fact ``f`` whose rule ``r`` and premise ``p`` were both
  stated earlier as correct steps, with ``r`` or ``p`` the step just before ``f`` (or ``f``
  itself stated before: a repeated step is correct again);
* **non-atomic** -- ``f`` follows from a rule of the context that is not stated (fact-only
  chains), from a premise that is provable but not stated, or from steps that are
  themselves non-atomic or skips;
* **skip** -- a rule that is not in the context but composes two context rules, or a fact
  resting on a skip step;
* **incorrect** -- anything else, and a fact whose premise is an incorrect step.

A premise is looked for among the steps stated before, *and the step the conclusion rests
on must be adjacent*: the candidate rule (or the premise it brought in) must stand just
before ``f`` or just before an earlier statement of ``f``.  Where two derivations compete,
the one with fewer missing steps wins, ties going to the step nearest before ``f``, then
to the context's order.  The proof is **strictly correct** when a correct step states the
gold conclusion anywhere, **broadly correct** when a correct, non-atomic or skip step does.
Incorrect steps elsewhere do not matter.

Two quirks of the evaluator are reproduced because they decide verdicts: looking up an
unstated premise reports "non-atomic" and "skip" the other way round (so a fact resting on
an unstated but provable premise is broad through a *skip*), and the rule-composition test
walks the rule graph depth first and takes the first path it finds (a rule is a skip when
that path has at most two hops).

Where nesybench's default reading differs (each difference is tested)
--------------------------------------------------------------------
nesybench's strict verdict (:func:`~nesybench.nli.checker.check_trace`) asks that every step
be valid, the chain be linear (each step uses the previous one's conclusion) and the *last*
fact decide the question; its broad verdict (:func:`~nesybench.nli.checker.classify_steps`)
allows skips and non-atomic steps but no invalid step.  So:

1. **Off-path and repeated steps.**  A true context sentence off the proof's path, or a
   step stated twice, is correct for PrOntoQA; nesybench rejects the chain as non-linear.
2. **Stated rules.**  PrOntoQA wants each step's rule written out (a fact-only chain is
   non-atomic, broad only); nesybench reads a linear fact-only chain as strict.
3. **Unused bad steps.**  PrOntoQA ignores an incorrect step the conclusion does not rest
   on (a false fact, a wrong intermediate); nesybench's verdicts fail on any invalid step.
4. **Reaching the conclusion.**  PrOntoQA asks whether the gold conclusion is stated by a
   good step anywhere (a chain that goes on after it, or states it first and then
   anything, still counts); nesybench asks that the last fact decide the question.
5. **Order.**  PrOntoQA's adjacency rule accepts some reorderings (a rule stated right
   after its premise was derived) and rejects others; nesybench's linearity rejects any
   step that does not use the previous conclusion.

PrOntoQA's ``v1`` branch differs from ``main``: it counts any step provable from the
context as non-atomic, without looking at what was stated, so even a reversed or
shuffled chain is broadly correct there (the per-kind figures are in ``docs/nli.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InputError
from ..reasoning.grammar.prontoqa import (
    STEP_LEXICON,
    make_rule,
    render_fact,
    render_rule,
    split_step,
)
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.terms import Atom, Rule, Theory, base_pred, complement
from ..seeds import child_rng
from .checker import _closure_of, check_trace, classify_steps
from .vocabulary import CONCEPTS

#: the corruption kinds of a gold chain (fact, rule, fact, ..., rule, fact), gold first
KINDS = (
    "gold",
    "dropped_rule",
    "facts_only",
    "false_fact",
    "distractor_rule",
    "true_fact_with_rule",
    "true_fact_without_rule",
    "duplicated_step",
    "skipped_hop",
    "swapped_blocks",
    "shuffled",
    "reversed",
    "truncated",
    "wrong_intermediate",
    "negated_intermediate",
    "negated_conclusion",
    "changed_answer",
)
#: rewordings of a chain that keep its logic (how a model may phrase the same proof)
STYLE_KINDS = ("skip_two", "unstated_rule", "all_plural", "therefore", "since", "conjunction")
CORRUPTIONS = KINDS + STYLE_KINDS
CONVENTIONS = ("nesybench", "prontoqa")


# ---------------------------------------------------------------- PrOntoQA main's evaluator
@dataclass(frozen=True)
class Conj:
    """A conjunction of facts stated in one step."""

    parts: tuple[Atom, ...]


@dataclass(frozen=True)
class ProntoVerdict:
    """PrOntoQA's reading of a chain: one class per step (after splitting), and the verdicts."""

    classes: tuple[str, ...]
    strict: bool
    broad: bool


_SENTENCE_END = re.compile(r"[.;]")


def prontoqa_steps(trace: list[str]) -> list:
    """The chain as PrOntoQA's parser sees it: facts, rules and conjunctions, one per sentence
    (``Since A, B`` is A then B; a sentence outside the grammar is dropped, as PrOntoQA drops
    a sentence it cannot parse)."""
    steps: list = []
    for line in trace:
        if not isinstance(line, str):
            continue
        for sentence in _SENTENCE_END.split(line):
            if not sentence.strip():
                continue
            text = sentence.strip() + "."
            if text.lower().startswith("therefore, "):
                text = text[len("therefore, ") :]
            parts = [parse_sentence(p, lexicon=STEP_LEXICON) for p in split_step(text)]
            if not parts or any(p.kind not in ("fact", "rule") for p in parts):
                continue
            if len(parts) == 2 and text.lower().startswith("since "):
                steps.extend([parts[0].value, parts[1].value])
            elif len(parts) > 1:
                if all(p.kind == "fact" for p in parts):
                    steps.append(Conj(tuple(p.value for p in parts)))
            else:
                steps.append(parts[0].value)
    return steps


def _bind(fact, pattern: Atom) -> str | None:
    """The constant that makes the one-variable ``pattern`` equal the ground ``fact``."""
    if isinstance(fact, Atom) and fact.pred == pattern.pred and len(fact.args) == 1:
        return fact.args[0]
    return None


def _at(pattern: Atom, constant: str) -> Atom:
    return Atom(pattern.pred, (constant,))


class _Evaluator:
    """One chain under PrOntoQA main's rules (module docstring); indices are step positions,
    ``("axiom", k)`` the k-th context sentence."""

    def __init__(self, steps: list, theory: Theory):
        self.steps = steps
        self.axiom_list = [*theory.facts, *theory.rules]
        self.axioms = set(self.axiom_list)
        # only rules take part in the searches over axioms (facts never unify with a rule)
        self.axiom_rules = [("axiom", k) for k, r in enumerate(theory.rules)]
        self.rules = list(theory.rules)
        self.correct: list[int] = []
        self.non_atomic: list[int] = []
        self.skip: list[int] = []
        self.incorrect: list[int] = []
        self.graph: dict[Atom, list[Atom]] = {}
        for r in theory.rules:
            self.graph.setdefault(r.body[0].atom, []).append(r.head)

    def step(self, item):
        return self.steps[item] if isinstance(item, int) else self.rules[item[1]]

    def candidates(self, i: int) -> list:
        return [*range(i - 1, -1, -1), *self.axiom_rules]

    # -- PrOntoQA's is_antecedent_provable
    def antecedent(self, rule: Rule, item, c: str, missing: bool, i: int, prev: list):
        premise = _at(rule.body[0].atom, c)
        found = [j for j in range(i) if self.steps[j] == premise]
        if found:
            j = found[-1]
            na = skip = False
            if j in self.correct:
                if item in self.correct:
                    return 1, True, False, False, [j, item]
                if item in self.non_atomic or not isinstance(item, int):
                    na = True
                elif item in self.skip:
                    skip = True
            na = na or j in self.non_atomic
            skip = skip or j in self.skip
            # the evaluator returns these two the other way round from how its caller reads them
            return 1 + missing, False, skip, na, [j, item]
        num, _, _, _, sub = self.provable(premise, i, prev, top=False)
        if num is None:
            return None, False, False, False, []
        return num + 1 + missing, False, False, True, [*sub, item]

    # -- PrOntoQA's find_premise
    def find_premise(self, premise, i: int, prev: list):
        for item in [*range(i - 1, -1, -1), *[("fact", f) for f in self.axiom_list]]:
            if isinstance(item, int):
                step, missing = self.steps[item], False
            else:
                step, missing = item[1], True
            if step == premise:
                return (
                    1 if missing else 0,
                    item in self.correct,
                    item in self.non_atomic or missing,
                    item in self.skip,
                    [item],
                )
        num, valid, na, skip, sub = self.provable(premise, i, prev, top=False)
        if num is not None:
            return num, valid, na, skip, sub
        return None, False, False, False, []

    # -- PrOntoQA's is_provable
    def provable(self, f, i: int, prev: list, *, top: bool):
        if f in self.axioms:
            return 1, True, False, False, []
        valid = na = skip = False
        smallest = None
        premises: list = []
        missing = False
        if isinstance(f, Conj):
            smallest = 1
            for part in f.parts:
                num, v, n, s, sub = self.find_premise(part, i, [*prev, f])
                if num is None or not (v or n or s):
                    premises, smallest = [], None
                    break
                premises.extend(sub)
                smallest += num
                valid = True
        for item in self.candidates(i):  # conjunction elimination
            if smallest == 1:
                break
            missing = missing or not isinstance(item, int)
            step = self.step(item)
            if isinstance(step, Conj) and f in step.parts:
                premises = [item]
                smallest = 1 + missing
                if item in self.correct:
                    valid = True
                elif item in self.non_atomic:
                    na = True
                elif item in self.skip:
                    skip = True
        # ``missing`` is not reset: once the search above reached the context, every rule
        # below counts as one missing step (the evaluator's flag carries over)
        for item in self.candidates(i):  # universal instantiation and modus tollens
            if not isinstance(item, int):
                missing = True
            step = self.step(item)
            rules = step.parts if isinstance(step, Conj) else [step]
            for rule in rules:
                if not isinstance(rule, Rule):
                    continue
                for tollens in (False, True):
                    if tollens:
                        head, body = complement(rule.body[0].atom), complement(rule.head)
                    else:
                        head, body = rule.head, rule.body[0].atom
                    c = _bind(f, head)
                    if c is None:
                        continue
                    if _at(body, c) in [*prev, f]:
                        break  # the evaluator skips this rule (and its contrapositive)
                    expected = [
                        k - 1
                        for k in range(i + 1)
                        if k < len(self.steps)
                        and (
                            self.steps[k] == f
                            or isinstance(self.steps[k], Conj)
                            and f in self.steps[k].parts
                        )
                    ] or [i - 1]
                    new_i = i
                    if isinstance(item, int):
                        if isinstance(step, Conj):
                            expected.append(item)
                        if item == i - 1:
                            new_i = i - 1
                    used = Rule(head, (type(rule.body[0])(body),)) if tollens else rule
                    a_num, a_valid, a_na, a_skip, a_prem = self.antecedent(
                        used, item, c, missing, new_i, [*prev, f]
                    )
                    if a_num is None or not (smallest is None or a_num < smallest):
                        continue
                    if not (item in expected or any(k in a_prem for k in expected)):
                        continue
                    smallest, premises = a_num, a_prem
                    stated_correct = item in self.correct
                    if tollens:
                        valid = False
                        na = item in self.non_atomic or a_na or (stated_correct and a_valid)
                    else:
                        valid = stated_correct and a_valid and rule == step
                        na = (
                            item in self.non_atomic
                            or a_na
                            or (stated_correct and a_valid and rule != step)
                        )
                    skip = item in self.skip or a_skip
                    if valid:
                        break
                if valid:
                    break
        if top and smallest is None and f in self.steps[:i]:
            smallest, valid = 0, True
            premises = [max(j for j in range(i) if self.steps[j] == f)]
        return smallest, valid, na, skip, premises

    def path_length(self, src: Atom, dst: Atom) -> int:
        """The evaluator's search of the rule graph: depth first, first path found."""
        stack, visited = [(src, 0)], set()
        while stack:
            node, length = stack.pop()
            for nxt in self.graph.get(node, ()):
                if nxt in visited:
                    continue
                if nxt == dst:
                    return length + 1
                stack.append((nxt, length + 1))
                visited.add(nxt)
        return -1

    def run(self, conclusion: Atom) -> ProntoVerdict:
        classes: list[str] = []
        found = {"correct": False, "non-atomic": False, "skip": False}
        for i, f in enumerate(self.steps):
            num, valid, na, skip, premises = self.provable(f, i, [], top=True)
            if any(isinstance(p, int) and p in self.incorrect for p in premises):
                num = None
            is_conclusion = f == conclusion
            if num in (0, 1):
                cls = "correct" if valid else "non-atomic" if na else "skip" if skip else "error"
            elif num is not None:
                cls = "non-atomic"
            elif isinstance(f, Rule):
                n = self.path_length(f.body[0].atom, f.head)
                cls = "skip" if n != -1 and n <= 2 else "incorrect"
                is_conclusion = False
            else:
                cls = "incorrect"
            {"correct": self.correct, "non-atomic": self.non_atomic, "skip": self.skip}.get(
                cls, self.incorrect
            ).append(i)
            classes.append(cls)
            if is_conclusion and cls in found:
                found[cls] = True
        strict = found["correct"]
        return ProntoVerdict(tuple(classes), strict, strict or found["non-atomic"] or found["skip"])


def prontoqa_verdict(trace: list[str], theory: Theory, conclusion: Atom) -> ProntoVerdict:
    """PrOntoQA main's verdict on ``trace``; ``conclusion`` is the gold chain's last fact."""
    return _Evaluator(prontoqa_steps(trace), theory).run(conclusion)


def gold_conclusion(theory: Theory, question: Atom) -> Atom:
    """The fact a gold chain ends on: the question's atom or its negation, whichever the
    context proves (the atom when neither is proved)."""
    closure = _closure_of(set(theory.facts), theory.rules)
    neg = complement(question)
    return neg if neg in closure and question not in closure else question


def verdict(trace: list[str], theory: Theory, question: Atom, *, conventions: str) -> dict:
    """``{"strict", "broad"}`` of ``trace`` under ``conventions`` (one of :data:`CONVENTIONS`)."""
    if conventions == "prontoqa":
        v = prontoqa_verdict(trace, theory, gold_conclusion(theory, question))
        return {"strict": v.strict, "broad": v.broad, "step_classes": list(v.classes)}
    if conventions != "nesybench":
        raise InputError(
            f"conventions must be one of {', '.join(CONVENTIONS)}, got {conventions!r}"
        )
    b = classify_steps(trace, theory, question)
    return {
        "strict": check_trace(trace, theory, question).strict,
        "broad": b.broad,
        "step_classes": list(b.classes),
    }


# ---------------------------------------------------------------- corruptions
def _fact(atom: Atom, theory: Theory) -> str:
    return render_fact(atom, adjective=base_pred(atom.pred) in theory.adjectives)


def _rule(rule: Rule, theory: Theory) -> str:
    return render_rule(rule, adjective=base_pred(rule.head.pred) in theory.adjectives)


def corrupt_chain(
    chain: list[str], kind: str, theory: Theory, *, seed: int, key: str, answer: str = "True"
) -> tuple[list[str], str]:
    """One of the :data:`CORRUPTIONS` of a gold chain (fact, rule, fact, ..., rule, fact) and
    the answer that goes with it (``answer``, flipped for ``changed_answer``).

    Random choices come from ``child_rng(seed, "corrupt", kind, key)``.  A chain too short
    for a kind (fewer than three hops) is returned unchanged.
    """
    if kind not in CORRUPTIONS:
        raise InputError(f"kind must be one of {CORRUPTIONS}, got {kind!r}")
    rng = child_rng(seed, "corrupt", kind, key)
    c = list(chain)
    hops = (len(c) - 1) // 2  # (rule, fact) pairs after the first fact
    if kind == "changed_answer":
        return c, "False" if answer == "True" else "True"
    if kind == "gold" or hops < 3:
        return c, answer

    def pick(n: int) -> int:
        return int(rng.integers(0, n))

    facts = [parse_sentence(c[k]).atom for k in range(0, len(c), 2)]
    entity = facts[0].args[0]
    on_path = {parse_sentence(c[k]).rule for k in range(1, len(c), 2)}
    if kind == "dropped_rule":
        k = 1 + 2 * pick(hops)
        return c[:k] + c[k + 1 :], answer
    if kind == "facts_only":
        return c[::2], answer
    if kind == "false_fact":
        preds = sorted(
            {r.head.pred for r in theory.rules} | {r.body[0].atom.pred for r in theory.rules}
        )
        closure = _closure_of(set(theory.facts), theory.rules)
        false = [Atom(p, (entity,)) for p in preds if Atom(p, (entity,)) not in closure]
        if not false:  # every concept of the context holds: a fictional noun it never mentions
            false = [Atom(p, (entity,)) for p in CONCEPTS if p not in preds]
        k = 2 * pick(hops) + 1
        return c[:k] + [_fact(false[pick(len(false))], theory)] + c[k:], answer
    if kind in ("distractor_rule", "true_fact_with_rule", "true_fact_without_rule"):
        off = [
            r
            for r in theory.rules
            if r not in on_path and _at(r.body[0].atom, entity) in set(facts)
        ]
        if not off:
            return c, answer
        rule = off[pick(len(off))]
        premise = _at(rule.body[0].atom, entity)
        k = 2 * facts.index(premise) + 1  # right after the premise is stated
        derived = _fact(_at(rule.head, entity), theory)
        insert = {
            "distractor_rule": [_rule(rule, theory)],
            "true_fact_with_rule": [_rule(rule, theory), derived],
            "true_fact_without_rule": [derived],
        }[kind]
        return c[:k] + insert + c[k:], answer
    if kind == "duplicated_step":
        k = pick(len(c))
        return c[: k + 1] + [c[k]] + c[k + 1 :], answer
    if kind in ("skipped_hop", "skip_two"):
        if kind == "skip_two":
            return c[:1] + c[5:], answer
        b = pick(hops - 1)
        return c[: 1 + 2 * b] + c[3 + 2 * b :], answer
    if kind == "swapped_blocks":
        b = pick(hops - 1)
        s = 1 + 2 * b
        return c[:s] + c[s + 2 : s + 4] + c[s : s + 2] + c[s + 4 :], answer
    if kind == "shuffled":
        order = [int(x) for x in rng.permutation(len(c))]
        return [c[k] for k in order], answer
    if kind == "reversed":
        return c[::-1], answer
    if kind == "truncated":
        return c[:-2], answer
    if kind in ("wrong_intermediate", "negated_intermediate"):
        k = 2 * (1 + pick(hops - 1))  # a derived fact before the conclusion
        atom = facts[k // 2]
        if kind == "negated_intermediate":
            return c[:k] + [_fact(complement(atom), theory)] + c[k + 1 :], answer
        others = sorted({r.head.pred for r in theory.rules} - {atom.pred, complement(atom).pred})
        wrong = Atom(others[pick(len(others))], atom.args)
        return c[:k] + [_fact(wrong, theory)] + c[k + 1 :], answer
    if kind == "negated_conclusion":
        return c[:-1] + [_fact(complement(facts[-1]), theory)], answer
    if kind == "unstated_rule":
        rule = parse_sentence(c[1]).rule
        fake = make_rule(rule.head.pred.replace("not_", ""), rule.body[0].atom.pred)
        return (c[:1] + [render_rule(fake)] + c[2:] if fake not in theory.rules else c), answer
    if kind == "all_plural":
        out = []
        for s in c:
            r = parse_sentence(s)
            if r.kind == "rule" and not r.rule.head.pred.startswith("not_") and not r.adjective:
                plural = render_rule(r.rule, style="plural")
                out.append("All " + plural[:1].lower() + plural[1:])
            else:
                out.append(s)
        return out, answer
    if kind == "therefore":
        return [
            # a fact starts with its name, which keeps its capital
            ("Therefore, " + s) if k >= 2 and k % 2 == 0 else s
            for k, s in enumerate(c)
        ], answer
    if kind == "since":
        out = [c[0]]
        for k in range(1, len(c) - 1, 2):
            out += [c[k], f"Since {c[k - 1].rstrip('.')}, {c[k + 1]}"]
        return out, answer
    # conjunction: the last two derived facts in one step
    b = facts[-1]
    second = _fact(b, theory)
    return c[:-3] + [c[-2], c[-3].rstrip(".") + " and " + second[:1].lower() + second[1:]], answer


def corrupted_examples(examples, kinds=CORRUPTIONS, *, seed: int = 0):
    """``(kind, id, theory, question, trace, answer, gold_last)`` for every example and kind.

    ``examples`` are ``(id, theory, question_atom, gold_chain, gold_answer)``.
    """
    for kind in kinds:
        for key, theory, question, chain, answer in examples:
            trace, stated = corrupt_chain(
                chain, kind, theory, seed=seed, key=str(key), answer=answer
            )
            yield kind, key, theory, question, trace, stated, parse_sentence(chain[-1]).atom


def records_examples(records: list[dict]) -> tuple[list[tuple], dict]:
    """Gold chains of Logic-LM-style PrOntoQA records (``context, question, answer,
    explanation``): ``(examples, contexts)`` for :func:`corrupted_examples`."""
    examples, contexts = [], {}
    for r in records:
        theory = parse_context(r["context"])
        question = parse_sentence(r["question"]).atom
        answer = {"A": "True", "B": "False"}.get(r["answer"], r["answer"])
        examples.append((r["id"], theory, question, list(r["explanation"]), answer))
        contexts[r["id"]] = r["context"]
    return examples, contexts


def lite_examples(n: int, *, seed: int = 0) -> tuple[list[tuple], dict]:
    """``n`` gold chains from nesybench's own PrOntoQA-lite generator (hops 3 to 6), written
    out as fact, rule, fact, ... chains: ``(examples, contexts)``."""
    from .prontoqa_lite import generate_example

    examples, contexts = [], {}
    for i in range(n):
        ex = generate_example(3 + i % 4, i, seed=seed, corrupt_prob=0.0)
        chain = [render_fact(Atom(ex.chain[0], (ex.name,)))]
        for a, b in zip(ex.chain, ex.chain[1:]):
            chain += [render_rule(make_rule(a, b)), render_fact(Atom(b, (ex.name,)))]
        question = parse_sentence(ex.question).atom
        examples.append((ex.id, parse_context(ex.context), question, chain, ex.gold_label))
        contexts[ex.id] = ex.context
    return examples, contexts


def native_chains(examples, contexts: dict, kinds=CORRUPTIONS, *, seed: int = 0) -> dict:
    """Every corrupted chain in PrOntoQA's native format (``"<kind>|<id>"`` -> example), for
    PrOntoQA's own evaluator (``bench/peers/peer_prontoqa.py``): the gold chain with its label last,
    the corrupted chain followed by its answer as the model output.

    ``examples`` as for :func:`corrupted_examples`; ``contexts`` maps an id to its context text.
    """
    gold = {e[0]: (e[3], e[4]) for e in examples}
    doc = {}
    for kind, key, _, _, trace, stated, _ in corrupted_examples(examples, kinds, seed=seed):
        chain, answer = gold[key]
        doc[f"{kind}|{key}"] = {
            "test_example": {
                "question": contexts[key],
                # PrOntoQA reads the context up to "True or false:"; the statement is not used
                "query": "True or false: " + chain[-1],
                "chain_of_thought": [*chain, answer],
                "answer": answer,
            },
            "model_output": " ".join(trace) + " " + stated,
        }
    return doc


def agreement_table(examples, *, seed: int = 0, kinds=CORRUPTIONS):
    """Per corruption kind, both readings side by side: nesybench's default strict/broad
    rates, PrOntoQA main's (the ``prontoqa`` convention), and how often they agree.

    ``examples`` are ``(id, theory, question_atom, gold_chain, gold_answer)``.
    """
    import pandas as pd

    rows = {k: dict.fromkeys(("n", "nb_s", "pq_s", "nb_b", "pq_b", "s", "b"), 0) for k in kinds}
    for kind, _, theory, question, trace, _, last in corrupted_examples(examples, kinds, seed=seed):
        nb_s = check_trace(trace, theory, question).strict
        nb_b = classify_steps(trace, theory, question).broad
        pq = prontoqa_verdict(trace, theory, last)
        r = rows[kind]
        r["n"] += 1
        r["nb_s"] += nb_s
        r["pq_s"] += pq.strict
        r["nb_b"] += nb_b
        r["pq_b"] += pq.broad
        r["s"] += nb_s == pq.strict
        r["b"] += nb_b == pq.broad
    out = []
    for kind, r in rows.items():
        n = r["n"] or 1
        out.append(
            {
                "kind": kind,
                "n": r["n"],
                "nesybench_strict": r["nb_s"] / n,
                "prontoqa_strict": r["pq_s"] / n,
                "nesybench_broad": r["nb_b"] / n,
                "prontoqa_broad": r["pq_b"] / n,
                "strict_agree": r["s"] / n,
                "broad_agree": r["b"] / n,
            }
        )
    return pd.DataFrame(out)
