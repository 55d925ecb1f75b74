import os

from nesybench.artifacts import WILDCARD_PATTERN, registry

SEED_PATTERN = "[0-9]+"  # a seed wildcard is a non-negative integer
VARIANT_PATTERN = "[A-Za-z0-9_.+-]+=[A-Za-z0-9_.+-]+"  # one knob level: <params path>=<value>
from nesybench.params import job_params
from nesybench.workflow_code import code_stamp

# Shared helpers for the rule files. Conventions every rule follows:
#   shell:  "python stages/<stage>.py <instrument> [<step>] [--arg WILDCARD={wildcards.WILDCARD}]"
#   output: **stage_outputs(instrument, stage[, step]) -- the job's artifacts as declared in
#           src/nesybench/<instrument>/artifacts.py (tables, metrics.json, plot CSVs)
#   params: section=section("<instrument>") for an instrument-wide job,
#           section=job_section("<instrument>", stage, step) for a per-seed job (its section
#           without the sweep keys, so growing n_seeds reruns no finished seed)
#   input:  code=code(stage, instrument) -- a stamp of every source file the job can run (their
#           SHA-256, derived from the import graph: nesybench.workflow_code); other rules'
#           outputs by name.
# REPORT_INPUTS[<instrument>] lists every artifact the instrument declares: the report
# verifies all of them, and a missing one makes Snakemake rerun its producer.

REPORT_INPUTS = {}

# How `dvc plots show` draws each plot CSV: {path: {x, y (column or list), template, title}}.
# nesybench.dvc_export turns these into top-level plot definitions in dvc.yaml.
PLOTS = {}


def section(*names):
    """The params.yaml sections a rule depends on, as a value Snakemake can compare."""
    return {name: config[name] for name in names}


def job_section(instrument, stage, step=None):
    """The params a job reads (declared in its registry entry), keyed `<instrument>.<key>`.

    A job that reads its whole section depends on the section by name.
    """
    job = registry(instrument).job(stage, step)
    if job.params is None and not job.per_seed:
        return section(instrument)
    return {f"{instrument}.{k}": v for k, v in job_params(config[instrument], job).items()}


def stage_outputs(instrument, stage, step=None):
    """A job's declared outputs by name; plot CSVs also go into Snakemake's own report."""
    out = registry(instrument).outputs(stage, step)
    for key, path in out.items():
        if key.startswith("plot_"):
            caption = f"../report/{instrument}-{key.removeprefix('plot_')}.rst"
            out[key] = report(path, caption=caption, category=instrument)
    return out


def instances(instrument, stage, step, name):
    """The paths of table `name` over every instance of a job with wildcards (to gather them)."""
    reg = registry(instrument)
    job = reg.job(stage, step)
    return [reg.path(stage, name, **w) for w in job.expand(config[instrument])]


def all_artifacts(instrument):
    """Every data artifact the instrument declares under the current params."""
    return [path for _, _, path in registry(instrument).all_paths(config[instrument])]


def exists(path):
    return os.path.exists(path)


def code(stage, instrument):
    """The library files a rule's results depend on, as one stamp input: editing one of them
    reruns the rule (dvc.yaml lists the files themselves)."""
    return code_stamp(stage, instrument)
