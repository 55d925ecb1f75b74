"""The `nesybench` command line as a whole: every command listed, every --help with an example."""

import pytest

from nesybench.cli import build_parser, main

COMMANDS = [
    "count",
    "plan-supervision",
    "tasks",
    "score-concepts",
    "calibrate",
    "reliability",
    "check-trace",
    "label",
    "score-nli",
    "execute-programs",
    "mixture",
    "axes-export",
    "axes-score",
]


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


def test_command_table_matches_what_each_module_registers():
    """The lazy index (COMMANDS) must list exactly what each instrument module registers."""
    import argparse
    import importlib

    from nesybench.cli import COMMANDS as TABLE

    for module_name in sorted({module for module, _ in TABLE.values()}):
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        importlib.import_module(module_name).register(sub)
        listed = sorted(name for name, (module, _) in TABLE.items() if module == module_name)
        assert sorted(sub.choices) == listed, module_name


def test_help_imports_no_instrument():
    """`nesybench --help` stays fast: building the index imports no instrument package."""
    import subprocess
    import sys

    code = (
        "import sys; from nesybench.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[:2][-1] in "
        "('shortcuts', 'calibration', 'nli', 'axes') and m.startswith('nesybench')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
