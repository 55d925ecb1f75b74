"""The prontoqa convention against PrOntoQA's own evaluator, and every rule in which
nesybench's default reading differs from it.

The fixtures in tests/nli/fixtures/prontoqa/ are PrOntoQA's verdicts (branches main and v1)
on the corrupted chains ``nesybench.nli.prontoqa_eval.native_chains`` writes, made with
bench/peers/make_prontoqa_corruptions.py, bench/peers/peer_prontoqa.py and
bench/peers/pack_peer_fixtures.py (see their docstrings to re-run them).  The chains are
regenerated here and must hash to what the fixture was made from.
"""

import hashlib
import json
from functools import cache
from pathlib import Path

import pytest

from nesybench.nli.checker import check_trace, classify_steps
from nesybench.nli.prontoqa_eval import (
    CONVENTIONS,
    CORRUPTIONS,
    KINDS,
    corrupt_chain,
    corrupted_examples,
    gold_conclusion,
    lite_examples,
    native_chains,
    prontoqa_verdict,
    records_examples,
    verdict,
)
from nesybench.reasoning.grammar.reading import parse_context, parse_sentence

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "prontoqa"
DEV = Path(__file__).resolve().parents[3] / "shared" / "external" / "prontoqa-dev.json"
CONTEXT = (
    "Every wumpus is a yumpus. Every yumpus is a dumpus. Dumpuses are not sour. "
    "Every dumpus is a rompus. Every rompus is a zumpus. Every zumpus is a tumpus. "
    "Every yumpus is a numpus. Max is a wumpus."
)
GOLD = [
    "Max is a wumpus.",
    "Every wumpus is a yumpus.",
    "Max is a yumpus.",
    "Every yumpus is a dumpus.",
    "Max is a dumpus.",
    "Every dumpus is a rompus.",
    "Max is a rompus.",
    "Every rompus is a zumpus.",
    "Max is a zumpus.",
    "Every zumpus is a tumpus.",
    "Max is a tumpus.",
]


def digest(doc: dict) -> str:
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def both(trace):
    th = parse_context(CONTEXT)
    q = parse_sentence("True or false: Max is a tumpus.").atom
    nb = (check_trace(trace, th, q).strict, classify_steps(trace, th, q).broad)
    pq = prontoqa_verdict(trace, th, gold_conclusion(th, q))
    return nb, (pq.strict, pq.broad)


# ---------------------------------------------------------------- agreement with the peer
@cache
def lite():
    examples, contexts = lite_examples(200)
    return examples, native_chains(examples, contexts)


def per_kind(doc: dict, first: int | None = None) -> dict:
    out: dict = {}
    for key, value in doc.items():
        kind = key.split("|", 1)[0]
        if first is None or len(out.setdefault(kind, {})) < first:
            out.setdefault(kind, {})[key] = value
    return out


def test_lite_chains_are_the_ones_the_fixtures_were_made_from():
    _, doc = lite()
    for branch in ("main", "v1"):
        assert fixture(f"lite.{branch}")["chains_sha256"] == digest(doc), (
            "the corruption generator changed: re-run bench/peers/make_prontoqa_corruptions.py, "
            "bench/peers/peer_prontoqa.py and bench/peers/pack_peer_fixtures.py"
        )


def _agreement(examples, peer: dict, first: int | None = None) -> dict:
    """Per kind: (chains compared, strict agree, broad agree) of the prontoqa convention."""
    seen: dict = {}
    out: dict = {}
    for kind, _, theory, _, trace, _, last in corrupted_examples(examples):
        i = seen[kind] = seen.get(kind, -1) + 1
        if first is not None and i >= first:
            continue
        k = peer["kinds"][kind]
        n, s, b = out.get(kind, (0, 0, 0))
        if i in k["errors"]:
            continue  # PrOntoQA's evaluator could not score this chain
        v = prontoqa_verdict(trace, theory, last)
        out[kind] = (
            n + 1,
            s + (v.strict == (k["strict"][i] == "1")),
            b + (v.broad == (k["broad"][i] == "1")),
        )
    return out


def test_prontoqa_convention_agrees_with_prontoqa_main_on_own_chains():
    """PrOntoQA-lite chains (nesybench's generator, not ../shared): every kind, every chain."""
    examples, _ = lite()
    got = _agreement(examples, fixture("lite.main"))
    assert set(got) == set(CORRUPTIONS)
    for kind, (n, s, b) in got.items():
        assert n == 200 and (s, b) == (n, n), kind


@pytest.mark.skipif(not DEV.exists(), reason="../shared/external is absent")
def test_prontoqa_convention_agrees_with_prontoqa_main_on_real_chains_first_100():
    examples, contexts = records_examples(json.loads(DEV.read_text()))
    peer = fixture("dev.main")
    doc = per_kind(native_chains(examples[:100], contexts))
    for kind in CORRUPTIONS:
        assert digest(doc[kind]) == peer["kinds"][kind]["sha256_first100"], kind
    for kind, (n, s, b) in _agreement(examples[:100], peer).items():
        assert n == 100 and (s, b) == (n, n), kind


@pytest.mark.slow
@pytest.mark.skipif(not DEV.exists(), reason="../shared/external is absent")
def test_prontoqa_convention_agrees_with_prontoqa_main_on_all_real_chains():
    examples, contexts = records_examples(json.loads(DEV.read_text()))
    peer = fixture("dev.main")
    assert digest(native_chains(examples, contexts)) == peer["chains_sha256"]
    got = _agreement(examples, peer)
    assert sum(n for n, _, _ in got.values()) == 500 * len(CORRUPTIONS) - sum(
        len(k["errors"]) for k in peer["kinds"].values()
    )
    for kind, (n, s, b) in got.items():
        assert (s, b) == (n, n), kind


