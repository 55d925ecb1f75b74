"""Logic-LM's own solvers on Logic-LM program files: the peer verdicts nesybench's
``--semantics logic-lm`` is pinned against (tests/nli/fixtures/logiclm/).

This script runs OUTSIDE the project: with a Python that has Logic-LM's pinned solver
libraries (``pip install nltk==3.8.1 ply==3.11 scitools-pyke==1.1.1``, Logic-LM's
requirements.txt) and a checkout of github.com/teacherpeterpan/Logic-LLM at d29f1e5 (its
bundled ``models/symbolic_solvers/Prover9/bin/prover9`` runs on x86-64 Linux).  It imports
Logic-LM's unmodified ``Pyke_Program`` / ``FOL_Prover9_Program`` and does, per record and in
file order, exactly what ``models/logic_inference.py``'s ``safe_execute_program`` does, except
that the error message is kept and no backup answer is drawn:

* ``flag == False`` after construction -> ``parsing error``;
* ``execute_program()`` answers None -> ``execution error`` (with its message);
* else ``success`` with the mapped answer letter (A/B/C).

``--cwd root`` (default) runs from the checkout's root, as Logic-LM documents
(``python models/logic_inference.py``): Pyke's compiled folder ``./models/compiled_krb`` is
cleared before every program.  ``--cwd models`` runs from inside ``models/``, where that
clearing misses the folder and Pyke may reuse the previous program's compiled rules (the
"warm folder"; not Logic-LM's documented invocation).

Re-run (the fixtures in tests/nli/fixtures/logiclm/ were made this way)::

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install nltk==3.8.1 ply==3.11 \
        scitools-pyke==1.1.1 z3-solver==4.12.2.0
    git clone https://github.com/teacherpeterpan/Logic-LLM /tmp/Logic-LLM
    git -C /tmp/Logic-LLM checkout d29f1e5
    F=/tmp/Logic-LLM/outputs/logic_programs/FOLIO_dev_gpt-4.json
    for h in 0 1 2 3; do PYTHONHASHSEED=$h /tmp/peer/bin/python bench/peers/peer_logiclm.py \
        --logiclm /tmp/Logic-LLM --dataset FOLIO $F --append \
        --out /tmp/FOLIO_dev_gpt-4.peer.json; done
    python bench/peers/pack_peer_fixtures.py logiclm /tmp/FOLIO_dev_gpt-4.peer.json

(ProofWriter and PrOntoQA files: ``--dataset ProofWriter``/``ProntoQA``, one seed; the warm
folder: ``--cwd models``.)

The item order and the answers are the peer's; each record's seconds are printed to stderr
only (timings are machine-dependent); ``timed_out`` names the time limit that decided an
outcome (Prover9's ``max_seconds``, or a parsing error that took as long as the alarm).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

#: the alarm Logic-LM's FOL_Formula sets around nltk's chart parser (seconds)
ALARM = 60


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", type=Path, help="a Logic-LM program file (JSON list)")
    ap.add_argument("--logiclm", type=Path, required=True, help="Logic-LLM checkout (d29f1e5)")
    ap.add_argument("--dataset", required=True, choices=("ProofWriter", "ProntoQA", "FOLIO"))
    ap.add_argument("--cwd", choices=("root", "models"), default="root")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--append", action="store_true", help="add this PYTHONHASHSEED's run to --out's runs"
    )
    args = ap.parse_args(argv)

    records = json.loads(args.programs.read_text(encoding="utf-8"))
    out_path = args.out.resolve()
    root = args.logiclm.resolve()
    # a finished Logic-LM run removes Pyke's compiled folder (LogicInferenceEngine.cleanup);
    # start from that state (an empty leftover folder would import as a namespace package)
    shutil.rmtree(root / "models" / "compiled_krb", ignore_errors=True)
    os.chdir(root if args.cwd == "root" else root / "models")
    sys.path.insert(0, str(root / "models"))
    if args.dataset == "FOLIO":
        from symbolic_solvers.fol_solver.prover9_solver import FOL_Prover9_Program as Program

        # prover9_solver.py sets PROVER9 relative to the root; from models/ point it there
        os.environ["PROVER9"] = str(root / "models/symbolic_solvers/Prover9/bin")
    else:
        from symbolic_solvers.pyke_solver.pyke_solver import Pyke_Program as Program

    verdicts = {}
    for rec in records:
        t0 = time.perf_counter()
        program = Program(rec["raw_logic_programs"][0].strip(), args.dataset)
        if program.flag is False:
            flag, answer, error = "parsing error", None, ""
        else:
            answer, error = program.execute_program()
            if answer is None:
                flag, error = "execution error", str(error)
            else:
                flag, answer, error = "success", program.answer_mapping(answer), ""
        seconds = time.perf_counter() - t0
        # which outcomes a time limit decided (they depend on the machine's speed)
        timed_out = None
        if "MAX_SECONDS" in error:
            timed_out = "Prover9 max_seconds (10 s)"
        elif flag == "parsing error" and seconds >= ALARM - 1:
            timed_out = "Logic-LM's parse alarm (60 s)"
        verdicts[rec["id"]] = {
            "flag": flag,
            "answer": answer,
            "error": error[:300],
            "timed_out": timed_out,
        }
        print(f"{rec['id']}\t{flag}\t{answer}\t{seconds:.2f}s", file=sys.stderr)
    seed = os.environ.get("PYTHONHASHSEED", "random")
    doc = {
        "peer": "teacherpeterpan/Logic-LLM",
        "commit": "d29f1e5",
        "dataset": args.dataset,
        "file": args.programs.name,
        "cwd": args.cwd,
        "runs": {},
    }
    if args.append and out_path.exists():
        doc = json.loads(out_path.read_text(encoding="utf-8"))
        if (doc["file"], doc["cwd"]) != (args.programs.name, args.cwd):
            raise SystemExit(f"{out_path} holds runs of {doc['file']} (cwd {doc['cwd']})")
    # one run per PYTHONHASHSEED: Logic-LM's FOLIO lexer depends on set order
    doc["runs"][seed] = verdicts
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
