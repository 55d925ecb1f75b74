"""validate: the first stage of `dvc repro` (params checked before any output is deleted)."""

import sys

from nesybench.stages import run_validate

if __name__ == "__main__":
    sys.exit(run_validate())
