"""Executing LLM-written logic programs in Logic-LM's format, in two semantics.

Logic-LM (Pan et al., 2023) has a language model translate each question into a
logic program and runs a solver on it.  A program file is a JSON list of the
question's records (``id, context, question, options, answer``) with
``raw_logic_programs``, a list whose first text is the program:

* rule language (ProofWriter, PrOntoQA)::

      Predicates:
      Cold($x, bool) ::: Is x cold?
      Facts:
      Cold(Bob, True) ::: Bob is cold.
      Rules:
      Quiet($x, True) && Cold($x, True) >>> Smart($x, True) ::: ...
      Query:
      Smart(Bob, True) ::: Bob is smart.

  An atom ``Pred(arg, ..., value)`` has any number of arguments; the last one is
  the truth value ``True``/``False``; ``$x`` is a variable; ``&&`` joins
  conditions (and conclusions); ``>>>`` separates a rule's body from its head;
  ``:::`` starts a comment.
* first-order (FOLIO): ``Premises:`` and ``Conclusion:``, one formula a line.

Two semantics, chosen by ``semantics=``:

``"standard"``
    Every argument of every atom and of the query is read.  A value ``False``
    is the reified negative atom (``not_p``) and the program runs through the
    one open-world forward chainer
    (:func:`~nesybench.reasoning.chainer.forward_chain`, ``world="open"``):
    True if the query is derived, False if its complement is, Unknown
    otherwise (Inconsistent if both).  A line with ``>>>`` is a rule wherever
    it stands, any other line of ``Facts:``/``Rules:`` a fact.  For a two-label
    dataset (PrOntoQA) a query that is not derived is answered False.  FOLIO
    programs go through :func:`~nesybench.reasoning.fol.parse_formula` and the
    z3 dual query; names not bound by a quantifier are constants.

``"logic-lm"``
    What Logic-LM's own solver does with the same text (its Pyke path for
    ProofWriter/PrOntoQA, its Prover9 path for FOLIO), quirks included; each
    quirk is listed in :mod:`nesybench.nli.logiclm_semantics` (Pyke) and
    :mod:`nesybench.nli.logiclm_folio` (Prover9).

A program that does not parse or fails to run is *not executable*: counted,
with the reason, never an exception.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..reasoning.chainer import forward_chain
from ..reasoning.terms import Atom, Literal, Rule, complement, is_variable, substitute
from .readers import QUOTE, BadRecord, load_records, normalize_label, record_id

SEMANTICS = ("standard", "logic-lm")
DATASETS = ("proofwriter", "prontoqa", "folio")
LABELS = {
    "proofwriter": ("True", "False", "Unknown"),
    "prontoqa": ("True", "False"),
    "folio": ("True", "False", "Unknown"),
}
#: characters of a program the executor reads (a longer one is not executable)
MAX_PROGRAM = 200_000
#: atoms and rules of one program the executor reads
MAX_STATEMENTS = 20_000


class ProgramError(InputError):
    """A program outside the format (the reason it is not executable)."""


# ---------------------------------------------------------------- records
@dataclass(frozen=True)
class ProgramRecord:
    """One question with the program written for it.

    ``program`` is None when the record has no usable ``raw_logic_programs``
    (``problem`` says why); such a record is scored as not executable.
    """

    id: str
    dataset: str
    gold: str
    context: str
    question: str
    program: str | None
    problem: str = ""


@dataclass(frozen=True)
class ProgramFile:
    """The records of a program file, in file order, and the skipped ones."""

    path: str
    dataset: str
    records: tuple[ProgramRecord, ...]
    skipped: tuple[str, ...] = ()


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def detect_dataset(record: dict) -> str:
    """The dataset a record belongs to: by its id prefix, else by its program and options.

    ``FOLIO``/``ProntoQA``/``ProofWriter`` id prefixes decide; otherwise a
    program with ``Premises:`` is FOLIO, two options are PrOntoQA, anything
    else ProofWriter.
    """
    rid = str(record.get("id", "")).lower()
    for name in ("folio", "prontoqa", "proofwriter"):
        if rid.startswith(name):
            return name
    programs = record.get("raw_logic_programs")
    if isinstance(programs, list) and programs and isinstance(programs[0], str):
        if "Premises:" in programs[0]:
            return "folio"
    options = record.get("options")
    if isinstance(options, list) and len(options) == 2:
        return "prontoqa"
    return "proofwriter"


def evidence(record: object) -> str | None:
    """The dataset a record shows it belongs to, or None when it does not say.

    An id prefix (``FOLIO``/``ProntoQA``/``ProofWriter``) decides; else the program's format
    (``Premises:`` is FOLIO; ``Query:``/``Facts:``/``Rules:`` is the rule language, PrOntoQA
    with two options, ProofWriter with three).
    """
    if not isinstance(record, dict):
        return None
    rid = str(record.get("id", "")).lower()
    for name in ("folio", "prontoqa", "proofwriter"):
        if rid.startswith(name):
            return name
    programs = record.get("raw_logic_programs")
    text = programs[0] if isinstance(programs, list) and programs else programs
    if not isinstance(text, str):
        return None
    if "Premises:" in text:
        return "folio"
    if any(k in text for k in ("Query:", "Facts:", "Rules:")):
        options = record.get("options")
        if isinstance(options, list) and len(options) in (2, 3):
            return "prontoqa" if len(options) == 2 else "proofwriter"
    return None


def _check_datasets(path, records: list, dataset: str) -> None:
    """Refuse a file that is not what ``dataset`` says, has no programs, or mixes datasets."""
    objects = [r for r in records if isinstance(r, dict)]
    if objects and not any("raw_logic_programs" in r for r in objects):
        raise InputError(
            f"{path}: no record has 'raw_logic_programs' (expected Logic-LM's program files: "
            "records with the question's fields and raw_logic_programs, a list of program texts)"
        )
    seen = Counter(e for e in map(evidence, objects) if e is not None)
    if len(seen) > 1:
        mix = ", ".join(f"{n} {d}" for d, n in sorted(seen.items()))
        raise InputError(
            f"{path}: the records mix datasets ({mix}, by id prefix or program format); "
            "split the file into one dataset each"
        )
    if dataset != "auto" and seen and dataset not in seen:
        found = next(iter(seen))
        raise InputError(
            f"{path}: --benchmark {dataset}, but the records are {found} ({seen[found]} of "
            f"{len(objects)} by id prefix or program format); pass --benchmark {found} or auto"
        )


def _program_of(record: dict) -> tuple[str | None, str]:
    if "raw_logic_programs" not in record:
        return None, "record has no 'raw_logic_programs'"
    programs = record["raw_logic_programs"]
    if isinstance(programs, str):
        programs = [programs]
    if not isinstance(programs, list):
        return None, f"'raw_logic_programs' must be a list of texts, got {_type_name(programs)}"
    if not programs:
        return None, "'raw_logic_programs' is an empty list"
    if not isinstance(programs[0], str):
        return None, f"'raw_logic_programs' holds a {_type_name(programs[0])}, not a text"
    if not programs[0].strip():
        return None, "empty program"
    return programs[0], ""


def _read_record(record: Any, index: int, dataset: str) -> ProgramRecord:
    if isinstance(record, BadRecord):
        raise record
    if not isinstance(record, dict):
        raise BadRecord(f"record must be a JSON object, got {_type_name(record)}")
    rid = record_id(record, ("id", "example_id"), index)
    if "answer" not in record and "label" not in record:
        raise BadRecord("missing field 'answer'")
    raw = record.get("answer", record.get("label"))
    gold = normalize_label(raw, LABELS[dataset], record.get("options"))
    context = record.get("context", "")
    question = record.get("question", "")
    if not isinstance(context, str) or not isinstance(question, str):
        raise BadRecord("fields 'context' and 'question' must be strings")
    program, problem = _program_of(record)
    return ProgramRecord(rid, dataset, gold, context, question, program, problem)


def read_programs(path: str | Path, *, dataset: str = "auto") -> ProgramFile:
    """Read a Logic-LM program file (a JSON list, or JSON Lines, of records).

    Parameters
    ----------
    path : the file.
    dataset : ``"auto"`` (from the first record, :func:`detect_dataset`) or
        one of :data:`DATASETS`.

    A file that is not JSON, not a list of records, has no usable record, has no
    ``raw_logic_programs`` at all, mixes datasets, or whose records say they belong to
    another dataset than ``dataset`` (:func:`evidence`) is a
    :class:`~nesybench.errors.InputError`.  A record without an id or a gold
    answer is skipped (and listed); a record without a usable program is kept
    and scored as not executable.

    >>> import json, tempfile, pathlib
    >>> rec = {"id": "ProofWriter_1", "context": "Bob is big.", "question": "Bob is big.",
    ...        "answer": "A", "options": ["A) True", "B) False", "C) Unknown"],
    ...        "raw_logic_programs": ["Facts:\\nBig(Bob, True)\\nQuery:\\nBig(Bob, True)"]}
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "p.json"
    >>> _ = f.write_text(json.dumps([rec]))
    >>> pf = read_programs(f)
    >>> pf.dataset, pf.records[0].gold
    ('proofwriter', 'True')
    """
    if dataset != "auto" and dataset not in DATASETS:
        raise InputError(f"dataset must be auto or one of {', '.join(DATASETS)}, got {dataset!r}")
    if Path(path).is_dir():
        raise InputError(f"{path}: is a folder, expected a program file")
    records = load_records(path, what="records with raw_logic_programs")
    _check_datasets(path, records, dataset)
    if dataset == "auto":
        first = next((r for r in records if isinstance(r, dict)), None)
        if first is None:
            raise InputError(f"{path}: no record is a JSON object (expected a list of records)")
        dataset = detect_dataset(first)
    out: list[ProgramRecord] = []
    skipped: list[str] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        try:
            rec = _read_record(record, index, dataset)
            if rec.id in seen:
                raise BadRecord(f"duplicate id {rec.id!r} (first at record {seen[rec.id]})")
        except BadRecord as exc:
            skipped.append(f"record {index}: {exc}")
            continue
        seen[rec.id] = index
        out.append(rec)
    if not out:
        first = f"; first problem: {skipped[0]}" if skipped else ""
        raise InputError(f"{path}: no usable {dataset} program record in {len(records)}{first}")
    return ProgramFile(str(path), dataset, tuple(out), tuple(skipped))


# ---------------------------------------------------------------- the rule-language format
@dataclass(frozen=True)
class PAtom:
    """``Pred(args..., value)`` as written: ``value`` is the last argument (``True``/``False``)."""

    pred: str
    args: tuple[str, ...]
    value: bool

    def __str__(self) -> str:
        return f"{self.pred}({', '.join((*self.args, str(self.value)))})"

    @property
    def variables(self) -> set[str]:
        return {a for a in self.args if a.startswith("$")}


@dataclass(frozen=True)
class PRule:
    body: tuple[PAtom, ...]
    head: tuple[PAtom, ...]

    def __str__(self) -> str:
        return f"{' && '.join(map(str, self.body))} >>> {' && '.join(map(str, self.head))}"


@dataclass(frozen=True)
class RuleProgram:
    """A parsed rule-language program (standard reading)."""

    facts: tuple[PAtom, ...]
    rules: tuple[PRule, ...]
    query: PAtom
    predicates: tuple[str, ...] = ()


_SECTIONS = ("Predicates", "Facts", "Rules", "Query", "Premises", "Conclusion")
_HEADER = re.compile(r"^\s*(" + "|".join(_SECTIONS) + r")\s*:(.*)$")
_ATOM = re.compile(r"^\s*([A-Za-z_][\w]*)\s*\((.*)\)\s*$", re.S)
_ARG = re.compile(r"^(\$[A-Za-z_]\w*|[\w][\w .'’\-]*)$")
_VALUES = {"true": True, "false": False}


def split_sections(text: str) -> dict[str, list[str]]:
    """The program's statements by section, comments (``::: ...``) and blank lines dropped.

    Raises :class:`ProgramError` for text before the first section header and
    for a section that appears twice.
    """
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m:
            current = m.group(1)
            if current in sections:
                raise ProgramError(f"line {lineno}: section '{current}:' appears twice")
            sections[current] = []
            line = m.group(2)
        body = line.split(":::")[0].strip()
        if not body:
            continue
        if current is None:
            raise ProgramError(f"line {lineno}: text before the first section: {_cut(body)!r}")
        sections[current].append(body)
    return sections


def _cut(text: str) -> str:
    return text if len(text) <= QUOTE else text[: QUOTE - 3] + "..."


def parse_atom(text: str) -> PAtom:
    """``"Chases(The bear, Bob, False)"`` -> PAtom("Chases", ("The bear", "Bob"), False)."""
    m = _ATOM.match(text)
    if m is None:
        raise ProgramError(f"expected an atom Pred(arg, ..., True|False), got {_cut(text)!r}")
    pred, inner = m.group(1), m.group(2)
    if "(" in inner or ")" in inner:
        raise ProgramError(f"nested parentheses in an atom: {_cut(text)!r}")
    parts = [" ".join(p.split()) for p in inner.split(",")]
    if len(parts) < 2:
        raise ProgramError(f"an atom needs an argument and a truth value, got {_cut(text)!r}")
    *args, value = parts
    if value.lower() not in _VALUES:
        raise ProgramError(f"the last argument must be True or False, got {_cut(value)!r}")
    for a in args:
        if not _ARG.match(a):
            raise ProgramError(f"bad argument {_cut(a)!r} in {_cut(text)!r}")
    return PAtom(pred, tuple(args), _VALUES[value.lower()])


def _conjunction(text: str) -> tuple[PAtom, ...]:
    return tuple(parse_atom(part) for part in text.split("&&"))


def parse_rule_program(text: str) -> RuleProgram:
    """Parse a ProofWriter/PrOntoQA program in the standard reading; :class:`ProgramError` if not.

    >>> p = parse_rule_program("Facts:\\nCold(Bob, True)\\nRules:\\n"
    ...                        "Cold($x, True) >>> Blue($x, False)\\nQuery:\\nBlue(Bob, False)")
    >>> str(p.rules[0]), str(p.query)
    ('Cold($x, True) >>> Blue($x, False)', 'Blue(Bob, False)')
    """
    if not isinstance(text, str):
        raise ProgramError(f"a program must be a text, got {_type_name(text)}")
    if len(text) > MAX_PROGRAM:
        raise ProgramError(f"program longer than {MAX_PROGRAM} characters ({len(text)})")
    sections = split_sections(text)
    if "Premises" in sections or "Conclusion" in sections:
        raise ProgramError("a first-order program (Premises:/Conclusion:) in a rule-language file")
    if "Query" not in sections:
        raise ProgramError("no 'Query:' section")
    statements = sections.get("Facts", []) + sections.get("Rules", [])
    if len(statements) > MAX_STATEMENTS:
        raise ProgramError(f"more than {MAX_STATEMENTS} facts and rules ({len(statements)})")
    facts: list[PAtom] = []
    rules: list[PRule] = []
    for line in statements:
        if ">>>" in line:
            parts = line.split(">>>")
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise ProgramError(f"a rule is 'body >>> head', got {_cut(line)!r}")
            rule = PRule(_conjunction(parts[0]), _conjunction(parts[1]))
            loose = set().union(*(a.variables for a in rule.head)) - set().union(
                *(a.variables for a in rule.body)
            )
            if loose:
                raise ProgramError(
                    f"variable {sorted(loose)[0]} of the head is not in the body: {_cut(line)!r}"
                )
            rules.append(rule)
        else:
            facts.append(parse_atom(line))
    queries = sections["Query"]
    if len(queries) != 1:
        raise ProgramError(f"expected one query, got {len(queries)}")
    query = parse_atom(queries[0])
    if query.variables:
        raise ProgramError(f"the query must be about named things, got {_cut(queries[0])!r}")
    preds = tuple(m.group(1) for line in sections.get("Predicates", []) if (m := _ATOM.match(line)))
    return RuleProgram(tuple(facts), tuple(rules), query, preds)


# ---------------------------------------------------------------- standard semantics
def _term(arg: str) -> str:
    """A program argument as a chainer term: ``$x`` -> variable ``V_x``, else a constant."""
    if arg.startswith("$"):
        return "V_" + arg[1:]
    return "c:" + arg


def to_atom(atom: PAtom) -> Atom:
    """The chainer's atom: a value False is the reified negative atom ``not_<pred>``."""
    # one relation per name and arity, as the format allows a name with several arities
    a = Atom(f"{atom.pred}/{len(atom.args)}", tuple(_term(x) for x in atom.args))
    return a if atom.value else complement(a)


