"""score-nli: metrics against closed forms and scikit-learn, baselines, breakdowns, shipped."""

import json
from pathlib import Path

import pytest
from sklearn.metrics import confusion_matrix as sk_confusion
from sklearn.metrics import f1_score

from nesybench.errors import InputError
from nesybench.metrics.stats import wilson_interval
from nesybench.nli.benchmark_tables import (
    AGREEMENT_COLUMNS,
    agreement_table,
    folio_audit_table,
    score_nli_depth_table,
    score_nli_table,
)
from nesybench.nli.example_systems import SHIPPED, build_shipped
from nesybench.nli.labelers import label_benchmark
from nesybench.nli.readers import Benchmark, Question, read_benchmark
from nesybench.nli.score_nli import (
    Predictions,
    baselines,
    confusion_matrix,
    macro_f1,
    read_predictions,
    score_predictions,
)
from nesybench.predictions import PredictionSet

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
PW = ("True", "False", "Unknown")


def test_baselines_closed_forms():
    gold = ["True"] * 5 + ["False"] * 3 + ["Unknown"] * 2
    b = baselines(gold, PW)
    assert b["majority"] == {"label": "True", "accuracy": 0.5}
    assert b["uniform"] == pytest.approx(1 / 3)
    assert b["always_unknown"] == 0.2
    assert b["blind_guess_range"] == [0.2, 0.5]
    # a label that never occurs pulls the lower end of the range to 0
    assert baselines(["True", "False"], PW)["blind_guess_range"] == [0.0, 0.5]
    assert "always_unknown" not in baselines(["yes", "no", "no"], ("yes", "no"))


@pytest.mark.parametrize(
    "gold, pred",
    [
        (["True", "False", "Unknown", "True"], ["True", "True", "Unknown", "False"]),
        (["True", "True", "True"], ["False", "False", "Unknown"]),
        (["True", "False"], ["True", "False"]),
    ],
)
def test_macro_f1_and_confusion_match_scikit_learn(gold, pred):
    present = sorted(set(gold) | set(pred))
    assert macro_f1(gold, pred) == pytest.approx(
        f1_score(gold, pred, labels=present, average="macro", zero_division=0)
    )
    ours = confusion_matrix(gold, pred, PW)
    theirs = sk_confusion(gold, pred, labels=list(PW))
    assert [[ours[g][p] for p in PW] for g in PW] == theirs.tolist()


def _bench(golds, name="proofwriter"):
    qs = tuple(Question(f"q{i}", name, g, "", "") for i, g in enumerate(golds))
    return Benchmark(name, "gold.json", qs)


def _predictions(labels: dict, explanations: dict | None = None) -> Predictions:
    """Predictions as read: ``labels`` id -> label (None abstains), explanations id -> chain."""
    return Predictions("p.jsonl", PredictionSet("p.jsonl", dict(labels)), explanations or {})


def _preds(labels):
    return _predictions({f"q{i}": y for i, y in enumerate(labels) if y})


def test_accuracy_counts_every_gold_question_with_coverage_beside():
    bench = _bench(["True", "True", "False", "Unknown", "Unknown"], "folio")
    report = score_predictions(bench, _preds(["True", "False", "False", "Unknown", None]))
    # 5 gold questions, 4 answered, 3 right: the unanswered one is not correct
    assert (report["n"], report["answered"], report["abstained"]) == (5, 4, 1)
    assert report["coverage"] == 0.8 and report["accuracy"] == 0.6
    assert report["accuracy_answered"] == 0.75
    assert (report["accuracy_lo"], report["accuracy_hi"]) == wilson_interval(3, 5)
    true, unknown = report["per_label"]["True"], report["per_label"]["Unknown"]
    assert (true["n"], true["coverage"], true["accuracy"]) == (2, 1.0, 0.5)
    assert (unknown["n"], unknown["coverage"], unknown["accuracy"]) == (2, 0.5, 0.5)
    assert unknown["accuracy_answered"] == 1.0
    assert report["confusion"]["True"] == {"True": 1, "False": 1, "Unknown": 0, "none": 0}
    assert report["confusion"]["Unknown"]["none"] == 1
    # baselines on the same gold, all of it: True 2, False 1, Unknown 2 of 5
    assert report["baselines"]["majority"] == {"label": "True", "accuracy": 0.4}
    assert report["baselines"]["always_unknown"] == 0.4


