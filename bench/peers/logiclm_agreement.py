"""nesybench's ``--semantics logic-lm`` against Logic-LM's own solvers, item by item.

Reads the peer's verdicts (files written by bench/peers/peer_logiclm.py, one per program file and
PYTHONHASHSEED) and the program files, runs nesybench on every program, and prints per file:
items, agreement, executable counts (nesybench vs Logic-LM), and every item that differs,
with the class nesybench gives and why it is set aside:

* ``hash order``: nesybench finds that the outcome depends on the set order (PYTHONHASHSEED)
  and the peer's outcomes over the seeds run are among nesybench's alternatives;
* ``time``: the peer hit a time limit (Prover9's 10 s ``max_seconds``, or a parse that ran
  into Logic-LM's 60 s alarm, i.e. a parsing error that took >= 59 s);
* anything else is a disagreement (exit status 1).

Run: python bench/peers/logiclm_agreement.py PEER_FILE PROGRAM_FILE [PEER_FILE PROGRAM_FILE ...]
(each PEER_FILE written by bench/peers/peer_logiclm.py for its PROGRAM_FILE).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nesybench.nli.programs import execute_records, read_programs

LETTERS = {"A": "True", "B": "False", "C": "Unknown"}


def peer_outcome(v: dict) -> str:
    return LETTERS[v["answer"]] if v["flag"] == "success" else v["flag"]


def ours_outcome(e) -> str:
    if e.executable:
        return e.predicted
    return e.failure.split(":", 1)[0] if e.failure and ":" in e.failure else "not executable"


def peer_runs(path: Path) -> list[dict]:
    """The peer's verdicts per PYTHONHASHSEED run (a bench/peers/peer_logiclm.py file)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [doc["runs"][k] for k in sorted(doc["runs"])]


def compare(peer_file: Path, program_file: Path) -> tuple[int, list[dict]]:
    runs = peers = peer_runs(peer_file)
    pf = read_programs(program_file)
    rows = []
    for e in execute_records(pf.records, semantics="logic-lm"):
        seen = {peer_outcome(p[e.id]) for p in peers}
        ours = ours_outcome(e)
        timed = any(p[e.id].get("timed_out") for p in peers)
        alts = {ours, *(a.split(":", 1)[0] for a in e.alternatives)}
        if seen == {ours} and not e.order_dependent:
            status = "agree"
        elif timed:
            status = "time"
        elif e.order_dependent:
            status = "hash order" if seen <= alts else "DIFFER"
        else:
            status = "DIFFER"
        rows.append(
            {
                "id": e.id,
                "status": status,
                "peer": sorted(seen),
                "ours": ours,
                "failure": e.failure,
                "reason": e.reason[:120],
                "peer_executable": [p[e.id]["flag"] == "success" for p in peers],
                "executable": e.executable,
            }
        )
    return len(runs), rows


def main(argv: list[str]) -> int:
    pairs = [(Path(a), Path(b)) for a, b in zip(argv[0::2], argv[1::2])]
    bad = 0
    for peer_file, f in pairs:
        n_runs, rows = compare(peer_file, f)
        agree = sum(r["peer"] == [r["ours"]] for r in rows)
        counts = {s: sum(r["status"] == s for r in rows) for s in ("agree", "hash order", "time")}
        peer_exec = sum(r["peer_executable"][0] for r in rows)
        ours_exec = sum(r["executable"] for r in rows)
        print(
            f"{f.name}: {len(rows)} items, {agree} agree with the peer's first run "
            f"({n_runs} peer runs); deterministic agree {counts['agree']}, hash-order "
            f"{counts['hash order']}, time {counts['time']}; executable: nesybench {ours_exec}, "
            f"Logic-LM {peer_exec}"
        )
        for r in rows:
            if r["status"] != "agree":
                bad += r["status"] == "DIFFER"
                print(
                    f"  {r['status']:10s} {r['id']}: peer {r['peer']} ours {r['ours']} "
                    f"{r['reason']}"
                )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