def program_theory(program: RuleProgram) -> tuple[list[Atom], list[Rule]]:
    """Facts and Horn rules of the standard reading (one rule per head atom)."""
    facts = [to_atom(f) for f in program.facts]
    rules = [
        Rule(to_atom(h), tuple(Literal(to_atom(b)) for b in r.body))
        for r in program.rules
        for h in r.head
    ]
    return facts, rules


#: ground instances a fact with variables may have (over the program's constants)
MAX_INSTANCES = 100_000


def ground_facts(facts: list[Atom], rules: list[Rule], query: Atom) -> list[Atom]:
    """Facts with variables read as universal statements over the program's constants.

    ``Wumpus($x, True)`` in ``Facts:`` says every thing is a wumpus; the
    program talks about finitely many things (the constants of its facts,
    rules and query), so the fact stands for its instances over them.
    """
    constants = sorted(
        {
            t
            for atom in (
                *facts,
                query,
                *(r.head for r in rules),
                *(lit.atom for r in rules for lit in r.body),
            )
            for t in atom.args
            if not is_variable(t)
        }
    )
    out: list[Atom] = []
    for atom in facts:
        names = sorted({t for t in atom.args if is_variable(t)})
        if not names:
            out.append(atom)
            continue
        if len(constants) ** len(names) > MAX_INSTANCES:
            raise ProgramError(f"a fact with variables has too many instances: {atom}")
        for values in product(constants, repeat=len(names)):
            out.append(substitute(atom, dict(zip(names, values))))
    return out


