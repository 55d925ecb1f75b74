"""A harness for tables of hostile command-line inputs.

Each case runs ``nesybench`` in-process (``nesybench.cli.main``) inside a
temporary folder, under a wall-clock alarm, and checks what a user must see:

* the exit status (2 for bad input, 0 or 1 otherwise, as the case says);
* no traceback: an exception escaping ``main`` fails the case;
* no hang: a case using more than ``timeout`` CPU-seconds (or ten times that in wall time,
  for a case blocked without computing) fails as a hang; CPU time does not grow with the
  machine's load, so the guard can sit close to what a refusal should cost;
* for exit 2, exactly one ``error: ...`` line on stderr (and the case's regex, if any);
* nothing half-written: with ``out`` set, that path must not exist after a failure;
* bounded memory: the case runs with its address space capped ``memory`` bytes above what
  the process already holds (``RLIMIT_AS``, as ``prlimit --as`` sets it), so a command
  that tries to take memory without bound fails the case (a ``MemoryError`` traceback)
  instead of swapping the machine;
* ``check(tmp)``, when given, asserts what the case leaves behind (a FIFO still a FIFO,
  an input unchanged, a file's mode); ``umask`` and ``env`` set the case's umask and
  environment variables; ``subprocess`` runs the real ``nesybench`` entry point in a child
  process under ``rlimits`` (e.g. a file-size limit) instead of in-process.

Per-instrument tables live in ``tests/<area>/test_cli_cases.py``; each builds a
list of :class:`Case` and hands it to :func:`parametrize`.  ``files`` maps a
file name (relative to the temporary folder) to its bytes, to a string, or to a
callable ``f(path)`` that writes it (e.g. a Parquet file); ``{tmp}`` in argv is
replaced by the temporary folder.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from nesybench.cli import main
from nesybench.errors import MAX_LINE

#: address space a case may take beyond what the test process holds (bytes)
DEFAULT_MEMORY = 2 << 30


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
    stderr: str | None = None  # regex the whole of stderr must match (fullmatch), exit 0
    memory: int | None = DEFAULT_MEMORY  # address-space headroom in bytes; None: no cap
    check: Callable[[Path], None] | None = None  # asserts on what the case left behind
    umask: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    subprocess: bool = False  # run `python -m nesybench.cli` in a child process
    rlimits: dict[int, int] = field(default_factory=dict)  # resource -> soft limit (child)


class _Timeout(Exception):
    pass


WALL_FACTOR = 10  # the wall-time guard, for a case that blocks instead of computing


def _alarm(signum, frame):
    raise _Timeout()


def _vm_size() -> int:
    """The process's current address space in bytes (Linux /proc; 0 when unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@contextlib.contextmanager
