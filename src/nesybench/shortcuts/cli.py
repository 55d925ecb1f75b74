"""``nesybench`` commands of the shortcuts instrument.

``count``: N_opt (the label-preserving relabelings) of your own knowledge and support.
``plan-supervision``: which observed states to give concept labels to.
``score-concepts``: the concept panel on your own model's concept predictions.
"""

from __future__ import annotations

import argparse
import math

from ..cli_args import add_bins, add_command, add_json, add_out, check_out, examples, write_out
from ..errors import InputError
from ..io import dumps_json

# Kept literal so that building the parser imports no engine; a test checks them against
# nesybench.counting.EXTRACTORS / METHODS.
EXTRACTOR_CHOICES = ("joint", "disentangled", "shared")
METHOD_CHOICES = ("auto", "enumerate", "factored", "exact", "approx", "permutations")
MAX_CLI_K = 10_000  # concepts on the command line (a k-bit state is k characters)
MAX_CLI_DOMAIN = 2**20
MAX_EPSILON = 10.0  # as the params schema
MAX_SEED = 2**63 - 1

COUNT_EXAMPLE = """
States: binary concepts as k-character bit strings (leftmost = concept 1), e.g. 0110;
categorical concepts as values joined by ':', e.g. 3:5 (concept 1 first).  FORMULA is
`xor` (k-bit parity), `sum` (y = the sum of the values) or a CNF such as
'(x1 | x2 | x3) & (x2 | x3 | ~x1)'.  --knowledge-table FILE: CSV or Parquet with columns
c1..ck (integers) and y (any label), every state exactly once.

The exact searches refuse work past a budget, naming the option that lifts it
(--max-subproblems, --max-states; 0 = no limit).

""" + examples(
    "nesybench count --knowledge xor --k 2 --support 00,01,10            # 32",
    "nesybench count --knowledge xor --k 4 --support-frac 1 --extractor disentangled   # 192",
    "nesybench count --knowledge sum --domains 10,10 --support-frac 1 --extractor shared   # 1",
    "nesybench count --knowledge sum --domains 10,10 --support 0:6,6:0,1:5,5:1 --extractor \\",
    "    disentangled --json",
    "nesybench count --knowledge-table my_k.csv --support-file seen.csv --extractor joint",
    "nesybench count --task rsbench/mnadd-evenodd --extractor shared    # 36 (nesybench tasks)",
)

PLAN_EXAMPLE = """
Greedy: each pick is the observed state whose concept label leaves the fewest optima
(N_opt recounted for every candidate); the exact optimum (every subset) is reported when
at most --exact-max-subsets subsets need trying, so the greedy gap is visible.

""" + examples(
    "nesybench plan-supervision --knowledge sum --domains 10,10 --support-frac 1 --budget 2",
    "nesybench plan-supervision --knowledge xor --k 3 --support 000,011,101 --budget 2 \\",
    "    --extractor disentangled --json",
    "nesybench plan-supervision --task rsbench/sdd-oia --budget 3          # 31104 > 64 > 1",
)


def register(subparsers) -> None:
    """Add the shortcuts commands; one small function per command."""
    _add_count(subparsers)
    _add_plan_supervision(subparsers)
    _add_score_concepts(subparsers)


def _csv_states(text: str) -> list[str]:
    return [s.strip() for s in text.split(",")] if text.strip() else []


