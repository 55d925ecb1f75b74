"""What answers a disentangled count where the exact searches pass their budget: a refusal
naming the options (default), Ganak's exact projected model count of the encoding, or
ApproxMC's (epsilon, delta) estimate, each named in ``engine`` with ``exact`` set."""

from __future__ import annotations

import pytest

from nesybench.counting import CountingTask, count_disentangled, count_optima
from nesybench.counting.search import MemoryTooLarge, SearchTooLarge
from nesybench.errors import InputError
from nesybench.logic import all_states, make_knowledge, state_str

from .test_search import random_cnf


def _task(k: int, seed: int) -> CountingTask:
    names = [state_str(row) for row in all_states(k)]
    knowledge = make_knowledge(random_cnf(k, 2 * k, seed), k)
    return CountingTask(knowledge, tuple(names[seed % 3 :: 3]))


@pytest.mark.parametrize(("k", "seed", "fixed"), [(4, 0, False), (5, 1, False), (5, 2, True)])
def test_ganak_fallback_equals_the_enumeration_oracle(k, seed, fixed):
    task = _task(k, seed)
    oracle = count_disentangled(task, method="enumerate", fixed_permutation=fixed)
    got = count_disentangled(task, max_subproblems=1, fallback="ganak", fixed_permutation=fixed)
    assert got.engine.startswith("ganak: projected model count") and got.exact
    assert "the exact searches passed their budget" in got.engine
    assert got.n_opt == oracle.n_opt
    assert got.n_distinct is None and "pairs" in got.n_distinct_reason


def test_approx_fallback_is_an_estimate_within_its_guarantee():
    task = _task(5, 1)
    exact = count_disentangled(task).n_opt
    got = count_disentangled(task, max_subproblems=1, fallback="approx", epsilon=0.8)
    assert not got.exact and got.engine.startswith("approxmc")
    assert (got.epsilon, got.delta) == (0.8, 0.2)
    assert exact / 1.8 <= got.estimate <= exact * 1.8


def test_no_fallback_refuses_naming_the_options():
    with pytest.raises(SearchTooLarge, match=r"--max-subproblems.*--fallback ganak.*approx"):
        count_disentangled(_task(5, 1), max_subproblems=1)


def test_fallback_encoding_is_sized_before_it_is_built():
    sized = r"CNF encoding \(about [\d,]+ clauses\).*--max-memory"
    with pytest.raises(MemoryTooLarge, match=sized):
        count_disentangled(_task(5, 1), max_subproblems=1, fallback="ganak", max_memory=60_000)


def test_fallback_values_are_checked():
    with pytest.raises(InputError, match=r"count: fallback must be one of none, ganak, approx"):
        count_disentangled(_task(4, 0), fallback="z3")
    with pytest.raises(InputError, match="fallback must be none unless the extractor is disent"):
        count_optima(make_knowledge("xor", 3), ["000"], extractor="shared", fallback="ganak")


def test_count_cli_answers_by_the_fallback_and_says_so(capsys):
    from nesybench.cli import main

    task = _task(5, 1)
    support = ",".join(task.support)
    argv = ["count", "--knowledge", task.knowledge.spec, "--k", "5", "--support", support]
    argv += ["--extractor", "disentangled", "--max-subproblems", "1", "--fallback", "ganak"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ganak: projected model count" in out
    assert (
        f"{count_disentangled(task).n_opt:,}" in out or str(count_disentangled(task).n_opt) in out
    )
