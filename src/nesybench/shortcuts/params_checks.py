"""The ``shortcuts`` section's cross-key checks, run by :func:`nesybench.params.load_params`.

The schema states each key's range (and, with ``x-key-of``, that ``demo.task``,
``models.task`` and ``incidence.tasks`` name tasks of ``shortcuts.tasks``); this states what
one key requires of another beyond that, once, before any job starts.  Jobs read the values
and do not re-check them.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..counting.task import support_states
from ..errors import InputError, bad_value
from ..logic.knowledge import make_knowledge
from ..logic.states import parse_states
from .categorical_counts import FAMILIES, named_support
from .digits.mitigations import NEURAL, mitigation_names, supervised_name
from .tasks import resolve_knowledge

WHERE = "params.yaml"


def check_params(section: Mapping) -> None:
    """Raise one ``InputError`` line for the first cross-key problem of ``section``."""
    _check_tasks(section)
    _check_support_fracs(section)
    if "categorical" in section:  # optional sections (the schema does not require them)
        _check_categorical(section["categorical"])
    if "rsbench" in section:
        _check_rsbench(section["rsbench"])
    _check_mitigations(section["digits"])


def _check_tasks(section: Mapping) -> None:
    """Each ``shortcuts.tasks`` entry builds its knowledge (``m`` only for random3cnf)."""
    for name, spec in section["tasks"].items():
        key = f"shortcuts.tasks.{name}"
        if spec["knowledge"] == "random3cnf" and "m" not in spec:
            raise bad_value(
                f"{key}.m", "given for a random3cnf task (its number of clauses)", None, where=WHERE
            )
        if spec["knowledge"] != "random3cnf" and "m" in spec:
            raise bad_value(
                f"{key}.m",
                f"left out for knowledge {spec['knowledge']!r} (only random3cnf takes m)",
                spec["m"],
                where=WHERE,
            )
        try:
            resolve_knowledge(name, spec, seed=int(section["seed"]))
        except InputError as exc:
            raise InputError(f"{WHERE}: {key}: {exc}") from None


def _check_support_fracs(section: Mapping) -> None:
    """Two fractions of ``support_fracs`` that keep one support size would make two identical
    rows of the count table (a support keeps max(1, round(F * 2^k)) states); every incidence
    fraction is one of them."""
    fracs = sorted(section["support_fracs"], reverse=True)
    for name in sorted(section["tasks"]):
        k = int(section["tasks"][name]["k"])
        sizes: dict[int, float] = {}
        for frac in fracs:
            size = len(support_states(k, frac, seed=0))
            if size in sizes:
                raise bad_value(
                    "shortcuts.support_fracs",
                    f"fractions keeping distinct numbers of the {2**k} states of task {name} "
                    f"(use fractions at least 1/{2**k} apart; {sizes[size]:g} and {frac:g} both "
                    f"keep {size})",
                    list(section["support_fracs"]),
                    where=WHERE,
                )
            sizes[size] = frac
    # The score aggregate reads each incidence cell's N_opt from the count stage's table,
    # which certifies only shortcuts.support_fracs.
    counted = sorted({float(f) for f in section["support_fracs"]}, reverse=True)
    for frac in section["incidence"]["support_fracs"]:
        if float(frac) not in counted:
            raise bad_value(
                "shortcuts.incidence.support_fracs",
                f"among shortcuts.support_fracs ({', '.join(f'{f:g}' for f in counted)}), "
                "whose N_opt the count stage certifies",
                frac,
                where=WHERE,
            )


def _check_categorical(categorical: Mapping) -> None:
    """Each categorical task's knowledge and supports parse; the shared extractor (one map for
    every digit) needs equal domains."""
    families = list(categorical.get("extractors", FAMILIES))
    for name in sorted(categorical["tasks"]):
        spec = categorical["tasks"][name]
        key = f"shortcuts.categorical.tasks.{name}"
        domains = tuple(spec["domains"])
        if "shared" in families and len(set(domains)) != 1:
            raise bad_value(
                f"{key}.domains",
                "equal domain sizes when shortcuts.categorical.extractors lists shared",
                list(domains),
                where=WHERE,
            )
        for support_name in sorted(spec["supports"]):
            rule = spec["supports"][support_name]
            try:
                dims = make_knowledge(spec["knowledge"], domains).domains
                if isinstance(rule, str):
                    named_support(rule, dims)
                else:
                    parse_states(list(rule), dims, field_name="states")
            except InputError as exc:
                raise InputError(f"{WHERE}: {key}.supports.{support_name}: {exc}") from None


def _check_rsbench(rsbench: Mapping) -> None:
    """The planned tasks are among the counted ones."""
    unplanned = [t for t in rsbench["plan"]["tasks"] if t not in rsbench["tasks"]]
    if unplanned:
        raise bad_value(
            "shortcuts.rsbench.plan.tasks",
            f"among shortcuts.rsbench.tasks ({', '.join(rsbench['tasks'])})",
            unplanned[0],
            where=WHERE,
        )


def _check_mitigations(digits: Mapping) -> None:
    """The digit sweep's mitigations are distinct (in canonical spelling) and list label_only
    and the head-to-head's supervised model, a digit model other than label_only."""
    seen: dict[str, str] = {}
    for name, text in zip(mitigation_names(digits), digits["mitigations"]):
        if name in seen:
            raise bad_value(
                "shortcuts.digits.mitigations",
                f"distinct mitigations ({text!r} repeats {seen[name]!r})",
                list(digits["mitigations"]),
                where=WHERE,
            )
        seen[name] = text
    supervised = supervised_name(digits)
    if "label_only" not in seen or supervised not in seen or supervised in ("label_only", NEURAL):
        raise bad_value(
            "shortcuts.digits.mitigations",
            "a list holding label_only and the head-to-head's supervised model "
            f"{digits['head_to_head']['supervised']!r} (a digit model other than label_only)",
            list(digits["mitigations"]),
            where=WHERE,
        )
