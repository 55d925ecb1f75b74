"""Hostile inputs to the axes commands (axes-export, axes-score, mixture): one `error:` line and
exit 2 where the input is unusable, no traceback, no hang, nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from nesybench.axes.grid import GridSpec, generate_grid, grid_jsonl
from tests.cli_cases import Case, out_rule_cases, parametrize, run_case

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = {
    f"workflow/schemas/{p.name}": p.read_text() for p in (REPO / "workflow/schemas").glob("*.yaml")
}
PARAMS = yaml.safe_load((REPO / "params.yaml").read_text())

_SPEC = GridSpec(depth=(0, 1), distractors=(0, 1), vocabulary=(8,), synonyms=(0.0,), per_cell=6)
GRID_RECORDS = [q.record() for q in generate_grid(_SPEC, seed=2)]
GRID = grid_jsonl(generate_grid(_SPEC, seed=2))
IDS = [r["id"] for r in GRID_RECORDS]
CLOSED_ID = next(r["id"] for r in GRID_RECORDS if len(r["options"]) == 2)
LABEL = {"A": "True", "B": "False", "C": "Unknown"}


def _jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


GOLD = _jsonl({"id": r["id"], "prediction": LABEL[r["answer"]]} for r in GRID_RECORDS)
HALF = _jsonl({"id": r["id"], "prediction": r["answer"]} for r in GRID_RECORDS[::2])


def _params(edit) -> dict[str, str]:
    """A params.yaml (with the schemas beside it) whose axes section ``edit`` changed."""
    params = json.loads(json.dumps(PARAMS))
    edit(params["axes"])
    return {**SCHEMAS, "params.yaml": yaml.safe_dump(params, sort_keys=False)}


def _tiny(axes):
    axes["grid"]["levels"].update(depth=[0, 1], distractors=[0], vocabulary=[8], synonyms=[0.0])
    axes["grid"]["depth_cap"] = 0  # a params file is checked whole: a depth lies beyond the cap


def _set(path, value):
    def edit(axes):
        node = axes
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


SCORE = ["axes-score", "p.jsonl", "--grid", "g.jsonl"]
EXPORT_CASES = [
    Case("export-help", ["axes-export", "--help"], exit=0, stdout=r"nesybench axes-export"),
    Case("export-no-out", ["axes-export"], err=r"required: --out"),
    Case("export-bad-split", ["axes-export", "--out", "g.jsonl", "--split", "test"], err="split"),
    Case("export-out-dir", ["axes-export", "--out", "."], err=r"is a directory", out=None),
    Case(
        "export-out-missing-folder",
        ["axes-export", "--out", "no/such/g.jsonl"],
        exit=0,
        stdout=r"wrote [\d,]+ questions to no/such/g.jsonl",
    ),
    Case(
        "export-out-under-a-file",
        ["axes-export", "--out", "f.txt/g.jsonl"],
        err=r"--out f.txt/g.jsonl: f.txt is a file, not a folder",
        files={"f.txt": "x"},
    ),
    Case(
        "export-out-proc",
        ["axes-export", "--out", "/proc/nesybench-grid.jsonl", "--params", "params.yaml"],
        err=r"cannot write|not writable",
        files=_params(_tiny),
    ),
    Case(
        "export-params-missing",
        ["axes-export", "--out", "g.jsonl", "--params", "nope.yaml"],
        err=r"nope.yaml: params file not found",
        out="g.jsonl",
    ),
    Case(
        "export-params-not-yaml",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"not valid YAML",
        files={**SCHEMAS, "params.yaml": "axes: [\n"},
        out="g.jsonl",
    ),
    Case(
        "export-params-list",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"must be a mapping",
        files={**SCHEMAS, "params.yaml": "- 1\n"},
        out="g.jsonl",
    ),
    Case(
        "export-params-per-cell-zero",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.grid.per_cell must be >= 1, got 0",
        files=_params(_set(["grid", "per_cell"], 0)),
        out="g.jsonl",
    ),
    Case(
        "export-params-depth-empty",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.grid.levels.depth",
        files=_params(_set(["grid", "levels", "depth"], [])),
        out="g.jsonl",
    ),
    Case(
        "export-params-order-unknown",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.grid.levels.order",
        files=_params(_set(["grid", "levels", "order"], ["sorted"])),
        out="g.jsonl",
    ),
    Case(
        "export-params-synonyms-above-one",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.grid.levels.synonyms.0 must be <= 1, got 1.5",
        files=_params(_set(["grid", "levels", "synonyms"], [1.5])),
        out="g.jsonl",
    ),
    Case(
        "export-params-vocabulary-too-small",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.grid.levels.vocabulary: each size must be in \[max depth \+ 3, 64\] = \[6, 64\]",
        files=_params(_set(["grid", "levels", "vocabulary"], [5])),
        out="g.jsonl",
    ),
    Case(
        "export-params-too-many-distractors",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"distractor rules per hop at depth \d need \d+ distinct",
        files=_params(_set(["grid", "levels", "distractors"], [0, 16])),
        out="g.jsonl",
    ),
    Case(
        "export-params-too-many-questions",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"the limit is 1,000,000",
        files=_params(_set(["grid", "per_cell"], 100_000)),
        out="g.jsonl",
        timeout=20,
    ),
    Case(
        "export-params-no-grid",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes is missing required key grid",
        files=_params(lambda axes: axes.pop("grid")),
        out="g.jsonl",
    ),
    Case(
        "export-params-string-n-seeds",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes.n_seeds must be of type integer",
        files=_params(_set(["n_seeds"], "5")),
        out="g.jsonl",
    ),
    Case(
        "export-params-old-seed-key",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        err=r"axes has unknown key seed",
        files=_params(_set(["seed"], 15)),
        out="g.jsonl",
    ),
    Case(
        "export-seed-not-a-number",
        ["axes-export", "--out", "g.jsonl", "--seed", "first"],
        err=r"--seed",
        out="g.jsonl",
    ),
    Case(
        "export-seed-negative",
        ["axes-export", "--out", "g.jsonl", "--seed", "-1"],
        err=r"--seed",
        out="g.jsonl",
    ),
    Case(
        "export-tiny-grid",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml"],
        exit=0,
        stdout=r"wrote 48 questions to g.jsonl \(8 cells x 6 per cell",
        files=_params(_tiny),
    ),
    Case(
        "export-tiny-grid-seed-7",
        ["axes-export", "--out", "g.jsonl", "--params", "params.yaml", "--seed", "7"],
        exit=0,
        stdout=r"wrote 48 questions to g.jsonl \(8 cells x 6 per cell; params.yaml, seed 7",
        files=_params(_tiny),
    ),
]

SCORE_CASES = [
    Case("score-help", ["axes-score", "--help"], exit=0, stdout=r"nesybench axes-score"),
    Case("score-no-grid", ["axes-score", "p.jsonl"], err=r"required: --grid"),
    Case("score-grid-missing", SCORE, err=r"g.jsonl: grid file not found", files={"p.jsonl": GOLD}),
    Case(
        "score-grid-dir",
        [*SCORE[:3], "."],
        err=r"\.: is a directory, expected a grid file",
        files={"p.jsonl": GOLD},
    ),
    Case(
        "score-grid-empty",
        SCORE,
        err=r"g.jsonl: empty file",
        files={"g.jsonl": "", "p.jsonl": GOLD},
    ),
    Case(
        "score-grid-not-json",
        SCORE,
        err=r"g.jsonl: line 2 is not JSON",
        files={"g.jsonl": GRID.splitlines()[0] + "\n{oops\n", "p.jsonl": GOLD},
    ),
    Case(
        "score-grid-duplicate-id",
        SCORE,
        err=r"g.jsonl: line 2: duplicate id",
        files={"g.jsonl": GRID.splitlines()[0] + "\n" + GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-grid-bad-answer",
        SCORE,
        err=r"'answer' must be one of the options' letters A, B, got \"E\"",
        files={"g.jsonl": _jsonl([{**GRID_RECORDS[0], "answer": "E"}]), "p.jsonl": GOLD},
    ),
    Case(
        "score-grid-missing-cell",
        SCORE,
        err=r"missing field 'cell'",
        files={
            "g.jsonl": _jsonl([{k: v for k, v in GRID_RECORDS[0].items() if k != "cell"}]),
            "p.jsonl": GOLD,
        },
    ),
    Case(
        "score-grid-not-utf8",
        SCORE,
        err=r"g.jsonl: cannot read as UTF-8 text",
        files={"g.jsonl": b"\xff\xfe\x00{", "p.jsonl": GOLD},
    ),
    Case(
        "score-grid-deeply-nested",
        SCORE,
        err=r"nested too deeply|not valid JSON",
        files={"g.jsonl": "[" * 100_000 + "]" * 100_000, "p.jsonl": GOLD},
    ),
    Case(
        "score-predictions-missing",
        SCORE,
        err=r"p.jsonl: predictions file not found",
        files={"g.jsonl": GRID},
    ),
    Case(
        "score-predictions-empty",
        SCORE,
        err=r"p.jsonl: empty file",
        files={"g.jsonl": GRID, "p.jsonl": ""},
    ),
    Case(
        "score-predictions-blank-lines",
        SCORE,
        err=r"p.jsonl: empty file",
        files={"g.jsonl": GRID, "p.jsonl": "\n \n"},
    ),
    Case(
        "score-predictions-empty-array",
        SCORE,
        err=r"no predictions",
        files={"g.jsonl": GRID, "p.jsonl": "[]"},
    ),
    Case(
        "score-predictions-not-json",
        SCORE,
        err=r"p.jsonl: not JSON or JSON Lines",
        files={"g.jsonl": GRID, "p.jsonl": "id,prediction\n"},
    ),
    Case(
        "score-predictions-not-objects",
        SCORE,
        err=r"no usable prediction in 2 records; first problem: record 0: record must be a JSON "
        r"object, got 1",
        files={"g.jsonl": GRID, "p.jsonl": "[1, 2]\n"},
    ),
    Case(
        "score-unknown-ids",
        SCORE,
        err=r"2 prediction id\(s\) not among the questions of the grid g.jsonl: \"x1\", \"x2\"",
        files={
            "g.jsonl": GRID,
            "p.jsonl": _jsonl([{"id": "x1", "prediction": "A"}, {"id": "x2", "prediction": "A"}]),
        },
    ),
    Case(
        "score-duplicate-ids",
        SCORE,
        err=r"line 2: duplicate id .* \(first at line 1\)",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0], "prediction": "A"}] * 2)},
    ),
    # the one policy for unscorable predictions (as score-nli): counted as not correct, quoted,
    # coverage beside every accuracy; --strict refuses them
    Case(
        "score-label-outside-set-counts-as-unreadable",
        SCORE,
        exit=0,
        stdout=r"(?s)coverage = 0.0000 \(0 answered, \d+ abstained, 1 unreadable\).*unreadable "
        r"predictions: '\S+': \"Maybe\" is outside the grid's label set \(A, B, C, False, True",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0], "prediction": "Maybe"}])},
    ),
    Case(
        "score-label-outside-set-strict",
        [*SCORE, "--strict"],
        err=r"p.jsonl: record 0: \"Maybe\" is outside the grid's label set .*--strict refuses",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0], "prediction": "Maybe"}])},
    ),
    Case(
        "score-label-number-counts-as-unreadable",
        SCORE,
        exit=0,
        stdout=r"1 unreadable\).*\n.*1 is not a label string",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0], "prediction": 1}])},
    ),
    Case(
        "score-label-number-strict",
        [*SCORE, "--strict"],
        err=r"record 0: 1 is not a label string .*--strict",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0], "prediction": 1}])},
    ),
    Case(
        "score-id-number",
        SCORE,
        err=r"1 prediction id\(s\) not among the questions of the grid g.jsonl: \"3\"",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": 3, "prediction": "A"}])},
    ),
    Case(
        "score-missing-prediction-field",
        SCORE,
        err=r"no usable prediction in 1 records; first problem: record 0: record \"\S+\" has no "
        r"field 'prediction'",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": IDS[0]}])},
    ),
    Case(
        "score-skipped-record-is-counted",
        SCORE,
        exit=0,
        stdout=r"skipped predictions: line 1: record must be a JSON object, got \[1, 2\]",
        files={"g.jsonl": GRID, "p.jsonl": "[1, 2]\n" + GOLD},
    ),
    Case(
        "score-skipped-record-strict",
        [*SCORE, "--strict"],
        err=r"p.jsonl: line 1: record must be a JSON object, got \[1, 2\] \(--strict refuses",
        files={"g.jsonl": GRID, "p.jsonl": "[1, 2]\n" + GOLD},
    ),
    Case(
        "score-gold-round-trip",
        SCORE,
        exit=0,
        stdout=r"coverage = 1.0000 \(96 answered, 0 abstained, 0 unreadable\)   accuracy = 1.0000",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-coverage-below-one-is-reported",
        SCORE,
        exit=0,
        stdout=r"coverage = 0.5000 \(48 answered, 48 abstained, 0 unreadable\)   accuracy = 0.5000 "
        r".* on answered = 1.0000",
        files={"g.jsonl": GRID, "p.jsonl": HALF},
    ),
    Case(
        "score-nulls-abstain",
        SCORE,
        exit=0,
        stdout=r"coverage = 0.0000",
        files={"g.jsonl": GRID, "p.jsonl": _jsonl({"id": i, "prediction": None} for i in IDS)},
    ),
    Case(
        "score-byte-order-mark",
        [*SCORE, "--json"],
        exit=0,
        stdout=r'"coverage": 1.0',
        files={"g.jsonl": GRID, "p.jsonl": b"\xef\xbb\xbf" + GOLD.encode()},
    ),
    Case(
        "score-unknown-on-a-closed-question-counts-wrong",
        [*SCORE, "--json"],
        exit=0,
        stdout=r'"not_an_option": 1',
        files={"g.jsonl": GRID, "p.jsonl": _jsonl([{"id": CLOSED_ID, "prediction": "C"}])},
    ),
    Case(
        "score-resamples-negative",
        [*SCORE, "--resamples", "-1"],
        err=r"--resamples must be an integer in \[0, 10000\], got -1",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-resamples-huge",
        [*SCORE, "--resamples", "1e9"],
        err=r"--resamples must be an integer",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-seed-negative",
        [*SCORE, "--seed=-3"],
        err=r"--seed must be an integer",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-mix-wrong-length",
        [*SCORE, "--mix", "1,2,3"],
        err=r"--mix must be 2 weights \(one per depth \[0, 1\]\), got 3",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-mix-nan",
        [*SCORE, "--mix", "1,nan"],
        err=r"--mix must be finite numbers",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-mix-negative",
        [*SCORE, "--mix=1,-2"],
        err=r"--mix: counts must be >= 0, got -2",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-mix-zero",
        [*SCORE, "--mix", "0,0"],
        err=r"--mix: counts must not all be zero",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-mix-huge",
        [*SCORE, "--mix", "1e308,1e308"],
        exit=0,
        stdout=r"aggregate under --mix: 1.0000",
        files={"g.jsonl": GRID, "p.jsonl": GOLD},
    ),
    Case(
        "score-against-unknown-ids",
        [*SCORE, "--against", "o.jsonl"],
        err=r"o.jsonl: 1 prediction id\(s\) not among the questions of the grid g.jsonl",
        files={
            "g.jsonl": GRID,
            "p.jsonl": GOLD,
            "o.jsonl": _jsonl([{"id": "x", "prediction": "A"}]),
        },
    ),
    Case(
        "score-against-ties",
        [*SCORE, "--against", "o.jsonl"],
        exit=0,
        stdout=r"two-depth mixes that tie this system and --against",
        files={"g.jsonl": GRID, "p.jsonl": GOLD, "o.jsonl": HALF},
    ),
]

MIXTURE_CASES = [
    Case(
        "mixture-huge-counts",
        ["mixture", "--a", "1,0.1", "--b", "0.1,1", "--n", "1e308,1e308"],
        exit=0,
        stdout=r"aggregate a = 0.5500\naggregate b = 0.5500",
    ),
    Case(
        "mixture-inf-count",
        ["mixture", "--a", "1,0.1", "--b", "0.1,1", "--n", "inf,1"],
        err=r"--n must be finite numbers",
    ),
    Case(
        "mixture-zero-counts",
        ["mixture", "--a", "1,0.1", "--b", "0.1,1", "--n", "0,0"],
        err=r"--n: counts must not all be zero",
    ),
    Case("mixture-empty-a", ["mixture", "--a", "", "--b", "0.1,1"], err=r"--a must be"),
    Case(
        "mixture-too-many-depths",
        ["mixture", "--a", ",".join(["0.5"] * 2000), "--b", ",".join(["0.4"] * 2000)],
        err=r"--a: the tie table takes at most 500 depths .* got 2000",
        timeout=10,
    ),
    Case(
        "mixture-500-depths-finishes",
        ["mixture", "--a", ",".join(["0.5"] * 500), "--b", ",".join(["0.4"] * 500), "--json"],
        exit=0,
        stdout=r'"pure_depth"',
        timeout=30,
    ),
]


# ---------------------------------------------------------------- writes, bounds, grid checks
def _renamed(files: dict, name: str) -> dict:
    """The params files of :func:`_params` with params.yaml under another name."""
    out = dict(files)
    out[name] = out.pop("params.yaml")
    return out


LAUGHS = "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9) if a else ', '.join(['lol'] * 9)}]\n"
    for a, b in zip(["", *"abcdefgh"], "abcdefghi")
)
HUGE_ID = "q" * 2_000_000


def _cell(i: int, **change) -> str:
    records = [dict(r) for r in GRID_RECORDS]
    records[i] = {**records[i], "cell": {**records[i]["cell"], **change}}
    return _jsonl(records)


IO_CASES = [
    *out_rule_cases(
        "export",
        ["axes-export", "--params", "params.yaml", "--out", "OUT"],
        _params(_tiny),
        inputs=["params.yaml"],
    ),
    Case(
        "export-params-billion-laughs",
        ["axes-export", "--out", "g.jsonl", "--params", "laughs.yaml"],
        err=r"laughs.yaml: aliases would expand the document to [\d,]+ nodes from 28 written",
        files={**SCHEMAS, "laughs.yaml": LAUGHS},
        out="g.jsonl",
        timeout=20,
    ),
    Case(
        "export-params-alias-into-itself",
        ["axes-export", "--out", "g.jsonl", "--params", "p.yaml"],
        err=r"p.yaml: an alias refers to the node that contains it",
        files={**SCHEMAS, "p.yaml": "a: &a [1, *a]\n"},
        out="g.jsonl",
    ),
    Case(
        "export-params-dev-zero",
        ["axes-export", "--out", "g.jsonl", "--params", "/dev/zero"],
        err=r"/dev/zero: larger than 256 MiB",
        out="g.jsonl",
    ),
    Case(
        "export-size-refusal-names-the-file-given",
        ["axes-export", "--out", "g.jsonl", "--params", "mine.yaml"],
        err=r"^error: mine.yaml: axes.grid.per_cell: the grid would hold [\d,]+ questions .*the "
        r"limit is 1,000,000",
        files=_renamed(_params(_set(["grid", "per_cell"], 100_000)), "mine.yaml"),
        out="g.jsonl",
    ),
    Case(
        "score-grid-dev-zero",
        ["axes-score", "p.jsonl", "--grid", "/dev/zero"],
        files={"p.jsonl": GOLD},
        err=r"/dev/zero: larger than 256 MiB",
    ),
    Case(
        "score-grid-depth-a-word",
        SCORE,
        files={"g.jsonl": _cell(3, depth="deep"), "p.jsonl": GOLD},
        err=r"g.jsonl: line 4: cell.depth must be one of the grid's depth levels, integers in "
        r"\[0, 20\], got \"deep\"",
    ),
    Case(
        "score-grid-depth-1e308",
        SCORE,
        files={"g.jsonl": _cell(0, depth=1e308), "p.jsonl": GOLD},
        err=r"line 1: cell.depth must be one of the grid's depth levels, integers in \[0, 20\], "
        r"got 1e\+308",
    ),
    Case(
        "score-grid-order-unknown",
        SCORE,
        files={"g.jsonl": _cell(5, order="sorted"), "p.jsonl": GOLD},
        err=r"line 6: cell.order must be one of the grid's order levels, one of canonical, "
        r"shuffled",
    ),
    Case(
        "score-grid-own-axis-mixed-kinds",
        SCORE,
        files={
            "g.jsonl": _jsonl(
                {**r, "cell": {**r["cell"], "topic": "a" if i else 1}}
                for i, r in enumerate(GRID_RECORDS)
            ),
            "p.jsonl": GOLD,
        },
        err=r"line 2: cell.topic must be a number like on line 1 \(one axis, one kind of level\)",
    ),
    Case(
        "score-grid-own-axis-is-scored",
        SCORE,
        files={
            "g.jsonl": _jsonl(
                {**r, "cell": {**r["cell"], "topic": "ab"[i % 2]}}
                for i, r in enumerate(GRID_RECORDS)
            ),
            "p.jsonl": GOLD,
        },
        exit=0,
        stdout=r"topic +a +48",
    ),
    Case(
        "score-huge-unknown-id-is-cut",
        SCORE,
        files={"g.jsonl": GRID, "p.jsonl": GOLD + _jsonl([{"id": HUGE_ID, "prediction": "A"}])},
        err=r"not among the questions of the grid g.jsonl: \"q{50,60}\.\.\.$",
    ),
    Case(
        "score-grid-huge-duplicate-id-is-cut",
        SCORE,
        files={
            "g.jsonl": _jsonl([{**GRID_RECORDS[0], "id": HUGE_ID}] * 2),
            "p.jsonl": GOLD,
        },
        err=r"line 2: duplicate id \"q{50,60}\.\.\. \(first on line 1\)$",
    ),
    Case(
        "score-grid-first-line-a-json-array",
        SCORE,
        files={"g.jsonl": "[1, 2]\n" + GRID, "p.jsonl": GOLD},
        err=r"g.jsonl: line 1: record must be a JSON object, got \[1, 2\]",
    ),
]


@parametrize(EXPORT_CASES + SCORE_CASES + MIXTURE_CASES + IO_CASES)
def test_axes_cli_case(case, tmp_path):
    run_case(case, tmp_path)
