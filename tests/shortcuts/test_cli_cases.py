"""Hostile inputs to the shortcuts commands (harness: tests/cli_cases.py).

``SCORE_CONCEPTS_CASES``: `nesybench score-concepts` (the concepts file, the labels file, the
options).  Each case: one `error:` line and exit 2 (or the stated exit and stdout), no traceback,
no hang.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tests.cli_cases import Case, parametrize, run_case

N_POINTS = 8


def _concept_rows(n_points=N_POINTS, k=2, values=2):
    """A valid long table: point-major rows, gold = (point + concept) % values, confident heads."""
    rows = {"point": [], "concept": [], "gold": [], "probs": []}
    for i in range(n_points):
        for j in range(k):
            g = (i + j) % values
            p = [0.1 / (values - 1)] * values
            p[g] = 0.9
            rows["point"].append(i)
            rows["concept"].append(j)
            rows["gold"].append(g)
            rows["probs"].append(p)
    return rows


C = _concept_rows()


def table(columns: dict, *, types: dict | None = None, drop=(), **changes):
    """A Parquet writer of ``columns`` with ``changes`` (callables receive the column)."""

    def write(path):
        data = {k: list(v) for k, v in columns.items() if k not in drop}
        for name, change in changes.items():
            data[name] = change(data.get(name)) if callable(change) else change
        pq.write_table(
            pa.table({k: pa.array(v, type=(types or {}).get(k)) for k, v in data.items()}), path
        )

    return write


def at(i, value):
    return lambda col: [value if r == i else v for r, v in enumerate(col)]


def labels(n=N_POINTS, **changes):
    cols = {"point": list(range(n)), "y_true": [i % 2 for i in range(n)]}
    cols["y_pred"] = list(cols["y_true"])
    return table(cols, **changes)


SC = ["score-concepts", "c.parquet"]
LAB = SC + ["--labels", "l.parquet"]


def cfile(**kw):
    return {"c.parquet": table(C, **kw)}


def both(label_kw=None, **kw):
    return {"c.parquet": table(C, **kw), "l.parquet": labels(**(label_kw or {}))}


def _wide(k, values):
    rows = _concept_rows(n_points=4, k=k, values=values)
    return {"c.parquet": table(rows)}


SCORE_CONCEPTS_CASES = [
    # ---- the concepts file itself
    Case("sc-file-missing", SC, err=r"c\.parquet: file not found"),
    Case("sc-not-parquet", SC, files={"c.parquet": "junk"}, err="not a readable Parquet"),
    Case("sc-directory", ["score-concepts", "."], err="is a directory"),
    Case("sc-ok-json", SC + ["--json"], exit=0, files=cfile(), stdout='"acc_c": 1.0'),
    Case("sc-ok-text", SC, exit=0, files=cfile(), stdout=r"Cls\(C\) count, 2 gold states"),
    Case("sc-missing-gold", SC, files=cfile(drop=["gold"]), err="missing column 'gold'"),
    Case("sc-missing-probs", SC, files=cfile(drop=["probs"]), err="missing column 'probs'"),
    Case("sc-missing-point", SC, files=cfile(drop=["point"]), err="missing column 'point'"),
    Case("sc-missing-concept", SC, files=cfile(drop=["concept"]), err="missing column 'concept'"),
    Case(
        "sc-no-rows",
        SC,
        files=cfile(
            point=[], concept=[], gold=[], probs=[], types={"probs": pa.list_(pa.float64())}
        ),
        err="at least 1 row, got 0",
    ),
    # ---- probs
    Case(
        "sc-probs-string",
        SC,
        files=cfile(probs=lambda c: [str(v) for v in c]),
        err=r"column 'probs' row 0 must be a list of finite numbers, got '\[0\.9, 0\.1\]'",
    ),
    Case(
        "sc-probs-float",
        SC,
        files=cfile(probs=lambda c: [v[0] for v in c]),
        err=r"column 'probs' row 0 must be a list of finite numbers, got 0\.9$",
    ),
    Case(
        "sc-probs-list-of-strings",
        SC,
        files=cfile(probs=lambda c: [[str(x) for x in v] for v in c]),
        err=r"column 'probs' row 0 must be a list of finite numbers, got \['0\.9', '0\.1'\]",
    ),
    Case(
        "sc-probs-null",
        SC,
        files=cfile(probs=at(3, None)),
        err=r"column 'probs' row 3 must be a list of finite numbers, got null",
    ),
    Case(
        "sc-probs-null-inside",
        SC,
        files=cfile(probs=at(2, [None, 1.0])),
        err=r"column 'probs' row 2 must be a list of finite numbers",
    ),
    Case(
        "sc-probs-nan",
        SC,
        files=cfile(probs=at(7, [float("nan"), 1.0])),
        err=r"column 'probs' row 7 must be a list of finite numbers, got \[nan, 1\]",
    ),
    Case(
        "sc-probs-inf",
        SC,
        files=cfile(probs=at(1, [float("inf"), 0.0])),
        err=r"row 1 must be a list of finite numbers, got \[inf, 0\]",
    ),
    Case(
        "sc-probs-one-value",
        SC,
        files=cfile(probs=lambda c: [[1.0] for _ in c], gold=lambda c: [0] * len(c)),
        err=r"probs of concept 0 list 1 value \(row 0\); a concept needs at least 2 values",
    ),
    Case(
        "sc-probs-one-value-one-concept",
        SC,
        files={
            "c.parquet": table(
                {"point": [0, 1], "concept": [0, 0], "gold": [0, 0], "probs": [[1.0], [1.0]]}
            )
        },
        err=r"a concept needs at least 2 values",
    ),
    Case(
        "sc-probs-empty",
        SC,
        files=cfile(
            probs=lambda c: [[] for _ in c],
            gold=lambda c: [0] * len(c),
            types={"probs": pa.list_(pa.float64())},
        ),
        err=r"probs of concept 0 list 0 values",
    ),
    Case(
        "sc-probs-lengths-differ",
        SC,
        files=cfile(probs=at(3, [0.5, 0.25, 0.25])),
        err=r"probs of concept 1 have different lengths \[2, 3\] \(row 3 has 3, row 1 has 2\)",
    ),
    Case(
        "sc-probs-sum-plain-number",
        SC,
        files=cfile(probs=at(4, [0.6, 0.5])),
        err=r"probs must sum to 1 within 1e-06, got 1\.1 \(row 4: point 2, concept 0\)$",
    ),
    Case(
        "sc-probs-sum-low",
        SC,
        files=cfile(probs=at(0, [0.5, 0.4])),
        err=r"got 0\.9 \(row 0: point 0, concept 0\)",
    ),
    Case(
        "sc-probs-negative",
        SC,
        files=cfile(probs=at(5, [1.5, -0.5])),
        err=r"probs has a negative value -0\.5 \(row 5: point 2, concept 1\)",
    ),
    # ---- gold
    Case(
        "sc-gold-out-of-range",
        SC,
        files=cfile(gold=at(9, 2)),
        err=r"gold must be in 0\.\.1 for concept 1 \(len\(probs\) = 2\), got 2 \(row 9: point 4\)",
    ),
    Case(
        "sc-gold-negative",
        SC,
        files=cfile(gold=at(3, -1)),
        err=r"column 'gold' row 3 must be an integer >= 0, got -1",
    ),
    Case(
        "sc-gold-null",
        SC,
        files=cfile(gold=at(3, None)),
        err=r"column 'gold' row 3 must be an integer >= 0, got null$",
    ),
    Case(
        "sc-gold-float",
        SC,
        files=cfile(gold=at(2, 0.5), types={"gold": pa.float64()}),
        err=r"column 'gold' row 2 .* got 0\.5",
    ),
    Case(
        "sc-gold-string",
        SC,
        files=cfile(gold=lambda c: [str(v) for v in c]),
        err=r"column 'gold' row 0 must be an integer >= 0, got '0'",
    ),
    Case(
        "sc-gold-bool",
        SC,
        files=cfile(gold=lambda c: [bool(v) for v in c]),
        err=r"column 'gold' row 0 must be an integer",
    ),
    # ---- concept ids and points
    Case(
        "sc-concept-id-huge",
        SC,
        files=cfile(concept=lambda c: [10**12 if v == 1 else v for v in c]),
        err=r"concept 1 has no rows \(the next concept present is 1000000000000\)",
        timeout=20,
    ),
    Case(
        "sc-concept-negative",
        SC,
        files=cfile(concept=at(1, -1)),
        err=r"column 'concept' row 1 must be an integer >= 0, got -1",
    ),
    Case(
        "sc-concept-gap",
        SC,
        files=cfile(concept=lambda c: [2 if v == 1 else v for v in c]),
        err=r"without gaps; concept 1 has no rows",
    ),
    Case(
        "sc-concept-starts-at-one",
        SC,
        files=cfile(concept=lambda c: [v + 1 for v in c]),
        err=r"concept 0 has no rows",
    ),
    Case("sc-concept-null", SC, files=cfile(concept=at(0, None)), err=r"'concept' row 0 .*null"),
    Case("sc-point-null", SC, files=cfile(point=at(4, None)), err=r"'point' row 4 .*null"),
    Case(
        "sc-point-float",
        SC,
        files=cfile(point=at(0, 0.5), types={"point": pa.float64()}),
        err=r"column 'point' row 0 must be an integer, got 0\.5",
    ),
    Case(
        "sc-duplicate-pair",
        SC,
        files=cfile(concept=at(1, 0)),
        err=r"row 1 repeats \(point=0, concept=0\); each must appear once",
    ),
    Case(
        "sc-point-missing-a-concept",
        SC,
        files=cfile(
            point=lambda c: c[:-1],
            concept=lambda c: c[:-1],
            gold=lambda c: c[:-1],
            probs=lambda c: c[:-1],
        ),
        err=r"point 7 is missing some concepts: has \[0\], expected 0\.\.1",
    ),
    Case(
        "sc-point-ids-huge-ok",
        SC + ["--json"],
        exit=0,
        files=cfile(point=lambda c: [v + 2**62 for v in c]),
        stdout='"n_points": 8',
    ),
    Case(
        "sc-many-concepts-no-occurrence-list",
        SC + ["--json"],
        exit=0,
        files=_wide(30, 2),
        stdout=r'"n_states": 1073741824,\s+"occurrence": null',
        timeout=30,
    ),
    Case(
        "sc-astronomical-states",
        SC,
        exit=0,
        files=_wide(25, 10),
        stdout=r"not listed \(10000000000000000000000000 joint states\)",
        timeout=30,
    ),
    # ---- the labels file
    Case("sc-labels-missing-file", LAB, files=cfile(), err=r"l\.parquet: file not found"),
    Case("sc-labels-ok", LAB + ["--json"], exit=0, files=both(), stdout='"acc_y": 1.0'),
    Case(
        "sc-labels-no-y-pred",
        LAB,
        files=both({"drop": ["y_pred"]}),
        err=r"l\.parquet: missing column 'y_pred'",
    ),
    Case(
        "sc-labels-null-says-null",
        LAB,
        files=both({"y_true": at(3, None)}),
        err=r"column 'y_true' row 3 must be an integer, got null$",
    ),
    Case(
        "sc-labels-float",
        LAB,
        files=both({"y_pred": at(2, 0.5), "types": {"y_pred": pa.float64()}}),
        err=r"column 'y_pred' row 2 .* got 0\.5",
    ),
    Case(
        "sc-labels-missing-point",
        LAB,
        files={"c.parquet": table(C), "l.parquet": labels(n=N_POINTS - 1)},
        err=r"point 7 of the concepts file has no label row",
    ),
    Case(
        "sc-labels-extra-point",
        LAB,
        files={"c.parquet": table(C), "l.parquet": labels(n=N_POINTS + 1)},
        err=r"point 8 is not in the concepts file",
    ),
    Case(
        "sc-labels-duplicate-point",
        LAB,
        files=both({"point": at(1, 0)}),
        err=r"row 1 repeats \(point=0\)",
    ),
    Case(
        "sc-labels-string",
        LAB,
        files=both({"y_true": lambda c: [str(v) for v in c]}),
        err=r"column 'y_true' row 0 must be an integer, got '0'",
    ),
    Case(
        "sc-outputs-without-labels",
        SC + ["--outputs", "a,b"],
        files=cfile(),
        err=r"--outputs names label columns: give the labels file with --labels",
    ),
    Case(
        "sc-outputs-missing-column",
        LAB + ["--outputs", "a,b"],
        files={
            "c.parquet": table(C),
            "l.parquet": table({"point": list(range(8)), "y_true_a": [0] * 8, "y_pred_a": [0] * 8}),
        },
        err=r"missing column 'y_true_b'",
    ),
    Case(
        "sc-outputs-ok",
        LAB + ["--outputs", "a,b", "--json"],
        exit=0,
        files={
            "c.parquet": table(C),
            "l.parquet": table(
                {
                    "point": list(range(8)),
                    "y_true_a": [0] * 8,
                    "y_pred_a": [0] * 8,
                    "y_true_b": [1] * 8,
                    "y_pred_b": [1, 0] * 4,
                }
            ),
        },
        stdout=r'"acc_y_exact": 0\.5',
    ),
    Case("sc-outputs-repeated", LAB + ["--outputs", "a,a"], files=both(), err=r"--outputs"),
    Case("sc-outputs-empty-name", LAB + ["--outputs", "a,"], files=both(), err=r"--outputs"),
    Case("sc-outputs-space", LAB + ["--outputs", "a b"], files=both(), err=r"--outputs"),
    # ---- groups and bins
    Case(
        "sc-group-ok",
        SC + ["--group", "x=0", "--group", "y=1", "--json"],
        exit=0,
        files=cfile(),
        stdout=r'"cls_c_groups_mean"',
    ),
    Case("sc-group-no-equals", SC + ["--group", "colour"], files=cfile(), err=r"NAME=J1,J2"),
    Case("sc-group-no-name", SC + ["--group", "=0"], files=cfile(), err=r"NAME=J1,J2"),
    Case("sc-group-no-members", SC + ["--group", "c="], files=cfile(), err=r"concept indices"),
    Case("sc-group-not-int", SC + ["--group", "c=x"], files=cfile(), err=r"concept indices"),
    Case("sc-group-negative", SC + ["--group", "c=-1"], files=cfile(), err=r"concept indices"),
    Case("sc-group-non-ascii-digit", SC + ["--group", "c=\u0661"], files=cfile(), err=r"indices"),
    Case("sc-group-twice-in", SC + ["--group", "c=0,0"], files=cfile(), err=r"a concept twice"),
    Case(
        "sc-group-beyond-k",
        SC + ["--group", "c=0,5"],
        files=cfile(),
        err=r"--group c=0,5: concept 5 does not exist \(c\.parquet has concepts 0\.\.1\)",
    ),
    Case(
        "sc-group-huge-index",
        SC + ["--group", "c=1000000000000"],
        files=cfile(),
        err=r"concept indices",
    ),
    Case(
        "sc-group-name-twice",
        SC + ["--group", "c=0", "--group", "c=1"],
        files=cfile(),
        err=r"--group c: the name is given twice",
    ),
    Case("sc-bins-zero", SC + ["--bins", "0"], files=cfile(), err=r"\[1, 10000\], got 0$"),
    Case(
        "sc-bins-billion",
        SC + ["--bins", "1000000000"],
        files=cfile(),
        err=r"\[1, 10000\]",
        timeout=10,
    ),
    Case(
        "sc-bins-23-digits",
        SC + ["--bins", "12345678901234567890123"],
        files=cfile(),
        err=r"got 12345678901234567\.\.\.$",
    ),
    Case("sc-bins-text", SC + ["--bins", "ten"], files=cfile(), err=r"got 'ten'"),
    Case(
        "sc-bins-right-closed-ok",
        SC + ["--bins", "5", "--bins-right-closed", "--json"],
        exit=0,
        files=cfile(),
        stdout=r"5 equal-width bins, right-closed",
    ),
    Case("sc-unknown-option", SC + ["--frobnicate"], files=cfile(), err=r"unrecognized"),
]


SCORE_CONCEPTS_CASES += [
    Case("sc-dev-zero", ["score-concepts", "/dev/zero"], err=r"/dev/zero: larger than 256 MiB"),
    Case(
        "sc-labels-dev-zero",
        [*SC, "--labels", "/dev/zero"],
        files=cfile(),
        err=r"/dev/zero: larger than 256 MiB",
    ),
]


@parametrize(SCORE_CONCEPTS_CASES)
def test_score_concepts_cli_case(case, tmp_path):
    run_case(case, tmp_path)


def test_the_score_concepts_case_table_is_large():
    assert len(SCORE_CONCEPTS_CASES) >= 70
