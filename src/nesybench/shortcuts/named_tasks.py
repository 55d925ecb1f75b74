"""The named tasks on the command line: ``nesybench tasks``, and ``--task`` of ``count`` and
``plan-supervision`` (with ``--export-knowledge`` / ``--export-support``).

The tasks themselves, their knowledge read from rsbench's code, live in
:mod:`nesybench.counting.tasks`; this module parses, calls and prints.
"""

from __future__ import annotations

import argparse
import time

from ..cli_args import add_command, add_json, check_out, examples, write_out
from ..errors import InputError
from ..io import csv_bytes, dumps_json
from .cli import _memory_bytes, count_options

TASKS_EXAMPLE = """
Each task's knowledge and training support are read from rsbench's code
(github:unitn-sml/rsbench-code); `source` names the file and function, `support` says
where the support comes from (a free choice where the code leaves it to data files).

""" + examples(
    "nesybench tasks",
    "nesybench tasks rsbench/sdd-oia            # every concept of one task",
    "nesybench tasks --json",
    "nesybench count --task rsbench/mnadd-evenodd --extractor shared        # 36",
    "nesybench count --task rsbench/sdd-oia --extractor disentangled --json",
    "nesybench count --task rsbench/xor --export-knowledge k.csv --export-support s.csv",
    "nesybench plan-supervision --task rsbench/mnadd-evenodd --budget 4",
)


def register(subparsers) -> None:
    parser = add_command(
        subparsers,
        "tasks",
        help="list the named tasks (rsbench's, knowledge read from its code): concepts, "
        "outputs, states, sources",
        description="The named tasks `count --task` and `plan-supervision --task` take.",
        epilog=TASKS_EXAMPLE,
    )
    parser.add_argument(
        "name", nargs="?", metavar="NAME", help="show one task in full (every concept)"
    )
    add_json(parser, help="print JSON records instead of text")
    parser.set_defaults(func=run_tasks)


# ---- nesybench tasks ----------------------------------------------------------------------


def _values(values: tuple[str, ...]) -> str:
    if values == tuple(str(v) for v in range(len(values))):
        return f"0-{len(values) - 1}"
    return "{" + ", ".join(values) + "}"


def _concept_groups(task) -> str:
    """Runs of concepts with the same values: ``digit_1..digit_8 in 0-9``."""
    groups, start = [], 0
    concepts = task.concepts
    for j in range(1, len(concepts) + 1):
        if j == len(concepts) or concepts[j].values != concepts[start].values:
            first, last = concepts[start].name, concepts[j - 1].name
            names = first if j - 1 == start else f"{first}..{last}"
            groups.append(f"{names} in {_values(concepts[start].values)}")
            start = j
    return "; ".join(groups)


def _domain_powers(domains) -> str:
    """Domain sizes as powers, in order of first appearance: ``(2, 3, 2, 3) -> 2^2 x 3^2``."""
    sizes = list(dict.fromkeys(domains))
    return " x ".join(f"{d}^{list(domains).count(d)}" for d in sizes)


def _record(task) -> dict:
    return {
        "name": task.name,
        "title": task.title,
        "concepts": [{"name": c.name, "values": list(c.values)} for c in task.concepts],
        "domains": list(task.domains),
        "outputs": list(task.outputs),
        "n_states": task.n_states,
        "n_observed": task.n_observed,
        "support": task.support_note,
        "source": task.source,
        "published": None
        if task.published is None
        else {"value": task.published[0], "where": task.published[1]},
    }


def run_tasks(args: argparse.Namespace) -> int:
    from ..counting.tasks import TASKS, get_task

    tasks = [get_task(args.name)] if args.name else list(TASKS.values())
    if args.json:
        print(dumps_json([_record(t) for t in tasks]), end="")
        return 0
    if args.name:
        task = tasks[0]
        print(f"{task.name} ({task.title}): {task.k} concepts, {task.n_states:,} states")
        for j, c in enumerate(task.concepts, start=1):
            print(f"  c{j:<3} {c.name:<24} {_values(c.values)}")
        print(f"  outputs: {', '.join(task.outputs)}")
        print(f"  support: {task.n_observed:,} states; {task.support_note}")
        print(f"  source:  {task.source}")
        return 0
    import pandas as pd

    from ..console import print_table

    rows = [
        {
            "task": t.name,
            "concepts": f"{t.k} ({_domain_powers(t.domains)})",
            "outputs": ", ".join(t.outputs),
            "states": f"{t.n_states:,}",
            "observed": f"{t.n_observed:,}",
            "source in rsbench-code": t.source.split(":")[0].split(",")[0],
        }
        for t in tasks
    ]
    print_table("named tasks (nesybench tasks NAME for one in full)", pd.DataFrame(rows))
    return 0


