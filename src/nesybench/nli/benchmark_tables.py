"""The report's tables on real benchmarks, each a DataFrame computed from files.

* :func:`agreement_table` -- the reference labelers against the gold labels,
  one row per benchmark file: questions, skipped records, parse rate, agreement
  over the parsed questions, and the outcome counts;
* :func:`folio_audit_table` -- FOLIO's label audit: every example whose gold
  label the premises' FOL does not support (and every one that does not parse),
  with both labels and the formulas;
* :func:`score_nli_table` / :func:`score_nli_depth_table` -- a ``score-nli``
  report as a summary row (accuracy beside every baseline) and as its per-depth
  profile (each depth's accuracy beside that depth's majority baseline);
* :func:`label_guarded` -- the reference labeler over a whole file, with a crash
  recorded per question rather than raised; :func:`reference_agreement` and
  :func:`score_files` run it (and ``score-nli``) over several files;
* :func:`inventory_table` -- per file, its questions, skipped records and the
  input-blind baselines of its gold labels.

The stage (or a user) passes the files; nothing here knows the repository's layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..metric_keys import key_segment
from .labelers import OUTCOMES, Labeling, label_benchmark, labeler_for, summarize_labelings
from .readers import Benchmark, read_benchmark
from .score_nli import baselines, read_predictions, score_predictions

AGREEMENT_COLUMNS = (
    "benchmark",
    "file",
    "n",
    "skipped",
    "parsed",
    "parse_rate",
    "n_agree",
    "agreement",
    *OUTCOMES,
)


def agreement_row(bench: Benchmark, labelings: Sequence[Labeling], *, file: str) -> dict:
    """One row of :func:`agreement_table` from a read benchmark and its labelings."""
    s = summarize_labelings(list(labelings))
    return {
        "benchmark": bench.name,
        "file": file,
        "n": s["n"],
        "skipped": len(bench.skipped),
        "parsed": s["parsed"],
        "parse_rate": s["parse_rate"],
        "n_agree": s["n_agree"],
        "agreement": s["agreement"],
        **s["outcomes"],
    }


def agreement_table(
    files: Sequence[tuple[str, str]],
    *,
    time_limit: float = 10.0,
    names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Reference-labeler agreement per benchmark file.

    Parameters
    ----------
    files : ``(benchmark, path)`` pairs, benchmark one of prontoqa, proofwriter, folio.
    time_limit : seconds per solver call (FOLIO).
    names : how each file is named in the ``file`` column (default: the path).

    Returns
    -------
    DataFrame with :data:`AGREEMENT_COLUMNS`; ``agreement = n_agree / parsed``
    (NaN when nothing parsed), ``parse_rate = parsed / n``.
    """
    rows = []
    for i, (benchmark, path) in enumerate(files):
        bench = read_benchmark(path, benchmark=benchmark)
        labelings = label_benchmark(bench, time_limit=time_limit)
        rows.append(agreement_row(bench, labelings, file=names[i] if names else str(path)))
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))


AUDIT_COLUMNS = ("id", "status", "gold", "derived", "reason", "premises_fol", "conclusion_fol")


def folio_audit_table(bench: Benchmark, labelings: Sequence[Labeling]) -> pd.DataFrame:
    """FOLIO's label audit: every example the prover does not confirm.

    One row per example whose derived label differs from the gold one
    (``status`` ``"disagrees"``: the gold label is not what the annotated
    premises entail, or the annotation is wrong) or that does not parse
    (``status`` ``"not parsed"``, ``reason`` quoting the formula), in file
    order, with the FOL joined one formula per line.
    """
    if bench.name != "folio":
        raise InputError(f"bench must be a FOLIO benchmark, got {bench.name!r}")
    by_id = bench.by_id()
    rows = []
    for lab in labelings:
        if lab.parsed and lab.agrees:
            continue
        q = by_id[lab.id]
        rows.append(
            {
                "id": lab.id,
                "status": "disagrees" if lab.parsed else "not parsed",
                "gold": lab.gold,
                "derived": lab.derived if lab.derived is not None else "",
                "reason": lab.reason,
                "premises_fol": "\n".join(q.premises_fol or ()),
                "conclusion_fol": q.conclusion_fol or "",
            }
        )
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


