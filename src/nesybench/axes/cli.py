"""``nesybench mixture``: the mixture confound on your own per-depth accuracies.

Give two systems' per-depth accuracy profiles (and optionally the bank's
per-depth question counts); get both aggregates A = sum_d pi_d a_d, the
two-depth mixes that tie the systems, and which pure-depth bank ranks each
system first.
"""

from __future__ import annotations

import argparse
import math

import pandas as pd

from ..console import format_table
from ..errors import UserError
from ..io import dumps_json
from .mixture import mixture_report


def _floats(text: str, name: str) -> list[float]:
    values = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise UserError(f"--{name}: expected comma-separated numbers, got {text!r}") from None
        if not math.isfinite(value):
            raise UserError(f"--{name}: expected finite numbers, got {item!r}")
        values.append(value)
    return values


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "mixture",
        help="aggregate accuracies, tie mixes and pure-depth winners of two per-depth profiles",
        description=__doc__ + "\nExample: nesybench mixture --a 1.0,0.9659,0.5,0.5 "
        "--b 0.9266,1.0,0.8321,1.0 --n 804,352,280,64",
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (aggregate_a, aggregate_b, ties, pure_depth)",
    )
    p.set_defaults(func=run_mixture)


def run_mixture(args: argparse.Namespace) -> int:
    a, b = _floats(args.a, "a"), _floats(args.b, "b")
    n = _floats(args.n, "n") if args.n is not None else None
    if len(a) != len(b):
        raise UserError(f"--b: expected {len(a)} accuracies (as many as --a), got {len(b)}")
    if len(a) < 2:
        raise UserError(f"--a: expected accuracies for at least 2 depths, got {len(a)}")
    if n is not None and len(n) != len(a):
        raise UserError(f"--n: expected {len(a)} counts (one per depth), got {len(n)}")
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