def binary_label(label: str) -> str:
    """A two-label dataset's answer: a statement that is not derived is False."""
    return "False" if label == "Unknown" else label


def run_standard(program: RuleProgram, *, dataset: str) -> str:
    """The open-world answer of a parsed program: True, False, Unknown or Inconsistent."""
    facts, rules = program_theory(program)
    facts = ground_facts(facts, rules, to_atom(program.query))
    closure = forward_chain(facts, rules, world="open")
    query = to_atom(program.query)
    label = closure.label(query)
    return binary_label(label) if dataset == "prontoqa" else label


# ---------------------------------------------------------------- executions
#: the classes of a program the standard semantics cannot run (``Outcome.failure``)
NO_PROGRAM = "no program"
OUTSIDE_FORMAT = "not executable: outside the program format"
TOO_LONG = "not executable: longer than the program cap"
GAVE_UP = "not executable: the solver gave up within the time limit"


@dataclass(frozen=True)
class Outcome:
    """What one program gives.

    ``predicted`` is the answer (None when not executable, with ``reason`` and
    ``failure``, the class of the reason); ``derived`` what the solver said
    before the dataset's labels were applied (e.g. "Inconsistent");
    ``alternatives`` the other outcomes (answers or failure classes) the same
    program has under other hash orders (Logic-LM's FOLIO lexer), empty when
    the outcome does not depend on the order.
    """

    predicted: str | None
    reason: str = ""
    derived: str | None = None
    failure: str | None = None
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class Execution:
    """What one program gave.

    ``predicted`` is the answer (None when not executable); ``derived`` what the
    solver said before the dataset's labels were applied (e.g. "Inconsistent");
    ``reason`` why the program is not executable ("" when it is).
    """

    id: str
    executable: bool
    predicted: str | None
    gold: str
    reason: str = ""
    derived: str | None = None
    cause: str | None = None
    failure: str | None = None
    alternatives: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def order_dependent(self) -> bool:
        return bool(self.alternatives)

    @property
    def correct(self) -> bool:
        return self.executable and self.predicted == self.gold

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "executable": self.executable,
            "predicted": self.predicted,
            "gold": self.gold,
            "cause": self.cause,
            "reason": self.reason,
            "derived": self.derived,
            "failure": self.failure,
            "hash_order_alternatives": list(self.alternatives),
        }


