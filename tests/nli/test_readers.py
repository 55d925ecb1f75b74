"""Benchmark readers: each format from hand-made records, skips counted, bad files refused."""

import json

import pytest

from nesybench.errors import InputError
from nesybench.nli.readers import (
    BadRecord,
    Benchmark,
    Question,
    normalize_label,
    read_benchmark,
)

PW_OPTIONS = ["A) True", "B) False", "C) Unknown"]


def pw_record(i, answer="A", **extra):
    return {
        "id": f"q{i}",
        "context": "The cat chases the dog. If something chases the dog then it is red.",
        "question": "Based on the above information, is the following statement true, false, or "
        "unknown? The cat is red.",
        "options": PW_OPTIONS,
        "answer": answer,
        **extra,
    }


def write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_proofwriter_list_with_bad_records_skipped_and_counted(tmp_path):
    records = [
        pw_record(0),
        pw_record(1, answer="C"),
        {"id": "q2", "context": 3, "question": "x", "answer": "A"},
        pw_record(3, answer="D"),
        pw_record(0),  # a duplicate id
        "not an object",
        {k: v for k, v in pw_record(6).items() if k != "answer"},
    ]
    b = read_benchmark(write(tmp_path, "pw.json", json.dumps(records)), benchmark="proofwriter")
    assert [(q.id, q.gold) for q in b.questions] == [("q0", "True"), ("q1", "Unknown")]
    reasons = [s.reason for s in b.skipped]
    assert [s.where for s in b.skipped] == [f"record {i}" for i in (2, 3, 4, 5, 6)]
    assert "field 'context' must be a string, got int" in reasons[0]
    assert "unknown label 'D'" in reasons[1]
    assert "duplicate id 'q0' (first at record 0)" in reasons[2]
    assert "must be a JSON object, got str" in reasons[3]
    assert "missing field 'answer'" in reasons[4]


def test_jsonl_with_a_broken_line_and_a_byte_order_mark(tmp_path):
    text = "\ufeff" + json.dumps(pw_record(0)) + "\n{broken\n\n" + json.dumps(pw_record(1)) + "\n"
    b = read_benchmark(write(tmp_path, "pw.jsonl", text), benchmark="proofwriter")
    assert len(b) == 2 and b.skipped[0].reason.startswith("line 2 is not JSON")


def test_prontoqa_labels_and_explanations(tmp_path):
    rec = {
        "id": "p1",
        "context": "Every wumpus is a rompus. Sam is a wumpus.",
        "question": "Is the following statement true or false? Sam is a rompus.",
        "options": ["A) True", "B) False"],
        "answer": "A",
        "explanation": ["Sam is a wumpus.", "Every wumpus is a rompus.", "Sam is a rompus."],
    }
    b = read_benchmark(write(tmp_path, "p.json", json.dumps([rec])), benchmark="prontoqa")
    assert b.questions[0].gold == "True" and len(b.questions[0].explanation) == 3
    assert b.labels == ("True", "False")


def test_folio_ids_labels_and_annotations(tmp_path):
    lines = [
        {
            "example_id": 7,
            "premises": ["All men are mortal."],
            "premises-FOL": ["∀x (M(x) → D(x))"],
            "conclusion": "x",
            "conclusion-FOL": "D(s)",
            "label": "Uncertain",
        },
        {"premises": ["p"], "conclusion": "c", "label": "true"},  # no id, no FOL
        {"premises": ["p"], "conclusion": "c", "label": "Maybe"},
    ]
    path = write(tmp_path, "f.jsonl", "\n".join(json.dumps(x) for x in lines))
    b = read_benchmark(path, benchmark="folio")
    q7, q1 = b.questions
    assert (q7.id, q7.gold, q7.premises_fol, q7.conclusion_fol) == (
        "7",
        "Unknown",
        ("∀x (M(x) → D(x))",),
        "D(s)",
    )
    assert (q1.id, q1.gold, q1.premises_fol, q1.conclusion_fol) == ("1", "True", None, None)
    assert "unknown label 'Maybe'" in b.skipped[0].reason


def _bqa(tmp_path, logic, axiom, samples, **fields):
    folder = tmp_path / "BQA" / logic / axiom
    folder.mkdir(parents=True)
    data = {"type": fields.get("type", logic), "axiom": axiom, "samples": samples}
    (folder / "data_instances.json").write_text(json.dumps(data), encoding="utf-8")


