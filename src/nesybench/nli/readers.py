"""Readers of the published reasoning benchmarks, in their own formats, behind one interface.

:func:`read_benchmark` turns a file (or LogicBench's folder tree) into a
:class:`Benchmark`: the questions with their gold labels and ids, and the
records it had to skip, each with where and why.

=========== ============================================================ ==========================
benchmark   format                                                       labels
=========== ============================================================ ==========================
prontoqa    JSON list (or JSONL) of ``id, context, question, options,     True / False
            answer[, explanation]`` (Logic-LLM's format; ``answer`` a
            letter naming an option such as ``"A) True"``, or the label)
proofwriter the same format, three options                               True / False / Unknown
folio       JSONL (or a JSON list) of ``premises, premises-FOL,           True / False / Unknown
            conclusion, conclusion-FOL, label`` (``Uncertain`` is read    (``Uncertain``)
            as Unknown); id ``example_id``, else ``id``, else the
            record's index from 0
logicbench  the BQA folder tree ``<logic>/<axiom>/data_instances.json``;  yes / no
            each file ``{type, axiom, samples: [{id, context,
            qa_pairs: [{question, answer}]}]}``; question ids
            ``<logic>/<axiom>/<sample id>/<pair index>`` (pair from 0)
=========== ============================================================ ==========================

What stops a read (a :class:`~nesybench.errors.InputError`, one ``error:``
line at the CLI): a missing or unreadable file, text that is not JSON (a
truncated JSON list), a top level of the wrong type, an empty file, a folder
with no ``data_instances.json``, or a file none of whose records is usable.
What is skipped, counted and reported (:attr:`Benchmark.skipped`): one bad
record inside a good file -- a line of JSONL that is not JSON, a record that
is not an object, a missing or mistyped field, an unknown label, an id seen
before.  A reader never guesses a label.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io import BadLine, json_records, read_input_text

BENCHMARKS = ("prontoqa", "proofwriter", "folio", "logicbench")
LABELS: dict[str, tuple[str, ...]] = {
    "prontoqa": ("True", "False"),
    "proofwriter": ("True", "False", "Unknown"),
    "folio": ("True", "False", "Unknown"),
    "logicbench": ("yes", "no"),
}
#: spellings of a label that mean the same thing (lower-cased keys)
LABEL_SYNONYMS = {"uncertain": "Unknown"}
#: how many characters of a bad value an error message quotes
QUOTE = 60


@dataclass(frozen=True)
class Question:
    """One benchmark question with its gold label.

    ``context`` and ``question`` are the natural-language text (for FOLIO the
    premises joined by newlines and the conclusion); the other fields carry
    what each format adds: PrOntoQA's gold chain (``explanation``), FOLIO's
    annotations (``premises_fol``, ``conclusion_fol``; None when absent),
    LogicBench's place in the tree (``logic``, ``axiom``, ``sample``, ``pair``).
    """

    id: str
    benchmark: str
    gold: str
    context: str
    question: str
    explanation: tuple[str, ...] = ()
    premises_fol: tuple[str, ...] | None = None
    conclusion_fol: str | None = None
    logic: str = ""
    axiom: str = ""
    sample: str = ""
    pair: int = -1


@dataclass(frozen=True)
class Skip:
    """A record that was not read: where it is, why, and its id when it has a readable one
    (so a prediction for it can be told apart from a prediction for no question)."""

    where: str
    reason: str
    id: str | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class Benchmark:
    """The questions of one benchmark file (or tree), in file order, and the skipped records."""

    name: str
    path: str
    questions: tuple[Question, ...]
    skipped: tuple[Skip, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS[self.name]

    def __len__(self) -> int:
        return len(self.questions)

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}


class BadRecord(Exception):
    """One record cannot be read (becomes a :class:`Skip`)."""


def _quote(value: object) -> str:
    text = repr(value)
    return text if len(text) <= QUOTE else text[: QUOTE - 3] + "..."


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


# ---------------------------------------------------------------- files
def read_text(path: str | Path) -> str:
    """A file's text (UTF-8, a leading byte-order mark dropped, read with the input bound of
    :func:`nesybench.io.read_input`), or a one-line ``InputError``."""
    return read_input_text(path)


def _loads(text: str) -> Any:
    """``json.loads`` that reports nesting too deep for Python as bad JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text[:1], 0) from None


