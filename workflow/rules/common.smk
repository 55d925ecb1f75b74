import glob
import os

# Shared helpers for the rule files. Conventions every rule follows:
#   shell:  "python stages/<stage>.py <instrument> [<step>] [--arg KEY=VALUE]"
#   params: section=section("<instrument>")   (Snakemake reruns when it changes;
#           the DVC export turns it into `params: [<instrument>]`)
#   output: named; tables under data/<stage>/<instrument>/, this stage's metrics
#           as data/<stage>/<instrument>/metrics.json, plot CSVs as
#           reports/plots/<instrument>-<name>.csv
# REPORT_INPUTS[<instrument>] lists the artifacts the report section reads.

REPORT_INPUTS = {}

# How `dvc plots show` draws each plot CSV: {path: {x, y (column or list), template, title}}.
# nesybench.dvc_export turns these into top-level plot definitions in dvc.yaml.
PLOTS = {}


def section(*names):
    """The params.yaml sections a rule depends on, as a value Snakemake can compare."""
    return {name: config[name] for name in names}


def stage_out(stage, instrument, *names, ext="parquet"):
    """data/<stage>/<instrument>/<name>.<ext> for each name, as a dict for named outputs."""
    return {n: f"data/{stage}/{instrument}/{n}.{ext}" for n in names}


CORE_CODE = ["errors", "io", "params", "stages", "progress"]


def code(stage, *packages):
    """The library files a rule's results depend on, as inputs: editing them reruns the rule.

    `stage` names the entry script stages/<stage>.py; `packages` are
    subpackages or modules of src/nesybench (e.g. "shortcuts", "metrics"); the
    shared core modules are always included.
    """
    files = {f"stages/{stage}.py"}
    for name in [*CORE_CODE, *packages]:
        base = f"src/nesybench/{name}"
        if os.path.isdir(base):
            files.update(glob.glob(f"{base}/**/*.py", recursive=True))
            files.update(glob.glob(f"{base}/**/*.yaml", recursive=True))
        else:
            files.add(f"{base}.py")
    return sorted(files)
