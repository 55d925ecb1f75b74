"""The programs job's tables: LLM-written logic programs in both semantics, and the step
checker beside PrOntoQA's own conventions, on the vendored files (no seed)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..reasoning.grammar.reading import parse_context, parse_sentence
from .program_tables import (
    cause_table,
    depth_table,
    disagreement_table,
    failure_table,
    program_table,
    run_programs,
)
from .programs import read_programs
from .prontoqa_eval import agreement_table
from .vendored import CHECKER_GOLD, FOLIO_TIME_LIMIT, PROGRAM_FILES

SEMANTICS = ("standard", "logic-lm")


def program_runs(root: Path) -> list:
    """Both semantics on every vendored program file (each file read once)."""
    runs = []
    for rel in PROGRAM_FILES:
        pf = read_programs(root / rel)
        for semantics in SEMANTICS:
            runs.append(
                run_programs(
                    root / rel,
                    semantics=semantics,
                    program_file=pf,
                    name=Path(rel).name,
                    time_limit=FOLIO_TIME_LIMIT,
                )
            )
    return runs


def program_frames(runs: list) -> dict[str, pd.DataFrame]:
    """The four program tables, keyed by artifact name."""
    disagreements = []
    for standard, logic_lm in zip(runs[0::2], runs[1::2]):
        table = disagreement_table(standard, logic_lm)
        table.insert(0, "file", standard.name)
        disagreements.append(table)
    depths = depth_table(runs)
    depths["depth"] = depths["depth"].astype(str)
    return {
        "programs": program_table(runs),
        "program_causes": cause_table(runs),
        "program_disagreements": pd.concat(disagreements, ignore_index=True),
        "program_depths": depths,
        "program_failures": failure_table(runs),
    }


def checker_examples(root: Path) -> list:
    """``(id, theory, question atom, gold chain, gold answer)`` of every vendored PrOntoQA
    question."""
    records = json.loads((root / CHECKER_GOLD).read_text(encoding="utf-8"))
    return [
        (
            r["id"],
            parse_context(r["context"]),
            parse_sentence(r["question"]).atom,
            r["explanation"],
            {"A": "True", "B": "False"}[r["answer"]],
        )
        for r in records
    ]


def checker_table(root: Path) -> pd.DataFrame:
    """The step checker's two readings side by side per corruption kind: nesybench's default
    and PrOntoQA main's (the ``prontoqa`` convention), with how often they agree."""
    return agreement_table(checker_examples(root))


def program_metrics(programs: pd.DataFrame, checker: pd.DataFrame) -> dict:
    """Flat metrics: per (file, semantics) executable rate and accuracies; checker agreement."""
    out: dict = {}
    for r in programs.itertuples(index=False):
        key = f"programs.{r.dataset}.{r.semantics.replace('-', '_')}"
        out[f"{key}.executable_rate"] = r.executable_rate
        out[f"{key}.accuracy_executable"] = r.accuracy_executable
        out[f"{key}.accuracy"] = r.accuracy
    for r in checker.itertuples(index=False):
        out[f"checker.{r.kind}.strict_agree"] = r.strict_agree
        out[f"checker.{r.kind}.broad_agree"] = r.broad_agree
        out[f"checker.{r.kind}.prontoqa_strict"] = r.prontoqa_strict
        out[f"checker.{r.kind}.prontoqa_broad"] = r.prontoqa_broad
    return out
