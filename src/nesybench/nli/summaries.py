"""The nli instrument's tables: one seed's corpora and scores, and their distribution over seeds.

One seed draws one PrOntoQA-lite corpus and one FOLIO-lite corpus (:func:`corpora`); the
systems' rows (:mod:`.scoring`) become the chapter's tables:

* :func:`label_mix_table`, :func:`depth_mix_table` -- the label mix (whose maximum is the
  best input-blind guess) and the depth mix of each corpus;
* :func:`per_depth_table`, :func:`metric_trap_table` -- label accuracy, strict-proof
  accuracy, abstention and right-for-wrong-reason rate per (system, hops) and per system;
* :func:`worked_example` -- the example the chapter walks through, picked by a declared rule;
* :func:`seed_summary` -- one row of the seed's headline numbers (:data:`SEED_METRICS`),
  which the sweep (:mod:`nesybench.sweep`) summarises over seeds.

Over seeds, :func:`over_seeds` turns any per-seed table (a ``seed`` column, key columns and
value columns) into one distribution row per (key, value): the mean, the standard deviation,
the 95% percentile-bootstrap interval of the mean over seeds, the range and the number of
seeds with a finite value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..errors import InputError
from ..reasoning.grammar.reading import split_sentences
from ..sweep import Metric, seed_statistics
from .checker import FLAGS
from .folio_lite import LABEL_ORDER, FolioExample
from .folio_lite import generate_corpus as generate_folio
from .prontoqa_lite import ProntoExample
from .prontoqa_lite import generate_corpus as generate_prontoqa
from .scoring import FOLIO_SYSTEMS, SYSTEMS, summarize
from .systems import majority_label

#: short names of the PrOntoQA-lite systems in metric keys and plot columns
SHORT = {SYSTEMS[0]: "pipeline", SYSTEMS[1]: "greedy"}
TRAP_COLUMNS = ("label_acc", "proof_acc", "abstention", "rfwr")

#: the per-seed numbers summarised over seeds, in report order
SEED_METRICS = (
    Metric("prontoqa_corrupted_frac", "PrOntoQA-lite: share of examples with a corrupted rule"),
    Metric("pipeline_label_accuracy", "translate-then-prove: label accuracy"),
    Metric("pipeline_proof_accuracy", "translate-then-prove: strict-proof accuracy"),
    Metric("pipeline_abstention", "translate-then-prove: abstention"),
    Metric("greedy_label_accuracy", "greedy: label accuracy"),
    Metric("greedy_proof_accuracy", "greedy: strict-proof accuracy"),
    Metric("greedy_rfwr", "greedy: right for the wrong reason"),
    Metric("label_gap", "label accuracy, greedy - translate-then-prove"),
    Metric("proof_gap", "strict-proof accuracy, translate-then-prove - greedy"),
    Metric("deep_label_gap", "label accuracy at the deepest hop count, greedy - pipeline"),
    Metric("prontoqa_majority_accuracy", "PrOntoQA-lite: majority baseline (best blind guess)"),
    Metric("folio_majority_accuracy", "FOLIO-lite: majority baseline (best blind guess)"),
    Metric("folio_greedy_cwa_accuracy", "FOLIO-lite: greedy CWA accuracy (= 1 - P(Unknown))"),
)


# ---------------------------------------------------------------- corpora
def label_mix_params(params: Mapping) -> dict[str, float]:
    """``nli.folio.label_mix`` as ``{label: probability}`` (the three sum to 1: checked at
    load time by :mod:`nesybench.nli.params_checks`)."""
    mix = params["folio"]["label_mix"]
    return {"True": mix["p_true"], "False": mix["p_false"], "Unknown": mix["p_unknown"]}


def corpora(params: Mapping, *, seed: int) -> tuple[list[ProntoExample], list[FolioExample]]:
    """The PrOntoQA-lite and FOLIO-lite corpora of one seed (independent named streams)."""
    pq, fl = params["prontoqa"], params["folio"]
    pronto = generate_prontoqa(
        pq["hops"], pq["n_per_hops"], seed=seed, corrupt_prob=pq["corrupt_prob"]
    )
    folio = generate_folio(
        fl["n"], seed=seed, label_mix=label_mix_params(params), max_chain=fl["max_chain"]
    )
    return pronto, folio


# ---------------------------------------------------------------- count
def label_mix_table(pronto: pd.DataFrame, folio: pd.DataFrame) -> pd.DataFrame:
    """Per corpus and gold label: count and share ``p_y``; the maximum is the best blind guess."""
    rows = []
    for dataset, labels, vocab in (
        ("prontoqa", pronto["gold_label"], ("True", "False")),
        ("folio", folio["gold_label"], LABEL_ORDER),
    ):
        n = len(labels)
        for y in vocab:
            k = int((labels == y).sum())
            rows.append({"dataset": dataset, "label": y, "n": k, "frac": k / n})
    return pd.DataFrame(rows)


def depth_mix_table(pronto: pd.DataFrame, folio: pd.DataFrame) -> pd.DataFrame:
    """Examples per depth (PrOntoQA-lite: hops; FOLIO-lite: depth of the decisive atom)."""
    columns = ["dataset", "depth", "n", "n_corrupted", "frac_corrupted"]
    pq = (
        pronto.groupby("hops", sort=True)
        .agg(n=("id", "size"), n_corrupted=("is_corrupted", "sum"))
        .reset_index()
        .rename(columns={"hops": "depth"})
        .assign(dataset="prontoqa")
    )
    fl = (
        folio.groupby("depth", sort=True)
        .agg(n=("id", "size"))
        .reset_index()
        .assign(dataset="folio", n_corrupted=0)
    )
    depth = pd.concat([pq, fl], ignore_index=True)
    depth["n_corrupted"] = depth["n_corrupted"].astype("int64")
    depth["frac_corrupted"] = depth["n_corrupted"] / depth["n"]
    return depth[columns]


def blind_guess_metrics(mix: pd.DataFrame, labels: pd.Series, dataset: str) -> dict:
    """The majority baseline scored against every gold label, beside the blind-guess range.

    An input-blind guesser with distribution q scores ``E[acc] = sum_y p_y q_y``, which lies in
    ``[min_y p_y, max_y p_y]``; the uniform guess scores ``1/K``.
    """
    fr = dict(zip(mix["label"], mix["frac"]))
    major = majority_label(list(labels))
    return {
        "n": int(mix["n"].sum()),
        **{f"mix_{y}": float(fr[y]) for y in fr},
        "majority_label": major,
        "majority_baseline_acc": float((labels == major).mean()),
        "best_blind_guess_acc": float(max(fr.values())),
        "worst_blind_guess_acc": float(min(fr.values())),
        "uniform_guess_acc": 1.0 / len(fr),
    }


# ---------------------------------------------------------------- score
def per_depth_table(traces: pd.DataFrame) -> pd.DataFrame:
    """The metric-trap numbers (:func:`~.scoring.summarize`) per (system, hops)."""
    return pd.DataFrame(
        [
            {"system": s, "hops": int(h), **summarize(g)}
            for (s, h), g in traces.groupby(["system", "hops"], sort=True)
        ]
    )


def metric_trap_table(traces: pd.DataFrame) -> pd.DataFrame:
    """Label accuracy, strict-proof accuracy, abstention and rfwr per system (abstain = wrong)."""
    rows = []
    for s in SYSTEMS:
        m = summarize(traces[traces["system"] == s])
        rows.append({"system": s, **{k: m[k] for k in TRAP_COLUMNS}})
    return pd.DataFrame(rows)


def answered_summary(traces: pd.DataFrame) -> dict:
    """The pipeline's numbers on the examples it answers (coverage factored out)."""
    return summarize(traces[(traces["system"] == SYSTEMS[0]) & ~traces["abstained"]])


