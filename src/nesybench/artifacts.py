"""Where every artifact lives, and which artifacts each instrument's jobs write.

One path convention for the whole project (DESIGN.md)::

    data/<stage>/<instrument>/<name>.parquet                     an instrument-wide table
    data/<stage>/<instrument>/<step>/seed-<s>/<name>.parquet     a table of one seed's job
    data/<stage>/<instrument>/<step>/block-<b>/<name>.parquet    ... of one block of seeds
    data/<stage>/<instrument>/[...]/metrics[_<step>].json        that job's metrics
    reports/plots/<instrument>-<name>.csv                        plot data for ``dvc plots``

A job with wildcards (one instance per seed, or per block) keeps all its instances in a
folder of its own, ``data/<stage>/<instrument>/<step>/``: DVC tracks that folder as the
output of one stage that runs every instance params.yaml declares, so a sweep of any size
needs no other dvc.yaml (nesybench.dvc_export); Snakemake still runs one job per instance.

Each instrument declares its jobs once, in ``nesybench.<instrument>.artifacts``, as a
:class:`Registry` of :class:`Job` entries.  The Snakemake rules build their outputs from it
(``workflow/rules/common.smk``), the stage runner refuses to write anything undeclared, and
the report stage reads and verifies every declared artifact through it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

from . import INSTRUMENT_MODULES, INSTRUMENTS, STAGES

__all__ = [
    "Job",
    "Registry",
    "artifact_path",
    "instance_folder",
    "plot_path",
    "registry",
    "seed_values",
    "wildcard_token",
    "SEED",
    "SEED_BLOCK",
]

SEED = "seed"
SEED_BLOCK = "block"  # one job trains a block of consecutive seeds together (batched)
METRICS = "metrics"
WILDCARD_PATTERN = r"[^/]+"  # any token without a slash: every value the schema allows round-trips


def wildcard_token(value: object) -> str:
    """How a wildcard value is spelled in a path: ints as digits, floats as ``repr``, text as is.

    The spelling parses back to the same value (``float(repr(x)) == x``), so a path names
    exactly one params value.

    >>> wildcard_token(0.75), wildcard_token(1e-05), wildcard_token(3), wildcard_token("xor2")
    ('0.75', '1e-05', '3', 'xor2')
    """
    if isinstance(value, bool):
        raise TypeError("a wildcard value cannot be a bool")
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if not text or "/" in text or text in (".", ".."):
        raise ValueError(f"wildcard value {value!r} cannot be spelled as a path component")
    return text


def instance_folder(stage: str, instrument: str, step: str) -> str:
    """Where every instance of a job with wildcards lives: ``data/<stage>/<instrument>/<step>``."""
    return f"data/{stage}/{instrument}/{step}"


def _folder(
    stage: str, instrument: str, wildcards: Mapping[str, object], step: str | None = None
) -> str:
    if not wildcards:
        return f"data/{stage}/{instrument}"
    if step is None:
        raise ValueError(f"{instrument} {stage}: a job with wildcards needs a step")
    parts = [instance_folder(stage, instrument, step)]
    parts.extend(f"{key}-{wildcard_token(value)}" for key, value in wildcards.items())
    return "/".join(parts)


def artifact_path(
    stage: str,
    instrument: str,
    name: str,
    *,
    ext: str = "parquet",
    wildcards: Mapping[str, object] | None = None,
    step: str | None = None,
) -> str:
    """The relative path of one artifact (see the module docstring).

    >>> artifact_path("train", "calibration", "scores", wildcards={"seed": 3}, step="seed")
    'data/train/calibration/seed/seed-3/scores.parquet'
    """
    return f"{_folder(stage, instrument, wildcards or {}, step)}/{name}.{ext}"


def plot_path(instrument: str, name: str) -> str:
    """``reports/plots/<instrument>-<name>.csv``."""
    return f"reports/plots/{instrument}-{name}.csv"


def seed_values(section: Mapping) -> list[int]:
    """The seeds of an instrument's sweep: ``0 .. n_seeds - 1``.

    A prefix of the list never changes when ``n_seeds`` grows, so raising it from 20 to 25
    adds five jobs and leaves the first twenty untouched.
    """
    return list(range(int(section["n_seeds"])))


@dataclass(frozen=True)
class Job:
    """One kind of job: a stage of an instrument, optionally a step, and what it writes.

    ``wildcards`` names the job's instances (``("seed",)`` for one job per seed); their
    values come from ``instances(section)``, a function of the instrument's params section.
    """

    stage: str
    step: str | None = None
    tables: tuple[str, ...] = ()
    plots: tuple[str, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()  # (name, extension) of non-tabular artifacts
    metrics: bool = True
    wildcards: tuple[str, ...] = ()
    instances: Callable[[Mapping], list[dict]] | None = field(default=None, compare=False)
    doc: str = ""
    # The keys of the instrument's params section the job reads (None: all of them, and for
    # a per-seed job all but the sweep keys).  They are the job's params under both runners,
    # so changing any other key reruns nothing of this job.
    params: tuple[str, ...] | None = None
    sweep_free: bool = False  # reads no sweep key although it has no seed wildcard

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"Job: stage must be one of {STAGES}, got {self.stage!r}")
        if self.wildcards and self.step is None:
            raise ValueError(f"Job {self.key}: a job with wildcards needs a step (its folder)")
        if self.wildcards and self.instances is None:
            if self.wildcards != (SEED,):
                raise ValueError(f"Job {self.key}: wildcards {self.wildcards} need instances=")
            object.__setattr__(self, "instances", _seed_instances)
        for name in (*self.tables, *self.plots, *(n for n, _ in self.texts)):
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                raise ValueError(f"Job {self.key}: artifact name {name!r} must be snake_case")

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.stage, self.step)

    @property
    def per_seed(self) -> bool:
        """One seed's (or one block of seeds') job, or one declared ``sweep_free``: its params
        omit the sweep keys, so growing ``n_seeds`` never reruns it."""
        return SEED in self.wildcards or SEED_BLOCK in self.wildcards or self.sweep_free

    def instance_params(self, section: Mapping) -> tuple[str, ...]:
        """The keys of ``section`` that decide which instances exist (``n_seeds``, ...).

        Read off ``instances`` itself, so a new kind of instance list needs no declaration.
        """
        if not self.wildcards:
            return ()
        recorder = _KeyRecorder(section)
        self.instances(recorder)
        return tuple(dict.fromkeys(recorder.read))

    def expand(self, section: Mapping) -> list[dict]:
        """Every instance's wildcard values (one empty dict for a job without wildcards)."""
        if not self.wildcards:
            return [{}]
        values = self.instances(section)
        for item in values:
            if tuple(item) != self.wildcards:
                raise ValueError(f"Job {self.key}: instance {item} must set {self.wildcards}")
        return values