# ---- count --task / plan-supervision --task -------------------------------------------------


def check_task_arguments(args: argparse.Namespace) -> None:
    """Options that do not combine with ``--task`` (a task brings its own concepts)."""
    for option, value in (("--k", args.k), ("--domains", args.domains)):
        if value is not None:
            raise InputError(f"{option}: a named task brings its own concepts; leave it out")


def _support_of(args, task) -> list[str] | None:
    """The support the arguments give (None: the task's own)."""
    from ..counting import support_states
    from .cli import _csv_states, _support_file

    if args.support is not None:
        states = _csv_states(args.support)
        if not states:
            raise InputError("--support must be at least one state, got ''")
        return states
    if args.support_file is not None:
        return _support_file(args.support_file, task.domains)
    if args.support_frac is not None:
        return list(support_states(task.domains, args.support_frac, seed=args.seed))
    return None


def _engine_route(args) -> bool:
    """Whether an engine option asks for the listed task and ``count_optima`` instead."""
    return args.method != "auto" or args.fixed_permutation or bool(args.dimacs)


def run_named_count(args: argparse.Namespace) -> int:
    from ..counting.tasks import count_task, get_task

    check_task_arguments(args)
    task = get_task(args.task)
    for option, path in (
        ("--export-knowledge", args.export_knowledge),
        ("--export-support", args.export_support),
    ):
        check_out(path, inputs=[args.support_file], flag=option)
    support = _support_of(args, task)
    supervised = _supervised(args)
    started = time.perf_counter()
    if _engine_route(args):
        result = _count_listed(args, task, support, supervised)
    else:
        result = count_task(
            task,
            args.extractor,
            support=support,
            supervised=supervised,
            max_subproblems=args.max_subproblems,
            max_memory=_memory_bytes(args),
        )
    seconds = time.perf_counter() - started
    _write_exports(args, task, support)
    record = count_record(task, result, support)
    if args.json:
        print(dumps_json(record), end="")
        return 0
    _print_named_count(task, result, record, seconds)
    return 0


def _supervised(args) -> list[str]:
    from .cli import _csv_states

    return _csv_states(args.supervised)


def _count_listed(args, task, support, supervised):
    """The task listed as a knowledge table and counted by ``count_optima`` (engine options)."""
    from ..counting import CountingTask, count_optima

    if task.n_states > 2**22:
        raise InputError(
            f"--method/--fixed-permutation/--dimacs: {task.name} has {task.n_states:,} states, "
            "too many to list as a table; use the default method (its structure)"
        )
    if args.dimacs:
        raise InputError(
            "--dimacs: DIMACS encodings exist for binary xor/CNF knowledge only; a named task "
            "is a label table"
        )
    if support is None:
        rows = task.support_rows()
        support = None if rows is None else [_state(r, task) for r in rows]
    listed = CountingTask(
        task.knowledge(), None if support is None else tuple(support), tuple(supervised)
    )
    return count_optima(listed, **count_options(args))


def _state(row, task) -> str:
    from ..logic.states import state_str

    return state_str(row, task.domains)


LISTED_SUPPORT_MAX = 2**16  # a JSON record lists the observed states up to this many


