"""``nesybench calibrate`` and ``nesybench reliability``: the calibration audit on the user's own
scores.

Input: a Parquet file with columns ``score`` (float, a logit: the model's
probability is ``sigmoid(score)``), ``label`` (integer 0/1) and, for
``calibrate``, ``split`` (string: ``cal`` rows fit the calibrator, ``eval``
rows are audited before and after).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from ..console import format_table
from ..errors import UserError
from ..io import dumps_json, read_parquet, write_parquet
from ..metrics.calibration import sigmoid
from ..params import params_hash
from .audit import audit, repair
from .methods import METHODS

SPLITS = ("cal", "eval")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    return value


def register(subparsers) -> None:
    cal = subparsers.add_parser(
        "calibrate",
        help="fit temperature / Platt / isotonic on the cal split of your scores; audit the eval "
        "split",
        description=__doc__
        + "\nExample: nesybench calibrate scores.parquet --method temperature --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cal.add_argument(
        "scores",
        metavar="SCORES.parquet",
        help="columns score (float), label (0/1), split (cal/eval)",
    )
    cal.add_argument("--method", required=True, choices=METHODS)
    _binning_args(cal)
    cal.add_argument(
        "--out",
        metavar="CALIBRATED.parquet",
        help="write every row with its calibrated probability `prob`",
    )
    cal.add_argument(
        "--json", action="store_true", help="print the audit as JSON instead of tables"
    )
    cal.set_defaults(func=run_calibrate)

    rel = subparsers.add_parser(
        "reliability",
        help="reliability table, ECE, MCE, Brier, NLL, AUC of sigmoid(score) (no fitting)",
        description="Audit sigmoid(score) against label on every row of SCORES.parquet (a `split` "
        "column is ignored)."
        "\n\nExample: nesybench reliability scores.parquet --bins 15 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rel.add_argument("scores", metavar="SCORES.parquet", help="columns score (float), label (0/1)")
    _binning_args(rel)
    rel.add_argument(
        "--json", action="store_true", help="print the audit as JSON instead of a table"
    )
    rel.set_defaults(func=run_reliability)


def _binning_args(parser) -> None:
    parser.add_argument(
        "--bins", type=_positive_int, default=10, help="number of bins (default 10)"
    )
    parser.add_argument(
        "--bins-right-closed",
        action="store_true",
        help="bins (b/B, (b+1)/B] as scikit-learn's calibration_curve (default: [b/B, (b+1)/B), "
        "last closed)",
    )
    parser.add_argument(
        "--strategy",
        choices=("uniform", "quantile"),
        default="uniform",
        help="equal-width (default) or equal-mass bins",
    )


def read_scores(path: str, *, need_split: bool) -> pd.DataFrame:
    """Read and check a user's scores file; every defect is one ``UserError`` line."""
    df = read_parquet(path)
    expected = "score (float), label (integer 0/1)" + (
        ", split (string cal/eval)" if need_split else ""
    )
    needed = ["score", "label"] + (["split"] if need_split else [])
    for col in needed:
        if col not in df.columns:
            raise UserError(
                f"{path}: missing column {col!r}; expected columns {expected}, got "
                f"{list(df.columns)}"
            )
    if not pd.api.types.is_float_dtype(df["score"]):
        raise UserError(f"{path}: column 'score' must be float (a logit), got {df['score'].dtype}")
    if not pd.api.types.is_integer_dtype(df["label"]) or pd.api.types.is_bool_dtype(df["label"]):
        raise UserError(f"{path}: column 'label' must be integer 0/1, got {df['label'].dtype}")
    if need_split and not (
        pd.api.types.is_string_dtype(df["split"]) or df["split"].dtype == object
    ):
        raise UserError(
            f"{path}: column 'split' must be string (cal/eval), got {df['split'].dtype}"
        )
    if len(df) == 0:
        raise UserError(f"{path}: no rows")
    bad = sorted(set(df["label"].unique().tolist()) - {0, 1})
    if bad:
        raise UserError(f"{path}: column 'label' must contain only 0 and 1, got {bad[:5]}")
    finite = np.isfinite(df["score"].to_numpy(dtype=float))
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise UserError(
            f"{path}: column 'score' must be finite, got {df['score'].iloc[row]} in row {row}"
        )
    if need_split:
        splits = df["split"].astype(object)
        unknown = sorted({str(v) for v in splits.unique()} - set(SPLITS))
        if unknown or splits.isna().any():
            raise UserError(
                f"{path}: column 'split' must be 'cal' or 'eval', got {unknown or ['<null>']}"
            )
        for split in SPLITS:
            part = df.loc[splits == split, "label"]
            if part.empty:
                raise UserError(
                    f"{path}: split {split!r} is empty; need rows with split == {split!r}"
                )
            if part.nunique() < 2:
                only = int(part.iloc[0])
                raise UserError(
                    f"{path}: split {split!r} has only label {only} ({len(part)} rows); it needs "
                    "both classes"
                )
    return df.reset_index(drop=True)


