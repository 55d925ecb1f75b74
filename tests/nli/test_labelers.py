"""Reference labelers on hand-made questions, the vendored files, and ../shared's full files."""

import json
from pathlib import Path

import pytest

from nesybench.errors import InputError
from nesybench.nli.labelers import (
    label_benchmark,
    label_questions,
    labeler_for,
    summarize_labelings,
)
from nesybench.nli.readers import Question, read_benchmark

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
EXTERNAL = ROOT.parent / "shared" / "external"

THEORY = (
    "The bald eagle chases the cat. The cat does not like the dog. Bob is big. "
    "If something chases the cat then the cat visits it. "
    "If the cat visits something and it is not red then it is kind. "
    "The bald eagle is not red. Big people are not young. "
    "If someone is young and not big then they are smart."
)
PREFIX = "Based on the above information, is the following statement true, false, or unknown? "


def pw(statement, gold, context=THEORY, qid="q"):
    return Question(qid, "proofwriter", gold, context, PREFIX + statement)


@pytest.mark.parametrize(
    "statement, gold, depth",
    [
        ("The cat visits the bald eagle.", "True", 1),
        ("The bald eagle is kind.", "True", 2),
        ("The bald eagle is not kind.", "False", 2),
        ("The cat likes the dog.", "False", 0),
        ("Bob is young.", "False", 1),
        ("Bob is smart.", "Unknown", None),
        ("The dog is red.", "Unknown", None),
    ],
)
def test_proofwriter_labels_depths_and_proofs(statement, gold, depth):
    [lab] = label_questions([pw(statement, gold)], "proofwriter")
    assert lab.parsed and lab.derived == gold and lab.agrees and lab.depth == depth
    if depth is not None:
        assert len(lab.proof) >= depth + 1  # at least one step per rule application, plus a fact
        assert "[by: If" in lab.proof[-1] or depth == 0


def test_a_sentence_outside_the_grammar_is_a_quoted_parse_failure_not_a_guess():
    [lab] = label_questions(
        [pw("The cat is big.", "Unknown", context=THEORY + " The moon smiles at night!")],
        "proofwriter",
    )
    assert not lab.parsed and lab.derived is None and not lab.agrees
    assert "'The moon smiles at night!'" in lab.reason


def test_an_unparsable_question_is_counted():
    lab = labeler_for("proofwriter")(Question("q", "proofwriter", "True", THEORY, "Is it?"))
    assert not lab.parsed and "question does not parse" in lab.reason


def test_inconsistent_theory_is_its_own_outcome():
    q = pw("The cat is red.", "True", context="The cat is red. The cat is not red.")
    [lab] = label_questions([q], "proofwriter")
    assert lab.derived == "Inconsistent" and "both" in lab.reason


def test_prontoqa_question():
    q = Question(
        "p",
        "prontoqa",
        "False",
        "Every wumpus is a rompus. Rompuses are not sour. Sam is a wumpus.",
        "Is the following statement true or false? Sam is sour.",
    )
    [lab] = label_questions([q], "prontoqa")
    assert lab.derived == "False" and lab.depth == 2
    assert lab.proof[0] == "Sam is a wumpus."


def folio(premises, conclusion, gold, qid="f"):
    return Question(
        qid, "folio", gold, "", "", premises_fol=tuple(premises), conclusion_fol=conclusion
    )


def test_folio_dual_query_and_its_own_outcomes():
    qs = [
        folio(["∀x (Drinks(x) → Dependent(x))", "Drinks(rina)"], "Dependent(rina)", "True", "a"),
        folio(["∀x (Jokes(x) → ¬Unaware(x))", "Jokes(rina)"], "Unaware(rina)", "False", "b"),
        folio(["∀x (P(x) ∨ Q(x))"], "P(c)", "Unknown", "c"),
        folio(["P(a)", "¬P(a)"], "Q(a)", "True", "d"),
        folio(["P(a))"], "Q(a)", "True", "e"),
        Question("g", "folio", "True", "", "", premises_fol=("P(a)",), conclusion_fol=None),
    ]
    a, b, c, d, e, g = label_questions(qs, "folio", time_limit=5)
    assert (a.derived, b.derived, c.derived) == ("True", "False", "Unknown")
    assert d.derived == "Inconsistent" and not d.agrees
    assert e.derived is None and "premise 1 does not parse" in e.reason and "'P(a))'" in e.reason
    assert g.derived is None and g.reason == "no conclusion-FOL annotation"
    s = summarize_labelings([a, b, c, d, e, g])
    assert (s["n"], s["parsed"], s["n_agree"]) == (6, 4, 3)
    assert s["agreement"] == 0.75 and s["outcomes"]["Inconsistent"] == 1


