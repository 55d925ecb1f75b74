"""The optima counter against the spec's numbers and against independent oracles."""

from __future__ import annotations

import itertools
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesybench.counting import (
    ApproxCounter,
    ExactCounter,
    count_optima,
    disentangled_encoding,
    enumerate_disentangled,
    enumerate_joint,
    is_optimum,
    joint_encoding,
    knowledge_cnf,
    label_class_sizes,
    parity_closed_form,
)
from nesybench.errors import ClaimFailed, UserError
from nesybench.io import read_parquet
from nesybench.logic import CNF, all_states, from_dimacs, make_knowledge, state_str
from nesybench.params import validate_params
from nesybench.stages import run_job

SPEC_CNF = "(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)"


def states(k):
    return [state_str(s) for s in all_states(k)]


# ---- the spec's committed table (exact, training-free) ---------------------


@pytest.mark.parametrize("n_observed, expected", [(4, 16), (3, 32), (2, 64)])
def test_count_optima_xor2_table(n_observed, expected):
    knowledge = make_knowledge("xor", 2)
    support = states(2)[:n_observed]
    for method in ("factored", "enumerate", "exact"):
        result = count_optima(knowledge, support, method=method)
        assert result.n_opt == expected and result.exact
    assert count_optima(knowledge, support).n_shortcuts == expected - 1


@pytest.mark.parametrize("n_observed, expected", [(8, 65_536), (6, 262_144), (4, 1_048_576)])
def test_count_optima_xor3_table(n_observed, expected):
    knowledge = make_knowledge("xor", 3)
    rng = np.random.default_rng(n_observed)
    support = sorted(rng.permutation(states(3))[:n_observed].tolist())
    assert count_optima(knowledge, support).n_opt == expected
    assert count_optima(knowledge, support, method="exact").n_opt == expected
    assert parity_closed_form(3, n_observed) == expected


def test_count_optima_spec_cnf_full_support_84375():
    knowledge = make_knowledge(SPEC_CNF, 3)
    assert label_class_sizes(knowledge) == (3, 5)
    result = count_optima(knowledge, states(3))
    assert result.n_opt == 84_375 == 5**5 * 3**3
    assert result.factors == ((5, 5), (3, 3))
    assert count_optima(knowledge, states(3), method="exact").n_opt == 84_375


def test_count_optima_spec_cnf_spec_supports():
    # The spec's realized supports: 6/8 keeping five satisfying and one
    # falsifying state (600,000), 4/8 keeping four satisfying states (2,560,000).
    knowledge = make_knowledge(SPEC_CNF, 3)
    sat = [s for s in states(3) if s not in ("000", "011", "100")]
    assert count_optima(knowledge, sat + ["000"]).n_opt == 600_000
    assert count_optima(knowledge, sat[:4]).n_opt == 2_560_000


def test_count_optima_disentangled_xor4_is_192():
    # count-rss reports 192 for 4-bit XOR at full support: 4! permutations x 8 even negation sets.
    knowledge = make_knowledge("xor", 4)
    result = count_optima(knowledge, states(4), extractor="disentangled")
    assert result.n_opt == 192 == math.factorial(4) * 8
    assert enumerate_disentangled(knowledge, states(4)) == 192
    fixed = count_optima(knowledge, states(4), extractor="disentangled", fixed_permutation=True)
    assert fixed.n_opt == 8


def test_joint_enumeration_sweeps_256_maps_at_k2():
    knowledge = make_knowledge("xor", 2)
    assert enumerate_joint(knowledge, []) == 256  # no constraint: every map
    assert enumerate_joint(knowledge, states(2)) == 16


def test_enumeration_limits_are_user_errors():
    with pytest.raises(UserError, match="above the enumeration limit"):
        count_optima(make_knowledge("xor", 3), states(3), method="enumerate")
    with pytest.raises(UserError, match="k <= 6"):
        enumerate_disentangled(make_knowledge("xor", 7), ["0" * 7])


# ---- property tests: counter vs enumeration ---------------------------------


