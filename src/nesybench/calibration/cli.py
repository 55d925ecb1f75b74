"""``nesybench calibrate`` and ``nesybench reliability``: the calibration audit on the user's own
scores (the input form is the commands' help, :data:`INPUT_FORM`).

Input: a Parquet or CSV file with ``label`` (integer) and either

* ``score`` (float, a logit: the model's probability is ``sigmoid(score)``) with
  ``label`` 0/1: a binary scorer; or
* ``logits`` (list<double>, the same length K >= 2 on every row: the model's
  probabilities are ``softmax(logits)``) with ``label`` in 0..K-1: a K-way head; in
  CSV, which has no list cells, the columns ``logits_0 .. logits_{K-1}``;

and, for ``calibrate``, ``split`` (string: ``cal`` rows fit the calibrator,
``eval`` rows are audited before and after).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
import warnings

from ..cli_args import (
    add_bins,
    add_command,
    add_json,
    add_out,
    check_out,
    examples,
    write_out,
)
from ..errors import InputError
from .methods import METHODS, MULTICLASS_METHODS

SPLITS = ("cal", "eval")
ALL_METHODS = tuple(dict.fromkeys(METHODS + MULTICLASS_METHODS))
DEFAULT_REG = 1e-3  # the L2 strength of vector / matrix scaling (metrics.multiclass_calibration)
#: a K-way head's logits spread over columns, for CSV (which has no list cells): logits_0, ...
WIDE_LOGIT = re.compile(r"^logits_(\d+)$")

INPUT_FORM = """\
SCORES is a Parquet or CSV file (by suffix; Parquet when unsure) with `label` (integer) and
  score      a logit per row (the model says sigmoid(score)); label 0/1: a binary scorer; or
  logits     a list of K >= 2 logits per row (Parquet list<double>; the model says
             softmax(logits)); label in 0..K-1: a K-way head. CSV has no list cells:
             give the K logits as columns logits_0, ..., logits_{K-1} instead.
"""

CALIBRATE_EPILOG = (
    INPUT_FORM
    + f"""\
and `split` (cal rows fit the calibrator, eval rows are audited before and after).

