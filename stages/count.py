"""count stage: `python stages/count.py INSTRUMENT [STEP] [--arg KEY=VALUE]` (nesybench.stages)."""

import os
import sys

# Pin BLAS threads before numpy loads: artifacts must be byte-identical at any --cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

from nesybench.stages import run_stage

if __name__ == "__main__":
    sys.exit(run_stage("count"))