def _add_task_arguments(parser) -> None:
    """Knowledge, concepts and support: shared by count and plan-supervision."""
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--knowledge", metavar="FORMULA", help="`xor`, `sum` or a CNF over x1..xk")
    what.add_argument(
        "--knowledge-table",
        metavar="FILE",
        help="CSV/Parquet with columns c1..ck (ints) and y: the label of every state",
    )
    what.add_argument(
        "--task",
        metavar="NAME",
        help="a named task (`nesybench tasks` lists them, e.g. rsbench/mnadd-evenodd): its "
        "knowledge, concepts and support",
    )
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--k", type=int, metavar="K", help="number of binary concepts (>= 1)")
    shape.add_argument(
        "--domains",
        metavar="D1,D2,...",
        help="domain size of each concept (>= 2 each), e.g. 10,10 for two digits",
    )
    where = parser.add_mutually_exclusive_group()  # required unless --task (checked in _task_of)
    where.add_argument("--support", metavar="S1,S2,...", help="observed states, comma-separated")
    where.add_argument(
        "--support-file", metavar="FILE", help="CSV/Parquet with columns c1..ck: observed states"
    )
    where.add_argument(
        "--support-frac",
        type=float,
        metavar="F",
        help="keep max(1, round(F * #states)) states of a seeded permutation",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the support permutation (and of the solvers); default 0",
    )
    parser.add_argument(
        "--supervised",
        default="",
        metavar="S1,...",
        help="observed states whose image is pinned to themselves (concept labels)",
    )


def _add_budget_arguments(parser) -> None:
    parser.add_argument(
        "--max-subproblems",
        type=int,
        default=None,
        metavar="N",
        help="budget of the exact searches and of a plan's recounts (default 600,000 "
        "sub-problems, from seconds to minutes of work; refused at once where estimated; "
        "0 = no limit)",
    )
    parser.add_argument(
        "--max-states",
        type=int,
        default=None,
        metavar="N",
        help="largest state table the exact searches build (default 2^22; 0 = no limit)",
    )
    parser.add_argument(
        "--max-memory",
        type=int,
        default=None,
        metavar="MB",
        help="memory the exact searches may hold, estimated before it is allocated (default "
        "1024 MB; 0 = no limit)",
    )


def _add_count(subparsers) -> None:
    parser = add_command(
        subparsers,
        "count",
        help="count the optima N_opt (label-preserving relabelings) of a knowledge on a support",
        description="N_opt = #{alpha : K(alpha(g)) = K(g) for every observed g}; reasoning "
        "shortcuts = N_opt - 1.",
        epilog=COUNT_EXAMPLE,
    )
    _add_task_arguments(parser)
    parser.add_argument(
        "--extractor",
        choices=EXTRACTOR_CHOICES,
        default="joint",
        help="joint: any map of states; disentangled: pi + one map per concept (count-rss); "
        "shared: one map for every concept",
    )
    parser.add_argument(
        "--fixed-permutation", action="store_true", help="disentangled only: pi is the identity"
    )
    parser.add_argument(
        "--method",
        choices=METHOD_CHOICES,
        default="auto",
        help="auto = factored (joint) / exact (disentangled, shared); permutations = the "
        "previous per-permutation model counts (binary disentangled)",
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=0.8,
        metavar="E",
        help=f"ApproxMC tolerance in (0, {MAX_EPSILON:g}] (approx method); default 0.8",
    )
    parser.add_argument(
        "--delta",
        type=float,
        default=0.2,
        metavar="D",
        help="ApproxMC failure probability (approx method); default 0.2",
    )
    parser.add_argument(
        "--fallback",
        choices=("none", "ganak", "approx"),
        default="none",
        help="disentangled, binary: where the exact searches pass their budget, ganak = exact "
        "projected model count of the CNF encoding (no budget), approx = ApproxMC's estimate "
        "(--epsilon, --delta); default none (refuse)",
    )
    _add_budget_arguments(parser)
    add_out(
        parser,
        flag="--dimacs",
        metavar="FILE.cnf",
        help="also write the DIMACS formula that was model-counted",
    )
    add_out(
        parser,
        flag="--export-knowledge",
        metavar="K.csv",
        help="with --task: also write its knowledge as a --knowledge-table (CSV or Parquet)",
    )
    add_out(
        parser,
        flag="--export-support",
        metavar="S.csv",
        help="with --task: also write its support as a --support-file (CSV or Parquet)",
    )
    add_json(parser, help="print one JSON record instead of text")
    parser.set_defaults(func=run_count)