def execute_program(
    program: object, *, dataset: str, semantics: str = "standard", time_limit: float = 10.0
) -> tuple[str | None, str, str | None]:
    """Run one program: ``(predicted, reason, derived)``; predicted is None when not executable.

    Never raises on the program's text (arbitrary text is a reason, not an
    exception); raises :class:`~nesybench.errors.InputError` only for a bad
    ``dataset`` or ``semantics``.  :func:`run_program` gives the whole
    :class:`Outcome`.

    >>> prog = "Facts:\\nCold(Bob, True)\\nRules:\\nCold($x, True) >>> Blue($x, True)\\n" \\
    ...        "Query:\\nBlue(Bob, False)"
    >>> execute_program(prog, dataset="proofwriter")
    ('False', '', 'False')
    >>> execute_program("Query:\\nBlue(Bob)", dataset="proofwriter")[:2]
    (None, "an atom needs an argument and a truth value, got 'Blue(Bob)'")
    """
    out = run_program(program, dataset=dataset, semantics=semantics, time_limit=time_limit)
    return out.predicted, out.reason, out.derived


def run_program(
    program: object, *, dataset: str, semantics: str = "standard", time_limit: float = 10.0
) -> Outcome:
    """Run one program in one semantics (see :func:`execute_program`).

    Both semantics refuse a program longer than :data:`MAX_PROGRAM` characters
    (one cap; the engines are near-linear in the program's size below it).
    """
    if dataset not in DATASETS:
        raise InputError(f"dataset must be one of {', '.join(DATASETS)}, got {dataset!r}")
    if semantics not in SEMANTICS:
        raise InputError(f"semantics must be one of {', '.join(SEMANTICS)}, got {semantics!r}")
    if not isinstance(program, str):
        return Outcome(
            None, f"a program must be a text, got {_type_name(program)}", None, NO_PROGRAM
        )
    if not program.strip():
        return Outcome(None, "empty program", None, NO_PROGRAM)
    if len(program) > MAX_PROGRAM:
        return Outcome(
            None, f"program longer than {MAX_PROGRAM} characters ({len(program)})", None, TOO_LONG
        )
    if semantics == "logic-lm":
        from .logiclm_semantics import run_logiclm

        return run_logiclm(program, dataset=dataset, time_limit=time_limit)
    try:
        if dataset == "folio":
            derived = run_folio_standard(program, time_limit=time_limit)
        else:
            derived = run_standard(parse_rule_program(program), dataset=dataset)
    except InputError as exc:
        return Outcome(None, str(exc), None, OUTSIDE_FORMAT)
    except RecursionError:
        return Outcome(None, "program nested too deeply", None, OUTSIDE_FORMAT)
    if derived == "Undecided":
        return Outcome(None, f"the solver gave up within {time_limit:g} s", derived, GAVE_UP)
    return Outcome(derived, "", derived)