def _audit_json(result) -> dict:
    keys = ("ece", "mce", "brier", "nll", "auc", "acc", "ce2_debiased", "ece_equal_mass")
    bins = [
        {
            "lo": r.lo,
            "hi": r.hi,
            "count": int(r.count),
            "conf": None if r.count == 0 else r.conf,
            "acc": None if r.count == 0 else r.acc,
        }
        for r in result.reliability.itertuples()
    ]
    return {**{k: result.summary[k] for k in keys}, "n": result.summary["n"], "bins": bins}


def _print_audit(title: str, result) -> None:
    s = result.summary
    print(f"\n{title}")
    cols = ["bin", "lo", "hi", "count", "conf", "acc", "gap", "acc_lo", "acc_hi"]
    print(format_table(result.reliability[cols]))
    print(
        f"  n = {s['n']}  ECE = {s['ece']:.4f}  MCE = {s['mce']:.4f}  Brier = {s['brier']:.4f}  "
        f"NLL = {s['nll']:.4f}  acc(0.5) = {s['acc']:.4f}  AUC = {s['auc']:.4f}"
    )


def run_calibrate(args) -> int:
    df = read_scores(args.scores, need_split=True)
    s = df["score"].to_numpy(dtype=float)
    y = df["label"].to_numpy().astype(int)
    is_cal = (df["split"].astype(str) == "cal").to_numpy()
    ev = ~is_cal
    opts = dict(n_bins=args.bins, right_closed=args.bins_right_closed, strategy=args.strategy)
    before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **opts)
    rep = repair(args.method, s, y, is_cal, **opts)
    if args.out:
        out = df.assign(row=np.arange(len(df)), prob=rep.p_all)
        write_parquet(
            out,
            args.out,
            key=["row"],
            instrument="calibration",
            stage="cli",
            params_hash=params_hash({"method": args.method, **opts}),
        )
    if args.json:
        payload = {
            "method": args.method,
            "before": _audit_json(before),
            "after": _audit_json(rep.after),
            "invariance": rep.invariance,
            "params": rep.params,
        }
        if args.method == "temperature":
            payload["tau"] = rep.params["tau"]
        print(dumps_json(payload), end="")
        return 0
    _print_audit(f"BEFORE: sigmoid(score) on the eval split ({args.scores})", before)
    _print_audit(f"AFTER ({args.method}, {json.dumps(rep.params)}) on the eval split", rep.after)
    held = ", ".join(f"{k}={'kept' if v else 'CHANGED'}" for k, v in rep.invariance.items())
    print(f"\n  invariances over all rows: {held}")
    return 0


def run_reliability(args) -> int:
    df = read_scores(args.scores, need_split=False)
    s = df["score"].to_numpy(dtype=float)
    y = df["label"].to_numpy().astype(int)
    result = audit(
        y,
        sigmoid(s),
        logits=s,
        n_bins=args.bins,
        right_closed=args.bins_right_closed,
        strategy=args.strategy,
    )
    if args.json:
        print(dumps_json(_audit_json(result)), end="")
    else:
        _print_audit(f"reliability of sigmoid(score) ({args.scores})", result)
    return 0
