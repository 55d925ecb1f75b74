"""The rule files stay formatted (snakefmt) and every rule follows the conventions of common.smk."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((ROOT / "workflow" / "rules").glob("*.smk"))


def _tool(name: str) -> str:
    """A lint tool from the project's environment (it is pinned in requirements.lock)."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is not installed: run `make setup` (it is pinned in requirements.lock)"
    return found


def test_rule_files_are_snakefmt_formatted():
    snakefmt = _tool("snakefmt")
    proc = subprocess.run(
        [snakefmt, "--check", "Snakefile", "workflow/rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_every_rule_has_a_docstring_first_and_runs_a_stage_script(path):
    text = path.read_text()
    for match in re.finditer(r"(?m)^rule (\w+):\n(.*?)(?=^\S|\Z)", text, flags=re.S):
        name, body = match.group(1), match.group(2)
        assert body.lstrip().startswith('"""'), (
            f"{path.name}: rule {name} must open with its docstring"
        )
        shell = re.search(r'shell:\n\s+"([^"]+)"', body)
        assert shell and shell.group(1).startswith("python stages/"), (
            f"{path.name}: rule {name} must run a stage script"
        )
        assert "section=section(" in body or "section=job_section(" in body, (
            f"{path.name}: rule {name} must declare its params sections"
        )
        assert "code=code(" in body, f"{path.name}: rule {name} must declare its code inputs"


@pytest.mark.parametrize(
    "args", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"]
)
def test_python_sources_pass_ruff(args):
    """ruff (configured in pyproject.toml) passes on every Python file: lint and formatting."""
    proc = subprocess.run([_tool("ruff"), *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
