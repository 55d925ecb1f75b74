"""The report's tables on real benchmarks, each a DataFrame computed from files.

* :func:`agreement_table` -- the reference labelers against the gold labels,
  one row per benchmark file: questions, skipped records, parse rate, agreement
  over the parsed questions, and the outcome counts;
* :func:`folio_audit_table` -- FOLIO's label audit: every example whose gold
  label the premises' FOL does not support (and every one that does not parse),
  with both labels and the formulas;
* :func:`score_nli_table` / :func:`score_nli_depth_table` -- a ``score-nli``
  report as a summary row (accuracy beside every baseline) and as its per-depth
  profile.

The stage (or a user) passes the files; nothing here knows the repository's layout.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .labelers import OUTCOMES, Labeling, label_benchmark, summarize_labelings
from .readers import Benchmark, read_benchmark

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
        raise ValueError(f"bench: expected a FOLIO benchmark, got {bench.name!r}")
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


def score_nli_depth_table(system: str, report: dict) -> pd.DataFrame:
    """The per-depth profile of a ``score-nli`` report (depth -1 = no proof, e.g. Unknown)."""
    rows = [
        {
            "system": system,
            "depth": -1 if d["depth"] is None else int(d["depth"]),
            "n": d["n"],
            "accuracy": d["accuracy"],
            "accuracy_lo": d["lo"],
            "accuracy_hi": d["hi"],
        }
        for d in report.get("per_depth") or []
    ]
    return pd.DataFrame(
        rows, columns=["system", "depth", "n", "accuracy", "accuracy_lo", "accuracy_hi"]
    )