def _add_plan_supervision(subparsers) -> None:
    parser = add_command(
        subparsers,
        "plan-supervision",
        help="choose which observed states to give concept labels to (greedy, N_opt per pick)",
        description="Which B observed states to label so that the fewest optima remain.",
        epilog=PLAN_EXAMPLE,
    )
    _add_task_arguments(parser)
    parser.add_argument(
        "--budget", type=int, required=True, metavar="B", help="number of concept labels to place"
    )
    parser.add_argument(
        "--extractor",
        choices=EXTRACTOR_CHOICES,
        default="disentangled",
        help="family whose optima to remove (default disentangled)",
    )
    parser.add_argument(
        "--exact-max-subsets",
        type=int,
        default=5000,
        metavar="N",
        help="try every subset for the exact optimum while at most N subsets (0 = never)",
    )
    _add_budget_arguments(parser)
    add_json(parser, help="print one JSON record instead of text")
    parser.set_defaults(func=run_plan_supervision)


# ---- reading the task from the arguments -------------------------------------


def _domains_of(args):
    if args.k is not None:
        if not 1 <= args.k <= MAX_CLI_K:
            raise InputError(f"--k must be in [1, {MAX_CLI_K:,}], got {args.k}")
        return args.k
    if args.domains is None:
        return None
    parts = [p.strip() for p in args.domains.split(",")]
    if len(parts) > MAX_CLI_K:
        raise InputError(f"--domains: at most {MAX_CLI_K:,} concepts, got {len(parts):,}")
    dims = []
    for j, part in enumerate(parts, start=1):
        if not part or not part.isascii() or not part.isdigit():
            raise InputError(
                f"--domains must be domain sizes like 10,10 (integers >= 2), got {part!r} "
                f"for concept {j}"
            )
        d = int(part)
        if not 2 <= d <= MAX_CLI_DOMAIN:
            raise InputError(
                f"--domains: domain {j} must be an integer in [2, {MAX_CLI_DOMAIN:,}], got {d}"
            )
        dims.append(d)
    return tuple(dims)


def _check_number(name: str, value, low, high, *, low_open=False, high_open=False) -> None:
    ok = value is not None and math.isfinite(value)
    ok = ok and (value > low if low_open else value >= low)
    ok = ok and (value < high if high_open else value <= high)
    if not ok:
        lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
        raise InputError(f"{name} must be in {lo}{low:g}, {high:g}{hi}, got {value:g}")


def _check_common(args) -> None:
    if not 0 <= args.seed <= MAX_SEED:
        raise InputError(f"--seed must be an integer in [0, 2^63), got {args.seed}")
    for name in ("max_subproblems", "max_states", "max_memory"):
        value = getattr(args, name, None)
        if value is not None and value < 0:
            raise InputError(f"--{name.replace('_', '-')} must be >= 0 (0 = no limit), got {value}")
    if args.support_frac is not None:
        _check_number("--support-frac", args.support_frac, 0, 1, low_open=True)


def _knowledge_of(args, domains):
    from ..logic.knowledge import make_knowledge, read_knowledge_table

    if args.knowledge_table is not None:
        if args.k is not None:
            raise InputError(
                "--k: a knowledge table brings its own concepts; give --domains to check them "
                "or nothing"
            )
        return read_knowledge_table(args.knowledge_table, domains=domains)
    if domains is None:
        raise InputError("--k or --domains: needed with --knowledge (the concepts' domain sizes)")
    return make_knowledge(args.knowledge, domains)


def _support_file(path: str, dims) -> list[str]:
    from ..logic.states import state_str
    from ..tables import Column, TableSchema, read_table

    columns = tuple(Column(f"c{j}", "int", min=0, max=d - 1) for j, d in enumerate(dims, 1))
    df = read_table(path, TableSchema(columns))
    extra = [c for c in map(str, df.columns) if c.startswith("c") and c[1:].isdigit()]
    extra = [c for c in extra if int(c[1:]) > len(dims)]
    if extra:
        raise InputError(
            f"{path}: column {extra[0]!r} is beyond the task's {len(dims)} concepts (c1..c"
            f"{len(dims)})"
        )
    rows = df[[c.name for c in columns]].to_numpy()
    states = [state_str(row, dims) for row in rows]
    seen: dict[str, int] = {}
    for i, s in enumerate(states):
        if s in seen:
            raise InputError(
                f"{path}: row {i} repeats state {s!r} (first in row {seen[s]}); each observed "
                "state must appear once"
            )
        seen[s] = i
    return states


