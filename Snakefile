# nesybench: generate -> count -> train -> score -> calibrate -> report
#
# This file is an index. params.yaml is the single config (DVC reads the same
# file); it is validated against workflow/schemas/params.schema.yaml before any
# job starts. Each instrument's path through the stages is one rule file:
#   workflow/rules/shortcuts.smk    concept tasks, shortcut counts, concept panel
#   workflow/rules/calibration.smk  KG link predictor, reliability audit, repair
#   workflow/rules/nli.smk          PrOntoQA-lite / FOLIO-lite, step checker
#   workflow/rules/axes.smk         depth bank, mixture confound, gadgets
#   workflow/rules/report.smk       report.html / report.md, metrics JSON
import sys

from nesybench.errors import InputError, one_line
from nesybench.params import load_params
from nesybench.runlock import check_other_runner_idle

# params.yaml is read here with a safe loader and validated before any job is built:
# Snakemake's own `configfile:` would parse it with yte, which evaluates expressions.
if config:
    print(
        "error: params.yaml is the single config of both runners; edit params.yaml "
        "(or use `dvc exp run -S key=value`) instead of --config / --configfile",
        file=sys.stderr,
    )
    sys.exit(2)
try:
    config.update(load_params("params.yaml"))
    check_other_runner_idle(workflow.basedir)
except InputError as exc:
    print(f"error: {one_line(exc)}", file=sys.stderr)
    sys.exit(2)


include: "workflow/rules/common.smk"
include: "workflow/rules/shortcuts.smk"
include: "workflow/rules/calibration.smk"
include: "workflow/rules/nli.smk"
include: "workflow/rules/axes.smk"
include: "workflow/rules/report.smk"


# A declared artifact that has gone missing is asked for directly, so a plain rerun rebuilds
# it (and, through mtimes, what depends on it): Snakemake alone skips the producer of a
# missing intermediate whose consumers look up to date.
MISSING_ARTIFACTS = [path for name in LANDED for path in REPORT_INPUTS[name] if not exists(path)]


rule all:
    default_target: True
    input:
        rules.report.output,
        MISSING_ARTIFACTS,
