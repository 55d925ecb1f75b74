"""``nesybench count``: the spec's numbers through the CLI, JSON keys, and every bad input -> exit
2."""

from __future__ import annotations

import json

import pytest

from nesybench.cli import main
from nesybench.counting import ExactCounter
from nesybench.logic import from_dimacs

SPEC_CNF = "(x1 | x2 | x3) & (x2 | x3 | ~x1) & (~x3 | ~x2 | x1)"
JSON_KEYS = {
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
}


def run_json(capsys, *args):
    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_count_xor2_support_row(capsys):
    record = run_json(capsys, "--knowledge", "xor", "--k", "2", "--support", "10,00,01")
    assert set(record) == JSON_KEYS
    assert record["support"] == ["00", "01", "10"]  # sorted
    assert (record["n_opt"], record["n_shortcuts"], record["log2_n_opt"]) == ("32", "31", 5.0)
    assert record["method"] == "factored" and record["exact"] is True and record["n_states"] == 4


def test_cli_count_spec_cnf_full_support(capsys):
    record = run_json(
        capsys, "--knowledge", SPEC_CNF, "--k", "3", "--support-frac", "1", "--seed", "0"
    )
    assert record["n_opt"] == "84375" and len(record["support"]) == 8


def test_cli_count_disentangled_192(capsys):
    record = run_json(
        capsys,
        "--knowledge",
        "xor",
        "--k",
        "4",
        "--support-frac",
        "1",
        "--extractor",
        "disentangled",
    )
    assert record["n_opt"] == "192" and record["method"] == "exact"


def test_cli_count_support_frac_matches_generator(capsys):
    from nesybench.counting import support_states

    record = run_json(
        capsys, "--knowledge", "xor", "--k", "3", "--support-frac", "0.5", "--seed", "0"
    )
    assert record["support"] == sorted(support_states(3, 0.5, seed=0))
    assert record["n_opt"] == "1048576"


def test_cli_count_approx_reports_epsilon_delta(capsys):
    record = run_json(
        capsys,
        "--knowledge",
        "xor",
        "--k",
        "3",
        "--support",
        "000,011",
        "--extractor",
        "disentangled",
        "--method",
        "approx",
        "--epsilon",
        "0.5",
        "--delta",
        "0.1",
    )
    assert record["exact"] is False and record["epsilon"] == 0.5 and record["delta"] == 0.1
    assert set(record) == JSON_KEYS | {"epsilon", "delta"}


def test_cli_count_supervised_and_fixed_permutation(capsys):
    record = run_json(
        capsys,
        "--knowledge",
        "xor",
        "--k",
        "2",
        "--support",
        "00,01,10,11",
        "--extractor",
        "disentangled",
        "--fixed-permutation",
        "--supervised",
        "00",
    )
    # pi = identity, f_j(0) = 0 (identity or constant 0), parity kept on all states: only the
    # identity.
    assert record["n_opt"] == "1"


def test_cli_count_writes_dimacs_a_solver_can_recount(tmp_path, capsys):
    out = tmp_path / "optima.cnf"
    record = run_json(
        capsys,
        "--knowledge",
        "xor",
        "--k",
        "2",
        "--support",
        "00,01",
        "--method",
        "exact",
        "--dimacs",
        str(out),
    )
    assert ExactCounter().count(from_dimacs(out.read_text())).value == int(record["n_opt"]) == 64


def test_cli_count_huge_count_is_null_with_log2(capsys):
    record = run_json(capsys, "--knowledge", "xor", "--k", "12", "--support", "0" * 12)
    assert record["n_opt"] is None and record["n_shortcuts"] is None
    assert record["log2_n_opt"] == pytest.approx(11 + 12 * (4096 - 1))


