"""Rebuild the vendored benchmark subsets from the full files (run from the repository root).

    python benchmarks/vendor.py ../shared/external

Selections (by rule, not by result; the labelers never saw them before):
* proofwriter/dev-sample.json   every 5th question of ProofWriter dev.json (120 of 600)
* prontoqa/dev-sample.json      every 5th question of PrOntoQA dev.json (100 of 500)
* logicbench/BQA/<logic>/<axiom>/data_instances.json
                                the first 4 samples of each of the 25 axioms (all their qa pairs)
FOLIO's validation file is copied whole (it is not in ../shared/external; see
folio/NOTICE.md for its source).  The predictions under predictions/ are
regenerated with ``python -m nesybench.nli.example_systems benchmarks``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EVERY = 5
LOGICBENCH_SAMPLES = 4


def _dump(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(source: str) -> None:
    src, out = Path(source), Path(__file__).resolve().parent
    for name, rel in (("proofwriter", "proofwriter/dev.json"), ("prontoqa", "prontoqa-dev.json")):
        records = json.loads((src / rel).read_text(encoding="utf-8"))
        _dump(out / name / "dev-sample.json", records[::EVERY])
    for f in sorted((src / "logicbench").glob("*/*/data_instances.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        data["samples"] = data["samples"][:LOGICBENCH_SAMPLES]
        logic, axiom = f.parent.parent.name, f.parent.name
        _dump(out / "logicbench" / "BQA" / logic / axiom / "data_instances.json", data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/external")
