"""The one policy for a system's predictions scored against gold questions.

``nesybench score-nli`` (a benchmark's gold) and ``nesybench axes-score`` (the grid) read
predictions the same way and count them the same way:

* a predictions file is a JSON list or JSON Lines of ``{"id": ..., "prediction": ...}``
  records (:func:`nesybench.io.json_records`);
* every gold question counts in every accuracy.  Its outcome is one of

  ``answered``    the prediction reads as a label: correct or not;
  ``abstained``   ``"prediction": null``, or no record for its id: not correct;
  ``unreadable``  a prediction that is not a label (``"Maybe"``, ``3``): not correct, and
                  counted and quoted in the report so a parsing problem cannot pass as a
                  model's mistake unnoticed;

* a record that names no question (a line that is not JSON, not an object, no id, no
  ``prediction`` field) is skipped, counted and quoted;
* ids not among the gold questions, and ids given twice, are errors: such a file was
  made for other questions;
* ``strict=True`` (the commands' ``--strict``) turns unreadable predictions and skipped
  records into errors, naming the first.

Every accuracy is reported with its coverage: ``accuracy = correct / n`` over the ``n``
gold questions, ``coverage = answered / n`` and ``accuracy_answered = correct / answered``
(:func:`rate`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .io import BadLine

#: ids, values and records quoted in a message or a report
SHOW = 5
#: characters of a value quoted
QUOTE = 60


class NotALabel(Exception):
    """A prediction value that does not read as a label (the message says why)."""


def quote(value: object) -> str:
    """A value as JSON, cut to :data:`QUOTE` characters for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= QUOTE else text[: QUOTE - 3] + "..."


def _shown(items: Sequence[str]) -> str:
    more = f" and {len(items) - SHOW:,} more" if len(items) > SHOW else ""
    return ", ".join(items[:SHOW]) + more


@dataclass(frozen=True)
class PredictionSet:
    """Predictions read under the policy: per id a label or None, and what was not read.

    ``labels`` holds every id the file gives (None: abstained or unreadable); ``records``
    the raw record of each (for fields a command reads beside the label, e.g. an
    explanation); ``unreadable`` id -> the quoted value and why; ``skipped`` the records
    that name no question, as ``"<where>: <why>"``.
    """

    source: str
    labels: dict[str, str | None]
    records: dict[str, dict] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()

    def label(self, qid: str) -> str | None:
        return self.labels.get(qid)

    def counts(self, gold_ids: Iterable[str]) -> dict[str, int]:
        """``n``, ``answered``, ``abstained`` and ``unreadable`` over the gold questions."""
        ids = list(gold_ids)
        answered = sum(self.labels.get(q) is not None for q in ids)
        unreadable = sum(q in self.unreadable for q in ids)
        return {
            "n": len(ids),
            "answered": answered,
            "abstained": len(ids) - answered - unreadable,
            "unreadable": unreadable,
        }

    def report(self, gold_ids: Iterable[str]) -> dict[str, Any]:
        """The policy's part of a report: the counts and the first problems quoted."""
        return {
            **self.counts(gold_ids),
            "unreadable_predictions": [
                f"{qid!r}: {why}" for qid, why in list(self.unreadable.items())[:SHOW]
            ],
            "skipped_predictions": list(self.skipped),
        }


def read_predictions(
    items: Sequence[tuple[str, object]],
    *,
    source: str,
    gold_ids: Iterable[str],
    read_label: Callable[[object, dict], str | None],
    strict: bool = False,
    gold_name: str = "the gold questions",
    unknown_hint: Callable[[list[str]], str] | None = None,
) -> PredictionSet:
    """Read ``(where, record)`` items (``where`` e.g. ``"line 3"``, :func:`items_of`) under the
    module's policy.

    ``read_label(value, record)`` returns the label a non-null prediction names, or raises
    :class:`NotALabel`; ``gold_ids`` are the questions being scored (``gold_name`` says
    whose, in the unknown-id error).  ``unknown_hint``
    may add a clause to the unknown-id error (e.g. that some gold records were unreadable).
    """
    gold = set(gold_ids)
    labels: dict[str, str | None] = {}
    records: dict[str, dict] = {}
    unreadable: dict[str, str] = {}
    skipped: list[str] = []
    first_at: dict[str, str] = {}
    unknown: list[str] = []
    for where, record in items:
        problem = _record_problem(record)
        if problem is not None:
            text = str(record) if isinstance(record, BadLine) else f"{where}: {problem}"
            if strict:
                raise InputError(
                    f"{source}: {text} (--strict refuses records that name no question)"
                )
            skipped.append(text)
            continue
        assert isinstance(record, dict)
        qid = str(record["id"]).strip()
        if qid in first_at:
            raise InputError(
                f"{source}: {where}: duplicate id {quote(qid)} (first at {first_at[qid]})"
            )
        first_at[qid] = where
        if qid not in gold:
            unknown.append(quote(qid))
            continue
        records[qid] = record
        value = record["prediction"]
        if value is None:
            labels[qid] = None
            continue
        try:
            labels[qid] = read_label(value, record)
        except NotALabel as exc:
            if strict:
                raise InputError(
                    f"{source}: {where}: {exc} (--strict refuses predictions that are not labels)"
                ) from None
            labels[qid] = None
            unreadable[qid] = str(exc)
    if unknown:
        hint = unknown_hint(unknown) if unknown_hint else ""
        raise InputError(
            f"{source}: {len(unknown):,} prediction id(s) not among {gold_name}: "
            f"{_shown(unknown)}{hint}"
        )
    if not first_at:
        first = f"; first problem: {skipped[0]}" if skipped else ""
        raise InputError(f"{source}: no usable prediction in {len(items):,} records{first}")
    return PredictionSet(source, labels, records, unreadable, tuple(skipped))


def items_of(path: str, *, what: str = "predictions file") -> list[tuple[str, object]]:
    """A predictions file's records as ``(where, record)``: ``line N`` (JSON Lines) or
    ``record I`` (a JSON list, from 0), read with the input bound."""
    from .io import json_records, read_input_text

    kind, items = json_records(read_input_text(path, what=what), source=path, what="predictions")
    if kind == "lines":
        return [(f"line {n}", r) for n, r in items]
    return [(f"record {n - 1}", r) for n, r in items]


def _record_problem(record: object) -> str | None:
    """Why a record names no question, or None."""
    if isinstance(record, BadLine):
        return str(record)
    if not isinstance(record, dict):
        return f"record must be a JSON object, got {quote(record)}"
    qid = record.get("id")
    if qid is None:
        return "missing field 'id'"
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or not str(qid).strip():
        return f"field 'id' must be a non-empty string or an integer, got {quote(qid)}"
    if "prediction" not in record:
        return f"record {quote(qid)} has no field 'prediction' (null abstains)"
    return None


def rate(correct: int, answered: int, n: int) -> dict[str, Any]:
    """One accuracy with its coverage: ``n``, ``answered``, ``coverage``, ``correct``,
    ``accuracy`` (over all ``n``) with its Wilson 95% interval ``lo``, ``hi``, and
    ``accuracy_answered``.

    >>> r = rate(3, 4, 5)
    >>> r["accuracy"], r["coverage"], r["accuracy_answered"]
    (0.6, 0.8, 0.75)
    """
    from .metrics.stats import wilson_interval

    lo, hi = wilson_interval(correct, n)
    return {
        "n": n,
        "answered": answered,
        "coverage": answered / n if n else None,
        "correct": correct,
        "accuracy": correct / n if n else None,
        "lo": lo,
        "hi": hi,
        "accuracy_answered": correct / answered if answered else None,
    }
