"""The benchmark job's library functions: guarded labeling, several files, the inventory."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.nli import benchmark_tables
from nesybench.nli.benchmark_tables import (
    AUDIT_COLUMNS,
    INVENTORY_COLUMNS,
    benchmark_metrics,
    inventory_table,
    label_guarded,
    reference_agreement,
    score_files,
    score_nli_depth_table,
)
from nesybench.nli.readers import Benchmark, Question, read_benchmark
from nesybench.nli.vendored import REFERENCE_FILES, input_files, shipped_predictions

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "Based on the above information, is the following statement true, false, or unknown? "
CONTEXT = "Bob is big. If someone is big then they are kind."


def _bench() -> Benchmark:
    return Benchmark(
        "proofwriter",
        "g",
        (
            Question("a", "proofwriter", "True", CONTEXT, PREFIX + "Bob is kind."),
            Question("b", "proofwriter", "Unknown", CONTEXT, PREFIX + "Bob is red."),
            Question("c", "proofwriter", "True", "Bob is big. Bob flies well.", PREFIX + "Bob."),
        ),
    )


def test_label_guarded_counts_parse_failures_and_records_crashes(monkeypatch):
    labelings, crashes = label_guarded(_bench())
    assert [x.derived for x in labelings] == ["True", "Unknown", None]  # c: a parse failure
    assert crashes == []
    real = benchmark_tables.labeler_for

    def crashing(benchmark, **kw):
        inner = real(benchmark, **kw)
        return lambda q: (_ for _ in ()).throw(RuntimeError("bug")) if q.id == "b" else inner(q)

    monkeypatch.setattr(benchmark_tables, "labeler_for", crashing)
    labelings, crashes = label_guarded(_bench())
    assert [x.id for x in labelings] == ["a", "c"]
    assert crashes == [("b", "RuntimeError: bug")]


def test_reference_agreement_over_files():
    agreement, audit, crashes = reference_agreement([("g.json", _bench())])
    row = agreement.iloc[0]
    assert (row["n"], row["parsed"], row["n_agree"], row["Unknown"]) == (3, 2, 2, 1)
    assert list(audit.columns) == ["order", *AUDIT_COLUMNS, "file"] and audit.empty  # no FOLIO
    assert crashes == []


def test_inventory_baselines_are_the_gold_shares():
    row = inventory_table([("g.json", _bench())]).iloc[0]
    assert list(inventory_table([]).columns) == list(INVENTORY_COLUMNS)
    assert (row["n"], row["majority_label"], row["majority"]) == (3, "True", pytest.approx(2 / 3))
    assert row["uniform"] == pytest.approx(1 / 3)
    assert (row["blind_lo"], row["blind_hi"]) == (0.0, pytest.approx(2 / 3))


def test_score_files_raises_input_errors_and_records_crashes(tmp_path, monkeypatch):
    gold = ROOT / "benchmarks" / "proofwriter" / "dev-sample.json"
    with pytest.raises(InputError, match="not found|no such|missing"):
        score_files([("s", "proofwriter", gold, tmp_path / "absent.jsonl")])
    preds = tmp_path / "p.jsonl"
    first = json.loads(gold.read_text(encoding="utf-8"))[0]["id"]
    preds.write_text(json.dumps({"id": first, "prediction": "True"}) + "\n")
    monkeypatch.setattr(benchmark_tables, "score_predictions", lambda *a, **k: 1 / 0, raising=True)
    reports, crashes = score_files([("s", "proofwriter", gold, preds)])
    assert reports == [] and crashes == [("score-nli s", "ZeroDivisionError: division by zero")]


def test_benchmark_metrics_leave_out_what_does_not_apply():
    agreement = pd.DataFrame(
        [
            {
                "benchmark": "x",
                "n": 2,
                "skipped": 0,
                "parsed": 0,
                "parse_rate": 0.0,
                "n_agree": 0,
                "agreement": None,
            }
        ]
    )
    audit = pd.DataFrame({"status": ["disagrees", "not parsed", "disagrees"]})
    scores = pd.DataFrame(
        [
            {
                "system": "s-greedy",
                "n": 3,
                "accuracy": 1.0,
                "accuracy_lo": 0.4,
                "accuracy_hi": 1.0,
                "majority": 0.6,
                "uniform": 0.5,
                "always_unknown": math.nan,
                "proof_accuracy": 0.0,
            }
        ]
    )
    m = benchmark_metrics(agreement, audit, scores, time_limit=10.0)
    assert "agreement" not in m["agreement"]["x"] and m["agreement"]["x"]["parsed"] == 0
    assert m["folio_audit"] == {"disagreements": 2, "not_parsed": 1}
    assert m["folio_time_limit"] == 10.0
    system = m["systems"]["s_greedy"]  # the system's name spelt as a key segment
    assert "always_unknown" not in system and system["proof_accuracy"] == 0
    assert system["accuracy"] == {"value": 1.0, "lo": 0.4, "hi": 1.0}


def test_depth_table_carries_the_majority_of_each_depth():
    report = {
        "per_depth": [
            {"depth": None, "n": 2, "accuracy": 0.0, "lo": 0.0, "hi": 0.6, "majority": 1.0}
        ]
    }
    row = score_nli_depth_table("s", report).iloc[0]
    assert (row["depth"], row["majority"]) == (-1, 1.0)


def test_vendored_files_exist_and_read():
    files = input_files(ROOT)
    assert all((ROOT / f).is_file() for f in files)
    for benchmark, rel in REFERENCE_FILES:
        assert len(read_benchmark(ROOT / rel, benchmark=benchmark)) > 0
    for _, benchmark, gold, preds in shipped_predictions():
        assert gold in files and preds in files and benchmark in ("proofwriter", "prontoqa")
