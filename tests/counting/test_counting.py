"""The optima counter on binary knowledge: the spec's numbers, independent oracles, encodings."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
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
from nesybench.errors import InputError
from nesybench.logic import CNF, all_states, from_dimacs, make_knowledge, state_str

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
    with pytest.raises(InputError, match="above the enumeration limit"):
        count_optima(make_knowledge("xor", 3), states(3), method="enumerate")
    with pytest.raises(InputError, match="k <= 6"):
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
            "domains",
            "n_states",
            "support",
            "extractor",
            "n_opt",
            "n_shortcuts",
            "log2_n_opt",
            "n_distinct",
            "n_distinct_reason",
            "method",
            "exact",
        ]
    )
    assert (
        record["support"] == ["00", "10"]
        and record["n_opt"] == "64"
        and record["n_shortcuts"] == "63"
        and record["domains"] == [2, 2]
        and record["n_distinct"] == "64"  # every joint optimum is its own map
        and record["n_distinct_reason"] is None
    )
    approx = count_optima(make_knowledge("xor", 2), ["10"], method="approx").to_json()
    assert approx["exact"] is False and approx["epsilon"] == 0.8 and approx["delta"] == 0.2
    assert approx["n_distinct"] is None and "approximate" in approx["n_distinct_reason"]


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
    with pytest.raises(InputError, match="no image for observed state '11'"):
        is_optimum({"00": "00"}, knowledge, ["11"])


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(extractor="joint", fixed_permutation=True), "fixed_permutation: applies only"),
        (dict(extractor="disentangled", method="factored"), "method factored"),
        (dict(extractor="sideways"), "extractor must be one of"),
        (dict(supervised=["11"]), "supervised: state '11' is not in the support"),
        (dict(method="approx", epsilon=0), "epsilon must be in (0, 10]"),
        (dict(method="approx", epsilon=float("inf")), "epsilon must be in (0, 10], got inf"),
        (dict(method="approx", delta=1.5), "delta must be in (0, 1)"),
    ],
)
def test_count_optima_bad_options(kwargs, fragment):
    with pytest.raises(InputError) as info:
        count_optima(make_knowledge("xor", 2), ["00"], **kwargs)
    assert fragment in str(info.value)


def test_approx_counter_on_hashed_counts_stays_within_epsilon():
    # Counts large enough that ApproxMC hashes (2^16 .. 2^20 optima).
    for spec, k, support in (("xor", 3, states(3)[:4]), (SPEC_CNF, 3, states(3))):
        knowledge = make_knowledge(spec, k)
        exact = count_optima(knowledge, support).n_opt
        approx = count_optima(knowledge, support, method="approx", seed=3)
        assert exact / 1.8 <= approx.estimate <= exact * 1.8