def test_logicbench_tree_ids_and_skips(tmp_path):
    pairs = [{"question": "Q yes?", "answer": "yes"}, {"question": "Q no?", "answer": "No"}]
    _bqa(
        tmp_path,
        "propositional_logic",
        "modus_tollens",
        [{"id": 3, "context": "c", "qa_pairs": pairs}, {"id": 4, "context": "c", "qa_pairs": 5}],
    )
    _bqa(
        tmp_path,
        "nm_logic",
        "default_reasoning",
        [
            {"id": 1, "context": "c", "qa_pairs": [{"question": "q", "answer": "perhaps"}]},
            {"id": 2, "context": "c", "qa_pairs": pairs},
        ],
        type="non_monotonic_logic",
    )
    b = read_benchmark(tmp_path / "BQA", benchmark="logicbench")
    assert [q.id for q in b.questions] == [
        "nm_logic/default_reasoning/2/0",
        "nm_logic/default_reasoning/2/1",
        "propositional_logic/modus_tollens/3/0",
        "propositional_logic/modus_tollens/3/1",
    ]
    assert [q.gold for q in b.questions] == ["yes", "no", "yes", "no"]
    assert len(b.skipped) == 2
    assert "unknown label 'perhaps'" in str(b.skipped[0])
    assert "field 'qa_pairs' must be a list" in str(b.skipped[1])
    # one file on its own: logic and axiom come from its fields
    one = tmp_path / "BQA" / "nm_logic" / "default_reasoning" / "data_instances.json"
    assert read_benchmark(one, benchmark="logicbench").questions[0].id == (
        "non_monotonic_logic/default_reasoning/2/0"
    )


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty file"),
        ("   \n", "empty file"),
        ("[" + json.dumps(pw_record(0)), "not valid JSON"),
        ("42", "got a JSON int"),
        ('"text"', "got a JSON str"),
        ("hello\nworld\n", "not JSON or JSON Lines"),
        (b"\xff\xfe\x00", "cannot read as UTF-8"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (json.dumps([{"id": 1}]), "no usable proofwriter record in 1; first problem: record 0"),
        ("[]", "no usable proofwriter record in 0"),
    ],
)
def test_bad_files_are_one_user_error(tmp_path, content, message):
    with pytest.raises(InputError, match=message):
        read_benchmark(write(tmp_path, "bad.json", content), benchmark="proofwriter")


def test_missing_file_folder_and_unknown_benchmark(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_benchmark(tmp_path / "nope.json", benchmark="folio")
    with pytest.raises(InputError, match="is a folder"):
        read_benchmark(tmp_path, benchmark="proofwriter")
    with pytest.raises(InputError, match="no <logic>/<axiom>/data_instances.json"):
        read_benchmark(tmp_path, benchmark="logicbench")
    with pytest.raises(InputError, match="benchmark must be one of"):
        read_benchmark(tmp_path, benchmark="squad")


def test_a_truncated_logicbench_file_stops_the_read(tmp_path):
    _bqa(tmp_path, "l", "a", [])
    (tmp_path / "BQA" / "l" / "a" / "data_instances.json").write_text('{"samples": [', "utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        read_benchmark(tmp_path / "BQA", benchmark="logicbench")


def test_fifty_thousand_records_read(tmp_path):
    records = [pw_record(i, answer="ABC"[i % 3]) for i in range(50_000)]
    path = write(tmp_path, "big.jsonl", "\n".join(json.dumps(r) for r in records))
    b = read_benchmark(path, benchmark="proofwriter")
    assert len(b) == 50_000 and not b.skipped


@pytest.mark.parametrize(
    "value, options, label",
    [
        ("true", None, "True"),
        (" UNKNOWN ", None, "Unknown"),
        ("Uncertain", None, "Unknown"),
        (True, None, "True"),
        ("B", PW_OPTIONS, "False"),
        ("C)", None, "Unknown"),
        ("A", ["A) False", "B) True"], "False"),
    ],
)
def test_normalize_label(value, options, label):
    assert normalize_label(value, ("True", "False", "Unknown"), options) == label


@pytest.mark.parametrize(
    "value, options", [("D", None), (3, None), ("A", 5), ("A", [1]), (None, None)]
)
def test_normalize_label_refuses(value, options):
    with pytest.raises(BadRecord):
        normalize_label(value, ("True", "False", "Unknown"), options)


# ---------------------------------------------------------------- property: only user errors
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nesybench.nli.score_nli import read_predictions  # noqa: E402

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda sub: (
        st.lists(sub, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "context",
                    "question",
                    "answer",
                    "options",
                    "label",
                    "premises",
                    "premises-FOL",
                    "conclusion",
                    "conclusion-FOL",
                    "prediction",
                    "explanation",
                    "samples",
                    "qa_pairs",
                ]
            ),
            sub,
            max_size=6,
        )
    ),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(st.binary(max_size=200), st.text(max_size=200), JSONISH.map(lambda v: json.dumps(v)))
)
def test_arbitrary_files_raise_only_user_errors(tmp_path, content):
    path = tmp_path / "any.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    for benchmark in ("prontoqa", "proofwriter", "folio"):
        try:
            read_benchmark(path, benchmark=benchmark)
        except InputError:
            pass
    gold = Benchmark("proofwriter", "g", (Question("q0", "proofwriter", "True", "", ""),))
    for benchmark in ("proofwriter", "logicbench"):
        for strict in (False, True):
            try:
                read_predictions(path, benchmark=benchmark, gold=gold, strict=strict)
            except InputError:
                pass
    bqa = tmp_path / "BQA" / "l" / "a"
    bqa.mkdir(parents=True, exist_ok=True)
    (bqa / "data_instances.json").write_bytes(path.read_bytes())
    try:
        read_benchmark(tmp_path / "BQA", benchmark="logicbench")
    except InputError:
        pass
