"""nesybench: measurement instruments for neuro-symbolic reasoning.

Four instruments (shortcuts, calibration, nli, axes) run through one pipeline
``generate -> count -> train -> score -> calibrate -> report``.
"""

__version__ = "0.1.0"

INSTRUMENTS = ("shortcuts", "calibration", "nli", "axes")
STAGES = ("generate", "count", "train", "score", "calibrate", "report")

# The modules each instrument provides, named once (the stage runner, the report and the
# rules look them up here; nothing assembles module names from stage names).
INSTRUMENT_MODULES = {
    name: {
        "artifacts": f"nesybench.{name}.artifacts",
        "pipeline": f"nesybench.{name}.pipeline",
        "report": f"nesybench.{name}.report",
        # check_params(section): the section's cross-key checks, run by load_params
        "params_checks": f"nesybench.{name}.params_checks",
    }
    for name in INSTRUMENTS
}
