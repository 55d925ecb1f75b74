"""The real benchmark files the nli instrument measures in its own run, and how.

They are vendored under ``benchmarks/`` (small subsets with their licence notices, see
``benchmarks/README.md``), so a fresh clone runs them; the Snakemake rule and its DVC twin
declare every file as an input.  Paths are relative to the repository root.

* :data:`REFERENCE_FILES` -- each benchmark file with a reference labeler, re-labelled in
  full: agreement with the gold labels, and FOLIO's label audit;
* :data:`LOGICBENCH_DIR` -- LogicBench's BQA tree: read and inventoried (no reference
  labeler: its contexts are free text);
* :func:`shipped_predictions` -- the predictions files scored with ``score-nli`` as worked
  examples of the metric trap (:mod:`.example_systems` writes them).
"""

from __future__ import annotations

from pathlib import Path

from .example_systems import SHIPPED

BENCHMARKS_DIR = "benchmarks"
REFERENCE_FILES = (
    ("proofwriter", f"{BENCHMARKS_DIR}/proofwriter/dev-sample.json"),
    ("prontoqa", f"{BENCHMARKS_DIR}/prontoqa/dev-sample.json"),
    ("folio", f"{BENCHMARKS_DIR}/folio/folio-validation.jsonl"),
)
LOGICBENCH_DIR = f"{BENCHMARKS_DIR}/logicbench/BQA"
#: gpt-3.5-turbo's logic programs in Logic-LM's format (every 10th record of each dev file)
PROGRAM_FILES = tuple(
    f"{BENCHMARKS_DIR}/logiclm-programs/{name}_dev_gpt-3.5-turbo.json"
    for name in ("ProofWriter", "ProntoQA", "FOLIO")
)
#: the gold PrOntoQA chains the step checker is compared on with PrOntoQA's own conventions
CHECKER_GOLD = f"{BENCHMARKS_DIR}/prontoqa/dev-sample.json"
#: seconds per z3 call of FOLIO's dual query (the `nesybench label` default)
FOLIO_TIME_LIMIT = 10.0


def shipped_predictions() -> list[tuple[str, str, str, str]]:
    """``(name, benchmark, gold file, predictions file)`` of every shipped predictions file."""
    return [
        (name, benchmark, f"{BENCHMARKS_DIR}/{gold}", f"{BENCHMARKS_DIR}/{preds}")
        for name, (benchmark, gold, preds) in sorted(SHIPPED.items())
    ]


def program_inputs() -> list[str]:
    """Every vendored file the programs job reads."""
    return sorted({*PROGRAM_FILES, CHECKER_GOLD})


def input_files(root: str | Path = ".") -> list[str]:
    """Every vendored file the benchmark job reads, relative to ``root`` (sorted, unique)."""
    files = {path for _, path in REFERENCE_FILES}
    for _, _, gold, preds in shipped_predictions():
        files.update((gold, preds))
    base = Path(root)
    files.update(
        str(p.relative_to(base)) for p in (base / LOGICBENCH_DIR).rglob("data_instances.json")
    )
    return sorted(files)
