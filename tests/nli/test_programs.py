"""The logic-program executor: both semantics on hand-made programs, the reader, the audit."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesybench.errors import InputError
from nesybench.nli.logiclm_folio import fol_accepts, fol_tokens
from nesybench.nli.program_tables import (
    cause_table,
    depth_table,
    disagreement_table,
    program_table,
    run_programs,
)
from nesybench.nli.programs import (
    ProgramError,
    execute_program,
    parse_rule_program,
    read_programs,
)
from nesybench.nli.translation_audit import attribute_cause, audit_record

EXTERNAL = Path(__file__).resolve().parents[3] / "shared" / "external" / "logiclm-programs"
OPTS3 = ["A) True", "B) False", "C) Unknown"]


def prog(facts, rules, query):
    return "Predicates:\nP($x, bool)\nFacts:\n{}\nRules:\n{}\nQuery:\n{}".format(
        "\n".join(facts), "\n".join(rules), query
    )


def run(text, dataset="proofwriter", semantics="standard"):
    return execute_program(text, dataset=dataset, semantics=semantics)[0]


BASE = prog(
    ["Cold(Bob, True) ::: Bob is cold.", "Chases(Bob, Ann, True)"],
    ["Cold($x, True) >>> Blue($x, False)", "Chases($x, $y, True) >>> Likes($y, $x, True)"],
    "Blue(Bob, False)",
)


# ---------------------------------------------------------------- standard semantics
def test_execute_program_standard_three_labels():
    assert run(BASE) == "True"
    assert run(BASE.replace("Query:\nBlue(Bob, False)", "Query:\nBlue(Bob, True)")) == "False"
    assert run(BASE.replace("Query:\nBlue(Bob, False)", "Query:\nBlue(Ann, True)")) == "Unknown"


def test_execute_program_standard_reads_relations():
    text = BASE.replace("Query:\nBlue(Bob, False)", "Query:\nLikes(Ann, Bob, True)")
    assert run(text) == "True"
    assert run(text, semantics="logic-lm") == "Unknown"  # Logic-LM reads two arguments only


def test_execute_program_standard_inconsistent_and_binary():
    text = prog(
        ["A(Bob, True)", "B(Bob, True)"],
        ["A($x, True) >>> C($x, True)", "B($x, True) >>> C($x, False)"],
        "C(Bob, True)",
    )
    assert execute_program(text, dataset="proofwriter")[2] == "Inconsistent"
    unknown = prog(["A(Bob, True)"], ["A($x, True) >>> C($x, True)"], "D(Bob, True)")
    assert run(unknown, dataset="prontoqa") == "False"
    assert run(unknown, dataset="proofwriter") == "Unknown"


def test_execute_program_standard_universal_fact_over_constants():
    text = prog(
        ["Wumpus($x, True)", "A(Max, True)"], ["Wumpus($x, True) >>> B($x, True)"], "B(Max, True)"
    )
    assert run(text) == "True"


@pytest.mark.parametrize(
    "text,why",
    [
        ("Facts:\nA(Bob)\nQuery:\nA(Bob, True)", "truth value"),
        (
            "Facts:\nA(Bob, True)\nRules:\nA($x, True) >>> B($y, True)\nQuery:\nA(Bob, True)",
            "not in the body",
        ),
        ("Facts:\nA(Bob, True)", "no 'Query:'"),
        ("Facts:\nA(Bob, True)\nQuery:\nA(Bob, True)\nA(Ann, True)", "one query"),
        ("junk\nFacts:\nA(Bob, True)\nQuery:\nA(Bob, True)", "before the first section"),
        ("Facts:\nA(B(c), True)\nQuery:\nA(Bob, True)", "nested"),
        ("Facts:\nA(Bob, True) >>> >>> B(Bob, True)\nQuery:\nA(Bob, True)", "body >>> head"),
    ],
)
def test_execute_program_standard_not_executable(text, why):
    predicted, reason, _ = execute_program(text, dataset="proofwriter")
    assert predicted is None and why in reason


def test_parse_rule_program_reads_conjunctions():
    p = parse_rule_program(
        prog(
            ["A(Bob, True)"],
            ["A($x, True) && B($x, False) >>> C($x, True) && D($x, False)"],
            "C(Bob, True)",
        )
    )
    assert len(p.rules[0].body) == 2 and len(p.rules[0].head) == 2


# ---------------------------------------------------------------- logic-lm semantics
def test_logiclm_empty_facts_loses_rules():
    text = prog([], ["A($x, True) >>> C($x, True)"], "C(Bob, True)")
    predicted, reason, _ = execute_program(text, dataset="proofwriter", semantics="logic-lm")
    assert predicted is None and "empty rule file" in reason


def test_logiclm_rules_in_facts_are_moved_and_dollar_x_facts_dropped():
    text = prog(["A(Bob, True)", "Z($x, True)", "A($x, True) >>> C($x, True)"], [], "C(Bob, True)")
    assert run(text, semantics="logic-lm") == "True"
    assert (
        run(text.replace("Query:\nC(Bob, True)", "Query:\nZ(Bob, True)"), semantics="logic-lm")
        == "Unknown"
    )


def test_logiclm_inconsistency_answers_false():
    text = prog(["A(Bob, True)", "A(Bob, False)"], ["A($x, True) >>> C($x, True)"], "A(Bob, True)")
    assert run(text, semantics="logic-lm") == "False"


def test_logiclm_blank_rule_line_is_parsing_error():
    text = prog(
        ["A(Bob, True)"],
        ["A($x, True) >>> C($x, True)", "", "C($x, True) >>> D($x, True)"],
        "D(Bob, True)",
    )
    predicted, reason, _ = execute_program(text, dataset="proofwriter", semantics="logic-lm")
    assert predicted is None and reason.startswith("parsing error")
    assert run(text) == "True"  # the standard reading skips blank lines


def test_logiclm_values_compare_as_python_values():
    lower = prog(["A(Bob, true)"], ["A($x, True) >>> C($x, True)"], "A(Bob, True)")
    assert run(lower, semantics="logic-lm") == "False"  # 'true' is a string, not True
    one = prog(["A(Bob, 1)"], ["A($x, True) >>> C($x, True)"], "C(Bob, True)")
    assert run(one, semantics="logic-lm") == "True"  # 1 == True
    quoted = prog(["A('Bob', True)"], ["A($x, True) >>> C($x, True)"], "C(Bob, True)")
    assert run(quoted, semantics="logic-lm") == "True"


@pytest.mark.parametrize("fact", ["A(The bear, True)", "A(Bob-1, True)", "Not(A(Bob, True))"])
def test_logiclm_compile_errors(fact):
    text = prog([fact, "A(Bob, True)"], ["A($x, True) >>> C($x, True)"], "C(Bob, True)")
    predicted, reason, _ = execute_program(text, dataset="proofwriter", semantics="logic-lm")
    assert predicted is None and reason.startswith("execution error")


def test_logiclm_prontoqa_no_result_is_false():
    text = prog(["A(Bob, True)"], ["A($x, True) >>> C($x, True)"], "D(Bob, False)")
    assert run(text, dataset="prontoqa", semantics="logic-lm") == "False"
    assert run(text, dataset="prontoqa") == "False"


# ---------------------------------------------------------------- FOLIO
def folio(premises, conclusion):
    return "Premises:\n" + "\n".join(premises) + "\nConclusion:\n" + conclusion


def test_folio_standard_and_logiclm_agree_on_plain_program():
    text = folio(["∀x (Man(x) → Mortal(x)) ::: all men", "Man(socrates)"], "Mortal(socrates)")
    assert run(text, "folio") == "True"
    assert run(text, "folio", "logic-lm") == "True"


def test_folio_logiclm_groups_connectives_left():
    # A → B ∧ C is read (A → B) ∧ C by Logic-LM's translation: with ¬A it is then false.
    text = folio(["¬A(a)", "A(a) → B(a) ∧ C(a)"], "C(a)")
    assert run(text, "folio") == "Unknown"
    assert run(text, "folio", "logic-lm") == "True"


def test_folio_logiclm_free_x_is_universal():
    text = folio(["Perform(x) → Attend(x)", "Perform(bonnie)"], "Attend(bonnie)")
    assert run(text, "folio") == "Unknown"  # x is a constant in the standard reading
    assert run(text, "folio", "logic-lm") == "True"


def test_folio_logiclm_inconsistent_premises_answer_true():
    text = folio(["P(a)", "¬P(a)"], "Q(b)")
    assert execute_program(text, dataset="folio")[2] == "Inconsistent"
    assert run(text, "folio", "logic-lm") == "True"


@pytest.mark.parametrize(
    "formula",
    ["∀x (P(x) → ∃y Q(x, y))", "P", "a = b", "P(f(a))", "P(a) -> Q(a)"],
)
def test_fol_accepts_rejects_outside_grammar(formula):
    assert not fol_accepts(formula)


def test_fol_tokens_glue_and_capitalise():
    assert fol_tokens("Superhero(captain america)") == ["Superhero", "(", "CaptainAmerica", ")"]
    assert fol_accepts("∀x ∃y (P(x) ∧ ¬Q(x, y))")


def test_folio_logiclm_quantifier_in_parentheses_is_execution_error():
    text = folio(["¬(∀x P(x))"], "P(a)")
    predicted, reason, _ = execute_program(text, dataset="folio", semantics="logic-lm")
    assert predicted is None and reason.startswith("execution error")


# ---------------------------------------------------------------- properties
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parse_rule_program_arbitrary_text_raises_only_user_error(text):
    try:
        parse_rule_program(text)
    except ProgramError as exc:
        assert isinstance(exc, InputError) and isinstance(exc, InputError)


_PIECES = st.sampled_from(
    [
        "Facts:",
        "Rules:",
        "Query:",
        "Premises:",
        "Conclusion:",
        "A($x, True)",
        "B(Bob, False)",
        ">>>",
        "&&",
        "\n",
        "(",
        ")",
        ",",
        "∀x",
        "¬",
        "→",
        "∧",
        "$x",
        "True",
        ":::",
        " ",
        "Bob",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=40),
    st.sampled_from(["proofwriter", "prontoqa", "folio"]),
    st.sampled_from(["standard", "logic-lm"]),
)
def test_execute_program_arbitrary_text_never_raises(pieces, dataset, semantics):
    predicted, reason, _ = execute_program(
        "".join(pieces), dataset=dataset, semantics=semantics, time_limit=2.0
    )
    assert (predicted is None) == bool(reason)


def test_execute_program_bad_options_raise_input_error():
    with pytest.raises(InputError, match="semantics"):
        execute_program("x", dataset="proofwriter", semantics="pyke")
    with pytest.raises(InputError, match="dataset"):
        execute_program("x", dataset="clutrr")


# ---------------------------------------------------------------- reading files
def record(i, program, answer="A", **extra):
    return {
        "id": f"ProofWriter_{i}",
        "context": "Bob is cold.",
        "options": OPTS3,
        "question": "Based on the above information, is the following statement true, "
        "false, or unknown? Bob is cold.",
        "answer": answer,
        "raw_logic_programs": [program],
        **extra,
    }


GOOD = prog(["Cold(Bob, True)"], ["Cold($x, True) >>> Blue($x, True)"], "Cold(Bob, True)")


def test_read_programs_bad_records_counted(tmp_path):
    recs = [record(0, GOOD), record(1, ""), {"id": "x", "answer": "A"}, {"id": "y"}, 7]
    f = tmp_path / "p.json"
    f.write_text(json.dumps(recs))
    pf = read_programs(f)
    assert [r.id for r in pf.records] == ["ProofWriter_0", "ProofWriter_1", "x"]
    assert pf.records[1].problem == "empty program"
    assert "raw_logic_programs" in pf.records[2].problem
    assert len(pf.skipped) == 2
    run_ = run_programs(f)
    assert run_.summary["n"] == 3 and run_.summary["executable"] == 1
    assert run_.summary["causes"]["not executable"] == 2


@pytest.mark.parametrize(
    "text,err",
    [
        ("{}", "no record has .raw_logic_programs"),
        ('"x"', "JSON list"),
        ("[1, 2]", "no record"),
        ("", "empty"),
    ],
)
def test_read_programs_unusable_file(tmp_path, text, err):
    f = tmp_path / "p.json"
    f.write_text(text)
    with pytest.raises(InputError, match=err):
        read_programs(f)


# ---------------------------------------------------------------- the audit
def audited(program, question="Bob is blue.", answer="A"):
    rec = record(0, program, answer)
    rec["context"] = "Bob is cold. If something is cold then it is blue."
    rec["question"] = rec["question"].rsplit("?", 1)[0] + "? " + question
    from nesybench.nli.programs import _read_record

    return _read_record(rec, 0, "proofwriter")


def test_audit_record_perfect_translation():
    r = audited(prog(["Cold(Bob, True)"], ["Cold($x, True) >>> Blue($x, True)"], "Blue(Bob, True)"))
    a = audit_record(r)
    assert a.audited and a.facts_match and a.rules_match and a.query_matches


def test_audit_record_causes():
    flipped = audited(
        prog(["Cold(Bob, True)"], ["Cold($x, True) >>> Blue($x, True)"], "Blue(Bob, False)")
    )
    assert (
        attribute_cause(executable=True, correct=False, audit=audit_record(flipped))
        == "flipped polarity"
    )
    missing = audited(
        prog(["Red(Bob, True)"], ["Cold($x, True) >>> Blue($x, True)"], "Blue(Bob, True)")
    )
    a = audit_record(missing)
    assert a.fact_precision == 0.0 and a.fact_recall == 0.0
    assert attribute_cause(executable=True, correct=False, audit=a) == "missing or extra fact"
    rule = audited(
        prog(["Cold(Bob, True)"], ["Blue($x, True) >>> Cold($x, True)"], "Blue(Bob, True)")
    )
    assert (
        attribute_cause(executable=True, correct=False, audit=audit_record(rule))
        == "wrong or missing rule"
    )
    assert attribute_cause(executable=False, correct=False, audit=None) == "not executable"
    assert attribute_cause(executable=True, correct=True, audit=None) is None


def test_audit_record_split_spelling_is_a_rule_error():
    r = audited(
        prog(["Cold(Bob, True)"], ["Colds($x, True) >>> Blue($x, True)"], "Blue(Bob, True)")
    )
    a = audit_record(r)
    assert a.split_names == ("cold",)
    assert attribute_cause(executable=True, correct=False, audit=a) == "wrong or missing rule"


def test_program_tables_shapes(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps(
            [
                record(0, GOOD),
                record(
                    1,
                    GOOD.replace("Query:\nCold(Bob, True)", "Query:\nLikes(Bob, Ann, True)"),
                    answer="C",
                ),
                record(2, ""),
            ]
        )
    )
    std, llm = run_programs(f), run_programs(f, semantics="logic-lm")
    table = program_table([std, llm])
    assert list(table["semantics"]) == ["standard", "logic-lm"]
    assert table["n"].tolist() == [3, 3]
    causes = cause_table([std, llm])
    assert set(causes["cause"]) >= {"not executable", "none found"}
    assert disagreement_table(std, llm).empty  # both answer Unknown on the relation query
    assert set(depth_table([std])["file"]) == {"p.json"}


# ---------------------------------------------------------------- the shipped programs
@pytest.mark.skipif(not EXTERNAL.exists(), reason="../shared/external is absent")
def test_run_programs_logiclm_figures_on_prontoqa():
    """Pinned against Logic-LM's own Pyke solver run (compiled afresh per program): every
    one of the 500 answers agrees; 455 executable, 272 correct."""
    r = run_programs(EXTERNAL / "ProntoQA_dev_gpt-3.5-turbo.json", semantics="logic-lm")
    assert (r.summary["n"], r.summary["executable"], r.summary["correct"]) == (500, 455, 272)


@pytest.mark.skipif(not EXTERNAL.exists(), reason="../shared/external is absent")
def test_run_programs_logiclm_figures_on_proofwriter():
    """Pinned against Logic-LM's own Pyke solver (fresh compile per program): all 600 answers
    agree; 336 executable, 228 correct."""
    r = run_programs(EXTERNAL / "ProofWriter_dev_gpt-3.5-turbo.json", semantics="logic-lm")
    assert (r.summary["n"], r.summary["executable"], r.summary["correct"]) == (600, 336, 228)
