"""Hostile inputs to the nli commands (check-trace, label, score-nli): see tests/cli_cases.py.

Bad files stop with one ``error:`` line and exit 2; a bad record inside a good
file is a counted, reported skip (exit 0).
"""

import json
import resource

from tests.cli_cases import Case, out_rule_cases, parametrize, run_case

PREFIX = "Based on the above information, is the following statement true, false, or unknown? "
CONTEXT = "The cat chases the dog. If something chases the dog then it is red."
OPTIONS = ["A) True", "B) False", "C) Unknown"]


def pw(i, answer="A", statement="The cat is red."):
    return {
        "id": f"q{i}",
        "context": CONTEXT,
        "question": PREFIX + statement,
        "options": OPTIONS,
        "answer": answer,
    }


GOLD = json.dumps([pw(0), pw(1, "C", "The dog is red."), pw(2, "B", "The cat is not red.")])
PREDS = "".join(
    json.dumps({"id": f"q{i}", "prediction": y}) + "\n"
    for i, y in enumerate(["True", "Unknown", "True"])
)
FOLIO = "\n".join(
    json.dumps(x)
    for x in [
        {
            "example_id": 1,
            "premises": ["p"],
            "premises-FOL": ["∀x (P(x) → Q(x))", "P(a)"],
            "conclusion": "c",
            "conclusion-FOL": "Q(a)",
            "label": "True",
        },
        {
            "example_id": 2,
            "premises": ["p"],
            "premises-FOL": ["P(a))"],
            "conclusion": "c",
            "conclusion-FOL": "Q(a)",
            "label": "True",
        },
    ]
)
TRACE = {
    "context": "Every wumpus is a rompus. Sam is a wumpus.",
    "question": "True or false: Sam is a rompus.",
    "chain_of_thought": ["Sam is a rompus."],
    "answer": "True",
}
BQA = json.dumps(
    {
        "type": "propositional_logic",
        "axiom": "modus_tollens",
        "samples": [
            {
                "id": 1,
                "context": "c",
                "qa_pairs": [{"question": "q", "answer": "yes"}, {"question": "q", "answer": "no"}],
            }
        ],
    }
)
DEEP = "[" * 50_000 + "]" * 50_000
BIG_GOLD = json.dumps(
    [
        pw(i, "ABC"[i % 3], ["The cat is red.", "The dog is red.", "The cat is not red."][i % 3])
        for i in range(50_000)
    ]
)
BIG_PREDS = "".join(json.dumps({"id": f"q{i}", "prediction": "True"}) + "\n" for i in range(50_000))


def _label(name, content, *extra, exit=2, err=None, stdout=None, fmt="proofwriter", files=None):
    files = {"in.json": content, **(files or {})} if content is not None else dict(files or {})
    return Case(
        f"label-{name}",
        ["label", "in.json", "--format", fmt, *extra],
        exit=exit,
        err=err,
        stdout=stdout,
        files=files,
    )


def _score(
    name,
    preds,
    gold=GOLD,
    *extra,
    exit=2,
    err=None,
    stdout=None,
    bench="proofwriter",
    gold_name="gold.json",
    files=None,
):
    f = dict(files or {})
    if preds is not None:
        f["p.jsonl"] = preds
    if gold is not None:
        f[gold_name] = gold
    return Case(
        f"score-{name}",
        ["score-nli", "p.jsonl", "--benchmark", bench, "--gold", gold_name, *extra],
        exit=exit,
        err=err,
        stdout=stdout,
        files=f,
    )