def load_records(path: str | Path, *, what: str = "records") -> list[Any]:
    """The records of a JSON list or a JSON Lines file (:func:`nesybench.io.json_records`).

    A JSON list (or one JSON object) is read whole; anything else is read as
    JSON Lines, where a line that is not JSON becomes a :class:`BadRecord`
    marker (counted as a skip by the readers).  An empty file, a file of
    which no line is JSON, a top-level JSON that is neither a list nor an
    object, and JSON nested too deeply are errors.
    """
    _, items = json_records(read_text(path), source=path, what=what)
    return [BadRecord(str(r)) if isinstance(r, BadLine) else r for _, r in items]


# ---------------------------------------------------------------- labels
def normalize_label(value: object, labels: tuple[str, ...], options: object = None) -> str:
    """The label ``value`` names among ``labels`` (case-insensitive), or ``BadRecord``.

    Accepts the label itself (``"true"``, ``"UNKNOWN"``, ``"Uncertain"``), a
    JSON boolean for True/False, or an option letter (``"A"``) resolved through
    ``options`` (``["A) True", "B) False"]``) or, without options, through the
    order of ``labels`` (A = first label).
    """
    if isinstance(value, bool) and "True" in labels:
        return "True" if value else "False"
    if not isinstance(value, str):
        raise BadRecord(f"label must be a string, got {_type_name(value)} {_quote(value)}")
    text = value.strip()
    low = text.lower()
    low = LABEL_SYNONYMS.get(low, low).lower()
    for label in labels:
        if low == label.lower():
            return label
    letter = text.rstrip(")").strip().upper()
    if len(letter) == 1 and "A" <= letter <= "Z":
        if options is not None:
            if not isinstance(options, list):
                raise BadRecord(f"options must be a list of strings, got {_type_name(options)}")
            for option in options:
                if not isinstance(option, str):
                    raise BadRecord(f"options must be strings, got {_type_name(option)}")
                head, sep, rest = option.strip().partition(")")
                if sep and head.strip().upper() == letter:
                    return normalize_label(rest.strip(), labels)
        else:
            index = ord(letter) - ord("A")
            if index < len(labels):
                return labels[index]
    raise BadRecord(f"unknown label {_quote(value)} (expected one of {', '.join(labels)})")