@st.composite
def small_problems(draw, max_k=3):
    k = draw(st.integers(1, max_k))
    n_clauses = draw(st.integers(1, 4))
    clauses = []
    for _ in range(n_clauses):
        width = draw(st.integers(1, min(3, k)))
        variables = draw(st.lists(st.integers(1, k), min_size=width, max_size=width, unique=True))
        signs = draw(st.lists(st.booleans(), min_size=width, max_size=width))
        clauses.append(
            "(" + " | ".join(("~" if s else "") + f"x{v}" for v, s in zip(variables, signs)) + ")"
        )
    spec = draw(st.sampled_from(["xor", " & ".join(clauses)]))
    all_k = states(k)
    support = draw(st.lists(st.sampled_from(all_k), min_size=1, max_size=len(all_k), unique=True))
    supervised = draw(st.lists(st.sampled_from(support), max_size=len(support), unique=True))
    return make_knowledge(spec, k), support, supervised


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(max_k=2))
def test_joint_counter_matches_literal_enumeration(problem):
    knowledge, support, supervised = problem
    expected = enumerate_joint(knowledge, support, supervised=supervised)
    assert (
        count_optima(knowledge, support, supervised=supervised, method="factored").n_opt == expected
    )
    assert count_optima(knowledge, support, supervised=supervised, method="exact").n_opt == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(max_k=3))
def test_joint_factored_matches_ganak_encoding(problem):
    knowledge, support, supervised = problem
    factored = count_optima(knowledge, support, supervised=supervised, method="factored").n_opt
    assert count_optima(knowledge, support, supervised=supervised, method="exact").n_opt == factored
    if knowledge.is_parity and not supervised:
        assert factored == parity_closed_form(knowledge.k, len(support))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(max_k=3), st.booleans())
def test_disentangled_counter_matches_enumeration(problem, fixed):
    knowledge, support, supervised = problem
    expected = enumerate_disentangled(
        knowledge, support, supervised=supervised, fixed_permutation=fixed
    )
    result = count_optima(
        knowledge, support, extractor="disentangled", supervised=supervised, fixed_permutation=fixed
    )
    assert result.n_opt == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(max_k=3), st.sampled_from(["joint", "disentangled"]))
def test_approx_counter_within_its_guarantee(problem, extractor):
    # Counts this small sit below ApproxMC's hashing threshold: the estimate is
    # exact in practice, and must in any case lie within (1 + epsilon).
    knowledge, support, supervised = problem
    if extractor == "joint" and knowledge.k > 2:
        support = support[:2]
        supervised = [s for s in supervised if s in support]
    exact = count_optima(
        knowledge, support, extractor=extractor, supervised=supervised, method="exact"
    ).n_opt
    approx = count_optima(
        knowledge, support, extractor=extractor, supervised=supervised, method="approx"
    )
    assert (
        not approx.exact and approx.n_opt is None and approx.epsilon == 0.8 and approx.delta == 0.2
    )
    if exact == 0:
        assert approx.estimate == 0
    else:
        assert exact / 1.8 <= approx.estimate <= exact * 1.8


def test_supervision_pins_images():
    knowledge = make_knowledge("xor", 2)
    # Pinning every observed state leaves only the unobserved images free: 4^1.
    assert count_optima(knowledge, ["00", "01", "10"], supervised=["00", "01", "10"]).n_opt == 4
    assert count_optima(knowledge, states(2), supervised=states(2)).n_opt == 1
    # Disentangled, 01 and 10 pinned: the identity, and pi = swap with both
    # concepts negated (alpha(g) = (~g2, ~g1) fixes 01 and 10, swaps 00 and 11).
    assert (
        count_optima(knowledge, states(2), extractor="disentangled", supervised=["01", "10"]).n_opt
        == 2
    )
    assert (
        count_optima(knowledge, states(2), extractor="disentangled", supervised=["00", "01"]).n_opt
        == 1
    )


def test_count_grows_strictly_as_support_shrinks():
    knowledge = make_knowledge(SPEC_CNF, 3)
    order = ["101", "011", "000", "110", "010", "111", "001", "100"]
    values = [count_optima(knowledge, order[: 8 - i]).n_opt for i in range(7)]
    assert all(a < b for a, b in zip(values, values[1:]))


# ---- counters, encodings, DIMACS artifacts ----------------------------------


@pytest.mark.parametrize(
    "clauses, n_vars, projection, expected",
    [
        ([(1, 2), (3, 4), (4,)], 4, None, 6),  # x3 freed by a unit: pyapproxmc alone says 3
        ([(1, 2), (-1, -2)], 2, None, 2),  # x1 = ~x2 substituted away: pyapproxmc alone says 1
        ([(1, 2, 3)], 5, None, 28),  # two variables in no clause
        ([(1,), (-1,)], 1, None, 0),
        ([(1, 2), (3, 4)], 4, (1, 2), 3),
    ],
)
def test_counters_agree_on_free_and_eliminated_variables(clauses, n_vars, projection, expected):
    cnf = CNF(tuple(clauses), n_vars, projection)
    assert ExactCounter().count(cnf).value == expected
    assert ApproxCounter().count(cnf).value == expected


