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


# ---------------------------------------------------------------- one layout, one name per concept
def _parser_of(command):
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_has_one_layout(command):
    """One Example: block, in the epilog, after the options; prose without reST markup; every
    option says what it does."""
    import argparse

    parser = _parser_of(command)
    text = parser.format_help()
    assert text.count("Example:\n") == 1, text
    assert text.index("Example:\n") > text.index("options:"), "Example must end the help"
    assert "Example" not in (parser.description or "")
    for markup in ("``", ":func:", ":class:", ":mod:", ":data:"):
        assert markup not in text, f"{command} --help shows reST markup {markup!r}"
    for action in parser._actions:
        if action.option_strings and action.help is not argparse.SUPPRESS:
            assert action.help, f"{command} {action.option_strings[0]} has no help"


def test_one_option_name_per_concept():
    """The benchmark is --benchmark everywhere (old names only as aliases); every output file
    option and every --json come from nesybench.cli_args, with the same help."""
    from nesybench.cli_args import OUT_RULES

    benchmark_commands = set()
    for command in COMMANDS:
        for action in _parser_of(command)._actions:
            names = action.option_strings
            if action.dest == "benchmark":
                benchmark_commands.add(command)
                assert names[0] == "--benchmark", (command, names)
            assert not ({"--format", "--dataset"} & set(names)) or action.dest == "benchmark"
            if names and names[0] in ("--out", "--dimacs"):
                assert OUT_RULES in action.help, f"{command} {names[0]}: not from cli_args"
    assert {"label", "score-nli", "execute-programs"} <= benchmark_commands


def test_positional_names_are_consistent():
    """A positional's name is the upper-case name of what the file holds, the same on every
    command that reads that kind of file."""
    seen: dict[str, set[str]] = {}
    for command in COMMANDS:
        for action in _parser_of(command)._actions:
            if not action.option_strings and action.dest not in ("help", "command"):
                metavar = action.metavar or action.dest
                assert metavar == metavar.upper() and "." not in metavar, (command, metavar)
                seen.setdefault(action.dest, set()).add(metavar)
    assert all(len(names) == 1 or dest == "file" for dest, names in seen.items()), seen
    assert seen["predictions"] == {"PREDICTIONS"} and seen["scores"] == {"SCORES"}


def test_no_command_takes_its_help_from_a_docstring():
    """`description=__doc__` printed a module's reST docstring as help: never again."""
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "nesybench"
    offenders = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg in ("description", "epilog"):
                if isinstance(node.value, ast.Name) and node.value.id == "__doc__":
                    offenders.append(f"{path.relative_to(src)}:{node.value.lineno}")
    assert not offenders, offenders
