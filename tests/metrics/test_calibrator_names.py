"""One module of fitted calibrators and one naming rule.

``<Method>Calibrator`` for one score per row, ``Multiclass<Method>Calibrator`` for a row of
K logits, ``<Method>`` the name in METHODS / MULTICLASS_METHODS; no calibrator elsewhere.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

from nesybench.metrics import METHODS, MULTICLASS_METHODS, calibrators

SRC = Path(__file__).resolve().parents[2] / "src" / "nesybench"


def _public_classes():
    return {
        name
        for name, obj in vars(calibrators).items()
        if inspect.isclass(obj)
        and not name.startswith("_")
        and obj.__module__ == calibrators.__name__
    }


def test_every_calibrator_is_named_for_its_method_and_built_from_that_name():
    binary = {f"{m.title()}Calibrator": m for m in METHODS}
    multi = {f"Multiclass{m.title()}Calibrator": m for m in MULTICLASS_METHODS}
    assert _public_classes() == set(binary) | set(multi)
    for name, method in binary.items():
        assert type(calibrators.make_calibrator(method)).__name__ == name
    for name, method in multi.items():
        assert type(calibrators.make_multiclass_calibrator(method)).__name__ == name


@pytest.mark.parametrize("method", METHODS)
def test_binary_calibrators_share_the_interface(method):
    rng = np.random.default_rng(0)
    s = rng.normal(0, 2, 80)
    y = (rng.random(80) < 1 / (1 + np.exp(-s))).astype(int)
    fitted = calibrators.make_calibrator(method).fit(s, y)
    assert fitted.predict_proba(s).shape == (80,) and isinstance(fitted.params(), dict)
    assert (fitted.predict_logits is None) == (method == "isotonic")


@pytest.mark.parametrize("method", MULTICLASS_METHODS)
def test_multiclass_calibrators_share_the_interface(method):
    rng = np.random.default_rng(0)
    z = rng.normal(0, 2, (80, 3))
    y = rng.integers(0, 3, 80)
    fitted = calibrators.make_multiclass_calibrator(method).fit(z, y)
    assert fitted.predict_proba(z).shape == (80, 3) and isinstance(fitted.params(), dict)
    assert (fitted.predict_logits is None) == (method == "isotonic")


def test_no_module_but_metrics_calibrators_defines_a_calibrator():
    stray = []
    for path in sorted(SRC.rglob("*.py")):
        if path == Path(calibrators.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and (
                node.name.endswith(("Calibrator", "Scaling")) or node.name == "IsotonicOneVsRest"
            ):
                stray.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.name}")
    assert not stray, stray
