"""The stage runner: transactions, declared outputs, wildcards, stale temporaries, corruption."""

from __future__ import annotations

import pandas as pd
import pytest

from nesybench.artifacts import Job, Registry
from nesybench.errors import ClaimFailed, InputError, check_claim
from nesybench.io import write_parquet
from nesybench.stages import (
    StageContext,
    _resolve_wildcards,
    read_artifact,
    remove_stale_temporaries,
)

REG = Registry(
    "nli",
    [
        Job("score", tables=("table",), plots=("curve",)),
        Job("score", "seed", tables=("per_seed",), wildcards=("seed",)),
    ],
)


def _ctx(tmp_path, step=None, wildcards=None, section=None):
    params = {"nli": section or {"n_seeds": 3, "claims": {}, "x": 1}}
    return StageContext(
        job=REG.job("score", step), registry=REG, params=params, root=tmp_path, wildcards=wildcards
    )


def test_writes_wait_for_commit_and_land_atomically(tmp_path):
    ctx = _ctx(tmp_path)
    ctx.write_table("table", pd.DataFrame({"a": [2, 1]}), key=["a"])
    ctx.write_metrics({"accuracy": 0.5})
    ctx.write_plot("curve", pd.DataFrame({"x": [1]}))
    assert not (tmp_path / "data").exists(), "nothing is written before the commit"
    written = ctx.commit()
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "data/score/nli/metrics.json",
        "data/score/nli/table.parquet",
        "reports/plots/nli-curve.csv",
    ]
    metrics = (tmp_path / "data/score/nli/metrics.json").read_text()
    assert '"score.accuracy": 0.5' in metrics and "_provenance.params_hash" in metrics


def test_a_failed_claim_writes_nothing(tmp_path):
    ctx = _ctx(tmp_path)

    def stage(ctx):
        ctx.write_table("table", pd.DataFrame({"a": [1]}), key=["a"])
        check_claim(False, "the claim")

    with pytest.raises(ClaimFailed):
        stage(ctx)
    assert not (tmp_path / "data").exists()


def test_undeclared_writes_are_refused(tmp_path):
    ctx = _ctx(tmp_path)
    with pytest.raises(RuntimeError, match="does not declare table 'other'"):
        ctx.write_table("other", pd.DataFrame({"a": [1]}), key=["a"])
    with pytest.raises(RuntimeError, match="does not declare plot"):
        ctx.write_plot("nope", pd.DataFrame({"a": [1]}))


def test_a_per_seed_job_sees_its_seed_but_not_the_sweep(tmp_path):
    ctx = _ctx(tmp_path, step="seed", wildcards={"seed": 2})
    assert ctx.seed == 2 and "n_seeds" not in ctx.params and ctx.params["x"] == 1
    with pytest.raises(RuntimeError, match="cannot see the sweep"):
        _ = ctx.seeds
    first = float(ctx.rng("draws").random())
    assert first == float(_ctx(tmp_path, step="seed", wildcards={"seed": 2}).rng("draws").random())
    assert first != float(_ctx(tmp_path, step="seed", wildcards={"seed": 1}).rng("draws").random())
    assert _ctx(tmp_path).seeds == [0, 1, 2]


def test_the_params_hash_of_a_seed_job_ignores_the_sweep_size(tmp_path):
    a = _ctx(tmp_path, "seed", {"seed": 0}, {"n_seeds": 3, "claims": {}, "x": 1})
    b = _ctx(tmp_path, "seed", {"seed": 0}, {"n_seeds": 30, "claims": {"c": 1}, "x": 1})
    c = _ctx(tmp_path, "seed", {"seed": 0}, {"n_seeds": 3, "claims": {}, "x": 2})
    assert a.params_hash == b.params_hash != c.params_hash


def test_wildcards_must_name_an_instance_of_the_job():
    job = REG.job("score", "seed")
    assert _resolve_wildcards(job, {"n_seeds": 3}, {"seed": "2"}) == {"seed": 2}
    with pytest.raises(InputError, match="names no instance"):
        _resolve_wildcards(job, {"n_seeds": 3}, {"seed": "3"})
    with pytest.raises(InputError, match="names no instance"):
        _resolve_wildcards(job, {"n_seeds": 3}, {"seed": "02"})  # one spelling per value
    with pytest.raises(InputError, match="needs --arg seed"):
        _resolve_wildcards(job, {"n_seeds": 3}, {})


def test_stale_temporaries_of_this_job_are_removed(tmp_path):
    out = tmp_path / "data" / "t.parquet"
    out.parent.mkdir(parents=True)
    mine = out.parent / ".t.parquet.x1y2.tmp"
    other = out.parent / ".u.parquet.x1y2.tmp"
    mine.write_bytes(b"half")
    other.write_bytes(b"another job's")
    assert remove_stale_temporaries([out]) == [mine]
    assert not mine.exists() and other.exists()


def test_a_corrupt_artifact_is_named_and_removed(tmp_path):
    path = tmp_path / "data" / "x.parquet"
    write_parquet(
        pd.DataFrame({"a": [1, 2]}),
        path,
        key=["a"],
        instrument="nli",
        stage="score",
        params_hash="h",
    )
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"data/x.parquet: unreadable artifact removed"):
        read_artifact(path, root=tmp_path)
    assert not path.exists()
    with pytest.raises(InputError, match=r"data/x.parquet: missing artifact"):
        read_artifact(path, root=tmp_path)


def test_a_stage_process_exits_with_its_status_and_its_output_flushed():
    """exit_stage skips interpreter teardown (pyarrow's pools can abort there) but keeps the
    status and what the stage printed."""
    import subprocess
    import sys

    code = (
        "import sys; from nesybench.stages import exit_stage; "
        "print('written', end=''); print('note', file=sys.stderr, end=''); exit_stage(3)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "written", "note")
