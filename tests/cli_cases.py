"""A harness for tables of hostile command-line inputs.

Each case runs ``nesybench`` in-process (``nesybench.cli.main``) inside a
temporary folder, under a wall-clock alarm, and checks what a user must see:

* the exit status (2 for bad input, 0 or 1 otherwise, as the case says);
* no traceback: an exception escaping ``main`` fails the case;
* no hang: a case using more than ``timeout`` CPU-seconds (or ten times that in wall time,
  for a case blocked without computing) fails as a hang; CPU time does not grow with the
  machine's load, so the guard can sit close to what a refusal should cost;
* for exit 2, exactly one ``error: ...`` line on stderr (and the case's regex, if any);
* nothing half-written: with ``out`` set, that path must not exist after a failure.

Per-instrument tables live in ``tests/<area>/test_cli_cases.py``; each builds a
list of :class:`Case` and hands it to :func:`parametrize`.  ``files`` maps a
file name (relative to the temporary folder) to its bytes, to a string, or to a
callable ``f(path)`` that writes it (e.g. a Parquet file); ``{tmp}`` in argv is
replaced by the temporary folder.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from nesybench.cli import main


@dataclass(frozen=True)
class Case:
    id: str
    argv: Sequence[str]
    exit: int = 2
    err: str | None = None  # regex the error line must match (search)
    files: dict[str, bytes | str | Callable[[Path], None]] = field(default_factory=dict)
    out: str | None = None  # a path (relative) that must not exist after a failing run
    timeout: float = 60.0  # CPU-seconds before the case counts as a hang
    stdout: str | None = None  # regex stdout must match (search), for exit-0 cases


class _Timeout(Exception):
    pass


WALL_FACTOR = 10  # the wall-time guard, for a case that blocks instead of computing


def _alarm(signum, frame):
    raise _Timeout()


def run_case(case: Case, tmp_path: Path) -> None:
    for name, content in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    previous = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, case.timeout)  # CPU time of this process
    signal.setitimer(signal.ITIMER_REAL, case.timeout * WALL_FACTOR)
    code: int | None = None
    try:
        os.chdir(tmp_path)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse usage errors and --help
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except _Timeout:
        pytest.fail(
            f"hang: {case.id} still running after {case.timeout:g} CPU-s or "
            f"{case.timeout * WALL_FACTOR:g} s (argv {argv})"
        )
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.chdir(cwd)
    stderr = err.getvalue()
    assert code == case.exit, (
        f"{case.id}: exit {code}, expected {case.exit}\nstderr: {stderr}\nstdout: "
        f"{out.getvalue()[:2000]}"
    )
    assert "Traceback" not in stderr, f"{case.id}: traceback on stderr\n{stderr}"
    if case.exit == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (
            f"{case.id}: expected one error line, got\n{stderr}"
        )
        if case.err is not None:
            assert re.search(case.err, lines[0]), (
                f"{case.id}: error line {lines[0]!r} does not match {case.err!r}"
            )
        assert "np.float64(" not in lines[0] and "np.int64(" not in lines[0], (
            f"{case.id}: numpy repr in {lines[0]!r}"
        )
    if case.stdout is not None:
        assert re.search(case.stdout, out.getvalue()), (
            f"{case.id}: stdout does not match {case.stdout!r}"
        )
    if case.out is not None and case.exit != 0:
        assert not (tmp_path / case.out).exists(), (
            f"{case.id}: {case.out} was written by a failing run"
        )
        leftovers = [p.name for p in tmp_path.rglob(".*.tmp")]
        assert not leftovers, f"{case.id}: temporary files left behind: {leftovers}"


def parametrize(cases: Sequence[Case]):
    """``@parametrize(CASES)`` on ``def test_x(case, tmp_path): run_case(case, tmp_path)``."""
    ids = [c.id for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate case ids: {duplicates}")
    return pytest.mark.parametrize("case", cases, ids=ids)
