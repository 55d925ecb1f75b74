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


def test_compare_is_exact_in_canonical_form():
    """Noise below 10 significant digits and the sign of zero are not drift; anything above is."""
    old = {"calibration": {"ece": 0.1 + 0.2, "change": 0.0}}
    assert nightly.compare(old, {"calibration": {"ece": 0.3, "change": -0.0}}, {"default": 0}) == []
    rows = nightly.compare(old, {"calibration": {"ece": 0.3000001, "change": 0.0}}, {"default": 0})
    assert [r["metric"] for r in rows] == ["calibration:ece"]


def test_tolerances_file_is_exact_on_the_promised_platforms():
    import yaml

    spec = yaml.safe_load((ROOT / "workflow" / "nightly_tolerances.yaml").read_text())
    assert (
        nightly.tolerance_for("shortcuts:score.head_to_head.label_only_concept_accuracy.mean", spec)
        == 0
    )
    assert nightly.tolerance_for("shortcuts:count.xor2.n_opt", spec) == 0
