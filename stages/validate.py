"""validate: the first stage of `dvc repro` (params checked before any output is deleted)."""

from nesybench.stages import exit_stage, run_validate

if __name__ == "__main__":
    exit_stage(run_validate())
