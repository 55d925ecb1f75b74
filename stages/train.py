"""train stage: `python stages/train.py INSTRUMENT [STEP] [--arg KEY=VALUE]` (nesybench.stages)."""

from nesybench.numeric_env import pin_numeric_environment

# Before numpy loads: one thread, one BLAS kernel, numpy's baseline loops, libm without FMA,
# whatever the CPU (re-executes once; see docs/reproducibility.md).
pin_numeric_environment()

from nesybench.stages import exit_stage, run_stage

if __name__ == "__main__":
    exit_stage(run_stage("train"))