# ---------------------------------------------------------------- FOLIO
def folio_sections(text: str) -> tuple[list[str], str]:
    """The premise formulas and the conclusion formula of a first-order program."""
    sections = split_sections(text)
    premises = sections.get("Premises")
    conclusion = sections.get("Conclusion")
    if premises is None or conclusion is None:
        raise ProgramError("a first-order program needs 'Premises:' and 'Conclusion:' sections")
    if len(conclusion) != 1:
        raise ProgramError(f"expected one conclusion, got {len(conclusion)}")
    return premises, conclusion[0]


def run_folio_standard(text: str, *, time_limit: float) -> str:
    """Premises and conclusion through the one formula parser, then the z3 dual query."""
    from ..reasoning.fol import dual_query, parse_formula

    if len(text) > MAX_PROGRAM:
        raise ProgramError(f"program longer than {MAX_PROGRAM} characters ({len(text)})")
    premises, conclusion = folio_sections(text)
    parsed = []
    for k, formula in enumerate((*premises, conclusion)):
        what = f"premise {k + 1}" if k < len(premises) else "the conclusion"
        try:
            parsed.append(parse_formula(formula))
        except InputError as exc:
            raise ProgramError(f"{what} does not parse ({exc}): {_cut(formula)!r}") from None
    *gamma, goal = parsed
    return dual_query(gamma, goal, time_limit=time_limit).label