def _task_of(args):
    """The CountingTask the arguments describe (every check raising one InputError line)."""
    from ..counting import CountingTask, support_states

    _check_common(args)
    if args.support is None and args.support_file is None and args.support_frac is None:
        raise InputError(
            "--support, --support-file or --support-frac: one is required (a named --task "
            "brings its own support)"
        )
    domains = _domains_of(args)
    knowledge = _knowledge_of(args, domains)
    dims = knowledge.domains
    if args.support is not None:
        support = _csv_states(args.support)
        if not support:
            raise InputError("--support must be at least one state, got ''")
    elif args.support_file is not None:
        support = _support_file(args.support_file, dims)
    elif args.support_frac == 1:
        support = None  # every state, without writing 10^6 state strings out and back
    else:
        # the generator's support for this knowledge (its own stream: tasks.support_stream)
        from .tasks import support_stream

        binary = args.knowledge_table is None and all(d == 2 for d in dims)
        stream = support_stream(knowledge) if binary else ()
        support = list(support_states(dims, args.support_frac, seed=args.seed, stream=stream))
    supervised = tuple(_csv_states(args.supervised))
    return CountingTask(knowledge, None if support is None else tuple(support), supervised)


def count_options(args) -> dict:
    """The keywords of ``count_optima`` that ``count``'s options set (also ``count --task``)."""
    return {
        "extractor": args.extractor,
        "fixed_permutation": args.fixed_permutation,
        "method": args.method,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "seed": args.seed,
        "max_subproblems": args.max_subproblems,
        "max_memory": _memory_bytes(args),
        **({} if args.max_states is None else {"max_states": args.max_states}),
        **({} if getattr(args, "fallback", "none") == "none" else {"fallback": args.fallback}),
    }


def _memory_bytes(args) -> int | None:
    """``--max-memory`` MB as bytes (None: the engines' default; 0: no limit)."""
    return None if args.max_memory is None else args.max_memory * 2**20


# ---- count ----------------------------------------------------------------------


def run_count(args: argparse.Namespace) -> int:
    from ..counting import count_optima

    if args.method == "approx":
        _check_number("--epsilon", args.epsilon, 0, MAX_EPSILON, low_open=True)
        _check_number("--delta", args.delta, 0, 1, low_open=True, high_open=True)
    check_out(args.dimacs, inputs=[args.knowledge_table, args.support_file], flag="--dimacs")
    if args.task:
        from .named_tasks import run_named_count

        _check_common(args)
        return run_named_count(args)
    if args.export_knowledge or args.export_support:
        raise InputError("--export-knowledge, --export-support: write a named task; give --task")
    task = _task_of(args)
    if args.dimacs and not task.is_binary:
        raise InputError(
            "--dimacs: DIMACS encodings exist for binary xor/CNF knowledge only; this task has "
            f"domains {list(task.domains)}"
        )
    result = count_optima(task, with_dimacs=bool(args.dimacs), **count_options(args))
    if args.dimacs:
        if not result.dimacs:
            raise InputError(
                f"--dimacs: method {result.method} ({result.engine}) counts no DIMACS formula "
                "here; use binary xor/CNF knowledge with --method factored, exact or approx"
            )
        write_out(args.dimacs, result.dimacs, flag="--dimacs")
    record = result.to_json()
    if args.json:
        print(dumps_json(record), end="")
        return 0
    _print_count(task, result, record)
    return 0


