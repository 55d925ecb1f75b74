"""Benchmark: the difficulty grid -- generation, reference systems and scoring per 1,000 questions.

    python bench/axes_grid.py [--per-cell 6] [--resamples 200] [--repeat 1]

On the default grid (params.yaml's axes.grid levels, ``--per-cell`` questions per
cell) it times, per 1,000 questions:

* generating the grid (sampling, rendering, reading every question back and
  re-deriving its label with the chainer and the prover), against the bank's
  generator (``build_bank``: sampling and labelling, no text) in the same run;
* the three reference systems answering it;
* scoring one system's answers (profile, interaction, logistic regression with
  ``--resamples`` bootstrap fits, mixture), against reading the grid and the
  predictions files (JSON parsing and validation) in the same run.

Not a test: timings vary by machine and load; the ratios are what to read.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from nesybench.axes.bank import BankConfig, build_bank
from nesybench.axes.grid import DEFAULT_LEVELS, DEFAULT_SEED, GridSpec, generate_grid, grid_jsonl
from nesybench.axes.references import fit_soft_reasoner, reference_predictions
from nesybench.axes.scoring import read_grid, read_predictions, score
from nesybench.progress import log


def _timed(func):
    started = time.perf_counter()
    value = func()
    return value, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-cell", type=int, default=6)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--bank-theories", type=int, default=42)
    args = parser.parse_args(argv)

    spec = GridSpec.from_params({"levels": DEFAULT_LEVELS, "per_cell": args.per_cell})
    log(f"grid: {len(spec.cells())} cells x {spec.cell_size} questions")
    questions, t_grid = _timed(lambda: generate_grid(spec, seed=DEFAULT_SEED))
    n = len(questions)
    (_, bank_q, _), t_bank = _timed(
        lambda: build_bank(
            BankConfig(n_train_theories=1, n_eval_theories=args.bank_theories), seed=DEFAULT_SEED
        )
    )
    train_spec = GridSpec(
        depth=(0, 1), distractors=(0,), order=("canonical",), synonyms=(0.0,), per_cell=24
    )
    records = [q.record() for q in questions]
    model = fit_soft_reasoner(
        [q.record() for q in generate_grid(train_spec, seed=1, split="train")]
    )
    predictions, t_systems = _timed(lambda: reference_predictions(records, model=model, cap=2))

    with tempfile.TemporaryDirectory() as tmp:
        grid_path, pred_path = Path(tmp, "grid.jsonl"), Path(tmp, "pred.jsonl")
        grid_path.write_text(grid_jsonl(questions))
        pred_path.write_text(
            "".join(
                json.dumps({"id": i, "prediction": p}) + "\n"
                for i, p in predictions["soft_reasoner"].items()
            )
        )
        (grid, preds), t_read = _timed(
            lambda: (lambda g: (g, read_predictions(pred_path, g)))(read_grid(grid_path))
        )
        _, t_score = _timed(lambda: score(grid, preds, resamples=args.resamples))

    per_k = 1000 / n
    bank_per_k = t_bank * 1000 / len(bank_q)
    rows = [
        (
            "generate grid (render, read back, re-derive)",
            t_grid * per_k,
            "bank generator",
            bank_per_k,
        ),
        ("three reference systems", t_systems * per_k, "grid generation", t_grid * per_k),
        (
            f"score (B = {args.resamples})",
            t_score * per_k,
            "read grid + predictions",
            t_read * per_k,
        ),
    ]
    print(f"{n:,} grid questions; {len(bank_q):,} bank questions")
    print(f"{'what':<46} {'s / 1,000 q':>11}   {'baseline':<24} {'s / 1,000 q':>11} {'ratio':>7}")
    for what, t, base, tb in rows:
        print(f"{what:<46} {t:>11.3f}   {base:<24} {tb:>11.3f} {t / tb:>6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
