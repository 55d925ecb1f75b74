"""The axes instrument's commands: the mixture confound, and the grid as a benchmark.

``nesybench mixture``: give two systems' per-depth accuracy profiles (and
optionally the bank's per-depth question counts); get both aggregates
A = sum_d pi_d a_d, the two-depth mixes that tie the systems, and which
pure-depth bank ranks each system first.

``nesybench axes-export``: write the generated grid as JSONL for any model.
``nesybench axes-score``: score a model's answers on it (the degradation profile).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from ..cli_args import add_command, add_json, add_out, check_out, examples, write_out
from ..console import format_number, format_table
from ..errors import InputError
from ..io import dumps_json


def _floats(text: str, name: str) -> list[float]:
    values = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise InputError(f"--{name} must be comma-separated numbers, got {text!r}") from None
        if not math.isfinite(value):
            raise InputError(f"--{name} must be finite numbers, got {item!r}")
        values.append(value)
    return values


MIXTURE_DOC = """Give two systems' per-depth accuracy profiles (and optionally the bank's per-depth
question counts); get both aggregates A = sum_d pi_d a_d, the two-depth mixes that tie the
systems, and which pure-depth bank ranks each system first.
"""


def register(subparsers) -> None:
    _register_mixture(subparsers)
    _register_export(subparsers)
    _register_score(subparsers)


def _register_mixture(subparsers) -> None:
    p = add_command(
        subparsers,
        "mixture",
        help="aggregate accuracies, tie mixes and pure-depth winners of two per-depth profiles",
        description=MIXTURE_DOC,
        epilog=examples(
            "nesybench mixture --a 1.0,0.9659,0.5,0.5 --b 0.9266,1.0,0.8321,1.0 --n 804,352,280,64"
        ),
    )
    p.add_argument(
        "--a",
        required=True,
        metavar="A0,A1,...",
        help="system a's accuracy at depth 0, 1, ... (in [0, 1])",
    )
    p.add_argument(
        "--b", required=True, metavar="B0,B1,...", help="system b's accuracy at the same depths"
    )
    p.add_argument(
        "--n",
        metavar="N0,N1,...",
        help="questions per depth in the bank (>= 0); gives the aggregates",
    )
    add_json(p, help="print JSON (aggregate_a, aggregate_b, ties, pure_depth)")
    p.set_defaults(func=run_mixture)


def run_mixture(args: argparse.Namespace) -> int:
    from .mixture import mixture_report

    a, b = _floats(args.a, "a"), _floats(args.b, "b")
    n = _floats(args.n, "n") if args.n is not None else None
    if len(a) != len(b):
        raise InputError(f"--b must be {len(a)} accuracies (as many as --a), got {len(b)}")
    if len(a) < 2:
        raise InputError(f"--a must be accuracies for at least 2 depths, got {len(a)}")
    if n is not None and len(n) != len(a):
        raise InputError(f"--n must be {len(a)} counts (one per depth), got {len(n)}")
    report = mixture_report(a, b, n, names=("--a", "--b", "--n"))
    if args.json:
        print(dumps_json(report), end="")
        return 0
    if n is not None:
        print(f"aggregate a = {report['aggregate_a']:.4f}")
        print(f"aggregate b = {report['aggregate_b']:.4f}")
    ties = pd.DataFrame(
        [
            {
                "depths": f"{t['depths'][0]},{t['depths'][1]}",
                "pi_first": "-" if t["pi"] is None else f"{t['pi']:.4f}",
                "tied accuracy": "-" if t["accuracy"] is None else f"{t['accuracy']:.4f}",
            }
            for t in report["ties"]
        ]
    )
    print(
        "\nmixes over two depths that tie a and b (pi_first = weight of the first depth; - = no "
        "tie in [0, 1])"
    )
    print(format_table(ties))
    print("\npure-depth banks: which system ranks first")
    print(format_table(pd.DataFrame(report["pure_depth"])))
    return 0


# --------------------------------------------------------------------------- axes-export

EXPORT_DOC = """Write the generated grid as JSON lines, one question per line, in ProofWriter's
shape, for any model; score its answers with `nesybench axes-score`.
"""

EXPORT_EPILOG = """\
Each line: id, context, question, options (["A) True", "B) False"] closed-world, plus
"C) Unknown" open-world), answer (the letter), plus cell (the axis levels: depth,
distractors, order, negation, vocabulary, synonyms) and proof (the gold derivation as
sentences, [] without one). Feed context + question to your model.

