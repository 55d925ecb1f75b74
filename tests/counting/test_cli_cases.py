"""Hostile inputs to ``nesybench count`` and ``nesybench plan-supervision`` (harness:
tests/cli_cases.py): one ``error:`` line and exit 2 for each, no traceback, no hang."""

from __future__ import annotations

import re
import resource
import sys

import pandas as pd

from tests.cli_cases import Case, out_rule_cases, parametrize, run_case, run_guarded_child

SUM2 = ["count", "--knowledge", "sum", "--domains", "10,10"]
XOR2 = ["count", "--knowledge", "xor", "--k", "2"]
PLAN = ["plan-supervision", "--knowledge", "sum", "--domains", "10,10"]


def _sum_table(rows=None, labels=None) -> str:
    rows = rows if rows is not None else [(a, b) for a in range(3) for b in range(3)]
    labels = labels if labels is not None else [a + b for a, b in rows]
    lines = ["c1,c2,y"] + [f"{a},{b},{y}" for (a, b), y in zip(rows, labels)]
    return "\n".join(lines) + "\n"


def _parquet_table(path):
    rows = [(a, b) for a in range(3) for b in range(3)]
    pd.DataFrame(
        {
            "c1": [a for a, _ in rows],
            "c2": [b for _, b in rows],
            "y": [f"s{a + b}" for a, b in rows],
        }
    ).to_parquet(path, index=False)