CASES = [
    # ------------------------------------------------------------ label: bad files
    Case(
        "label-missing-file",
        ["label", "nope.json", "--format", "proofwriter"],
        err="file not found",
    ),
    Case("label-folder", ["label", ".", "--format", "proofwriter"], err="is a folder"),
    _label("empty", "", err="empty file"),
    _label("blank-lines", "\n\n  \n", err="empty file"),
    _label("truncated-list", GOLD[: len(GOLD) // 2], err="not valid JSON"),
    _label("top-level-int", "42", err="got a JSON int"),
    _label("top-level-string", '"hello"', err="got a JSON str"),
    _label("top-level-null", "null", err="got a JSON null"),
    _label("not-utf8", b"\xff\xfe\xfa\x00", err="UTF-8"),
    _label("not-json", "hello\nworld\n", err="not JSON or JSON Lines"),
    _label("empty-list", "[]", err="no usable proofwriter record"),
    _label("all-records-bad", json.dumps([{"id": 1}, 3, "x"]), err="no usable proofwriter"),
    _label("all-labels-unknown", json.dumps([pw(0, "Z")]), err="unknown label 'Z'"),
    _label("deeply-nested", DEEP, err="nested too deeply"),
    _label("unknown-format", GOLD, exit=2, fmt="logicbench", err="invalid choice"),
    _label("unknown-format-2", GOLD, exit=2, fmt="squad", err="invalid choice"),
    Case("label-no-format", ["label", "in.json"], files={"in.json": GOLD}, err="required"),
    _label("time-limit-zero", GOLD, "--time-limit", "0", err="time-limit"),
    _label("time-limit-negative", GOLD, "--time-limit", "-1", err="time-limit"),
    _label("time-limit-nan", GOLD, "--time-limit", "nan", err="time-limit"),
    _label("time-limit-inf", GOLD, "--time-limit", "inf", err="time-limit"),
    _label("time-limit-huge", GOLD, "--time-limit", "1e9", err="time-limit"),
    _label("time-limit-text", GOLD, "--time-limit", "soon", err="time-limit"),
    _label("out-is-a-folder", GOLD, "--out", ".", err="--out"),
    _label("out-under-a-file", GOLD, "--out", "in.json/v.jsonl", err="--out"),
    _label("out-unwritable", GOLD, "--out", "/proc/nesybench/v.jsonl", err="--out"),
    # ------------------------------------------------------------ label: good files
    _label("good", GOLD, exit=0, stdout=r"agreement with gold: 3/3"),
    _label("good-json", GOLD, "--json", exit=0, stdout=r'"agreement": 1\.0'),
    _label("bom", "\ufeff" + GOLD, exit=0, stdout="3 questions"),
    _label(
        "one-bad-record",
        json.dumps([pw(0), {"id": "x"}, pw(1, "C", "The dog is red.")]),
        exit=0,
        stdout=r"skipped record 1: missing field 'context'",
    ),
    _label("duplicate-id", json.dumps([pw(0), pw(0)]), exit=0, stdout=r"duplicate id 'q0'"),
    _label(
        "jsonl-broken-line", json.dumps(pw(0)) + "\n{oops\n", exit=0, stdout=r"line 2 is not JSON"
    ),
    _label(
        "unparsed-sentence",
        json.dumps([{**pw(0), "context": CONTEXT + " The moon sings!"}]),
        exit=0,
        stdout=r"not parsed: .*'The moon sings!'",
    ),
    _label(
        "disagreement-shows-theory",
        json.dumps([pw(0, "B")]),
        exit=0,
        stdout=r"gold False, derived True .*\n.*theory: The cat chases",
    ),
    _label("folio", FOLIO, exit=0, fmt="folio", stdout=r"1/1 parsed"),
    _label(
        "folio-bad-formula-quoted",
        FOLIO,
        exit=0,
        fmt="folio",
        stdout=r"2: not parsed: premise 1 does not parse .*'P\(a\)\)'",
    ),
    _label(
        "prontoqa",
        json.dumps(
            [
                {
                    **TRACE,
                    "id": "p",
                    "options": ["A) True", "B) False"],
                    "question": "Is the following statement true or false? Sam is a rompus.",
                    "answer": "A",
                }
            ]
        ),
        exit=0,
        fmt="prontoqa",
        stdout=r"1/1 parsed",
    ),
    _label("fifty-thousand", BIG_GOLD, exit=0, stdout=r"50000 questions"),
    # ------------------------------------------------------------ score-nli: bad files
    _score("missing-predictions", None, err="p.jsonl: predictions file not found"),
    _score("missing-gold", PREDS, None, err="gold.json: file not found"),
    _score("gold-is-a-folder", PREDS, None, gold_name=".", err="is a folder"),
    _score("empty-predictions", "", err="empty file"),
    _score("truncated-predictions", "[" + PREDS.replace("\n", ","), err="not valid JSON"),
    _score("predictions-int", "7", err="got a JSON int"),
    _score("predictions-not-json", "a\nb\n", err="not JSON or JSON Lines"),
    _score("predictions-deep", DEEP, err="nested too deeply"),
    _score("predictions-not-utf8", b"\x80\x81", err="UTF-8"),
    # the one policy for unscorable predictions (as axes-score): not correct, counted and
    # quoted, coverage beside every accuracy; --strict refuses them
    _score(
        "all-predictions-unreadable",
        '{"id": "q0", "prediction": "maybe"}\n',
        exit=0,
        stdout=r"(?s)3 gold questions; 0 answered, 2 abstained, 1 unreadable \(coverage 0\.0000\)"
        r"\naccuracy 0\.0000 .*unreadable predictions: 'q0': unknown label 'maybe'",
    ),
    _score(
        "unreadable-strict",
        '{"id": "q0", "prediction": "maybe"}\n',
        GOLD,
        "--strict",
        err=r"p.jsonl: record 0: unknown label 'maybe' .*--strict refuses predictions that are not",
    ),
    _score("predictions-no-id", '{"prediction": "True"}\n', err="missing field 'id'"),
    _score(
        "predictions-no-id-strict",
        PREDS + '{"prediction": "True"}\n',
        GOLD,
        "--strict",
        err=r"line 4: missing field 'id' \(--strict refuses records that name no question\)",
    ),
    _score(
        "prediction-wrong-type-is-unreadable",
        '{"id": "q0", "prediction": 1}\n',
        exit=0,
        stdout=r"'q0': label must be a string, got int 1",
    ),
    _score(
        "unknown-ids",
        PREDS + '{"id": "zz", "prediction": "True"}\n',
        err=r"1 prediction id\(s\) not among the gold questions of gold.json: \"zz\"$",
    ),
    _score(
        "ids-of-skipped-gold-records",
        PREDS + '{"id": "q3", "prediction": "True"}\n',
        json.dumps([*json.loads(GOLD), {"id": "q3", "question": "no context"}]),
        err=r"\"q3\"; 1 of them name gold records that were skipped as unreadable \(first: \"q3\" "
        r"at record 3: missing field 'context'\)",
    ),
    _score(
        "duplicate-ids",
        PREDS + '{"id": "q0", "prediction": "False"}\n',
        err=r'line 4: duplicate id "q0" \(first at line 1\)',
    ),
    _score("gold-empty", PREDS, "", err="gold.json: empty file"),
    _score("gold-truncated", PREDS, GOLD[:40], err="gold.json: not valid JSON"),
    _score("gold-wrong-type", PREDS, "{}", err="no usable proofwriter record"),
    _score("gold-wrong-benchmark", PREDS, bench="squad", err="invalid choice"),
    Case(
        "score-no-gold",
        ["score-nli", "p.jsonl", "--benchmark", "folio"],
        files={"p.jsonl": PREDS},
        err="required",
    ),
    _score("bad-time-limit", PREDS, GOLD, "--time-limit", "-3", err="time-limit"),
    _score(
        "logicbench-missing-folder",
        '{"id": "a", "prediction": "yes"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        err="BQA: not found",
    ),
    _score(
        "logicbench-empty-folder",
        '{"id": "a", "prediction": "yes"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        files={"BQA/readme.txt": "x"},
        err="no <logic>/<axiom>/data_instances.json",
    ),
    _score(
        "logicbench-truncated-file",
        '{"id": "a", "prediction": "yes"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        files={"BQA/pl/mt/data_instances.json": BQA[:30]},
        err="not valid JSON",
    ),
    _score(
        "logicbench-samples-not-list",
        '{"id": "a", "prediction": "yes"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        files={"BQA/pl/mt/data_instances.json": '{"samples": 3}'},
        err="'samples' must be a list",
    ),
    _score(
        "logicbench-true-false",
        '{"id": "pl/mt/1/0", "prediction": "True"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        files={"BQA/pl/mt/data_instances.json": BQA},
        exit=0,
        stdout=r"unreadable predictions: 'pl/mt/1/0': unknown label 'True'",
    ),
    # ------------------------------------------------------------ score-nli: good files
    _score("good", PREDS, exit=0, stdout=r"baselines: majority"),
    _score("good-json", PREDS, GOLD, "--json", exit=0, stdout=r'"accuracy": 0\.6666'),
    _score(
        "letters-and-case",
        '{"id": "q0", "prediction": "a"}\n{"id": "q1", "prediction": "UNKNOWN"}\n',
        exit=0,
        stdout=r"accuracy 0\.6667 .*coverage 0\.6667, on answered 1\.0000",
    ),
    _score(
        "one-bad-prediction",
        "".join(PREDS.splitlines(keepends=True)[:2]) + '{"id": "q2", "prediction": "perhaps"}\n',
        exit=0,
        stdout=r"unreadable predictions: 'q2': unknown label 'perhaps'",
    ),
    _score(
        "first-line-a-json-array",
        "[1, 2]\n" + PREDS,
        exit=0,
        stdout=r"skipped predictions: line 1: record must be a JSON object, got \[1, 2\]",
    ),
    _score("bom-predictions", "\ufeff" + PREDS, exit=0, stdout="coverage 1.0000"),
    _score(
        "partial-coverage",
        PREDS.splitlines()[0] + "\n",
        exit=0,
        stdout=r"3 gold questions; 1 answered, 2 abstained, 0 unreadable \(coverage 0\.3333\)",
    ),
    _score(
        "logicbench",
        '{"id": "pl/mt/1/0", "prediction": "yes"}\n',
        None,
        bench="logicbench",
        gold_name="BQA",
        files={"BQA/pl/mt/data_instances.json": BQA},
        exit=0,
        stdout=r"yes accuracy 1\.0000",
    ),
    _score(
        "folio",
        '{"id": "1", "prediction": "True"}\n',
        FOLIO,
        bench="folio",
        gold_name="f.jsonl",
        exit=0,
        stdout=r"always Unknown 0\.0000",
    ),
    _score(
        "fifty-thousand", BIG_PREDS, BIG_GOLD, exit=0, stdout=r"50,000 gold questions; 50,000 answ"
    ),
    # ------------------------------------------------------------ check-trace
    Case(
        "trace-options-not-a-list",
        ["check-trace", "t.json"],
        files={"t.json": json.dumps([TRACE, {**TRACE, "answer": "A", "options": 5}])},
        exit=0,
        stdout=r"options must be a list",
    ),
    Case(
        "trace-options-list-of-numbers",
        ["check-trace", "t.json"],
        files={"t.json": json.dumps([TRACE, {**TRACE, "answer": "A", "options": [1, 2]}])},
        exit=0,
        stdout=r"neither True/False nor an option letter",
    ),
    Case(
        "trace-deeply-nested",
        ["check-trace", "t.json"],
        files={"t.json": DEEP},
        err="nested too deeply",
    ),
    Case(
        "trace-deep-object",
        ["check-trace", "t.json"],
        files={"t.json": '{"a":' * 50_000 + "1" + "}" * 50_000},
        err="nested too deeply",
    ),
    Case(
        "trace-bom",
        ["check-trace", "t.json"],
        files={"t.json": "\ufeff" + json.dumps([TRACE])},
        exit=0,
        stdout="1 checked",
    ),
    Case(
        "trace-bom-jsonl",
        ["check-trace", "t.jsonl"],
        files={"t.jsonl": "\ufeff" + json.dumps(TRACE) + "\n" + json.dumps(TRACE) + "\n"},
        exit=0,
        stdout="2 checked",
    ),
    Case(
        "trace-out-is-a-folder",
        ["check-trace", "t.json", "--out", "."],
        files={"t.json": json.dumps([TRACE])},
        err="--out",
    ),
    Case(
        "trace-out-under-a-file",
        ["check-trace", "t.json", "--out", "t.json/v.jsonl"],
        files={"t.json": json.dumps([TRACE])},
        err="--out",
    ),
    Case(
        "trace-out-unwritable",
        ["check-trace", "t.json", "--out", "/proc/x/v.jsonl"],
        files={"t.json": json.dumps([TRACE])},
        err="--out",
    ),
    Case(
        "trace-truncated",
        ["check-trace", "t.json"],
        files={"t.json": json.dumps([TRACE, TRACE])[:-20]},
        err="not valid JSON",
        out="v.jsonl",
    ),
]

PROGRAM = (
    "Predicates:\nCold($x, bool)\nFacts:\nCold(Bob, True)\nRules:\n"
    "Cold($x, True) >>> Blue($x, True)\nQuery:\nBlue(Bob, True)"
)


def prog_rec(i, program=PROGRAM, **extra):
    rec = {
        "id": f"ProofWriter_{i}",
        "context": "Bob is cold. If something is cold then it is blue.",
        "question": PREFIX + "Bob is blue.",
        "options": OPTIONS,
        "answer": "A",
        "raw_logic_programs": [program],
    }
    rec.update(extra)
    return rec


NATIVE = {
    "example1": {
        "test_example": {
            "question": "Every wumpus is a rompus. Sam is a wumpus.",
            "query": "True or false: Sam is a rompus.",
            "chain_of_thought": [
                "Sam is a wumpus.",
                "Every wumpus is a rompus.",
                "Sam is a rompus.",
            ],
            "answer": "True",
        },
        "model_output": "Sam is a wumpus. So Sam is a rompus. False",
    }
}

CASES += [
    Case(
        "trace-all-unreadable",
        ["check-trace", "t.json"],
        files={"t.json": json.dumps([{"context": 1}, 5])},
        err="no record could be checked",
    ),
    Case(
        "trace-prontoqa-native",
        ["check-trace", "t.json", "--json"],
        files={"t.json": json.dumps(NATIVE)},
        exit=0,
        stdout=r'"label_acc": 0\.0',
    ),
    Case(
        "trace-stated-answer",
        ["check-trace", "t.json", "--json"],
        files={
            "t.json": json.dumps([{**TRACE, "chain_of_thought": ["Sam is a rompus.", "True."]}])
        },
        exit=0,
        stdout=r'"strict_rate": 1\.0',
    ),
    Case("programs-missing", ["execute-programs", "nope.json"], err="not found"),
    Case("programs-empty", ["execute-programs", "p.json"], files={"p.json": ""}, err="empty"),
    Case("programs-object", ["execute-programs", "p.json"], files={"p.json": '"x"'}, err="JSON"),
    Case(
        "programs-not-records",
        ["execute-programs", "p.json"],
        files={"p.json": "[1, 2, 3]"},
        err="no record",
    ),
    Case(
        "programs-truncated",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([prog_rec(0), prog_rec(1)])[:-10]},
        err="not valid JSON",
    ),
    Case("programs-folder", ["execute-programs", "."], err="folder"),
    Case(
        "programs-bad-semantics",
        ["execute-programs", "p.json", "--semantics", "pyke"],
        files={"p.json": json.dumps([prog_rec(0)])},
        err="invalid choice",
    ),
    Case(
        "programs-bad-time",
        ["execute-programs", "p.json", "--time-limit", "nan"],
        files={"p.json": json.dumps([prog_rec(0)])},
        err="seconds",
    ),
    Case(
        "programs-no-answers",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([{"id": "a", "raw_logic_programs": [PROGRAM]}])},
        err="no usable",
    ),
    Case(
        "programs-binary",
        ["execute-programs", "p.json"],
        files={"p.json": b"\xff\xfe\x00"},
        err="UTF-8",
    ),
    Case(
        "programs-out-folder",
        ["execute-programs", "p.json", "--out", "."],
        files={"p.json": json.dumps([prog_rec(0)])},
        err="--out",
    ),
    Case(
        "programs-bad-record-inside-good-file",
        ["execute-programs", "p.json", "--json"],
        files={
            "p.json": json.dumps(
                [
                    prog_rec(0),
                    {"id": "x", "answer": "A"},
                    5,
                    prog_rec(2, program=""),
                    prog_rec(3, program="Query:("),
                ]
            )
        },
        exit=0,
        stdout=r'"executable": 1,',
    ),
    Case(
        "programs-logiclm-quirks",
        ["execute-programs", "p.json", "--semantics", "logic-lm"],
        files={
            "p.json": json.dumps(
                [
                    prog_rec(0),
                    prog_rec(
                        1,
                        program=PROGRAM.replace(
                            ">>> Blue($x, True)",
                            ">>> Blue($x, True)\n\nA($x, True) >>> B($x, True)",
                        ),
                    ),
                ]
            )
        },
        exit=0,
        stdout="1 executable",
    ),
    Case(
        "programs-huge-line",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([prog_rec(0, program="Facts:\n" + "A(" * 50_000)])},
        exit=0,
        stdout="0 executable",
    ),
    Case(
        "programs-deep-json",
        ["execute-programs", "p.json"],
        files={"p.json": "[" * 100_000 + "]" * 100_000},
        err="nested too deeply",
    ),
]


