"""The README and docs/ cannot go stale: links resolve, commands parse, examples run.

- every relative link of README.md and docs/*.md names a file of the repository, and every
  page of docs/ is reachable from the README (no page outside the repository is pointed at);
- every `nesybench ...` command of a ```sh or ```console block parses with the command's own
  parser, and those whose input files are in the repository (and that write nothing) run, with
  exit status 0;
- every ```console session that needs no pipeline run is replayed and prints what it shows;
- the Python examples of docs/api.md run as doctests;
- the README stays a page a newcomer reads in minutes and starts with the two commands of a
  fresh machine.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from nesybench.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\s*$")
OUTPUT_OPTIONS = ("--out", "--dimacs")
FILE_SUFFIXES = (".json", ".jsonl", ".parquet", ".csv", ".npz", ".yaml", ".txt")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def relative_links(page: Path) -> list[str]:
    """Link targets of a Markdown page that are not web addresses or in-page anchors."""
    out = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        out.append(target.split("#", 1)[0])
    return out


def code_blocks(page: Path) -> list[tuple[str, int, list[str]]]:
    """(language, first line number, lines) of every fenced block of a page."""
    blocks, lang, start, lines = [], None, 0, []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence and lang is None:
            lang, start, lines = fence.group(1), number + 1, []
        elif line.startswith("```") and lang is not None:
            blocks.append((lang, start, lines))
            lang = None
        elif lang is not None:
            lines.append(line)
    return blocks


def nesybench_commands(page: Path) -> list[tuple[str, list[str]]]:
    """(where, argv after `nesybench`) of every command of the page's sh and console blocks;
    a trailing backslash continues a command, `#` starts a comment, `$ ` is a prompt."""
    out = []
    for lang, start, lines in code_blocks(page):
        if lang not in ("sh", "console"):
            continue
        pending, first = "", 0
        for offset, line in enumerate(lines):
            text = line
            if not pending:
                if lang == "console":
                    if not text.startswith("$ "):
                        continue
                    text = text[2:]
                if not text.startswith("nesybench "):
                    continue
                first = start + offset
            pending += " " + text.rstrip()
            if pending.endswith("\\"):
                pending = pending[:-1]
                continue
            argv = shlex.split(pending, comments=True)
            out.append((f"{_rel(page)}:{first}", argv[1:]))
            pending = ""
    return out


ALL_COMMANDS = [c for page in PAGES for c in nesybench_commands(page)]


def test_every_relative_link_names_a_file_of_the_repository():
    broken, outside = [], []
    for page in PAGES:
        for target in relative_links(page):
            path = (page.parent / target).resolve()
            if not path.is_relative_to(ROOT):
                outside.append(f"{_rel(page)}: {target}")
            elif not path.exists():
                broken.append(f"{_rel(page)}: {target}")
    assert not broken, "links to missing files:\n" + "\n".join(broken)
    assert not outside, "links outside the repository:\n" + "\n".join(outside)


def test_the_docs_name_no_path_outside_the_repository():
    """A newcomer's clone has nothing beside it: no `../something` that leaves the repository."""
    hits = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"(?:\.\./)+[\w.-][\w./-]*", text):
            if not (page.parent / match.group(0)).resolve().is_relative_to(ROOT):
                hits.append(f"{_rel(page)}: {match.group(0)}")
    assert not hits, "paths outside the repository:\n" + "\n".join(hits)


def test_every_docs_page_is_reachable_from_the_readme():
    seen, todo = {README.resolve()}, [README]
    while todo:
        page = todo.pop()
        for target in relative_links(page):
            path = (page.parent / target).resolve()
            if path.suffix == ".md" and path.exists() and path not in seen:
                seen.add(path)
                todo.append(path)
    orphans = [_rel(p) for p in PAGES if p.resolve() not in seen]
    assert not orphans, f"docs pages no link leads to: {orphans}"


def test_the_readme_is_short_and_starts_with_the_two_commands_of_a_fresh_machine():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert 150 <= len(lines) <= 300, f"README.md has {len(lines)} lines; keep it to 150-300"
    assert lines[0].startswith("# ")
    body = [line for line in lines[1:] if line.strip()]
    assert body[0] == "```sh", "the README opens with the fresh-machine commands"
    end = body.index("```")
    commands = [line.split("#", 1)[0].split() for line in body[1:end]]
    assert commands == [["make", "run"], ["make", "test"]], commands
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("run", "test"):
        rule = re.search(rf"^{target}: (.*)$", makefile, flags=re.M)
        assert rule and "setup" in rule.group(1).split(), f"`make {target}` sets the venv up"
    run_recipe = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "snakemake --cores" in run_recipe  # the main job, on the default params.yaml


