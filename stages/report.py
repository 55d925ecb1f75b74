"""report stage: `python stages/report.py report --arg instruments=a,b,...` (nesybench.report)."""

import os
import sys

# Pin BLAS threads before numpy loads: artifacts must be byte-identical at any --cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

from nesybench.report.pipeline import main

if __name__ == "__main__":
    sys.exit(main())
