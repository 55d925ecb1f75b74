import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "nightly", ROOT / "workflow" / "scripts" / "nightly.py"
)
nightly = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nightly)

SPEC = {"default": 0, "patterns": [{"match": "shortcuts:panel.*", "abs": 0.01}]}


def test_compare_exact_by_default_and_tolerant_where_declared():
    old = {"shortcuts": {"n_opt": "16", "panel.acc": 0.75, "log2": 4.0}}
    same = {"shortcuts": {"n_opt": "16", "panel.acc": 0.755, "log2": 4.0}}
    assert nightly.compare(old, same, SPEC) == []
    moved = {"shortcuts": {"n_opt": "32", "panel.acc": 0.80, "log2": 4.0}}
    rows = nightly.compare(old, moved, SPEC)
    assert [r["metric"] for r in rows] == ["shortcuts:n_opt", "shortcuts:panel.acc"]


def test_compare_flags_metrics_that_appear_or_disappear():
    rows = nightly.compare({"a": {"x": 1}}, {"a": {"y": 1}}, SPEC)
    assert {r["metric"] for r in rows} == {"a:x", "a:y"}


def test_tolerances_file_parses():
    import yaml

    spec = yaml.safe_load((ROOT / "workflow" / "nightly_tolerances.yaml").read_text())
    assert nightly.tolerance_for("shortcuts:score.head_to_head.lo_acc_c.mean", spec) > 0
    assert nightly.tolerance_for("shortcuts:count.xor2.n_opt", spec) == 0