FULL3 = _sum_table()
CASES = [
    # ---- domains and k
    Case("domain-below-2", [*SUM2[:3], "--domains", "10,1", "--support", "0:0"], err=r"domain 2"),
    Case("domain-zero", [*SUM2[:3], "--domains", "10,0", "--support", "0:0"], err=r"\[2, "),
    Case("domain-word", [*SUM2[:3], "--domains", "10,ten", "--support", "0:0"], err="'ten'"),
    Case("domain-empty", [*SUM2[:3], "--domains", "", "--support", "0:0"], err="--domains"),
    Case("domain-gap", [*SUM2[:3], "--domains", "10,,10", "--support", "0:0:0"], err="''"),
    Case("domain-arabic", [*SUM2[:3], "--domains", "\u0661\u0660,10", "--support", "0:0"]),
    Case("domain-negative", [*SUM2[:3], "--domains", "10,-10", "--support", "0:0"]),
    Case("domain-huge", [*SUM2[:3], "--domains", "10,99999999", "--support", "0:0"]),
    Case("domain-too-many", [*SUM2[:3], "--domains", ",".join(["2"] * 10001), "--support", "0"]),
    Case("k-and-domains", [*XOR2, "--domains", "2,2", "--support", "00"], err="not allowed"),
    Case("no-k-no-domains", ["count", "--knowledge", "sum", "--support", "0:0"], err="--k or"),
    Case("k-zero", ["count", "--knowledge", "xor", "--k", "0", "--support", "0"], err=r"\[1, "),
    Case("k-negative", ["count", "--knowledge", "xor", "--k", "-3", "--support", "0"]),
    Case("k-huge", ["count", "--knowledge", "xor", "--k", "100000", "--support", "0"]),
    Case("k-word", ["count", "--knowledge", "xor", "--k", "two", "--support", "00"]),
    # ---- knowledge that does not fit its domains
    Case(
        "xor-categorical",
        ["count", "--knowledge", "xor", "--domains", "10,10", "--support", "0:0"],
        err="binary",
    ),
    Case(
        "cnf-categorical",
        ["count", "--knowledge", "(x1 | x2)", "--domains", "2,3", "--support", "0:0"],
        err="binary",
    ),
    Case(
        "cnf-var-beyond-k",
        ["count", "--knowledge", "(x1 | x3)", "--k", "2", "--support", "00"],
        err="exceeds k=2",
    ),
    Case(
        "cnf-arabic-digit",
        ["count", "--knowledge", "(x\u0661 | x2)", "--k", "2", "--support", "00"],
        err="digits 0-9",
    ),
    Case(
        "cnf-fullwidth-digit",
        ["count", "--knowledge", "(x1 | x\uff12)", "--k", "2", "--support", "00"],
        err="digits 0-9",
    ),
    Case("cnf-empty", ["count", "--knowledge", "", "--k", "2", "--support", "00"], err="expected"),
    Case("cnf-garbage", ["count", "--knowledge", "x1 && x2", "--k", "2", "--support", "00"]),
    Case("no-knowledge", ["count", "--k", "2", "--support", "00"], err="required"),
    Case(
        "knowledge-and-table",
        [*XOR2, "--knowledge-table", "k.csv", "--support", "00"],
        err="not allowed",
    ),
    # ---- knowledge tables
    Case(
        "table-missing-file",
        ["count", "--knowledge-table", "none.csv", "--support", "0:0"],
        err="not found",
    ),
    Case(
        "table-directory",
        ["count", "--knowledge-table", "{tmp}", "--support", "0:0"],
        err="directory",
    ),
    Case(
        "table-duplicate-state",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        err="row 9 repeats state '0:0'",
        files={"k.csv": _sum_table(None) + "0,0,0\n"},
    ),
    Case(
        "table-missing-state",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        err="state '2:2' is missing",
        files={"k.csv": _sum_table([(a, b) for a in range(3) for b in range(3)][:-1])},
    ),
    Case(
        "table-out-of-range",
        ["count", "--knowledge-table", "k.csv", "--domains", "3,2", "--support", "0:0"],
        err="column 'c2' row 2",
        files={"k.csv": FULL3},
    ),
    Case(
        "table-domains-disagree",
        ["count", "--knowledge-table", "k.csv", "--domains", "3,3,3", "--support", "0:0"],
        err="2 concept columns",
        files={"k.csv": FULL3},
    ),
    Case(
        "table-domains-larger",
        ["count", "--knowledge-table", "k.csv", "--domains", "4,3", "--support", "0:0"],
        err="'3:0' is missing",
        files={"k.csv": FULL3},
    ),
    Case(
        "table-with-k",
        ["count", "--knowledge-table", "k.csv", "--k", "2", "--support", "00"],
        err="brings its own",
        files={"k.csv": FULL3},
    ),
    Case(
        "table-not-csv",
        ["count", "--knowledge-table", "k.parquet", "--support", "0:0"],
        files={"k.parquet": b"\x00\x01garbage"},
    ),
    Case(
        "table-empty",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        files={"k.csv": ""},
    ),
    Case(
        "table-no-y",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        err="missing column 'y'",
        files={"k.csv": "c1,c2\n0,0\n"},
    ),
    Case(
        "table-null-label",
        ["count", "--knowledge-table", "k.csv", "--support", "0"],
        err="got null",
        files={"k.csv": "c1,y\n0,a\n1,\n"},
    ),
    Case(
        "table-float-value",
        ["count", "--knowledge-table", "k.csv", "--support", "0"],
        err="column 'c1' row 1",
        files={"k.csv": "c1,y\n0,a\n1.5,b\n"},
    ),
    Case(
        "table-gap-column",
        ["count", "--knowledge-table", "k.csv", "--support", "0"],
        err="'c3' without",
        files={"k.csv": "c1,c3,y\n0,0,a\n1,1,b\n"},
    ),
    # ---- support
    Case("state-arity", [*SUM2, "--support", "3:5:1"], err="has 3 values, expected 2"),
    Case("state-out-of-range", [*SUM2, "--support", "3:10"], err="out of range"),
    Case("state-duplicate", [*SUM2, "--support", "3:5,3:5"], err="duplicate state '3:5'"),
    Case("state-duplicate-forms", [*XOR2, "--support", "01,0:1"], err="duplicate state '0:1'"),
    Case("support-empty", [*SUM2, "--support", ""], err="at least one state"),
    Case("support-commas", [*SUM2, "--support", ",,"], err="support"),
    Case("state-negative", [*SUM2, "--support=-1:2"], err="not a non-negative integer"),
    Case("state-arabic", [*SUM2, "--support", "\u0663:5"], err="digits 0-9"),
    Case("state-compact", [*SUM2, "--support", "35"], err="joined by ':'"),
    Case("state-bits-too-long", [*XOR2, "--support", "001"], err="2-character bit string"),
    Case("state-letter", [*XOR2, "--support", "0a"], err="bit string"),
    Case(
        "support-file-missing-col",
        [*SUM2, "--support-file", "s.csv"],
        err="missing column 'c2'",
        files={"s.csv": "c1\n1\n"},
    ),
    Case(
        "support-file-range",
        [*SUM2, "--support-file", "s.csv"],
        err="column 'c2' row 1",
        files={"s.csv": "c1,c2\n1,2\n3,10\n"},
    ),
    Case(
        "support-file-duplicate",
        [*SUM2, "--support-file", "s.csv"],
        err="row 1 repeats state '1:2'",
        files={"s.csv": "c1,c2\n1,2\n1,2\n"},
    ),
    Case(
        "support-file-header-only",
        [*SUM2, "--support-file", "s.csv"],
        err="row",
        files={"s.csv": "c1,c2\n"},
    ),
    Case(
        "support-file-extra-concept",
        [*SUM2, "--support-file", "s.csv"],
        err="'c3' is beyond",
        files={"s.csv": "c1,c2,c3\n1,2,3\n"},
    ),
    Case("support-file-absent", [*SUM2, "--support-file", "nope.csv"], err="not found"),
    Case(
        "support-file-null",
        [*SUM2, "--support-file", "s.csv"],
        err="null",
        files={"s.csv": "c1,c2\n1,\n"},
    ),
    Case("frac-zero", [*SUM2, "--support-frac", "0"], err=r"\(0, 1\]"),
    Case("frac-above-one", [*SUM2, "--support-frac", "1.5"], err="got 1.5"),
    Case("frac-nan", [*SUM2, "--support-frac", "nan"], err="got nan"),
    Case("frac-inf", [*SUM2, "--support-frac", "inf"], err="got inf"),
    Case("frac-negative", [*SUM2, "--support-frac", "-0.5"]),
    Case(
        "frac-huge-task",
        ["count", "--knowledge", "xor", "--k", "40", "--support-frac", "0.5"],
        err="list the support",
    ),
    Case(
        "seed-negative",
        [*XOR2, "--support-frac", "0.5", "--seed", "-1"],
        err=r"--seed must be an integer in \[0, 2\^63\), got -1",
    ),
    Case("seed-too-big", [*XOR2, "--support-frac", "0.5", "--seed", str(2**63)], err="--seed"),
    Case("no-support", [*XOR2], err="required"),
    Case("two-supports", [*XOR2, "--support", "00", "--support-frac", "1"], err="not allowed"),
    # ---- supervision
    Case(
        "supervised-unobserved",
        [*SUM2, "--support", "3:5", "--supervised", "5:3"],
        err="not in the support",
    ),
    Case("supervised-bad-form", [*SUM2, "--support", "3:5", "--supervised", "3"], err="supervised"),
    Case(
        "supervised-duplicate",
        [*SUM2, "--support", "3:5", "--supervised", "3:5,3:5"],
        err="duplicate",
    ),
    # ---- extractor and method
    Case(
        "shared-unequal-domains",
        [
            "count",
            "--knowledge",
            "sum",
            "--domains",
            "10,3",
            "--support",
            "1:2",
            "--extractor",
            "shared",
        ],
        err="equal domains",
    ),
    Case(
        "extractor-unknown",
        [*XOR2, "--support", "00", "--extractor", "sideways"],
        err="invalid choice",
    ),
    Case(
        "fixed-perm-joint",
        [*XOR2, "--support", "00", "--fixed-permutation"],
        err="only to the disentangled",
    ),
    Case(
        "factored-disentangled",
        [*XOR2, "--support", "00", "--extractor", "disentangled", "--method", "factored"],
        err="only for the joint",
    ),
    Case(
        "permutations-shared",
        [*XOR2, "--support", "00", "--extractor", "shared", "--method", "permutations"],
        err="exact or enumerate",
    ),
    Case(
        "permutations-joint",
        [*XOR2, "--support", "00", "--method", "permutations"],
        err="disentangled",
    ),
    Case(
        "permutations-sum",
        [*SUM2, "--support", "1:2", "--extractor", "disentangled", "--method", "permutations"],
        err="binary",
    ),
    Case(
        "approx-sum",
        [*SUM2, "--support", "1:2", "--extractor", "disentangled", "--method", "approx"],
        err="binary",
    ),
    Case("exact-joint-sum", [*SUM2, "--support", "1:2", "--method", "exact"], err="binary"),
    Case(
        "epsilon-inf",
        [*XOR2, "--support", "00", "--method", "approx", "--epsilon", "inf"],
        err=r"\(0, 10\], got inf",
    ),
    Case(
        "epsilon-nan",
        [*XOR2, "--support", "00", "--method", "approx", "--epsilon", "nan"],
        err="got nan",
    ),
    Case("epsilon-zero", [*XOR2, "--support", "00", "--method", "approx", "--epsilon", "0"]),
    Case(
        "epsilon-eleven",
        [*XOR2, "--support", "00", "--method", "approx", "--epsilon", "11"],
        err="got 11",
    ),
    Case(
        "delta-one",
        [*XOR2, "--support", "00", "--method", "approx", "--delta", "1"],
        err=r"\(0, 1\)",
    ),
    Case("delta-nan", [*XOR2, "--support", "00", "--method", "approx", "--delta", "nan"]),
    Case(
        "enumerate-joint-too-big",
        ["count", "--knowledge", "xor", "--k", "3", "--support", "000", "--method", "enumerate"],
        err="enumeration limit",
    ),
    Case(
        "enumerate-dis-too-big",
        [*SUM2, "--support", "1:2", "--extractor", "disentangled", "--method", "enumerate"],
        err="enumeration limit",
    ),
    Case(
        "enumerate-shared-too-big",
        [*SUM2, "--support", "1:2", "--extractor", "shared", "--method", "enumerate"],
        err="enumeration limit",
    ),
    # ---- cost limits: refused with the estimate and the option that lifts them
    Case(
        "tabulation-k30",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "30",
            "--support",
            "0" * 30,
            "--extractor",
            "disentangled",
        ],
        err=r"2\^30 = 1,073,741,824 states .*--max-states",
    ),
    Case(
        "tabulation-k1000",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "1000",
            "--support",
            "0" * 1000,
            "--extractor",
            "disentangled",
        ],
        err=r"2\^1000 states .*--max-states",
    ),
    Case(
        "tabulation-shared",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "30",
            "--support",
            "0" * 30,
            "--extractor",
            "shared",
        ],
        err="--max-states",
    ),
    Case(
        "approx-encoding-k1000",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "1000",
            "--support",
            "0" * 1000,
            "--extractor",
            "disentangled",
            "--method",
            "approx",
        ],
        err="clauses at k=1000",
    ),
    Case(
        "search-budget",
        [
            "count",
            "--knowledge",
            "sum",
            "--domains",
            "10,10,10",
            "--support",
            "0:0:1,3:4:5,9:9:8",
            "--extractor",
            "disentangled",
            "--max-subproblems",
            "3",
        ],
        err="--max-subproblems N",
    ),
    Case(
        "search-budget-binary",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "8",
            "--support",
            "00000000,01101100",
            "--extractor",
            "disentangled",
            "--max-subproblems",
            "3",
        ],
        err="--max-subproblems N",
    ),
    Case(
        "permutations-k12",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "12",
            "--support",
            "0" * 12,
            "--extractor",
            "disentangled",
            "--method",
            "permutations",
        ],
        err=r"k! = 479,001,600 model counts .*--max-subproblems 0",
    ),
    Case(
        "max-subproblems-negative",
        [*XOR2, "--support", "00", "--max-subproblems", "-1"],
        err=">= 0",
    ),
    Case("max-states-negative", [*XOR2, "--support", "00", "--max-states", "-5"], err=">= 0"),
    Case(
        "max-states-small",
        [*SUM2, "--support", "1:2", "--extractor", "shared", "--max-states", "10"],
        err="above the limit of 10 states",
    ),
    # ---- the DIMACS output
    Case("dimacs-directory", [*XOR2, "--support", "00", "--dimacs", "{tmp}"], err="is a directory"),
    Case(
        "dimacs-under-file",
        [*XOR2, "--support", "00", "--dimacs", "f.txt/out.cnf"],
        err="is a file",
        files={"f.txt": "x"},
    ),
    Case(
        "dimacs-sum",
        [*SUM2, "--support", "1:2", "--dimacs", "out.cnf"],
        err="binary xor/CNF knowledge only",
        out="out.cnf",
    ),
    Case(
        "dimacs-shared",
        [*XOR2, "--support", "00", "--extractor", "shared", "--dimacs", "out.cnf"],
        err="counts no DIMACS",
        out="out.cnf",
    ),
    # ---- plan-supervision
    Case(
        "plan-budget-zero",
        [*PLAN, "--support-frac", "1", "--budget", "0"],
        err="--budget must be >= 1",
    ),
    Case(
        "plan-budget-too-big",
        [*PLAN, "--support", "0:6,6:0", "--budget", "3"],
        err="only 2 observed states",
    ),
    Case(
        "plan-budget-supervised",
        [*PLAN, "--support", "0:6,6:0", "--supervised", "0:6", "--budget", "2"],
        err="only 1 observed state can",
    ),
    Case("plan-budget-missing", [*PLAN, "--support", "0:6"], err="required"),
    Case("plan-budget-word", [*PLAN, "--support", "0:6", "--budget", "two"], err="invalid int"),
    Case(
        "plan-exact-negative",
        [*PLAN, "--support", "0:6", "--budget", "1", "--exact-max-subsets", "-1"],
        err=">= 0",
    ),
    Case(
        "plan-shared-unequal",
        [
            "plan-supervision",
            "--knowledge",
            "sum",
            "--domains",
            "10,3",
            "--support",
            "1:2",
            "--budget",
            "1",
            "--extractor",
            "shared",
        ],
        err="equal domains",
    ),
    Case("plan-bad-state", [*PLAN, "--support", "0:66", "--budget", "1"], err="out of range"),
    Case(
        "plan-seed-negative",
        [*PLAN, "--support-frac", "0.1", "--seed", "-4", "--budget", "1"],
        err="--seed",
    ),
    # ---- inputs that must work (exit 0)
    Case(
        "ok-mnist-shared",
        [*SUM2, "--support-frac", "1", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 1 ",
    ),
    Case(
        "ok-mnist-disentangled-json",
        [*SUM2, "--support-frac", "1", "--extractor", "disentangled", "--json"],
        exit=0,
        stdout=r'"n_distinct": "2"',
    ),
    Case(
        "ok-table-csv",
        [
            "count",
            "--knowledge-table",
            "k.csv",
            "--support",
            "0:1,1:0",
            "--extractor",
            "shared",
            "--json",
        ],
        exit=0,
        stdout=r'"domains": \[\s*3,\s*3\s*\]',
        files={"k.csv": FULL3},
    ),
    Case(
        "ok-table-parquet-strings",
        [
            "count",
            "--knowledge-table",
            "k.parquet",
            "--support-frac",
            "1",
            "--extractor",
            "disentangled",
        ],
        exit=0,
        stdout=r"N_opt = 2 ",
        files={"k.parquet": _parquet_table},
    ),
    Case(
        "ok-support-file",
        [*SUM2, "--support-file", "s.csv", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = ",
        files={"s.csv": "c1,c2\n0,6\n6,0\n"},
    ),
    Case("ok-binary-colon-states", [*XOR2, "--support", "0:0,1:1"], exit=0, stdout=r"N_opt = 64 "),
    Case(
        "ok-k12-one-state",
        [
            "count",
            "--knowledge",
            "xor",
            "--k",
            "12",
            "--support",
            "0" * 12,
            "--extractor",
            "disentangled",
        ],
        exit=0,
        stdout=r"n_distinct\) = 109228962646016",
    ),
    Case(
        "ok-plan",
        [*PLAN, "--support-frac", "1", "--budget", "2"],
        exit=0,
        stdout=r"pick 1: 0:1 .*N_opt = 1",
    ),
]


# the write rules on --dimacs (count's one output file), and its input read with a bound
CASES += [
    *out_rule_cases(
        "dimacs",
        [*XOR2, "--support-file", "s.csv", "--dimacs", "OUT"],
        {"s.csv": "c1,c2\n0,0\n0,1\n"},
        inputs=["s.csv"],
        flag="--dimacs",
    ),
    Case(
        "dimacs-under-a-file-says-so",
        [*XOR2, "--support", "00", "--dimacs", "f.txt/out.cnf"],
        files={"f.txt": "x"},
        err=r"--dimacs f.txt/out.cnf: f.txt is a file, not a folder",
    ),
    Case(
        "support-file-dev-zero",
        [*XOR2, "--support-file", "/dev/zero"],
        err=r"/dev/zero: larger than 256 MiB",
    ),
]


@parametrize(CASES)
def test_count_cli_case(case, tmp_path):
    run_case(case, tmp_path)


def test_case_table_is_large():
    assert len(CASES) >= 100


# ---- the memory and time bombs of the hostile-input probe: each answers or refuses (with the
# estimate and the option that lifts it) under a 3 GiB address-space limit, as `prlimit --as`
# sets it, in a process of its own (the limit and a hang must not reach the test runner).

AS_LIMIT = 3 * 2**30
SUM6 = ["--knowledge", "sum", "--domains", "10,10,10,10,10,10"]
TWO6 = ["--support", "1:2:3:4:5:6,6:5:4:3:2:1"]
TABLE_NULLS = "c1,c2,y\n0,0,0\n0,1,1\n1,0,1\n1,1,\n2,0,\n2,1,\n"  # y null in rows 3-5
BOMBS = [
    Case(
        "bomb-shared-two-states",
        ["count", *SUM6, *TWO6, "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 396620000 ",  # 10^4 free values x the 39,662 digit tuples summing to 21
    ),
    Case(
        "bomb-shared-two-states-no-memory",
        ["count", *SUM6, *TWO6, "--extractor", "shared", "--max-memory", "1"],
        err=r"would hold about \d+ MB .*above the limit of about 1 MB; raise it with --max-memory",
    ),
    Case(
        "bomb-shared-frac-0.01",
        ["count", *SUM6, "--support-frac", "0.01", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 1 ",
    ),
    Case(
        "bomb-shared-full",
        ["count", *SUM6, "--support-frac", "1", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 1 .*\n.*\n  support \(1,000,000/1,000,000\): every state",
    ),
    Case(
        "bomb-disentangled-two-states",
        ["count", *SUM6, *TWO6, "--extractor", "disentangled"],
        err=r"360 distinct permutation problems x 64 patterns .*--max-subproblems N",
    ),
    Case(
        "bomb-disentangled-full",
        ["count", *SUM6, "--support-frac", "1", "--extractor", "disentangled"],
        err=r"1,000,000 constraints over tables of 1,000,000 cells .*--max-subproblems N",
    ),
    Case(
        "bomb-plan-two-states",
        ["plan-supervision", *SUM6, *TWO6, "--budget", "1"],
        err=r"distinct permutation problems .*--max-subproblems N",
    ),
    Case(
        "bomb-plan-two-states-shared",
        ["plan-supervision", *SUM6, *TWO6, "--budget", "1", "--extractor", "shared"],
        exit=0,
        stdout=r"pick 1: 1:2:3:4:5:6 +N_opt = 10000 ",
    ),
    Case(
        "bomb-joint-2^40-states",
        [
            "count",
            "--knowledge",
            "sum",
            "--domains",
            "1048576,1048576",
            "--support",
            "0:0,5:7",
            "--extractor",
            "joint",
        ],
        exit=0,
        stdout=r"log2 N_opt = 4.39805e\+13",
    ),
    Case(
        "bomb-plan-xor-k20",
        [
            "plan-supervision",
            "--knowledge",
            "xor",
            "--k",
            "20",
            "--support-frac",
            "1",
            "--budget",
            "3",
        ],
        err=(
            r"each of 1,048,576 candidates \(up to 3,145,728 counts over 3 picks\)"
            r".*--max-subproblems N"
        ),
    ),
    Case(
        "bomb-plan-joint-1000",
        [
            "plan-supervision",
            "--knowledge",
            "sum",
            "--domains",
            "10,10,10",
            "--support-frac",
            "1",
            "--budget",
            "3",
            "--extractor",
            "joint",
        ],
        exit=0,
        stdout=r"pick 3: \S+ +N_opt = \d+",
    ),
    # ---- knowledge tables: the offending row and value, labels of any form
    Case(
        "table-huge-concept-value",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        err=r"column 'c1' row 3 .*got 10{30} \(beyond the 64-bit integer range\)",
        files={"k.csv": "c1,c2,y\n0,0,0\n0,1,1\n1,0,1\n" + "1" + "0" * 30 + ",1,1\n"},
    ),
    Case(
        "table-huge-label",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0,1:1", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 1 ",  # 0:0 and 1:1 carry labels no other state has: f is the identity
        files={"k.csv": "c1,c2,y\n0,0,0\n0,1,1\n1,0,1\n1,1," + "1" + "0" * 30 + "\n"},
    ),
    Case(
        "table-null-labels-rows-3-5",
        ["count", "--knowledge-table", "k.csv", "--support", "0:0"],
        err=r"column 'y' row 3 .*got null",
        files={"k.csv": TABLE_NULLS},
    ),
    Case(
        "table-float-labels",
        ["count", "--knowledge-table", "k.csv", "--support-frac", "1", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 1 ",  # 0.5 / 1.5 / 2.5: the sum of two bits, shifted; one map, f = id
        files={"k.csv": "c1,c2,y\n0,0,0.5\n0,1,1.5\n1,0,1.5\n1,1,2.5\n"},
    ),
    Case(
        "table-bool-labels",
        ["count", "--knowledge-table", "k.csv", "--support-frac", "1", "--extractor", "shared"],
        exit=0,
        stdout=r"N_opt = 2 ",  # xnor: the identity and negation
        files={"k.csv": "c1,c2,y\n0,0,true\n0,1,false\n1,0,false\n1,1,true\n"},
    ),
]


def run_bounded(case: Case, tmp_path) -> str:
    """Run one case as ``python -m nesybench.cli`` under RLIMIT_AS (what ``prlimit --as`` sets)."""
    for name, content in case.files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))

    done = run_guarded_child(
        case.id,
        [sys.executable, "-m", "nesybench.cli", *case.argv],
        case.timeout,
        preexec=limit,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    assert done.returncode == case.exit, (done.returncode, done.stderr[-2000:])
    if case.exit == 2:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        assert re.search(case.err, lines[0]), lines[0]
    if case.stdout is not None:
        assert re.search(case.stdout, done.stdout), done.stdout[:2000]
    return done.stdout


@parametrize(BOMBS)
def test_count_cli_bomb(case, tmp_path):
    run_bounded(case, tmp_path)
