"""The rules' code inputs are the import closure of what each job runs, checked at run time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nesybench import INSTRUMENT_MODULES, INSTRUMENTS
from nesybench.workflow_code import code_inputs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_code_inputs_cover_every_module_a_job_imports(instrument):
    """Import what the runner imports for a job; every nesybench module loaded is a code input."""
    modules = INSTRUMENT_MODULES[instrument]
    code = (
        "import json, sys, importlib; import nesybench.stages; "
        f"importlib.import_module({modules['pipeline']!r}); "
        f"importlib.import_module({modules['artifacts']!r}); "
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
        "if n.startswith('nesybench') and getattr(m, '__file__', None))))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    declared = set(code_inputs("score", instrument, str(ROOT)))
    missing = [
        str(Path(f).resolve().relative_to(ROOT))
        for f in loaded
        if str(Path(f).resolve().relative_to(ROOT)) not in declared
    ]
    assert not missing, f"{instrument}: imported at run time but not a code input: {missing}"
    assert "stages/score.py" in declared


def test_the_report_depends_on_every_instrument_report_section():
    declared = set(code_inputs("report", "report", str(ROOT)))
    for instrument in INSTRUMENTS:
        assert f"src/nesybench/{instrument}/report.py" in declared


def test_package_data_is_a_code_input_of_the_instrument_that_reads_it():
    assert "src/nesybench/calibration/data/academic_kg.yaml" in code_inputs(
        "generate", "calibration", str(ROOT)
    )
