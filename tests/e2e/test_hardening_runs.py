"""The pipeline under hostile runs: kills, interrupts, two runners at once, stale params,
growing seed counts, leftover temporary files, edited sources.

Each test copies the session's shared finished run of the tiny profile (``copy``, in
conftest.py), runs Snakemake on it the way a researcher would and checks the bytes and the
reruns: a killed or interrupted run resumes to the same bytes, a second runner stops without
damage, a new params value reruns exactly its jobs, and an edited source file reruns exactly the
jobs that import it.  The bad-input half is tests/e2e/test_hardening.py (two files, so the two
test workers share them).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from nesybench.workflow_code import STAMP_DIR, stamped

from .conftest import (
    HANG_SECONDS,
    artifact_hashes,
    env,
    job_counts,
    one_error_line,
    run,
    snakemake_in,
    wait_or_hang,
)

pytestmark = pytest.mark.slow

# A forced rerun of one instrument's seeded chain (its seeds, their gathers and the report):
# long enough to interrupt mid-way, a fraction of a full run.
FORCED = ("--forcerun", "calibration_generate_seed")
PROGRESS = re.compile(r"^(\d+) of (\d+) steps", re.M)


def _start(root: Path, log: Path, *args: str) -> subprocess.Popen:
    """A Snakemake run in the background, in its own process group, logging to ``log``."""
    with open(log, "w") as sink:
        return subprocess.Popen(
            ["snakemake", "--cores", "2", *args],
            cwd=root,
            env=env(),
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _await(proc: subprocess.Popen, log: Path, what: str, pattern: re.Pattern) -> re.Match:
    """Wait until the run's log shows ``pattern`` (a hang guard, never a time limit)."""
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        found = pattern.search(log.read_text())
        if found:
            return found
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {what}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"hang: no {what} after {HANG_SECONDS} s")


def _first_job_done(proc: subprocess.Popen, log: Path) -> None:
    found = _await(proc, log, "finished job", PROGRESS)
    assert int(found.group(1)) < int(found.group(2)), "the run finished before the signal"


def test_a_killed_run_resumes_to_the_same_bytes(copy, tmp_path):
    root, hashes = copy
    log = tmp_path / "run.log"
    proc = _start(root, log, *FORCED)
    _first_job_done(proc, log)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its running jobs, mid-write
    proc.wait()
    run(["snakemake", "--unlock"], root)
    resumed = snakemake_in(root, "--rerun-incomplete")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert artifact_hashes(root) == hashes
    assert not list((root / "data").rglob(".*.tmp")), "temporary files left behind"


def test_an_interrupted_run_resumes_to_the_same_bytes(copy, tmp_path):
    root, hashes = copy
    log = tmp_path / "run.log"
    proc = _start(root, log, *FORCED)
    _first_job_done(proc, log)
    proc.send_signal(signal.SIGINT)  # Ctrl-C: snakemake stops its jobs and exits
    wait_or_hang(proc, "snakemake after SIGINT")
    resumed = snakemake_in(root, "--rerun-incomplete")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert artifact_hashes(root) == hashes


def test_a_second_run_in_the_same_folder_stops_and_damages_nothing(copy, tmp_path):
    """Snakemake's own lock stops a second Snakemake; `dvc repro` stops in its validate stage
    while Snakemake runs, before it deletes anything; the first run then finishes, and a plain
    rerun gives the same bytes.  The first run is frozen (SIGSTOP) while the others try, so
    the overlap does not depend on how fast the machine is."""
    root, hashes = copy
    log = tmp_path / "first.log"
    first = _start(root, log, *FORCED)
    _await(first, log, "a started job", re.compile(r"^(local)?rule \w+:", re.M))
    os.killpg(first.pid, signal.SIGSTOP)
    try:
        second = snakemake_in(root, "--forceall")
        assert second.returncode != 0
        refusal = second.stdout + second.stderr
        assert "LockException" in refusal, refusal[-2000:]
        third = run(["dvc", "repro"], root, check=False)
        assert third.returncode != 0
        assert "snakemake is running in this project" in third.stdout + third.stderr
        # Snakemake itself clears the outputs of the jobs it has started (frozen mid-job)
        started = {
            path.strip()
            for line in log.read_text().splitlines()
            if line.strip().startswith("output:")
            for path in line.split(":", 1)[1].split(",")
        }
        missing = [
            k
            for k in hashes
            if k.startswith("data/") and not (root / k).exists() and k not in started
        ]
        assert not missing, f"dvc repro deleted outputs while snakemake ran: {missing[:5]}"
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert wait_or_hang(first, "the first snakemake run") == 0, log.read_text()[-3000:]
    final = snakemake_in(root)
    assert final.returncode == 0, final.stderr[-3000:]
    assert artifact_hashes(root) == hashes


def test_snakemake_refuses_to_start_while_dvc_holds_its_lock(copy):
    import fcntl

    root, _ = copy
    lock = root / ".dvc" / "tmp" / "lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # what `dvc repro` holds
        line = one_error_line(snakemake_in(root, "-n"))
    assert "dvc is running in this project" in line


