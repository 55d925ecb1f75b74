"""Deep-merge a profile's params overrides into params.yaml (validated before anything is written).

    python workflow/scripts/apply_overrides.py workflow/profiles/full/params-overrides.yaml

A profile's overrides file holds only the keys it changes (e.g. ``axes.n_seeds: 20``); a
mapping merges key by key, anything else (a number, a list) replaces the value. The merged
params are validated against workflow/schemas like any params.yaml, then written over it
(``--params`` names another file). params.yaml's comments are not kept: ``git checkout
params.yaml`` restores the repository's defaults.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from nesybench.errors import InputError, report_stop
from nesybench.io import atomic_write_text
from nesybench.params import load_yaml, schema_dir_for, validate_params


def deep_merge(base: dict, override: dict) -> dict:
    """``base`` with ``override`` merged in: mappings key by key, other values replaced."""
    out = dict(base)
    for key, value in override.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = deep_merge(out[key], value) if both else value
    return out


def _read(path: Path, what: str) -> dict:
    data = load_yaml(path, what=what)  # the params loader: plain YAML, bounded
    if not isinstance(data, dict):
        raise InputError(f"{path}: the {what} must be a mapping of params sections")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("overrides", type=Path, help="a profile's params-overrides.yaml")
    parser.add_argument("--params", type=Path, default=Path("params.yaml"), help="file to update")
    args = parser.parse_args(argv)
    try:
        merged = deep_merge(_read(args.params, "params file"), _read(args.overrides, "overrides"))
        validate_params(merged, schema_dir=schema_dir_for(args.params), source=str(args.overrides))
        atomic_write_text(args.params, yaml.safe_dump(merged, sort_keys=False))
    except InputError as exc:
        return report_stop(exc)
    print(f"merged {args.overrides} into {args.params}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