# ---------------------------------------------------------------- whole files
def execute_records(
    records: Iterable[ProgramRecord],
    *,
    semantics: str = "standard",
    time_limit: float = 10.0,
    progress: Callable | None = None,
) -> list[Execution]:
    """Execute every record's program (``progress`` wraps the iteration if given)."""
    if semantics not in SEMANTICS:
        raise InputError(f"semantics must be one of {', '.join(SEMANTICS)}, got {semantics!r}")
    records = list(records)
    items = records if progress is None else progress(records)
    out: list[Execution] = []
    for rec in items:
        if rec.program is None:
            out.append(Execution(rec.id, False, None, rec.gold, rec.problem, failure=NO_PROGRAM))
            continue
        o = run_program(
            rec.program, dataset=rec.dataset, semantics=semantics, time_limit=time_limit
        )
        out.append(
            Execution(
                rec.id,
                o.predicted is not None,
                o.predicted,
                rec.gold,
                o.reason,
                o.derived,
                failure=o.failure,
                alternatives=o.alternatives,
            )
        )
    return out


def summarize_executions(executions: list[Execution], *, dataset: str, semantics: str) -> dict:
    """The file-level figures.

    ``executable_rate = #executable / n``; ``accuracy_executable = #correct /
    #executable``; ``accuracy = #correct / n`` (not executable counts wrong);
    ``accuracy_random_backup = (#correct + #not executable / k) / n``, the
    expected accuracy when every non-executable item gets a uniformly random
    answer among the ``k`` labels (Logic-LM's ``random`` backup).
    """
    n = len(executions)
    ok = [e for e in executions if e.executable]
    correct = sum(e.correct for e in executions)
    k = len(LABELS[dataset])
    per_label = {}
    for label in LABELS[dataset]:
        sub = [e for e in executions if e.gold == label]
        per_label[label] = {
            "n": len(sub),
            "executable": sum(e.executable for e in sub),
            "accuracy": sum(e.correct for e in sub) / len(sub) if sub else None,
        }
    return {
        "dataset": dataset,
        "semantics": semantics,
        "n": n,
        "executable": len(ok),
        "executable_rate": len(ok) / n if n else None,
        "correct": correct,
        "accuracy_executable": correct / len(ok) if ok else None,
        "accuracy": correct / n if n else None,
        "accuracy_random_backup": (correct + (n - len(ok)) / k) / n if n else None,
        "per_label": per_label,
    }