The grid comes from --params (its axes.grid, validated against the schema beside it) or,
without it, from the built-in default (the repository's params.yaml); --seed picks the
seed (default 0, the first seed of the pipeline's sweep, whose reference systems' answers
the pipeline scores). The same params and seed give the same bytes.

""" + examples("nesybench axes-export --out grid.jsonl")


def _register_export(subparsers) -> None:
    p = add_command(
        subparsers,
        "axes-export",
        help="write the generated difficulty grid as JSONL (ProofWriter's shape) for any model",
        description=EXPORT_DOC,
        epilog=EXPORT_EPILOG,
    )
    add_out(p, required=True, metavar="GRID.jsonl", help="file to write")
    p.add_argument(
        "--params",
        metavar="PARAMS.yaml",
        help="params file whose axes.grid defines the grid (default: built in)",
    )
    p.add_argument(
        "--seed",
        default="0",
        metavar="S",
        help="the grid's seed (default 0: the pipeline sweep's first seed)",
    )
    p.add_argument(
        "--split",
        choices=("eval", "train"),
        default="eval",
        help="eval (default) or the training grid's independent stream",
    )
    p.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    import time

    from .grid import (
        DEFAULT_LEVELS,
        DEFAULT_PER_CELL,
        GridSpec,
        generate_grid,
        grid_jsonl,
    )

    out = Path(args.out)
    seed = _int_option(args.seed, "seed", 0, 2**63 - 1)
    check_out(out, inputs=[args.params])
    if args.params is None:
        source = "built-in default grid"
        spec = GridSpec.from_params({"levels": DEFAULT_LEVELS, "per_cell": DEFAULT_PER_CELL})
    else:
        from ..params import load_params

        params = load_params(args.params)
        if "axes" not in params or "grid" not in params["axes"]:
            raise InputError(f"{args.params}: has no axes.grid section")
        source = args.params
        spec = GridSpec.from_params(params["axes"]["grid"], source=args.params)
    started = time.perf_counter()
    questions = generate_grid(spec, seed=seed, split=args.split)
    write_out(out, grid_jsonl(questions))
    labels = {}
    for q in questions:
        labels[q.label] = labels.get(q.label, 0) + 1
    print(
        f"wrote {len(questions):,} questions to {out} ({len(spec.cells())} cells x "
        f"{spec.cell_size} per cell; {source}, seed {seed}, split {args.split}; "
        f"{time.perf_counter() - started:.1f} s)"
    )
    print("labels: " + ", ".join(f"{k} {v:,}" for k, v in labels.items()))
    for axis in ("depth", "distractors", "order", "negation", "vocabulary", "synonyms"):
        print(f"  {axis:<12} {', '.join(str(v) for v in getattr(spec, axis))}")
    return 0


# --------------------------------------------------------------------------- axes-score

SCORE_DOC = """Score your model's answers on a grid written by `nesybench axes-export`: the
degradation profile per axis, the interaction table, the regression on the axis levels and
the mixture analysis of the per-depth profile.
"""

SCORE_EPILOG = """\
PREDICTIONS is JSON lines {"id": ..., "prediction": ...}: a letter ("A"), an option
("A) True") or a label ("True", "false", "unknown": any case). Every question counts in
every accuracy: null or a missing id is an abstention, a prediction outside the grid's
label set is unreadable, and neither is correct; coverage (the share answered) stands
beside every accuracy, with the accuracy on the answered questions, and unreadable
predictions and records are counted and quoted. --strict refuses them instead (exit 2).
Unknown or duplicate ids, or an empty file, are errors. The same policy holds in
`nesybench score-nli`.

Prints accuracy with a Wilson 95% interval per level of each axis (the degradation profile),
the depth x distractors interaction table, the spread of accuracy across each axis's levels
and a logistic regression of correctness on the axis levels (bootstrap intervals), and the
per-depth profile's mixture analysis: the aggregate under the grid's depth mix, a uniform
mix, --mix, and its range; with --against (another system's predictions on the same grid),
the two-depth mixes that tie the two systems.

""" + examples("nesybench axes-score predictions.jsonl --grid grid.jsonl --json")


def _register_score(subparsers) -> None:
    p = add_command(
        subparsers,
        "axes-score",
        help="score your model's answers on the grid: degradation profile, interaction, mixture",
        description=SCORE_DOC,
        epilog=SCORE_EPILOG,
    )
    p.add_argument("predictions", metavar="PREDICTIONS", help="your model's answers (JSONL)")
    p.add_argument("--grid", required=True, metavar="GRID", help="the exported grid (JSONL)")
    p.add_argument(
        "--against",
        metavar="OTHER",
        help="a second system's predictions on the same grid (mixture ties)",
    )
    p.add_argument(
        "--mix", metavar="N0,N1,...", help="another depth mix (one weight per depth level)"
    )
    p.add_argument(
        "--resamples",
        default="200",
        metavar="B",
        help="bootstrap resamples for the coefficients (0..10000, default 200)",
    )
    p.add_argument("--seed", default="0", metavar="S", help="bootstrap seed (default 0)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse a prediction that is not a label, or a record that cannot be read, "
        "instead of counting it as not correct",
    )
    add_json(p, help="print the full result as JSON")
    p.set_defaults(func=run_score)


def _int_option(text: str, name: str, lo: int, hi: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"--{name} must be an integer in [{lo}, {hi}], got {text!r}") from None
    if not lo <= value <= hi:
        raise InputError(f"--{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


def run_score(args: argparse.Namespace) -> int:
    from .scoring import read_grid, read_predictions, score

    resamples = _int_option(args.resamples, "resamples", 0, 10_000)
    seed = _int_option(args.seed, "seed", 0, 2**63 - 1)
    mix = _floats(args.mix, "mix") if args.mix is not None else None
    grid = read_grid(args.grid)
    predictions = read_predictions(args.predictions, grid, strict=args.strict)
    against = read_predictions(args.against, grid, strict=args.strict) if args.against else None
    result = score(grid, predictions, against=against, mix=mix, resamples=resamples, seed=seed)
    if args.json:
        print(dumps_json(result), end="")
        return 0
    _print_score(result)
    return 0


def _print_score(r: dict) -> None:
    print(
        f"n = {r['n']:,}   coverage = {r['coverage']:.4f} ({r['answered']:,} answered, "
        f"{r['abstained']:,} abstained, {r['unreadable']:,} unreadable)   accuracy = "
        f"{r['accuracy']:.4f} [{r['accuracy_lo']:.4f}, {r['accuracy_hi']:.4f}]   on answered = "
        f"{format_number(r['accuracy_answered'])}"
    )
    for key in ("unreadable_predictions", "skipped_predictions"):
        for item in r.get(key, []):
            print(f"  {key.replace('_', ' ')}: {item}")
    rows = [
        {
            "axis": axis,
            "level": level,
            "n": s["n"],
            "coverage": s["answered"] / s["n"],
            "accuracy": s["accuracy"],
            "95% interval": f"[{s['lo']:.4f}, {s['hi']:.4f}]",
            "on answered": format_number(s["accuracy_answered"]),
        }
        for axis, levels in r["per_axis"].items()
        for level, s in levels.items()
    ]
    print(
        "\ndegradation profile: accuracy per level of each axis (abstained and unreadable: "
        "not correct)"
    )
    print(format_table(pd.DataFrame(rows)))
    if r["interaction"] is not None:
        it = r["interaction"]
        table = pd.DataFrame(it["table"])
        grid = table.pivot(index=it["rows"], columns=it["columns"], values="accuracy")
        grid.columns = [f"{it['columns']}={c}" for c in grid.columns]
        print(f"\ninteraction: accuracy per {it['rows']} (rows) x {it['columns']} (columns)")
        print(format_table(grid.reset_index()))
        if any(row["coverage"] < 1 for row in it["table"]):
            cover = table.pivot(index=it["rows"], columns=it["columns"], values="coverage")
            cover.columns = [f"{it['columns']}={c}" for c in cover.columns]
            print("coverage of those cells (share answered)")
            print(format_table(cover.reset_index()))
        contrast = table.pivot(index=it["rows"], columns=it["columns"], values="contrast")
        contrast.columns = [f"{it['columns']}={c}" for c in contrast.columns]
        r0, c0 = table[it["rows"]].iloc[0], table[it["columns"]].iloc[0]
        print(
            f"interaction contrast [a(r, c) - a(r, {c0})] - [a({r0}, c) - a({r0}, {c0})] "
            f"(r = {it['rows']}, c = {it['columns']}; negative: c costs more at r than at {r0})"
        )
        shown = contrast.reset_index()
        print(format_table(shown.astype(object).where(shown.notna(), "-")))
    spread = pd.DataFrame(
        [{"axis": a, "spread": v} for a, v in sorted(r["spread"].items(), key=lambda kv: -kv[1])]
    )
    print(f"\nspread of accuracy across each axis's levels (largest: {r['most_moving_axis']})")
    print(format_table(spread))
    co = r["coefficients"]
    if co["terms"]:
        print(
            f"\nlogistic regression of correctness on the axis levels (C = {co['C']}, "
            f"{co['used']} bootstrap resamples, {co['level']:.0%} intervals; largest effect: "
            f"{co['most_moving_axis']})"
        )
        terms = pd.DataFrame(
            [
                {
                    "term": f"{t['axis']}={t['level']}",
                    "coef": t["coef"],
                    "interval": f"[{format_number(t['lo'])}, {format_number(t['hi'])}]",
                }
                for t in co["terms"]
            ]
        )
        print(format_table(terms))
    else:
        print(f"\nlogistic regression: {co.get('note', 'no terms')}")
    mx = r["mixture"]
    if mx is not None:
        print("\nmixture: the aggregate is the per-depth profile weighted by the depth mix")
        profile = {"depth": mx["depths"], "n": mx["n"], "accuracy": mx["accuracy"]}
        if "coverage" in mx:
            profile["coverage"] = mx["coverage"]
        print(format_table(pd.DataFrame(profile)))
        print(
            f"aggregate under the grid's mix {mx['aggregate']:.4f}, uniform "
            f"{mx['aggregate_uniform']:.4f}, over all mixes "
            f"[{mx['range'][0]:.4f}, {mx['range'][1]:.4f}]"
        )
        if "under_mix" in mx:
            print(f"aggregate under --mix: {mx['under_mix']['aggregate']:.4f}")
        if "against" in mx:
            ag = mx["against"]
            print(f"--against: aggregate {ag['aggregate']:.4f} under the grid's mix")
            ties = pd.DataFrame(
                [
                    {
                        "depths": f"{t['depths'][0]},{t['depths'][1]}",
                        "pi_first": format_number(t["pi"]),
                        "tied accuracy": format_number(t["accuracy"]),
                    }
                    for t in ag["ties"]
                ]
            )
            print("two-depth mixes that tie this system and --against (- = no tie in [0, 1])")
            print(format_table(ties))
