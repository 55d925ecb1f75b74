"""Generate ``dvc.yaml`` from the Snakemake DAG, so the two runners cannot drift.

Snakemake owns the DAG.  Every rule becomes one DVC stage with the same command, the same
inputs as ``deps``, the same outputs, and the params.yaml sections (or keys) the rule
declares through ``params: section=...``.  A rule with wildcards, which Snakemake runs as
one job per seed (or block of seeds), becomes one stage that runs every instance
params.yaml declares (``--all-instances``) into the job's instance folder
(``data/<stage>/<instrument>/<step>/``, nesybench.artifacts), and depends on the keys that
decide the instances (``n_seeds``): dvc.yaml is the same for every sweep size, so
``dvc exp run -S calibration.n_seeds=30`` (queued or not) runs as one command.
Output kinds follow the paths:

- ``reports/metrics/*.json``  -> ``metrics`` (``cache: false``, committed to git)
- ``reports/plots/*.csv``     -> ``plots`` (``cache: false``); how to draw each one (x, y
  columns, template, title) comes from ``PLOTS`` in the rules and becomes a
  top-level plot definition, so ``dvc plots show`` draws several columns as curves
- ``reports/report.md``       -> ``outs`` with ``cache: false`` (committed, diff-friendly)
- everything else             -> ``outs`` (DVC cache; git-ignored)

``python -m nesybench.dvc_export`` rewrites dvc.yaml; ``--check`` exits 1 when the
committed dvc.yaml differs from what the rules give (the drift test runs it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

import yaml

from .errors import InputError

HEADER = (
    "# GENERATED from the Snakemake rules by `python -m nesybench.dvc_export`; do not edit.\n"
    "# Each stage mirrors one Snakemake job: same cmd, deps, params, outs.\n"
)
NOT_CACHED_OUTS = ("reports/report.md",)


def _stage_name(rule: str, wildcards: dict[str, str]) -> str:
    if not wildcards:
        return rule
    parts = [re.sub(r"[^A-Za-z0-9_-]", "_", str(v)) for _, v in sorted(wildcards.items())]
    return "-".join([rule, *parts])


def _deps(inputs, root: Path) -> list[str]:
    """A job's inputs for DVC: each code stamp replaced by the files it stands for (DVC hashes
    files itself, and a stamp under .snakemake/ is not something a DVC checkout has)."""
    from .workflow_code import stamped

    return sorted({d for p in map(str, inputs) for d in (stamped(p, str(root)) or [p])})


def snakemake_jobs(root: Path) -> tuple[list[dict], dict]:
    """Every job of a full run, in topological order, as plain dicts; plus the PLOTS spec."""
    from snakemake.api import DAGSettings, OutputSettings, ResourceSettings, SnakemakeApi
    from snakemake.settings.enums import Quietness

    jobs = []
    sink = io.StringIO()
    with (
        contextlib.redirect_stdout(sink),
        SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api,
    ):
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=1), snakefile=root / "Snakefile", workdir=root
        )
        workflow_api.dag(DAGSettings(forceall=True))
        workflow = workflow_api._workflow  # the parsed workflow; the public API only prints DAGs
        workflow._prepare_dag(
            forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
        )
        workflow._build_dag()
        plots = {str(path): dict(spec) for path, spec in workflow.globals.get("PLOTS", {}).items()}
        for level in workflow.dag.toposorted():
            for job in sorted(level, key=lambda j: (j.rule.name, sorted(j.wildcards.items()))):
                if job.shellcmd is None:
                    continue  # target-only rules such as `all`
                sections = job.params.get("section", {}) if hasattr(job.params, "get") else {}
                jobs.append(
                    {
                        "rule": job.rule.name,
                        "wildcards": dict(job.wildcards),
                        "name": _stage_name(job.rule.name, dict(job.wildcards)),
                        "cmd": " ".join(job.shellcmd.split()),
                        "deps": _deps(job.input, root),
                        "params": sorted(sections),
                        "outs": sorted(map(str, job.output)),
                    }
                )
    return jobs, plots


# DVC deletes a stage's outputs before running it; this first stage validates params.yaml
# (and that no Snakemake run is active) before any of that happens.  Snakemake needs no
# twin: the Snakefile validates params.yaml before it builds the DAG.
VALIDATE_STAGE = {
    "cmd": "python stages/validate.py",
    "deps": ["params.yaml", "stages/validate.py", "workflow/schemas"],
    "outs": [{"data/validate/params.ok": {"cache": False}}],
    "always_changed": True,
}
VALIDATED = "data/validate/params.ok"
ALL_INSTANCES = "--all-instances"


def _job_of(cmd: str) -> tuple[str, str, str | None]:
    """``python stages/train.py calibration seed --arg seed=0`` -> (instrument, stage, step)."""
    m = re.match(r"python stages/(\w+)\.py (\w+)(?: (\w+))?(?: |$)", cmd)
    if not m:
        raise InputError(f"not a stage command: {cmd!r}")
    stage, instrument, step = m.groups()
    return instrument, stage, step


def _without_wildcards(cmd: str, wildcards: dict[str, str]) -> str:
    """A job's command without its ``--arg <wildcard>=<value>`` tokens."""
    for name, value in wildcards.items():
        cmd = re.sub(rf" --arg {re.escape(name)}={re.escape(value)}(?=\s|$)", "", cmd)
    return cmd


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def dvc_stages(jobs: list[dict], all_params: dict) -> list[dict]:
    """Snakemake's jobs as DVC stages: one per rule.

    A rule without wildcards is one job and one stage, as it is.  A rule with wildcards (one
    job per seed or block) is one stage that runs every instance params.yaml declares
    (``--all-instances``) into the job's instance folder, its one output; the stage's params
    add the keys that decide the instances (``n_seeds``).  Every input inside an instance
    folder becomes a dependency on the folder.  Nothing in the result depends on the sweep
    sizes, so ``dvc exp run -S <instrument>.n_seeds=N`` needs no other dvc.yaml.
    """
    from .artifacts import registry

    by_rule: dict[str, list[dict]] = {}
    for job in jobs:
        by_rule.setdefault(job["rule"], []).append(job)
    folders: dict[str, str] = {}
    for rule, members in by_rule.items():
        if members[0]["wildcards"]:
            instrument, stage, step = _job_of(members[0]["cmd"])
            folders[rule] = registry(instrument).instance_folder(stage, step)

    def as_dep(path: str) -> str:
        return next((f for f in folders.values() if _inside(path, f)), path)

    out = []
    for rule, members in by_rule.items():
        deps = sorted({as_dep(d) for job in members for d in job["deps"]})
        params = sorted({p for job in members for p in job["params"]})
        if rule not in folders:
            (job,) = members
            out.append(
                {
                    "name": rule,
                    "cmd": job["cmd"],
                    "deps": deps,
                    "params": params,
                    "outs": job["outs"],
                }
            )
            continue
        folder = folders[rule]
        commands = {_without_wildcards(j["cmd"], j["wildcards"]) for j in members}
        if len(commands) != 1:
            raise InputError(
                f"rule {rule}: its jobs differ in more than their wildcards: {commands}"
            )
        stray = [o for j in members for o in j["outs"] if not _inside(o, folder)]
        if stray:
            raise InputError(f"rule {rule}: outputs outside its instance folder {folder}: {stray}")
        if folder in deps:
            raise InputError(f"rule {rule} reads its own instance folder {folder}")
        instrument, stage, step = _job_of(members[0]["cmd"])
        if instrument not in params:  # a whole-section dependency covers the sweep keys
            keys = registry(instrument).job(stage, step).instance_params(all_params[instrument])
            params = sorted({*params, *(f"{instrument}.{k}" for k in keys)})
        out.append(
            {
                "name": rule,
                "cmd": f"{commands.pop()} {ALL_INSTANCES}",
                "deps": deps,
                "params": params,
                "outs": [folder],
            }
        )
    return out


