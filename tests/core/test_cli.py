"""The `nesybench` command line as a whole: every command listed, every --help with an example."""

import pytest

from nesybench.cli import build_parser, main

COMMANDS = ["count", "score-concepts", "calibrate", "reliability", "check-trace", "mixture"]


def test_help_lists_every_command_with_a_purpose(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert command in out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_has_an_example(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "Example" in out and f"nesybench {command}" in out


def test_unknown_command_is_a_one_line_error_with_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["no-such-command"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: nesybench: ") and len(err.strip().splitlines()) == 1


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_parser_registers_each_command_once():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)