def _print_count(task, result, record) -> None:
    from ..logic.states import plain_count

    log2 = record["log2_n_opt"]
    log2_text = f"{log2:.4f}" if abs(log2) < 1e9 else f"{log2:.6g}"
    n_opt = record["n_opt"] if record["n_opt"] is not None else f"2^{log2_text} (over 4,000 digits)"
    shortcuts = record["n_shortcuts"] if record["n_shortcuts"] is not None else "N_opt - 1"
    quality = (
        "exact"
        if result.exact
        else f"approximate, (epsilon, delta) = ({result.epsilon:g}, {result.delta:g})"
    )
    print(f"N_opt = {n_opt}   reasoning shortcuts = {shortcuts}   log2 N_opt = {log2_text}")
    if result.extractor == "disentangled":
        distinct = record["n_distinct"] or f"not computed ({record['n_distinct_reason']})"
        print(f"  distinct maps alpha (n_distinct) = {distinct}")
    print(f"  knowledge: {task.describe()}")
    support = list(task.observed_states()) if task.n_states <= 64 else list(task.support or [])
    shown = ",".join(support[:64]) + (",..." if task.n_observed > 64 else "")
    if task.support is None and task.n_states > 64:
        shown = "every state"
    print(
        f"  support ({plain_count(task.n_observed)}/{plain_count(task.n_states)}): "
        f"{shown if len(shown) <= 4000 else shown[:4000] + '...'}"
    )
    fixed = " (pi fixed to identity)" if result.fixed_permutation else ""
    print(
        f"  extractor: {result.extractor}{fixed}   supervised: {','.join(result.supervised) or '-'}"
        f"   method: {result.method} ({quality}; {result.engine})"
    )


# ---- plan-supervision --------------------------------------------------------------


def run_plan_supervision(args: argparse.Namespace) -> int:
    from ..counting import plan_supervision

    if args.exact_max_subsets < 0:
        raise InputError(f"--exact-max-subsets must be >= 0, got {args.exact_max_subsets}")
    if args.budget < 1:
        raise InputError(f"--budget must be >= 1, got {args.budget}")
    if args.task:
        from .named_tasks import run_named_plan

        _check_common(args)
        return run_named_plan(args)
    task = _task_of(args)
    options = {} if args.max_subproblems is None else {"max_subproblems": args.max_subproblems}
    if args.max_memory is not None:
        options["max_memory"] = _memory_bytes(args)
    plan = plan_supervision(
        task,
        args.budget,
        extractor=args.extractor,
        exact_max_subsets=args.exact_max_subsets,
        **options,
    )
    record = plan.to_json()
    if args.json:
        print(dumps_json(record), end="")
        return 0
    print(
        f"supervision plan ({plan.extractor}): {len(plan.picks)} of {plan.budget} labels, "
        f"{plan.n_candidates} candidate states"
    )
    print(f"  knowledge: {task.describe()}   support: {task.n_observed} states")
    print(f"  before: N_opt = {record['n_opt_before']}")
    for b, pick in enumerate(record["picks"], start=1):
        best = record["optimum"][b - 1] if b - 1 < len(record["optimum"]) else None
        exact = (
            f"   exact optimum {best['n_opt']} ({','.join(best['states'])})"
            if best
            else "   exact optimum not computed"
        )
        print(f"  pick {b}: {pick['state']:<12} N_opt = {pick['n_opt']}{exact}")
    if plan.stopped_early:
        print("  stopped early: N_opt = 1, only the identity is left")
    if record["optimum_reason"]:
        print(f"  note: {record['optimum_reason']}")
    return 0


# ---- score-concepts: the concept panel on a user's own model ----

SCORE_CONCEPTS_EXAMPLE = """
CONCEPTS (Parquet): one row per (point, concept) with columns
  point int64, concept int64 (0-based, no gaps), gold int64 (gold value index),
  probs list<double> (probability of each value, at least 2; concept j's values are
  0..len(probs)-1; each row sums to 1)
LABELS (Parquet or CSV, optional): one row per point: point, y_true, y_pred (int64); with
  --outputs a,b: point, y_true_a, y_pred_a, y_true_b, y_pred_b (several label outputs).

Metrics: AccC and exact-match AccC, macro F1(C), Cls(C) against the joint states the gold
occupies (entropy form 1 - H(pred)/H(gold), count form = share of gold states never
predicted) and against all joint states (1 - H/ln|G|, 1 - p/|G|), per --group as well,
ECE(C) (pooled over all heads) and ECE per (concept, gold value), the mean per-sample
concept entropy, the occurrence vector over joint states (lexicographic, concept 0 most
significant), and AccY (per output and exact match with --outputs) when labels are given.
ECE bins: [b/B, (b+1)/B), last closed (default) or (b/B, (b+1)/B] (--bins-right-closed,
rsbench's and scikit-learn's convention).

""" + examples(
    "nesybench score-concepts my_concepts.parquet --labels my_labels.parquet --json",
    "nesybench score-concepts kand.parquet --group shape=0,2,4 --group colour=1,3,5",
)

