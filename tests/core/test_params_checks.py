"""Every instrument's cross-key check runs in load_params: the default params.yaml with one
value changed fails with the one expected line (nesybench/<instrument>/params_checks.py)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from nesybench import INSTRUMENTS
from nesybench.errors import InputError
from nesybench.params import load_params

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))


def _set(path: str, value):
    def edit(params):
        *parents, last = path.split(".")
        node = params
        for part in parents:
            node = node[part]
        if value is _DROP:
            del node[last]
        else:
            node[last] = value

    return edit


_DROP = object()

CASES = [
    # axes: gadgets' ladders, the cycle probes, the grid's cross-level limits, the depth cap
    (
        _set("axes.gadgets.chase_budgets", [40, 10]),
        "axes.gadgets.chase_budgets must be increasing, got [40, 10]",
    ),
    (
        _set("axes.gadgets.scale_chains", [64, 16]),
        "axes.gadgets.scale_chains must be increasing, got [64, 16]",
    ),
    (
        lambda p: p["axes"]["gadgets"].update(cycle_k_min=3, cycle_k_max=4),
        "axes.gadgets.cycle_k_max must be >= cycle_k_min + 2 = 5 (three queries give two probe "
        "ratios), got 4",
    ),
    (
        _set("axes.grid.depth_cap", 3),
        "axes.grid.depth_cap must be in [0, max depth level) = [0, 3) so that some depth lies "
        "beyond it, got 3",
    ),
    (
        _set("axes.grid.levels.vocabulary", [5]),
        "axes.grid.levels.vocabulary: each size must be in [max depth + 3, 64] = [6, 64]",
    ),
    # nli: the label mix sums to 1; the worked example's depth is one the corpus has
    (
        _set("nli.folio.label_mix", {"p_true": 0.9, "p_false": 0.2, "p_unknown": 0.1}),
        "nli.folio.label_mix must be probabilities summing to 1, got 1.2",
    ),
    (
        _set("nli.worked_example_hops", 4),
        "nli.worked_example_hops must be one of nli.prontoqa.hops [1, 3, 5], got 4",
    ),
    # shortcuts: tasks build, support fractions distinct, categorical, rsbench plan, digits
    (
        _set("shortcuts.tasks.xor2", {"knowledge": "random3cnf", "k": 3}),
        "shortcuts.tasks.xor2.m must be given for a random3cnf task (its number of clauses), "
        "got None",
    ),
    (
        _set("shortcuts.tasks.xor2", {"knowledge": "xor", "k": 2, "m": 3}),
        "shortcuts.tasks.xor2.m must be left out for knowledge 'xor' (only random3cnf takes m), "
        "got 3",
    ),
    (
        _set("shortcuts.tasks.xor2", {"knowledge": "x1 & x9", "k": 2}),
        "shortcuts.tasks.xor2: ",
    ),
    (
        _set("shortcuts.support_fracs", [1.0, 0.5, 0.45]),
        "shortcuts.support_fracs must be fractions keeping distinct numbers of the 8 states of "
        "task cnf3 (use fractions at least 1/8 apart; 0.5 and 0.45 both keep 4)",
    ),
    (
        _set("shortcuts.incidence.support_fracs", [1.0, 0.25]),
        "shortcuts.incidence.support_fracs must be among shortcuts.support_fracs (1, 0.75, 0.5), "
        "whose N_opt the count stage certifies, got 0.25",
    ),
    (
        _set("shortcuts.categorical.tasks.mnadd2.supports.few", ["0:66"]),
        "shortcuts.categorical.tasks.mnadd2.supports.few: ",
    ),
    (
        _set("shortcuts.categorical.tasks.mnadd2.domains", [10, 9]),
        "shortcuts.categorical.tasks.mnadd2.domains must be equal domain sizes when "
        "shortcuts.categorical.extractors lists shared, got [10, 9]",
    ),
    (
        _set("shortcuts.rsbench.tasks", ["xor", "clevr"]),
        "shortcuts.rsbench.plan.tasks must be among shortcuts.rsbench.tasks (xor, clevr), got "
        "'mnadd'",
    ),
    (
        _set("shortcuts.digits.mitigations", ["label_only", "concept_sup=0.1", "concept_sup=0.10"]),
        "shortcuts.digits.mitigations must be distinct mitigations ('concept_sup=0.10' repeats "
        "'concept_sup=0.1')",
    ),
    (
        _set("shortcuts.digits.head_to_head.supervised", "concept_sup=0.5"),
        "shortcuts.digits.mitigations must be a list holding label_only and the head-to-head's "
        "supervised model 'concept_sup=0.5'",
    ),
    # the schema's x-key-of states these (the jobs' old copies are gone)
    (_set("shortcuts.demo.task", "xor9"), "shortcuts.demo.task must name a key of shortcuts.tasks"),
    (
        _set("shortcuts.models.task", "xor9"),
        "shortcuts.models.task must name a key of shortcuts.tasks",
    ),
    (
        _set("shortcuts.incidence.tasks", ["xor2", "cnf9"]),
        "shortcuts.incidence.tasks[1] must name a key of shortcuts.tasks",
    ),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("params")
    shutil.copytree(ROOT / "workflow" / "schemas", root / "workflow" / "schemas")
    return root


def _write(root: Path, edit) -> Path:
    params = copy.deepcopy(DEFAULT)
    edit(params)
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    return path


def test_the_default_params_pass_every_check(root):
    assert load_params(_write(root, lambda p: None)) == DEFAULT


@pytest.mark.parametrize("edit, message", CASES, ids=[m.split(" ")[0] for _, m in CASES])
def test_load_params_refuses_a_cross_key_problem_with_one_line(root, edit, message):
    path = _write(root, edit)
    with pytest.raises(InputError) as exc:
        load_params(path)
    line = str(exc.value)
    assert line.startswith(f"{path}: {message}"), line
    assert "\n" not in line


def test_every_instrument_declares_its_check_in_one_module():
    import importlib

    for name in INSTRUMENTS:
        module = importlib.import_module(f"nesybench.{name}.params_checks")
        assert callable(module.check_params), name


def test_every_claim_a_sweep_judges_is_required_by_the_schema():
    """claim_table needs a threshold per claim; the schema's `required` is what guarantees it."""
    import importlib

    claim_sets = {
        "shortcuts": ("H2H_CLAIMS", "DIGIT_CLAIMS", "CALIBRATION_CLAIMS"),
        "calibration": ("SEED_CLAIMS",),
        "nli": ("SEED_CLAIMS",),
        "axes": ("SEED_CLAIMS",),
    }
    for name, attributes in claim_sets.items():
        schema = yaml.safe_load((ROOT / f"workflow/schemas/{name}.schema.yaml").read_text())
        required = set(schema["properties"]["claims"]["required"])
        module = importlib.import_module(f"nesybench.{name}.claims")
        for attribute in attributes:
            names = {c.name for c in getattr(module, attribute)}
            assert names <= required, (name, sorted(names - required))


def test_a_knob_level_goes_through_the_instrument_check_too(root, monkeypatch):
    """A variant job runs on params with its level set: load_params checks those as well."""
    from nesybench.calibration import params_checks
    from nesybench.errors import bad_value

    def refuse_label_heldout(section):
        if section["stratify"] == "label_heldout":
            raise bad_value("calibration.stratify", "label", "label_heldout", where="params.yaml")

    monkeypatch.setattr(params_checks, "check_params", refuse_label_heldout)
    path = _write(root, lambda p: None)
    with pytest.raises(InputError) as exc:
        load_params(path)
    assert str(exc.value) == (
        f"{path}: calibration.knobs.stratify.levels[0]: calibration.stratify must be label, "
        "got 'label_heldout'"
    )