SCORE_COLUMNS = (
    "system",
    "benchmark",
    "n",
    "coverage",
    "accuracy",
    "accuracy_lo",
    "accuracy_hi",
    "macro_f1",
    "majority",
    "uniform",
    "always_unknown",
    "blind_lo",
    "blind_hi",
    "proof_accuracy",
)


def score_nli_table(reports: Sequence[tuple[str, dict]]) -> pd.DataFrame:
    """``score-nli`` reports as rows: every accuracy printed beside its baselines.

    ``reports`` are ``(system name, report)`` pairs from
    :func:`~nesybench.nli.score_nli.score_predictions`; ``always_unknown`` is NaN
    where Unknown is not a label, ``proof_accuracy`` NaN without explanations.
    """
    rows = []
    for system, r in reports:
        b = r["baselines"]
        proof = r.get("proof") or {}
        rows.append(
            {
                "system": system,
                "benchmark": r["benchmark"],
                "n": r["n"],
                "coverage": r["coverage"],
                "accuracy": r["accuracy"],
                "accuracy_lo": r["accuracy_lo"],
                "accuracy_hi": r["accuracy_hi"],
                "macro_f1": r["macro_f1"],
                "majority": b["majority"]["accuracy"],
                "uniform": b["uniform"],
                "always_unknown": b.get("always_unknown", float("nan")),
                "blind_lo": b["blind_guess_range"][0],
                "blind_hi": b["blind_guess_range"][1],
                "proof_accuracy": proof.get("proof_accuracy", float("nan")),
            }
        )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


DEPTH_COLUMNS = ("system", "depth", "n", "accuracy", "accuracy_lo", "accuracy_hi", "majority")


def score_nli_depth_table(system: str, report: dict) -> pd.DataFrame:
    """The per-depth profile of a ``score-nli`` report (depth -1 = no proof, e.g. Unknown),
    each accuracy beside the majority baseline of its depth (the best blind guess there)."""
    rows = [
        {
            "system": system,
            "depth": -1 if d["depth"] is None else int(d["depth"]),
            "n": d["n"],
            "accuracy": d["accuracy"],
            "accuracy_lo": d["lo"],
            "accuracy_hi": d["hi"],
            "majority": d["majority"],
        }
        for d in report.get("per_depth") or []
    ]
    return pd.DataFrame(rows, columns=list(DEPTH_COLUMNS))


def label_guarded(
    bench: Benchmark, *, time_limit: float = 10.0, progress=None
) -> tuple[list[Labeling], list[tuple[str, str]]]:
    """The reference labeler on every question, a crash recorded instead of raised.

    A sentence the parser cannot read is already a counted parse failure (a
    :class:`~.labelers.Labeling` with ``derived`` None); any other exception is a defect of
    the labeler, returned as ``(question id, "ExceptionType: message")`` so that the caller
    can fail a claim naming the question instead of printing a traceback.
    """
    labeler = labeler_for(bench.name, time_limit=time_limit)
    questions = bench.questions if progress is None else progress(bench.questions)
    labelings, crashes = [], []
    for q in questions:
        try:
            labelings.append(labeler(q))
        except Exception as exc:  # any defect: reported as the claim "never crashes"
            crashes.append((q.id, f"{type(exc).__name__}: {exc}"))
    return labelings, crashes


def reference_agreement(
    benches: Sequence[tuple[str, Benchmark]], *, time_limit: float = 10.0, progress=None
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, str]]]:
    """Every file re-labelled: the agreement table, FOLIO's label audit, and any crashes.

    ``benches`` are ``(file name, read benchmark)`` pairs of benchmarks with a reference
    labeler; ``progress`` wraps each file's questions (a progress bar).  The audit lists the
    FOLIO files' examples the prover does not confirm, in file order (``order``; empty without
    a FOLIO file).
    """
    rows, audits, crashes = [], [], []
    for file, bench in benches:
        labelings, crashed = label_guarded(bench, time_limit=time_limit, progress=progress)
        crashes += [(f"{file}: {qid}", why) for qid, why in crashed]
        rows.append(agreement_row(bench, labelings, file=file))
        if bench.name == "folio":
            audits.append(folio_audit_table(bench, labelings).assign(file=file))
    audit = (
        pd.concat(audits, ignore_index=True)
        if audits
        else pd.DataFrame(columns=[*AUDIT_COLUMNS, "file"])
    )
    audit.insert(0, "order", range(len(audit)))  # file order, whatever the ids look like
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS)), audit, crashes