GROUP_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _group(text: str) -> tuple[str, list[int]]:
    name, sep, members = text.partition("=")
    name = name.strip()
    if not sep or not name or not set(name) <= GROUP_NAME_CHARS:
        raise argparse.ArgumentTypeError(
            f"expected NAME=J1,J2,... (NAME of letters, digits, _ - .), got {text[:60]!r}"
        )
    parts = [m.strip() for m in members.split(",")]
    if not all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts):
        raise argparse.ArgumentTypeError(
            f"expected concept indices 0, 1, ... after {name}=, got {members[:60]!r}"
        )
    idx = [int(p) for p in parts]
    if len(set(idx)) != len(idx):
        raise argparse.ArgumentTypeError(f"group {name} lists a concept twice: {members[:60]!r}")
    return name, idx


def _output_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not all(n and set(n) <= GROUP_NAME_CHARS for n in names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"expected distinct names of letters, digits, _ - . separated by commas, got "
            f"{text[:60]!r}"
        )
    return names


def _add_score_concepts(subparsers) -> None:
    parser = add_command(
        subparsers,
        "score-concepts",
        help="score your model's concept predictions: AccC, F1(C), Cls(C), ECE(C), occurrence "
        "(and AccY)",
        description="The concept-quality panel (spec ch06) on your own model's per-concept "
        "probabilities.",
        epilog=SCORE_CONCEPTS_EXAMPLE,
    )
    parser.add_argument(
        "concepts",
        metavar="CONCEPTS",
        help="Parquet: per-(point, concept) gold values and probabilities",
    )
    parser.add_argument(
        "--labels",
        metavar="LABELS",
        help="optional Parquet/CSV of per-point y_true / y_pred: adds AccY",
    )
    parser.add_argument(
        "--outputs",
        type=_output_names,
        metavar="A,B,...",
        help="several label outputs: LABELS has y_true_A, y_pred_A, ... (AccY per output and "
        "exact match)",
    )
    parser.add_argument(
        "--group",
        type=_group,
        action="append",
        default=[],
        metavar="NAME=J1,J2",
        help="a named group of concepts whose collapse is measured on its joint states "
        "(repeatable)",
    )
    add_bins(parser, help="ECE bins")
    parser.add_argument(
        "--bins-right-closed",
        action="store_true",
        help="ECE bins (b/B, (b+1)/B] as rsbench and scikit-learn (default: [b/B, (b+1)/B), "
        "last closed)",
    )
    add_json(parser, help="print one JSON record instead of text")
    parser.set_defaults(func=run_score_concepts)


def _read_labels(path: str, points, outputs: list[str] | None):
    """The labels file via the one table reader: ``(y_true, y_pred)`` aligned with ``points``."""
    import numpy as np

    from ..tables import Column, TableSchema, read_table

    pairs = [(f"y_true_{o}", f"y_pred_{o}") for o in outputs] if outputs else [("y_true", "y_pred")]
    columns = [Column("point", "int")]
    for t, p in pairs:
        columns += [Column(t, "int"), Column(p, "int")]
    df = read_table(path, TableSchema(tuple(columns), unique=("point",)))
    have = set(df["point"].tolist())
    wanted = [int(p) for p in points]
    absent = [p for p in wanted if p not in have]
    if absent:
        raise InputError(f"{path}: point {absent[0]} of the concepts file has no label row")
    extra = sorted(have - set(wanted))
    if extra:
        raise InputError(f"{path}: point {extra[0]} is not in the concepts file")
    df = df.set_index("point").loc[np.asarray(points)]
    y_true = np.column_stack([df[t].to_numpy(np.int64) for t, _ in pairs])
    y_pred = np.column_stack([df[p].to_numpy(np.int64) for _, p in pairs])
    if not outputs:
        y_true, y_pred = y_true[:, 0], y_pred[:, 0]
    return y_true, y_pred


