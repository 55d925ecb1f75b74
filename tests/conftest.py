"""Shared pytest set-up."""

from hypothesis import settings

# Property tests explore with a fixed seed so that a run is reproducible (and CI
# is not flaky); `HYPOTHESIS_PROFILE=explore pytest` searches with fresh randomness.
settings.register_profile("default", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "default"))


# ---- CPU time per test (`pytest --cpu-durations=N`) ----------------------------------------
# Wall-clock durations depend on how loaded the machine is; CPU time (this process and the
# subprocesses it waited for) does not, so the suite's budget is reasoned about in CPU time.
# With xdist, each worker reports its own tests; the terminal summary lists the slowest N.

import os  # noqa: E402

import pytest  # noqa: E402


def pytest_addoption(parser):
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="list the N tests that used the most CPU time (process + waited-for children)",
    )


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


_CPU_START = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if item.config.getoption("--cpu-durations") is not None:
        item.stash[_CPU_START] = _cpu()  # before the test's fixtures are set up


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "teardown" and _CPU_START in item.stash:
        # carried by the report, so xdist workers' numbers reach the controller
        report.user_properties.append(("cpu_seconds", _cpu() - item.stash[_CPU_START]))
    return report


def pytest_runtest_logreport(report):
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "cpu_seconds":
                _CONTROLLER_CPU.append((value, report.nodeid))


_CONTROLLER_CPU: list[tuple[float, str]] = []


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--cpu-durations")
    if n is None or not _CONTROLLER_CPU:
        return
    rows = sorted(_CONTROLLER_CPU, reverse=True)
    total = sum(cpu for cpu, _ in rows)
    terminalreporter.write_sep("=", f"CPU time per test: {total:.0f} CPU-s in all, slowest {n}")
    for cpu, nodeid in rows[:n]:
        terminalreporter.write_line(f"{cpu:9.1f} CPU-s  {nodeid}")
