"""Load and validate ``params.yaml``, the single config of Snakemake and DVC.

The schema is ``workflow/schemas/params.schema.yaml`` (JSON Schema draft
2020-12); each instrument's section lives in its own file beside it
(``<instrument>.schema.yaml``) and is pulled in by ``$ref``.  A violation becomes
one :class:`~nesybench.errors.UserError` line naming the key, the value and the
allowed range, e.g. ``params.yaml: shortcuts.support_frac must be <= 1, got 1.5``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012 as _DRAFT

from .errors import UserError

SCHEMA_DIR = Path("workflow") / "schemas"
MAIN_SCHEMA = "params.schema.yaml"


def _load_yaml(path: Path, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except FileNotFoundError:
        raise UserError(f"{path}: {what} not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise UserError(f"{path}: not valid YAML{where}") from None


def schema_dir_for(params_path: Path) -> Path:
    return params_path.resolve().parent / SCHEMA_DIR


def _validator(schema_dir: Path) -> Draft202012Validator:
    resources = []
    for file in sorted(schema_dir.glob("*.schema.yaml")):
        contents = _load_yaml(file, "schema")
        resources.append(
            (file.name, Resource.from_contents(contents, default_specification=_DRAFT))
        )
    registry = Registry().with_resources(resources)
    main = _load_yaml(schema_dir / MAIN_SCHEMA, "schema")
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
        return f"{path} must match {v}, got {got}"
    description = error.schema.get("description")
    hint = f" ({description})" if description else ""
    return f"{path}: {error.message}{hint}"


def validate_params(params: Any, *, schema_dir: Path, source: str = "params.yaml") -> dict:
    """Validate ``params`` against the schema; raise one ``UserError`` line on the first violation.
    Validate ``params`` against the schema; raise one ``UserError`` line on the first violation."""
    validator = _validator(schema_dir)
    errors = sorted(
        validator.iter_errors(params), key=lambda e: (list(map(str, e.absolute_path)), e.validator)
    )
    if errors:
        # Prefer the deepest error: it names the exact key at fault.
        error = max(errors, key=lambda e: len(e.absolute_path))
        raise UserError(f"{source}: {_describe(error)}")
    return params


def load_params(path: str | Path = "params.yaml") -> dict:
    """Read and validate a params file; returns the whole config as a dict."""
    path = Path(path)
    params = _load_yaml(path, "params file")
    if not isinstance(params, dict):
        raise UserError(
            f"{path}: must be a mapping of instrument sections, got {type(params).__name__}"
        )
    return validate_params(params, schema_dir=schema_dir_for(path), source=str(path))


def params_hash(section: Any) -> str:
    """SHA-256 (first 16 hex digits) of a params section in canonical JSON."""
    text = json.dumps(section, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def file_hash(path: str | Path) -> str:
    """SHA-256 (first 16 hex digits) of a file's bytes, e.g. params.yaml for the report."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
