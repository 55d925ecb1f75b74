"""Seed sweeps: from one summary row per seed to distributions, claim rates and an exhibit seed.

Every number that depends on a seed is computed by one job per seed; the sweep's aggregate
job gathers their one-row summaries into a table (a ``seed`` column, one column per metric
and per claim) and hands it to this module:

* :func:`distribution_table` -- per metric, the mean over seeds, the standard deviation and a
  percentile-bootstrap interval of the mean (resampling the same seeds for every metric);
* :func:`claim_table` -- per directional claim of the chapter, on how many seeds it holds,
  the rate with a Wilson interval, the threshold declared in params.yaml and the verdict.
  :func:`check_claims` fails the run on an enforced claim below its threshold; a claim that
  is reported but not enforced is a finding, stated as such in the report;
* :func:`pick_exhibit` -- the single seed whose tables the report shows as a worked example,
  by a declared rule (e.g. the median of a metric), with its rank in the distribution;
* :func:`sweep_metrics` -- the flat metrics ``<name>.mean``, ``.lo``, ``.hi``, ``.n_seeds``
  and ``.claim_rate`` that ``dvc metrics diff`` and the nightly tolerances compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import ClaimFailed, InputError
from .metrics.stats import wilson_interval
from .seeds import child_rng

__all__ = [
    "Metric",
    "SeedClaim",
    "check_claims",
    "claim_table",
    "distribution_table",
    "pick_exhibit",
    "sweep_metrics",
]

BOOTSTRAP_RESAMPLES = 2000
LEVEL = 0.95


@dataclass(frozen=True)
class Metric:
    """A per-seed number summarised over seeds (``name`` is a column of the summary)."""

    name: str
    label: str


@dataclass(frozen=True)
class SeedClaim:
    """A directional claim checked on every seed (``name`` is a boolean summary column).

    ``metric`` names the metric the claim is about, so its rate is also reported as
    ``<metric>.claim_rate``.
    """

    name: str
    statement: str
    metric: str | None = None


def _check_summary(summary: pd.DataFrame, columns: Sequence[str]) -> None:
    if "seed" not in summary.columns or summary.empty:
        raise InputError("sweep summary: expected one row per seed with a 'seed' column")
    if summary["seed"].duplicated().any():
        raise InputError("sweep summary: a seed appears twice")
    missing = [c for c in columns if c not in summary.columns]
    if missing:
        raise InputError(f"sweep summary: missing column {missing[0]!r}")


def bootstrap_mean_interval(
    values: np.ndarray, *, name: str, level: float = LEVEL, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of ``values`` (seeds resampled with replacement).

    The resampling stream is named by ``name`` (not by the order of the calls), so intervals
    are reproducible; callers name it after what is resampled (a table, a table row), so
    columns resampled together see the same seeds and equal columns get equal intervals.

    >>> bootstrap_mean_interval(np.array([1.0, 1.0, 1.0]), name="x")
    (1.0, 1.0)
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return float(values[0]), float(values[0])
    rng = child_rng(0, "sweep-bootstrap", name)
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    means = values[idx].mean(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return float(lo), float(hi)


SEED_STATISTICS = ("mean", "sd", "lo", "hi", "min", "max", "n_seeds")


def seed_statistics(values, *, name: str) -> dict:
    """Mean, sd, 95% bootstrap interval of the mean (stream named ``name``), min, max and
    ``n_seeds`` of the finite ``values``; NaN statistics and ``n_seeds = 0`` when none is finite.

    >>> seed_statistics(np.array([1.0, np.nan, 3.0]), name="x")["n_seeds"]
    2
    """
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return {**dict.fromkeys(SEED_STATISTICS[:-1], float("nan")), "n_seeds": 0}
    lo, hi = bootstrap_mean_interval(finite, name=name)
    return {
        "mean": float(finite.mean()),
        "sd": float(finite.std(ddof=1)) if len(finite) > 1 else 0.0,
        "lo": lo,
        "hi": hi,
        "min": float(finite.min()),
        "max": float(finite.max()),
        "n_seeds": int(len(finite)),
    }


def distribution_table(summary: pd.DataFrame, metrics: Sequence[Metric]) -> pd.DataFrame:
    """One row per metric: mean, sd, 95% bootstrap interval of the mean, min, max, n_seeds.

    Every metric resamples the same seeds (one stream for the table), so two metrics with the
    same per-seed values get the same interval.
    """
    _check_summary(summary, [m.name for m in metrics])
    rows = []
    for order, m in enumerate(metrics):
        stats = seed_statistics(summary[m.name].to_numpy(dtype=float), name="distribution")
        if stats["n_seeds"] == 0:
            raise InputError(f"sweep summary: metric {m.name!r} has no finite value on any seed")
        rows.append({"order": order, "metric": m.name, "label": m.label, **stats})
    return pd.DataFrame(rows)


def claim_table(
    summary: pd.DataFrame, claims: Sequence[SeedClaim], thresholds: Mapping[str, Mapping]
) -> pd.DataFrame:
    """One row per claim: seeds on which it holds, the rate and its Wilson interval, the verdict.

    ``thresholds[name]`` is the claim's params entry ``{min_rate, enforce}``.
    """
    _check_summary(summary, [c.name for c in claims])
    rows = []
    for order, c in enumerate(claims):
        if c.name not in thresholds:  # params.yaml always has it: the schema requires each claim
            raise InputError(
                f"claim_table: thresholds must hold every claim's entry (min_rate, enforce), "
                f"got none for {c.name!r}"
            )
        spec = thresholds[c.name]
        holds = summary[c.name].astype(bool).to_numpy()
        k, n = int(holds.sum()), len(holds)
        lo, hi = wilson_interval(k, n)
        rate = k / n
        met = rate >= float(spec["min_rate"])
        enforced = bool(spec["enforce"])
        if met:
            verdict = "holds (asserted)" if enforced else "holds"
        else:
            verdict = "FAILS" if enforced else "finding: below the chapter's claim"
        failing = summary.loc[~holds, "seed"].astype(int).tolist()
        rows.append(
            {
                "order": order,
                "claim": c.name,
                "statement": c.statement,
                "holds_on": k,
                "n_seeds": n,
                "rate": rate,
                "rate_lo": lo,
                "rate_hi": hi,
                "min_rate": float(spec["min_rate"]),
                "enforced": enforced,
                "verdict": verdict,
                "failing_seeds": ",".join(map(str, failing)),
            }
        )
    return pd.DataFrame(rows)


def check_claims(table: pd.DataFrame, *, where: str) -> None:
    """Raise ``ClaimFailed`` for the first enforced claim whose rate is below its threshold."""
    for row in table.itertuples(index=False):
        if row.enforced and row.rate < row.min_rate:
            raise ClaimFailed(
                f"{where}: '{row.statement}' holds on {row.holds_on} of {row.n_seeds} seeds "
                f"({row.rate:.0%}), below the declared {row.min_rate:.0%} "
                f"(failing seeds: {row.failing_seeds})"
            )


def pick_exhibit(summary: pd.DataFrame, *, metric: str, rule: str = "median") -> dict:
    """The seed the report shows as a worked example, by a declared rule, with its rank.

    ``rule``: ``median`` (the seed at the lower median of ``metric``), ``min``, ``max``,
    or ``first`` (the lowest seed).  Ties are broken by the lower seed.  Returns
    ``{seed, rank, n_seeds, value, rule}`` (rank 1 = smallest value).
    """
    _check_summary(summary, [metric])
    ordered = summary.sort_values([metric, "seed"], kind="mergesort").reset_index(drop=True)
    n = len(ordered)
    if rule == "median":
        position = (n - 1) // 2
    elif rule == "min":
        position = 0
    elif rule == "max":
        position = n - 1
    elif rule == "first":
        position = int(ordered.index[ordered["seed"] == ordered["seed"].min()][0])
    else:
        raise InputError(f"exhibit rule must be median, min, max or first, got {rule!r}")
    row = ordered.iloc[position]
    return {
        "seed": int(row["seed"]),
        "rank": position + 1,
        "n_seeds": n,
        "value": float(row[metric]),
        "rule": rule,
        "metric": metric,
    }


def describe_exhibit(exhibit: Mapping) -> str:
    """``seed 3: the median of ece_change over 5 seeds (rank 3 of 5)``."""
    rule = {"median": "the median", "min": "the smallest", "max": "the largest"}.get(
        exhibit["rule"], "the first seed"
    )
    what = f"{rule} {exhibit['metric']}" if exhibit["rule"] != "first" else rule
    return (
        f"seed {exhibit['seed']}: {what} over {exhibit['n_seeds']} seeds "
        f"(rank {exhibit['rank']} of {exhibit['n_seeds']}, {exhibit['metric']} = "
        f"{exhibit['value']:.4g})"
    )


def sweep_metrics(
    distribution: pd.DataFrame, claims: pd.DataFrame, claim_defs: Sequence[SeedClaim]
) -> dict:
    """Flat metrics: ``<metric>.mean/.lo/.hi/.n_seeds`` and ``<metric or claim>.claim_rate``."""
    out: dict = {}
    for row in distribution.itertuples(index=False):
        out[f"{row.metric}.mean"] = row.mean
        out[f"{row.metric}.lo"] = row.lo
        out[f"{row.metric}.hi"] = row.hi
        out[f"{row.metric}.n_seeds"] = row.n_seeds
    linked = {c.name: c.metric for c in claim_defs}
    targets = [m for m in linked.values() if m]
    for row in claims.itertuples(index=False):
        metric = linked.get(row.claim)
        # A claim about one metric reports as that metric's claim rate; otherwise by its name.
        target = metric if metric and targets.count(metric) == 1 else row.claim
        out[f"{target}.claim_rate"] = row.rate
    return out
