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


# ---- score-concepts: the concept panel on a user's own model (issue 3) ----

SCORE_CONCEPTS_EXAMPLE = """
CONCEPTS.parquet: one row per (point, concept) with columns
  point int64, concept int64 (0-based), gold int64 (gold value index),
  probs list<double> (probability of each value; concept j's values are 0..len(probs)-1)
LABELS.parquet (optional): point, y_true, y_pred (int64), one row per point.

Metrics: AccC, macro F1(C), Cls(C) (entropy form 1 - H(v~)/ln|G| and count form 1 - p/m),
ECE(C) (10 equal-width bins, pooled over all concept heads), the occurrence vector v over
joint states (lexicographic, concept 0 most significant), and AccY when labels are given.

Example:
  nesybench score-concepts my_concepts.parquet --labels my_labels.parquet --json
"""

LABEL_COLUMNS = ("point", "y_true", "y_pred")


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
    parser.add_argument("--json", action="store_true", help="print one JSON record instead of text")
    parser.set_defaults(func=run_score_concepts)


def _read_labels(path: str, points):
    import numpy as np
    import pandas as pd

    from ..io import read_parquet

    df = read_parquet(path)
    missing = [c for c in LABEL_COLUMNS if c not in df.columns]
    if missing:
        raise UserError(
            f"{path}: missing column {missing[0]!r}; expected columns {', '.join(LABEL_COLUMNS)}"
        )
    for col in LABEL_COLUMNS:
        if df[col].isna().any():
            raise UserError(f"{path}: column {col!r} has missing (NaN/null) values")
        if not pd.api.types.is_integer_dtype(df[col]):
            raise UserError(f"{path}: column {col!r} must be integers, got dtype {df[col].dtype}")
    if df["point"].duplicated().any():
        raise UserError(
            f"{path}: point {int(df.loc[df['point'].duplicated(), 'point'].iloc[0])} appears more "
            "than once"
        )
    have = set(df["point"].tolist())
    absent = [int(p) for p in points if int(p) not in have]
    if absent:
        raise UserError(f"{path}: point {absent[0]} of the concepts file has no label row")
    extra = sorted(have - set(int(p) for p in points))
    if extra:
        raise UserError(f"{path}: point {extra[0]} is not in the concepts file")
    df = df.set_index("point").loc[np.asarray(points)]
    return df["y_true"].to_numpy(), df["y_pred"].to_numpy()


def run_score_concepts(args: argparse.Namespace) -> int:
    from ..io import read_parquet
    from .panel import concept_panel, unpack_concept_table

    points, c_true, probs = unpack_concept_table(read_parquet(args.concepts), source=args.concepts)
    y_true = y_pred = None
    if args.labels:
        y_true, y_pred = _read_labels(args.labels, points)
    panel = concept_panel(c_true, probs, y_true=y_true, y_pred=y_pred)
    if args.json:
        print(dumps_json(panel), end="")
        return 0
    print(
        f"concept panel of {args.concepts}: {panel['n_points']} points x {panel['n_concepts']} "
        "concepts"
    )
    rows = [
        ("AccY (label acc)", "acc_y"),
        ("AccC (concept acc)", "acc_c"),
        ("F1(C) macro", "f1_c"),
        ("Cls(C) entropy", "cls_c"),
        ("Cls(C) count", "cls_c_count"),
        ("ECE(C) 10-bin", "ece_c"),
    ]
    for name, key in rows:
        if key in panel:
            print(f"  {name:<20} {panel[key]:.4f}")
    print(f"  occurrence v        {panel['occurrence']}")
    return 0
