"""Load and validate ``params.yaml``, the single config of Snakemake and DVC.

The schema is ``workflow/schemas/params.schema.yaml`` (JSON Schema draft
2020-12); each instrument's section lives in its own file beside it
(``<instrument>.schema.yaml``) and is pulled in by ``$ref``.  A violation becomes
one :class:`~nesybench.errors.InputError` line naming the key, the value and the
allowed range, e.g. ``params.yaml: shortcuts.support_frac must be <= 1, got 1.5``.

What the schema cannot state (one key against another: a task named in one list must be
defined in another, levels increasing, two fractions keeping distinct supports) each
instrument states once, in ``nesybench/<instrument>/params_checks.py``::

    def check_params(section: Mapping) -> None: ...

:func:`load_params` runs the schema and then every instrument's ``check_params``, so
Snakemake (the Snakefile), ``dvc repro`` (``stages/validate.py`` and every stage),
``dvc exp run -S`` and the DVC export all refuse a bad value before any job starts.
Jobs never re-check params (tests/architecture/test_params_checks.py keeps it so).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import math
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012 as _DRAFT

from . import INSTRUMENT_MODULES
from .errors import InputError

SCHEMA_DIR = Path("workflow") / "schemas"
MAIN_SCHEMA = "params.schema.yaml"
#: the schemas of the checkout this package is installed from (editable: ``make setup``), read
#: by a library function checking a value that does not come through a params file
PACKAGE_SCHEMA_DIR = Path(__file__).resolve().parents[2] / SCHEMA_DIR


#: how many nodes aliases may add to a YAML document beyond the nodes written in it
MAX_ALIAS_EXPANSION = 10_000


class _Loader(yaml.SafeLoader):
    """Plain YAML only: no tags that construct objects, duplicate keys refused, and aliases
    bounded (nested aliases, a "billion laughs", would expand without limit downstream)."""

    def get_single_data(self):  # type: ignore[override]
        node = self.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return self.construct_document(node)


class _Refused(yaml.YAMLError):
    """Valid YAML this project will not read (unbounded alias expansion)."""


def _at(node: yaml.Node) -> str:
    mark = node.start_mark
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a document whose aliases expand it by more than :data:`MAX_ALIAS_EXPANSION` nodes.

    The expanded size is counted once per distinct node (aliases share the node object), so
    the check is linear in the file, however large the expansion it refuses.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise _Refused(f"an alias refers to the node that contains it{_at(node)}")
        open_nodes.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_nodes.discard(key)
        sizes[key] = total
        return total

    expanded = size(root)
    if expanded - len(sizes) > MAX_ALIAS_EXPANSION:
        raise _Refused(
            f"aliases would expand the document to {expanded:,} nodes from {len(sizes):,} "
            f"written (at most {MAX_ALIAS_EXPANSION:,} more are read: nested aliases are "
            "refused; write the repeated values out)"
        )


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """:class:`_Loader` on libyaml's parser (when PyYAML has it): params and schemas are read
    at every Snakemake start.  Any problem is re-read by :class:`_Loader`, whose messages
    (line, column, wording) are the ones users see; aliases are bounded the same way."""

    get_single_data = _Loader.get_single_data


def _mapping(loader: _Loader, node: yaml.MappingNode) -> dict:
    loader.flatten_mapping(node)
    seen: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen[key] = loader.construct_object(value_node, deep=True)
    return seen


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_FastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    if "constructor for the tag" in problem:
        problem += " (only plain YAML is read: no !!python or other tags)"
    if "\\t" in problem:
        problem += " (indent with spaces, not tabs)"
    return f"not valid YAML{where}: {problem}"


def _load_yaml(path: Path, what: str) -> Any:
    """The one reader of YAML files: plain YAML, bounded in size and in alias expansion."""
    from .io import read_input_text

    text = read_input_text(path, what=what)
    try:
        try:
            return yaml.load(text, Loader=_FastLoader)
        except _Refused:
            raise
        except yaml.YAMLError:
            pass  # read again below for the message
        return yaml.load(text, Loader=_Loader)
    except RecursionError:
        raise InputError(f"{path}: not valid YAML: nested too deeply") from None
    except _Refused as exc:
        raise InputError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: {_yaml_problem(exc)}") from None


def load_yaml(path: str | Path, *, what: str = "YAML file") -> Any:
    """A YAML file read as :func:`load_params` reads params (plain, bounded), not validated."""
    return _load_yaml(Path(path), what)


def schema_dir_for(params_path: Path) -> Path:
    return params_path.resolve().parent / SCHEMA_DIR


def _registry(schema_dir: Path) -> tuple[Registry, Any]:
    resources = []
    for file in sorted(schema_dir.glob("*.schema.yaml")):
        contents = _load_yaml(file, "schema")
        resources.append(
            (file.name, Resource.from_contents(contents, default_specification=_DRAFT))
        )
    registry = Registry().with_resources(resources)
    return registry, _load_yaml(schema_dir / MAIN_SCHEMA, "schema")


def _validator(schema_dir: Path) -> Draft202012Validator:
    registry, main = _registry(schema_dir)
    return Draft202012Validator(main, registry=registry)


def _describe(error) -> str:
    """One readable line for a jsonschema error: key, constraint, value received."""
    path = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    v, kind = error.validator_value, error.validator
    got = json.dumps(error.instance, default=str)
    if kind == "minimum":
        return f"{path} must be >= {v}, got {got}"
    if kind == "maximum":
        return f"{path} must be <= {v}, got {got}"
    if kind == "exclusiveMinimum":
        return f"{path} must be > {v}, got {got}"
    if kind == "exclusiveMaximum":
        return f"{path} must be < {v}, got {got}"
    if kind == "type":
        return f"{path} must be of type {v}, got {got}"
    if kind == "enum":
        return f"{path} must be one of {', '.join(json.dumps(x) for x in v)}, got {got}"
    if kind == "const":
        return f"{path} must be {json.dumps(v)}, got {got}"
    if kind == "required":
        missing = [k for k in v if k not in error.instance]
        return f"{path} is missing required key {missing[0] if missing else v}"
    if kind == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"{path} has unknown key {extra[0] if extra else '?'}; allowed keys: {allowed}"
    if kind == "maxItems" and v == 0:
        why = error.schema.get("description")
        return f"{path} must be empty{f' ({why})' if why else ''}, got {got}"
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return f"{path} must have {bound} {v} items, got {len(error.instance)}"
    if kind == "minLength":
        return f"{path} must have at least {v} characters, got {got}"
    if kind == "maxLength":
        return f"{path} must have at most {v} characters, got {got}"
    if kind == "uniqueItems":
        return f"{path} must not repeat items, got {got}"
    if kind == "pattern":
        # A schema may spell the pattern for people: `x-expected: "label_only, neural, ..."`.
        expected = error.schema.get("x-expected")
        if expected:
            return f"{path} must be {expected}, got {got}"
        return f"{path} must match {v}, got {got}"
    description = error.schema.get("description")
    hint = f" ({description})" if description else ""
    return f"{path}: {error.message}{hint}"


@functools.cache
def schema_fragment(file: str, pointer: str) -> dict:
    """The sub-schema at the JSON pointer ``pointer`` of ``workflow/schemas/<file>`` (no
    ``$ref`` resolved): the one statement of a range, for a value that reaches a library
    function without going through a params file (e.g. a ``GridSpec`` built in code).

    >>> schema_fragment("axes.schema.yaml", "/properties/grid/properties/depth_cap")["maximum"]
    19
    """
    node = _load_yaml(PACKAGE_SCHEMA_DIR / file, "schema")
    for part in pointer.strip("/").split("/"):
        node = node[part]
    return node


def schema_problem(value: Any, fragment: dict) -> str | None:
    """The first way ``value`` breaks the schema ``fragment``, as :func:`validate_params` words
    it (``depth.0 must be <= 20, got 25``), or None."""
    errors = sorted(
        Draft202012Validator(fragment).iter_errors(value),
        key=lambda e: (list(map(str, e.absolute_path)), e.validator),
    )
    if not errors:
        return None
    return _describe(max(errors, key=lambda e: len(e.absolute_path)))  # the deepest: exact key


def _non_finite(value: Any, path: str = "") -> tuple[str, float] | None:
    """The first NaN or infinite number in a params tree, with its dotted path."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "(top level)", value
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _non_finite(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _lookup(params: dict, dotted: str) -> Any:
    node: Any = params
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _key_references(
    schema: Any, resolver: Any, at: tuple = (), *, key: str = "x-key-of"
) -> list[tuple[tuple, str]]:
    """(schema path, value) of every ``key`` annotation (``x-key-of``: the dotted target),
    following $refs."""
    found = []
    if isinstance(schema, dict):
        if "$ref" in schema:
            resolved = resolver.lookup(schema["$ref"])
            found.extend(_key_references(resolved.contents, resolved.resolver, at, key=key))
        if key in schema:
            found.append((at, schema[key]))
        for name, sub in schema.get("properties", {}).items():
            found.extend(_key_references(sub, resolver, (*at, name), key=key))
        if isinstance(schema.get("items"), dict):
            found.extend(_key_references(schema["items"], resolver, (*at, "[]"), key=key))
    return found


def _values_at(params: Any, path: tuple) -> list[tuple[str, Any]]:
    """(dotted path, value) of the params values a schema path points at (lists expanded)."""
    items = [("", params)]
    for part in path:
        nxt = []
        for where, node in items:
            if part == "[]":
                if isinstance(node, list):
                    nxt.extend((f"{where}[{i}]", v) for i, v in enumerate(node))
            elif isinstance(node, dict) and part in node:
                nxt.append((f"{where}.{part}" if where else part, node[part]))
        items = nxt
    return items


def _check_references(params: dict, schema_dir: Path, source: str) -> None:
    """Values annotated ``x-key-of: <section.key>`` must name a key of that mapping."""
    registry, main = _registry(schema_dir)
    for path, target in _key_references(main, registry.resolver()):
        keys = _lookup(params, target)
        if not isinstance(keys, dict):
            continue
        for where, value in _values_at(params, path):
            if value not in keys:
                raise InputError(
                    f"{source}: {where} must name a key of {target} "
                    f"({', '.join(map(str, sorted(keys)))}), got {json.dumps(value, default=str)}"
                )


def _check_digit_images(path: str) -> None:
    from .images import check_digit_npz

    check_digit_npz(path)


# ``x-file: <kind>`` in the schema: the value names a file whose content is checked at load time
FILE_CHECKS = {"digit-images": _check_digit_images}


def _check_files(params: dict, schema_dir: Path, source: str) -> None:
    """Values annotated ``x-file: <kind>`` name a readable file of that kind (None: unset)."""
    registry, main = _registry(schema_dir)
    for path, kind in _key_references(main, registry.resolver(), key="x-file"):
        for where, value in _values_at(params, path):
            if value is not None:
                try:
                    FILE_CHECKS[kind](value)
                except InputError as exc:
                    raise InputError(f"{source}: {where}: {exc}") from None


def validate_params(params: Any, *, schema_dir: Path, source: str = "params.yaml") -> dict:
    """Validate ``params`` against the schema; raise one ``InputError`` line on the first violation.

    Beyond the JSON Schema: every number must be finite, a value annotated
    ``x-key-of: <dotted path>`` in the schema must name a key of that mapping, and one
    annotated ``x-file: <kind>`` must name a file whose content passes that kind's check
    (``digit-images``: :func:`nesybench.images.check_digit_npz`).
    """
    if not isinstance(params, dict):
        got = "an empty file" if params is None else type(params).__name__
        raise InputError(f"{source}: the file must be a mapping of instrument sections, got {got}")
    if "__use_yte__" in params:
        raise InputError(
            f"{source}: __use_yte__ is not supported; params.yaml is plain YAML "
            "(no templating or expressions)"
        )
    bad = _non_finite(params)
    if bad:
        raise InputError(f"{source}: {bad[0]} must be a finite number, got {bad[1]!r}")
    validator = _validator(schema_dir)
    errors = sorted(
        validator.iter_errors(params), key=lambda e: (list(map(str, e.absolute_path)), e.validator)
    )
    if errors:
        # Prefer the deepest error: it names the exact key at fault.
        error = max(errors, key=lambda e: len(e.absolute_path))
        raise InputError(f"{source}: {_describe(error)}")
    _check_references(params, schema_dir, source)
    _check_files(params, schema_dir, source)
    check_sections(params, source=source)
    _check_knob_levels(params, validator, source)
    return params


def check_sections(params: dict, *, source: str = "params.yaml") -> None:
    """Every instrument's ``check_params(section)``: the cross-key checks of its section.

    They run on a params tree the schema has accepted and write their messages as
    ``params.yaml: <instrument>.<key> must ...``; the file's own name replaces the prefix.
    """
    for instrument in INSTRUMENT_MODULES:
        if instrument in params:
            problem = _cross_key_problem(instrument, params[instrument])
            if problem:
                raise InputError(f"{source}: {problem}")


def _cross_key_problem(instrument: str, section: Any) -> str | None:
    """The message of the instrument's ``check_params`` on ``section`` (its ``params.yaml:``
    prefix dropped), or None."""
    checks = importlib.import_module(INSTRUMENT_MODULES[instrument]["params_checks"])
    try:
        checks.check_params(section)
    except InputError as exc:
        return str(exc).removeprefix("params.yaml: ")
    return None


def _check_knob_levels(params: dict, validator: Draft202012Validator, source: str) -> None:
    """Every ``<instrument>.knobs`` path names a scalar of its section, and every declared
    level is a value the schema and the instrument's ``check_params`` accept there (checked on
    params with it set: a variant job runs on exactly those)."""
    import copy

    for instrument, section in params.items():
        declared = section.get("knobs") if isinstance(section, dict) else None
        # A level changes one value of one section: validating that section alone (errors
        # keep their full path) costs a fifth of validating the whole file at every level.
        section_schema = validator.schema["properties"][instrument] if declared else None
        for path, spec in (declared or {}).items():
            value = _lookup(section, path)
            if value is None or isinstance(value, (dict, list)):
                raise InputError(
                    f"{source}: {instrument}.knobs: {path} must name a single value of the "
                    f"{instrument} section, got {json.dumps(value, default=str)}"
                )
            for i, level in enumerate(spec.get("levels", [])):
                trial = node = copy.deepcopy(section)
                *parents, last = path.split(".")
                for part in parents:
                    node = node[part]
                node[last] = level
                errors = list(validator.descend(trial, section_schema, path=instrument))
                if errors:
                    error = max(errors, key=lambda e: len(e.absolute_path))
                    raise InputError(
                        f"{source}: {instrument}.knobs.{path}.levels[{i}]: {_describe(error)}"
                    )
                problem = (
                    _cross_key_problem(instrument, trial)
                    if instrument in INSTRUMENT_MODULES
                    else None
                )
                if problem:
                    raise InputError(f"{source}: {instrument}.knobs.{path}.levels[{i}]: {problem}")


def load_params(path: str | Path = "params.yaml") -> dict:
    """Read and validate a params file; returns the whole config as a dict."""
    path = Path(path)
    params = _load_yaml(path, "params file")
    return validate_params(params, schema_dir=schema_dir_for(path), source=str(path))


# Keys of an instrument section that only the sweep's aggregates read: a per-seed job's
# params (and so its cache key under both runners) leave them out, so growing n_seeds,
# moving a claim threshold or adding a sensitivity level reruns no finished seed.
SWEEP_KEYS = ("n_seeds", "claims", "exhibit", "knobs", "chapter")


def job_params(section: dict, job: Any) -> dict:
    """The part of an instrument section a job may read.

    The keys the job declares (``Job(params=(...))``); without a declaration, all of them,
    except that a per-seed job never sees :data:`SWEEP_KEYS`.
    """
    declared = getattr(job, "params", None)
    if declared is not None:
        return {k: section[k] for k in declared if k in section}
    if getattr(job, "per_seed", False):
        return {k: v for k, v in section.items() if k not in SWEEP_KEYS}
    return dict(section)


def params_hash(section: Any) -> str:
    """SHA-256 (first 16 hex digits) of a params section in canonical JSON."""
    text = json.dumps(section, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def file_hash(path: str | Path, *, digits: int = 16) -> str:
    """SHA-256 (first 16 hex digits) of a file's bytes, e.g. params.yaml for the report."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:digits]
