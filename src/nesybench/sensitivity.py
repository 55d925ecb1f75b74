"""What each headline claim depends on: the open setup choices, one knob at a time.

Every instrument declares, in its params section, the setup choices that decide a headline
claim (``<instrument>.knobs``, a mapping from a params path to its declaration)::

    knobs:
      models.bias_init: {provenance: chosen, why: "...", levels: [gaussian]}
      models.min_acc_y: {provenance: stated, chapter: "label-perfect: AccY >= 0.95", levels: [0.99]}

``provenance`` says where the default comes from: ``stated`` (the chapter gives the value,
quoted in ``chapter``) or ``chosen`` (the project picked it, the reason in ``why``).
``levels`` are the other values the sensitivity analysis measures, one knob at a time
around the defaults, each over the same seeds as the default run.

A level of a knob the instrument must retrain for is a *variant*, spelled
``<path>=<level>`` (:func:`variant_token`); the instrument runs one job per variant and
seed (or block of seeds), which re-runs its per-seed chain with that one value changed
(:func:`run_in_memory` runs the chain's own stage functions, so a variant is computed by
exactly the code of the default run).  A level of a knob that only changes how finished
runs are scored (``rescored``, e.g. a label-perfect threshold) needs no job: the
instrument's sensitivity aggregate rescores the default runs.

:func:`sensitivity_table` turns the per-seed verdicts of every setting into one row per
claim and setting (holds on k of n seeds, the rate and its 95% Wilson interval);
:func:`sensitivity_metrics` flattens it to
``sensitivity.<claim>.<knob>=<level>.{claim_rate, lo, hi, n_seeds}``.
"""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .artifacts import wildcard_token
from .errors import ClaimFailed, InputError
from .metric_keys import variant_segment
from .metrics.stats import wilson_interval
from .sweep import SeedClaim

__all__ = [
    "DEFAULT",
    "PROVENANCE",
    "Knob",
    "knobs",
    "knob_table",
    "lookup",
    "with_level",
    "variant_token",
    "variant_tokens",
    "variant_instances",
    "apply_variant",
    "level_of",
    "run_in_memory",
    "sensitivity_table",
    "sensitivity_metrics",
    "check_knob_reaches",
]

DEFAULT = "default"  # the setting label of the default run (every knob at its default)
PROVENANCE = {"stated": "stated by the chapter", "chosen": "chosen here"}


@dataclass(frozen=True)
class Knob:
    """One declared setup choice: its params path, default, provenance and measured levels."""

    path: str
    default: Any
    provenance: str
    source: str  # the chapter's words (stated) or the reason for the choice (chosen)
    levels: tuple  # the other values measured, in params order (the default never repeats)
    was: Any = None  # the previous default, when this release changed it

    def token(self, level: Any) -> str:
        return variant_token(self.path, level)


def lookup(section: Mapping, path: str) -> Any:
    """The value at a dotted ``path`` of a params section (``KeyError`` naming the path)."""
    node: Any = section
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(path)
        node = node[part]
    return node


def with_level(section: Mapping, path: str, level: Any) -> dict:
    """A deep copy of ``section`` with the value at ``path`` replaced by ``level``."""
    out = copy.deepcopy(dict(section))
    node = out
    *parents, last = path.split(".")
    for part in parents:
        node = node[part]
    if last not in node:
        raise KeyError(path)
    node[last] = level
    return out


def _same(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b)
        and a == b
        or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and float(a) == float(b))
    )


def _like(level: Any, default: Any) -> Any:
    """A level in its default's type where YAML spelled it otherwise (``4`` for a float)."""
    if isinstance(default, float) and isinstance(level, int) and not isinstance(level, bool):
        return float(level)
    return level


def knobs(section: Mapping) -> list[Knob]:
    """The knobs an instrument section declares, in params order (none: an empty list)."""
    out = []
    for path, spec in (section.get("knobs") or {}).items():
        default = lookup(section, path)
        levels = [_like(v, default) for v in spec.get("levels", [])]
        levels = [v for v in levels if not _same(v, default)]
        source = spec.get("chapter") if spec["provenance"] == "stated" else spec.get("why")
        knob = Knob(path, default, spec["provenance"], source or "", tuple(levels), spec.get("was"))
        out.append(knob)
    return out


def variant_token(path: str, level: Any) -> str:
    """``models.bias_init=gaussian``: a knob level as a wildcard value (and a metrics key).

    >>> variant_token("model.dim", 4), variant_token("models.min_acc_y", 0.99)
    ('model.dim=4', 'models.min_acc_y=0.99')
    """
    return f"{path}={_text(level)}"


def variant_tokens(section: Mapping, *, rescored: Iterable[str] = ()) -> list[str]:
    """Every level that needs its own jobs (the knobs not in ``rescored``), in params order."""
    skip = set(rescored)
    return [k.token(level) for k in knobs(section) if k.path not in skip for level in k.levels]


