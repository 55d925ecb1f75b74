"""score-nli: metrics against closed forms and scikit-learn, baselines, breakdowns, shipped."""

import json
from pathlib import Path

import pytest
from sklearn.metrics import confusion_matrix as sk_confusion
from sklearn.metrics import f1_score

from nesybench.errors import UserError
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
    Prediction,
    Predictions,
    baselines,
    confusion_matrix,
    macro_f1,
    read_predictions,
    score_predictions,
)

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


def _preds(labels, **expl):
    return Predictions(
        "p.jsonl",
        {f"q{i}": Prediction(f"q{i}", y, expl.get(f"q{i}")) for i, y in enumerate(labels) if y},
    )


def test_accuracy_coverage_interval_and_per_label_on_folio():
    bench = _bench(["True", "True", "False", "Unknown", "Unknown"], "folio")
    report = score_predictions(bench, _preds(["True", "False", "False", "Unknown", None]))
    assert report["n"] == 4 and report["coverage"] == 0.8
    assert report["accuracy"] == 0.75
    assert (report["accuracy_lo"], report["accuracy_hi"]) == wilson_interval(3, 4)
    assert report["per_label"]["True"] == {"n": 2, "accuracy": 0.5}
    assert report["per_label"]["Unknown"] == {"n": 1, "accuracy": 1.0}
    assert report["confusion"]["True"] == {"True": 1, "False": 1, "Unknown": 0}
    # baselines on the same (predicted) gold: True 2, False 1, Unknown 1 of 4
    assert report["baselines"]["majority"]["accuracy"] == 0.5
    assert report["baselines"]["always_unknown"] == 0.25


def test_unknown_prediction_ids_are_an_error_naming_the_first_few():
    bench = _bench(["True"])
    preds = Predictions(
        "p.jsonl", {i: Prediction(i, "True") for i in ["q0", "x1", "x2", "x3", "x4", "x5", "x6"]}
    )
    with pytest.raises(UserError, match=r"6 prediction id\(s\) not in .*'x1'.*and 1 more"):
        score_predictions(bench, preds)


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
    preds = Predictions(
        "p", {q: Prediction(q, y) for q, y in zip("abcd", ["True", "True", "False", "False"])}
    )
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
    }  # 1/3 unanswered
    report = score_predictions(
        bench, Predictions("p", {i: Prediction(i, y) for i, y in answers.items()})
    )
    assert report["yes_accuracy"] == pytest.approx(2 / 3) and report["no_accuracy"] == 1.0
    assert report["per_axiom"]["pl/mt"]["accuracy"] == 0.75
    assert report["per_logic"]["fol"]["n"] == 3
    # complete samples: pl/mt/1 (all right), pl/mt/2 (one wrong); fol/mp/1 is incomplete
    assert report["pair_consistency"] == 0.5 and report["n_samples"] == 2
    assert report["baselines"]["majority"] == {"label": "no", "accuracy": 4 / 7}


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
    preds = Predictions(
        "p",
        {
            "a": Prediction("a", "True", ("Sam is a rompus.", "Sam is a zumpus.")),
            "b": Prediction("b", "True", ("Sam is a zumpus.",)),  # skips a step: not valid
            "c": Prediction("c", "False"),  # no explanation: not counted in the proof block
        },
    )
    proof = score_predictions(bench, preds)["proof"]
    assert proof["n"] == 2 and proof["label_accuracy"] == 1.0 and proof["proof_accuracy"] == 0.5
    assert proof["right_for_wrong_reason"] == 0.5


def test_read_predictions_skips_bad_records_and_refuses_duplicates(tmp_path):
    lines = [
        {"id": "a", "prediction": "true"},
        {"id": "b", "prediction": "C"},
        {"id": "c", "prediction": "perhaps"},
        {"prediction": "True"},
        {"id": "d", "prediction": "B", "explanation": "Bob is big. Bob is red."},
        {"id": "e"},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n", encoding="utf-8")
    preds = read_predictions(path, benchmark="proofwriter")
    assert {k: v.label for k, v in preds.by_id.items()} == {
        "a": "True",
        "b": "Unknown",
        "d": "False",
    }
    assert preds.by_id["d"].explanation == ("Bob is big.", "Bob is red.")
    assert len(preds.skipped) == 4
    path.write_text(
        json.dumps({"id": "a", "prediction": "True"}) * 1
        + "\n"
        + json.dumps({"id": "a", "prediction": "False"})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError, match="duplicate prediction id 'a'"):
        read_predictions(path, benchmark="proofwriter")


# ---------------------------------------------------------------- shipped files and tables
def test_shipped_predictions_are_what_the_example_systems_produce():
    for rel, text in build_shipped(BENCH).items():
        assert (BENCH / rel).read_text(encoding="utf-8") == text, rel
    assert len(SHIPPED) == 2


def test_score_tables_on_the_shipped_predictions():
    reports = []
    for name, (benchmark, gold, preds) in SHIPPED.items():
        bench = read_benchmark(BENCH / gold, benchmark=benchmark)
        report = score_predictions(bench, read_predictions(BENCH / preds, benchmark=benchmark))
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
    preds = Predictions(
        "p",
        {
            "a": Prediction("a", "True", ("Bob is big.", "Bob is kind.", "Bob is red.")),
            "b": Prediction("b", "True", ("Bob is red.",)),
        },
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
