"""``nesybench`` commands of the shortcuts instrument.

``count``: N_opt (the label-preserving relabelings) of your own knowledge and support.
"""

from __future__ import annotations

import argparse

from ..counting import EXTRACTORS, METHODS, count_optima
from ..errors import UserError
from ..io import atomic_write_text, dumps_json
from ..logic.knowledge import make_knowledge
from .tasks import MAX_TASK_K, support_states

COUNT_EXAMPLE = """
A state is a k-character bit string, leftmost character = x1.  FORMULA is `xor`
(k-bit parity) or a CNF such as '(x1 | x2 | x3) & (x2 | x3 | ~x1)'.

Examples:
  nesybench count --knowledge xor --k 2 --support 00,01,10            # 32
  nesybench count --knowledge xor --k 4 --support-frac 1 --extractor disentangled   # 192
  nesybench count --knowledge '(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)' --k 3
  --support-frac 1 --json
"""


def register(subparsers) -> None:
    """Add the shortcuts commands; one small function per command."""
    _add_count(subparsers)
    _add_score_concepts(subparsers)


def _csv_states(text: str) -> list[str]:
    return [s.strip() for s in text.split(",")] if text.strip() else []


def _add_count(subparsers) -> None:
    parser = subparsers.add_parser(
        "count",
        help="count the optima N_opt (label-preserving relabelings) of a knowledge on a support",
        description="N_opt = #{alpha : K(alpha(g)) = K(g) for every observed g}; reasoning "
        "shortcuts = N_opt - 1.",
        epilog=COUNT_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--knowledge", required=True, metavar="FORMULA", help="`xor` or a CNF over x1..xk"
    )
    parser.add_argument(
        "--k", required=True, type=int, metavar="K", help="number of binary concepts (>= 1)"
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--support", metavar="S1,S2,...", help="observed states as comma-separated bit strings"
    )
    where.add_argument(
        "--support-frac",
        type=float,
        metavar="F",
        help="keep max(1, round(F * 2^k)) states of a seeded permutation",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the support permutation (and ApproxMC); default 0",
    )
    parser.add_argument(
        "--extractor",
        choices=EXTRACTORS,
        default="joint",
        help="joint: any map of states; disentangled: pi + per-concept f (count-rss)",
    )
    parser.add_argument(
        "--fixed-permutation", action="store_true", help="disentangled only: pi is the identity"
    )
    parser.add_argument(
        "--supervised",
        default="",
        metavar="S1,...",
        help="observed states whose image is pinned to themselves",
    )
    parser.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="auto = factored (joint) / exact (disentangled)",
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=0.8,
        metavar="E",
        help="ApproxMC tolerance (approx method); default 0.8",
    )
    parser.add_argument(
        "--delta",
        type=float,
        default=0.2,
        metavar="D",
        help="ApproxMC failure probability (approx method); default 0.2",
    )
    parser.add_argument(
        "--dimacs", metavar="FILE.cnf", help="also write the DIMACS formula that was model-counted"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON record instead of text")
    parser.set_defaults(func=run_count)


def run_count(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UserError(f"--k: must be >= 1, got {args.k}")
    knowledge = make_knowledge(args.knowledge, args.k)
    if args.support is not None:
        support = _csv_states(args.support)
        if not support:
            raise UserError("--support: expected at least one k-character bit string, got ''")
    else:
        if not 0 < args.support_frac <= 1:
            raise UserError(f"--support-frac: must be in (0, 1], got {args.support_frac:g}")
        if args.k > MAX_TASK_K:
            raise UserError(
                f"--support-frac: lists a fraction of the 2^k states, so needs k <= {MAX_TASK_K}, "
                f"got k={args.k}; pass --support"
            )
        support = sorted(support_states(args.k, args.support_frac, seed=args.seed))
    if args.method == "approx":
        if not args.epsilon > 0:
            raise UserError(f"--epsilon: must be > 0, got {args.epsilon:g}")
        if not 0 < args.delta < 1:
            raise UserError(f"--delta: must be in (0, 1), got {args.delta:g}")
    result = count_optima(
        knowledge,
        support,
        extractor=args.extractor,
        fixed_permutation=args.fixed_permutation,
        supervised=_csv_states(args.supervised),
        method=args.method,
        epsilon=args.epsilon,
        delta=args.delta,
        seed=args.seed,
    )
    if args.dimacs:
        if not result.dimacs:
            raise UserError(
                f"--dimacs: method {result.method} counts no formula; use --method factored, "
                "exact or approx"
            )
        atomic_write_text(args.dimacs, result.dimacs)
    record = result.to_json()
    if args.json:
        print(dumps_json(record), end="")
        return 0
    n_opt = (
        record["n_opt"]
        if record["n_opt"] is not None
        else f"2^{record['log2_n_opt']:.4f} (over 4,000 digits)"
    )
    shortcuts = record["n_shortcuts"] if record["n_shortcuts"] is not None else "N_opt - 1"
    quality = (
        "exact"
        if result.exact
        else f"approximate, (epsilon, delta) = ({result.epsilon:g}, {result.delta:g})"
    )
    print(
        f"N_opt = {n_opt}   reasoning shortcuts = {shortcuts}   log2 N_opt = "
        f"{record['log2_n_opt']:.4f}"
    )
    print(f"  knowledge: {knowledge.describe()}   k = {args.k}, {record['n_states']} states")
    print(
        f"  support ({len(record['support'])}/{record['n_states']}): {','.join(record['support'])}"
    )
    print(
        "  extractor: "
        f"{args.extractor}{' (pi fixed to identity)' if args.fixed_permutation else ''}"
        f"   supervised: {','.join(result.supervised) or '-'}   method: {result.method} ({quality})"
    )
    return 0


# ---- score-concepts: the concept panel on a user's own model ----

SCORE_CONCEPTS_EXAMPLE = """
CONCEPTS.parquet: one row per (point, concept) with columns
  point int64, concept int64 (0-based, no gaps), gold int64 (gold value index),
  probs list<double> (probability of each value, at least 2; concept j's values are
  0..len(probs)-1; each row sums to 1)
LABELS.parquet or .csv (optional): one row per point: point, y_true, y_pred (int64); with
  --outputs a,b: point, y_true_a, y_pred_a, y_true_b, y_pred_b (several label outputs).

Metrics: AccC and exact-match AccC, macro F1(C), Cls(C) against the joint states the gold
occupies (entropy form 1 - H(pred)/H(gold), count form = share of gold states never
predicted) and against all joint states (1 - H/ln|G|, 1 - p/|G|), per --group as well,
ECE(C) (pooled over all heads) and ECE per (concept, gold value), the mean per-sample
concept entropy, the occurrence vector over joint states (lexicographic, concept 0 most
significant), and AccY (per output and exact match with --outputs) when labels are given.
ECE bins: [b/B, (b+1)/B), last closed (default) or (b/B, (b+1)/B] (--bins-right-closed,
rsbench's and scikit-learn's convention).

Example:
  nesybench score-concepts my_concepts.parquet --labels my_labels.parquet --json
  nesybench score-concepts kand.parquet --group shape=0,2,4 --group colour=1,3,5
"""

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


def _score_bins(text: str) -> int:
    from ..metrics import MAX_BINS

    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 1 <= value <= MAX_BINS:
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise argparse.ArgumentTypeError(f"must be an integer in [1, {MAX_BINS}], got {shown!r}")
    return value


def _output_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not all(n and set(n) <= GROUP_NAME_CHARS for n in names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"expected distinct names of letters, digits, _ - . separated by commas, got "
            f"{text[:60]!r}"
        )
    return names


def _add_score_concepts(subparsers) -> None:
    parser = subparsers.add_parser(
        "score-concepts",
        help="score your model's concept predictions: AccC, F1(C), Cls(C), ECE(C), occurrence "
        "(and AccY)",
        description="The concept-quality panel (spec ch06) on your own model's per-concept "
        "probabilities.",
        epilog=SCORE_CONCEPTS_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "concepts",
        metavar="CONCEPTS.parquet",
        help="per-(point, concept) gold values and probabilities",
    )
    parser.add_argument(
        "--labels", metavar="LABELS.parquet", help="optional per-point y_true / y_pred, adds AccY"
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
    parser.add_argument(
        "--bins", type=_score_bins, default=10, help="ECE bins, 1 to 10000 (default 10)"
    )
    parser.add_argument(
        "--bins-right-closed",
        action="store_true",
        help="ECE bins (b/B, (b+1)/B] as rsbench and scikit-learn (default: [b/B, (b+1)/B), "
        "last closed)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON record instead of text")
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
        raise UserError(f"{path}: point {absent[0]} of the concepts file has no label row")
    extra = sorted(have - set(wanted))
    if extra:
        raise UserError(f"{path}: point {extra[0]} is not in the concepts file")
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
            raise UserError(f"--group {name}: the name is given twice")
        bad = [j for j in idx if j >= k]
        if bad:
            raise UserError(
                f"--group {name}={','.join(map(str, idx))}: concept {bad[0]} does not exist "
                f"({source} has concepts 0..{k - 1})"
            )
        out[name] = idx
    return out


def run_score_concepts(args: argparse.Namespace) -> int:
    from ..tables import load_frame
    from .panel import concept_panel, unpack_concept_table

    if args.outputs and not args.labels:
        raise UserError("--outputs names label columns: give the labels file with --labels")
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
