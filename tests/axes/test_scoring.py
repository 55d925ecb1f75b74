"""The grid scorer: round trip, profile numbers against brute force, interaction contrast,
regression, mixture, and the readers' validation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nesybench.axes.grid import GridSpec, generate_grid
from nesybench.axes.mixture import tie
from nesybench.axes.scoring import (
    grid_from_records,
    predictions_from_records,
    read_grid,
    read_json_records,
    read_predictions,
    regression,
    score,
)
from nesybench.cli import main
from nesybench.errors import InputError
from nesybench.metrics.stats import wilson_interval

LABEL = {"A": "True", "B": "False", "C": "Unknown"}
SPEC = GridSpec(
    depth=(0, 1, 2),
    distractors=(0, 1),
    order=("canonical", "shuffled"),
    negation=("none", "negated"),
    vocabulary=(8,),
    synonyms=(0.0, 0.2),
    per_cell=6,
)


@pytest.fixture(scope="module")
def records():
    return [q.record() for q in generate_grid(SPEC, seed=9)]


@pytest.fixture(scope="module")
def grid(records):
    return grid_from_records(list(enumerate(records, 1)), source="grid.jsonl")


def _gold(records):
    return {r["id"]: LABEL[r["answer"]] for r in records}


def _wrong(label):
    return "False" if label == "True" else "True"


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_round_trip_export_answer_with_gold_score_is_exact_on_every_cell(tmp_path, capsys):
    grid_path = tmp_path / "grid.jsonl"
    assert main(["axes-export", "--out", str(grid_path)]) == 0
    rows = [json.loads(line) for line in grid_path.read_text().splitlines()]
    preds = _jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in rows])
    capsys.readouterr()
    assert main(["axes-score", str(preds), "--grid", str(grid_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == len(rows) == 1152 and out["coverage"] == 1.0 and out["accuracy"] == 1.0
    assert all(c["accuracy"] == 1.0 and c["n"] == 6 for c in out["per_cell"])
    assert len(out["per_cell"]) == 192
    assert all(s["accuracy"] == 1.0 for lv in out["per_axis"].values() for s in lv.values())
    assert out["coefficients"]["terms"] == [] and "constant" in out["coefficients"]["note"]
    for key in ("n", "coverage", "accuracy", "per_axis", "interaction", "coefficients", "mixture"):
        assert key in out


def test_score_profile_matches_brute_force(grid, records):
    rng = np.random.default_rng(0)
    gold = _gold(records)
    preds = {}
    for r in records:
        u = rng.random()
        preds[r["id"]] = None if u < 0.1 else gold[r["id"]] if u < 0.7 else "Unknown"
    out = score(grid, preds, resamples=0)
    for axis in SPEC.__dataclass_fields__:
        if axis == "per_cell":
            continue
        for level in getattr(SPEC, axis):
            ids = [r["id"] for r in records if r["cell"][axis] == level]
            n = len(ids)
            k = sum(preds[i] is not None for i in ids)
            c = sum(preds[i] == gold[i] for i in ids)
            s = out["per_axis"][axis][level if isinstance(level, str) else json.dumps(level)]
            assert (s["n"], s["answered"], s["correct"]) == (n, k, c)
            assert s["accuracy"] == c / n and s["accuracy_answered"] == c / k
            assert (s["lo"], s["hi"]) == wilson_interval(c, n)
    total = sum(preds[i] == gold[i] for i in gold)
    assert out["accuracy"] == total / len(gold) and out["coverage"] < 1
    # "Unknown" answered on a closed-world question is not one of its options
    closed = [r["id"] for r in records if r["cell"]["negation"] == "none"]
    assert out["not_an_option"] == sum(preds[i] == "Unknown" for i in closed)


def test_interaction_contrast_is_the_difference_of_differences(grid, records):
    gold = _gold(records)
    # wrong exactly on depth 2 with 1 distractor: the contrast there is -1, elsewhere 0
    preds = {
        r["id"]: (
            _wrong(gold[r["id"]])
            if (r["cell"]["depth"], r["cell"]["distractors"]) == (2, 1)
            else gold[r["id"]]
        )
        for r in records
    }
    out = score(grid, preds, resamples=0)["interaction"]
    assert (out["rows"], out["columns"]) == ("depth", "distractors")
    table = {(row["depth"], row["distractors"]): row for row in out["table"]}
    assert table[(2, 1)]["accuracy"] == 0.0 and table[(2, 1)]["contrast"] == -1.0
    assert all(row["contrast"] == 0.0 for key, row in table.items() if key != (2, 1))


def test_spread_and_regression_find_the_axis_that_moves_accuracy(grid, records):
    gold = _gold(records)
    rng = np.random.default_rng(1)
    preds = {
        r["id"]: gold[r["id"]]
        if r["cell"]["negation"] == "none" or rng.random() < 0.4
        else _wrong(gold[r["id"]])
        for r in records
    }
    out = score(grid, preds, resamples=50, seed=3)
    assert out["most_moving_axis"] == "negation"
    co = out["coefficients"]
    assert co["most_moving_axis"] == "negation" and co["used"] == 50
    negation = next(t for t in co["terms"] if t["axis"] == "negation")
    assert negation["level"] == "negated" and negation["hi"] < 0 < -negation["coef"]
    assert co["reference"]["negation"] == "none"
    again = score(grid, preds, resamples=50, seed=3)["coefficients"]
    assert again == co  # deterministic


def test_regression_grouped_fit_equals_scikit_learn_on_every_question(grid, records):
    from sklearn.linear_model import LogisticRegression

    gold = _gold(records)
    rng = np.random.default_rng(2)
    correct = np.array([rng.random() < 0.3 + 0.2 * r["cell"]["depth"] for r in records])
    out = regression(grid, correct, resamples=0, C=1.0)
    terms = [(t["axis"], t["level"]) for t in out["terms"]]
    x = np.array([[r["cell"][a] == v for a, v in terms] for r in records], dtype=float)
    model = LogisticRegression(C=1.0, max_iter=5000, tol=1e-10).fit(x, correct.astype(int))
    assert out["intercept"]["coef"] == pytest.approx(model.intercept_[0], abs=1e-4)
    assert [t["coef"] for t in out["terms"]] == pytest.approx(list(model.coef_[0]), abs=1e-4)
    assert gold  # the grid is the one scored


def test_mixture_aggregates_and_ties_against_a_second_system(grid, records):
    gold = _gold(records)
    deep = {r["id"]: gold[r["id"]] if r["cell"]["depth"] < 2 else None for r in records}
    shallow = {r["id"]: gold[r["id"]] if r["cell"]["depth"] > 0 else None for r in records}
    out = score(grid, deep, against=shallow, mix=[1, 1, 2], resamples=0)["mixture"]
    assert out["depths"] == [0, 1, 2] and out["accuracy"] == [1.0, 1.0, 0.0]
    assert out["aggregate"] == pytest.approx(2 / 3) and out["range"] == [0.0, 1.0]
    assert out["under_mix"]["aggregate"] == pytest.approx(0.5)
    assert out["under_mix"]["weights"] == [0.25, 0.25, 0.5]
    against = out["against"]
    assert against["accuracy"] == [0.0, 1.0, 1.0]
    ties = {tuple(t["depths"]): t for t in against["ties"]}
    expected = tie([1.0, 1.0, 0.0], [0.0, 1.0, 1.0], 0, 2)
    assert ties[(0, 2)]["pi"] == expected.pi == 0.5
    assert (ties[(0, 1)]["pi"], ties[(0, 1)]["accuracy"]) == (0.0, 1.0)  # both 1.0 at depth 1
    assert [p["first"] for p in against["pure_depth"]] == ["this", "tie", "against"]


def test_mix_needs_one_weight_per_depth(grid, records):
    with pytest.raises(InputError, match="--mix must be 3 weights"):
        score(grid, _gold(records), mix=[1, 2], resamples=0)
    flat = {"id": "a", "options": ["A) True", "B) False"], "answer": "A", "cell": {"hops": 0}}
    no_depth = grid_from_records([(1, flat)], source="g")
    assert score(no_depth, {"a": "True"}, resamples=0)["mixture"] is None
    with pytest.raises(InputError, match="--mix: the grid g has no depth axis"):
        score(no_depth, {"a": "True"}, mix=[1], resamples=0)


def test_predictions_accept_letters_options_and_labels_in_any_case(grid, records):
    r0, r1, r2 = records[0], records[1], records[2]
    rows = [
        (1, {"id": r0["id"], "prediction": "a"}),
        (2, {"id": r1["id"], "prediction": "B) False"}),
        (3, {"id": r2["id"], "prediction": " TRUE "}),
    ]
    preds = predictions_from_records(rows, grid, source="p")
    assert preds.labels == {r0["id"]: "True", r1["id"]: "False", r2["id"]: "True"}
    nulls = predictions_from_records([(1, {"id": r0["id"], "prediction": None})], grid, source="p")
    assert nulls.labels == {r0["id"]: None} and not nulls.unreadable


def _with_id(rows, qid):
    return [
        (n, {**r, "id": qid} if isinstance(r, dict) and r.get("id") == "X" else r) for n, r in rows
    ]


@pytest.mark.parametrize(
    "rows, message",
    [
        ([], "no predictions"),
        ([(1, {"id": "nope", "prediction": "A"})], r"1 prediction id\(s\) not among .*nope"),
        ([(1, {"id": 7, "prediction": "A"})], r"not among the questions of the grid .*: \"7\""),
        (
            [(1, {"id": "X", "prediction": "A"}), (4, {"id": "X", "prediction": "B"})],
            r"line 4: duplicate id \"\S+\" \(first at line 1\)",
        ),
    ],
)
def test_predictions_reject_files_made_for_other_questions(grid, records, rows, message):
    with pytest.raises(InputError, match=message):
        predictions_from_records(_with_id(rows, records[0]["id"]), grid, source="p")


@pytest.mark.parametrize(
    "rows, unreadable, skipped, strict_message",
    [
        ([(1, {"id": "X", "prediction": "maybe"})], 1, 0, "outside the grid's label set"),
        ([(1, {"id": "X", "prediction": 1})], 1, 0, "1 is not a label string"),
        ([(1, {"id": "X", "prediction": "D"})], 1, 0, "outside the grid's label set"),
        ([(1, [1, 2]), (2, {"id": "X", "prediction": "A"})], 0, 1, "line 1: record must be"),
        ([(1, {"prediction": "A"}), (2, {"id": "X", "prediction": "A"})], 0, 1, "missing field"),
    ],
)
def test_unscorable_predictions_are_counted_not_correct_or_refused_with_strict(
    grid, records, rows, unreadable, skipped, strict_message
):
    rows = _with_id(rows, records[0]["id"])
    preds = predictions_from_records(rows, grid, source="p")
    assert (len(preds.unreadable), len(preds.skipped)) == (unreadable, skipped)
    out = score(grid, preds, resamples=0)
    assert out["unreadable"] == unreadable and out["answered"] == (1 - unreadable)
    assert out["n"] == len(grid) and out["coverage"] == out["answered"] / len(grid)
    with pytest.raises(InputError, match=f"{strict_message}.*--strict"):
        predictions_from_records(rows, grid, source="p", strict=True)


def test_unknown_ids_are_listed_with_a_count(grid):
    rows = [(i, {"id": f"zz{i}", "prediction": "A"}) for i in range(1, 8)]
    with pytest.raises(
        InputError, match=r"7 prediction id\(s\) not among .*\"zz1\", .*\"zz5\" and 2 more"
    ):
        predictions_from_records(rows, grid, source="p")


@pytest.mark.parametrize(
    "record, message",
    [
        (
            {"id": "", "options": ["A) True"], "answer": "A", "cell": {"depth": 0}},
            "non-empty string",
        ),
        ({"id": "a", "options": [], "answer": "A", "cell": {"depth": 0}}, "'options' must be"),
        ({"id": "a", "options": ["A) True"], "answer": "B", "cell": {"depth": 0}}, "'answer' must"),
        ({"id": "a", "options": ["A) True"], "answer": "A", "cell": {}}, "'cell' must be"),
        ({"id": "a", "options": ["A) True"], "answer": "A", "cell": {"d": [1]}}, "cell.d must be"),
        ({"id": "a", "options": ["A) True"], "answer": "A"}, "missing field 'cell'"),
        ({"id": "a", "options": ["A) T", "A) F"], "answer": "A", "cell": {"d": 1}}, "repeats"),
    ],
)
def test_grid_from_records_rejects_bad_records(record, message):
    with pytest.raises(InputError, match=message):
        grid_from_records([(1, record)], source="g")


def test_grid_from_records_rejects_duplicates_mixed_axes_and_emptiness():
    a = {"id": "a", "options": ["A) True", "B) False"], "answer": "A", "cell": {"depth": 0}}
    with pytest.raises(InputError, match=r'line 2: duplicate id "a" \(first on line 1\)'):
        grid_from_records([(1, a), (2, a)], source="g")
    b = {**a, "id": "b", "cell": {"hops": 0}}
    with pytest.raises(InputError, match="must name the same axes"):
        grid_from_records([(1, a), (2, b)], source="g")
    with pytest.raises(InputError, match="holds no questions"):
        grid_from_records([], source="g")


def test_read_json_records_reads_jsonl_arrays_and_a_byte_order_mark(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(b'\xef\xbb\xbf{"x": 1}\n\n{"x": 2}\n')
    assert read_json_records(tmp_path / "a.jsonl", what="f") == [(1, {"x": 1}), (3, {"x": 2})]
    (tmp_path / "b.json").write_text('[{"x": 1}, {"x": 2}]')
    assert read_json_records(tmp_path / "b.json", what="f") == [(1, {"x": 1}), (2, {"x": 2})]
    (tmp_path / "c.jsonl").write_text('{"x": 1}\n{"x": \n')
    with pytest.raises(InputError, match="line 2 is not JSON"):
        read_json_records(tmp_path / "c.jsonl", what="f")
    # JSON Lines whose first line is a JSON array: JSON Lines, not a broken JSON list
    (tmp_path / "d.jsonl").write_text('[1, 2]\n{"x": 2}\n')
    assert read_json_records(tmp_path / "d.jsonl", what="f") == [(1, [1, 2]), (2, {"x": 2})]


def test_read_grid_and_predictions_from_files(tmp_path, records):
    grid_path = _jsonl(tmp_path / "g.jsonl", records)
    grid = read_grid(grid_path)
    assert len(grid) == len(records) and grid.axes == tuple(records[0]["cell"])
    preds = _jsonl(tmp_path / "p.jsonl", [{"id": records[0]["id"], "prediction": "A"}])
    assert read_predictions(preds, grid).labels == {records[0]["id"]: LABEL["A"]}
