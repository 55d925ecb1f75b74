"""The nli commands on a user's own files.

``check-trace``  the step checker on chains of thought (PrOntoQA's format);
``label``        the reference labeler on a whole benchmark file: parse rate, agreement, proofs;
``score-nli``    a user's predictions against a benchmark's gold, with the baselines beside.

Heavy imports (pandas, z3) wait inside the handlers, so ``nesybench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import math

from ..cli_args import (
    add_benchmark,
    add_command,
    add_json,
    add_out,
    check_out,
    examples,
    write_out,
)
from ..console import format_number
from ..errors import InputError
from ..io import dumps_json
from .checker import FLAGS
from .trace_check import check_record, read_records, summarize

#: the step checker's readings (nesybench.nli.prontoqa_eval.CONVENTIONS; kept here so that
#: ``nesybench --help`` does not import the checker's evaluator)
CONVENTIONS = ("nesybench", "prontoqa")
CONV_HELP = (
    "whose reading decides strict/broad: nesybench (default: every step valid, the chain "
    "linear, the last step decides) or prontoqa (PrOntoQA main's evaluator); docs/nli.md "
    "lists every rule that differs"
)

EPILOG = """\
TRACES is a JSON list of records, or JSON Lines (one record per line). A record has
  context            string: the premises, in the PrOntoQA grammar
  question           string: "True or false: Max is sour." (or a bare statement)
  chain_of_thought   list of sentences, or one string (alias: explanation)
  answer             optional: "True"/"False", or "A"/"B" with options ["A) True", "B) False"]
A record that cannot be read gets an error entry and the others are still checked.

""" + examples("nesybench check-trace dev.json --out verdicts.jsonl")


def register(subparsers) -> None:
    p = add_command(
        subparsers,
        "check-trace",
        help="check chains of thought step by step (parsed / valid / linear / connects / strict)",
        description="Check each record's chain of thought against its context with the nli step "
        "checker.",
        epilog=EPILOG,
    )
    p.add_argument("file", metavar="TRACES", help="JSON list or JSONL of records (see below)")
    add_json(p, help="print the summary as JSON")
    add_out(p, metavar="OUT.jsonl", help="write one verdict per record as JSONL")
    p.add_argument("--conventions", choices=CONVENTIONS, default="nesybench", help=CONV_HELP)
    p.set_defaults(func=run)
    _register_label(subparsers)
    _register_score_nli(subparsers)
    _register_execute_programs(subparsers)


def run(args) -> int:
    check_out(args.out, inputs=[args.file])
    records = read_records(args.file)
    verdicts = []
    for i, record in enumerate(records):
        verdict = check_record(record, args.conventions)
        head = {"index": i}
        if isinstance(record, dict) and isinstance(record.get("id"), (str, int)):
            head["id"] = record["id"]
        verdicts.append({**head, **verdict})
    summary = summarize(verdicts)
    summary["conventions"] = args.conventions
    if verdicts and not summary["n_checked"]:
        first = next(v for v in verdicts if "error" in v)
        raise InputError(
            f"{args.file}: no record could be checked ({len(verdicts)} records); first problem: "
            f"record {first['index']}: {first['error']}"
        )
    if args.out:
        write_out(args.out, "".join(json.dumps(v, sort_keys=True) + "\n" for v in verdicts))
    if args.json:
        print(dumps_json(summary), end="")
    else:
        print(
            f"{summary['n']} records, {summary['n_checked']} checked, {summary['n_errors']} "
            f"unreadable; strict and broad under the {args.conventions} conventions"
        )
        for flag in (*FLAGS, "broad"):
            rate = summary[f"{flag}_rate"]
            print(f"  {flag + '_rate':14s} {'-' if rate is None else f'{rate:.4f}'}")
        if "label_acc" in summary:
            print(
                f"  {'label_acc':14s} {summary['label_acc']:.4f}  ({summary['n_with_answer']} "
                "with answers)"
            )
        for v in verdicts:
            if "error" in v:
                print(f"  record {v['index']}: error: {v['error']}")
    return 0


# ---------------------------------------------------------------- label
LABEL_EPILOG = """\
BENCHMARK_FILE is a benchmark file in its own format:
  proofwriter, prontoqa   JSON list (or JSONL) of {id, context, question, options, answer}
  folio                   JSONL of {premises-FOL, conclusion-FOL, label, ...}
The reference labeler re-derives each gold label (ProofWriter, PrOntoQA: open-world
forward chaining; FOLIO: the dual query on z3). A sentence or formula that does not
parse is counted and quoted, never labeled by a guess.

