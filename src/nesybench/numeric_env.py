"""The numeric environment every pipeline job runs in, pinned so results do not depend on the CPU.

Four things pick floating-point code per machine at run time, and each moves the last bits of
the same computation (measured on this project's artifacts: docs/reproducibility.md):

* OpenBLAS picks a kernel per CPU family (``OPENBLAS_CORETYPE`` overrides it), and splits
  reductions by thread (``OPENBLAS_NUM_THREADS``);
* numpy dispatches its ufunc, reduction and sort loops to the widest SIMD the CPU has
  (``NPY_ENABLE_CPU_FEATURES`` restricts it);
* glibc's libm resolves ``exp``, ``log``, ``pow``, ``sin``, ... to FMA variants on CPUs with
  FMA (``GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA,...`` masks them); numpy's scalar loops and
  Python's ``math`` call it;
* OpenMP runtimes (scikit-learn) split work by thread (``OMP_NUM_THREADS``).

:func:`pin_numeric_environment` sets all of them to one value every x86-64 machine supports:
one thread (Snakemake and DVC parallelise across jobs, not inside one), the OpenBLAS Nehalem
kernel (SSE4.2, the same instruction set numpy's own x86-64 baseline requires; its blocking
does not depend on the detected cache size, unlike Prescott's), numpy's baseline loops only,
and libm's non-FMA variants.  glibc reads its tunables when a process starts, so the
function re-executes the interpreter once with the pinned environment; every stage entry
(``stages/*.py``) calls it first, before anything imports numpy, so the pin holds under
``snakemake``, ``dvc repro``, ``make run`` and SLURM alike.

``NESYBENCH_NUMERIC_ENV=native`` leaves the environment as it is (the machine's kernels, the
libraries' default thread counts): for timing comparisons and for the test that shows the
pin is needed.  Results then depend on the machine, and parallel jobs oversubscribe cores.

This module must not import numpy (or anything that does).
"""

from __future__ import annotations

import math
import os
import platform
import sys
from collections.abc import Mapping

__all__ = [
    "OPT_OUT",
    "pin_numeric_environment",
    "pinned_environment",
]

OPT_OUT = "NESYBENCH_NUMERIC_ENV"  # "native": leave the numeric environment to the machine
# Set in the re-executed process: a platform that drops a variable cannot make it loop.
REEXECUTED = "_NESYBENCH_NUMERIC_ENV_PINNED"

THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# Per architecture: the OpenBLAS kernel and numpy's SIMD baseline of the pinned wheels (see
# ``numpy.show_runtime()``: "baseline").  Enabling only the baseline turns dispatch off.
KERNELS = {
    "x86_64": {"OPENBLAS_CORETYPE": "Nehalem", "NPY_ENABLE_CPU_FEATURES": "X86_V2"},
    # Pinned the same way (generic ARMv8 kernel, NEON/ASIMD baseline); not tested here.
    "aarch64": {"OPENBLAS_CORETYPE": "ARMV8", "NPY_ENABLE_CPU_FEATURES": "ASIMD"},
}
MACHINE_ALIASES = {"amd64": "x86_64", "x86-64": "x86_64", "arm64": "aarch64"}

# glibc's x86-64 libm selects its FMA (and AMD FMA4) variants from these CPU features.
LIBM_HWCAPS_MASK = ("-FMA", "-FMA4")
HWCAPS_TUNABLE = "glibc.cpu.hwcaps"

LIBM_PROBE = 3.462450603575744

# numpy refuses NPY_ENABLE_CPU_FEATURES together with NPY_DISABLE_CPU_FEATURES.
REMOVED = ("NPY_DISABLE_CPU_FEATURES",)


def _masked_tunables(tunables: str, mask: tuple[str, ...]) -> str:
    """``GLIBC_TUNABLES`` with ``mask`` added to its ``glibc.cpu.hwcaps`` entry (others kept).

    >>> _masked_tunables("", ("-FMA",))
    'glibc.cpu.hwcaps=-FMA'
    >>> _masked_tunables("glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX2", ("-FMA", "-AVX2"))
    'glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX2,-FMA'
    """
    entries = [e for e in tunables.split(":") if e]
    for i, entry in enumerate(entries):
        name, _, value = entry.partition("=")
        if name == HWCAPS_TUNABLE:
            items = [v for v in value.split(",") if v]
            items += [m for m in mask if m not in items]
            entries[i] = f"{name}={','.join(items)}"
            return ":".join(entries)
    return ":".join([*entries, f"{HWCAPS_TUNABLE}={','.join(mask)}"])


def pinned_environment(environ: Mapping[str, str], machine: str | None = None) -> dict[str, str]:
    """``environ`` with the numeric environment pinned for ``machine`` (default: this one).

    An architecture without an entry in :data:`KERNELS` gets only the thread pins; with
    ``NESYBENCH_NUMERIC_ENV=native`` nothing changes.
    """
    env = dict(environ)
    if env.get(OPT_OUT) == "native":
        return env
    env.update(THREADS)
    arch = (machine or platform.machine()).lower()
    arch = MACHINE_ALIASES.get(arch, arch)
    if arch not in KERNELS:
        return env
    env.update(KERNELS[arch])
    for name in REMOVED:
        env.pop(name, None)
    if arch == "x86_64":
        env["GLIBC_TUNABLES"] = _masked_tunables(env.get("GLIBC_TUNABLES", ""), LIBM_HWCAPS_MASK)
    return env


def pin_numeric_environment() -> None:
    """Make this process run in :func:`pinned_environment`, re-executing it once if needed.

    Call it first thing in an entry point, before numpy (or anything that loads a BLAS or
    libm-dependent extension) is imported.
    """
    if "numpy" in sys.modules:
        raise RuntimeError("pin_numeric_environment() must run before numpy is imported")
    target = pinned_environment(os.environ)
    if target == dict(os.environ) or os.environ.get(REEXECUTED):
        return
    target[REEXECUTED] = "1"
    # glibc reads GLIBC_TUNABLES only at start-up: a new image of the same command applies it.
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], target)


def describe() -> dict[str, object]:
    """What this process computes with: the pinned variables and what the libraries report."""
    import threadpoolctl
    from numpy._core._multiarray_umath import (  # what numpy.show_runtime() reads
        __cpu_baseline__,
        __cpu_dispatch__,
        __cpu_features__,
    )

    return {
        "environment": {
            k: os.environ.get(k)
            for k in (*THREADS, "OPENBLAS_CORETYPE", "NPY_ENABLE_CPU_FEATURES", "GLIBC_TUNABLES")
        },
        "numpy_simd_baseline": list(__cpu_baseline__),
        "numpy_simd_dispatched": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
        "blas": [
            {k: lib.get(k) for k in ("internal_api", "architecture", "num_threads")}
            for lib in threadpoolctl.threadpool_info()
            if lib.get("user_api") == "blas"
        ],
        # glibc 2.36's exp with and without FMA disagree in the last digit here
        # (31.895042926929708 vs ...71): which libm variant this process resolved
        "libm_exp_probe": repr(math.exp(LIBM_PROBE)),
    }


def main() -> int:
    """``python -m nesybench.numeric_env``: what a pipeline job computes with, as JSON."""
    import json

    pin_numeric_environment()
    json.dump(describe(), sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
