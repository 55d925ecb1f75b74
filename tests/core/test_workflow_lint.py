"""The rule files stay formatted (snakefmt) and every rule follows the conventions of common.smk."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((ROOT / "workflow" / "rules").glob("*.smk"))


def test_rule_files_are_snakefmt_formatted():
    snakefmt = shutil.which("snakefmt")
    if snakefmt is None:
        pytest.skip("snakefmt is not installed")
    proc = subprocess.run([snakefmt, "--check", "Snakefile", "workflow/rules"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_every_rule_has_a_docstring_first_and_runs_a_stage_script(path):
    text = path.read_text()
    for match in re.finditer(r"(?m)^rule (\w+):\n(.*?)(?=^\S|\Z)", text, flags=re.S):
        name, body = match.group(1), match.group(2)
        assert body.lstrip().startswith('"""'), f"{path.name}: rule {name} must open with its docstring"
        shell = re.search(r'shell:\n\s+"([^"]+)"', body)
        assert shell and shell.group(1).startswith("python stages/"), f"{path.name}: rule {name} must run a stage script"
        assert "section=section(" in body, f"{path.name}: rule {name} must declare its params sections"
        assert "code=code(" in body, f"{path.name}: rule {name} must declare its code inputs"