def test_the_docs_show_commands():
    """The collector finds the commands (a regex that matched nothing would pass the rest)."""
    pages = {where.split(":", 1)[0] for where, _ in ALL_COMMANDS}
    assert {"README.md", "docs/cli.md", "docs/nli.md", "docs/axes.md"} <= pages
    assert len(ALL_COMMANDS) >= 10


@pytest.mark.parametrize(("where", "argv"), ALL_COMMANDS, ids=[w for w, _ in ALL_COMMANDS])
def test_every_command_shown_parses(where, argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser(argv[0]).parse_args(argv)
        except SystemExit as exc:
            pytest.fail(f"{where}: nesybench {shlex.join(argv)}: {err.getvalue().strip()} ({exc})")


def _runs_here(argv: list[str]) -> bool:
    """Its input files are all in the repository and it writes no file."""
    if any(a.split("=", 1)[0] in OUTPUT_OPTIONS for a in argv):
        return False
    files = [
        a for a in argv[1:] if not a.startswith("-") and ("/" in a or a.endswith(FILE_SUFFIXES))
    ]
    return all((ROOT / f).exists() for f in files)


RUNNABLE = [(w, a) for w, a in ALL_COMMANDS if _runs_here(a)]


def test_some_commands_run_for_real():
    assert len(RUNNABLE) >= 5, RUNNABLE


@pytest.mark.parametrize(("where", "argv"), RUNNABLE, ids=[w for w, _ in RUNNABLE])
def test_commands_on_files_of_the_repository_run(where, argv, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 0, f"{where}: nesybench {shlex.join(argv)} -> {status}: {err.getvalue()}"
    assert out.getvalue().strip(), f"{where}: printed nothing"


def test_the_library_examples_run():
    page = ROOT / "docs" / "api.md"
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.attempted >= 10, result
    assert result.failed == 0, result


REPLAYABLE = ("nesybench", "python", "sed", "head", "cat")
TIMING = re.compile(r"\b\d+(\.\d+)? s\b")  # wall-clock seconds in a pasted line vary by machine


def console_sessions(page: Path) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """(where, [(command, expected output lines)]) of every ```console block whose commands
    are all replayable here (no pipeline runs: those are the end-to-end tests' work)."""
    out = []
    for lang, start, lines in code_blocks(page):
        if lang != "console":
            continue
        steps, k = [], 0
        while k < len(lines):
            assert lines[k].startswith("$ "), f"{_rel(page)}:{start + k}: output before a prompt"
            command, k = lines[k][2:], k + 1
            heredoc = re.search(r"<<'(\w+)'", command)
            if heredoc:
                end = lines.index(heredoc.group(1), k)
                command = "\n".join([command, *lines[k : end + 1]])
                k = end + 1
            expected = []
            while k < len(lines) and not lines[k].startswith("$ "):
                expected.append(lines[k])
                k += 1
            steps.append((command, expected))
        if all(shlex.split(c, comments=True)[0] in REPLAYABLE for c, _ in steps):
            out.append((f"{_rel(page)}:{start}", steps))
    return out


SESSIONS = [s for page in PAGES for s in console_sessions(page)]


def test_the_docs_show_a_session_to_replay():
    assert SESSIONS, "no ```console session found to replay"


@pytest.mark.parametrize(("where", "steps"), SESSIONS, ids=[w for w, _ in SESSIONS])
def test_console_sessions_print_what_the_docs_show(where, steps, tmp_path):
    """Each command of the session runs in a fresh folder and prints the lines shown (timings
    aside), so a pasted session cannot drift from what the code prints."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    for command, expected in steps:
        proc = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert proc.returncode == 0, f"{where}: {command.splitlines()[0]}\n{proc.stderr[-2000:]}"
        got = [TIMING.sub("<t> s", line) for line in proc.stdout.splitlines()]
        assert got == [TIMING.sub("<t> s", line) for line in expected], f"{where}: {command}"


def _options_of(command: str) -> set[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return {o for action in sub._actions for o in action.option_strings}


TABLE_ROWS = [
    (f"{_rel(page)}:{number}", re.match(r"\| `nesybench ([\w-]+)", line).group(1), line)
    for page in PAGES
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
    if line.startswith("| `nesybench ")
]


def test_every_option_a_command_table_names_is_an_option_of_that_command():
    assert len(TABLE_ROWS) >= 10
    unknown = []
    for where, command, line in TABLE_ROWS:
        named = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", line))
        unknown += [f"{where}: {command} {o}" for o in sorted(named - _options_of(command))]
    assert not unknown, "options no parser knows:\n" + "\n".join(unknown)
