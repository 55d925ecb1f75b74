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


def _seed_job(seed: int, out: str = "labelled") -> dict:
    return {
        "rule": "calibration_generate_seed",
        "wildcards": {"seed": str(seed)},
        "cmd": f"python stages/generate.py calibration seed --arg seed={seed}",
        "deps": ["src/nesybench/calibration/world.py"],
        "params": ["calibration.corruptions"],
        "outs": [f"data/generate/calibration/seed/seed-{seed}/{out}.parquet"],
    }


def test_a_rule_with_wildcards_is_one_stage_over_every_instance():
    import pytest

    from nesybench.dvc_export import dvc_stages

    gather = {
        "rule": "calibration_count",
        "wildcards": {},
        "cmd": "python stages/count.py calibration",
        "deps": [
            "data/generate/calibration/seed/seed-0/labelled.parquet",
            "data/generate/calibration/seed/seed-1/labelled.parquet",
            "src/nesybench/calibration/world.py",
        ],
        "params": ["calibration.cal_fraction", "calibration.n_seeds"],
        "outs": ["data/count/calibration/class_mix.parquet"],
    }
    seeds, count = dvc_stages([_seed_job(0), _seed_job(1), gather], {"calibration": {"n_seeds": 2}})
    assert seeds == {
        "name": "calibration_generate_seed",
        "cmd": "python stages/generate.py calibration seed --all-instances",
        "deps": ["src/nesybench/calibration/world.py"],
        "params": ["calibration.corruptions", "calibration.n_seeds"],
        "outs": ["data/generate/calibration/seed"],
    }
    assert count["deps"] == ["data/generate/calibration/seed", "src/nesybench/calibration/world.py"]
    stray = {**_seed_job(1), "outs": ["data/generate/calibration/labelled-1.parquet"]}
    with pytest.raises(ValueError, match="outside its instance folder"):
        dvc_stages([_seed_job(0), stray], {"calibration": {"n_seeds": 2}})