def _check_groups(groups: list[tuple[str, list[int]]], k: int, source: str) -> dict:
    out: dict[str, list[int]] = {}
    for name, idx in groups:
        if name in out:
            raise InputError(f"--group {name}: the name is given twice")
        bad = [j for j in idx if j >= k]
        if bad:
            raise InputError(
                f"--group {name}={','.join(map(str, idx))}: concept {bad[0]} does not exist "
                f"({source} has concepts 0..{k - 1})"
            )
        out[name] = idx
    return out


def run_score_concepts(args: argparse.Namespace) -> int:
    from ..tables import load_frame
    from .concept_table import unpack_concept_table
    from .panel import concept_panel

    if args.outputs and not args.labels:
        raise InputError("--outputs names label columns: give the labels file with --labels")
    points, c_true, probs = unpack_concept_table(load_frame(args.concepts), source=args.concepts)
    groups = _check_groups(args.group, c_true.shape[1], args.concepts)
    y_true = y_pred = None
    if args.labels:
        y_true, y_pred = _read_labels(args.labels, points, args.outputs)
    panel = concept_panel(
        c_true,
        probs,
        y_true=y_true,
        y_pred=y_pred,
        output_names=args.outputs,
        groups=groups or None,
        n_bins=args.bins,
        right_closed=args.bins_right_closed,
    )
    if args.json:
        print(dumps_json(panel), end="")
        return 0
    _print_panel(args.concepts, panel)
    return 0


def _print_panel(source: str, panel: dict) -> None:
    print(f"concept panel of {source}: {panel['n_points']} points x {panel['n_concepts']} concepts")
    rows = [
        ("AccY (label acc)", "acc_y"),
        ("AccY exact match", "acc_y_exact"),
        ("AccC (concept acc)", "acc_c"),
        ("AccC exact match", "acc_c_exact"),
        ("F1(C) macro", "f1_c"),
        (f"Cls(C) entropy, {panel['n_gold_states']} gold states", "cls_c"),
        (f"Cls(C) count, {panel['n_gold_states']} gold states", "cls_c_count"),
        (f"Cls(C) entropy, all {panel['n_states']} states", "cls_c_all"),
        (f"Cls(C) count, all {panel['n_states']} states", "cls_c_count_all"),
        ("ECE(C)", "ece_c"),
        ("mean concept entropy", "entropy_c"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, key in rows:
        if key in panel:
            print(f"  {name:<{width}}  {panel[key]:.4f}")
    for name, acc in panel.get("acc_y_outputs", {}).items():
        print(f"  {'AccY ' + name:<{width}}  {acc:.4f}")
    for name, g in panel.get("cls_c_groups", {}).items():
        print(
            f"  group {name}: Cls(C) {g['cls_c']:.4f} (entropy), {g['cls_c_count']:.4f} (count) "
            f"over {g['n_gold_states']} gold states of {g['n_states']}"
        )
    if "cls_c_groups_mean" in panel:
        print(f"  {'Cls(C) mean over groups':<{width}}  {panel['cls_c_groups_mean']:.4f}")
    per_value = ", ".join(
        f"c{r['concept']}={r['value']}: {'-' if r['ece'] is None else format(r['ece'], '.4f')}"
        for r in panel["ece_c_values"]
    )
    print(f"  ECE per gold value   {per_value}")
    print(f"  ECE bins             {panel['ece_binning']}")
    occurrence = panel["occurrence"]
    print(
        f"  occurrence v         {occurrence}"
        if occurrence is not None
        else f"  occurrence v         not listed ({panel['n_states']} joint states); "
        f"{panel['n_pred_states']} distinct states predicted"
    )
