"""report stage: `python stages/report.py report --arg instruments=a,b,...` (nesybench.report)."""

from nesybench.numeric_env import pin_numeric_environment

# Before numpy loads: one thread, one BLAS kernel, numpy's baseline loops, libm without FMA,
# whatever the CPU (re-executes once; see docs/reproducibility.md).
pin_numeric_environment()

from nesybench.report.pipeline import main
from nesybench.stages import exit_stage

if __name__ == "__main__":
    exit_stage(main())
