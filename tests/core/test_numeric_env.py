"""The pinned numeric environment (nesybench.numeric_env): what it sets, that every stage entry
applies it before numpy loads, and that it is needed: without it, the BLAS kernel, the BLAS
thread count, numpy's SIMD dispatch and libm's FMA variants each move the raw numbers (and the
bytes of a real training job); with it, none does.

Each factor is played by the variable a machine with another CPU would, in effect, differ in
(``OPENBLAS_CORETYPE``, ``OPENBLAS_NUM_THREADS``, ``NPY_DISABLE_CPU_FEATURES``,
``GLIBC_TUNABLES``); the end-to-end suite runs the whole tiny pipeline under such
environments (tests/e2e/test_pipeline.py).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from nesybench.numeric_env import (
    OPT_OUT,
    _masked_tunables,
    pinned_environment,
)

ROOT = Path(__file__).resolve().parents[2]
NUMERIC_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_CORETYPE",
    "NPY_ENABLE_CPU_FEATURES",
    "NPY_DISABLE_CPU_FEATURES",
    "GLIBC_TUNABLES",
    OPT_OUT,
    "_NESYBENCH_NUMERIC_ENV_PINNED",
)


# ---- what is pinned ------------------------------------------------------------------------


def test_x86_64_pins_threads_kernel_dispatch_and_libm():
    env = pinned_environment({"PATH": "/bin", "NPY_DISABLE_CPU_FEATURES": "X86_V3"}, "x86_64")
    assert env["PATH"] == "/bin"
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"
    assert env["OPENBLAS_CORETYPE"] == "Nehalem"
    assert env["NPY_ENABLE_CPU_FEATURES"] == "X86_V2"
    assert "NPY_DISABLE_CPU_FEATURES" not in env  # numpy refuses both at once
    assert env["GLIBC_TUNABLES"] == "glibc.cpu.hwcaps=-FMA,-FMA4"
    assert pinned_environment(env, "x86_64") == env  # idempotent: no second re-exec
    assert pinned_environment({}, "AMD64") == pinned_environment({}, "x86_64")


def test_a_users_glibc_tunables_are_kept_and_merged():
    assert (
        _masked_tunables("glibc.malloc.check=3", ("-FMA",))
        == "glibc.malloc.check=3:glibc.cpu.hwcaps=-FMA"
    )
    assert _masked_tunables("glibc.cpu.hwcaps=-AVX2", ("-FMA", "-FMA4")) == (
        "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4"
    )
    assert _masked_tunables("glibc.cpu.hwcaps=-FMA", ("-FMA",)) == "glibc.cpu.hwcaps=-FMA"


def test_other_architectures_and_the_opt_out():
    arm = pinned_environment({}, "aarch64")
    assert arm["OPENBLAS_CORETYPE"] == "ARMV8" and "GLIBC_TUNABLES" not in arm
    other = pinned_environment({}, "riscv64")
    assert other == {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    native = {OPT_OUT: "native", "OPENBLAS_NUM_THREADS": "4"}
    assert pinned_environment(native, "x86_64") == native


def test_every_stage_entry_pins_before_anything_imports_numpy():
    """The first statement after the docstring and `import sys` lines: the pin call; and the
    pinning module itself loads no numpy."""
    entries = sorted((ROOT / "stages").glob("*.py"))
    computing = [p for p in entries if p.name != "validate.py"]
    assert len(computing) == 6
    for path in computing:
        body = ast.parse(path.read_text()).body
        calls = [
            i
            for i, node in enumerate(body)
            if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", "") == "pin_numeric_environment"
        ]
        assert calls, f"{path.name} does not call pin_numeric_environment()"
        before = body[: calls[0]]
        imported = {
            (n.module if isinstance(n, ast.ImportFrom) else a.name)
            for n in before
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
        assert imported <= {"sys", "nesybench.numeric_env"}, (path.name, imported)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, nesybench.numeric_env; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == "False"


# ---- that it is needed, and that it holds ----------------------------------------------------

# BLAS reductions (a long dot product, a matmul), numpy SIMD loops (tanh in float64, exp in
# float32) and libm through Python's math: the kinds of arithmetic the stages do.
PROBE = """
import sys
if sys.argv[1] == "pinned":
    from nesybench.numeric_env import pin_numeric_environment
    pin_numeric_environment()