def score_files(
    files: Sequence[tuple[str, str, str | Path, str | Path]],
    *,
    time_limit: float = 10.0,
) -> tuple[list[tuple[str, dict]], list[tuple[str, str]]]:
    """``score-nli`` on ``(system name, benchmark, gold file, predictions file)`` entries.

    Returns the ``(system name, report)`` pairs and the crashes (an input error is raised as
    such: it is the file's fault, not a crash).
    """
    reports, crashes = [], []
    for system, benchmark, gold, preds in files:
        try:
            bench = read_benchmark(gold, benchmark=benchmark)
            predictions = read_predictions(preds, benchmark=benchmark, gold=bench)
            reports.append((system, score_predictions(bench, predictions, time_limit=time_limit)))
        except InputError:
            raise
        except Exception as exc:  # any defect: reported as the claim "never crashes"
            crashes.append((f"score-nli {system}", f"{type(exc).__name__}: {exc}"))
    return reports, crashes


INVENTORY_COLUMNS = (
    "benchmark",
    "file",
    "n",
    "skipped",
    "labels",
    "majority_label",
    "majority",
    "uniform",
    "blind_lo",
    "blind_hi",
)


def inventory_table(benches: Sequence[tuple[str, Benchmark]]) -> pd.DataFrame:
    """Per file: questions, skipped records, and the input-blind baselines of its gold labels.

    ``majority`` is the share of the most frequent gold label (the best blind guess),
    ``uniform`` is ``1/K`` over the benchmark's ``K`` labels, ``[blind_lo, blind_hi]`` the range
    of any input-blind guesser (see :func:`~.score_nli.baselines`).
    """
    rows = []
    for file, bench in benches:
        b = baselines([q.gold for q in bench.questions], bench.labels)
        rows.append(
            {
                "benchmark": bench.name,
                "file": file,
                "n": len(bench),
                "skipped": len(bench.skipped),
                "labels": "/".join(bench.labels),
                "majority_label": b["majority"]["label"],
                "majority": b["majority"]["accuracy"],
                "uniform": b["uniform"],
                "blind_lo": b["blind_guess_range"][0],
                "blind_hi": b["blind_guess_range"][1],
            }
        )
    return pd.DataFrame(rows, columns=list(INVENTORY_COLUMNS))


# score-nli's numbers of a shipped system, besides its accuracy and interval
SYSTEM_METRICS = ("n", "majority", "uniform", "always_unknown", "proof_accuracy")


def benchmark_metrics(
    agreement: pd.DataFrame, audit: pd.DataFrame, scores: pd.DataFrame, *, time_limit: float
) -> dict[str, dict]:
    """Flat-able metrics of the benchmark tables, keyed by benchmark and by scored system
    (``systems.prontoqa_greedy.accuracy.{value,lo,hi}``)."""
    out: dict = {"agreement": {}, "systems": {}, "folio_time_limit": time_limit}
    for r in agreement.to_dict("records"):
        out["agreement"][r["benchmark"]] = {
            k: r[k]
            for k in ("n", "skipped", "parsed", "parse_rate", "n_agree", "agreement")
            if _is_number(r[k])
        }
    out["folio_audit"] = {
        "disagreements": int((audit["status"] == "disagrees").sum()),
        "not_parsed": int((audit["status"] == "not parsed").sum()),
    }
    for r in scores.to_dict("records"):
        system = {k: r[k] for k in SYSTEM_METRICS if _is_number(r[k])}
        if _is_number(r["accuracy"]):
            # the interval beside its point estimate (nesybench.metric_keys)
            system["accuracy"] = {
                "value": r["accuracy"],
                "lo": r["accuracy_lo"],
                "hi": r["accuracy_hi"],
            }
        out["systems"][key_segment(r["system"])] = system
    return out


def _is_number(value) -> bool:
    """A metric value: not None and not NaN (a not-applicable entry is left out)."""
    return value is not None and value == value
