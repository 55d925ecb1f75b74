"""Per-job CPU of a Snakemake run, and the wall time it would take on idle cores.

:func:`job_shim` puts a ``python`` first on the run's PATH that runs the real interpreter and
appends the child's CPU seconds (user + system, from ``wait4``) and its command line to a log:
every rule runs ``python stages/<stage>.py ...``, so every job is measured, on a loaded machine
too (CPU seconds, unlike wall seconds, do not grow much with other people's load).

:func:`dag_jobs` reads the run's DAG (each job's command, inputs and outputs, through
``nesybench.dvc_export.snakemake_jobs`` under the tree's own sources) and :func:`makespan`
schedules the measured jobs on ``cores`` idle cores (list scheduling, longest remaining path
first, as a good scheduler would): the estimate of the run's wall time on an idle machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from . import tree_env

SHIM = """#!{python}
import os, sys
pid = os.posix_spawn({python!r}, [{python!r}, *sys.argv[1:]], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(os.environ["NESYBENCH_JOB_LOG"], "a") as log:
    log.write("%.4f\\t%s\\n" % (usage.ru_utime + usage.ru_stime, " ".join(sys.argv[1:])))
sys.exit(os.waitstatus_to_exitcode(status))
"""


STAND_IN = """#!{python}
import json, os, sys
from pathlib import Path
if not sys.argv[1:2] or not sys.argv[1].startswith("stages/"):
    os.execv({python!r}, [{python!r}, *sys.argv[1:]])
outs = json.loads(Path(os.environ["NESYBENCH_STAND_IN_OUTS"]).read_text())
for out in outs[" ".join(sys.argv[1:])]:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir(exist_ok=True) if not path.suffix else path.write_bytes(b"")
"""


def stand_in_shim(folder: Path, dag: list[dict]) -> tuple[Path, Path]:
    """A ``python`` that, for a stage job, only creates the job's outputs (empty files, or a
    folder for a suffix-less output) as ``dag`` lists them: a run with it first on PATH
    measures Snakemake's own cost on the DAG. Returns (folder, outputs file); export the
    outputs file as ``NESYBENCH_STAND_IN_OUTS``."""
    folder.mkdir(parents=True, exist_ok=True)
    outs = folder / "outs.json"
    outs.write_text(json.dumps({j["cmd"].removeprefix("python ").strip(): j["outs"] for j in dag}))
    shim = folder / "python"
    shim.write_text(STAND_IN.format(python=sys.executable))
    shim.chmod(0o755)
    return folder, outs


def job_shim(folder: Path) -> Path:
    """A folder holding the measuring ``python`` (put it first on PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python"
    shim.write_text(SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    return folder


def run_measured(cmd: list[str], tree: Path, shim: Path, log: Path) -> dict:
    """Run ``cmd`` in ``tree`` with the shim: wall and CPU seconds of the whole run (the
    command and every child it waited for) and each job's CPU seconds by command line."""
    import time

    env = tree_env(tree)
    env["PATH"] = f"{shim}{os.pathsep}{env['PATH']}"
    env["NESYBENCH_JOB_LOG"] = str(log)
    log.unlink(missing_ok=True)
    loads: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_load, args=(loads, stop), daemon=True)
    cpu_before, started = children_cpu(), time.perf_counter()
    sampler.start()
    proc = subprocess.run(
        cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu_before
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {tree}:\n{proc.stdout[-3000:]}")
    jobs: dict[str, float] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            seconds, command = line.split("\t", 1)
            jobs[command] = jobs.get(command, 0.0) + float(seconds)
    load = {"load_mean": sum(loads) / len(loads), "load_max": max(loads)}
    return {"wall": wall, "cpu": cpu, "jobs": jobs, "output": proc.stdout, **load}


def _sample_load(loads: list[float], stop: threading.Event, every: float = 10.0) -> None:
    """The 1-minute load average at the start and every ``every`` s until ``stop``: how
    shared the machine was while the run's wall was measured."""
    loads.append(os.getloadavg()[0])
    while not stop.wait(every):
        loads.append(os.getloadavg()[0])


def children_cpu() -> float:
    """CPU seconds of every child this process has waited for so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


DAG_SNIPPET = r"""
import json, sys
from pathlib import Path
from nesybench.dvc_export import snakemake_jobs
jobs, _ = snakemake_jobs(Path("."))
print(json.dumps([{"rule": j["rule"], "cmd": j["cmd"], "deps": j["deps"], "outs": j["outs"]}
                  for j in jobs]))
"""


def dag_jobs(tree: Path) -> list[dict]:
    """Every job of a full run of ``tree``: rule, command (as the shim logs it), inputs, outputs."""
    proc = subprocess.run(
        [sys.executable, "-c", DAG_SNIPPET], cwd=tree, env=tree_env(tree), capture_output=True,
        text=True,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"reading the DAG of {tree} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def job_cpu(dag: list[dict], measured: dict[str, float]) -> list[float]:
    """Each DAG job's measured CPU seconds (its command without the leading ``python``)."""
    return [measured.get(job["cmd"].removeprefix("python ").strip(), 0.0) for job in dag]


def makespan(dag: list[dict], seconds: list[float], cores: int) -> tuple[float, float]:
    """(wall on ``cores`` idle cores by list scheduling, critical path) for jobs of ``seconds``."""
    producer = {out: i for i, job in enumerate(dag) for out in job["outs"]}
    deps = [{producer[d] for d in job["deps"] if d in producer} - {i} for i, job in enumerate(dag)]
    children: list[list[int]] = [[] for _ in dag]
    for i, ds in enumerate(deps):
        for d in ds:
            children[d].append(i)
    order = _topological(deps)
    tail = [0.0] * len(dag)  # longest path from a job's start to the end
    for i in reversed(order):
        tail[i] = seconds[i] + max((tail[c] for c in children[i]), default=0.0)
    waiting = [len(ds) for ds in deps]
    ready = [i for i in range(len(dag)) if not waiting[i]]
    free = [0.0] * cores
    done_at = [0.0] * len(dag)
    earliest = [0.0] * len(dag)
    while ready:
        ready.sort(key=lambda i: -tail[i])
        i = ready.pop(0)
        core = min(range(cores), key=free.__getitem__)
        start = max(free[core], earliest[i])
        done_at[i] = free[core] = start + seconds[i]
        for c in children[i]:
            earliest[c] = max(earliest[c], done_at[i])
            waiting[c] -= 1
            if not waiting[c]:
                ready.append(c)
    return max(done_at, default=0.0), max(tail, default=0.0)


def _topological(deps: list[set[int]]) -> list[int]:
    order, seen = [], set()

    def visit(i: int) -> None:
        stack = [(i, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            stack.extend((d, False) for d in deps[node] if d not in seen)

    for i in range(len(deps)):
        visit(i)
    return order
