"""Hostile inputs to the top-level command (see tests/cli_cases.py); per-command tables live beside
each instrument's tests."""

from tests.cli_cases import Case, parametrize, run_case

CASES = [
    Case("no-command", [], exit=2, err=None),
    Case("unknown-command", ["no-such-command"], err=r"invalid choice"),
    Case("unknown-option", ["--no-such-option"], err=r"unrecognized|required|invalid"),
    Case("help", ["--help"], exit=0, stdout=r"COMMAND"),
    Case("version", ["--version"], exit=0, stdout=r"nesybench \d"),
]


@parametrize(CASES)
def test_cli_case(case, tmp_path):
    run_case(case, tmp_path)
