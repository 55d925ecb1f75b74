"""The step checker: the four flags, on generated chains and the published PrOntoQA traces."""

from __future__ import annotations

import pytest

from nesybench.nli.checker import check_trace
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence

CONTEXT = (
    "Every wumpus is a rompus. Every wumpus is a yumpus. Every rompus is a brimpus. "
    "Every rompus is a zumpus. Every zumpus is a jompus. Every zumpus is an impus. Sam is a wumpus."
)
THEORY = parse_context(CONTEXT)
Q_NEG = parse_sentence("True or false: Sam is not a jompus.").atom
Q_POS = parse_sentence("True or false: Sam is a jompus.").atom
GOLD = ["Sam is a rompus.", "Sam is a zumpus.", "Sam is a jompus."]


def flags(trace, question=Q_NEG):
    v = check_trace(trace, THEORY, question)
    return (v.parsed, v.valid, v.linear, v.connects, v.strict), v


def test_check_trace_gold_chain_is_strict_and_decides_label():
    (p, va, li, co, st), v = flags(GOLD)
    assert (p, va, li, co, st) == (True, True, True, True, True)
    assert v.label == "False" and v.reason == ""
    assert flags(GOLD, Q_POS)[1].label == "True"


def test_check_trace_greedy_interleaving_is_valid_but_not_linear():
    greedy = [
        "Sam is a rompus.",
        "Sam is a yumpus.",
        "Sam is a brimpus.",
        "Sam is a zumpus.",
        "Sam is a jompus.",
    ]
    f, v = flags(greedy)
    assert f == (True, True, False, True, False)
    assert "line 2" in v.reason


def test_check_trace_skipping_a_step_is_invalid():
    f, _ = flags(["Sam is a rompus.", "Sam is a jompus."])
    assert f[1] is False and f[2] is False and f[4] is False


def test_check_trace_dropping_last_step_fails_connects_only():
    f, v = flags(GOLD[:-1])
    assert f == (True, True, True, False, False) and v.label is None


def test_check_trace_unparsed_or_wrong_entity_fails_parsed():
    assert (
        flags(["Sam is a rompus.", "Sam looks like a zumpus.", "Sam is a jompus."])[0][0] is False
    )
    assert flags(["Max is a rompus."])[0][0] is False
    assert flags(["True or false: Sam is a rompus."])[0][0] is False


def test_check_trace_empty_trace_does_not_connect():
    f, v = flags([])
    assert f == (True, True, True, False, False) and v.reason == "empty trace"


def test_check_trace_cited_rules_must_be_axioms_and_used_next():
    ok = [
        "Sam is a wumpus.",
        "Every wumpus is a rompus.",
        "Sam is a rompus.",
        "Every rompus is a zumpus.",
        "Sam is a zumpus.",
        "Every zumpus is a jompus.",
        "Sam is a jompus.",
    ]
    assert flags(ok)[0][4] is True
    not_axiom = ok[:3] + ["Every rompus is a jompus.", "Sam is a jompus."]
    assert flags(not_axiom)[0][1] is False
    wrong_rule = ok[:3] + ["Every rompus is a brimpus.", "Sam is a zumpus."] + ok[5:]
    assert flags(wrong_rule)[0][1] is False
    dangling = ok + ["Every zumpus is an impus."]
    assert flags(dangling)[0][1] is False


def _gold(rec):
    return "True" if rec["answer"] == "A" else "False"


def test_check_trace_published_dev_all_strict_and_labels_right(prontoqa_dev):
    assert len(prontoqa_dev) == 500
    for rec in prontoqa_dev:
        v = check_trace(
            rec["explanation"], parse_context(rec["context"]), parse_sentence(rec["question"]).atom
        )
        assert v.strict, (rec["id"], v.reason)
        assert v.label == _gold(rec), rec["id"]


def _derived_fact_positions(explanation):
    # PrOntoQA style: axiom, then (rule, derived fact) pairs
    return list(range(2, len(explanation), 2))