def test_encodings_have_defined_auxiliaries():
    # Projected and unprojected counts agree, so any #SAT solver reads the same N_opt.
    knowledge = make_knowledge(SPEC_CNF, 3)
    support = ["000", "011", "101"]
    for cnf in (
        joint_encoding(knowledge, support),
        disentangled_encoding(knowledge, support),
        knowledge_cnf(knowledge),
    ):
        unprojected = CNF(cnf.clauses, cnf.n_vars, None)
        free = cnf.n_vars - len({abs(lit) for c in cnf.clauses for lit in c} | set(cnf.projection))
        assert free == 0
        assert ExactCounter().count(cnf).value == ExactCounter().count(unprojected).value


def test_dimacs_artifact_recounts_to_n_opt():
    knowledge = make_knowledge("xor", 3)
    result = count_optima(knowledge, states(3)[:6], method="exact")
    recounted = ExactCounter().count(from_dimacs(result.dimacs)).value
    assert recounted == result.n_opt == 262_144


def test_factored_scales_to_k30_with_one_count():
    clauses = " & ".join(f"(x{i} | ~x{i + 1} | x{(i + 7) % 30 + 1})" for i in range(1, 30))
    knowledge = make_knowledge(clauses, 30)
    result = count_optima(knowledge, None)
    n0, n1 = label_class_sizes(knowledge)
    assert result.factors == ((n1, n1), (n0, n0)) and result.n_opt is None
    assert result.log2_n_opt == pytest.approx(n1 * math.log2(n1) + n0 * math.log2(n0))
    assert result.to_json()["n_opt"] is None


def test_to_json_keys():
    record = count_optima(make_knowledge("xor", 2), ["10", "00"]).to_json()
    assert sorted(record) == sorted(
        [
            "k",
            "n_states",
            "support",
            "extractor",
            "n_opt",
            "n_shortcuts",
            "log2_n_opt",
            "method",
            "exact",
        ]
    )
    assert (
        record["support"] == ["00", "10"]
        and record["n_opt"] == "64"
        and record["n_shortcuts"] == "63"
    )
    approx = count_optima(make_knowledge("xor", 2), ["10"], method="approx").to_json()
    assert approx["exact"] is False and approx["epsilon"] == 0.8 and approx["delta"] == 0.2


def test_is_optimum_joint():
    knowledge = make_knowledge("xor", 2)
    identity = {s: s for s in states(2)}
    swap = {"00": "11", "11": "00", "01": "10", "10": "01"}
    wrong = {"00": "01", "01": "01", "10": "10", "11": "11"}
    assert is_optimum(identity, knowledge, states(2))
    assert is_optimum(swap, knowledge, states(2))
    assert not is_optimum(wrong, knowledge, states(2))
    assert is_optimum(wrong, knowledge, ["01", "10"])  # 00 unobserved: anything goes there
    # is_optimum agrees with the count: exactly N_opt of the 256 maps pass.
    maps = [dict(zip(states(2), image)) for image in itertools.product(states(2), repeat=4)]
    assert sum(is_optimum(m, knowledge, ["00", "01", "10"]) for m in maps) == 32
    with pytest.raises(UserError, match="no image for observed state '11'"):
        is_optimum({"00": "00"}, knowledge, ["11"])


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(extractor="joint", fixed_permutation=True), "fixed_permutation: applies only"),
        (dict(extractor="disentangled", method="factored"), "method factored"),
        (dict(extractor="sideways"), "extractor: must be one of"),
        (dict(supervised=["11"]), "supervised: state '11' is not in the support"),
        (dict(method="approx", epsilon=0), "epsilon: must be > 0"),
        (dict(method="approx", delta=1.5), "delta: must be in (0, 1)"),
    ],
)
def test_count_optima_bad_options(kwargs, fragment):
    with pytest.raises(UserError) as info:
        count_optima(make_knowledge("xor", 2), ["00"], **kwargs)
    assert fragment in str(info.value)


# ---- the generate and count stages end to end (tmp dir, no Snakemake) -------

REPO = Path(__file__).resolve().parents[2]