def test_a_new_params_value_reruns_its_jobs_and_never_leaves_a_stale_report(copy):
    """A value the schema allows must reach its wildcard jobs (1e-05 once did not)."""
    root, _ = copy
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["shortcuts"]["incidence"]["support_fracs"] = [1.0, 0.75, 0.00001]
    # an incidence fraction must be one the count stage certifies (checked at load time)
    params["shortcuts"]["support_fracs"] = [1.0, 0.75, 0.5, 0.00001]
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    dry = snakemake_in(root, "-n")
    assert dry.returncode == 0, dry.stderr[-3000:]
    jobs = job_counts(dry.stdout)
    # the jobs that read the incidence supports rerun, and so does the report
    assert "report" in jobs and any(name.startswith("shortcuts_train") for name in jobs), jobs


def test_the_report_refuses_artifacts_made_with_other_params(copy):
    root, _ = copy
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["calibration"]["bootstrap"]["resamples"] = 300  # only the aggregate reads it
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    proc = run(
        ["python", "stages/report.py", "report", "--arg", "instruments=calibration"],
        root,
        check=False,
    )
    line = one_error_line(proc)
    assert "made with other params" in line and "calibration calibrate aggregate" in line
    # the jobs that do not read calibration.bootstrap are not stale
    assert "seed-" not in line


def test_growing_n_seeds_runs_only_the_new_seeds_and_the_aggregates(copy):
    root, _ = copy
    params = yaml.safe_load((root / "params.yaml").read_text())
    n = params["calibration"]["n_seeds"]
    params["calibration"]["n_seeds"] = n + 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    dry = snakemake_in(root, "-n")
    assert dry.returncode == 0, dry.stderr
    counts = {k: v for k, v in job_counts(dry.stdout).items() if k.startswith("calibration")}
    # the new seed's four jobs and its one variant per knob level, then the jobs that
    # gather over seeds
    params_knobs = params["calibration"]["knobs"]
    n_levels = sum(len(knob.get("levels", [])) for knob in params_knobs.values())
    assert counts == {
        "calibration_generate_seed": 1,
        "calibration_train_seed": 1,
        "calibration_score_seed": 1,
        "calibration_calibrate_seed": 1,
        "calibration_calibrate_variant": n_levels,
        "calibration_count": 1,
        "calibration_calibrate_aggregate": 1,
        "calibration_calibrate_sensitivity": 1,
    }, dry.stdout


def test_stale_temporary_files_are_removed_when_a_job_starts(copy):
    root, hashes = copy
    stray = root / "data/count/calibration/.class_mix.parquet.abc123.tmp"
    stray.write_bytes(b"half")
    run(["python", "stages/count.py", "calibration"], root)
    assert not stray.exists()
    assert artifact_hashes(root) == hashes


def _rule_code_inputs(root: Path) -> dict[str, set[str]]:
    """rule -> its code inputs, from each rule's `code=code(stage, instrument)` declaration."""
    import re

    from nesybench.workflow_code import code_inputs

    rules = {}
    for path in sorted((root / "workflow" / "rules").glob("*.smk")):
        text = path.read_text()
        for m in re.finditer(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", text, re.S | re.M):
            code = re.search(r'code=code\("(\w+)", "(\w+)"\)', m.group(2))
            if code:
                rules[m.group(1)] = set(code_inputs(*code.groups(), str(root)))
    return rules


def _dry_run_jobs(root: Path, *flags: str) -> list[tuple[str, str]]:
    """(rule, reason) of every job a dry run would run."""
    dry = snakemake_in(root, "-n", *flags)
    assert dry.returncode == 0, dry.stderr[-3000:]
    jobs, rule = [], None
    for line in dry.stdout.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("reason:") and rule:
            jobs.append((rule, line.strip()))
            rule = None
    return jobs


@pytest.mark.parametrize(
    "source",
    [
        "src/nesybench/calibration/audit.py",  # the calibration jobs that import it
        "src/nesybench/reasoning/chainer.py",  # imported by two instruments
        "src/nesybench/report/render.py",  # the report alone
        "src/nesybench/cli.py",  # no job runs the CLI
    ],
)
def test_editing_a_source_file_reruns_exactly_the_jobs_that_import_it(copy, source):
    root, _ = copy
    rules = _rule_code_inputs(root)
    # a rule whose params declare no instance here (a variant rule without levels) has no job
    in_dag = {rule for rule, _ in _dry_run_jobs(root, "--forceall")}
    importers = {rule for rule, files in rules.items() if source in files and rule in in_dag}
    path = root / source
    original = path.read_text()
    path.write_text(original + "\n# an edit\n")
    jobs = _dry_run_jobs(root)
    # a rule's code input is the stamp of its code set (nesybench.workflow_code.code_stamp)
    stamps = [
        str(stamp.relative_to(root))
        for stamp in sorted((root / STAMP_DIR).glob("*.sha256"))
        if source in stamped(str(stamp.relative_to(root)), str(root))
    ]
    assert bool(stamps) == bool(importers), (stamps, importers)
    direct = {
        rule
        for rule, reason in jobs
        if "Updated input files:" in reason and any(s in reason for s in stamps)
    }
    ran = {rule for rule, _ in jobs}
    # every job of a rule that imports the file reruns, and no other job reruns for the file;
    # what else reruns consumes their outputs
    # (Snakemake names one reason per job: an importer downstream of another importer is
    # "updated by another job")
    assert importers <= ran and direct <= importers, (importers, direct, ran)
    assert bool(direct) == bool(importers), (importers, direct)
    assert all(
        rule in importers or "Input files updated by another job" in reason
        for rule, reason in jobs
        if rule != "all"
    ), jobs
    if not importers:
        assert jobs == [], jobs
    # the edit undone: the same bytes as the recorded checksum, nothing to rerun
    path.write_text(original)
    assert _dry_run_jobs(root) == []