import hashlib, json, math
import numpy as np
import threadpoolctl
rng = np.random.default_rng(0)
x = rng.normal(size=200_003) * 4
a = rng.normal(size=(300, 200))
parts = [x @ x, a @ a.T, np.tanh(x), np.exp(x.astype(np.float32)),
         np.array([math.exp(v) for v in x[:20_000]])]
digest = hashlib.sha256(b"".join(np.asarray(p).tobytes() for p in parts)).hexdigest()
blas = [i["architecture"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({"digest": digest, "blas": blas}))
"""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NUMERIC_VARS}
    env.pop("PYTHONPATH", None)
    return env


def _machine_has(feature: str) -> bool:
    from numpy._core._multiarray_umath import __cpu_features__

    return bool(__cpu_features__.get(feature))


# Each entry: what another machine differs in, played by one variable (the reference runs one
# BLAS thread with this machine's own kernel, dispatch and libm).
FACTORS = {
    "blas-kernel": {"OPENBLAS_CORETYPE": "Prescott"},
    "blas-threads": {"OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"},
    "numpy-dispatch": {"NPY_DISABLE_CPU_FEATURES": "X86_V3"},
    "libm-fma": {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-FMA,-FMA4"},
}
REFERENCE = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _probe(mode: str, extra: dict[str, str]) -> dict:
    env = {**_clean_env(), **REFERENCE, **extra}
    if mode == "native":
        env[OPT_OUT] = "native"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, mode], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.skipif(
    os.uname().machine != "x86_64", reason="the factors are played by x86-64 variables"
)
@pytest.mark.parametrize("factor", sorted(FACTORS))
def test_each_factor_moves_the_raw_numbers_unless_pinned(factor):
    if factor == "numpy-dispatch" and not _machine_has("X86_V3"):
        pytest.skip("numpy dispatches nothing above its baseline on this CPU")
    if factor == "libm-fma" and not _machine_has("FMA3"):
        pytest.skip("this CPU has no FMA: libm has no FMA variant to mask")
    native = _probe("native", {})
    moved = _probe("native", FACTORS[factor])
    assert moved["digest"] != native["digest"], f"{factor} did not move the unpinned numbers"
    pinned = _probe("pinned", {})
    assert _probe("pinned", FACTORS[factor]) == pinned
    assert pinned["blas"] and set(pinned["blas"]) == {"Nehalem"}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 kernels")
def test_a_training_job_writes_other_bytes_on_another_machine_unless_pinned(tmp_path):
    """The shortcuts concept nets of one block, trained by the real stage entry: under two
    machines' environments their weights differ in the last bits without the pin, and are the
    same bytes with it."""
    from tests.e2e.conftest import deep_merge

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params = deep_merge(params, yaml.safe_load((ROOT / "tests/profiles/tiny.yaml").read_text()))
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(ROOT / "workflow" / "schemas", tmp_path / "workflow" / "schemas")
    other_machine = {k: v for f in FACTORS.values() for k, v in f.items()}
    weights = tmp_path / "data/train/shortcuts/concepts/block-0/concept_weights.parquet"

    def stage(mode: str, extra: dict[str, str], *argv: str) -> bytes:
        env = {**_clean_env(), **REFERENCE, **extra}
        if mode == "native":
            env[OPT_OUT] = "native"
        cmd = [sys.executable, *argv, "--params", str(tmp_path / "params.yaml")]
        proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return weights.read_bytes() if weights.exists() else b""

    stage("pinned", {}, "stages/generate.py", "shortcuts")
    train = ("stages/train.py", "shortcuts", "concepts", "--arg", "block=0")
    native_here = stage("native", {}, *train)
    native_there = stage("native", other_machine, *train)
    assert native_here != native_there, "the unpinned weights did not move: the test is vacuous"
    assert stage("pinned", {}, *train) == stage("pinned", other_machine, *train)


def test_bench_numeric_env_smoke(capsys):
    """bench/numeric_env.py (what the pin costs) runs a rule both ways and prints the ratio."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "numeric_env_bench", ROOT / "bench/numeric_env.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--params-override", str(ROOT / "tests/profiles/tiny.yaml")]
    assert module.main([*argv, "--rules", "calibration_generate", "--reexec-repeats", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[0] == "calibration_generate" and lines[1].endswith("x")
    assert lines[2].startswith("all 1 rules") and lines[3].startswith("re-exec alone:")