def test_logicbench_has_no_reference_labeler():
    with pytest.raises(InputError, match="reference labeler"):
        labeler_for("logicbench")


# ---------------------------------------------------------------- the vendored files
def test_vendored_proofwriter_and_prontoqa_agree_on_every_question():
    for name, rel in (
        ("proofwriter", "proofwriter/dev-sample.json"),
        ("prontoqa", "prontoqa/dev-sample.json"),
    ):
        s = summarize_labelings(label_benchmark(read_benchmark(BENCH / rel, benchmark=name)))
        assert s["parsed"] == s["n"] == s["n_agree"], (name, s)


def test_vendored_folio_parse_rate_and_agreement():
    bench = read_benchmark(BENCH / "folio" / "folio-validation.jsonl", benchmark="folio")
    s = summarize_labelings(label_benchmark(bench, time_limit=10))
    # the figures reported in the closing note: 199 of 204 parse, 191 of those agree
    assert (s["n"], s["parsed"], s["n_agree"]) == (204, 199, 191)
    assert s["outcomes"]["Undecided"] == 0


# ---------------------------------------------------------------- ../shared/external
def _external(rel):
    path = EXTERNAL / rel
    if not path.exists():
        pytest.skip(f"../shared/external/{rel} not present")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("split, n", [("train", 3000), ("dev", 600)])
def test_proofwriter_agreement_is_total_on_the_given_files(split, n):
    bench = read_benchmark(_external(f"proofwriter/{split}.json"), benchmark="proofwriter")
    labelings = label_benchmark(bench)
    bad = [(x.id, x.gold, x.derived, x.reason) for x in labelings if not x.agrees]
    assert len(labelings) == n and not bad


def test_proofwriter_dev_agreement_is_total():
    bench = read_benchmark(_external("proofwriter/dev.json"), benchmark="proofwriter")
    assert all(x.agrees for x in label_benchmark(bench))


def test_prontoqa_dev_agreement_is_total():
    bench = read_benchmark(_external("prontoqa-dev.json"), benchmark="prontoqa")
    labelings = label_benchmark(bench)
    assert len(labelings) == 500 and all(x.agrees for x in labelings)


def test_folio_train_has_no_conclusion_annotations_and_is_never_guessed():
    bench = read_benchmark(_external("folio/folio-train.jsonl"), benchmark="folio")
    labelings = label_benchmark(bench)
    assert len(labelings) == 1004 and not any(x.parsed for x in labelings)
    assert {x.reason for x in labelings} == {"no conclusion-FOL annotation"}


def test_every_logicbench_file_reads():
    bench = read_benchmark(_external("logicbench"), benchmark="logicbench")
    assert len(bench) == 1520 and not bench.skipped
    counts = {y: sum(q.gold == y for q in bench.questions) for y in ("yes", "no")}
    assert counts == {"yes": 520, "no": 1000}
    assert len({(q.logic, q.axiom) for q in bench.questions}) == 25


def test_logiclm_files_read_as_their_benchmarks():
    for name, bench_name in (("ProofWriter", "proofwriter"), ("ProntoQA", "prontoqa")):
        path = _external(f"logiclm-programs/{name}_dev_gpt-3.5-turbo.json")
        bench = read_benchmark(path, benchmark=bench_name)
        assert len(bench) == len(json.loads(path.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- property: never a crash
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TOKENS = st.sampled_from(
    ["∀x", "∃y", "(", ")", "P(x)", "Q(a, y)", "R", "¬", "∧", "∨", "→", "↔", "⊕", ",", "x", "=", "a"]
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(TOKENS, max_size=10).map(" ".join), max_size=3),
    st.lists(TOKENS, max_size=10).map(" ".join),
    st.text(max_size=60),
    st.text(max_size=60),
)
def test_labelers_never_crash_on_arbitrary_questions(premises, conclusion, context, question):
    lab = labeler_for("folio", time_limit=2)(folio(premises, conclusion, "True"))
    assert lab.derived in (None, "True", "False", "Unknown", "Inconsistent", "Undecided")
    for name in ("proofwriter", "prontoqa"):
        lab = labeler_for(name)(Question("q", name, "True", context, question))
        assert lab.derived is None or lab.derived in ("True", "False", "Unknown", "Inconsistent")