Methods: binary scores (column score): {", ".join(METHODS)};
K-way logits (column logits): {", ".join(MULTICLASS_METHODS)}.
vector / matrix scaling minimise the mean NLL on the cal rows plus
(reg/2)(||w - 1||^2 + ||b||^2), resp. (reg/2)(||W - I||^2 + ||b||^2) (--reg).
Multi-class metrics: ece_top (top-label ECE), ece_classwise (mean one-vs-rest ECE),
nll, brier (sum over classes), acc (argmax).
--out x.csv writes CSV (a K-way row's probabilities as columns probs_0, ...); any other
name writes Parquet (`probs` a list per row).

"""
    + examples(
        "nesybench calibrate scores.parquet --method temperature --json",
        "nesybench calibrate digit_logits.parquet --method matrix --bins 15 --out calibrated.csv",
    )
)

RELIABILITY_EPILOG = (
    INPUT_FORM
    + "A `split` column, if any, is ignored: every row is audited.\n\n"
    + examples("nesybench reliability scores.parquet --bins 15 --json")
)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text[:40]!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text[:40]}")
    return value


def register(subparsers) -> None:
    cal = add_command(
        subparsers,
        "calibrate",
        help="fit a calibrator on the cal split and audit the eval split before and after",
        description="Fit a calibrator on the cal rows of your scores and audit the eval rows "
        "before and after: reliability table, ECE, Brier, NLL, AUC, and the invariances the "
        "method promises (checked on every row).",
        epilog=CALIBRATE_EPILOG,
    )
    cal.add_argument(
        "scores",
        metavar="SCORES",
        help="label (int), split (cal/eval), and score (float) or logits (K per row)",
    )
    cal.add_argument(
        "--method",
        required=True,
        choices=ALL_METHODS,
        help=f"the calibrator: {', '.join(METHODS)} for a score column, "
        f"{', '.join(MULTICLASS_METHODS)} for logits",
    )
    cal.add_argument(
        "--reg",
        type=_positive_float,
        default=DEFAULT_REG,
        metavar="R",
        help=f"L2 strength towards the identity map, vector/matrix only (default {DEFAULT_REG:g})",
    )
    _binning_args(cal)
    add_out(
        cal,
        metavar="CALIBRATED",
        help="write every row with its calibrated probability `prob` (binary) or `probs` "
        "(K-way); .csv writes CSV, any other name Parquet",
    )
    add_json(cal, help="print the audit as JSON instead of tables")
    cal.set_defaults(func=run_calibrate)

    rel = add_command(
        subparsers,
        "reliability",
        help="reliability table, ECE/MCE, Brier decomposition, NLL and AUC of your scores",
        description="Audit sigmoid(score) against label (binary), or softmax(logits) against the "
        "class label (K-way), on every row of SCORES.",
        epilog=RELIABILITY_EPILOG,
    )
    rel.add_argument(
        "scores", metavar="SCORES", help="label (int) and score (float) or logits (K per row)"
    )
    _binning_args(rel)
    add_json(rel, help="print the audit as JSON instead of a table")
    rel.set_defaults(func=run_reliability)


def _binning_args(parser) -> None:
    add_bins(parser)
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


# ---------------------------------------------------------------- reading the user's file
def _schema(kind: str, *, need_split: bool):
    from ..tables import Column, TableSchema

    if kind == "binary":
        columns = [Column("score", "float"), Column("label", "int", min=0, max=1)]
    else:
        columns = [Column("logits", "float_list"), Column("label", "int", min=0)]
    if need_split:
        columns.append(Column("split", "str", choices=SPLITS))
    return TableSchema(tuple(columns))


def read_scores(path: str, *, need_split: bool):
    """Read and check a user's scores file: ``(df, kind, logits)``.

    ``kind`` is ``"binary"`` (column ``score``) or ``"multiclass"`` (column
    ``logits``; then ``logits`` is the ``(n, K)`` array).  Every defect is one
    :class:`~nesybench.errors.InputError` line naming the file, the column and the row.
    """
    import numpy as np

    from ..tables import load_frame, validate_table

    df = _gather_wide_logits(load_frame(path), path)
    has_score, has_logits = "score" in df.columns, "logits" in df.columns
    if has_score and has_logits:
        raise InputError(
            f"{path}: has both 'score' and 'logits'; keep one (score: one logit per row, binary; "
            "logits: a list per row, K-way)"
        )
    if not (has_score or has_logits):
        split = ", split (cal/eval)" if need_split else ""
        raise InputError(
            f"{path}: missing column 'score' (binary) or 'logits' (K-way); expected columns "
            f"score or logits, label{split}; got {', '.join(map(str, df.columns)) or 'none'}"
        )
    kind = "binary" if has_score else "multiclass"
    df = validate_table(df, _schema(kind, need_split=need_split), source=path)
    if kind == "binary":
        return df, kind, None
    rows = df["logits"].tolist()
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise InputError(
                f"{path}: column 'logits' row {i} must be {width} values (as row 0), "
                f"got {len(row)}; every row lists the logits of the same K classes"
            )
    if width < 2:
        raise InputError(
            f"{path}: column 'logits' row 0 must be at least 2 values (K >= 2 classes), got {width}"
        )
    logits = np.array([np.asarray(r, dtype=float) for r in rows], dtype=float)
    labels = df["label"].to_numpy()
    bad = np.flatnonzero(labels >= width)
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"{path}: column 'label' row {i} must be a class index in [0, {width - 1}] "
            f"(the logits have {width} values), got {int(labels[i])}"
        )
    return df, kind, logits


def _gather_wide_logits(df, path: str):
    """``logits_0 .. logits_{K-1}`` columns (CSV's form of a list) as one ``logits`` column."""
    wide = sorted((int(m.group(1)), c) for c in map(str, df.columns) if (m := WIDE_LOGIT.match(c)))
    if not wide:
        return df
    if "logits" in df.columns:
        raise InputError(
            f"{path}: has both 'logits' and {wide[0][1]!r}; give the logits one way (a list "
            "column, or columns logits_0 .. logits_{K-1})"
        )
    index = [i for i, _ in wide]
    if index != list(range(len(index))):
        missing = min(set(range(max(index) + 1)) - set(index))
        raise InputError(
            f"{path}: columns logits_0 .. logits_{max(index)} must all be present, "
            f"logits_{missing} is missing"
        )
    from ..tables import Column, TableSchema, validate_table

    names = [c for _, c in wide]
    df = validate_table(df, TableSchema(tuple(Column(c, "float") for c in names)), source=path)
    return df.drop(columns=names).assign(logits=df[names].to_numpy(dtype=float).tolist())


def _check_binary_splits(path: str, df) -> None:
    splits = df["split"]
    for split in SPLITS:
        part = df.loc[splits == split, "label"]
        if part.empty:
            raise InputError(f"{path}: split {split!r} is empty; need rows with split == {split!r}")
        if part.nunique() < 2:
            raise InputError(
                f"{path}: split {split!r} has only label {int(part.iloc[0])} ({len(part)} rows); "
                "it needs both classes"
            )


def _check_method(path: str, kind: str, method: str) -> None:
    if kind == "binary" and method not in METHODS:
        raise InputError(
            f"--method {method} calibrates K-way logits, but {path} has one 'score' per row "
            f"(binary); use {', '.join(METHODS)}, or give a 'logits' column"
        )
    if kind == "multiclass" and method not in MULTICLASS_METHODS:
        raise InputError(
            f"--method {method} is binary (one score per row), but {path} has 'logits' "
            f"(K-way); use {', '.join(MULTICLASS_METHODS)}"
        )


def _out_bytes(out: str, table, params: dict) -> bytes:
    """The calibrated rows as CSV (``.csv``: list cells spread over columns) or Parquet."""
    if out.lower().endswith(".csv"):
        import pandas as pd

        from ..io import csv_bytes

        wide = {}
        for column in table.columns:
            values = table[column]
            if values.map(lambda v: hasattr(v, "__len__") and not isinstance(v, str)).any():
                spread = pd.DataFrame(values.map(list).tolist(), index=table.index)
                wide.update({f"{column}_{j}": spread[j] for j in spread.columns})
            else:
                wide[column] = values
        return csv_bytes(pd.DataFrame(wide), float_format=None)
    from ..io import parquet_bytes
    from ..params import params_hash

    return parquet_bytes(
        table, key=["row"], instrument="calibration", stage="cli", params_hash=params_hash(params)
    )


def _write_out(out: str, table, params: dict) -> None:
    write_out(out, _out_bytes(out, table, params))


# ---------------------------------------------------------------- numeric trouble, said once
@contextlib.contextmanager
def _numeric_notes(path: str):
    """Run a fit with numpy/scipy/scikit-learn warnings caught: their multi-line reports
    become one ``note:`` line on stderr after the result (scores near the float range
    overflow; a solver that cannot move says so), never raw warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if caught:
        kinds = list(dict.fromkeys(" ".join(str(w.message).split())[:80] for w in caught))
        shown = "; ".join(kinds[:3]) + ("; ..." if len(kinds) > 3 else "")
        print(
            f"note: {path}: the numerical libraries warned {len(caught)} time(s) ({shown}); "
            "scores this large or this separated are beyond float precision: rescale them",
            file=sys.stderr,
        )


def _bracket_note(calibrator) -> dict | None:
    """The temperature search's bracket when tau ended at (or flat up to) one of its bounds."""
    fit = getattr(calibrator, "fit_", None)
    if fit is None or not hasattr(fit, "at_bracket_edge") or not fit.at_bracket_edge:
        return None
    edge = "upper" if fit.tau >= (fit.lo + fit.hi) / 2 else "lower"
    return {
        "bracket": [fit.lo, fit.hi],
        "bound": edge,
        "note": f"tau = {fit.tau:.6g} is at the {edge} bound of its search bracket "
        f"[{fit.lo:g}, {fit.hi:g}]: the NLL does not rise before the bound, so the best "
        "temperature may lie beyond it",
    }


# ---------------------------------------------------------------- output
def _bins_json(table) -> list[dict]:
    return [
        {
            "lo": r.lo,
            "hi": r.hi,
            "count": int(r.count),
            "conf": None if r.count == 0 else r.conf,
            "acc": None if r.count == 0 else r.acc,
        }
        for r in table.itertuples()
    ]


def _auc_note(summary: dict) -> str | None:
    if not math.isnan(summary["auc"]):
        return None
    n, pos = summary["n"], summary["positives"]
    only = 1 if pos == n else 0
    return f"undefined: all {n} rows have label {only}; AUC needs both classes"


def _audit_json(result) -> dict:
    keys = ("ece", "mce", "brier", "nll", "auc", "acc", "ce2_debiased", "ece_equal_mass")
    out = {k: result.summary[k] for k in keys}
    note = _auc_note(result.summary)
    if note:
        out["auc"] = None
        out["auc_note"] = note
    return {**out, "n": result.summary["n"], "bins": _bins_json(result.reliability)}


def _binning_json(args) -> dict:
    return {
        "n_bins": args.bins,
        "right_closed": bool(args.bins_right_closed),
        "strategy": args.strategy,
        "convention": "(b/B, (b+1)/B], 0 in bin 0"
        if args.bins_right_closed
        else "[b/B, (b+1)/B), 1 in bin B-1",
    }


def _print_audit(title: str, result) -> None:
    from ..console import format_table

    s = result.summary
    print(f"\n{title}")
    cols = ["bin", "lo", "hi", "count", "conf", "acc", "gap", "acc_lo", "acc_hi"]
    print(format_table(result.reliability[cols]))
    auc = "undefined (one class)" if math.isnan(s["auc"]) else f"{s['auc']:.4f}"
    print(
        f"  n = {s['n']}  ECE = {s['ece']:.4f}  MCE = {s['mce']:.4f}  Brier = {s['brier']:.4f}  "
        f"NLL = {s['nll']:.4f}  acc(0.5) = {s['acc']:.4f}  AUC = {auc}"
    )


def _top_bins(reliability, reading: str | None = None):
    sel = reliability[reliability["target"] == "top"]
    if reading is not None:
        sel = sel[sel["reading"] == reading]
    return sel.reset_index(drop=True)


def _multiclass_side_json(summary: dict, top_table) -> dict:
    return {**summary, "bins": _bins_json(top_table)}


# ---------------------------------------------------------------- commands
def run_calibrate(args) -> int:
    check_out(args.out, inputs=[args.scores])
    df, kind, logits = read_scores(args.scores, need_split=True)
    _check_method(args.scores, kind, args.method)
    if kind == "multiclass":
        return _calibrate_multiclass(args, df, logits)
    import numpy as np

    from ..metrics.calibration import sigmoid
    from .audit import audit, repair

    _check_binary_splits(args.scores, df)
    s = df["score"].to_numpy(dtype=float)
    y = df["label"].to_numpy().astype(int)
    is_cal = (df["split"] == "cal").to_numpy()
    ev = ~is_cal
    opts = dict(n_bins=args.bins, right_closed=args.bins_right_closed, strategy=args.strategy)
    with _numeric_notes(args.scores):
        before = audit(y[ev], sigmoid(s[ev]), logits=s[ev], **opts)
        rep = repair(args.method, s, y, is_cal, **opts)
    bracket = _bracket_note(rep.calibrator)
    if args.out:
        _write_out(
            args.out,
            df.assign(row=np.arange(len(df)), prob=rep.p_all),
            {"method": args.method, **opts},
        )
    if args.json:
        from ..io import dumps_json

        payload = {
            "method": args.method,
            "kind": "binary",
            "binning": _binning_json(args),
            "before": _audit_json(before),
            "after": _audit_json(rep.after),
            "invariance": rep.invariance,
            "params": rep.params,
        }
        if args.method == "temperature":
            payload["tau"] = rep.params["tau"]
            payload["tau_at_bracket_bound"] = bracket
        print(dumps_json(payload), end="")
        return 0
    import json

    _print_audit(f"BEFORE: sigmoid(score) on the eval split ({args.scores})", before)
    _print_audit(f"AFTER ({args.method}, {json.dumps(rep.params)}) on the eval split", rep.after)
    held = ", ".join(f"{k}={'kept' if v else 'CHANGED'}" for k, v in rep.invariance.items())
    print(f"\n  invariances over all rows: {held}")
    if bracket:
        print(f"  note: {bracket['note']}")
    return 0


def _calibrate_multiclass(args, df, logits) -> int:
    import numpy as np

    from ..metrics.multiclass_calibration import calibrate_multiclass, check_calibration_split

    y = df["label"].to_numpy().astype(np.int64)
    is_cal = (df["split"] == "cal").to_numpy()
    try:
        check_calibration_split(y, is_cal)
    except InputError as exc:
        raise InputError(f"{args.scores}: {exc}") from None
    opts = dict(n_bins=args.bins, right_closed=args.bins_right_closed, strategy=args.strategy)
    with _numeric_notes(args.scores):
        rep = calibrate_multiclass(logits, y, is_cal, method=args.method, reg=args.reg, **opts)
    bracket = _bracket_note(rep.calibrator)
    if args.out:
        probs = [list(map(float, row)) for row in rep.probs_after]
        hashed = {"method": args.method, **opts}
        if args.method in ("vector", "matrix"):
            hashed["reg"] = args.reg
        _write_out(args.out, df.assign(row=np.arange(len(df)), probs=probs), hashed)
    if args.json:
        from ..io import dumps_json

        payload = {
            "method": args.method,
            "kind": "multiclass",
            "n_classes": rep.n_classes,
            "binning": _binning_json(args),
            "before": _multiclass_side_json(rep.before, _top_bins(rep.reliability, "before")),
            "after": _multiclass_side_json(rep.after, _top_bins(rep.reliability, "after")),
            "invariance": rep.invariance,
            "params": rep.params,
        }
        if args.method == "temperature":
            payload["tau"] = rep.params["tau"]
            payload["tau_at_bracket_bound"] = bracket
        print(dumps_json(payload), end="")
        return 0
    from ..console import format_table

    n_eval = int((~is_cal).sum())
    print(
        f"{args.method} scaling of a {rep.n_classes}-way head ({args.scores}): fitted on "
        f"{int(is_cal.sum())} cal rows, audited on {n_eval} eval rows"
    )
    print(format_table(rep.table().drop(columns="method")))
    print(f"  parameters: {_params_text(rep.params)}")
    held = ", ".join(f"{k}={'kept' if v else 'CHANGED'}" for k, v in rep.invariance.items())
    print(f"  invariances over all rows: {held}")
    if bracket:
        print(f"  note: {bracket['note']}")
    return 0


def _params_text(params: dict) -> str:
    import numpy as np

    parts = []
    for key, value in params.items():
        if isinstance(value, list):
            arr = np.asarray(value)
            text = np.array2string(arr, precision=4, max_line_width=10_000, threshold=50)
            parts.append(f"{key} = {' '.join(text.split())}")
        else:
            parts.append(f"{key} = {value:.6g}" if isinstance(value, float) else f"{key} = {value}")
    return "; ".join(parts)


def run_reliability(args) -> int:
    df, kind, logits = read_scores(args.scores, need_split=False)
    opts = dict(n_bins=args.bins, right_closed=args.bins_right_closed, strategy=args.strategy)
    if kind == "multiclass":
        return _reliability_multiclass(args, df, logits, opts)
    from ..metrics.calibration import sigmoid
    from .audit import audit

    s = df["score"].to_numpy(dtype=float)
    y = df["label"].to_numpy().astype(int)
    with _numeric_notes(args.scores):
        result = audit(y, sigmoid(s), logits=s, **opts)
    if args.json:
        from ..io import dumps_json

        print(dumps_json({**_audit_json(result), "binning": _binning_json(args)}), end="")
    else:
        _print_audit(f"reliability of sigmoid(score) ({args.scores})", result)
    return 0


def _reliability_multiclass(args, df, logits, opts) -> int:
    from ..metrics.multiclass import multiclass_reliability, multiclass_summary, softmax

    y = df["label"].to_numpy()
    with _numeric_notes(args.scores):
        p = softmax(logits)
        summary = multiclass_summary(y, p, logits=logits, **opts)
        top = _top_bins(multiclass_reliability(y, p, **opts))
    if args.json:
        from ..io import dumps_json

        payload = {
            **_multiclass_side_json(summary, top),
            "n_classes": int(logits.shape[1]),
            "binning": _binning_json(args),
        }
        print(dumps_json(payload), end="")
        return 0
    from ..console import format_table

    print(f"\nreliability of softmax(logits), top label ({args.scores})")
    cols = ["bin", "lo", "hi", "count", "conf", "acc", "gap", "acc_lo", "acc_hi"]
    print(format_table(top[cols]))
    print(
        f"  n = {summary['n']}  K = {logits.shape[1]}  ECE(top) = {summary['ece_top']:.4f}  "
        f"ECE(classwise) = {summary['ece_classwise']:.4f}  NLL = {summary['nll']:.4f}  "
        f"Brier = {summary['brier']:.4f}  acc = {summary['acc']:.4f}"
    )
    return 0
