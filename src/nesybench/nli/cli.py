"""``nesybench check-trace``: the step checker on a user's own chains of thought."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..io import atomic_write_text, dumps_json
from ..reasoning.grammar import parse_context, parse_sentence, split_sentences
from .checker import FLAGS, check_trace

EPILOG = """\
FILE is a JSON list of records, or JSON Lines (one record per line). A record has
  context            string: the premises, in the PrOntoQA grammar
  question           string: "True or false: Max is sour." (or a bare statement)
  chain_of_thought   list of sentences, or one string (alias: explanation)
  answer             optional: "True"/"False", or "A"/"B" with options ["A) True", "B) False"]
Example:
  nesybench check-trace dev.json --out verdicts.jsonl
A record that cannot be read gets an error entry and the others are still checked.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "check-trace",
        help="check chains of thought step by step (parsed / valid / linear / connects / strict)",
        description="Check each record's chain of thought against its context with the nli step "
        "checker.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="JSON list or JSONL of records")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--out", metavar="OUT.jsonl", help="write one verdict per record as JSONL")
    p.set_defaults(func=run)


def read_records(path: str) -> list[Any]:
    """The records of a JSON list or JSONL file; a line that is not JSON becomes an error marker."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read as UTF-8 text ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    else:
        if isinstance(data, list):
            return data
        if isinstance(data, dict):
            return [data]
        raise UserError(
            f"{path}: expected a JSON list of records or JSON Lines, got a JSON "
            f"{type(data).__name__}"
        )
    records: list[Any] = []
    n_json = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
            n_json += 1
        except json.JSONDecodeError as exc:
            records.append(_Unreadable(f"line {lineno} is not JSON ({exc.msg})"))
    if n_json == 0:
        raise UserError(
            f"{path}: not JSON or JSON Lines (expected a list of records with context, question, "
            "chain_of_thought)"
        )
    return records


class _Unreadable:
    def __init__(self, reason: str):
        self.reason = reason


def _gold_answer(record: dict) -> str | None:
    if "answer" not in record or record["answer"] is None:
        return None
    answer = record["answer"]
    if isinstance(answer, bool):
        return "True" if answer else "False"
    if not isinstance(answer, str):
        raise ValueError(f"answer must be True/False or an option letter, got {answer!r}")
    a = answer.strip()
    if a.lower() in ("true", "false"):
        return a.capitalize()
    for option in record.get("options") or []:
        if isinstance(option, str) and option.strip().startswith(f"{a})"):
            value = option.split(")", 1)[1].strip()
            if value.lower() in ("true", "false"):
                return value.capitalize()
    raise ValueError(
        f"answer {answer!r} is neither True/False nor an option letter naming True/False"
    )


def check_record(record: Any) -> dict:
    """The verdict of one record, or ``{"error": reason}``."""
    if isinstance(record, _Unreadable):
        return {"error": record.reason}
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
    verdict = check_trace(trace, theory, q.atom).as_dict()
    out = {**{f: verdict[f] for f in FLAGS}, "label": verdict["label"], "reason": verdict["reason"]}
    if gold is not None:
        out["answer"] = gold
        out["label_correct"] = verdict["label"] == gold
    return out


def summarize(verdicts: list[dict]) -> dict:
    checked = [v for v in verdicts if "error" not in v]
    summary: dict[str, Any] = {
        "n": len(verdicts),
        "n_checked": len(checked),
        "n_errors": len(verdicts) - len(checked),
    }
    for flag in FLAGS:
        summary[f"{flag}_rate"] = sum(v[flag] for v in checked) / len(checked) if checked else None
    answered = [v for v in checked if "label_correct" in v]
    if answered:
        summary["label_acc"] = sum(v["label_correct"] for v in answered) / len(answered)
        summary["n_with_answer"] = len(answered)
    return summary


def run(args) -> int:
    records = read_records(args.file)
    verdicts = []
    for i, record in enumerate(records):
        verdict = check_record(record)
        head = {"index": i}
        if isinstance(record, dict) and isinstance(record.get("id"), (str, int)):
            head["id"] = record["id"]
        verdicts.append({**head, **verdict})
    summary = summarize(verdicts)
    if args.out:
        atomic_write_text(args.out, "".join(json.dumps(v, sort_keys=True) + "\n" for v in verdicts))
    if args.json:
        print(dumps_json(summary), end="")
    else:
        print(
            f"{summary['n']} records, {summary['n_checked']} checked, {summary['n_errors']} "
            "unreadable"
        )
        for flag in FLAGS:
            rate = summary[f"{flag}_rate"]
            print(f"  {flag + '_rate':14s} {'-' if rate is None else f'{rate:.4f}'}")
        if "label_acc" in summary:
            print(
                f"  {'label_acc':14s} {summary['label_acc']:.4f}  ({summary['n_with_answer']} "
                "with answers)"
            )
        for v in verdicts:
            if "error" in v:
                print(f"  record {v['index']}: error: {v['error']}")
    return 0