def shortcuts_params(**overrides):
    params = {
        "seed": 0,
        "noise": 0.25,
        "n_distractors": 2,
        "support_frac": 1.0,
        "support_fracs": [1.0, 0.75, 0.5],
        "tasks": {
            "xor2": {"knowledge": "xor", "k": 2},
            "xor3": {"knowledge": "xor", "k": 3},
            "cnf3": {"knowledge": SPEC_CNF, "k": 3},
        },
        "demo": {"task": "xor2", "n_train_per_state": 20, "n_test_per_state": 50, "bias_frac": 0.5},
        "count": {
            "extractors": ["joint", "disentangled"],
            "method": "auto",
            "epsilon": 0.8,
            "delta": 0.2,
        },
    }
    # generate also writes the concept models' datasets: take those sections from the repository's
    # params
    repo = yaml.safe_load((REPO / "params.yaml").read_text())["shortcuts"]
    params["models"] = repo["models"]
    params["incidence"] = {**repo["incidence"], "tasks": ["xor2"], "support_fracs": [1.0]}
    for key in ("n_seeds", "seed_block", "digits", "claims", "exhibit"):  # the model stages'
        params[key] = repo[key]
    params.update(overrides)
    return params


def run_stages(root, params, stages=("generate", "count")):

    for stage in stages:
        run_job("shortcuts", stage, params={"shortcuts": params}, root=root)


def test_stages_write_the_spec_table(tmp_path, capsys):
    run_stages(tmp_path, shortcuts_params())
    out = capsys.readouterr().out
    assert "support bias 0.5: train sees only {" in out and "concept dims carry their bit" in out
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    joint = table[table["extractor"] == "joint"].set_index(["task", "support_frac"])["n_opt"]
    assert [joint["xor2", f] for f in (1.0, 0.75, 0.5)] == ["16", "32", "64"]
    assert [joint["xor3", f] for f in (1.0, 0.75, 0.5)] == ["65536", "262144", "1048576"]
    assert joint["cnf3", 1.0] == "84375"
    # The CNF rows at partial support are the factored value of the kept states.
    knowledge = make_knowledge(SPEC_CNF, 3)
    for frac in (0.75, 0.5):
        kept = table[
            (table["task"] == "cnf3")
            & (table["support_frac"] == frac)
            & (table["extractor"] == "joint")
        ]["support"].item()
        assert joint["cnf3", frac] == str(count_optima(knowledge, kept.split(",")).n_opt)
    dis = table[table["extractor"] == "disentangled"].set_index(["task", "support_frac"])["n_opt"]
    assert dis["xor3", 1.0] == "24"  # 3! x 4 even negation sets
    # Every DIMACS artifact recounts to its recorded model count.
    dimacs = read_parquet(tmp_path / "data/count/shortcuts/dimacs.parquet")
    assert set(dimacs["formula"]) == {"knowledge", "optima"}
    for row in dimacs.itertuples(index=False):
        assert str(ExactCounter().count(from_dimacs(row.dimacs)).value) == row.model_count
    plot = (tmp_path / "reports/plots/shortcuts-n_opt.csv").read_text().splitlines()
    assert plot[0] == "support_frac,cnf3,xor2,xor3" and len(plot) == 4
    assert plot[1].startswith("1,16.") and plot[3].startswith("0.5,")  # rows from full support down