def chain_program(n: int) -> str:
    """A chain of ``n`` rules P0 -> P1 -> ... -> Pn and its query (about 35 characters a rule)."""
    rules = "\n".join(f"P{i}($x, True) >>> P{i + 1}($x, True)" for i in range(n))
    head = "Predicates:\nP0($x, bool)\nFacts:\nP0(Bob, True)\nRules:\n"
    return f"{head}{rules}\nQuery:\nP{n}(Bob, True)"


FOLIO_PROGRAM = "Premises:\nP(a)\n¬P(b)\nConclusion:\nP(x)"


def folio_rec(i, program=FOLIO_PROGRAM):
    return {
        "id": f"FOLIO_dev_{i}",
        "context": "",
        "question": "",
        "options": OPTIONS,
        "answer": "C",
        "raw_logic_programs": [program],
    }


PRONTO_GOLD = json.dumps(
    [
        {
            "id": "ProntoQA_1",
            "context": "Every wumpus is a yumpus. Every yumpus is a dumpus. Max is a wumpus.",
            "question": "Is the following statement true or false? Max is a dumpus.",
            "options": ["A) True", "B) False"],
            "answer": "A",
        }
    ]
)
FACTS_ONLY = ["Max is a wumpus.", "Max is a yumpus.", "Max is a dumpus."]
WITH_RULES = [
    "Max is a wumpus.",
    "Every wumpus is a yumpus.",
    "Max is a yumpus.",
    "Every yumpus is a dumpus.",
    "Max is a dumpus.",
]

