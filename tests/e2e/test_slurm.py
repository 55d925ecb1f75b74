"""End-to-end on a real SLURM cluster: a single-node cluster on localhost (Debian packages, brought
up by workflow/scripts/local_slurm.sh), the pipeline submitted through the slurm profile.

Needs root and apt (the script installs slurmctld, slurmd, slurm-client and munge if missing), so
it runs only with NESYBENCH_SLURM=1; `.ci/run` runs it as its own step after `make test`:

    NESYBENCH_SLURM=1 pytest tests/e2e/test_slurm.py
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import ROOT, artifact_hashes, env, make_workspace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.slurm,
    pytest.mark.skipif(
        os.environ.get("NESYBENCH_SLURM") != "1",
        reason="brings up a local SLURM cluster as root; set NESYBENCH_SLURM=1 to run",
    ),
]

SCRIPT = ROOT / "workflow" / "scripts" / "local_slurm.sh"
# The plugin's first status query comes this many seconds after a submission. Without an
# accounting database it must poll with squeue, which sees a finished job for MinJobAge seconds:
# MinJobAge has to be at least 3x this (the plugin falls back to sacct otherwise).
INIT_STATUS_DELAY = 3
# A stuck status loop must not hang CI: the whole run is killed after this many seconds.
RUN_TIMEOUT = 1200
SLURM_RUN = [
    "timeout",
    "-k",
    "30",
    str(RUN_TIMEOUT),
    "snakemake",
    "--profile",
    "workflow/profiles/slurm",
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    str(INIT_STATUS_DELAY),
]


def script(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), command], env=env(), capture_output=True, text=True, timeout=600
    )


def snakemake_on_slurm(root: Path, *targets: str) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [*SLURM_RUN, *targets], cwd=root, env=env(), capture_output=True, text=True
    )
    elapsed = time.monotonic() - start
    (root / "slurm-run.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode not in (124, 137), (
        f"hang: snakemake on SLURM still running after {RUN_TIMEOUT} s (killed by timeout)"
    )
    print(f"snakemake on SLURM ({' '.join(targets) or 'all'}): {elapsed:.0f} s")
    return proc, elapsed


def tail(proc: subprocess.CompletedProcess, n: int = 60) -> str:
    return "\n".join((proc.stdout + proc.stderr).splitlines()[-n:])


@pytest.fixture(scope="module")
def cluster():
    """A running single-node cluster; torn down afterwards whatever the tests did."""
    start = time.monotonic()
    up = script("up")
    assert up.returncode == 0, f"local_slurm.sh up failed:\n{up.stdout}{up.stderr}"
    print(f"local_slurm.sh up: {time.monotonic() - start:.0f} s")
    try:
        yield
    finally:
        down = script("down")
        assert down.returncode == 0, f"local_slurm.sh down failed:\n{down.stdout}{down.stderr}"


def test_local_cluster_is_up_with_a_min_job_age_squeue_polling_can_use(cluster):
    status = script("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "is UP" in status.stdout
    assert re.search(r"\bidle\b", status.stdout)
    config = subprocess.run(
        ["scontrol", "show", "config"], capture_output=True, text=True, check=True
    ).stdout
    min_job_age = int(re.search(r"^MinJobAge\s*=\s*(\d+)", config, re.M).group(1))
    assert min_job_age >= 3 * 40  # the plugin's default initial delay, as a real run uses
    assert min_job_age >= 3 * INIT_STATUS_DELAY


def test_pipeline_on_slurm_is_byte_identical_to_a_local_run(cluster, shared_run, tmp_path):
    _, local_hashes = shared_run
    root = make_workspace(tmp_path)
    proc, _ = snakemake_on_slurm(root)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"snakemake on SLURM exited {proc.returncode}:\n{tail(proc)}"
    # Every job went through sbatch, and the plugin polled with squeue (no accounting here).
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", log)
    jobs = re.search(r"(\d+) of (\d+) steps \(100%\) done", log)
    assert jobs, tail(proc)
    assert len(submitted) == int(jobs.group(2)) - 1  # all but the local target rule `all`
    assert "Falling back to 'sacct'" not in log
    slurm_hashes = artifact_hashes(root)
    differing = sorted(
        k
        for k in set(local_hashes) | set(slurm_hashes)
        if local_hashes.get(k) != slurm_hashes.get(k)
    )
    assert not differing, f"artifacts differ between the local and the SLURM run: {differing}"
    assert len(slurm_hashes) > 50


def test_rule_failing_inside_a_slurm_job_fails_the_run_naming_the_rule(cluster, tmp_path):
    root = make_workspace(tmp_path)
    # Break one stage of this throw-away copy: the job starts on the node and exits 1 there.
    stage = root / "stages" / "generate.py"
    stage.write_text(
        stage.read_text().replace(
            'if __name__ == "__main__":',
            'if __name__ == "__main__":\n    sys.exit("deliberate failure inside the SLURM job")',
        )
    )
    # nli_count gathers the per-seed nli_generate_seed jobs, each of which fails on its node.
    proc, _ = snakemake_on_slurm(root, "nli_count")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, tail(proc)
    assert "Error in rule nli_generate_seed" in log, tail(proc)
    failed = re.search(r"SLURM-job '(\d+)' failed, SLURM status is: '(\w+)'", log)
    assert failed and failed.group(2) == "FAILED", tail(proc)
    # The job's SLURM log (one folder per wildcard value) is kept and holds the stage's message.
    logs = list((root / ".snakemake" / "slurm_logs" / "rule_nli_generate_seed").rglob("*.log"))
    assert logs and "deliberate failure inside the SLURM job" in logs[0].read_text()
    assert not [p for p in root.glob("data/**/*") if p.is_file()]