def test_stages_are_byte_identical_across_runs(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    run_stages(first, shortcuts_params())
    run_stages(second, shortcuts_params())
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert (
        len(files) == 8
    )  # points, certificate, model_points, metrics; n_opt, dimacs, metrics; plot
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_count_stage_rejects_fractions_keeping_the_same_states(tmp_path):
    with pytest.raises(UserError, match="support_fracs 0.5 and 0.45 keep the same 2 of 4 states"):
        run_stages(
            tmp_path,
            shortcuts_params(
                support_fracs=[1.0, 0.5, 0.45], tasks={"xor2": {"knowledge": "xor", "k": 2}}
            ),
        )


def test_count_stage_claim_fails_when_growth_breaks(tmp_path, monkeypatch):
    from nesybench.shortcuts import pipeline

    params = shortcuts_params(tasks={"xor2": {"knowledge": "xor", "k": 2}})
    run_stages(tmp_path, params, stages=("generate",))
    real = pipeline.count_optima

    def frozen(knowledge, support, **kwargs):  # a counter that ignores the support
        return real(knowledge, ["00", "01", "10", "11"], **kwargs)

    monkeypatch.setattr(pipeline, "count_optima", frozen)
    with pytest.raises(ClaimFailed):
        run_stages(tmp_path, params, stages=("count",))


def test_random3cnf_task_runs_through_the_stages(tmp_path):
    params = shortcuts_params(
        tasks={
            "xor2": {"knowledge": "xor", "k": 2},
            "r4": {"knowledge": "random3cnf", "k": 4, "m": 6},
        }
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    assert set(table["task"]) == {"xor2", "r4"}


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("support_frac",), 1.5, "shortcuts.support_frac must be <= 1, got 1.5"),
        (("support_frac",), 0, "shortcuts.support_frac must be > 0, got 0"),
        (("support_fracs",), [1.0, 1.0], "shortcuts.support_fracs must not repeat items"),
        (("tasks", "xor2", "k"), 0, "shortcuts.tasks.xor2.k must be >= 1, got 0"),
        (("count", "method"), "guess", "shortcuts.count.method must be one of"),
        (("count", "delta"), 1, "shortcuts.count.delta must be < 1, got 1"),
        (("noise",), -1, "shortcuts.noise must be >= 0, got -1"),
    ],
)
def test_schema_rejects_bad_params_with_one_line(tmp_path, path, value, message):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    shutil.copy(REPO / "workflow/schemas/shortcuts.schema.yaml", schemas)
    (schemas / "params.schema.yaml").write_text(
        yaml.safe_dump(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"shortcuts": {"$ref": "shortcuts.schema.yaml"}},
            }
        )
    )
    params = shortcuts_params()
    target = params
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    validate_params({"shortcuts": shortcuts_params()}, schema_dir=schemas)  # the defaults pass
    with pytest.raises(UserError) as info:
        validate_params({"shortcuts": params}, schema_dir=schemas)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_count_stage_bad_task_knowledge_is_user_error(tmp_path):
    with pytest.raises(UserError, match="shortcuts.tasks.bad: knowledge: variable x4"):
        run_stages(
            tmp_path,
            shortcuts_params(
                tasks={
                    "xor2": {"knowledge": "xor", "k": 2},
                    "bad": {"knowledge": "(x1 | x4)", "k": 3},
                }
            ),
        )


def test_generate_stage_demo_at_half_support(tmp_path, capsys):
    # `dvc exp run -S shortcuts.support_frac=0.5` changes only the demo's support.
    run_stages(
        tmp_path,
        shortcuts_params(support_frac=0.5, support_fracs=[1.0, 0.75]),
        stages=("generate",),
    )
    out = capsys.readouterr().out
    assert "support 0.50 (2/4 states)" in out
    cert = read_parquet(tmp_path / "data/generate/shortcuts/certificate.parquet")
    demo = cert[(cert["task"] == "xor2") & (cert["support_frac"] == 0.5)].set_index("split")
    assert demo.loc["train", "n_states"] == 2 and demo.loc["ood", "n_states"] == 2
    assert demo.loc["ood", "points"] == 2 * 50


def test_count_stage_approx_method_marks_rows_inexact(tmp_path):
    params = shortcuts_params(
        tasks={"xor2": {"knowledge": "xor", "k": 2}},
        count={
            "extractors": ["joint", "disentangled"],
            "method": "approx",
            "epsilon": 0.8,
            "delta": 0.2,
        },
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet")
    assert not table["exact"].any() and (table["method"] == "approx").all()
    assert (table["certified_by"] == "").all()  # estimates are reported, not certified


def test_approx_counter_on_hashed_counts_stays_within_epsilon():
    # Counts large enough that ApproxMC hashes (2^16 .. 2^20 optima).
    for spec, k, support in (("xor", 3, states(3)[:4]), (SPEC_CNF, 3, states(3))):
        knowledge = make_knowledge(spec, k)
        exact = count_optima(knowledge, support).n_opt
        approx = count_optima(knowledge, support, method="approx", seed=3)
        assert exact / 1.8 <= approx.estimate <= exact * 1.8


@pytest.mark.parametrize("method", ["exact", "enumerate"])
def test_count_stage_certifies_with_other_methods(tmp_path, method):
    params = shortcuts_params(
        tasks={"xor2": {"knowledge": "xor", "k": 2}},
        count={
            "extractors": ["joint", "disentangled"],
            "method": method,
            "epsilon": 0.8,
            "delta": 0.2,
        },
    )
    run_stages(tmp_path, params)
    table = read_parquet(tmp_path / "data/count/shortcuts/n_opt.parquet").set_index(
        ["extractor", "support_frac"]
    )
    assert (
        table.loc[("joint", 1.0), "n_opt"] == "16"
        and table.loc[("disentangled", 1.0), "n_opt"] == "4"
    )
    assert table.loc[("joint", 1.0), "method"] == method
    # The primary method never certifies itself.
    certified = table.loc[("joint", 1.0), "certified_by"].split(",")
    assert ("enumeration" in certified) == (method != "enumerate") and "factored" in certified