CASES += [
    # one cap for both semantics, and an engine near-linear below it
    Case(
        "programs-logiclm-5000-rule-chain",
        ["execute-programs", "p.json", "--semantics", "logic-lm"],
        files={"p.json": json.dumps([prog_rec(0, program=chain_program(5000))])},
        exit=0,
        stdout="1 executable",
        timeout=120,  # a hang guard: it answers in about a second
    ),
    Case(
        "programs-standard-5000-rule-chain",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([prog_rec(0, program=chain_program(5000))])},
        exit=0,
        stdout="1 executable",
        timeout=120,
    ),
    Case(
        "programs-logiclm-over-the-cap",
        ["execute-programs", "p.json", "--semantics", "logic-lm", "--json"],
        files={"p.json": json.dumps([prog_rec(0, program=chain_program(6000))])},
        exit=0,
        stdout=r"program longer than 200000 characters",
    ),
    Case(
        "programs-standard-over-the-cap",
        ["execute-programs", "p.json", "--json"],
        files={"p.json": json.dumps([prog_rec(0, program=chain_program(6000))])},
        exit=0,
        stdout=r"program longer than 200000 characters",
    ),
    # a file that is not what --dataset says, has no programs, or mixes datasets
    Case(
        "programs-dataset-contradicted",
        ["execute-programs", "p.json", "--dataset", "proofwriter"],
        files={"p.json": json.dumps([folio_rec(0), folio_rec(1)])},
        err=r"--benchmark proofwriter, but the records are folio \(2 of 2",
    ),
    Case(
        "programs-no-raw-logic-programs",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([pw(0), pw(1)])},
        err="no record has 'raw_logic_programs'",
    ),
    Case(
        "programs-mixed-datasets",
        ["execute-programs", "p.json"],
        files={"p.json": json.dumps([prog_rec(0), folio_rec(1)])},
        err=r"mix datasets \(1 folio, 1 proofwriter",
    ),
    # Logic-LM's quirks the logic-lm semantics models
    Case(
        "programs-logiclm-unbound-head-fires",
        ["execute-programs", "p.json", "--semantics", "logic-lm", "--json"],
        files={
            "p.json": json.dumps(
                [prog_rec(0, program=PROGRAM.replace(">>> Blue($x, True)", ">>> Blue($y, True)"))]
            )
        },
        exit=0,
        stdout=r"KeyError\('\$y not bound'\)",
    ),
    Case(
        "programs-logiclm-free-variable-goal",
        ["execute-programs", "p.json", "--semantics", "logic-lm", "--json"],
        files={"p.json": json.dumps([folio_rec(0)])},
        exit=0,
        stdout=r'"predicted": "Unknown"',
    ),
    Case(
        "programs-logiclm-prover9-arities",
        ["execute-programs", "p.json", "--semantics", "logic-lm", "--json"],
        files={
            "p.json": json.dumps(
                [
                    folio_rec(
                        0, "Premises:\nVacuum(roomba)\nClean(vacuum)\nConclusion:\nClean(roomba)"
                    )
                ]
            )
        },
        exit=0,
        stdout="symbols used with multiple arities",
    ),
    # PrOntoQA's evaluator as a convention
    Case(
        "trace-conventions-prontoqa",
        ["check-trace", "t.json", "--json", "--conventions", "prontoqa"],
        files={
            "t.json": json.dumps([{**json.loads(PRONTO_GOLD)[0], "chain_of_thought": FACTS_ONLY}])
        },
        exit=0,
        stdout=r'"broad_rate": 1\.0,[^}]*"conventions": "prontoqa"[^}]*"strict_rate": 0\.0',
    ),
    Case(
        "trace-conventions-default",
        ["check-trace", "t.json", "--json"],
        files={
            "t.json": json.dumps([{**json.loads(PRONTO_GOLD)[0], "chain_of_thought": FACTS_ONLY}])
        },
        exit=0,
        stdout=r'"conventions": "nesybench"[^}]*"strict_rate": 1\.0',
    ),
    Case(
        "trace-conventions-unknown",
        ["check-trace", "t.json", "--conventions", "pq"],
        files={"t.json": json.dumps([TRACE])},
        err="invalid choice",
    ),
    Case(
        "score-conventions-prontoqa",
        [
            "score-nli",
            "p.jsonl",
            "--benchmark",
            "prontoqa",
            "--gold",
            "g.json",
            "--json",
            "--conventions",
            "prontoqa",
        ],
        files={
            "g.json": PRONTO_GOLD,
            "p.jsonl": json.dumps(
                {"id": "ProntoQA_1", "prediction": "True", "explanation": WITH_RULES}
            ),
        },
        exit=0,
        stdout=r'"conventions": "prontoqa"',
    ),
    Case(
        "score-conventions-not-prontoqa",
        [
            "score-nli",
            "p.jsonl",
            "--benchmark",
            "proofwriter",
            "--gold",
            "gold.json",
            "--conventions",
            "prontoqa",
        ],
        files={"p.jsonl": PREDS, "gold.json": GOLD},
        err="reads PrOntoQA chains only",
    ),
]


