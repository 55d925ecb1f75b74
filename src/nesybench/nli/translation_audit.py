"""The translation audit: how far an LLM's logic program is from the question's own theory.

The question's English (context and question) goes through the one grammar
(:func:`~nesybench.reasoning.grammar.reading.parse_context`, ``proofwriter`` dialect for
ProofWriter, ``prontoqa`` for PrOntoQA) into the *reference theory*; the LLM's
program is read leniently (every statement that parses, see
:func:`program_items`) and aligned to the reference vocabulary.

Alignment (names are normalised, never guessed from meaning):

* a name is *keyed* by lower-casing it and dropping everything but letters and
  digits (``Bald_Eagle``, ``BaldEagle`` and ``bald eagle`` -> ``baldeagle``);
  a constant's key also drops a leading ``the`` (``the_bear`` -> ``bear``);
* an LLM predicate maps to the reference predicate whose key equals its key,
  its singular (``Tumpuses`` -> ``tumpus``), its plural, its third person
  (``Chase`` -> ``chases``) or its key without a leading ``is``; a name that
  maps to nothing keeps its own (prefixed) name and can never match;
* a value ``False`` is the reified negative atom (``not_p``); a rule is
  compared as (head, set of conditions) with every variable anonymised.

Per question: fact precision = |F_llm ∩ F_ref| / |F_llm|, fact recall =
|F_llm ∩ F_ref| / |F_ref|, and the same for rules.

Each wrong answer is attributed to the first cause found in this order:
``not executable``; ``flipped polarity`` (the query, a fact or a rule equals a
reference one with one truth value flipped); ``wrong query`` (the query is
not the question's statement); ``missing or extra fact``; ``wrong or missing
rule`` (including a predicate spelled two ways, ``Wumpus``/``Wumpuses``: the
alignment reads both as one name, the program's chainer does not, so a rule
link is broken; and a fact with a variable, which is a rule without
conditions); ``none found`` (the translation matches: the solver's reasoning
itself).  ``unaudited`` when the reference theory cannot be built (a sentence
outside the grammar, or FOLIO, whose English no parser reads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..reasoning.grammar.prontoqa import pluralize, singularize
from ..reasoning.grammar.proofwriter import third_person
from ..reasoning.grammar.reading import parse_context, parse_sentence
from ..reasoning.terms import Atom, Theory, base_pred, complement
from .programs import ProgramError, ProgramRecord, parse_atom, split_sections

CAUSES = (
    "not executable",
    "flipped polarity",
    "wrong query",
    "missing or extra fact",
    "wrong or missing rule",
    "none found",
    "unaudited",
)
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def key(name: str) -> str:
    """``"Bald_Eagle" -> "baldeagle"``."""
    return _NON_ALNUM.sub("", name.lower())


def _const_keys(name: str) -> set[str]:
    k = key(name)
    out = {k}
    if k.startswith("the") and len(k) > 3:
        out.add(k[3:])
    return out


def _pred_variants(k: str) -> set[str]:
    out = {k, pluralize(k), third_person(k)}
    single = singularize(k)
    if single:
        out.add(single)
    if k.startswith("is") and len(k) > 2:
        out.add(k[2:])
    return out


@dataclass(frozen=True)
class ProgramItems:
    """What could be read of a program: facts, rules (body, head), queries (PAtom objects)."""

    facts: tuple = ()
    rules: tuple = ()
    queries: tuple = ()
    unreadable: int = 0


def program_items(text: str) -> ProgramItems:
    """Every statement of a rule-language program that parses (the rest is counted)."""
    try:
        sections = split_sections(text)
    except ProgramError:
        return ProgramItems(unreadable=1)
    facts, rules, queries, bad = [], [], [], 0
    for line in sections.get("Facts", []) + sections.get("Rules", []):
        try:
            if ">>>" in line:
                body, _, head = line.partition(">>>")
                rules.append(
                    (
                        tuple(parse_atom(p) for p in body.split("&&")),
                        tuple(parse_atom(p) for p in head.split("&&")),
                    )
                )
            else:
                facts.append(parse_atom(line))
        except ProgramError:
            bad += 1
    for line in sections.get("Query", []):
        try:
            queries.append(parse_atom(line))
        except ProgramError:
            bad += 1
    return ProgramItems(tuple(facts), tuple(rules), tuple(queries), bad)


class Aligner:
    """Maps an LLM program's names onto a reference theory's (module docstring)."""

    def __init__(self, theory: Theory, question: Atom):
        atoms = [*theory.facts, question]
        for r in theory.rules:
            atoms.append(r.head)
            atoms.extend(lit.atom for lit in r.body)
        self.preds: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        for a in sorted(atoms):
            base = base_pred(a.pred)
            for v in sorted(_pred_variants(key(base))):
                self.preds.setdefault(v, base)
            for t in a.args:
                if t != "X":
                    for k in sorted(_const_keys(t)):
                        self.consts.setdefault(k, t)

    def pred(self, name: str) -> str:
        for v in sorted(_pred_variants(key(name))):
            if v in self.preds:
                return self.preds[v]
        return "llm:" + name

    def term(self, arg: str) -> str:
        if arg.startswith("$"):
            return "?"
        for k in sorted(_const_keys(arg)):
            if k in self.consts:
                return self.consts[k]
        return "llm:" + arg

    def atom(self, patom) -> Atom:
        a = Atom(self.pred(patom.pred), tuple(self.term(x) for x in patom.args))
        return a if patom.value else complement(a)


def _anon(atom: Atom) -> Atom:
    return Atom(atom.pred, tuple("?" if t == "X" or t == "?" else t for t in atom.args))


def _ref_rules(theory: Theory) -> set[tuple[Atom, frozenset[Atom]]]:
    out = set()
    for r in theory.rules:
        body = frozenset(
            _anon(lit.atom if lit.positive else complement(lit.atom)) for lit in r.body
        )
        out.add((_anon(r.head), body))
    return out


def _flips(rule: tuple[Atom, frozenset[Atom]]) -> list[tuple[Atom, frozenset[Atom]]]:
    head, body = rule
    out = [(complement(head), body)]
    for b in body:
        out.append((head, (body - {b}) | {complement(b)}))
    return out


@dataclass(frozen=True)
class Audit:
    """The audit of one question (``audited`` False: ``reason`` says why not)."""

    id: str
    audited: bool
    reason: str = ""
    fact_precision: float | None = None
    fact_recall: float | None = None
    rule_precision: float | None = None
    rule_recall: float | None = None
    query_matches: bool | None = None
    query_flipped: bool | None = None
    flipped_statements: int = 0
    split_names: tuple[str, ...] = ()
    missing_facts: tuple[str, ...] = field(default=(), compare=False)
    extra_facts: tuple[str, ...] = field(default=(), compare=False)

    @property
    def facts_match(self) -> bool:
        return self.fact_precision == 1.0 and self.fact_recall == 1.0

    @property
    def rules_match(self) -> bool:
        return self.rule_precision == 1.0 and self.rule_recall == 1.0


def _ratio(hit: int, total: int) -> float:
    return hit / total if total else 1.0


class ReferenceCache:
    """Reference theories by context text (ProofWriter asks several questions of one theory)."""

    def __init__(self, dialect: str):
        self.dialect = dialect
        self.theories: dict[str, Theory] = {}

    def theory(self, context: str) -> Theory:
        if context not in self.theories:
            self.theories[context] = parse_context(context, dialect=self.dialect)
        return self.theories[context]


def audit_record(record: ProgramRecord, *, cache: ReferenceCache | None = None) -> Audit:
    """Audit one record's program against its reference theory (module docstring)."""
    if record.dataset == "folio":
        return Audit(record.id, False, "no English parser for FOLIO")
    dialect = "proofwriter" if record.dataset == "proofwriter" else "prontoqa"
    cache = cache or ReferenceCache(dialect)
    theory = cache.theory(record.context)
    if not theory.ok:
        sentence, why = theory.failures[0]
        return Audit(record.id, False, f"context sentence outside the grammar: {sentence!r}")
    q = parse_sentence(record.question, dialect=dialect)
    if q.kind not in ("question", "fact"):
        return Audit(record.id, False, f"question outside the grammar: {record.question!r}")
    if record.program is None:
        return Audit(record.id, False, record.problem or "no program")
    items = program_items(record.program)
    align = Aligner(theory, q.atom)
    llm_facts = {align.atom(f) for f in items.facts if not f.variables}
    ref_facts = set(theory.facts)
    llm_rules = set()
    for body, head in items.rules:
        b = frozenset(_anon(align.atom(x)) for x in body)
        for h in head:
            llm_rules.add((_anon(align.atom(h)), b))
    # A fact with a variable (PrOntoQA programs write some) is a universal statement: a rule
    # with no conditions, which the reference never has.
    llm_rules |= {(_anon(align.atom(f)), frozenset()) for f in items.facts if f.variables}
    spellings: dict[str, set[str]] = {}
    for f in (*items.facts, *items.queries, *(a for b, h in items.rules for a in (*b, *h))):
        spellings.setdefault(align.pred(f.pred), set()).add(f.pred)
    split = sorted(p for p, names in spellings.items() if len(names) > 1 and p[:4] != "llm:")
    ref_rules = _ref_rules(theory)
    fact_hit = len(llm_facts & ref_facts)
    rule_hit = len(llm_rules & ref_rules)
    flips = sum(complement(f) in ref_facts for f in llm_facts - ref_facts)
    flips += sum(any(x in ref_rules for x in _flips(r)) for r in llm_rules - ref_rules)
    query = align.atom(items.queries[0]) if items.queries else None
    return Audit(
        record.id,
        True,
        fact_precision=_ratio(fact_hit, len(llm_facts)),
        fact_recall=_ratio(fact_hit, len(ref_facts)),
        rule_precision=_ratio(rule_hit, len(llm_rules)),
        rule_recall=_ratio(rule_hit, len(ref_rules)),
        query_matches=query == q.atom,
        query_flipped=query is not None and query == complement(q.atom),
        flipped_statements=flips,
        split_names=tuple(split),
        missing_facts=tuple(sorted(str(a) for a in ref_facts - llm_facts)),
        extra_facts=tuple(sorted(str(a) for a in llm_facts - ref_facts)),
    )


def attribute_cause(*, executable: bool, correct: bool, audit: Audit | None) -> str | None:
    """The one cause of a wrong answer (None for a right one); order in the module docstring."""
    if correct:
        return None
    if not executable:
        return "not executable"
    if audit is None or not audit.audited:
        return "unaudited"
    if audit.query_flipped or audit.flipped_statements:
        return "flipped polarity"
    if not audit.query_matches:
        return "wrong query"
    if not audit.facts_match:
        return "missing or extra fact"
    if not audit.rules_match or audit.split_names:
        return "wrong or missing rule"
    return "none found"
