"""The ``nli`` section's cross-key checks, run by :func:`nesybench.params.load_params`.

The schema states each key's range; this states what one key requires of another, once,
before any job starts (jobs read the values and do not re-check them).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import bad_value

#: how far the FOLIO-lite label mix may sum from 1 (it is written by hand, in decimals)
LABEL_MIX_TOLERANCE = 1e-9


def check_params(section: Mapping) -> None:
    """Raise one ``InputError`` line for the first cross-key problem of ``section``."""
    mix = section["folio"]["label_mix"]
    total = mix["p_true"] + mix["p_false"] + mix["p_unknown"]
    if abs(total - 1.0) > LABEL_MIX_TOLERANCE:
        raise bad_value(
            "nli.folio.label_mix",
            "probabilities summing to 1",
            float(f"{total:.12g}"),
            where="params.yaml",
        )
    hops = section["prontoqa"]["hops"]
    if section["worked_example_hops"] not in hops:
        raise bad_value(
            "nli.worked_example_hops",
            f"one of nli.prontoqa.hops {list(hops)}",
            section["worked_example_hops"],
            where="params.yaml",
        )
