"""Throw-away copies of the repository, set to the tiny profile, for pipeline runs.

One cold run is shared by every end-to-end file and every xdist worker (``shared_run``: built
once, under a file lock); a test that runs anything works on its own copy of it (``copy_of``).
Waiting on a subprocess has a hang guard far above its normal time: passing it is reported
as a hang; no test asserts a duration.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
GENERATED = (
    "data",
    ".snakemake",
    "reports/report.html",
    "reports/report.md",
    "reports/figures",
    "reports/metrics",
    "reports/plots",
    "dvc.lock",
)
# A hang guard, not a time limit: a cold run of the tiny profile takes about 3 CPU-minutes
# (under 2 minutes of wall time on 2 idle cores); a command still running after an hour is
# stuck (a lock, a deadlock, a job waiting for input), however loaded the machine.
HANG_SECONDS = 3600

# Another machine, as far as the numeric libraries can tell: another OpenBLAS kernel and
# thread count, numpy without its AVX2 loops, libm without FMA (docs/reproducibility.md).
OTHER_MACHINE = {
    "OPENBLAS_CORETYPE": "Prescott",
    "OPENBLAS_NUM_THREADS": "4",
    "OMP_NUM_THREADS": "4",
    "NPY_DISABLE_CPU_FEATURES": "X86_V3",
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA",
}


def deep_merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = (
            deep_merge(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def env(extra: dict[str, str] | None = None) -> dict:
    e = dict(os.environ)
    e["PATH"] = f"{VENV_BIN}{os.pathsep}{e.get('PATH', '')}"
    e.pop("PYTHONPATH", None)
    e.update(extra or {})
    return e


def run(
    cmd: list[str], cwd: Path, *, check: bool = True, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=env(extra_env), capture_output=True, text=True, timeout=HANG_SECONDS
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
        tail = "\n".join(out.splitlines()[-30:])
        raise AssertionError(
            f"hang: {' '.join(cmd)} still running after {HANG_SECONDS} s\n{tail}"
        ) from None
    if check and proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-60:])
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}:\n{tail}")
    return proc


def wait_or_hang(proc: subprocess.Popen, what: str, seconds: float = HANG_SECONDS) -> int:
    """Wait for ``proc``; one still running past the hang guard is killed, reported as a hang."""
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"hang: {what} still running after {seconds:g} s") from None


def clean(root: Path) -> None:
    for rel in GENERATED:
        path = root / rel
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def artifact_hashes(root: Path) -> dict[str, str]:
    """md5 of every artifact the pipeline writes (data/ and the generated reports/)."""
    out = {}
    for base in ("data", "reports"):
        for path in sorted((root / base).rglob("*")):
            if (
                path.is_file()
                and not path.name.startswith(".")
                and path.name != "snakemake-report.html"
                # DVC's validation stamp (constant bytes; Snakemake validates at parse time)
                and not path.is_relative_to(root / "data" / "validate")
            ):
                out[str(path.relative_to(root))] = hashlib.md5(path.read_bytes()).hexdigest()
    return out


def differing(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """Paths present in one listing only, or with other bytes."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], root)


def make_workspace(dest: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for rel in filter(None, files):
        src = ROOT / rel
        if not src.is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    clean(dest)
    params = yaml.safe_load((dest / "params.yaml").read_text())
    tiny = yaml.safe_load((ROOT / "tests" / "profiles" / "tiny.yaml").read_text()) or {}
    (dest / "params.yaml").write_text(yaml.safe_dump(deep_merge(params, tiny), sort_keys=False))
    # the committed dvc.yaml serves every sweep size (tests/core/test_dvc_sync.py)
    run(["git", "init", "-q"], dest)
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "workspace")
    return dest


def copy_of(root: Path, dest: Path) -> Path:
    """A private copy of a finished workspace (mtimes kept: Snakemake sees it as finished)."""
    shutil.copytree(root, dest, symlinks=True)
    return dest


def _shared_dir(tmp_path_factory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    return (base.parent if worker_id != "master" else base) / "nesybench-shared-run"


@pytest.fixture(scope="session")
def shared_run(tmp_path_factory, worker_id) -> tuple[Path, dict[str, str]]:
    """One cold `snakemake --cores 1` run of the tiny profile: (root, artifact hashes).

    Built once per session by whichever xdist worker asks first (the others wait on the
    lock).  Read only: run commands in ``copy_of(root, tmp_path / "ws")``.
    """
    from filelock import FileLock

    shared = _shared_dir(tmp_path_factory, worker_id)
    shared.mkdir(parents=True, exist_ok=True)
    done = shared / "hashes.json"
    with FileLock(str(shared / "build.lock")):
        if not done.exists():
            root = shared / "ws"
            if root.exists():
                shutil.rmtree(root)  # a build that failed half-way
            root.mkdir()
            make_workspace(root)
            proc = run(["snakemake", "--cores", "1"], root)
            (shared / "run.log").write_text(proc.stdout + proc.stderr)
            done.write_text(json.dumps(artifact_hashes(root), indent=1, sort_keys=True))
    return shared / "ws", json.loads(done.read_text())


@pytest.fixture
def copy(shared_run, tmp_path) -> tuple[Path, dict[str, str]]:
    """A private copy of the shared finished run (mtimes kept: Snakemake sees it as finished)."""
    root, hashes = shared_run
    return copy_of(root, tmp_path / "ws"), hashes


def snakemake_in(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`snakemake --cores 2 ARGS` in ``root``, its failure returned rather than raised."""
    return run(["snakemake", "--cores", "2", *args], root, check=False)


def job_counts(dry_run: str) -> dict[str, int]:
    """The "Job stats" table of a dry run: rule -> number of jobs."""
    counts = {}
    for line in dry_run.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "job"):
            counts[parts[0]] = int(parts[1])
    return counts


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The one `error:` line of a refused run (exit 2, no traceback), asserted as such."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    return lines[0]