def test_v1_differs_from_main_where_the_docs_say():
    """v1 counts a step provable from the context as non-atomic whatever was stated: a
    reversed, shuffled or negated-intermediate chain is broad there, never in main; where v1
    can read the chain (its vocabulary lacks most of PrOntoQA-lite's newer nouns)."""
    main, v1 = fixture("lite.main")["kinds"], fixture("lite.v1")["kinds"]
    for kind in ("reversed", "shuffled", "negated_intermediate", "unstated_rule"):
        read = [i for i in range(200) if i not in v1[kind]["errors"]]
        assert read, kind
        assert all(v1[kind]["broad"][i] == "1" for i in read), kind
        assert main[kind]["broad"].count("1") < len(read) or kind == "shuffled", kind
    assert main["reversed"]["broad"].count("1") == 0
    for kind in ("gold", "facts_only", "skipped_hop", "truncated", "negated_conclusion"):
        read = [i for i in range(200) if i not in v1[kind]["errors"]]
        assert all(v1[kind][f][i] == main[kind][f][i] for i in read for f in ("strict", "broad"))


# ---------------------------------------------------------------- the rules that differ
def test_rule_off_path_and_repeated_steps():
    """Rule 1: a true context sentence off the path, or a repeated step, is correct for
    PrOntoQA; nesybench's reading rejects the chain as non-linear."""
    off_path = GOLD[:3] + ["Every yumpus is a numpus.", "Max is a numpus."] + GOLD[3:]
    assert both(off_path) == ((False, True), (True, True))  # broad: an off-path valid step
    repeated = GOLD[:5] + ["Max is a dumpus."] + GOLD[5:]
    nb, pq = both(repeated)
    assert pq == (True, True) and not nb[0]


def test_rule_stated_rules():
    """Rule 2: a fact-only chain is non-atomic for PrOntoQA (broad only), strict for
    nesybench (the rules are in the context, the chain is linear)."""
    assert both(GOLD[::2]) == ((True, True), (False, True))


def test_rule_unused_bad_steps():
    """Rule 3: PrOntoQA ignores a false step the conclusion does not rest on."""
    trace = GOLD[:3] + ["Max is a jompus."] + GOLD[3:]
    assert both(trace) == ((False, False), (True, True))


def test_rule_reaching_the_conclusion_anywhere():
    """Rule 4: a good step stating the conclusion counts wherever it stands."""
    trace = GOLD + ["Every yumpus is a numpus."]
    nb, pq = both(trace)
    assert pq == (True, True) and nb[0] is False  # nesybench: the last step must decide


def test_rule_order():
    """Rule 5: swapping two (rule, fact) blocks keeps PrOntoQA's broad verdict (the rule of
    the moved block still stands next to its fact) and breaks nesybench's linearity."""
    swapped = GOLD[:3] + GOLD[5:7] + GOLD[3:5] + GOLD[7:]
    nb, pq = both(swapped)
    assert pq == (False, True) and nb[0] is False


def test_rule_restated_premise():
    """Rule 6: "Since A, B" is two steps for PrOntoQA (A restates a stated fact: correct);
    nesybench reads A as a step the rule just stated must derive."""
    trace = [GOLD[0]]
    for k in range(1, len(GOLD) - 1, 2):
        trace += [GOLD[k], f"Since {GOLD[k - 1].rstrip('.')}, {GOLD[k + 1]}"]
    nb, pq = both(trace)
    assert pq == (True, True) and nb[0] is False


def test_quirk_unstated_premise_is_a_skip():
    """PrOntoQA's lookup of an unstated premise reports non-atomic and skip the other way
    round: a fact two hops from the last stated fact is broad (as a skip), not strict."""
    trace = GOLD[:3] + ["Every dumpus is a rompus.", "Max is a rompus."]
    th = parse_context(CONTEXT)
    v = prontoqa_verdict(trace, th, parse_sentence("Max is a rompus.").atom)
    assert v.classes[-1] == "non-atomic" and v.broad and not v.strict


# ---------------------------------------------------------------- plumbing
def test_verdict_dispatch_and_conventions_match_the_cli():
    from nesybench.nli import cli

    assert cli.CONVENTIONS == CONVENTIONS
    th = parse_context(CONTEXT)
    q = parse_sentence("True or false: Max is a tumpus.").atom
    assert verdict(GOLD[::2], th, q, conventions="prontoqa")["strict"] is False
    assert verdict(GOLD[::2], th, q, conventions="nesybench")["strict"] is True
    with pytest.raises(ValueError, match="conventions"):
        verdict(GOLD, th, q, conventions="pq")


def test_gold_conclusion_is_the_proved_literal():
    th = parse_context(CONTEXT)
    q = parse_sentence("True or false: Max is sour.").atom
    assert str(gold_conclusion(th, q)) == "not_sour(max)"


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corrupt_chain_deterministic_and_changes_something(kind):
    th = parse_context(CONTEXT)
    a = corrupt_chain(GOLD, kind, th, seed=3, key="a", answer="True")
    assert a == corrupt_chain(GOLD, kind, th, seed=3, key="a", answer="True")
    if kind == "changed_answer":
        assert a == (GOLD, "False")
    elif kind != "gold":
        assert a[0] != GOLD, kind


def test_the_seventeen_kinds():
    assert len(KINDS) == 17 and KINDS[0] == "gold"
