import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from nesybench.errors import InputError
from nesybench.params import load_params, params_hash, validate_params

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {"toy": {"$ref": "toy.schema.yaml"}},
}
TOY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "support_frac": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "k": {"type": "integer", "minimum": 1},
        "knowledge": {"enum": ["xor", "cnf"]},
        "seeds": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
    },
}


@pytest.fixture
def schema_dir(tmp_path):
    (tmp_path / "params.schema.yaml").write_text(yaml.safe_dump(SCHEMA))
    (tmp_path / "toy.schema.yaml").write_text(yaml.safe_dump(TOY))
    return tmp_path


@pytest.mark.parametrize(
    "section, message",
    [
        ({"support_frac": 1.5}, "toy.support_frac must be <= 1, got 1.5"),
        ({"support_frac": 0}, "toy.support_frac must be > 0, got 0"),
        ({"k": 0}, "toy.k must be >= 1, got 0"),
        ({"k": "two"}, 'toy.k must be of type integer, got "two"'),
        ({"knowledge": "and"}, 'toy.knowledge must be one of "xor", "cnf", got "and"'),
        ({"seeds": []}, "toy.seeds must have at least 1 items, got 0"),
        ({"sed": 1}, "toy has unknown key sed"),
    ],
)
def test_validate_params_names_key_value_and_range(schema_dir, section, message):
    with pytest.raises(InputError) as info:
        validate_params({"toy": section}, schema_dir=schema_dir, source="params.yaml")
    text = str(info.value)
    assert text.startswith("params.yaml: ") and message in text
    assert "\n" not in text


def test_validate_params_accepts_good_values(schema_dir):
    good = {"toy": {"support_frac": 0.5, "k": 2, "knowledge": "xor", "seeds": [1]}}
    assert validate_params(good, schema_dir=schema_dir) == good


def test_repository_params_yaml_is_valid():
    params = load_params(ROOT / "params.yaml")
    assert set(params) >= {"shortcuts", "calibration", "nli", "axes", "report"}


def test_load_params_reports_yaml_syntax_errors(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_text("a: [1, 2\n")
    with pytest.raises(InputError, match="not valid YAML"):
        load_params(bad)


def test_params_hash_ignores_key_order():
    assert params_hash({"a": 1, "b": [1, 2]}) == params_hash({"b": [1, 2], "a": 1})
    assert params_hash({"a": 1}) != params_hash({"a": 2})


def test_stage_script_rejects_bad_params_with_one_line_and_exit_2(tmp_path):
    """Through the real stage script: bad params -> `error: ...`, exit 2, no traceback."""
    (tmp_path / "workflow").mkdir()
    (tmp_path / "workflow" / "schemas").symlink_to(ROOT / "workflow" / "schemas")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["report"]["title"] = ""  # minLength 1
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "stages" / "report.py"),
            "report",
            "--params",
            str(tmp_path / "params.yaml"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith("error: ")
        and "report.title must have at least 1 characters" in proc.stderr
    )
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_snakemake_refuses_bad_params_before_any_job(tmp_path):
    """The Snakefile validates params.yaml at parse time: one `error:` line, exit 2, nothing run."""
    import shutil

    snakemake = shutil.which("snakemake", path=str(Path(sys.executable).parent))
    if snakemake is None:
        pytest.skip("snakemake is not installed next to this interpreter")
    shutil.copy(ROOT / "Snakefile", tmp_path)
    shutil.copytree(ROOT / "workflow", tmp_path / "workflow")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["shortcuts"]["support_frac"] = 1.5
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    proc = subprocess.run(
        [snakemake, "-n", "--cores", "1"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: params.yaml: shortcuts.support_frac must be <= 1, got 1.5"]
    assert "Traceback" not in proc.stderr and not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("", r"params.yaml: the file must be a mapping of instrument sections, got an empty file"),
        ("- a\n- b\n", r"must be a mapping of instrument sections, got list"),
        ("a: [1, 2\n", r"not valid YAML at line 2, column 1"),
        ("a:\n\tb: 1\n", r"not valid YAML at line 2.*indent with spaces, not tabs"),
        ("a: 1\na: 2\n", r"not valid YAML at line 2.*duplicate key 'a'"),
        ("x: !!python/object/apply:os.system ['true']\n", r"only plain YAML is read"),
        ("__use_yte__: true\n", r"__use_yte__ is not supported"),
    ],
)
def test_load_params_refuses_unsafe_or_broken_yaml_in_one_line(tmp_path, text, message):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    (tmp_path / "workflow").mkdir()
    (tmp_path / "workflow" / "schemas").symlink_to(ROOT / "workflow" / "schemas")
    with pytest.raises(InputError, match=message) as info:
        load_params(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_are_refused_anywhere(value):
    params = load_params(ROOT / "params.yaml")
    params["shortcuts"]["support_frac"] = value
    with pytest.raises(InputError, match="shortcuts.support_frac must be a finite number"):
        validate_params(params, schema_dir=ROOT / "workflow" / "schemas")


def test_names_must_be_keys_of_the_mapping_they_refer_to():
    params = load_params(ROOT / "params.yaml")
    params["shortcuts"]["demo"]["task"] = "nosuch"
    with pytest.raises(InputError, match=r"shortcuts.demo.task must name a key of shortcuts.tasks"):
        validate_params(params, schema_dir=ROOT / "workflow" / "schemas")


def test_job_params_leave_the_sweep_keys_out_of_per_seed_jobs():
    from nesybench.artifacts import Job
    from nesybench.params import SWEEP_KEYS, job_params

    section = {"n_seeds": 5, "claims": {}, "exhibit": "median", "model": {"dim": 8}}
    assert job_params(section, Job("train", "seed", wildcards=("seed",))) == {"model": {"dim": 8}}
    assert job_params(section, Job("train")) == section
    assert set(SWEEP_KEYS) == {"n_seeds", "claims", "exhibit", "knobs", "chapter"}
