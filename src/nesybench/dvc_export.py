"""Generate ``dvc.yaml`` from the Snakemake DAG, so the two runners cannot drift.

Snakemake owns the DAG.  Every job of a full (``--forceall``) run becomes one DVC
stage with the same command, the same inputs as ``deps``, the same outputs, and
the params.yaml sections the rule declares through ``params: section=...``.
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
                        "deps": sorted(set(map(str, job.input))),
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
JOB_DESC = "nesybench job: "


def _templated(text: str, wildcards: dict[str, str]) -> str:
    """A job's command or path with its wildcard values turned into DVC's ``${item.<name>}``.

    Wildcards appear only as path components ``<name>-<value>`` and as ``--arg
    <name>=<value>`` (the conventions of nesybench.artifacts and the rules), so the
    replacement cannot touch anything else.
    """
    for name, value in wildcards.items():
        item = "${item." + name + "}"
        text = re.sub(rf"(?<=/){re.escape(name)}-{re.escape(value)}(?=/)", f"{name}-{item}", text)
        text = re.sub(
            rf"--arg {re.escape(name)}={re.escape(value)}(?=\s|$)", f"--arg {name}={item}", text
        )
    return text


def _matrix_stages(jobs: list[dict]) -> list[dict]:
    """Jobs of one rule with wildcards become one DVC ``matrix`` stage (one ``name@values`` each).

    The jobs must cover the full product of their wildcard values and expand back to exactly
    themselves; otherwise they stay separate stages.
    """
    out, groups = [], {}
    for job in jobs:
        if job.get("wildcards"):
            groups.setdefault(job["rule"], []).append(job)
        else:
            out.append(job)
    for rule, members in groups.items():
        names = list(members[0]["wildcards"])
        values = {n: list(dict.fromkeys(j["wildcards"][n] for j in members)) for n in names}
        first = members[0]
        template = {
            key: (
                _templated(first[key], first["wildcards"])
                if key == "cmd"
                else [_templated(p, first["wildcards"]) for p in first[key]]
            )
            for key in ("cmd", "deps", "outs")
        }

        def expand(combo: dict, template=template) -> dict:
            def fill(text: str) -> str:
                for n, v in combo.items():
                    text = text.replace("${item." + n + "}", v)
                return text

            return {
                "cmd": fill(template["cmd"]),
                "deps": [fill(p) for p in template["deps"]],
                "outs": [fill(p) for p in template["outs"]],
            }

        product_size = 1
        for n in names:
            product_size *= len(values[n])
        faithful = len(members) == product_size and all(
            expand(j["wildcards"]) == {k: j[k] for k in ("cmd", "deps", "outs")} for j in members
        )
        if not faithful:
            out.extend(members)
            continue
        out.append(
            {
                "name": rule,
                "desc": f"{JOB_DESC}{_job_of(first['cmd'])}",
                "matrix": values,
                **template,
                "params": first["params"],
            }
        )
    return out


def _job_of(cmd: str) -> str:
    """``python stages/train.py calibration seed --arg seed=0`` -> ``calibration train seed``."""
    m = re.match(r"python stages/(\w+)\.py (\w+)(?: (\w+))?(?: |$)", cmd)
    if not m:
        raise ValueError(f"not a stage command: {cmd!r}")
    stage, instrument, step = m.groups()
    return " ".join(filter(None, (instrument, stage, step)))


def check_matrices(root: Path, params: dict) -> None:
    """Refuse a dvc.yaml whose matrix stages were generated for other sweep sizes.

    DVC expands ``matrix`` from the values written in dvc.yaml; the seeds (and other
    wildcard values) come from params.yaml.  When they differ, DVC would run seeds the
    params do not have, or skip ones they do: one line says how to regenerate it.
    """
    from .artifacts import registry, wildcard_token
    from .errors import UserError

    path = Path(root) / "dvc.yaml"
    if not path.exists():
        return
    stages = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("stages", {})
    for name, stage in stages.items():
        desc = str(stage.get("desc", ""))
        if "matrix" not in stage or not desc.startswith(JOB_DESC):
            continue
        instrument, job_stage, *step = desc[len(JOB_DESC) :].split()
        job = registry(instrument).job(job_stage, step[0] if step else None)
        expected = {
            w: list(dict.fromkeys(wildcard_token(i[w]) for i in job.expand(params[instrument])))
            for w in job.wildcards
        }
        written = {w: [str(v) for v in values] for w, values in stage["matrix"].items()}
        if written != expected:
            raise UserError(
                f"dvc.yaml: stage {name} was generated for {written}, params.yaml gives "
                f"{expected}; regenerate it with `python -m nesybench.dvc_export` (make dvc-yaml)"
            )


def build_dvc_yaml(jobs: list[dict], plots: dict) -> dict:
    stages = {"validate": VALIDATE_STAGE}
    for job in _matrix_stages(jobs):
        stage: dict = {}
        if "matrix" in job:
            stage["desc"] = job["desc"]
            stage["matrix"] = job["matrix"]
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
    jobs, plots = snakemake_jobs(root)
    return HEADER + yaml.safe_dump(build_dvc_yaml(jobs, plots), sort_keys=False, width=1000)


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