def build_dvc_yaml(entries: list[dict], plots: dict) -> dict:
    """dvc.yaml from :func:`dvc_stages`' entries and the PLOTS spec of the rules."""
    stages = {"validate": VALIDATE_STAGE}
    for job in entries:
        stage: dict = {}
        stage["cmd"] = job["cmd"]
        stage["deps"] = [VALIDATED, *job["deps"]]
        if job["params"]:
            stage["params"] = job["params"]
        outs, metrics, plot_outs = [], [], []
        for path in job["outs"]:
            if path.startswith("reports/metrics/") and path.endswith(".json"):
                metrics.append({path: {"cache": False}})
            elif path.startswith("reports/plots/") and path.endswith(".csv"):
                plot_outs.append({path: {"cache": False}})
            elif path in NOT_CACHED_OUTS:
                outs.append({path: {"cache": False}})
            else:
                outs.append(path)
        if outs:
            stage["outs"] = outs
        if metrics:
            stage["metrics"] = metrics
        if plot_outs:
            stage["plots"] = plot_outs
        stages[job["name"]] = stage
    out: dict = {"stages": stages}
    definitions = []
    for path, spec in sorted(plots.items()):
        spec = dict(spec)
        plot_id = spec.pop("id", Path(path).stem)
        y = spec.pop("y")
        definitions.append({plot_id: {**spec, "y": {path: y}}})
    if definitions:
        out["plots"] = definitions
    return out


def render(root: Path) -> str:
    from .params import load_params

    jobs, plots = snakemake_jobs(root)
    stages = dvc_stages(jobs, load_params(root / "params.yaml"))
    return HEADER + yaml.safe_dump(build_dvc_yaml(stages, plots), sort_keys=False, width=1000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="repository root (default: .)")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if dvc.yaml differs from the rules"
    )
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    text = render(root)
    target = root / "dvc.yaml"
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            import difflib

            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(True),
                    text.splitlines(True),
                    "dvc.yaml (committed)",
                    "dvc.yaml (from rules)",
                )
            )
            print(
                "error: dvc.yaml has drifted from workflow/rules; run `python -m "
                "nesybench.dvc_export`",
                file=sys.stderr,
            )
            return 1
        return 0
    from .io import atomic_write_text

    atomic_write_text(target, text)
    print(f"wrote {target} ({len(yaml.safe_load(text)['stages'])} stages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
