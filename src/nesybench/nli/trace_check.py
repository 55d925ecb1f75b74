"""Checking a user's chains of thought, record by record: what ``nesybench check-trace`` computes.

:func:`read_records` reads a trace file (a JSON list or JSONL of records with ``context``,
``question`` and ``chain_of_thought``, or PrOntoQA's native JSON); :func:`check_record` turns
one record into its verdict (the step checker's flags on the chain, the broad step classes,
the answer the model states and whether it is the gold one) or ``{"error": reason}``;
:func:`summarize` turns the verdicts into the rates the command prints.  The step checker
itself is :mod:`nesybench.nli.checker`.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from .checker import FLAGS, check_trace, classify_steps
from .readers import BadRecord, load_records

__all__ = ["check_record", "read_records", "stated_answer", "summarize"]


def read_records(path: str) -> list[Any]:
    """The records of a JSON list or JSONL file; a line that is not JSON becomes an error marker.

    PrOntoQA's native JSON (``{"example1": {"test_example": {question, query,
    chain_of_thought, answer}, "model_output": ...}}``) is read too: the
    context is ``question``, the question ``query``, and the chain the model's
    output when there is one (else the gold chain).
    """
    records = load_records(path, what="records with context, question, chain_of_thought")
    if len(records) == 1 and _is_native(records[0]):
        return [_from_native(k, v) for k, v in records[0].items()]
    return [_from_native(None, r) if _is_native_example(r) else r for r in records]


def _is_native_example(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("test_example"), dict)


def _is_native(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(k, str) and k.startswith("example") for k in value)
        and any(_is_native_example(v) for v in value.values())
    )


def _from_native(key: str | None, value: Any) -> Any:
    if not _is_native_example(value):
        return BadRecord(f"{key}: expected an object with 'test_example'")
    ex = value["test_example"]
    output = ex.get("model_output", value.get("model_output", value.get("output")))
    if isinstance(output, list) and len(output) == 1:
        output = output[0]
    record = {
        "id": key or ex.get("id"),
        "context": ex.get("question"),
        "question": ex.get("query"),
        "answer": ex.get("answer"),
        "chain_of_thought": ex.get("chain_of_thought"),
    }
    if isinstance(output, str):
        record["chain_of_thought"] = output
    return record


_ANSWER_WORDS = {"true": "True", "false": "False", "yes": "True", "no": "False"}


def stated_answer(record: dict, trace: list[str]) -> tuple[str | None, list[str]]:
    """The model's own answer and the chain without it.

    A ``prediction`` field wins; else a last sentence that is only an answer
    ("True.", "The answer is false.", "So the statement is true.") is read
    and removed from the chain.
    """
    pred = record.get("prediction")
    if isinstance(pred, str) and pred.strip().rstrip(".").lower() in _ANSWER_WORDS:
        return _ANSWER_WORDS[pred.strip().rstrip(".").lower()], trace
    if isinstance(pred, bool):
        return ("True" if pred else "False"), trace
    if trace:
        last = trace[-1].strip().rstrip(".").lower().split()
        if (
            last
            and last[-1] in _ANSWER_WORDS
            and (
                len(last) == 1
                or last[:-1][-2:] in (["answer", "is"], ["statement", "is"])
                or last[-2:-1] == ["is"]
                and last[0] in ("so", "thus", "therefore", "the")
            )
        ):
            return _ANSWER_WORDS[last[-1]], trace[:-1]
    return None, trace


def _gold_answer(record: dict) -> str | None:
    if "answer" not in record or record["answer"] is None:
        return None
    answer = record["answer"]
    if isinstance(answer, bool):
        return "True" if answer else "False"
    if not isinstance(answer, str):
        raise InputError(f"answer must be True/False or an option letter, got {answer!r}")
    a = answer.strip()
    if a.lower() in ("true", "false"):
        return a.capitalize()
    options = record.get("options") or []
    if not isinstance(options, list):
        raise InputError(f'options must be a list like ["A) True", "B) False"], got {options!r}')
    for option in options:
        if isinstance(option, str) and option.strip().startswith(f"{a})"):
            value = option.split(")", 1)[1].strip()
            if value.lower() in ("true", "false"):
                return value.capitalize()
    raise InputError(
        f"answer {answer!r} is neither True/False nor an option letter naming True/False"
    )


def check_record(record: Any, conventions: str = "nesybench") -> dict:
    """The verdict of one record, or ``{"error": reason}``; ``strict``, ``broad`` and
    ``step_classes`` follow ``conventions``
    (:data:`~nesybench.nli.prontoqa_eval.CONVENTIONS`)."""
    if isinstance(record, BadRecord):
        return {"error": str(record)}
    if not isinstance(record, dict):
        return {"error": f"record must be a JSON object, got {type(record).__name__}"}
    for field in ("context", "question"):
        if not isinstance(record.get(field), str):
            return {
                "error": f"field {field!r} must be a string, got {type(record.get(field)).__name__}"
            }
    trace = record.get("chain_of_thought", record.get("explanation"))
    if isinstance(trace, str):
        trace = split_sentences(trace)
    if not isinstance(trace, list) or not all(isinstance(s, str) for s in trace):
        return {
            "error": "field 'chain_of_thought' (or 'explanation') must be a list of sentences or "
            "one string"
        }
    theory = parse_context(record["context"])
    if not theory.ok:
        sentence, why = theory.failures[0]
        return {"error": f"context sentence does not parse ({why}): {sentence!r}"}
    q = parse_sentence(record["question"])
    if q.kind not in ("question", "fact"):
        return {"error": f"question does not parse ({q.reason}): {record['question']!r}"}
    try:
        gold = _gold_answer(record)
    except ValueError as exc:
        return {"error": str(exc)}
    stated, trace = stated_answer(record, trace)
    verdict = check_trace(trace, theory, q.atom).as_dict()
    broad = classify_steps(trace, theory, q.atom)
    out = {**{f: verdict[f] for f in FLAGS}, "label": verdict["label"], "reason": verdict["reason"]}
    out["broad"] = broad.broad
    out["step_classes"] = list(broad.classes)
    if conventions == "prontoqa":
        from .prontoqa_eval import verdict as convention_verdict

        out.update(convention_verdict(trace, theory, q.atom, conventions=conventions))
    out["conventions"] = conventions
    out["stated"] = stated
    if gold is not None:
        out["answer"] = gold
        # the model's own answer when it states one, else the one its chain concludes
        out["label_correct"] = (stated if stated is not None else verdict["label"]) == gold
    return out


def summarize(verdicts: list[dict]) -> dict:
    """The rates of :data:`~nesybench.nli.checker.FLAGS` and ``broad`` over the checked verdicts,
    the counts of records checked and unreadable, and the label accuracy where a gold answer is
    known."""
    checked = [v for v in verdicts if "error" not in v]
    summary: dict[str, Any] = {
        "n": len(verdicts),
        "n_checked": len(checked),
        "n_errors": len(verdicts) - len(checked),
    }
    for flag in (*FLAGS, "broad"):
        summary[f"{flag}_rate"] = sum(v[flag] for v in checked) / len(checked) if checked else None
    answered = [v for v in checked if "label_correct" in v]
    if answered:
        summary["label_acc"] = sum(v["label_correct"] for v in answered) / len(answered)
        summary["n_with_answer"] = len(answered)
    return summary
