"""check-trace's two readings against PrOntoQA's own evaluator, per corruption kind.

Reads a chains file (bench/peers/make_prontoqa_corruptions.py) and the peer's verdicts on it
(bench/peers/peer_prontoqa.py, branch main or v1) and prints, per kind: chains, the evaluator's
strict and broad rates, and how many verdicts ``--conventions nesybench`` (the default) and
``--conventions prontoqa`` share with it; then every chain the prontoqa convention decides
differently (exit status 1 if any).  Chains the evaluator itself could not score (an
exception in it) are counted apart.
Run: python bench/peers/prontoqa_agreement.py CHAINS.json PEER.json [--show N]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from nesybench.nli.checker import check_trace, classify_steps
from nesybench.nli.prontoqa_eval import CORRUPTIONS, prontoqa_verdict
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence, split_sentences


def rows(chains: dict, peer: dict):
    theories: dict = {}
    for key, value in chains.items():
        kind, _ = key.split("|", 1)
        ex = value["test_example"]
        if ex["question"] not in theories:
            theories[ex["question"]] = parse_context(ex["question"])
        theory = theories[ex["question"]]
        question = parse_sentence(ex["query"]).atom
        last = parse_sentence(ex["chain_of_thought"][-2]).atom
        output = value["model_output"]
        trace = split_sentences(output[: output.rfind(" ")])
        pq = prontoqa_verdict(trace, theory, last)
        yield (
            kind,
            key,
            peer[key],
            pq,
            (
                check_trace(trace, theory, question).strict,
                classify_steps(trace, theory, question).broad,
            ),
            trace,
        )


def main(argv: list[str]) -> int:
    chains = json.loads(Path(argv[0]).read_text())
    peer = json.loads(Path(argv[1]).read_text())["verdicts"]
    show = int(argv[argv.index("--show") + 1]) if "--show" in argv else 5
    stats = defaultdict(lambda: defaultdict(int))
    differ = defaultdict(list)
    for kind, key, p, pq, nb, trace in rows(chains, peer):
        s = stats[kind]
        s["n"] += 1
        if "error" in p:
            s["peer_error"] += 1
            continue
        s["peer_strict"] += p["strict"]
        s["peer_broad"] += p["broad"]
        s["conv_strict"] += pq.strict == p["strict"]
        s["conv_broad"] += pq.broad == p["broad"]
        s["nb_strict"] += nb[0] == p["strict"]
        s["nb_broad"] += nb[1] == p["broad"]
        if (pq.strict, pq.broad) != (p["strict"], p["broad"]):
            differ[kind].append((key, p, pq, trace))
    print(
        f"{'kind':24s} {'n':>5s} {'err':>4s} {'peer s':>7s} {'peer b':>7s} "
        f"{'prontoqa s/b agree':>19s} {'nesybench s/b agree':>20s}"
    )
    for kind in [k for k in CORRUPTIONS if k in stats]:
        s = stats[kind]
        print(
            f"{kind:24s} {s['n']:5d} {s['peer_error']:4d} {s['peer_strict']:7d} "
            f"{s['peer_broad']:7d} "
            f"{s['conv_strict']:9d}/{s['conv_broad']:<9d} {s['nb_strict']:9d}/{s['nb_broad']:<9d}"
        )
    bad = 0
    for items in differ.values():
        bad += len(items)
        for key, p, pq, trace in items[:show]:
            print(f"  DIFFER {key}: peer {p} ours strict={pq.strict} broad={pq.broad} {pq.classes}")
            for t in trace:
                print(f"      {t}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