""" + examples(
    "nesybench label benchmarks/proofwriter/dev-sample.json --benchmark proofwriter",
    "nesybench label benchmarks/folio/folio-validation.jsonl --benchmark folio --json",
)

#: the largest --time-limit accepted (seconds per solver call)
MAX_TIME_LIMIT = 3600.0


def _time_limit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_TIME_LIMIT:
        raise argparse.ArgumentTypeError(
            f"expected seconds in (0, {MAX_TIME_LIMIT:g}], got {text!r}"
        )
    return value


def _add_time_limit(p, help_text: str = "seconds per solver call (FOLIO; default 10)") -> None:
    p.add_argument("--time-limit", type=_time_limit, default=10.0, metavar="S", help=help_text)


def _register_label(subparsers) -> None:
    from .labelers import LABELED

    p = add_command(
        subparsers,
        "label",
        help="re-derive a benchmark's gold labels with the reference labeler (agreement, proofs)",
        description="Label every question of a ProofWriter, PrOntoQA or FOLIO file with the "
        "reference labeler and compare with the gold labels.",
        epilog=LABEL_EPILOG,
    )
    p.add_argument("file", metavar="BENCHMARK_FILE", help="the benchmark file, in its own format")
    add_benchmark(p, LABELED, aliases=("--format",), help="the file's benchmark (alias --format)")
    add_json(p, help="print the summary and records as JSON")
    _add_time_limit(p)
    add_out(p, metavar="OUT.jsonl", help="write one verdict per question as JSONL")
    p.set_defaults(func=run_label)


def run_label(args) -> int:
    from ..progress import progress
    from .labelers import label_benchmark, summarize_labelings
    from .readers import read_benchmark

    check_out(args.out, inputs=[args.file])
    bench = read_benchmark(args.file, benchmark=args.benchmark)
    labelings = label_benchmark(
        bench,
        time_limit=args.time_limit,
        progress=lambda qs: progress(qs, desc=f"label: {args.benchmark}"),
    )
    summary = summarize_labelings(labelings)
    summary["skipped"] = [str(x) for x in bench.skipped]
    records = [x.as_dict() for x in labelings]
    if args.out:
        write_out(args.out, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    if args.json:
        print(dumps_json({**summary, "records": records}), end="")
        return 0
    by_id = bench.by_id()
    agreement = "-" if summary["agreement"] is None else f"{summary['agreement']:.4f}"
    print(
        f"{summary['n']} questions, {summary['parsed']} parsed "
        f"({summary['parse_rate']:.4f}), {len(bench.skipped)} records skipped"
    )
    print(f"agreement with gold: {summary['n_agree']}/{summary['parsed']} parsed ({agreement})")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items()))
    for skip in bench.skipped:
        print(f"  skipped {skip}")
    for x in labelings:
        if not x.parsed:
            print(f"  {x.id}: not parsed: {x.reason}")
    for x in labelings:
        if x.parsed and not x.agrees:
            depth = "" if x.depth is None else f" (depth {x.depth})"
            extra = f" -- {x.reason}" if x.reason else ""
            print(f"  {x.id}: gold {x.gold}, derived {x.derived}{depth}{extra}")
            q = by_id[x.id]
            if q.premises_fol is not None:
                for f in (*q.premises_fol, q.conclusion_fol):
                    print(f"      {f}")
            else:
                print(f"      theory: {q.context}")
                print(f"      question: {q.question}")
    return 0


# ---------------------------------------------------------------- score-nli
SCORE_EPILOG = """\
PREDICTIONS is JSONL (or a JSON list) of {"id": ..., "prediction": ...} with an optional
"explanation" (a chain of thought: a list of sentences or one string). A prediction is
True/False/Unknown, A/B/C, or yes/no for LogicBench (case-insensitive). --gold is the
benchmark's file in its own format (LogicBench: the BQA folder).

Every gold question counts in every accuracy: a question with no prediction, a null
prediction (an abstention) or a prediction that is not a label ("Maybe", 3) is not
correct. Coverage (the share answered with a label) stands beside every accuracy, with
the accuracy on the answered questions; unreadable predictions and records are counted
and quoted. --strict refuses them instead (exit 2). Ids not in the gold file are an
error. The same policy holds in `nesybench axes-score`.

