"""Tables of executed logic programs: per file and semantics, the causes, the disagreements.

:func:`run_programs` reads one Logic-LM program file, executes every program in
one semantics, audits the translation and attributes every wrong answer to a
cause; the table builders turn runs into DataFrames for the report:

* :func:`program_table` -- per file and semantics: n, executable rate,
  accuracy on the executable programs, overall accuracy, the expected
  accuracy under Logic-LM's random backup;
* :func:`cause_table` -- per file and semantics, how many wrong answers each
  cause explains;
* :func:`disagreement_table` -- the items on which the two semantics answer
  differently, with what each answers and why;
* :func:`depth_table` -- accuracy per proof depth of the reference labeler;
* :func:`failure_table` -- per file and semantics, how many programs fail in each class
  (Logic-LM's parsing and execution errors by cause) and how many of them have an outcome
  that depends on Python's hash order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from .programs import (
    Execution,
    ProgramFile,
    execute_records,
    read_programs,
    summarize_executions,
)
from .translation_audit import CAUSES, ReferenceCache, attribute_cause, audit_record


@dataclass(frozen=True)
class ProgramRun:
    """One program file executed in one semantics."""

    name: str
    file: ProgramFile
    semantics: str
    executions: tuple[Execution, ...]
    depths: tuple[int | None, ...]
    summary: dict


def _depths(pf: ProgramFile, time_limit: float) -> list[int | None]:
    if pf.dataset not in ("proofwriter", "prontoqa"):
        return [None] * len(pf.records)
    from .labelers import labeler_for
    from .readers import Question

    label = labeler_for(pf.dataset, time_limit=time_limit)
    return [
        label(Question(r.id, pf.dataset, r.gold, r.context, r.question)).depth for r in pf.records
    ]


def run_programs(
    path: str | Path,
    *,
    semantics: str = "standard",
    dataset: str = "auto",
    time_limit: float = 10.0,
    progress: Callable | None = None,
    name: str | None = None,
    program_file: ProgramFile | None = None,
) -> ProgramRun:
    """Read, execute, audit and summarise one program file (see the module docstring).

    The summary has the keys of :func:`~nesybench.nli.programs.summarize_executions`
    plus ``causes`` (cause -> count of wrong answers), ``per_depth``, ``skipped``
    (records that could not be read), ``failures`` (failure class -> programs) and
    ``hash_order_dependent`` (ids whose outcome in Logic-LM depends on ``PYTHONHASHSEED``).
    """
    pf = program_file or read_programs(path, dataset=dataset)
    executions = execute_records(
        pf.records, semantics=semantics, time_limit=time_limit, progress=progress
    )
    cache = ReferenceCache("proofwriter" if pf.dataset == "proofwriter" else "prontoqa")
    audited = []
    for rec, ex in zip(pf.records, executions):
        audit = None if ex.correct else audit_record(rec, cache=cache)
        cause = attribute_cause(executable=ex.executable, correct=ex.correct, audit=audit)
        audited.append(replace(ex, cause=cause))
    depths = _depths(pf, time_limit)
    summary = summarize_executions(audited, dataset=pf.dataset, semantics=semantics)
    counts = Counter(e.cause for e in audited if e.cause is not None)
    summary["causes"] = {c: counts.get(c, 0) for c in CAUSES}
    per_depth: dict[str, dict] = {}
    for depth in sorted({d for d in depths if d is not None}) + [None]:
        sub = [e for e, d in zip(audited, depths) if d == depth]
        if sub:
            per_depth["none" if depth is None else str(depth)] = {
                "n": len(sub),
                "executable": sum(e.executable for e in sub),
                "accuracy": sum(e.correct for e in sub) / len(sub),
            }
    summary["per_depth"] = per_depth
    summary["skipped"] = list(pf.skipped)
    failures = Counter(e.failure for e in audited if not e.executable)
    summary["failures"] = {
        k or "not executable": v for k, v in sorted(failures.items(), key=lambda kv: kv[0] or "")
    }
    # Logic-LM's FOLIO lexer: the outcome of these depends on PYTHONHASHSEED
    summary["hash_order_dependent"] = [e.id for e in audited if e.order_dependent]
    return ProgramRun(
        name or Path(str(path)).name, pf, semantics, tuple(audited), tuple(depths), summary
    )


def program_table(runs: Sequence[ProgramRun]):
    """One row per (file, semantics): the headline figures (module docstring)."""
    import pandas as pd

    cols = [
        "n",
        "executable",
        "executable_rate",
        "accuracy_executable",
        "accuracy",
        "accuracy_random_backup",
    ]
    rows = [
        {"file": r.name, "dataset": r.file.dataset, "semantics": r.semantics}
        | {c: r.summary[c] for c in cols}
        for r in runs
    ]
    return pd.DataFrame(rows, columns=["file", "dataset", "semantics", *cols])


def cause_table(runs: Sequence[ProgramRun]):
    """One row per (file, semantics, cause): wrong answers it explains and their share."""
    import pandas as pd

    rows = []
    for r in runs:
        wrong = sum(r.summary["causes"].values())
        for cause in CAUSES:
            n = r.summary["causes"][cause]
            rows.append(
                {
                    "file": r.name,
                    "semantics": r.semantics,
                    "cause": cause,
                    "n": n,
                    "share_of_wrong": n / wrong if wrong else 0.0,
                }
            )
    return pd.DataFrame(rows, columns=["file", "semantics", "cause", "n", "share_of_wrong"])


def disagreement_table(standard: ProgramRun, logic_lm: ProgramRun):
    """The items on which the two semantics answer differently (one row each)."""
    import pandas as pd

    if [e.id for e in standard.executions] != [e.id for e in logic_lm.executions]:
        raise InputError("the two runs must be of the same program file")
    rows = []
    for a, b in zip(standard.executions, logic_lm.executions):
        if a.predicted != b.predicted:
            rows.append(
                {
                    "id": a.id,
                    "gold": a.gold,
                    "standard": a.predicted if a.executable else "not executable",
                    "logic_lm": b.predicted if b.executable else "not executable",
                    "standard_correct": a.correct,
                    "logic_lm_correct": b.correct,
                    "standard_reason": a.reason,
                    "logic_lm_reason": b.reason,
                }
            )
    cols = [
        "id",
        "gold",
        "standard",
        "logic_lm",
        "standard_correct",
        "logic_lm_correct",
        "standard_reason",
        "logic_lm_reason",
    ]
    return pd.DataFrame(rows, columns=cols)


def depth_table(runs: Sequence[ProgramRun]):
    """One row per (file, semantics, depth): n, executable, accuracy."""
    import pandas as pd

    rows = [
        {"file": r.name, "semantics": r.semantics, "depth": d, **v}
        for r in runs
        for d, v in r.summary["per_depth"].items()
    ]
    return pd.DataFrame(rows, columns=["file", "semantics", "depth", "n", "executable", "accuracy"])


#: the failure column of a program that ran
EXECUTED = "(executed)"


def failure_table(runs: Sequence[ProgramRun]):
    """One row per (file, semantics, failure class): programs, and how many of them Logic-LM
    may answer otherwise under another ``PYTHONHASHSEED`` (``hash_order``); programs that ran
    are the ``(executed)`` row, so each file's rows add up to its programs."""
    import pandas as pd

    rows = []
    for r in runs:
        counts: Counter = Counter()
        hashed: Counter = Counter()
        for e in r.executions:
            key = EXECUTED if e.executable else (e.failure or "not executable")
            counts[key] += 1
            hashed[key] += e.order_dependent
        for key in sorted(counts):
            rows.append(
                {
                    "file": r.name,
                    "semantics": r.semantics,
                    "failure": key,
                    "n": counts[key],
                    "hash_order": hashed[key],
                }
            )
    return pd.DataFrame(rows, columns=["file", "semantics", "failure", "n", "hash_order"])
