"""The step checker: is a chain of thought a proof, not just a lucky label?

A trace is a list of sentences in the shared grammar.  Fact lines state
``p(a)`` about the queried entity ``a``; rule lines (PrOntoQA style) cite the
rule the next fact uses.  Four flags and their conjunction:

* **parsed**   -- every line parses, and every fact line is about ``a``;
* **valid**    -- every derived fact follows by one context rule from a fact
  already established (a context fact or an earlier line); a line restating a
  context fact is valid; a cited rule must be an axiom of the context and the
  rule the next fact uses;
* **linear**   -- the premise each derived fact uses is the previous line's
  conclusion (for the first derived fact: a context fact);
* **connects** -- the last fact line is the queried atom or its negation;
* **strict**   -- parsed and valid and linear and connects.

Formally, with ``E_k`` the set established before line ``k`` (context facts
plus earlier fact lines) and ``f_k = h(a)`` the fact of line ``k``:
valid_k iff there is a context rule ``h(X) :- b(X)`` (the cited one, if any)
with ``b(a) in E_k``; linear_k iff additionally ``b(a) = f_{k-1}``.
The trace's label is the one its last fact decides: ``True`` if it is the
question's atom, ``False`` if its complement, None if it does not connect.

With ``dialect="proofwriter"`` the same four flags are read for the rule
language of ProofWriter (n-ary relations, rules with several conditions,
negated facts and conditions, read in the open world): a fact line may be
about any entity; it is valid when some instance of a context rule (the cited
one, if any) concludes it with every condition established (a negated
condition ``not p`` by the explicit ``not_p``), and linear when one of those
conditions is the previous line's fact (for the first derived line: a context
fact).  On PrOntoQA's single-premise unary rules the two readings coincide.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import InputError
from ..reasoning.chainer import query
from ..reasoning.grammar.reading import parse_sentence
from ..reasoning.prover import unify
from ..reasoning.terms import Atom, Literal, Rule, Theory, complement, substitute

FLAGS = ("parsed", "valid", "linear", "connects", "strict")


@dataclass(frozen=True)
class TraceVerdict:
    parsed: bool
    valid: bool
    linear: bool
    connects: bool
    label: str | None  # what the trace concludes about the question
    reason: str  # the first thing that failed, "" when strict

    @property
    def strict(self) -> bool:
        return self.parsed and self.valid and self.linear and self.connects

    def as_dict(self) -> dict:
        out = asdict(self)
        out["strict"] = self.strict
        return out


def _premise(rule: Rule, entity: str) -> Atom | None:
    """``b(a)`` for a single-premise unary rule ``h(X) :- b(X)``, else None."""
    if len(rule.body) != 1 or not rule.body[0].positive or len(rule.head.args) != 1:
        return None
    body = rule.body[0].atom
    if body.args != rule.head.args:
        return None
    return Atom(body.pred, (entity,))


def _instances(rule: Rule, fact: Atom, established: set[Atom]) -> list[tuple[Atom, ...]]:
    """The condition sets of the instances of ``rule`` that conclude ``fact`` from ``established``.

    Negated conditions read as explicit negative facts (open world).
    """
    subst = unify(rule.head, fact)
    if subst is None:
        return []
    body = [
        substitute(lit.atom if lit.positive else complement(lit.atom), subst) for lit in rule.body
    ]
    bindings, _ = query([Literal(b) for b in body], established)
    return [tuple(substitute(b, binding) for b in body) for binding in bindings]


def _check_rule_language(trace: list[str], theory: Theory, question: Atom) -> TraceVerdict:
    """The ``proofwriter`` reading of :func:`check_trace` (module docstring)."""
    given = set(theory.facts)
    axioms = set(theory.rules)
    established = set(given)
    previous: set[Atom] = set(given)
    valid = linear = True
    reason = ""
    cited: Rule | None = None
    last_fact: Atom | None = None
    for k, line in enumerate(trace, 1):
        res = parse_sentence(line, dialect="proofwriter")
        if res.kind == "rule":
            if cited is not None:
                valid = linear = False
                reason = reason or f"line {k}: cites a second rule before using '{cited}'"
            if res.rule not in axioms:
                valid = linear = False
                reason = reason or f"line {k}: cited rule is not in the context: {line!r}"
            cited = res.rule
            continue
        if res.kind != "fact":
            why = res.reason if res.kind == "failure" else "a question is not a step"
            return TraceVerdict(
                False, False, False, False, None, f"line {k}: does not parse ({why}): {line!r}"
            )
        fact = res.atom
        if not (cited is None and fact in given):
            candidates = [cited] if cited is not None else theory.rules
            premises = [p for r in candidates for p in _instances(r, fact, established)]
            if not premises:
                why = f"the cited rule '{cited}'" if cited is not None else "no context rule"
                valid = linear = False
                reason = reason or (
                    f"line {k}: {line!r} does not follow by {why} from established facts"
                )
            elif not any(previous & set(p) for p in premises):
                linear = False
                reason = reason or f"line {k}: {line!r} does not use the previous step's conclusion"
        cited = None
        established.add(fact)
        previous = {fact}
        last_fact = fact
    if cited is not None:
        valid = linear = False
        reason = reason or f"the trace ends on a cited rule that no fact uses: '{cited}'"
    label = None
    if last_fact == question:
        label = "True"
    elif last_fact == complement(question):
        label = "False"
    if label is None and not reason:
        reason = "the last fact is not the queried atom or its negation" if trace else "empty trace"
    return TraceVerdict(True, valid, linear, label is not None, label, reason)


def check_trace(
    trace: list[str], theory: Theory, question: Atom, *, dialect: str = "prontoqa"
) -> TraceVerdict:
    """Check a chain of thought against a parsed context and the question's atom.

    Parameters
    ----------
    trace : sentences (fact-only, or facts interleaved with the cited rules).
    theory : the parsed context (:func:`~nesybench.reasoning.grammar.reading.parse_context`).
    question : the atom asked about (``not_p(a)`` for "Is a not p?").
    dialect : ``"prontoqa"`` or ``"proofwriter"`` (the grammar the trace is written in).

    Returns
    -------
    TraceVerdict with the four flags, ``strict`` and the label the trace concludes.
    """
    if dialect == "proofwriter":
        return _check_rule_language(trace, theory, question)
    if dialect != "prontoqa":
        raise InputError(f"dialect must be 'prontoqa' or 'proofwriter', got {dialect!r}")
    entity = question.args[0]
    given = set(theory.facts)
    rules_by_head: dict[str, list[Rule]] = {}
    for rule in theory.rules:
        rules_by_head.setdefault(rule.head.pred, []).append(rule)
    axioms = set(theory.rules)

    established = set(given)
    previous: set[Atom] = {f for f in given if f.args == (entity,)}
    valid = linear = True
    reason = ""
    cited: Rule | None = None
    last_fact: Atom | None = None

    def fail(flag: str, why: str) -> None:
        nonlocal valid, linear, reason
        # An invalid step has no premise at all, so it cannot use the previous one either.
        linear = False
        if flag == "valid":
            valid = False
        if not reason:
            reason = why

    from ..reasoning.grammar.prontoqa import STEP_LEXICON, split_step

    for k, line in enumerate(expand_steps(trace), 1):
        parts = split_step(line)
        if len(parts) > 1:
            # A conjunction: valid only as conjunction introduction (every conjunct established).
            facts = [parse_sentence(p, lexicon=STEP_LEXICON) for p in parts]
            if any(f.kind != "fact" for f in facts):
                return TraceVerdict(
                    False, False, False, False, None, f"line {k}: does not parse: {line!r}"
                )
            if not all(f.atom in established for f in facts):
                fail("valid", f"line {k}: {line!r} states new facts at once (non-atomic)")
            last_fact = facts[-1].atom
            previous = {f.atom for f in facts}
            cited = None
            continue
        res = parse_sentence(line, lexicon=STEP_LEXICON)
        if res.kind == "rule":
            if cited is not None:
                fail("valid", f"line {k}: cites a second rule before using '{cited}'")
            if res.rule not in axioms:
                fail("valid", f"line {k}: cited rule is not in the context: {line!r}")
            cited = res.rule
            continue
        if res.kind != "fact":
            why = res.reason if res.kind == "failure" else "a question is not a step"
            return TraceVerdict(
                False, False, False, False, None, f"line {k}: does not parse ({why}): {line!r}"
            )
        fact = res.atom
        if fact.args != (entity,):
            return TraceVerdict(
                False,
                False,
                False,
                False,
                None,
                f"line {k}: is about {fact.args[0]!r}, not {entity!r}",
            )
        if cited is None and fact in given:
            pass  # restating a premise of the context is sound and starts a new linear run
        else:
            candidates = [cited] if cited is not None else rules_by_head.get(fact.pred, [])
            premises = [
                p
                for r in candidates
                if r.head.pred == fact.pred and (p := _premise(r, entity)) is not None
            ]
            if not any(p in established for p in premises):
                why = f"the cited rule '{cited}'" if cited is not None else "no context rule"
                fail("valid", f"line {k}: {line!r} does not follow by {why} from established facts")
            elif not any(p in previous for p in premises if p in established):
                fail("linear", f"line {k}: {line!r} does not use the previous step's conclusion")
        cited = None
        established.add(fact)
        previous = {fact}
        last_fact = fact
    if cited is not None:
        fail("valid", f"the trace ends on a cited rule that no fact uses: '{cited}'")

    label = None
    if last_fact == question:
        label = "True"
    elif last_fact == complement(question):
        label = "False"
    connects = label is not None
    if not connects and not reason:
        reason = "the last fact is not the queried atom or its negation" if trace else "empty trace"
    return TraceVerdict(True, valid, linear, connects, label, reason)


# ---------------------------------------------------------------- broad step validity
#: the classes of :func:`classify_steps`, strongest first
STEP_CLASSES = ("strict", "skip", "non-atomic", "invalid")


@dataclass(frozen=True)
class BroadVerdict:
    """Every step's class and the two proof verdicts.

    ``classes[k]`` is the class of step ``k`` (:data:`STEP_CLASSES`); ``broad``
    holds when every step parses, none is invalid and the last fact stated is
    the queried atom or its negation; ``label`` is what that fact decides.
    """

    classes: tuple[str, ...]
    broad: bool
    label: str | None
    reason: str = ""


def _closure_of(facts: set[Atom], rules: tuple[Rule, ...]) -> set[Atom]:
    from ..reasoning.chainer import forward_chain

    return set(forward_chain(sorted(facts), rules, world="open").atoms)


def _rule_path(rule: Rule, rules: tuple[Rule, ...], *, max_hops: int = 2) -> bool:
    """Whether ``rule`` (single-premise, unary) composes from at most ``max_hops`` axioms."""
    start = _premise(rule, "a")
    if start is None:
        return False
    goal = Atom(rule.head.pred, ("a",))
    frontier = {start}
    for _ in range(max_hops):
        frontier = {
            Atom(r.head.pred, ("a",))
            for r in rules
            for f in frontier
            if (p := _premise(r, "a")) is not None and p == f
        }
        if goal in frontier:
            return True
    return False


def classify_steps(trace: list[str], theory: Theory, question: Atom) -> BroadVerdict:
    """PrOntoQA's step classes for a chain of thought (``prontoqa`` grammar).

    Each step is split into the sentences it states
    (:func:`~nesybench.reasoning.grammar.prontoqa.split_step`: "Therefore, ...",
    "So ...", "Since A, B.", conjunctions) and read with
    :data:`~nesybench.reasoning.grammar.prontoqa.STEP_LEXICON` ("All Xes are Ys."):

    * **strict** -- one sentence that is a context sentence, or a fact that
      follows by one context rule from a fact already established;
    * **skip** -- one fact that follows from the established facts by two or
      more rule applications (a multi-hop step), or a rule that composes two
      context rules;
    * **non-atomic** -- several sentences in one step (a conjunction, or
      "Since A, B"), each of them strict or a skip in turn;
    * **invalid** -- anything else (a step that does not parse is invalid).

    A fact enters the established set only from a step that is not invalid.
    Formally, with ``E`` the established facts and ``C(E)`` their closure
    under the context rules: a fact ``f`` is strict iff ``f in E`` or some rule
    ``h :- b`` has ``h = f`` and ``b in E``; a skip iff ``f in C(E)`` otherwise.

    >>> from nesybench.reasoning.grammar.reading import parse_context, parse_sentence
    >>> th = parse_context("Every wumpus is a yumpus. Every yumpus is a dumpus. Max is a wumpus.")
    >>> q = parse_sentence("True or false: Max is a dumpus.").atom
    >>> v = classify_steps(["Max is a dumpus."], th, q)
    >>> v.classes, v.broad
    (('skip',), True)
    """
    from ..reasoning.grammar.prontoqa import STEP_LEXICON, split_step

    given = set(theory.facts)
    axioms = set(theory.rules)
    established = set(given)
    classes: list[str] = []
    last_fact: Atom | None = None
    reason = ""
    for k, line in enumerate(trace, 1):
        parts = split_step(line)
        parsed = [parse_sentence(p, lexicon=STEP_LEXICON) for p in parts]
        if not parsed or any(p.kind not in ("fact", "rule") for p in parsed):
            classes.append("invalid")
            reason = reason or f"step {k}: does not parse: {line!r}"
            continue
        kinds = []
        for p in parsed:
            if p.kind == "rule":
                kinds.append(
                    "strict"
                    if p.rule in axioms
                    else "skip"
                    if _rule_path(p.rule, theory.rules)
                    else "invalid"
                )
                continue
            fact = p.atom
            if fact in established or any(
                r.head.pred == fact.pred
                and (pre := _premise(r, fact.args[0])) is not None
                and pre in established
                for r in theory.rules
                if len(fact.args) == 1
            ):
                kinds.append("strict")
            elif fact in _closure_of(established, theory.rules):
                kinds.append("skip")
            else:
                kinds.append("invalid")
            if kinds[-1] != "invalid":
                established.add(fact)
            last_fact = fact
        if "invalid" in kinds:
            cls = "invalid"
            reason = reason or f"step {k}: does not follow: {line!r}"
        elif len(kinds) > 1:
            cls = "non-atomic"
        else:
            cls = kinds[0]
        classes.append(cls)
    label = None
    if last_fact == question:
        label = "True"
    elif last_fact == complement(question):
        label = "False"
    broad = bool(trace) and "invalid" not in classes and label is not None
    if label is None and not reason:
        reason = "the last fact is not the queried atom or its negation" if trace else "empty trace"
    return BroadVerdict(tuple(classes), broad, label, reason)


def expand_steps(trace: list[str]) -> list[str]:
    """The trace with "Therefore,"/"So"/"Since A, B" steps turned into plain sentences.

    Conjunctions stay one step (:func:`check_trace` then needs every conjunct
    established, PrOntoQA's conjunction introduction; a conjunction of new
    facts is a non-atomic step and not strictly valid).
    """
    from ..reasoning.grammar.prontoqa import split_step

    out: list[str] = []
    for line in trace:
        parts = split_step(line)
        low = " ".join(line.split()).lower()
        is_conjunction = len(parts) > 1 and not low.startswith("since ")
        if not parts or is_conjunction:
            out.append(line)
        else:
            out.extend(parts)
    return out