""" + examples(
    "nesybench score-nli benchmarks/predictions/proofwriter-closed-world.jsonl \\",
    "    --benchmark proofwriter --gold benchmarks/proofwriter/dev-sample.json",
)


def _register_score_nli(subparsers) -> None:
    from .readers import BENCHMARKS

    p = add_command(
        subparsers,
        "score-nli",
        help="score predictions on ProofWriter/PrOntoQA/FOLIO/LogicBench with baselines beside",
        description="Score a model's predictions against a benchmark's gold labels: accuracy "
        "with its interval and coverage, confusion, macro F1, the input-blind baselines, and "
        "per depth / per axiom breakdowns.",
        epilog=SCORE_EPILOG,
    )
    p.add_argument(
        "predictions", metavar="PREDICTIONS", help="JSONL of {id, prediction[, explanation]}"
    )
    add_benchmark(p, BENCHMARKS, help="the gold's benchmark")
    p.add_argument(
        "--gold", required=True, metavar="GOLD", help="the gold file (LogicBench: folder)"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse a prediction that is not a label, or a record that cannot be read, "
        "instead of counting it as not correct",
    )
    add_json(p, help="print the report as JSON")
    _add_time_limit(p, "seconds per solver call of the reference labeler (default 10)")
    p.add_argument("--conventions", choices=CONVENTIONS, default="nesybench", help=CONV_HELP)
    p.set_defaults(func=run_score_nli)


def run_score_nli(args) -> int:
    from ..progress import progress
    from .readers import read_benchmark
    from .score_nli import read_predictions, score_predictions

    bench = read_benchmark(args.gold, benchmark=args.benchmark)
    preds = read_predictions(
        args.predictions, benchmark=args.benchmark, gold=bench, strict=args.strict
    )
    report = score_predictions(
        bench,
        preds,
        time_limit=args.time_limit,
        progress=lambda qs: progress(qs, desc="score-nli: reference depths"),
        conventions=args.conventions,
    )
    if args.json:
        print(dumps_json(report), end="")
        return 0
    print_score_report(report)
    return 0


def _coverage_line(r: dict) -> str:
    return (
        f"{r['answered']:,} answered, {r['abstained']:,} abstained, {r['unreadable']:,} "
        f"unreadable (coverage {r['coverage']:.4f})"
    )


def print_score_report(report: dict) -> None:
    """The ``score-nli`` report as text: every accuracy beside its coverage and baselines."""
    import pandas as pd

    from ..console import format_table

    b = report["baselines"]
    print(f"{report['benchmark']}: {report['n']:,} gold questions; {_coverage_line(report)}")
    print(
        f"accuracy {report['accuracy']:.4f}  [{report['accuracy_lo']:.4f}, "
        f"{report['accuracy_hi']:.4f}] (Wilson 95%; no label = not correct), coverage "
        f"{report['coverage']:.4f}, on answered {format_number(report['accuracy_answered'])}   "
        f"macro F1 {report['macro_f1']:.4f}"
    )
    line = (
        f"baselines: majority ({b['majority']['label']}) {b['majority']['accuracy']:.4f}, "
        f"uniform {b['uniform']:.4f}"
    )
    if "always_unknown" in b:
        line += f", always Unknown {b['always_unknown']:.4f}"
    lo, hi = b["blind_guess_range"]
    print(line + f", blind-guess range [{lo:.4f}, {hi:.4f}]")
    rows = [
        {
            "gold": g,
            "n": v["n"],
            "coverage": v["coverage"],
            "accuracy": v["accuracy"],
            "on answered": v["accuracy_answered"],
            **report["confusion"][g],
        }
        for g, v in report["per_label"].items()
    ]
    print("\nper gold label (accuracy, coverage; confusion: predicted counts, none = no label)")
    print(format_table(pd.DataFrame(rows).astype(object).fillna("-")))
    if report.get("per_depth"):
        print(
            "\nper proof depth (reference labeler; None = no proof, e.g. Unknown; majority = "
            "the best blind guess at that depth)"
        )
        df = pd.DataFrame(report["per_depth"])[
            ["depth", "n", "coverage", "accuracy", "lo", "hi", "majority"]
        ]
        df["depth"] = df["depth"].map(lambda d: "none" if d is None or pd.isna(d) else int(d))
        print(format_table(df))
        mix = report.get("mixture")
        if mix:
            print(
                f"depth mix: aggregate {mix['realized']:.4f} under the file's mix, "
                f"{mix['uniform']:.4f} under a uniform mix, anywhere in "
                f"[{mix['min']:.4f}, {mix['max']:.4f}] under another mix of these depths"
            )
        ref = report["reference"]
        print(
            f"reference labeler: {ref['parsed']}/{ref['n']} parsed, agreement "
            f"{format_number(ref['agreement'])}"
        )
    proof = report.get("proof")
    if proof:
        if "note" in proof:
            print(f"\nproof accuracy: {proof['note']}")
        else:
            print(
                f"\nwith explanations ({proof['n']}; step checker under the "
                f"{proof['conventions']} conventions): label accuracy "
                f"{proof['label_accuracy']:.4f}, proof accuracy {proof['proof_accuracy']:.4f} "
                f"[{proof['proof_accuracy_lo']:.4f}, {proof['proof_accuracy_hi']:.4f}], "
                f"right for the wrong reason {proof['right_for_wrong_reason']:.4f}"
            )
    if "per_axiom" in report:
        print(
            f"\nyes accuracy {format_number(report['yes_accuracy'])} (coverage "
            f"{format_number(report['yes_coverage'])}, {report['n_yes']}), no accuracy "
            f"{format_number(report['no_accuracy'])} "
            f"(coverage {format_number(report['no_coverage'])}, "
            f"{report['n_no']}), pair consistency {format_number(report['pair_consistency'])} "
            f"({report['n_samples']} samples, {report['n_samples_answered']} fully answered)"
        )
        for key in ("per_logic", "per_axiom"):
            rows = [{key[4:]: k, **v} for k, v in report[key].items()]
            print(f"\n{key.replace('_', ' ')}")
            print(
                format_table(pd.DataFrame(rows)[[key[4:], "n", "coverage", "accuracy", "lo", "hi"]])
            )
    for key in ("unreadable_predictions", "skipped_predictions", "skipped_gold"):
        for item in report[key]:
            print(f"  {key.replace('_', ' ')}: {item}")
    if report["unreadable"] > len(report["unreadable_predictions"]):
        print(f"  ... {report['unreadable']:,} unreadable predictions in all")


# ---------------------------------------------------------------- execute-programs
PROGRAMS_EPILOG = """\
PROGRAMS is a JSON list (or JSONL) of Logic-LM records: the question's fields (id, context,
question, options, answer) and raw_logic_programs, a list whose first text is the program
(Predicates:/Facts:/Rules:/Query: for ProofWriter and PrOntoQA, Premises:/Conclusion: for
FOLIO). A bad program inside a good file is counted as not executable, with its reason.
--semantics standard reads every argument of every atom in the open world;
--semantics logic-lm reproduces what Logic-LM's own solver does, quirks included.