def variant_instances(
    units: Callable[[Mapping], list[dict]], *, rescored: Iterable[str] = ()
) -> Callable[[Mapping], list[dict]]:
    """Job instances ``{variant, <unit>}`` over every variant and every unit (seed or block)."""
    rescored = tuple(rescored)

    def instances(section: Mapping) -> list[dict]:
        return [
            {"variant": token, **unit}
            for token in variant_tokens(section, rescored=rescored)
            for unit in units(section)
        ]

    return instances


def level_of(section: Mapping, token: str) -> tuple[str, Any]:
    """The knob path and level a variant token names, the level in its default's type.

    >>> level_of({"model": {"dim": 8}}, "model.dim=4")
    ('model.dim', 4)
    """
    path, _, text = token.partition("=")
    default = lookup(section, path)
    try:
        if isinstance(default, bool):
            level: Any = text == "true"
        elif isinstance(default, int):
            level = int(text)
        elif isinstance(default, float):
            level = float(text)
        else:
            level = text
    except ValueError:
        raise KeyError(f"variant {token!r} does not spell a value of {path}") from None
    if variant_token(path, level) != token:
        raise KeyError(f"variant {token!r} does not spell a value of {path}")
    return path, level


def apply_variant(section: Mapping, token: str) -> dict:
    """``section`` with the one knob level that ``token`` names (``<path>=<level>``).

    Needs only the token and the section's own value at the path (for the level's type),
    not the ``knobs`` declaration: a variant job depends on nothing else.
    """
    path, level = level_of(section, token)
    return with_level(section, path, level)


def knob_table(section: Mapping) -> pd.DataFrame:
    """One row per declared knob: default, provenance, the chapter's words or why, levels."""
    rows = []
    for order, k in enumerate(knobs(section)):
        rows.append(
            {
                "order": order,
                "knob": k.path,
                "default": _text(k.default),
                "provenance": PROVENANCE[k.provenance],
                "source": k.source,
                "levels": ", ".join(_text(v) for v in k.levels) or "-",
                "changed": f"from {_text(k.was)}" if k.was is not None else "",
            }
        )
    columns = ["order", "knob", "default", "provenance", "source", "levels", "changed"]
    return pd.DataFrame(rows, columns=columns)


def _text(value: Any) -> str:
    return wildcard_token(value) if not isinstance(value, bool) else str(value).lower()


# ---- running a per-seed chain in memory ---------------------------------------------------


def run_in_memory(
    instrument: str,
    chain: Sequence[tuple[str, str | None]],
    *,
    params: dict,
    root: Path,
    wildcards: Mapping[str, Any],
    keep: Sequence[tuple[str, str]],
    log: Callable[[str], None] | None = None,
) -> dict[tuple[str, str], pd.DataFrame]:
    """Run the jobs of ``chain`` in order with ``params``, in this process, writing nothing.

    Each job's tables go to memory (as the Parquet bytes its writer makes, read back the
    way the next job would read them from disk); a table the chain does not make is read
    from ``root`` (it must be an input of the calling job).  Console output of the chain's
    jobs is swallowed.  Returns the tables named in ``keep`` as ``{(stage, name): frame}``.
    """
    from .artifacts import registry
    from .stages import StageContext, stage_function

    reg = registry(instrument)
    store: dict[Path, bytes] = {}

    class _InMemory(StageContext):
        def commit(self) -> list[Path]:
            store.update(self._pending)
            self._pending.clear()
            return []

        def read_table(self, name, *, stage, instrument=None, **w):
            path = self.root / self.registry.path(stage, name, **w)
            if instrument in (None, self.instrument) and path in store:
                return _read_bytes(store[path])
            return super().read_table(name, stage=stage, instrument=instrument, **w)

    for stage, step in chain:
        job = reg.job(stage, step)
        own = {w: wildcards[w] for w in job.wildcards}
        ctx = _InMemory(job=job, registry=reg, params=params, root=root, wildcards=own)
        if log:
            log(f"{instrument} {stage}{' ' + step if step else ''} in memory")
        with contextlib.redirect_stdout(io.StringIO()):
            stage_function(instrument, stage, step)(ctx)
        ctx.commit()
    out = {}
    for stage, name in keep:
        job = reg.owner(stage, name)
        path = Path(root) / reg.path(stage, name, **{w: wildcards[w] for w in job.wildcards})
        out[(stage, name)] = _read_bytes(store[path])
    return out


def run_variant(
    ctx, chain: Sequence[tuple[str, str | None]], keep: Sequence[tuple[str, str]], *, section=None
) -> dict[tuple[str, str], pd.DataFrame]:
    """A variant job's chain: ``chain`` of ``ctx``'s instrument re-run in memory
    (:func:`run_in_memory`) at the job's knob level, for the job's own seed or block.

    ``section`` is the instrument's params section at that level (default: the job's
    ``variant`` token applied to its section by :func:`apply_variant`).
    """
    if section is None:
        section = apply_variant(ctx.section, ctx.wildcards["variant"])
    return run_in_memory(
        ctx.instrument,
        chain,
        params={**ctx.all_params, ctx.instrument: section},
        root=ctx.root,
        wildcards={k: v for k, v in ctx.wildcards.items() if k != "variant"},
        keep=keep,
        log=ctx.log,
    )


def _read_bytes(data: bytes) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data)).to_pandas()


