"""The mitigation names of the digit sweep: reading them, and their canonical spelling.

A mitigation is spelled as :attr:`nesybench.shortcuts.digits.nesy.Variant.name`
(``label_only``, ``concept_sup=0.01``, ``entropy=1``, ``multitask=product``, joined by ``+``),
or ``neural`` for the baseline without concepts.  This module imports nothing heavier than the
model's config dataclasses: ``params.yaml`` is checked with it when Snakemake parses the
Snakefile and when every job starts (:mod:`nesybench.shortcuts.params_checks`), before either
needs the training and scoring code.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import InputError
from .nesy import Variant
from .tasks import KNOWLEDGE

NEURAL = "neural"


def parse_mitigation(text: str | Variant) -> Variant | str:
    """A :class:`~nesybench.shortcuts.digits.nesy.Variant` from its name, or ``"neural"``.

    >>> parse_mitigation("concept_sup=0.01+entropy=1").name
    'concept_sup=0.01+entropy=1'
    >>> parse_mitigation("label_only") == Variant()
    True
    """
    if isinstance(text, Variant):
        return text
    if not isinstance(text, str) or not text:
        raise InputError(f"mitigation must be a non-empty name, got {text!r}")
    if text == NEURAL:
        return NEURAL
    if text in ("label_only", "none"):
        return Variant()
    fields: dict = {}
    for part in text.split("+"):
        key, sep, value = part.partition("=")
        try:
            if key == "concept_sup" and sep:
                fields["concept_sup"] = float(value)
            elif key == "entropy" and sep:
                fields["entropy_weight"] = float(value)
            elif key == "multitask" and sep and value in KNOWLEDGE:
                fields["multitask"] = value
            else:
                raise ValueError
        except ValueError:
            raise InputError(
                "mitigation must be label_only, neural, or parts concept_sup=F, entropy=W, "
                f"multitask={'|'.join(KNOWLEDGE)} joined by '+', got {text!r}"
            ) from None
    return Variant(**fields)


def mitigation_names(digits: Mapping) -> list[str]:
    """The sweep's mitigations in their canonical spelling (``Variant.name``); that they are
    distinct and hold label_only and the head-to-head's supervised model is checked at load
    time (:mod:`nesybench.shortcuts.params_checks`).

    >>> mitigation_names({"mitigations": ["label_only", "concept_sup=0.10"],
    ...                   "head_to_head": {"supervised": "concept_sup=0.1"}})
    ['label_only', 'concept_sup=0.1']
    """
    names = []
    for text in digits["mitigations"]:
        variant = parse_mitigation(text)
        names.append(NEURAL if variant == NEURAL else variant.name)
    return names


def supervised_name(digits: Mapping) -> str:
    """The head-to-head's supervised model in its canonical spelling (``Variant.name``)."""
    variant = parse_mitigation(digits["head_to_head"]["supervised"])
    return NEURAL if variant == NEURAL else variant.name
