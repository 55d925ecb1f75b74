"""The ``calibration`` section's cross-key checks, run by :func:`nesybench.params.load_params`.

Every constraint of this section is today a range or a choice of one key, which the schema
states (``workflow/schemas/calibration.schema.yaml``; e.g. the temperature search bracket
``temperature.lo < 1 < temperature.hi``).  A constraint between two keys goes here, so that
both runners refuse it before any job starts, never in a job.
"""

from __future__ import annotations

from collections.abc import Mapping


def check_params(section: Mapping) -> None:
    """Raise one ``InputError`` line for the first cross-key problem of ``section`` (none is
    possible once the schema has accepted it)."""