class _KeyRecorder(dict):
    """A params section that remembers which keys were read."""

    def __init__(self, data: Mapping):
        super().__init__(data)
        self.read: list[str] = []

    def __getitem__(self, key):
        self.read.append(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.append(key)
        return super().get(key, default)


def _seed_instances(section: Mapping) -> list[dict]:
    return [{SEED: s} for s in seed_values(section)]


def product_instances(**axes: Callable[[Mapping], Iterable]) -> Callable[[Mapping], list[dict]]:
    """Instances over the product of several params lists, e.g. tasks x support fractions."""

    def instances(section: Mapping) -> list[dict]:
        names = list(axes)
        lists = [list(axes[name](section)) for name in names]
        return [dict(zip(names, combo)) for combo in product(*lists)]

    return instances


class Registry:
    """An instrument's jobs and their artifacts, declared once."""

    def __init__(self, instrument: str, jobs: Sequence[Job]):
        if instrument not in INSTRUMENTS and instrument != "report":
            raise ValueError(f"Registry: unknown instrument {instrument!r}")
        self.instrument = instrument
        self.jobs: dict[tuple[str, str | None], Job] = {}
        owner: dict[tuple[str, str], Job] = {}
        for job in jobs:
            if job.key in self.jobs:
                raise ValueError(f"{instrument}: job {job.key} declared twice")
            self.jobs[job.key] = job
            for name in (*job.tables, *(n for n, _ in job.texts)):
                if (job.stage, name) in owner:
                    raise ValueError(f"{instrument}: {job.stage}/{name} declared by two jobs")
                owner[(job.stage, name)] = job
        self._owner = owner

    def job(self, stage: str, step: str | None = None) -> Job:
        try:
            return self.jobs[(stage, step)]
        except KeyError:
            known = ", ".join(f"{s}{':' + t if t else ''}" for s, t in self.jobs)
            raise KeyError(
                f"{self.instrument} declares no job {stage}{':' + step if step else ''}; "
                f"declared: {known}"
            ) from None

    def owner(self, stage: str, name: str) -> Job:
        """The job that writes table (or text artifact) ``name`` in ``stage``."""
        try:
            return self._owner[(stage, name)]
        except KeyError:
            raise KeyError(f"{self.instrument} declares no artifact {stage}/{name}") from None

    def path(self, stage: str, name: str, *, ext: str = "parquet", **wildcards: object) -> str:
        """The path of a declared artifact; wildcards must be exactly the owner job's."""
        job = self.owner(stage, name)
        if set(wildcards) != set(job.wildcards):
            raise KeyError(
                f"{self.instrument} {stage}/{name} takes wildcards {job.wildcards}, "
                f"got {tuple(wildcards)}"
            )
        ordered = {w: wildcards[w] for w in job.wildcards}
        return artifact_path(
            stage, self.instrument, name, ext=ext, wildcards=ordered, step=job.step
        )

    def metrics_path(self, stage: str, step: str | None = None, **wildcards: object) -> str:
        """``metrics.json`` of a job (``metrics_<step>.json`` for a step: jobs never share one)."""
        job = self.job(stage, step)
        ordered = {w: wildcards[w] for w in job.wildcards}
        name = METRICS if step is None else f"{METRICS}_{step}"
        return artifact_path(stage, self.instrument, name, ext="json", wildcards=ordered, step=step)

    def instance_folder(self, stage: str, step: str | None = None) -> str | None:
        """The folder of every instance of a job with wildcards (None for a job without)."""
        job = self.job(stage, step)
        return instance_folder(stage, self.instrument, job.step) if job.wildcards else None

    def outputs(self, stage: str, step: str | None = None) -> dict[str, str]:
        """Named output patterns of one job, wildcards as ``{name}`` (the rules use this)."""
        job = self.job(stage, step)
        pattern = {w: "{" + w + "}" for w in job.wildcards}

        def spelled(name: str, ext: str) -> str:
            if not pattern:
                return f"data/{stage}/{self.instrument}/{name}.{ext}"
            folder = "/".join(
                [
                    instance_folder(stage, self.instrument, step),
                    *(f"{w}-{v}" for w, v in pattern.items()),
                ]
            )
            return f"{folder}/{name}.{ext}"

        out = {name: spelled(name, "parquet") for name in job.tables}
        out.update({name: spelled(name, ext) for name, ext in job.texts})
        if job.metrics:
            out[METRICS] = spelled(METRICS if step is None else f"{METRICS}_{step}", "json")
        for name in job.plots:
            out[f"plot_{name}"] = plot_path(self.instrument, name)
        return out

    def all_paths(self, section: Mapping) -> list[tuple[Job, dict, str]]:
        """Every declared data artifact of a run on ``section``: (job, wildcards, path)."""
        found = []
        for job in self.jobs.values():
            for wildcards in job.expand(section):
                for name in job.tables:
                    found.append((job, wildcards, self.path(job.stage, name, **wildcards)))
                for name, ext in job.texts:
                    found.append((job, wildcards, self.path(job.stage, name, ext=ext, **wildcards)))
                if job.metrics:
                    found.append(
                        (job, wildcards, self.metrics_path(job.stage, job.step, **wildcards))
                    )
        return found


def registry(instrument: str) -> Registry:
    """The registry of ``instrument`` (``nesybench.<instrument>.artifacts.ARTIFACTS``)."""
    if instrument not in INSTRUMENTS:
        raise KeyError(f"unknown instrument {instrument!r}; expected one of {INSTRUMENTS}")
    return importlib.import_module(INSTRUMENT_MODULES[instrument]["artifacts"]).ARTIFACTS
