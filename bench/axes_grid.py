"""Benchmark: the difficulty grid -- generation, reference systems and scoring per 1,000 questions.

    python bench/axes_grid.py [--per-cell 6] [--resamples 200] [--full-per-cell 6] [--repeat 2]
                              [--skip-landed]

First, against the landed code (``bench/baseline``: main before the speed-ups) in the
same run: CPU seconds per question of both grids of a seed (evaluation and training, every
label re-derived from the text), best of ``--repeat``, and of the three reference systems
answering the evaluation grid (the axes score job's main cost), on params.yaml's grid and on
the full profile's grid levels (``workflow/profiles/full/params-overrides.yaml``, at
``--full-per-cell`` questions per cell; 0 skips it), with the md5 of both trees' grids and
answers (they must be the same bytes).

Then, on the default grid (params.yaml's axes.grid levels, ``--per-cell`` questions per
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

import yaml
from baseline import ROOT, landed_tree, run_python

from nesybench.axes.bank import BankConfig, build_bank
from nesybench.axes.grid import DEFAULT_LEVELS, DEFAULT_SEED, GridSpec, generate_grid, grid_jsonl
from nesybench.axes.references import fit_soft_reasoner, reference_predictions
from nesybench.axes.scoring import read_grid, read_predictions, score
from nesybench.progress import log

#: run under either tree: CPU seconds per question of a seed's two grids (best of N) and of the
#: three reference systems on the evaluation grid, and the md5 of the grids and of the answers
GRID_SNIPPET = r"""
import hashlib, json, sys, time
from nesybench.axes.benchmark import answer_grid, fit_grid_reasoner, generate_grids
from nesybench.axes.grid import grid_jsonl, grid_table

axes, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
best = float("inf")
for _ in range(repeat):
    started = time.process_time()
    grids = generate_grids(axes, seed=0)
    best = min(best, time.process_time() - started)
digest = hashlib.md5()
for questions in grids:
    digest.update(grid_jsonl(questions).encode())
    digest.update(grid_table(questions).to_csv(index=False).encode())
n = sum(len(g) for g in grids)
records = [q.record() for q in grids[0]]
model = fit_grid_reasoner([q.record() for q in grids[1]], axes)
started = time.process_time()
answers = answer_grid(records, model, axes)
systems = time.process_time() - started
print(json.dumps({
    "questions": n, "s_per_q": best / n, "md5": digest.hexdigest(),
    "systems_s_per_q": systems / len(records),
    "answers_md5": hashlib.md5(json.dumps(answers, sort_keys=True).encode()).hexdigest(),
}))
"""


def _axes_params(levels: dict | None = None, per_cell: int | None = None) -> dict:
    axes = yaml.safe_load((ROOT / "params.yaml").read_text())["axes"]
    if levels is not None:
        axes["grid"]["levels"] = levels
    if per_cell is not None:
        axes["grid"]["per_cell"] = per_cell
    return axes


def against_landed(repeat: int, full_per_cell: int) -> None:
    """Grid generation per question, this tree vs the landed code, same params, same run."""
    full = yaml.safe_load((ROOT / "workflow/profiles/full/params-overrides.yaml").read_text())
    grids = [("params.yaml grid", _axes_params())]
    if full_per_cell:
        levels = full["axes"]["grid"]["levels"]
        grids.append((f"full levels, {full_per_cell}/cell", _axes_params(levels, full_per_cell)))
    with tempfile.TemporaryDirectory(prefix="nesybench-bench-") as tmp:
        landed = landed_tree(Path(tmp))
        print(f"{'CPU per question':<44} {'questions':>9} {'landed ms':>10} "
              f"{'this ms':>8} {'speed-up':>9}  same bytes")  # fmt: skip
        for name, axes in grids:
            arg = json.dumps(axes)
            old = run_python(landed, GRID_SNIPPET, arg, str(repeat))
            new = run_python(ROOT, GRID_SNIPPET, arg, str(repeat))
            for what, key, md5 in (
                ("generate (read back, re-derive)", "s_per_q", "md5"),
                ("three reference systems", "systems_s_per_q", "answers_md5"),
            ):
                same = "yes" if old[md5] == new[md5] else f"NO ({old[md5]} vs {new[md5]})"
                print(
                    f"{name + ': ' + what:<44} {new['questions']:>9,} "
                    f"{1000 * old[key]:>10.3f} {1000 * new[key]:>8.3f} "
                    f"{old[key] / new[key]:>8.1f}x  {same}"
                )


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
    parser.add_argument("--full-per-cell", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--skip-landed", action="store_true", help="only the in-run ratios, not the landed code"
    )
    args = parser.parse_args(argv)
    if not args.skip_landed:
        against_landed(args.repeat, args.full_per_cell)

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