# ---------------------------------------------------------------- writes and bounded reads
# the --out rules on every nli command that writes one, inputs
# read with a bound, echoed values cut, the one error line when a write fails.
PROGRAMS_FILE = json.dumps([prog_rec(0), prog_rec(1)])


def _lines(path, n):
    assert path.read_text().count("\n") == n, f"{path}: expected {n} lines"


HUGE_ID = "x" * 2_000_000
MANY = json.dumps(
    [
        pw(i, "ABC"[i % 3], ["The cat is red.", "The dog is red.", "The cat is not red."][i % 3])
        for i in range(40)
    ]
)
CASES += [
    *out_rule_cases(
        "trace",
        ["check-trace", "t.json", "--out", "OUT"],
        {"t.json": json.dumps([TRACE])},
        inputs=["t.json"],
    ),
    *out_rule_cases(
        "label",
        ["label", "in.json", "--benchmark", "proofwriter", "--out", "OUT"],
        {"in.json": GOLD},
        inputs=["in.json"],
    ),
    *out_rule_cases(
        "programs",
        ["execute-programs", "p.json", "--out", "OUT"],
        {"p.json": PROGRAMS_FILE},
        inputs=["p.json"],
    ),
    Case(
        "label-dev-zero-is-read-with-a-bound",
        ["label", "/dev/zero", "--benchmark", "proofwriter"],
        err=r"/dev/zero: larger than 256 MiB, the limit on an input file read into memory; "
        r"set NESYBENCH_MAX_INPUT_MB",
    ),
    Case(
        "score-dev-zero-predictions",
        ["score-nli", "/dev/zero", "--benchmark", "proofwriter", "--gold", "g.json"],
        files={"g.json": GOLD},
        err=r"/dev/zero: larger than 256 MiB",
    ),
    Case("trace-dev-zero", ["check-trace", "/dev/zero"], err=r"/dev/zero: larger than 256 MiB"),
    Case(
        "programs-dev-zero",
        ["execute-programs", "/dev/zero"],
        err=r"/dev/zero: larger than 256 MiB",
    ),
    Case(
        "label-input-limit-from-the-environment",
        ["label", "in.json", "--benchmark", "proofwriter"],
        files={"in.json": BIG_GOLD},
        env={"NESYBENCH_MAX_INPUT_MB": "1"},
        err=r"in.json: larger than 1 MiB, the limit .*set NESYBENCH_MAX_INPUT_MB",
    ),
    Case(
        "label-input-limit-bad-value",
        ["label", "in.json", "--benchmark", "proofwriter"],
        files={"in.json": GOLD},
        env={"NESYBENCH_MAX_INPUT_MB": "lots"},
        err=r"NESYBENCH_MAX_INPUT_MB must be a whole number of MiB >= 1, got 'lots'",
    ),
    Case(
        "label-jsonl-first-line-a-json-array",
        ["label", "in.jsonl", "--benchmark", "proofwriter"],
        files={"in.jsonl": "[1, 2]\n" + json.dumps(pw(0)) + "\n"},
        exit=0,
        stdout=r"skipped record 0: record must be a JSON object, got list",
    ),
    _score(
        "huge-unknown-id-is-cut",
        PREDS + json.dumps({"id": HUGE_ID, "prediction": "True"}) + "\n",
        err=r"not among the gold questions of gold.json: \"x{50,60}\.\.\.$",
    ),
    _score(
        "huge-duplicate-id-is-cut",
        json.dumps({"id": HUGE_ID, "prediction": "True"}) * 1
        + "\n"
        + json.dumps({"id": HUGE_ID, "prediction": "True"})
        + "\n",
        err=r"line 2: duplicate id \"x{50,60}\.\.\. \(first at line 1\)",
    ),
    Case(
        "label-out-under-a-file-says-so",
        ["label", "in.json", "--benchmark", "proofwriter", "--out", "in.json/v.jsonl"],
        files={"in.json": GOLD},
        err=r"--out in.json/v.jsonl: in.json is a file, not a folder, so in.json/v.jsonl "
        r"cannot be made",
    ),
    Case(
        "label-out-in-missing-folders-is-made",
        ["label", "in.json", "--benchmark", "proofwriter", "--out", "a/b/v.jsonl"],
        files={"in.json": GOLD},
        exit=0,
        check=lambda tmp: _lines(tmp / "a" / "b" / "v.jsonl", 3),
    ),
    Case(
        "label-format-is-an-alias-of-benchmark",
        ["label", "in.json", "--format", "proofwriter"],
        files={"in.json": GOLD},
        exit=0,
        stdout=r"agreement with gold: 3/3",
    ),
    Case(
        "programs-dataset-is-an-alias-of-benchmark",
        ["execute-programs", "p.json", "--dataset", "proofwriter"],
        files={"p.json": PROGRAMS_FILE},
        exit=0,
        stdout=r"2 programs",
    ),
    # a write that fails on a file-size limit: the error is the only line on stderr (no
    # progress lines before it), in the real entry point of a child process
    Case(
        "label-write-fails-on-a-file-size-limit-one-line",
        ["label", "in.json", "--benchmark", "proofwriter", "--out", "v.jsonl"],
        files={"in.json": MANY},
        subprocess=True,
        rlimits={resource.RLIMIT_FSIZE: 2000},
        err=r"^error: --out v.jsonl: could not be written \(File too large\)$",
        out="v.jsonl",
        timeout=120,
    ),
]


@parametrize(CASES)
def test_cli_case(case, tmp_path):
    run_case(case, tmp_path)