""" + examples(
    "nesybench execute-programs benchmarks/logiclm-programs/ProofWriter_dev_gpt-3.5-turbo.json \\",
    "    --semantics logic-lm --json",
)


def _register_execute_programs(subparsers) -> None:
    from .programs import DATASETS, SEMANTICS

    p = add_command(
        subparsers,
        "execute-programs",
        help="execute LLM-written logic programs (Logic-LM's format) and audit the translation",
        description="Execute every program of a Logic-LM program file, score the answers, and "
        "attribute every wrong answer to a translation cause.",
        epilog=PROGRAMS_EPILOG,
    )
    p.add_argument(
        "file", metavar="PROGRAMS", help="JSON list or JSONL of records with raw_logic_programs"
    )
    p.add_argument("--semantics", choices=SEMANTICS, default="standard", help="default standard")
    add_benchmark(
        p,
        ("auto", *DATASETS),
        aliases=("--dataset",),
        default="auto",
        help="the programs' benchmark (alias --dataset); default auto: from the ids",
    )
    add_json(p, help="print the summary and records as JSON")
    _add_time_limit(p)
    add_out(p, metavar="OUT.jsonl", help="write one record per program as JSONL")
    p.set_defaults(func=run_execute_programs)


def run_execute_programs(args) -> int:
    from ..progress import progress
    from .program_tables import run_programs

    check_out(args.out, inputs=[args.file])
    run = run_programs(
        args.file,
        semantics=args.semantics,
        dataset=args.benchmark,
        time_limit=args.time_limit,
        progress=lambda xs: progress(xs, desc=f"execute-programs: {args.semantics}"),
    )
    records = [e.as_dict() for e in run.executions]
    if args.out:
        write_out(args.out, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    s = run.summary
    if args.json:
        print(dumps_json({**s, "records": records}), end="")
        return 0
    print(
        f"{s['dataset']} ({s['semantics']} semantics): {s['n']} programs, {s['executable']} "
        f"executable ({format_number(s['executable_rate'])}); accuracy on executable "
        f"{format_number(s['accuracy_executable'])}, "
        f"overall {format_number(s['accuracy'])} (not executable = "
        f"wrong), {format_number(s['accuracy_random_backup'])} expected with a random backup answer"
    )
    for label, v in s["per_label"].items():
        print(
            f"  gold {label:8s} n {v['n']:4d}  executable {v['executable']:4d}  "
            f"accuracy {format_number(v['accuracy'])}"
        )
    for depth, v in s["per_depth"].items():
        print(f"  depth {depth:5s} n {v['n']:4d}  accuracy {format_number(v['accuracy'])}")
    print("wrong answers by cause: " + ", ".join(f"{k} {v}" for k, v in s["causes"].items() if v))
    for failure, n in s["failures"].items():
        print(f"  not executable: {n:4d}  {failure}")
    if s["hash_order_dependent"]:
        shown = ", ".join(s["hash_order_dependent"][:10])
        more = len(s["hash_order_dependent"]) - 10
        print(
            f"  {len(s['hash_order_dependent'])} programs whose outcome in Logic-LM depends on "
            f"PYTHONHASHSEED (its lexer's set order): {shown}"
            + (f" and {more} more" if more > 0 else "")
        )
    for item in s["skipped"]:
        print(f"  skipped {item}")
    return 0