# ---------------------------------------------------------------- per format
def _field(record: dict, name: str, kind: type | tuple[type, ...], what: str) -> Any:
    if name not in record:
        raise BadRecord(f"missing field {name!r}")
    value = record[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadRecord(f"field {name!r} must be {what}, got {_type_name(value)}")
    return value


def record_id(record: dict, keys: tuple[str, ...], index: int) -> str:
    for key in keys:
        if key in record and record[key] is not None:
            value = record[key]
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise BadRecord(f"field {key!r} must be a string or an integer id")
            text = str(value).strip()
            if not text:
                raise BadRecord(f"field {key!r} is empty")
            return text
    return str(index)


def _logic_llm(record: Any, index: int, benchmark: str) -> Question:
    """PrOntoQA / ProofWriter in Logic-LLM's format."""
    if not isinstance(record, dict):
        raise BadRecord(f"record must be a JSON object, got {_type_name(record)}")
    qid = record_id(record, ("id",), index)
    context = _field(record, "context", str, "a string")
    question = _field(record, "question", str, "a string")
    if "answer" not in record:
        raise BadRecord("missing field 'answer'")
    gold = normalize_label(record["answer"], LABELS[benchmark], record.get("options"))
    explanation: tuple[str, ...] = ()
    if record.get("explanation") is not None:
        chain = record["explanation"]
        if isinstance(chain, str):
            chain = [chain]
        if not isinstance(chain, list) or not all(isinstance(s, str) for s in chain):
            raise BadRecord("field 'explanation' must be a list of sentences")
        explanation = tuple(chain)
    return Question(qid, benchmark, gold, context, question, explanation=explanation)


def _folio(record: Any, index: int) -> Question:
    if not isinstance(record, dict):
        raise BadRecord(f"record must be a JSON object, got {_type_name(record)}")
    qid = record_id(record, ("example_id", "id"), index)
    conclusion = _field(record, "conclusion", str, "a string")
    premises = record.get("premises", [])
    if isinstance(premises, str):
        premises = [premises]
    if not isinstance(premises, list) or not all(isinstance(p, str) for p in premises):
        raise BadRecord("field 'premises' must be a list of sentences")
    if "label" not in record:
        raise BadRecord("missing field 'label'")
    gold = normalize_label(record["label"], LABELS["folio"])
    premises_fol = record.get("premises-FOL")
    if premises_fol is not None:
        if isinstance(premises_fol, str):
            premises_fol = [line for line in premises_fol.splitlines() if line.strip()]
        if not isinstance(premises_fol, list) or not all(isinstance(p, str) for p in premises_fol):
            raise BadRecord("field 'premises-FOL' must be a list of formulas")
        premises_fol = tuple(premises_fol)
    conclusion_fol = record.get("conclusion-FOL")
    if conclusion_fol is not None and not isinstance(conclusion_fol, str):
        raise BadRecord(
            f"field 'conclusion-FOL' must be a string, got {_type_name(conclusion_fol)}"
        )
    return Question(
        qid,
        "folio",
        gold,
        "\n".join(premises),
        conclusion,
        premises_fol=premises_fol,
        conclusion_fol=conclusion_fol,
    )


def _readable_id(record: Any, benchmark: str) -> str | None:
    """The id of a record that could not be read, when it has one."""
    if not isinstance(record, dict):
        return None
    keys = ("example_id", "id") if benchmark == "folio" else ("id",)
    try:
        return record_id(record, keys, -1) if any(k in record for k in keys) else None
    except BadRecord:
        return None


def _read_flat(path: str | Path, benchmark: str) -> Benchmark:
    records = load_records(path, what=f"{benchmark} questions")
    questions: list[Question] = []
    skipped: list[Skip] = []
    first_at: dict[str, int] = {}
    for index, record in enumerate(records):
        where = f"record {index}"
        try:
            if isinstance(record, BadRecord):
                raise record
            if benchmark == "folio":
                q = _folio(record, index)
            else:
                q = _logic_llm(record, index, benchmark)
            if q.id in first_at:
                raise BadRecord(f"duplicate id {q.id!r} (first at record {first_at[q.id]})")
        except BadRecord as exc:
            skipped.append(Skip(where, str(exc), _readable_id(record, benchmark)))
            continue
        first_at[q.id] = index
        questions.append(q)
    if not questions:
        first = f"; first problem: {skipped[0]}" if skipped else ""
        raise InputError(f"{path}: no usable {benchmark} record in {len(records)}{first}")
    return Benchmark(benchmark, str(path), tuple(questions), tuple(skipped))


# ---------------------------------------------------------------- LogicBench
def _logicbench_files(root: Path) -> Iterator[tuple[Path, str | None, str | None]]:
    """``(file, logic, axiom)``; logic and axiom from the folders when the tree has them."""
    if root.is_file():
        yield root, None, None
        return
    files = sorted(root.rglob("data_instances.json"))
    for f in files:
        rel = f.relative_to(root).parts
        if len(rel) == 3:
            yield f, rel[0], rel[1]
        elif len(rel) == 2:
            yield f, root.name, rel[0]
        else:
            yield f, None, None


def _read_logicbench(path: str | Path) -> Benchmark:
    root = Path(path)
    if not root.exists():
        raise InputError(f"{path}: not found (expected LogicBench's BQA folder)")
    found = list(_logicbench_files(root))
    if not found:
        raise InputError(
            f"{path}: no <logic>/<axiom>/data_instances.json below this folder "
            "(expected LogicBench's BQA folder)"
        )
    questions: list[Question] = []
    skipped: list[Skip] = []
    seen: dict[str, str] = {}
    for file, logic, axiom in found:
        rel = file.relative_to(root) if root.is_dir() else file.name
        data = _loads_file(file)
        if not isinstance(data, dict):
            raise InputError(
                f"{file}: the file must be a JSON object with 'samples', got {_type_name(data)}"
            )
        samples = data.get("samples")
        if not isinstance(samples, list):
            raise InputError(f"{file}: field 'samples' must be a list, got {_type_name(samples)}")
        logic = logic or str(data.get("type") or "")
        axiom = axiom or str(data.get("axiom") or "")
        if not logic or not axiom:
            raise InputError(f"{file}: cannot tell the logic and axiom (fields 'type', 'axiom')")
        for s_index, sample in enumerate(samples):
            where = f"{rel} sample {s_index}"
            try:
                if not isinstance(sample, dict):
                    raise BadRecord(f"sample must be a JSON object, got {_type_name(sample)}")
                sid = record_id(sample, ("id",), s_index)
                context = _field(sample, "context", str, "a string")
                pairs = _field(sample, "qa_pairs", list, "a list")
            except BadRecord as exc:
                skipped.append(Skip(where, str(exc)))
                continue
            for p_index, pair in enumerate(pairs):
                pwhere = f"{where} pair {p_index}"
                try:
                    if not isinstance(pair, dict):
                        raise BadRecord(f"qa pair must be a JSON object, got {_type_name(pair)}")
                    question = _field(pair, "question", str, "a string")
                    if "answer" not in pair:
                        raise BadRecord("missing field 'answer'")
                    gold = normalize_label(pair["answer"], LABELS["logicbench"])
                    qid = f"{logic}/{axiom}/{sid}/{p_index}"
                    if qid in seen:
                        raise BadRecord(f"duplicate id {qid!r} (first at {seen[qid]})")
                except BadRecord as exc:
                    skipped.append(Skip(pwhere, str(exc), f"{logic}/{axiom}/{sid}/{p_index}"))
                    continue
                seen[qid] = pwhere
                questions.append(
                    Question(
                        qid,
                        "logicbench",
                        gold,
                        context,
                        question,
                        logic=logic,
                        axiom=axiom,
                        sample=sid,
                        pair=p_index,
                    )
                )
    if not questions:
        first = f"; first problem: {skipped[0]}" if skipped else ""
        raise InputError(f"{path}: no usable LogicBench question{first}")
    return Benchmark("logicbench", str(path), tuple(questions), tuple(skipped))


def _loads_file(file: Path) -> Any:
    text = read_text(file)
    if not text.strip():
        raise InputError(f"{file}: empty file")
    try:
        return _loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{file}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def read_benchmark(path: str | Path, *, benchmark: str) -> Benchmark:
    """Read a benchmark file (LogicBench: its BQA folder) in its own format.

    Parameters
    ----------
    path : the file, or for ``logicbench`` the folder (a single
        ``data_instances.json`` works too).
    benchmark : one of :data:`BENCHMARKS`.

    Returns
    -------
    Benchmark with the questions in file order and the skipped records.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> rec = {"id": "q1", "context": "Bob is big.", "question": "Bob is big.",
    ...        "options": ["A) True", "B) False", "C) Unknown"], "answer": "A"}
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pw.json"
    >>> _ = f.write_text(json.dumps([rec, {"id": "q2"}]))
    >>> b = read_benchmark(f, benchmark="proofwriter")
    >>> [q.gold for q in b.questions], [str(s) for s in b.skipped]
    (['True'], ["record 1: missing field 'context'"])
    """
    if benchmark not in BENCHMARKS:
        raise InputError(f"benchmark must be one of {', '.join(BENCHMARKS)}, got {benchmark!r}")
    if benchmark == "logicbench":
        return _read_logicbench(path)
    if Path(path).is_dir():
        raise InputError(f"{path}: is a folder, expected a {benchmark} file")
    return _read_flat(path, benchmark)