def test_cli_count_text_output(capsys):
    assert main(["count", "--knowledge", "xor", "--k", "2", "--support", "00,01,10,11"]) == 0
    out = capsys.readouterr().out
    assert "N_opt = 16" in out and "reasoning shortcuts = 15" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--knowledge", "(x1 | x2", "--k", "2", "--support", "00"],
            "error: knowledge: expected '|' or ')'",
        ),
        (
            ["--knowledge", "(x1 | y2)", "--k", "2", "--support", "00"],
            "error: knowledge: unexpected character 'y' at position 7",
        ),
        (
            ["--knowledge", "(x1 | x3)", "--k", "2", "--support", "00"],
            "error: knowledge: variable x3 at position 7 exceeds k=2",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "001"],
            "error: support: expected a 2-character bit string",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "0a"],
            "error: support: expected a 2-character bit string of 0/1",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "00,01,00"],
            "error: support: duplicate state '00'",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support-frac", "0"],
            "error: --support-frac must be in (0, 1], got 0",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support-frac", "1.5"],
            "error: --support-frac must be in (0, 1], got 1.5",
        ),
        (
            ["--knowledge", "xor", "--k", "0", "--support", "0"],
            "error: --k must be in [1, 10,000], got 0",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "00", "--supervised", "11"],
            "error: supervised: state '11' is not in the support",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "00", "--supervised", "0"],
            "error: supervised: expected a 2-character bit string",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", "00", "--fixed-permutation"],
            "error: fixed_permutation: applies only to the disentangled",
        ),
        (
            [
                "--knowledge",
                "xor",
                "--k",
                "2",
                "--support",
                "00",
                "--method",
                "approx",
                "--epsilon",
                "0",
            ],
            "error: --epsilon must be in (0, 10], got 0",
        ),
        (
            [
                "--knowledge",
                "xor",
                "--k",
                "2",
                "--support",
                "00",
                "--method",
                "approx",
                "--delta",
                "1",
            ],
            "error: --delta must be in (0, 1)",
        ),
        (
            ["--knowledge", "xor", "--k", "3", "--support", "000", "--method", "enumerate"],
            "error: method enumerate:",
        ),
        (
            ["--knowledge", "xor", "--k", "2", "--support", ""],
            "error: --support must be at least one state",
        ),
        (
            ["--knowledge", "xor", "--k", "2"],
            "error: --support, --support-file or --support-frac: one is required",
        ),
        (
            ["--knowledge", "xor", "--k", "two", "--support", "00"],
            "error: nesybench count: argument --k: invalid int value",
        ),
    ],
)
def test_cli_count_bad_input_exits_2(capsys, args, message):
    with pytest.raises(SystemExit) if "nesybench count:" in message else _no_exit():
        code = main(["count", *args])
        assert code == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message)
    assert "Traceback" not in captured.err and captured.out == ""


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_cli_usage_errors_exit_2(capsys):
    assert main(["count", "--knowledge", "xor", "--k", "2"]) == 2  # no support: one error line
    assert capsys.readouterr().err.count("\n") == 1


# ---- categorical concepts ---------------------------------------------------------


def test_cli_count_mnist_addition_three_families(capsys):
    base = ["--knowledge", "sum", "--domains", "10,10", "--support-frac", "1"]
    shared = run_json(capsys, *base, "--extractor", "shared")
    dis = run_json(capsys, *base, "--extractor", "disentangled")
    joint = run_json(capsys, *base)
    assert (shared["n_opt"], dis["n_opt"], dis["n_distinct"]) == ("1", "2", "2")
    assert joint["domains"] == [10, 10] and joint["n_states"] == 100
    assert len(joint["support"]) == 100 and joint["support"][:2] == ["0:0", "0:1"]
    assert set(dis) == JSON_KEYS


def test_cli_count_knowledge_table_equals_sum(tmp_path, capsys):
    rows = [(a, b, a + b) for a in range(4) for b in range(4)]
    path = tmp_path / "k.csv"
    path.write_text("c1,c2,y\n" + "".join(f"{a},{b},{y}\n" for a, b, y in rows))
    support = "0:1,1:0,2:3,3:3"
    for extractor in ("joint", "disentangled", "shared"):
        table = run_json(
            capsys, "--knowledge-table", str(path), "--support", support, "--extractor", extractor
        )
        summed = run_json(
            capsys,
            "--knowledge",
            "sum",
            "--domains",
            "4,4",
            "--support",
            support,
            "--extractor",
            extractor,
        )
        assert table["n_opt"] == summed["n_opt"] and table["domains"] == [4, 4]


def test_cli_count_support_file_equals_support_list(tmp_path, capsys):
    path = tmp_path / "seen.csv"
    path.write_text("c1,c2\n0,6\n6,0\n2,8\n")
    from_file = run_json(
        capsys, "--knowledge", "sum", "--domains", "10,10", "--support-file", str(path)
    )
    listed = run_json(
        capsys, "--knowledge", "sum", "--domains", "10,10", "--support", "2:8,0:6,6:0"
    )
    assert from_file == listed


def test_cli_count_categorical_support_frac_matches_the_library(capsys):
    from nesybench.counting import support_states

    record = run_json(
        capsys, "--knowledge", "sum", "--domains", "3,4", "--support-frac", "0.5", "--seed", "7"
    )
    expected = sorted(
        support_states((3, 4), 0.5, seed=7), key=lambda s: tuple(map(int, s.split(":")))
    )
    assert record["support"] == expected and len(expected) == 6


def test_cli_count_text_shows_distinct_maps(capsys):
    assert (
        main(
            [
                "count",
                "--knowledge",
                "xor",
                "--k",
                "2",
                "--support",
                "00",
                "--extractor",
                "disentangled",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    # per pi: f_1(0) = f_2(0) (2 ways) x free f_j(1) (4): 8; the two constant maps 00, 11 come
    # from both permutations, so 16 pairs give 14 maps
    assert "distinct maps alpha (n_distinct) = 14" in out and "N_opt = 16 " in out


def test_cli_support_frac_binary_keeps_the_old_draw(capsys):
    # The support permutation of binary tasks is unchanged by the move into counting: the
    # derivation is (seed, "support", k) through nesybench.seeds.
    import numpy as np

    from nesybench.logic import all_states, state_str
    from nesybench.seeds import child_rng

    order = child_rng(3, "support", 4).permutation(16)[:8]
    expected = sorted(state_str(all_states(4)[i]) for i in order)
    record = run_json(
        capsys, "--knowledge", "xor", "--k", "4", "--support-frac", "0.5", "--seed", "3"
    )
    assert record["support"] == expected and np.all(order < 16)
