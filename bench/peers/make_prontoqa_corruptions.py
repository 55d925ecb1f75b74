"""Corrupted chains of thought in PrOntoQA's native format, for PrOntoQA's own evaluator.

Every corruption kind of ``nesybench.nli.prontoqa_eval.CORRUPTIONS`` applied to every gold
chain of a source, written by ``prontoqa_eval.native_chains`` (the gold chain with its label
last, as PrOntoQA's logs have it; the model output is the corrupted chain and its answer).
bench/peers/peer_prontoqa.py runs PrOntoQA's ``evaluate_response`` on the file.

Sources:
  --dev FILE     a Logic-LM-style PrOntoQA file (``context, question, answer, explanation``),
                 e.g. ../shared/external/prontoqa-dev.json
  --lite N       N chains from nesybench's own PrOntoQA-lite generator (seed 0; hops 3-6),
                 written out as fact, rule, fact, ... chains (not in ../shared/external)
Run: python bench/peers/make_prontoqa_corruptions.py (--dev FILE | --lite N) --out OUT.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nesybench.nli.prontoqa_eval import (
    CORRUPTIONS,
    lite_examples,
    native_chains,
    records_examples,
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--dev", type=Path)
    src.add_argument("--lite", type=int)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.dev:
        examples, contexts = records_examples(json.loads(args.dev.read_text(encoding="utf-8")))
    else:
        examples, contexts = lite_examples(args.lite)
    doc = native_chains(examples, contexts)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{args.out}: {len(doc)} chains ({len(examples)} gold chains x {len(CORRUPTIONS)} kinds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
