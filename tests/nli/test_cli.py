"""``nesybench check-trace`` on users' files: summaries, per-record errors, bad input -> exit 2."""

from __future__ import annotations

import json

import pytest

from nesybench.cli import main

CONTEXT = "Every wumpus is a rompus. Every rompus is a zumpus. Sam is a wumpus."
GOOD = {
    "id": "a",
    "context": CONTEXT,
    "question": "True or false: Sam is a zumpus.",
    "chain_of_thought": ["Sam is a rompus.", "Sam is a zumpus."],
    "answer": "True",
}


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_check_trace_json_list_summary_and_out(tmp_path, capsys):
    bad_trace = {
        **GOOD,
        "id": "b",
        "chain_of_thought": "Sam is a zumpus.",
        "answer": "B",
        "options": ["A) True", "B) False"],
    }
    path = _write(tmp_path, "in.json", json.dumps([GOOD, bad_trace]))
    out = tmp_path / "v.jsonl"
    assert main(["check-trace", path, "--json", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 2 and summary["strict_rate"] == 0.5 and summary["valid_rate"] == 0.5
    assert summary["parsed_rate"] == 1.0 and summary["label_acc"] == 0.5
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert (
        rows[0]["strict"] is True
        and rows[0]["label"] == "True"
        and rows[0]["label_correct"] is True
    )
    assert rows[1]["valid"] is False and rows[1]["answer"] == "False" and rows[1]["id"] == "b"


def test_check_trace_jsonl_with_unreadable_records(tmp_path, capsys):
    lines = [
        json.dumps(GOOD),
        "{not json",
        json.dumps({"context": 3, "question": "x"}),
        json.dumps([1]),
        json.dumps({**GOOD, "context": "All wumpuses are rompuses. Sam is a wumpus."}),
        json.dumps({**GOOD, "answer": "maybe"}),
        json.dumps({**GOOD, "chain_of_thought": 7}),
    ]
    path = _write(tmp_path, "in.jsonl", "\n".join(lines) + "\n")
    assert main(["check-trace", path]) == 0
    text = capsys.readouterr().out
    assert "7 records, 1 checked, 6 unreadable" in text
    assert "record 1: error: line 2 is not JSON" in text
    assert "field 'context' must be a string" in text
    assert "record must be a JSON object" in text
    assert "context sentence does not parse" in text
    assert "answer 'maybe'" in text
    assert "must be a list of sentences or one string" in text


def test_check_trace_without_answers_has_no_label_acc(tmp_path, capsys):
    rec = {k: v for k, v in GOOD.items() if k != "answer"}
    path = _write(tmp_path, "in.json", json.dumps(rec))
    assert main(["check-trace", path, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "label_acc" not in summary and summary["strict_rate"] == 1.0


@pytest.mark.parametrize(
    "content, message",
    [
        ("this is not json\nneither is this\n", "not JSON or JSON Lines"),
        ("42", "got a JSON int"),
        (b"\xff\xfe\x00", "cannot read as UTF-8"),
    ],
)
def test_check_trace_bad_file_exits_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "v.jsonl"
    assert main(["check-trace", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not out.exists()


def test_check_trace_missing_file_and_bad_args_exit_2(tmp_path, capsys):
    assert main(["check-trace", str(tmp_path / "nope.json")]) == 2
    assert "file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["check-trace"])
    assert exc.value.code == 2


def test_check_trace_published_dev_all_strict(prontoqa_dev, capsys):
    from tests.nli.conftest import PRONTOQA_DEV

    assert main(["check-trace", str(PRONTOQA_DEV), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 500 and summary["n_errors"] == 0
    assert all(
        summary[f"{f}_rate"] == 1.0 for f in ("parsed", "valid", "linear", "connects", "strict")
    )
    assert summary["label_acc"] == 1.0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nesybench.nli.trace_check import check_record  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        JSON,
        st.fixed_dictionaries(
            {"context": JSON, "question": JSON, "chain_of_thought": JSON, "answer": JSON}
        ),
    )
)
def test_check_record_never_raises_on_arbitrary_json(record):
    out = check_record(record)
    assert ("error" in out) != ("strict" in out)
