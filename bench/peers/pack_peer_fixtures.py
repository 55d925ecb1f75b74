"""Pack the peers' verdicts (bench/peers/peer_logiclm.py, bench/peers/peer_prontoqa.py) into
the compact fixtures the tests read, and the Logic-LM program files the tests need that
../shared/external does not hold (all under tests/nli/fixtures/).

  python bench/peers/pack_peer_fixtures.py logiclm PEER.json [PEER.json ...]    -> logiclm/peer/
  python bench/peers/pack_peer_fixtures.py programs FILE.json [FILE.json ...]   -> logiclm/programs/
  python bench/peers/pack_peer_fixtures.py prontoqa NAME CHAINS.json PEER.json  -> prontoqa/

A Logic-LM verdict keeps the flag, the answer letter, the time limit that decided it (if any)
and the first 100 characters of the error; a program file keeps each record's ``id``,
``answer``, ``options`` and program (Logic-LM's outputs, MIT, see the NOTICE beside them).
A PrOntoQA fixture (``NAME.<branch>.json``) keeps, per corruption kind, the strict, broad
and label verdicts as strings of 0/1 in the chains' order, and the SHA-256 of the chains,
whole and per kind (also of each kind's first 100 chains): the test regenerates the chains
and refuses a fixture made from other ones.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "nli" / "fixtures"


def chains_digest(doc: dict) -> str:
    """The digest the tests recompute (sorted keys, no spaces)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write_gz(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # mtime=0: the same verdicts give the same bytes
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(data.encode("utf-8"))
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


def pack_logiclm(paths: list[Path]) -> None:
    for p in paths:
        doc = json.loads(p.read_text(encoding="utf-8"))
        runs = {
            seed: {
                rid: [v["flag"], v["answer"], v.get("timed_out"), v["error"][:100]]
                for rid, v in verdicts.items()
            }
            for seed, verdicts in doc["runs"].items()
        }
        meta = {k: doc[k] for k in ("peer", "commit", "dataset", "file", "cwd")}
        stem = Path(doc["file"]).stem + (".warm" if doc["cwd"] == "models" else "")
        _write_gz(FIXTURES / "logiclm" / "peer" / f"{stem}.json.gz", {**meta, "runs": runs})


def pack_programs(paths: list[Path]) -> None:
    for p in paths:
        records = json.loads(p.read_text(encoding="utf-8"))
        keep = [
            {k: r[k] for k in ("id", "answer", "options", "raw_logic_programs") if k in r}
            for r in records
        ]
        _write_gz(FIXTURES / "logiclm" / "programs" / f"{p.stem}.json.gz", {"records": keep})


def pack_prontoqa(name: str, chains_path: Path, peer_path: Path) -> None:
    chains = json.loads(chains_path.read_text(encoding="utf-8"))
    peer = json.loads(peer_path.read_text(encoding="utf-8"))
    kinds: dict = {}
    by_kind: dict = {}
    for key in chains:  # the chains' own order: kind by kind, example by example
        kind = key.split("|", 1)[0]
        by_kind.setdefault(kind, {})[key] = chains[key]
        k = kinds.setdefault(kind, {"strict": "", "broad": "", "label": "", "errors": []})
        v = peer["verdicts"][key]
        if "error" in v:
            k["errors"].append(len(k["strict"]))
            v = {"strict": False, "broad": False, "label": False}
        for field in ("strict", "broad", "label"):
            k[field] += "1" if v[field] else "0"
    for kind, k in kinds.items():
        items = list(by_kind[kind].items())
        k["sha256"] = chains_digest(dict(items))
        k["sha256_first100"] = chains_digest(dict(items[:100]))
    doc = {
        "peer": peer["peer"],
        "branch": peer["branch"],
        "commit": peer["commit"],
        "chains": name,
        "chains_sha256": chains_digest(chains),
        "n": len(chains),
        "kinds": kinds,
    }
    out = FIXTURES / "prontoqa" / f"{name}.{peer['branch']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{out.relative_to(ROOT)}: {len(chains)} verdicts")


def main(argv: list[str]) -> int:
    what, rest = argv[0], argv[1:]
    if what == "logiclm":
        pack_logiclm([Path(a) for a in rest])
    elif what == "programs":
        pack_programs([Path(a) for a in rest])
    elif what == "prontoqa":
        pack_prontoqa(rest[0], Path(rest[1]), Path(rest[2]))
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