@pytest.mark.parametrize(
    "corruption, failing_flag", [("swap", "valid"), ("insert", "valid"), ("drop_last", "connects")]
)
def test_check_trace_published_dev_corruptions_fail_the_right_flag(
    prontoqa_dev, corruption, failing_flag
):
    for rec in prontoqa_dev:
        exp = list(rec["explanation"])
        theory = parse_context(rec["context"])
        question = parse_sentence(rec["question"]).atom
        pos = _derived_fact_positions(exp)
        if corruption == "swap":
            i, j = pos[0], pos[1]
            exp[i], exp[j] = exp[j], exp[i]
        elif corruption == "insert":
            name = exp[0].split()[0]
            # "gorpus" occurs in no dev context, so no rule can derive it
            exp.insert(pos[1], f"{name} is a gorpus.")
        else:
            exp = exp[:-2]
        v = check_trace(exp, theory, question)
        assert not v.strict, (rec["id"], corruption)
        assert getattr(v, failing_flag) is False, (rec["id"], corruption, v)
        if corruption == "drop_last":
            assert v.parsed and v.valid and v.linear


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LINES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        GOLD + ["Sam is a yumpus.", "Every rompus is a zumpus.", "Sam is not a jompus."]
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, max_size=7))
def test_check_trace_never_raises_and_strict_decides_label(trace):
    v = check_trace(trace, THEORY, Q_NEG)
    assert v.strict == (v.parsed and v.valid and v.linear and v.connects)
    assert not v.valid or v.parsed
    if v.strict:
        assert v.label in ("True", "False")
    assert v.strict or v.reason


@settings(max_examples=100, deadline=None)
@given(st.permutations(GOLD))
def test_check_trace_only_the_proof_order_is_strict(perm):
    assert check_trace(list(perm), THEORY, Q_NEG).strict == (list(perm) == GOLD)


# ---------------------------------------------------------------- the ProofWriter reading
PW_CONTEXT = (
    "The cat chases the dog. The dog is not red. Bob is big. "
    "If something chases the dog and the dog is not red then the dog visits it. "
    "If the dog visits something then it is kind. Big people are not young."
)


def _pw_check(lines, statement):
    theory = parse_context(PW_CONTEXT, dialect="proofwriter")
    atom = parse_sentence(statement, dialect="proofwriter").atom
    return check_trace(lines, theory, atom, dialect="proofwriter")


def test_proofwriter_trace_with_relations_and_negated_conditions_is_strict():
    v = _pw_check(
        ["The cat chases the dog.", "The dog visits the cat.", "The cat is kind."],
        "The cat is kind.",
    )
    assert v.strict and v.label == "True"
    cited = _pw_check(
        [
            "The dog visits the cat.",
            "If the dog visits something then it is kind.",
            "The cat is kind.",
        ],
        "The cat is not kind.",
    )
    assert cited.strict and cited.label == "False"


def test_proofwriter_trace_flags():
    skip = _pw_check(["The cat is kind."], "The cat is kind.")
    assert not skip.valid and skip.connects and "does not follow" in skip.reason
    jump = _pw_check(
        ["The dog visits the cat.", "Bob is big.", "The cat is kind."], "The cat is kind."
    )
    assert jump.valid and not jump.linear
    wrong_rule = _pw_check(
        ["If something is big then it is kind.", "The cat is kind."], "The cat is kind."
    )
    assert not wrong_rule.valid and "not in the context" in wrong_rule.reason
    unparsed = _pw_check(["The cat, well, is kind."], "The cat is kind.")
    assert not unparsed.parsed
    short = _pw_check(["The dog visits the cat."], "The cat is kind.")
    assert short.valid and not short.connects and short.label is None


def test_unknown_dialect_is_refused():
    with pytest.raises(ValueError, match="dialect"):
        check_trace([], None, None, dialect="klingon")
