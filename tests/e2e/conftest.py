"""A throw-away copy of the repository, set to the tiny profile, for pipeline runs."""

from __future__ import annotations

import hashlib
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


def deep_merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = (
            deep_merge(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def env() -> dict:
    e = dict(os.environ)
    e["PATH"] = f"{VENV_BIN}{os.pathsep}{e.get('PATH', '')}"
    e.pop("PYTHONPATH", None)
    return e


def run(cmd: list[str], cwd: Path, *, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True)
    if check and proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-60:])
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}:\n{tail}")
    return proc


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
    # dvc.yaml's matrix stages list the sweep's seeds: regenerate it for the tiny profile.
    run(["python", "-m", "nesybench.dvc_export"], dest)
    run(["git", "init", "-q"], dest)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"], dest)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "workspace"], dest)
    return dest


@pytest.fixture(scope="session")
def workspace(tmp_path_factory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("nesybench"))


@pytest.fixture(scope="session")
def first_run(workspace) -> tuple[Path, dict[str, str], str]:
    """One cold `snakemake --cores 1` run: (root, artifact hashes, stdout+stderr)."""
    clean(workspace)
    proc = run(["snakemake", "--cores", "1"], workspace)
    return workspace, artifact_hashes(workspace), proc.stdout + proc.stderr