WORKED_RULE = (
    "the first example by id at {hops} hops, with no corrupted sentence, on which both systems "
    "are right and only greedy's trace fails the strict checker"
)


def worked_example(
    examples: Sequence[ProntoExample], traces: pd.DataFrame, *, hops: int
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """The chapter's worked example of the greedy trap, picked by :data:`WORKED_RULE`.

    Returns the two systems' rows (trace and the checker's flags), the example's text one line
    per sentence, and metadata (``example_id``, ``hops``, ``rule``).  A seed without such an
    example (possible on a tiny corpus) gets empty tables and an empty ``example_id``.
    """
    wide = traces.pivot(index="id", columns="system", values=["correct", "strict"])
    by_id = {e.id: e for e in examples}
    found = None
    for ex_id in sorted(wide.index):
        ex, w = by_id[ex_id], wide.loc[ex_id]
        if ex.hops != hops or ex.corrupted >= 0:
            continue
        if (
            w[("correct", SYSTEMS[0])]
            and w[("correct", SYSTEMS[1])]
            and w[("strict", SYSTEMS[0])]
            and not w[("strict", SYSTEMS[1])]
        ):
            found = ex
            break
    columns = ["system", "label", "gold_label", "trace", *FLAGS, "reason"]
    meta = {"example_id": "", "hops": str(hops), "rule": WORKED_RULE.format(hops=hops)}
    if found is None:
        return pd.DataFrame(columns=columns), pd.DataFrame({"line": [], "text": []}), meta
    rows = traces[traces["id"] == found.id][columns].reset_index(drop=True)
    sentences = split_sentences(found.context)
    text = pd.DataFrame(
        {
            "line": range(1, len(sentences) + 3),
            "text": [*sentences, found.question, f"(gold label: {found.gold_label})"],
        }
    )
    return rows, text, {**meta, "example_id": found.id}


def seed_summary(
    seed: int,
    traces: pd.DataFrame,
    per_depth: pd.DataFrame,
    folio_table: pd.DataFrame,
    *,
    pronto: pd.DataFrame,
    folio: pd.DataFrame,
) -> pd.DataFrame:
    """One row: the seed and every number of :data:`SEED_METRICS`.

    ``label_gap = greedy label acc - pipeline label acc``; ``proof_gap = pipeline proof acc -
    greedy proof acc``; ``deep_label_gap`` is the label gap at the largest hop count.
    """
    trap = metric_trap_table(traces).set_index("system")
    pipe, greedy = trap.loc[SYSTEMS[0]], trap.loc[SYSTEMS[1]]
    deepest = int(per_depth["hops"].max())
    deep = per_depth[per_depth["hops"] == deepest].set_index("system")["label_acc"]
    folio_acc = dict(zip(folio_table["system"], folio_table["overall"]))
    row = {
        "seed": int(seed),
        "prontoqa_corrupted_frac": float(pronto["is_corrupted"].mean()),
        **{
            f"pipeline_{_key_word(k)}": float(pipe[k])
            for k in ("label_acc", "proof_acc", "abstention")
        },
        **{f"greedy_{_key_word(k)}": float(greedy[k]) for k in ("label_acc", "proof_acc")},
        "greedy_rfwr": float(greedy["rfwr"]),
        "label_gap": float(greedy["label_acc"] - pipe["label_acc"]),
        "proof_gap": float(pipe["proof_acc"] - greedy["proof_acc"]),
        "deep_label_gap": float(deep[SYSTEMS[1]] - deep[SYSTEMS[0]]),
        "prontoqa_majority_accuracy": float(
            pronto["gold_label"].value_counts(normalize=True).max()
        ),
        "folio_majority_accuracy": float(folio_acc[FOLIO_SYSTEMS[2]]),
        "folio_greedy_cwa_accuracy": float(folio_acc[FOLIO_SYSTEMS[1]]),
    }
    return pd.DataFrame([row])


# ---------------------------------------------------------------- over seeds
DIST_COLUMNS = ("metric", "mean", "sd", "lo", "hi", "min", "max", "n_seeds")


def over_seeds(frame: pd.DataFrame, *, keys: Sequence[str], values: Sequence[str]) -> pd.DataFrame:
    """Distribution over seeds of every value column, per key.

    ``frame`` holds one per-seed table per seed, stacked, with a ``seed`` column.  For each
    key and value column: mean over the seeds with a finite value, sample standard deviation,
    95% percentile-bootstrap interval of the mean (seeds resampled; the stream is named after
    the key, so every column of a key resamples the same seeds and two columns with the same
    values get the same interval), min, max and ``n_seeds``.  A value that is finite on no seed
    gives NaN statistics and ``n_seeds = 0``.

    >>> f = pd.DataFrame({"seed": [0, 1], "system": ["a", "a"], "acc": [0.5, 0.5]})
    >>> over_seeds(f, keys=["system"], values=["acc"])[["system", "metric", "mean", "lo"]]
      system metric  mean   lo
    0      a    acc   0.5  0.5
    """
    missing = [c for c in ("seed", *keys, *values) if c not in frame.columns]
    if missing:
        raise InputError(f"frame: missing column {missing[0]!r}")
    rows = []
    for key, group in frame.groupby(list(keys), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        for value in values:
            name = ":".join(map(str, key))
            stats = seed_statistics(group[value].to_numpy(dtype=float), name=name)
            rows.append({**dict(zip(keys, key)), "metric": value, **stats})
    return pd.DataFrame(rows, columns=[*keys, *DIST_COLUMNS])


def stack_seeds(frames: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """Per-seed tables stacked with a leading ``seed`` column, in seed order (a table's own
    ``seed`` column is replaced by the key it is filed under)."""
    parts = []
    for seed, df in sorted(frames.items()):
        rest = [c for c in df.columns if c != "seed"]
        parts.append(df.assign(seed=seed)[["seed", *rest]])
    return pd.concat(parts, ignore_index=True)


def per_depth_plot(per_depth_dist: pd.DataFrame) -> pd.DataFrame:
    """One row per hop count, one column per (system, metric) mean and its interval: the shape
    ``dvc plots`` draws as curves."""
    d = per_depth_dist[per_depth_dist["metric"].isin(["label_acc", "proof_acc"])]
    out = {}
    for (system, metric), g in d.groupby(["system", "metric"], sort=True):
        g = g.set_index("hops")
        name = f"{SHORT[system]}_{metric}"
        out[name] = g["mean"]
        out[f"{name}_lo"] = g["lo"]
        out[f"{name}_hi"] = g["hi"]
    wide = pd.DataFrame(out)
    wide.index.name = "hops"
    return wide[sorted(wide.columns)].reset_index()


def _key_word(column: str) -> str:
    """A per-system column's word in the seed summary and the metric keys: ``label_acc`` ->
    ``label_accuracy`` (nesybench.metric_keys spells accuracy one way)."""
    return column.removesuffix("_acc") + "_accuracy" if column.endswith("_acc") else column


def per_depth_metrics(per_depth_dist: pd.DataFrame) -> dict:
    """``per_depth.h<h>.<system>.<label|proof>_accuracy.{mean,lo,hi,n_seeds}``."""
    out: dict = {}
    for r in per_depth_dist.itertuples(index=False):
        if r.metric not in ("label_acc", "proof_acc"):
            continue
        base = f"per_depth.h{int(r.hops)}.{SHORT[r.system]}.{_key_word(r.metric)}"
        for stat in ("mean", "lo", "hi", "n_seeds"):
            out[f"{base}.{stat}"] = getattr(r, stat)
    return out
