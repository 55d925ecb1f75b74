import json
import os
import stat
import time

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from nesybench.errors import InputError
from nesybench.io import (
    BadLine,
    atomic_write,
    file_mode,
    flatten,
    json_records,
    parquet_metadata,
    read_input,
    read_input_text,
    read_parquet,
    write_csv,
    write_metrics,
    write_parquet,
)
from tests.cli_cases import FifoReader, char_device


def _frame(order):
    df = pd.DataFrame({"task": ["b", "a", "c"], "n": [2, 1, 3], "x": [[0.5, 1.0], [0.25], []]})
    return df.iloc[order].reset_index(drop=True)


def test_write_parquet_is_byte_identical_whatever_the_row_order(tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    kw = dict(key=["task"], instrument="shortcuts", stage="generate", params_hash="abc")
    write_parquet(_frame([0, 1, 2]), a, **kw)
    write_parquet(_frame([2, 0, 1]), b, **kw)
    assert a.read_bytes() == b.read_bytes()
    assert read_parquet(a)["task"].tolist() == ["a", "b", "c"]


def test_write_parquet_metadata_and_compression(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(
        _frame([0, 1, 2]), path, key=["task"], instrument="nli", stage="score", params_hash="h1"
    )
    meta = parquet_metadata(path)
    assert meta["instrument"] == "nli" and meta["stage"] == "score"
    assert meta["params_hash"] == "h1" and meta["schema_version"] == "1"
    assert json.loads(meta["sort_key"]) == ["task"]
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"
    assert "pandas" not in {k.decode() for k in pq.read_schema(path).metadata}


def test_write_parquet_rejects_a_key_that_does_not_identify_rows(tmp_path):
    df = pd.DataFrame({"k": [1, 1], "v": [1, 2]})
    with pytest.raises(ValueError, match="does not identify rows"):
        write_parquet(
            df, tmp_path / "x.parquet", key=["k"], instrument="a", stage="b", params_hash="c"
        )
    assert not list(tmp_path.iterdir())


def test_atomic_write_leaves_no_partial_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(InputError, match="out.bin: could not be written .disk full"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_write_metrics_is_flat_with_sorted_keys(tmp_path):
    path = tmp_path / "m.json"
    metrics = {
        "score": {"panel": {"label_only": {"task_accuracy": np.float64(1.0)}}, "n": 1},
        "count": {"nan": float("nan")},
    }
    write_metrics(path, metrics)
    text = path.read_text()
    data = json.loads(text)
    assert list(data) == ["count.nan", "score.n", "score.panel.label_only.task_accuracy"]
    assert data["score.panel.label_only.task_accuracy"] == 1.0 and data["count.nan"] is None
    assert text.endswith("\n")


def test_write_metrics_rejects_non_scalars(tmp_path):
    with pytest.raises(TypeError, match="not a scalar"):
        write_metrics(tmp_path / "m.json", {"score.a": [1, 2]})


def test_flatten_nested():
    assert flatten({"a": {"b": {"c": 1}}, "d": 2}) == {"a.b.c": 1, "d": 2}


def test_write_csv_fixed_format(tmp_path):
    path = tmp_path / "p.csv"
    write_csv(path, pd.DataFrame({"x": [0.1 + 0.2, 1.0], "y": ["a", "b"]}))
    assert path.read_text() == "x,y\n0.3,a\n1,b\n"


# ---------------------------------------------------------------- the write boundary


@pytest.fixture
def umask():
    """Set the umask for a test; the previous one comes back after it."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield lambda mask: os.umask(mask)
    os.umask(saved)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_write_gives_the_umask_mode_new_or_replacing(tmp_path, umask, mask, mode):
    umask(mask)
    assert file_mode() == mode
    atomic_write(tmp_path / "new.bin", b"x")
    old = tmp_path / "old.bin"
    old.write_bytes(b"old")
    old.chmod(0o600)  # written by an older version, whose temporary file kept 0600
    atomic_write(old, b"new")
    assert _mode(tmp_path / "new.bin") == mode and _mode(old) == mode


def test_every_artifact_of_a_stage_gets_the_umask_mode(tmp_path, umask):
    """The pipeline's writes (StageContext's transactional commit) go through the boundary."""
    from nesybench.artifacts import Job, Registry
    from nesybench.stages import StageContext

    reg = Registry("nli", [Job("score", tables=("table",), plots=("curve",))])
    for mask, mode in ((0o022, 0o644), (0o077, 0o600)):
        umask(mask)
        root = tmp_path / f"u{mask:o}"
        ctx = StageContext(job=reg.job("score", None), registry=reg, params={"nli": {}}, root=root)
        ctx.write_table("table", pd.DataFrame({"a": [1]}), key=["a"])
        ctx.write_metrics({"accuracy": 0.5})
        ctx.write_plot("curve", pd.DataFrame({"x": [1]}))
        written = ctx.commit()
        assert len(written) == 3 and all(_mode(p) == mode for p in written), mask


def test_atomic_write_follows_a_symbolic_link(tmp_path):
    (tmp_path / "real.jsonl").write_bytes(b"old")
    (tmp_path / "link.jsonl").symlink_to("real.jsonl")
    atomic_write(tmp_path / "link.jsonl", b"new")
    assert (tmp_path / "link.jsonl").is_symlink()
    assert (tmp_path / "real.jsonl").read_bytes() == b"new"
    (tmp_path / "dangling").symlink_to("made/by/the/write.txt")
    atomic_write(tmp_path / "dangling", b"here")
    assert (tmp_path / "made/by/the/write.txt").read_bytes() == b"here"


def test_atomic_write_writes_through_a_fifo_and_a_device_never_replacing_them(tmp_path):
    fifo = FifoReader("sink")
    fifo(tmp_path / "sink")
    atomic_write(tmp_path / "sink", b"through the pipe")
    fifo.check(tmp_path)
    char_device(tmp_path / "null")  # the null device's twin, made here (skips without root)
    atomic_write(tmp_path / "null", b"gone")
    st = os.lstat(tmp_path / "null")
    assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "sink"]


def test_atomic_write_names_the_file_in_the_way(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(InputError, match=r"cannot write here, .*f\.txt is a file, not a folder"):
        atomic_write(tmp_path / "f.txt" / "a" / "out.json", b"{}")


# ---------------------------------------------------------------- bounded reads
def test_read_input_refuses_a_regular_file_over_the_limit_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (2 << 20))
    monkeypatch.setenv("NESYBENCH_MAX_INPUT_MB", "1")
    with pytest.raises(InputError, match=r"big.json: larger than 1 MiB, .*NESYBENCH_MAX_INPUT_MB"):
        read_input(path)
    monkeypatch.setenv("NESYBENCH_MAX_INPUT_MB", "3")
    assert len(read_input(path)) == 2 << 20


def test_read_input_bounds_a_stream(monkeypatch):
    monkeypatch.setenv("NESYBENCH_MAX_INPUT_MB", "2")
    started = time.process_time()
    with pytest.raises(InputError, match=r"/dev/zero: larger than 2 MiB"):
        read_input("/dev/zero")
    # a hang guard in CPU time (the refusal takes milliseconds; the load does not move it)
    assert time.process_time() - started < 60, "hang: reading /dev/zero was not cut short"


def test_read_input_reads_a_fifo(tmp_path):
    import threading

    path = tmp_path / "in.jsonl"
    os.mkfifo(path)

    def feed():
        with open(path, "wb") as handle:
            handle.write(b'{"id": 1}\n')

    threading.Thread(target=feed, daemon=True).start()
    assert read_input_text(path) == '{"id": 1}\n'


@pytest.mark.parametrize(
    "text, kind, records",
    [
        ('[{"a": 1}, 2]', "list", [(1, {"a": 1}), (2, 2)]),
        ('{"a": 1}', "object", [(1, {"a": 1})]),
        ('{"a": 1}\n\n{"a": 2}\n', "lines", [(1, {"a": 1}), (3, {"a": 2})]),
        # JSON Lines whose first line is a JSON array: JSON Lines, not a broken list
        ('[1, 2]\n{"a": 2}\n', "lines", [(1, [1, 2]), (2, {"a": 2})]),
    ],
)
def test_json_records_splits_lists_objects_and_lines(text, kind, records):
    assert json_records(text, source="f") == (kind, records)


def test_json_records_keeps_a_bad_line_in_place_and_refuses_broken_files():
    kind, items = json_records('{"a": 1}\n{oops\n', source="f")
    assert kind == "lines" and isinstance(items[1][1], BadLine)
    assert "line 2 is not JSON" in str(items[1][1])
    for text, message in [
        ("", "empty file"),
        ('[{"a": 1}, {"a"', "not valid JSON .*a JSON list cut short"),
        ("42", "got a JSON int"),
        ("a\nb\n", "not JSON or JSON Lines"),
        ("[" * 100_000, "nested too deeply|not valid JSON"),
    ]:
        with pytest.raises(InputError, match=message):
            json_records(text, source="f")


# ---------------------------------------------------------------- the YAML loader
def test_yaml_aliases_are_bounded_in_the_one_loader(tmp_path):
    from nesybench.params import MAX_ALIAS_EXPANSION, load_yaml

    small = tmp_path / "small.yaml"
    small.write_text("base: &b {x: 1, y: [1, 2]}\nuse: *b\n")
    assert load_yaml(small)["use"] == {"x": 1, "y": [1, 2]}
    levels = "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 9) if a else ', '.join(['lol'] * 9)}]\n"
        for a, b in zip(["", *"abcdefgh"], "abcdefghi")
    )
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(levels)
    started = time.process_time()
    with pytest.raises(InputError, match=rf"aliases would expand .* {MAX_ALIAS_EXPANSION:,} more"):
        load_yaml(bomb)
    # a hang guard in CPU time (the refusal takes milliseconds; the load does not move it)
    assert time.process_time() - started < 30, "hang: the alias expansion was not cut short"
