"""Hostile inputs to `nesybench calibrate` and `reliability` (harness: tests/cli_cases.py).

Each case: one `error:` line and exit 2 (or the stated exit and stdout), no traceback, no hang,
no output file left by a failing run.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from nesybench.metrics.multiclass import softmax
from nesybench.seeds import child_rng
from tests.cli_cases import Case, out_rule_cases, parametrize, run_case

N = 40


def _binary_columns(n=N):
    rng = child_rng(0, "calibration_cli_cases", "binary")
    score = rng.normal(0, 2, n)
    label = (np.arange(n) % 2 == 0).astype(np.int64)  # both classes in both splits
    label[np.arange(n) % 4 == 0] = 0
    label[np.arange(n) % 4 == 1] = 1
    split = np.where(np.arange(n) % 2 == 0, "cal", "eval")
    return {"score": score.tolist(), "label": label.tolist(), "split": split.tolist()}


def _multiclass_columns(n=N, k=4):
    rng = child_rng(0, "calibration_cli_cases", "multiclass")
    z = rng.normal(0, 1.5, (n, k))
    label = np.array([rng.choice(k, p=row) for row in softmax(z)])
    label[:k] = np.arange(k)  # every class present, both splits
    split = np.where(np.arange(n) % 2 == 0, "cal", "eval")
    return {"logits": (3 * z).tolist(), "label": label.tolist(), "split": split.tolist()}


def parquet(columns: dict, *, types: dict | None = None, drop=(), **changes):
    """A Parquet writer: ``columns`` with ``changes`` applied (callables get the column)."""

    def write(path):
        data = {k: list(v) for k, v in columns.items() if k not in drop}
        for name, change in changes.items():
            data[name] = change(data.get(name)) if callable(change) else change
        fields = {k: pa.array(v, type=(types or {}).get(k)) for k, v in data.items()}
        pq.write_table(pa.table(fields), path)

    return write


def at(i, value):
    """Replace entry ``i`` of a column."""
    return lambda col: [value if j == i else v for j, v in enumerate(col)]


def where_split(split, value, cols):
    """Set ``label`` to ``value`` on the rows of ``split``."""
    return lambda col: [value if s == split else v for v, s in zip(col, cols["split"])]


B = _binary_columns()
M = _multiclass_columns()
CAL = ["calibrate", "s.parquet", "--method", "temperature"]
CAL_OUT = CAL + ["--out", "out.parquet"]
MCAL = ["calibrate", "m.parquet", "--method", "vector", "--out", "out.parquet"]
REL = ["reliability", "s.parquet"]


def bfile(**kw):
    return {"s.parquet": parquet(B, **kw)}


def mfile(**kw):
    return {"m.parquet": parquet(M, **kw)}


CASES = [
    # ---- the file itself
    Case("file-missing", CAL, err=r"s\.parquet: file not found"),
    Case("file-not-parquet", CAL, files={"s.parquet": "not parquet"}, err="not a readable Parquet"),
    Case("file-empty-bytes", CAL, files={"s.parquet": b""}, err="not a readable Parquet"),
    Case("file-is-directory", ["calibrate", ".", "--method", "platt"], err="is a directory"),
    Case("csv-empty", ["calibrate", "s.csv", "--method", "platt"], files={"s.csv": ""}, err="CSV"),
    Case(
        "csv-binary-ok",
        ["calibrate", "s.csv", "--method", "platt", "--json"],
        exit=0,
        files={
            "s.csv": "score,label,split\n"
            + "".join(f"{s},{y},{p}\n" for s, y, p in zip(B["score"], B["label"], B["split"]))
        },
        stdout='"method": "platt"',
    ),
    Case(
        "no-rows",
        CAL_OUT,
        files=bfile(score=[], label=[], split=[]),
        err="at least 1 row, got 0",
        out="out.parquet",
    ),
    # ---- columns of a binary file
    Case(
        "no-score-no-logits",
        CAL,
        files=bfile(drop=["score"]),
        err=r"missing column 'score' \(binary\) or 'logits' \(K-way\)",
    ),
    Case(
        "score-and-logits",
        CAL,
        files=bfile(logits=[[0.0, 1.0]] * N),
        err="has both 'score' and 'logits'",
    ),
    Case("no-label", CAL, files=bfile(drop=["label"]), err="missing column 'label'"),
    Case("no-split", CAL, files=bfile(drop=["split"]), err="missing column 'split'"),
    Case(
        "score-as-string",
        CAL,
        files=bfile(score=lambda c: [str(v) for v in c]),
        err=r"column 'score' row 0 must be a finite number, got '",
    ),
    Case(
        "score-nan",
        CAL_OUT,
        files=bfile(score=at(5, float("nan"))),
        err=r"column 'score' row 5 must be a finite number",
        out="out.parquet",
    ),
    Case(
        "score-inf",
        CAL,
        files=bfile(score=at(0, float("inf"))),
        err=r"column 'score' row 0 must be a finite number, got inf",
    ),
    Case(
        "score-minus-inf",
        CAL,
        files=bfile(score=at(3, float("-inf"))),
        err=r"row 3 .* got -inf",
    ),
    Case(
        "score-null",
        CAL,
        files=bfile(score=at(2, None)),
        err=r"column 'score' row 2 must be a finite number, got null",
    ),
    Case(
        "label-float",
        CAL,
        files=bfile(label=at(1, 0.5), types={"label": pa.float64()}),
        err=r"column 'label' row 1 must be an integer in \[0, 1\], got 0.5",
    ),
    Case(
        "label-two",
        CAL,
        files=bfile(label=at(3, 2)),
        err=r"column 'label' row 3 must be an integer in \[0, 1\], got 2",
    ),
    Case(
        "label-negative",
        CAL,
        files=bfile(label=at(4, -1)),
        err=r"row 4 must be an integer in \[0, 1\], got -1",
    ),
    Case(
        "label-huge",
        CAL,
        files=bfile(label=at(0, 10**12)),
        err=r"got 1000000000000$",
    ),
    Case(
        "label-null-says-null",
        CAL,
        files=bfile(label=at(6, None)),
        err=r"column 'label' row 6 must be an integer in \[0, 1\], got null$",
    ),
    Case(
        "label-bool",
        CAL,
        files=bfile(label=lambda c: [bool(v) for v in c]),
        err=r"column 'label' row 0 must be an integer",
    ),
    Case(
        "label-string",
        CAL,
        files=bfile(label=lambda c: [str(v) for v in c]),
        err=r"column 'label' row 0 must be an integer in \[0, 1\], got '0'",
    ),
    Case(
        "split-unknown",
        CAL,
        files=bfile(split=at(0, "test")),
        err=r"column 'split' row 0 must be one of 'cal', 'eval', got 'test'",
    ),
    Case(
        "split-trailing-space",
        CAL,
        files=bfile(split=at(1, "eval ")),
        err=r"row 1 must be one of 'cal', 'eval', got 'eval '",
    ),
    Case("split-null", CAL, files=bfile(split=at(7, None)), err=r"column 'split' row 7 .*null"),
    Case(
        "split-integers",
        CAL,
        files=bfile(split=lambda c: [int(s == "cal") for s in c]),
        err=r"column 'split' row 0 must be one of 'cal', 'eval', got 1",
    ),
    # ---- splits of a binary file
    Case(
        "binary-eval-empty",
        CAL_OUT,
        files=bfile(split=["cal"] * N),
        err="split 'eval' is empty",
        out="out.parquet",
    ),
    Case("binary-cal-empty", CAL, files=bfile(split=["eval"] * N), err="split 'cal' is empty"),
    Case(
        "binary-one-class-in-cal",
        CAL,
        files=bfile(label=where_split("cal", 1, B)),
        err=r"split 'cal' has only label 1 \(20 rows\); it needs both classes",
    ),
    Case(
        "binary-one-class-in-eval",
        CAL,
        files=bfile(label=where_split("eval", 0, B)),
        err=r"split 'eval' has only label 0",
    ),
    # ---- options
    Case("bins-zero", CAL + ["--bins", "0"], files=bfile(), err=r"\[1, 10000\], got 0"),
    Case("bins-negative", CAL + ["--bins", "-3"], files=bfile(), err=r"got -3|expected one"),
    Case("bins-not-int", CAL + ["--bins", "ten"], files=bfile(), err=r"got 'ten'"),
    Case("bins-float", CAL + ["--bins", "2.5"], files=bfile(), err=r"got '2.5'"),
    Case(
        "bins-billion",
        CAL + ["--bins", "1000000000"],
        files=bfile(),
        err=r"--bins must be an integer in \[1, 10000\], got 1000000000",
        timeout=10,
    ),
    Case(
        "bins-23-digits",
        CAL + ["--bins", "12345678901234567890123"],
        files=bfile(),
        err=r"\[1, 10000\], got 12345678901234567\.\.\.",
        timeout=10,
    ),
    Case("bins-max-ok", CAL + ["--bins", "10000", "--json"], exit=0, files=bfile(), stdout="ece"),
    Case("bins-over-max", REL + ["--bins", "10001"], files=bfile(), err=r"got 10001"),
    Case(
        "method-unknown",
        ["calibrate", "s.parquet", "--method", "beta"],
        files=bfile(),
        err="invalid choice: 'beta'",
    ),
    Case("method-missing", ["calibrate", "s.parquet"], files=bfile(), err="--method"),
    Case(
        "method-vector-on-binary",
        ["calibrate", "s.parquet", "--method", "vector"],
        files=bfile(),
        err=r"--method vector calibrates K-way logits, but s\.parquet has one 'score' per row",
    ),
    Case(
        "method-matrix-on-binary",
        ["calibrate", "s.parquet", "--method", "matrix", "--out", "o.parquet"],
        files=bfile(),
        err="use temperature, platt, isotonic",
        out="o.parquet",
    ),
    Case(
        "method-platt-on-logits",
        ["calibrate", "m.parquet", "--method", "platt"],
        files=mfile(),
        err=r"--method platt is binary .* use temperature, vector, matrix, isotonic",
    ),
    Case(
        "reg-zero", MCAL + ["--reg", "0"], files=mfile(), err=r"--reg must be a finite number > 0"
    ),
    Case("reg-negative", MCAL + ["--reg", "-1"], files=mfile(), err=r"--reg"),
    Case("reg-nan", MCAL + ["--reg", "nan"], files=mfile(), err=r"finite number > 0, got nan"),
    Case("reg-inf", MCAL + ["--reg", "inf"], files=mfile(), err=r"finite number > 0, got inf"),
    Case("reg-text", MCAL + ["--reg", "lots"], files=mfile(), err=r"got 'lots'"),
    Case("strategy-unknown", CAL + ["--strategy", "kmeans"], files=bfile(), err="invalid choice"),
    # ---- the output path
    Case(
        "out-is-directory",
        CAL + ["--out", "outdir"],
        files={**bfile(), "outdir/keep": "x"},
        err=r"--out outdir: is a directory",
    ),
    Case(
        "out-under-a-file",
        CAL + ["--out", "blocker/out.parquet"],
        files={**bfile(), "blocker": "a file"},
        err=r"--out blocker/out.parquet: blocker is a file, not a folder",
    ),
    Case(
        "out-under-proc",
        CAL + ["--out", "/proc/nesybench-test/out.parquet"],
        files=bfile(),
        err=r"--out /proc/nesybench-test/out\.parquet: (cannot write|directory)",
    ),
    Case(
        "out-ok",
        CAL_OUT + ["--json"],
        exit=0,
        files=bfile(),
        stdout='"tau"',
    ),
    # ---- K-way logits
    Case("mc-ok", MCAL + ["--json"], exit=0, files=mfile(), stdout='"ece_classwise"'),
    Case(
        "mc-unequal-lengths",
        MCAL,
        files=mfile(logits=at(9, [0.0, 1.0, 2.0])),
        err=r"column 'logits' row 9 must be 4 values \(as row 0\), got 3",
        out="out.parquet",
    ),
    Case(
        "mc-one-logit",
        MCAL,
        files=mfile(logits=lambda c: [[v[0]] for v in c]),
        err=r"must be at least 2 values \(K >= 2 classes\), got 1",
    ),
    Case(
        "mc-empty-lists",
        MCAL,
        files=mfile(logits=lambda c: [[] for _ in c]),
        err=r"at least 2 values .* got 0",
    ),
    Case(
        "mc-label-out-of-range",
        MCAL,
        files=mfile(label=at(11, 4)),
        err=r"column 'label' row 11 must be a class index in \[0, 3\] \(the logits have 4 "
        r"values\), got 4",
        out="out.parquet",
    ),
    Case(
        "mc-label-negative",
        MCAL,
        files=mfile(label=at(2, -1)),
        err=r"column 'label' row 2 must be an integer >= 0, got -1",
    ),
    Case(
        "mc-label-huge",
        MCAL,
        files=mfile(label=at(3, 2**40)),
        err=r"row 3 must be a class index in \[0, 3\]",
    ),
    Case(
        "mc-label-null",
        MCAL,
        files=mfile(label=at(5, None)),
        err=r"column 'label' row 5 must be an integer >= 0, got null$",
    ),
    Case(
        "mc-one-class-in-cal",
        MCAL,
        files=mfile(label=where_split("cal", 2, M)),
        err=r"split 'cal' has only class 2 \(20 rows\); fitting a calibrator needs at least two",
        out="out.parquet",
    ),
    Case(
        "mc-one-class-in-cal-temperature",
        ["calibrate", "m.parquet", "--method", "temperature"],
        files=mfile(label=where_split("cal", 0, M)),
        err=r"split 'cal' has only class 0",
    ),
    Case(
        "mc-eval-empty",
        MCAL,
        files=mfile(split=["cal"] * N),
        err=r"split 'eval' is empty",
        out="out.parquet",
    ),
    Case("mc-cal-empty", MCAL, files=mfile(split=["eval"] * N), err=r"split 'cal' is empty"),
    Case(
        "mc-no-rows",
        MCAL,
        files=mfile(logits=[], label=[], split=[], types={"logits": pa.list_(pa.float64())}),
        err="at least 1 row, got 0",
    ),
    Case(
        "mc-nan-logit",
        MCAL,
        files=mfile(logits=at(4, [0.0, float("nan"), 1.0, 2.0])),
        err=r"column 'logits' row 4 must be a list of finite numbers, got \[0, nan, 1, 2\]",
        out="out.parquet",
    ),
    Case(
        "mc-inf-logit",
        MCAL,
        files=mfile(logits=at(0, [float("inf"), 0.0, 1.0, 2.0])),
        err=r"column 'logits' row 0 must be a list of finite numbers, got \[inf",
    ),
    Case(
        "mc-minus-inf-logit",
        MCAL,
        files=mfile(logits=at(1, [0.0, float("-inf"), 1.0, 2.0])),
        err=r"row 1 .*-inf",
    ),
    Case(
        "mc-null-inside-list",
        MCAL,
        files=mfile(logits=at(6, [0.0, None, 1.0, 2.0])),
        err=r"column 'logits' row 6 must be a list of finite numbers",
    ),
    Case(
        "mc-null-cell",
        MCAL,
        files=mfile(logits=at(8, None)),
        err=r"column 'logits' row 8 must be a list of finite numbers, got null",
    ),
    Case(
        "mc-logits-as-string",
        MCAL,
        files=mfile(logits=lambda c: [str(v) for v in c]),
        err=r"column 'logits' row 0 must be a list of finite numbers, got '\[",
    ),
    Case(
        "mc-logits-list-of-strings",
        MCAL,
        files=mfile(logits=lambda c: [[str(x) for x in v] for v in c]),
        err=r"column 'logits' row 0 must be a list of finite numbers, got \['",
    ),
    Case(
        "mc-logits-as-float",
        ["calibrate", "m.parquet", "--method", "isotonic"],
        files=mfile(logits=lambda c: [v[0] for v in c]),
        err=r"column 'logits' row 0 must be a list of finite numbers, got -?\d",
    ),
    Case(
        "mc-integer-logits-ok",
        ["calibrate", "m.parquet", "--method", "matrix", "--json"],
        exit=0,
        files=mfile(logits=lambda c: [[int(round(x)) for x in v] for v in c]),
        stdout='"W"',
    ),
    Case(
        "mc-huge-logits-finish",
        ["calibrate", "m.parquet", "--method", "temperature", "--json"],
        exit=0,
        files=mfile(logits=lambda c: [[x * 1e300 for x in v] for v in c]),
        stdout='"tau"',
    ),
    Case(
        "mc-all-equal-logits",
        ["calibrate", "m.parquet", "--method", "temperature", "--json"],
        exit=0,
        files=mfile(logits=lambda c: [[0.0] * 4 for _ in c]),
        stdout='"ranking": true',
    ),
    Case(
        "mc-out-written",
        ["calibrate", "m.parquet", "--method", "isotonic", "--out", "cal.parquet"],
        exit=0,
        files=mfile(),
        stdout="isotonic scaling of a 4-way head",
    ),
    # ---- reliability
    Case("rel-no-label", REL, files=bfile(drop=["label"]), err="missing column 'label'"),
    Case(
        "rel-ignores-split",
        REL + ["--json"],
        exit=0,
        files=bfile(split=at(0, "other")),
        stdout='"ece"',
    ),
    Case(
        "rel-one-class-json",
        REL + ["--json"],
        exit=0,
        files=bfile(label=[1] * N),
        stdout=r'"auc": null,\s+"auc_note": "undefined: all 40 rows have label 1; AUC needs both',
    ),
    Case(
        "rel-one-row-json",
        REL + ["--json"],
        exit=0,
        files=bfile(score=[0.3], label=[0], split=["cal"]),
        stdout=r'"auc_note": "undefined: all 1 rows have label 0',
    ),
    Case(
        "rel-one-class-text",
        REL,
        exit=0,
        files=bfile(label=[0] * N),
        stdout=r"AUC = undefined \(one class\)",
    ),
    Case(
        "rel-multiclass-json",
        ["reliability", "m.parquet", "--json"],
        exit=0,
        files=mfile(),
        stdout=r'"n_classes": 4',
    ),
    Case(
        "rel-multiclass-label-range",
        ["reliability", "m.parquet"],
        files=mfile(label=at(0, 9)),
        err=r"column 'label' row 0 must be a class index in \[0, 3\]",
    ),
    Case(
        "rel-bins-billion", REL + ["--bins", "1000000000"], files=bfile(), err="10000", timeout=10
    ),
]


# ---------------------------------------------------------------- writes, formats, numerics
def csv_text(columns: dict, *, wide: bool = False) -> str:
    """A CSV file of ``columns``; ``wide`` spreads ``logits`` over logits_0 .. logits_{K-1}."""
    data = dict(columns)
    if wide:
        rows = data.pop("logits")
        for j in range(len(rows[0])):
            data[f"logits_{j}"] = [r[j] for r in rows]
    names = list(data)
    lines = [",".join(names)] + [
        ",".join(
            repr(data[c][i]) if isinstance(data[c][i], float) else str(data[c][i]) for c in names
        )
        for i in range(len(data[names[0]]))
    ]
    return "\n".join(lines) + "\n"


def _csv_out(name: str, columns: list[str]):
    def check(tmp):
        text = (tmp / name).read_text()
        assert not text.startswith("PAR1"), f"{name}: Parquet bytes under a .csv name"
        header = text.splitlines()[0].split(",")
        assert all(c in header for c in columns), f"{name}: header {header}, want {columns}"
        assert len(text.splitlines()) == N + 1

    return check


def _parquet_out(name: str, column: str):
    def check(tmp):
        table = pq.read_table(tmp / name)
        assert column in table.column_names and table.num_rows == N

    return check


HUGE = {**M, "logits": [[v * 1e305 for v in row] for row in M["logits"]]}
HUGE_B = {**B, "score": [v * 1e305 for v in B["score"]]}

CASES += [
    *out_rule_cases("cal", [*CAL, "--out", "OUT"], bfile(), inputs=["s.parquet"]),
    *out_rule_cases(
        "cal-k-way",
        ["calibrate", "m.parquet", "--method", "temperature", "--out", "OUT"],
        mfile(),
        inputs=["m.parquet"],
    ),
    Case(
        "out-csv-binary-is-csv",
        [*CAL, "--out", "cal.csv"],
        files=bfile(),
        exit=0,
        check=_csv_out("cal.csv", ["score", "label", "split", "row", "prob"]),
    ),
    Case(
        "out-csv-k-way-spreads-lists-over-columns",
        ["calibrate", "m.parquet", "--method", "matrix", "--out", "cal.csv"],
        files=mfile(),
        exit=0,
        check=_csv_out(
            "cal.csv", [f"logits_{j}" for j in range(4)] + [f"probs_{j}" for j in range(4)]
        ),
    ),
    Case(
        "out-other-suffix-is-parquet",
        [*CAL, "--out", "cal.out"],
        files=bfile(),
        exit=0,
        check=_parquet_out("cal.out", "prob"),
    ),
    Case(
        "csv-input-k-way-as-wide-columns",
        ["calibrate", "m.csv", "--method", "vector", "--out", "back.csv"],
        files={"m.csv": csv_text(M, wide=True)},
        exit=0,
        stdout=r"vector scaling of a 4-way head",
        check=_csv_out("back.csv", ["logits_0", "logits_3", "probs_3"]),
    ),
    Case(
        "csv-input-wide-logits-with-a-gap",
        ["reliability", "m.csv"],
        files={"m.csv": csv_text(M, wide=True).replace("logits_2", "logits_7")},
        err=r"m.csv: columns logits_0 .. logits_7 must all be present, logits_2 is missing",
    ),
    Case(
        "csv-input-wide-logits-not-numbers",
        ["reliability", "m.csv"],
        files={"m.csv": csv_text(M, wide=True).replace(repr(M["logits"][3][1]), "high", 1)},
        err=r"m.csv: column 'logits_1' row 3 must be a finite number, got 'high'",
    ),
    Case(
        "csv-input-wide-and-list-logits",
        ["reliability", "m.parquet"],
        files=mfile(logits_0=[0.0] * N),
        err=r"has both 'logits' and 'logits_0'",
    ),
    Case(
        "scores-dev-zero",
        ["reliability", "/dev/zero"],
        err=r"/dev/zero: larger than 256 MiB, the limit on an input file",
    ),
    Case(
        "scores-csv-link-to-dev-zero",
        ["reliability", "z.csv"],
        files={"z.csv": lambda path: path.symlink_to("/dev/zero")},
        err=r"z.csv: larger than 256 MiB",
    ),
    # temperature scaling on logits near the float range: exit 0, no raw library warnings,
    # the bracket bound said (one note line on stderr at most)
    Case(
        "temperature-near-1e306-k-way",
        ["calibrate", "h.parquet", "--method", "temperature"],
        files={"h.parquet": parquet(HUGE)},
        exit=0,
        stdout=r"note: tau = 20 is at the upper bound of its search bracket \[0.05, 20\]",
        stderr=r"(note: h.parquet: the numerical libraries warned \d+ time\(s\) \([^\n]*\); "
        r"[^\n]*rescale them)?",
    ),
    Case(
        "temperature-near-1e306-binary-json",
        ["calibrate", "h.parquet", "--method", "temperature", "--json"],
        files={"h.parquet": parquet(HUGE_B)},
        exit=0,
        stdout=r'"tau_at_bracket_bound": \{\s+"bound": "upper",\s+"bracket": \[\s+0.05,\s+20.0',
        stderr=r"(note: [^\n]*rescale them)?",
    ),
    Case(
        "platt-near-1e306-no-raw-warning",
        ["calibrate", "h.parquet", "--method", "platt"],
        files={"h.parquet": parquet(HUGE_B)},
        exit=0,
        stderr=r"(note: h.parquet: the numerical libraries warned [^\n]*rescale them)?",
    ),
    Case(
        "temperature-interior-says-no-bound",
        ["calibrate", "m.parquet", "--method", "temperature", "--json"],
        files=mfile(),
        exit=0,
        stdout=r'"tau_at_bracket_bound": null',
        stderr="",
    ),
]


@parametrize(CASES)
def test_calibration_cli_case(case, tmp_path):
    run_case(case, tmp_path)


def test_the_case_table_is_large():
    assert len(CASES) >= 80
