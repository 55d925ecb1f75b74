"""PrOntoQA's own proof evaluator on chains of thought: the peer verdicts that
``check-trace --conventions prontoqa`` is pinned against (tests/nli/fixtures/prontoqa/).

This script runs OUTSIDE the project, with a Python that has numpy and scipy, from a
checkout of github.com/asaparov/prontoqa (branch ``main`` or ``v1``).  For every example of
a PrOntoQA-native JSON file (``{"exampleN": {"test_example": {"question", "query",
"chain_of_thought", "answer"}, "model_output": ...}}``, as written by
bench/peers/make_prontoqa_corruptions.py) it does what the checkout's ``analyze_results.py``
does for one example: ``parse_response`` on the model output, ``parse_reasoning`` on the
context, then ``evaluate_response``, and keeps

* ``strict``: ``found_conclusion`` (a strictly valid step states the gold conclusion);
* ``broad``: strict, or the conclusion found with skip steps or non-atomic steps;
* ``label``: the label correctness;

or the error the evaluator raised (a sentence it cannot parse, an internal error).

Re-run (the fixtures were made this way)::

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install numpy scipy
    git clone https://github.com/asaparov/prontoqa /tmp/prontoqa
    git -C /tmp/prontoqa checkout main   # or v1
    python bench/peers/make_prontoqa_corruptions.py --lite 200 --out /tmp/lite_chains.json
    /tmp/peer/bin/python bench/peers/peer_prontoqa.py --prontoqa /tmp/prontoqa \\
        /tmp/lite_chains.json --branch main --commit "$(git -C /tmp/prontoqa rev-parse HEAD)" \\
        --out /tmp/lite.main.json
    python bench/peers/pack_peer_fixtures.py prontoqa lite /tmp/lite_chains.json /tmp/lite.main.json

(the real chains: ``--dev ../shared/external/prontoqa-dev.json`` and the name ``dev``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chains", type=Path, help="PrOntoQA-native JSON of examples")
    ap.add_argument("--prontoqa", type=Path, required=True, help="a checkout of asaparov/prontoqa")
    ap.add_argument("--branch", required=True, help="the checkout's branch (recorded)")
    ap.add_argument("--commit", default="", help="the checkout's commit (recorded)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    data = json.loads(args.chains.read_text(encoding="utf-8"))
    out_path = args.out.resolve()
    os.chdir(args.prontoqa)  # run_experiment reads bad_patterns.txt from the working folder
    sys.path.insert(0, str(args.prontoqa.resolve()))
    import run_experiment as rx

    takes_errors = "parse_errors" in inspect.signature(rx.evaluate_response).parameters
    verdicts = {}
    for key, value in data.items():
        ex = value["test_example"]
        question = ex["question"] + " " + ex["query"]
        question = question[: question.index("True or false:")]
        expected = " ".join(ex["chain_of_thought"])
        try:
            if takes_errors:
                errors: list = []
                proof, label, _ = rx.parse_response(value["model_output"])
                axioms = rx.parse_reasoning(question, errors)
                result = rx.evaluate_response(proof, label, expected, axioms, False, errors)
                if errors:
                    raise ValueError(f"unparsed sentences: {errors[:1]}")
            else:
                proof, label = rx.parse_response(value["model_output"])
                axioms = rx.parse_reasoning(question)
                result = rx.evaluate_response(proof, label, expected, axioms, False)
        except Exception as exc:  # the evaluator's own failure is a verdict too
            verdicts[key] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
            continue
        found, with_skip, with_non_atomic = result[13], result[14], result[15]
        verdicts[key] = {
            "strict": bool(found),
            "broad": bool(found or with_skip or with_non_atomic),
            "label": result[0] == 1.0,
        }
    doc = {
        "peer": "asaparov/prontoqa",
        "branch": args.branch,
        "commit": args.commit,
        "file": args.chains.name,
        "verdicts": verdicts,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