def count_record(task, result, support) -> dict:
    """The ``count --task --json`` record: the engine's keys plus the task, the exact factors
    of a count too long to write out, and the observed states when few."""
    record = result.to_json()
    n_observed = len(support) if support is not None else task.n_observed
    observed = None
    if n_observed <= LISTED_SUPPORT_MAX:
        if support is not None:
            from ..logic.states import parse_states

            observed = sorted(parse_states(support, task.domains), key=lambda s: _index(s, task))
        else:
            rows = task.support_rows()
            if rows is None and task.n_states <= LISTED_SUPPORT_MAX:
                from ..logic.states import all_states

                rows = all_states(task.domains)
            observed = None if rows is None else [_state(r, task) for r in rows]
    record.update(
        {
            "task": task.name,
            "n_states": task.n_states,
            "n_observed": n_observed,
            "support": observed,
            "n_opt_factors": [[int(b), int(e)] for b, e in result.factors] or None,
            "engine": result.engine,
        }
    )
    return dict(sorted(record.items()))


def _index(state: str, task) -> int:
    from ..logic.states import parse_state, state_index

    return state_index(parse_state(state, task.domains), task.domains)


def _print_named_count(task, result, record, seconds: float) -> None:
    from ..counting.tasks import exact_text

    log2 = result.log2_n_opt
    n_opt = exact_text(result)
    shortcuts = (
        str(result.n_opt - 1) if result.n_opt is not None and len(n_opt) <= 60 else ("N_opt - 1")
    )
    print(f"N_opt = {n_opt}   reasoning shortcuts = {shortcuts}   log2 N_opt = {log2:.4f}")
    if result.extractor == "disentangled":
        distinct = record["n_distinct"] or f"not computed ({record['n_distinct_reason']})"
        print(f"  distinct maps alpha (n_distinct) = {distinct}")
    print(
        f"  task: {task.name} ({task.title}): {task.k} concepts, outputs "
        f"{', '.join(task.outputs)}, {task.n_states:,} states"
    )
    own = record["n_observed"] == task.n_observed and record["support"] is None
    print(
        f"  support: {record['n_observed']:,} of {task.n_states:,} states"
        + (f" ({task.support_note})" if own or record["support"] is None else "")
    )
    print(
        f"  extractor: {result.extractor}   supervised: {','.join(result.supervised) or '-'}   "
        f"exact ({result.engine})   {seconds:.2f} s"
    )


def _write_exports(args, task, support) -> None:
    from ..counting.tasks import knowledge_frame, support_frame

    if args.export_knowledge:
        _write_frame(args.export_knowledge, knowledge_frame(task), "--export-knowledge")
    if args.export_support:
        _write_frame(args.export_support, support_frame(task, support), "--export-support")


def _write_frame(path: str, frame, option: str) -> None:
    from ..io import parquet_bytes

    if path.lower().endswith((".csv", ".tsv")):
        data = (
            csv_bytes(frame)
            if path.lower().endswith(".csv")
            else frame.to_csv(index=False, sep="\t", lineterminator="\n").encode("utf-8")
        )
    else:
        key = [c for c in frame.columns if c.startswith("c")]
        data = parquet_bytes(
            frame, key=key, instrument="shortcuts", stage="export", params_hash="-"
        )
    write_out(path, data, flag=option)


def run_named_plan(args: argparse.Namespace) -> int:
    from ..counting.tasks import get_task, plan_task

    check_task_arguments(args)
    task = get_task(args.task)
    support = _support_of(args, task)
    if _supervised(args):
        raise InputError("--supervised: a named task's plan starts from no concept labels")
    plan = plan_task(
        task,
        args.budget,
        extractor=args.extractor,
        support=support,
        exact_max_subsets=args.exact_max_subsets,
        max_subproblems=args.max_subproblems,
        max_memory=_memory_bytes(args),
    )
    record = plan.to_json()
    record["task"] = task.name
    if args.json:
        print(dumps_json(dict(sorted(record.items()))), end="")
        return 0
    print(
        f"supervision plan ({plan.extractor}) on {task.name}: {len(plan.picks)} of {plan.budget} "
        f"labels, {plan.n_candidates:,} candidate states"
    )
    print(f"  before: N_opt = {record['n_opt_before']}")
    for b, pick in enumerate(record["picks"], start=1):
        print(f"  pick {b}: {pick['state']:<24} N_opt = {pick['n_opt']}")
    if plan.stopped_early:
        print("  stopped early: N_opt = 1, only the identity is left")
    if record["optimum_reason"]:
        print(f"  note: {record['optimum_reason']}")
    return 0