def _address_space_cap(headroom: int | None):
    """Cap RLIMIT_AS (soft) at the current size + ``headroom`` for the block, then restore."""
    if headroom is None or not _vm_size():
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _vm_size() + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def _environment(env: dict[str, str], umask: int | None):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    previous = os.umask(umask) if umask is not None else None
    try:
        yield
    finally:
        if previous is not None:
            os.umask(previous)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_guarded_child(
    what: str,
    cmd: list[str],
    cpu_seconds: float,
    *,
    preexec: Callable[[], None] | None = None,
    **kwargs,
) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd)`` under a hang guard: ``cpu_seconds`` of CPU time (RLIMIT_CPU,
    which does not grow with the machine's load) or :data:`WALL_FACTOR` times that in wall
    time (a child blocked without computing); either fails the test as a hang."""
    limit = math.ceil(cpu_seconds)

    def limits() -> None:
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
        if preexec is not None:
            preexec()

    try:
        done = subprocess.run(cmd, timeout=cpu_seconds * WALL_FACTOR, preexec_fn=limits, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: {what} still running after {cpu_seconds * WALL_FACTOR:g} s")
    if done.returncode == -signal.SIGXCPU:
        pytest.fail(f"hang: {what} used more than {limit} CPU-s (stopped by RLIMIT_CPU)")
    return done


def _run_child(case: Case, argv: list[str], tmp_path: Path) -> tuple[int, str, str]:
    def limits() -> None:
        for which, soft in case.rlimits.items():
            resource.setrlimit(which, (soft, resource.getrlimit(which)[1]))
        if case.umask is not None:
            os.umask(case.umask)

    done = run_guarded_child(
        f"{case.id} (argv {argv})",
        [sys.executable, "-m", "nesybench.cli", *argv],
        case.timeout,
        preexec=limits,
        cwd=tmp_path,
        env={**os.environ, **case.env},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


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
    if case.subprocess:
        code, stdout, stderr = _run_child(case, argv, tmp_path)
        _check_outcome(case, tmp_path, argv, code, stdout, stderr)
        return
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    previous = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, case.timeout)  # CPU time of this process
    signal.setitimer(signal.ITIMER_REAL, case.timeout * WALL_FACTOR)
    code: int | None = None
    try:
        os.chdir(tmp_path)
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            _environment(case.env, case.umask),
            _address_space_cap(case.memory),
        ):
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
    _check_outcome(case, tmp_path, argv, code, out.getvalue(), err.getvalue())


def _check_outcome(case: Case, tmp_path: Path, argv, code, stdout_text: str, stderr: str) -> None:
    out = io.StringIO(stdout_text)
    assert code == case.exit, (
        f"{case.id}: exit {code}, expected {case.exit}\nstderr: {stderr}\nstdout: "
        f"{out.getvalue()[:2000]}"
    )
    assert "Traceback" not in stderr, f"{case.id}: traceback on stderr\n{stderr}"
    if case.exit == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (
            f"{case.id} must be one error line, got\n{stderr}"
        )
        if case.err is not None:
            assert re.search(case.err, lines[0]), (
                f"{case.id}: error line {lines[0]!r} does not match {case.err!r}"
            )
        assert "np.float64(" not in lines[0] and "np.int64(" not in lines[0], (
            f"{case.id}: numpy repr in {lines[0]!r}"
        )
        # an echoed value (a 2 MB id) is cut: no error line runs past errors.MAX_LINE
        assert len(lines[0]) <= len("error: ") + MAX_LINE, (
            f"{case.id}: error line of {len(lines[0]):,} characters"
        )
    elif case.stderr is not None:
        assert re.fullmatch(case.stderr, stderr.strip()), (
            f"{case.id}: stderr {stderr!r} does not match {case.stderr!r}"
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
    if case.check is not None:
        case.check(tmp_path)


def parametrize(cases: Sequence[Case]):
    """``@parametrize(CASES)`` on ``def test_x(case, tmp_path): run_case(case, tmp_path)``."""
    ids = [c.id for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate case ids: {duplicates}")
    return pytest.mark.parametrize("case", cases, ids=ids)


# ---------------------------------------------------------------- the rules of every --out
class FifoReader:
    """Files-entry callable: a FIFO with a reader attached before the command runs.

    The reader collects what the command writes through the FIFO; :meth:`check` asserts
    the FIFO is still a FIFO (not replaced by a regular file) and that bytes came through.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._runs: dict[Path, tuple[threading.Thread, bytearray]] = {}

    def __call__(self, path: Path) -> None:
        os.mkfifo(path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        data = bytearray()

        def read() -> None:
            deadline, writer_seen = time.monotonic() + 120, False
            try:
                while time.monotonic() < deadline:
                    try:
                        chunk = os.read(fd, 1 << 16)
                    except BlockingIOError:  # a writer holds the FIFO open, no data yet
                        writer_seen = True
                        time.sleep(0.005)
                        continue
                    if chunk:
                        data.extend(chunk)
                        writer_seen = True
                    elif writer_seen:
                        return  # the writer closed: end of the output
                    else:
                        time.sleep(0.005)
            finally:
                os.close(fd)

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        self._runs[path] = (thread, data)

    def check(self, tmp: Path) -> None:
        path = tmp / self.name
        thread, data = self._runs.pop(path)
        thread.join(30)
        assert not thread.is_alive(), f"{path}: the FIFO's reader got no end of output"
        assert stat.S_ISFIFO(os.lstat(path).st_mode), f"{path}: the FIFO was replaced"
        assert data, f"{path}: nothing came through the FIFO"


NULL_DEVICE = (1, 3)  # major, minor of the null device: a twin of /dev/null made in tmp


def char_device(path: Path) -> None:
    """Files-entry callable: a character device (the null device's twin) in the case folder.

    Made in the temporary folder, never /dev itself: if a write replaced it, only this
    twin would be lost.  Needs root (CAP_MKNOD); elsewhere the case is skipped.
    """
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(*NULL_DEVICE))
    except PermissionError:
        pytest.skip("making a device node needs root")


def _is_char_device(name: str) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        st = os.lstat(tmp / name)
        assert stat.S_ISCHR(st.st_mode), f"{name}: the device was replaced by a regular file"
        assert (os.major(st.st_rdev), os.minor(st.st_rdev)) == NULL_DEVICE

    return check


def _materialize(content, path: Path) -> bytes:
    """The bytes a files entry writes (callables write a scratch copy)."""
    if callable(content):
        scratch = path.with_name(f".expected-{path.name}")
        content(scratch)
        data = scratch.read_bytes()
        scratch.unlink()
        return data
    return content if isinstance(content, bytes) else content.encode("utf-8")


def _unchanged(name: str, content) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        path = tmp / name
        assert path.is_file() and not path.is_symlink(), f"{name}: the input was replaced"
        assert path.read_bytes() == _materialize(content, tmp / name), f"{name}: input changed"

    return check


def _symlink(target: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.symlink_to(target)

    return make


def _hard_link(target: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        os.link(path.parent / target, path)

    return make


def _written_through_link(link: str, target: str) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        assert (tmp / link).is_symlink(), f"{link}: the symbolic link was replaced"
        data = (tmp / target).read_bytes()
        assert data and data != b"old", f"{target}: the link's target was not written"

    return check


def _mode(name: str, mode: int) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        got = stat.S_IMODE(os.stat(tmp / name).st_mode)
        assert got == mode, f"{name}: mode {got:o}, expected {mode:o} from the umask"

    return check


def _old_private(path: Path) -> None:
    path.write_bytes(b"old")
    path.chmod(0o600)


def out_rule_cases(
    prefix: str,
    argv: Sequence[str],
    files: dict,
    *,
    inputs: Sequence[str],
    flag: str = "--out",
    timeout: float = 60.0,
) -> list[Case]:
    """The write rules as rows for one command that writes ``flag`` (argv holds ``OUT``).

    A device or FIFO is written through, never replaced; an output that is one of
    ``inputs`` (the path itself, a symbolic link or a hard link to it) is refused and the
    input left as it was; a symbolic link is followed; the file gets the umask's mode,
    also when it replaces an older private file.
    """

    def at(out: str) -> list[str]:
        return [out if a == "OUT" else a for a in argv]

    fifo = FifoReader("sink")
    first = inputs[0]
    keep = _unchanged(first, files[first])
    cases = [
        Case(f"{prefix}-out-fifo", at("sink"), exit=0, files={**files, "sink": fifo},
             check=fifo.check, timeout=timeout),
        Case(f"{prefix}-out-char-device", at("dev"), exit=0, files={**files, "dev": char_device},
             check=_is_char_device("dev"), timeout=timeout),
        Case(f"{prefix}-out-symlink-written-through", at("link.out"), exit=0,
             files={**files, "real.out": b"old", "link.out": _symlink("real.out")},
             check=_written_through_link("link.out", "real.out"), timeout=timeout),
        Case(f"{prefix}-out-mode-umask-022", at("new.out"), exit=0, files=files, umask=0o022,
             check=_mode("new.out", 0o644), timeout=timeout),
        Case(f"{prefix}-out-mode-umask-077", at("new.out"), exit=0, files=files, umask=0o077,
             check=_mode("new.out", 0o600), timeout=timeout),
        Case(f"{prefix}-out-replaces-private-file-with-umask-mode", at("old.out"), exit=0,
             files={**files, "old.out": _old_private}, umask=0o022,
             check=_mode("old.out", 0o644), timeout=timeout),
        Case(f"{prefix}-out-links-to-the-input", at("alias"),
             err=rf"{flag} alias: is the input {re.escape(first)}",
             files={**files, "alias": _symlink(first)}, check=keep),
        Case(f"{prefix}-out-hard-link-to-the-input", at("twin"),
             err=rf"{flag} twin: is the input {re.escape(first)}",
             files={**files, "twin": _hard_link(first)}, check=keep),
    ]  # fmt: skip
    for name in inputs:
        cases.append(
            Case(
                f"{prefix}-out-is-the-input-{name.replace('.', '-')}",
                at(name),
                err=rf"{flag} {re.escape(name)}: is the input {re.escape(name)}; writing it "
                "would destroy the input",
                files=files,
                check=_unchanged(name, files[name]),
            )
        )
    return cases
