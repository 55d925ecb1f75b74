from nesybench.dvc_export import build_dvc_yaml


def test_build_dvc_yaml_maps_output_kinds():
    jobs = [
        {
            "name": "report",
            "cmd": "python stages/report.py report",
            "deps": ["data/score/x/t.parquet"],
            "params": ["report"],
            "outs": [
                "reports/metrics/x.json",
                "reports/plots/x-curve.csv",
                "reports/report.md",
                "reports/report.html",
            ],
        }
    ]
    dvc = build_dvc_yaml(
        jobs,
        {"reports/plots/x-curve.csv": {"x": "depth", "y": ["acc", "cov"], "template": "linear"}},
    )
    stage = dvc["stages"]["report"]
    assert stage["cmd"] == "python stages/report.py report"
    # Every stage depends on the validation stage, which DVC runs first (see dvc_export).
    assert stage["params"] == ["report"]
    assert stage["deps"] == ["data/validate/params.ok", "data/score/x/t.parquet"]
    validate = dvc["stages"]["validate"]
    assert validate["always_changed"] is True and validate["cmd"] == "python stages/validate.py"
    assert list(dvc["stages"])[0] == "validate"
    assert stage["metrics"] == [{"reports/metrics/x.json": {"cache": False}}]
    assert stage["plots"] == [{"reports/plots/x-curve.csv": {"cache": False}}]
    assert dvc["plots"] == [
        {
            "x-curve": {
                "x": "depth",
                "template": "linear",
                "y": {"reports/plots/x-curve.csv": ["acc", "cov"]},
            }
        }
    ]
    assert stage["outs"] == [{"reports/report.md": {"cache": False}}, "reports/report.html"]
