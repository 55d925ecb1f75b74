"""The count stage's rsbench step end to end (tmp dir, no Snakemake): its tables, their claims,
byte-identical reruns, and the report block built from them."""

from __future__ import annotations

import pytest

from nesybench.errors import ClaimFailed
from nesybench.io import read_parquet
from nesybench.report.blocks import Paragraph, Table
from nesybench.report.loader import ReportLoader
from nesybench.shortcuts import rsbench_counts
from nesybench.shortcuts.report import rsbench_blocks
from nesybench.stages import run_job

SMALL = {
    "tasks": ["mnadd-evenodd", "xor", "mnmath", "kandinsky", "clevr"],
    "extractors": ["joint", "disentangled", "shared"],
    "max_subproblems": 20000,
    "plan": {"extractor": "disentangled", "tasks": ["mnadd-evenodd", "xor"]},
}


def _run(root, section=SMALL):
    return run_job(
        "shortcuts", "count", "rsbench", params={"shortcuts": {"rsbench": section}}, root=root
    )


@pytest.fixture(scope="module")
def stage_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("rsbench")
    _run(root)
    return root


def _table(root, name):
    return read_parquet(root / f"data/count/shortcuts/{name}.parquet")


def test_rsbench_step_counts_every_task_and_family(stage_root):
    counts = _table(stage_root, "rsbench_counts").set_index(["task", "extractor"])
    assert counts.loc[("rsbench/mnadd-evenodd", "shared"), "n_opt"] == "36"
    assert counts.loc[("rsbench/mnadd-evenodd", "disentangled"), "n_opt"] == "2592"
    assert counts.loc[("rsbench/xor", "disentangled"), "labels_to_one"] == 3
    assert counts.loc[("rsbench/xor", "joint"), "labels_to_one"] == 8  # every state labelled
    assert pd_isna(counts.loc[("rsbench/mnadd-evenodd", "joint"), "labels_to_one"])  # never
    # past the engines: exact where the structure reaches, refused in one line elsewhere
    kand = counts.loc["rsbench/kandinsky"]
    assert kand.loc["shared", "n_opt"] == "6" and kand.loc["joint", "status"] == "exact"
    assert kand.loc["joint", "n_opt_exact"] == "350514864^350514864 * 36905625^36905625"
    assert kand.loc["disentangled", "status"] == "refused"
    assert "387,420,489 states" in kand.loc["disentangled", "reason"]
    assert counts.loc[("rsbench/mnmath", "disentangled"), "status"] == "refused"
    assert counts.loc[("rsbench/clevr", "shared"), "status"] == "not applicable"
    statuses = set(counts["status"])
    assert statuses <= {"exact", "refused", "not applicable"}
    assert counts.loc[counts["status"] == "exact", "n_opt_exact"].notna().all()


def pd_isna(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def test_rsbench_step_plans_go_down_to_one(stage_root):
    plans = _table(stage_root, "rsbench_plans")
    evenodd = plans[plans["task"] == "rsbench/mnadd-evenodd"].sort_values("step")
    assert evenodd["n_opt"].tolist() == ["2592", "216", "36", "6", "1"]
    assert evenodd["state"].iloc[0] == "-"


def test_rsbench_step_explains_rsbench_s_published_figure(stage_root):
    notes = _table(stage_root, "rsbench_notes")
    note = notes[notes["kind"] == "published figure"]["note"].item()
    assert "49" in note and "36 optima" in note and "exactly 49 = 7 x 7" in note


def test_rsbench_step_is_byte_identical_across_runs(tmp_path):
    section = {**SMALL, "tasks": ["mnadd-evenodd", "xor"]}
    first, second = tmp_path / "a", tmp_path / "b"
    _run(first, section)
    _run(second, section)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert len(files) == 4  # three tables and the metrics
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_rsbench_step_fails_loudly_when_a_plan_grows(tmp_path, monkeypatch):
    real = rsbench_counts.plan_task

    def growing(*args, **kwargs):
        plan = real(*args, **kwargs)
        from dataclasses import replace

        return replace(plan, n_opt=(plan.n_opt[0], plan.n_opt[0] * 2, *plan.n_opt[2:]))

    monkeypatch.setattr(rsbench_counts, "plan_task", growing)
    with pytest.raises(ClaimFailed, match="grew"):
        _run(
            tmp_path,
            {**SMALL, "tasks": ["xor"], "plan": {"extractor": "disentangled", "tasks": ["xor"]}},
        )


def test_rsbench_report_block_shows_every_task_and_its_plan(stage_root):
    loader = ReportLoader(stage_root, "shortcuts", {"rsbench": SMALL})
    blocks = rsbench_blocks(loader)
    main = next(b for b in blocks if isinstance(b, Table))
    frame = main.df.set_index("task")
    assert list(frame.index) == ["MNAdd-EvenOdd", "XOR", "MNMath", "Kandinsky", "CLEVR"]
    assert frame.loc["MNAdd-EvenOdd", "shared"] == "36"
    assert frame.loc["MNAdd-EvenOdd", "plan (disentangled): N_opt after each label"] == (
        "2592 > 216 > 36 > 6 > 1"
    )
    assert frame.loc["MNAdd-EvenOdd", "labels to 1"] == "4"
    assert frame.loc["Kandinsky", "disentangled"] == "refused"
    assert frame.loc["Kandinsky", "joint"].startswith("2^")
    exact = [b for b in blocks if isinstance(b, Table)][1].df
    assert "350514864^350514864 * 36905625^36905625" in exact["N_opt"].tolist()
    text = " ".join(b.text for b in blocks if isinstance(b, Paragraph))
    assert "Kandinsky disentangled (refused)" in text and "7 x 7" in text


def test_a_refused_plan_is_a_note_not_a_failed_step(tmp_path):
    """At a budget the plan passes, the step still writes every count and says the plan was
    refused, with the planner's figures."""
    section = {**SMALL, "tasks": ["mnadd-evenodd"], "max_subproblems": 60}
    section["plan"] = {"extractor": "disentangled", "tasks": ["mnadd-evenodd"]}
    _run(tmp_path, section)
    notes = _table(tmp_path, "rsbench_notes")
    refused = notes[notes.kind == "plan refused"]
    assert refused.task.tolist() == ["rsbench/mnadd-evenodd"]
    assert "--max-subproblems" in refused.note.iloc[0]
    assert _table(tmp_path, "rsbench_plans").empty