# ---- the table ---------------------------------------------------------------------------


def _setting_rows(section: Mapping, settings: Iterable[str]) -> list[tuple[str, str, str, str]]:
    """(setting, knob, level, provenance) of the default and of every measured level, in order."""
    rows = [(DEFAULT, "", "", "")]
    present = set(settings)
    for k in knobs(section):
        for level in k.levels:
            token = k.token(level)
            if token in present:
                rows.append((token, k.path, _text(level), PROVENANCE[k.provenance]))
    return rows


def sensitivity_table(
    verdicts: Mapping[str, pd.DataFrame],
    claims: Sequence[SeedClaim],
    section: Mapping,
) -> pd.DataFrame:
    """One row per claim and setting: on how many seeds it holds, the rate, its Wilson interval.

    ``verdicts`` maps each setting (``default`` or a variant token) to its per-seed table: a
    ``seed`` column and one boolean column per claim.  Every setting must cover the same
    seeds as the default (each level is measured on the same seeds); a claim a setting does
    not judge (no column) gets no row for it.  ``change`` is the rate minus the default's.
    """
    if DEFAULT not in verdicts:
        raise InputError("sensitivity: the default setting's verdicts are missing")
    seeds = sorted(int(s) for s in verdicts[DEFAULT]["seed"])
    for setting, frame in verdicts.items():
        if sorted(int(s) for s in frame["seed"]) != seeds:
            raise ClaimFailed(
                f"sensitivity: setting {setting} must cover the default's seeds {seeds}, got "
                f"{sorted(int(s) for s in frame['seed'])}"
            )
    rows = []
    settings = _setting_rows(section, verdicts)
    for c in claims:
        if c.name not in verdicts[DEFAULT].columns:
            continue
        base = None
        for setting, knob, level, provenance in settings:
            frame = verdicts[setting]
            if c.name not in frame.columns:
                continue
            holds = frame.sort_values("seed")[c.name].astype(bool).to_numpy()
            k, n = int(holds.sum()), len(holds)
            lo, hi = wilson_interval(k, n)
            rate = k / n
            base = rate if setting == DEFAULT else base
            rows.append(
                {
                    "order": len(rows),
                    "claim": c.name,
                    "statement": c.statement,
                    "setting": setting,
                    "knob": knob,
                    "level": level,
                    "provenance": provenance,
                    "holds_on": k,
                    "n_seeds": n,
                    "rate": rate,
                    "rate_lo": lo,
                    "rate_hi": hi,
                    "change": rate - base,
                }
            )
    columns = [
        "order",
        "claim",
        "statement",
        "setting",
        "knob",
        "level",
        "provenance",
        "holds_on",
        "n_seeds",
        "rate",
        "rate_lo",
        "rate_hi",
        "change",
    ]
    return pd.DataFrame(rows, columns=columns)


def sensitivity_metrics(table: pd.DataFrame, section: Mapping) -> dict:
    """``sensitivity.<claim>.<knob level>.{claim_rate, lo, hi, n_seeds}`` for every measured
    level, and for the default level of every knob that has one (the default run's numbers).

    The knob level is spelt as a key segment (:func:`nesybench.metric_keys.variant_segment`:
    ``models.min_acc_y=0.99`` -> ``models_min_acc_y_0p99``)."""
    out: dict = {}
    spelt: dict[str, str] = {}  # key segment -> the variant token it spells
    measured = {k.path: k for k in knobs(section) if k.levels}
    for row in table.itertuples(index=False):
        values = {"claim_rate": row.rate, "lo": row.rate_lo, "hi": row.rate_hi}
        values["n_seeds"] = int(row.n_seeds)
        if row.setting == DEFAULT:
            tokens = [variant_token(path, k.default) for path, k in measured.items()]
        else:
            tokens = [row.setting]
        for token in tokens:
            key = variant_segment(token)
            if spelt.setdefault(key, token) != token:
                raise InputError(
                    f"knobs: levels {spelt[key]!r} and {token!r} have the same metric key "
                    f"segment {key!r}; rename one level"
                )
            out[f"sensitivity.{row.claim}.{key}"] = values
    return out


def check_knob_reaches(default: pd.DataFrame, variant: pd.DataFrame, *, token: str) -> None:
    """A training knob must reach the model: some per-seed number differs from the default's.

    Compares every numeric column the two tables share, seed by seed; equal everywhere means
    the level never got to the computation (a wiring fault, not a finding).
    """
    cols = [
        c
        for c in default.columns
        if c in variant.columns and c != "seed" and pd.api.types.is_numeric_dtype(default[c])
    ]
    keys = [c for c in ("seed", "model", "task", "support_frac") if c in default.columns]
    a = default.sort_values(keys).reset_index(drop=True)[cols].to_numpy(dtype=float)
    b = variant.sort_values(keys).reset_index(drop=True)[cols].to_numpy(dtype=float)
    if a.shape == b.shape and np.array_equal(a, b, equal_nan=True):
        raise ClaimFailed(
            f"sensitivity: {token} changed no per-seed number of the default run; the knob "
            "does not reach the computation"
        )