def test_macro_f1_counts_a_missing_label_as_a_miss():
    # gold a, a, b; predictions a, none, b: F1(a) = 2/3, F1(b) = 1
    assert macro_f1(["a", "a", "b"], ["a", None, "b"]) == pytest.approx((2 / 3 + 1) / 2)


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_unknown_prediction_ids_are_an_error_naming_the_first_few(tmp_path):
    bench = _bench(["True"])
    ids = ["q0", "x1", "x2", "x3", "x4", "x5", "x6"]
    path = _write(tmp_path / "p.jsonl", [{"id": i, "prediction": "True"} for i in ids])
    with pytest.raises(
        InputError, match=r"6 prediction id\(s\) not among the gold .*x1.*and 1 more"
    ):
        read_predictions(path, benchmark="proofwriter", gold=bench)


def test_ids_of_skipped_gold_records_are_named_as_such(tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text(
        json.dumps(
            [
                {"id": "q0", "context": "c", "question": "q", "answer": "A"},
                {"id": "q1", "question": "q", "answer": "A"},  # no context: skipped
            ]
        ),
        encoding="utf-8",
    )
    bench = read_benchmark(gold, benchmark="proofwriter")
    path = _write(tmp_path / "p.jsonl", [{"id": "q1", "prediction": "True"}])
    with pytest.raises(InputError, match=r"name gold records that were skipped as unreadable"):
        read_predictions(path, benchmark="proofwriter", gold=bench)


def test_per_depth_and_mixture_from_the_reference_labeler():
    context = (
        "Bob is big. If someone is big then they are kind. If someone is kind then they are red."
    )
    prefix = "Based on the above information, is the following statement true, false, or unknown? "
    qs = (
        Question("a", "proofwriter", "True", context, prefix + "Bob is big."),
        Question("b", "proofwriter", "True", context, prefix + "Bob is kind."),
        Question("c", "proofwriter", "True", context, prefix + "Bob is red."),
        Question("d", "proofwriter", "Unknown", context, prefix + "Bob is blue."),
    )
    bench = Benchmark("proofwriter", "g", qs)
    preds = _predictions(dict(zip("abcd", ["True", "True", "False", "False"])))
    report = score_predictions(bench, preds)
    depths = {r["depth"]: (r["n"], r["accuracy"]) for r in report["per_depth"]}
    assert depths == {0: (1, 1.0), 1: (1, 1.0), 2: (1, 0.0), None: (1, 0.0)}
    # one question per depth: its majority baseline (best blind guess there) is 1.0
    assert all(r["majority"] == 1.0 for r in report["per_depth"])
    mix = report["mixture"]
    assert mix["depths"] == [0, 1, 2] and mix["realized"] == pytest.approx(2 / 3)
    assert (mix["min"], mix["max"]) == (0.0, 1.0)
    assert report["reference"]["agreement"] == 1.0


def test_logicbench_breakdowns_and_pair_consistency():
    qs = []
    for logic, axiom, sample, golds in [
        ("pl", "mt", "1", ["yes", "no"]),
        ("pl", "mt", "2", ["yes", "no"]),
        ("fol", "mp", "1", ["yes", "no", "no", "no"]),
    ]:
        for k, g in enumerate(golds):
            qs.append(
                Question(
                    f"{logic}/{axiom}/{sample}/{k}",
                    "logicbench",
                    g,
                    "",
                    "",
                    logic=logic,
                    axiom=axiom,
                    sample=sample,
                    pair=k,
                )
            )
    bench = Benchmark("logicbench", "BQA", tuple(qs))
    answers = {
        "pl/mt/1/0": "yes",
        "pl/mt/1/1": "no",
        "pl/mt/2/0": "no",
        "pl/mt/2/1": "no",
        "fol/mp/1/0": "yes",
        "fol/mp/1/1": "no",
        "fol/mp/1/2": "no",
    }  # fol/mp/1/3 unanswered: not correct
    report = score_predictions(bench, _predictions(answers))
    assert report["yes_accuracy"] == pytest.approx(2 / 3) and report["yes_coverage"] == 1.0
    assert report["no_accuracy"] == 0.8 and report["no_coverage"] == 0.8
    assert report["per_axiom"]["pl/mt"]["accuracy"] == 0.75
    fol = report["per_logic"]["fol"]
    assert (fol["n"], fol["coverage"], fol["accuracy"]) == (4, 0.75, 0.75)
    # pl/mt/1 all right; pl/mt/2 one wrong; fol/mp/1 not fully answered: 1 of 3 samples
    assert report["pair_consistency"] == pytest.approx(1 / 3) and report["n_samples"] == 3
    assert report["n_samples_answered"] == 2
    assert report["baselines"]["majority"] == {"label": "no", "accuracy": 5 / 8}


def test_proof_accuracy_beside_label_accuracy_on_prontoqa():
    context = "Every wumpus is a rompus. Every rompus is a zumpus. Sam is a wumpus."
    q = "Is the following statement true or false? Sam is a zumpus."
    bench = Benchmark(
        "prontoqa",
        "g",
        (
            Question("a", "prontoqa", "True", context, q),
            Question("b", "prontoqa", "True", context, q),
            Question("c", "prontoqa", "True", context, q),
        ),
    )
    preds = _predictions(
        {"a": "True", "b": "True", "c": "False"},  # c: no explanation, not in the proof block
        {
            "a": ("Sam is a rompus.", "Sam is a zumpus."),
            "b": ("Sam is a zumpus.",),  # skips a step: not valid
        },
    )
    proof = score_predictions(bench, preds)["proof"]
    assert proof["n"] == 2 and proof["label_accuracy"] == 1.0 and proof["proof_accuracy"] == 0.5
    assert proof["right_for_wrong_reason"] == 0.5


def test_read_predictions_under_the_one_policy(tmp_path):
    lines = [
        {"id": "a", "prediction": "true"},
        {"id": "b", "prediction": "C"},
        {"id": "c", "prediction": "perhaps"},
        {"prediction": "True"},
        {"id": "d", "prediction": "B", "explanation": "Bob is big. Bob is red."},
        {"id": "e"},
        {"id": "f", "prediction": None},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n", encoding="utf-8")
    gold = Benchmark(
        "proofwriter", "g", tuple(Question(i, "proofwriter", "True", "", "") for i in "abcdefg")
    )
    preds = read_predictions(path, benchmark="proofwriter", gold=gold)
    labels = preds.read.labels
    assert labels == {"a": "True", "b": "Unknown", "c": None, "d": "False", "f": None}
    assert list(preds.read.unreadable) == ["c"] and "perhaps" in preds.read.unreadable["c"]
    assert preds.explanations == {"d": ("Bob is big.", "Bob is red.")}
    # no id, no prediction field, not JSON: records that name no question
    assert len(preds.read.skipped) == 3
    counts = preds.read.counts("abcdefg")
    assert counts == {"n": 7, "answered": 3, "abstained": 3, "unreadable": 1}
    with pytest.raises(InputError, match=r"line 3: unknown label 'perhaps'.*--strict"):
        read_predictions(path, benchmark="proofwriter", gold=gold, strict=True)
    _write(path, [{"id": "a", "prediction": "True"}, {"id": "a", "prediction": "False"}])
    with pytest.raises(InputError, match=r'line 2: duplicate id "a" \(first at line 1\)'):
        read_predictions(path, benchmark="proofwriter", gold=gold)


# ---------------------------------------------------------------- shipped files and tables
def test_shipped_predictions_are_what_the_example_systems_produce():
    for rel, text in build_shipped(BENCH).items():
        assert (BENCH / rel).read_text(encoding="utf-8") == text, rel
    assert len(SHIPPED) == 2


def test_score_tables_on_the_shipped_predictions():
    reports = []
    for name, (benchmark, gold, preds) in SHIPPED.items():
        bench = read_benchmark(BENCH / gold, benchmark=benchmark)
        predictions = read_predictions(BENCH / preds, benchmark=benchmark, gold=bench)
        report = score_predictions(bench, predictions)
        reports.append((name, report))
    table = score_nli_table(reports)
    pw, pq = table.iloc[0], table.iloc[1]
    # never saying Unknown caps the closed-world reader at 1 - p_Unknown
    assert pw["accuracy"] == pytest.approx(1 - pw["always_unknown"])
    # the greedy reasoner: every label right, no proof strict (the metric trap)
    assert pq["accuracy"] == 1.0 and pq["proof_accuracy"] == 0.0
    assert (table["accuracy"] > table["majority"]).all()
    depth = score_nli_depth_table(*reports[0])
    assert depth["n"].sum() == pw["n"] and -1 in set(depth["depth"])


def test_agreement_table_and_folio_audit_on_the_vendored_files():
    files = [
        ("proofwriter", BENCH / "proofwriter" / "dev-sample.json"),
        ("prontoqa", BENCH / "prontoqa" / "dev-sample.json"),
    ]
    table = agreement_table(files, names=["pw", "pq"])
    assert list(table.columns) == list(AGREEMENT_COLUMNS)
    assert (table["agreement"] == 1.0).all() and (table["parse_rate"] == 1.0).all()
    bench = read_benchmark(BENCH / "folio" / "folio-validation.jsonl", benchmark="folio")
    labelings = label_benchmark(bench)
    audit = folio_audit_table(bench, labelings)
    assert (audit["status"] == "disagrees").sum() == 8
    assert (audit["status"] == "not parsed").sum() == 5
    row = audit[audit["status"] == "disagrees"].iloc[0]
    assert row["gold"] != row["derived"] and row["conclusion_fol"] and row["premises_fol"]


def test_proof_accuracy_on_proofwriter_explanations():
    context = (
        "Bob is big. If someone is big then they are kind. If someone is kind then they are red."
    )
    prefix = "Based on the above information, is the following statement true, false, or unknown? "
    q = prefix + "Bob is red."
    bench = Benchmark(
        "proofwriter",
        "g",
        (
            Question("a", "proofwriter", "True", context, q),
            Question("b", "proofwriter", "True", context, q),
        ),
    )
    preds = _predictions(
        {"a": "True", "b": "True"},
        {"a": ("Bob is big.", "Bob is kind.", "Bob is red."), "b": ("Bob is red.",)},
    )
    proof = score_predictions(bench, preds)["proof"]
    assert (proof["n"], proof["proof_accuracy"], proof["right_for_wrong_reason"]) == (2, 0.5, 0.5)


@pytest.mark.parametrize(
    "benchmark, preds, gold, keys",
    [
        (
            "proofwriter",
            "predictions/proofwriter-closed-world.jsonl",
            "proofwriter/dev-sample.json",
            {"per_depth", "mixture", "reference"},
        ),
        (
            "prontoqa",
            "predictions/prontoqa-greedy.jsonl",
            "prontoqa/dev-sample.json",
            {"per_depth", "proof"},
        ),
        (
            "logicbench",
            None,
            "logicbench/BQA",
            {"per_axiom", "per_logic", "yes_accuracy", "no_accuracy", "pair_consistency"},
        ),
    ],
)
def test_score_nli_json_keys(tmp_path, capsys, benchmark, preds, gold, keys):
    from nesybench.cli import main

    if preds is None:
        bench = read_benchmark(BENCH / gold, benchmark=benchmark)
        path = tmp_path / "p.jsonl"
        path.write_text(
            "".join(json.dumps({"id": q.id, "prediction": "no"}) + "\n" for q in bench.questions),
            encoding="utf-8",
        )
    else:
        path = BENCH / preds
    argv = ["score-nli", str(path), "--benchmark", benchmark, "--gold", str(BENCH / gold), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    common = {
        "n",
        "coverage",
        "accuracy",
        "accuracy_lo",
        "accuracy_hi",
        "per_label",
        "confusion",
        "macro_f1",
        "baselines",
    }
    assert common | keys <= set(report)


def test_label_json_records(capsys):
    from nesybench.cli import main

    argv = [
        "label",
        str(BENCH / "proofwriter" / "dev-sample.json"),
        "--format",
        "proofwriter",
        "--json",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n"], out["parsed"], out["agreement"]) == (120, 120, 1.0)
    assert {"id", "gold", "derived", "depth", "proof"} <= set(out["records"][0])
