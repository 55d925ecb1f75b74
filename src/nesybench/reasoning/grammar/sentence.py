"""What reading one sentence gives, shared by both dialects of the grammar.

A parse never raises on arbitrary text: it returns a :class:`ParseResult` whose ``kind`` is
``"failure"`` with a ``reason``.  A :class:`Lexicon` plugs in repairs (synonyms, extra
quantifiers, forced adjectives) applied before the strict grammar, for experiments that measure
how much of a paraphrase a strict grammar loses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..terms import Atom, Rule

__all__ = ["RULE_VARIABLE", "Lexicon", "ParseResult", "parse_failure"]

#: the variable every rendered or parsed rule quantifies over
RULE_VARIABLE = "X"


# ---------------------------------------------------------------- lexicon
@dataclass(frozen=True)
class Lexicon:
    """Repairs applied before the strict grammar (None = the strict grammar alone).

    Attributes
    ----------
    synonyms : mapping word -> canonical word, applied to every lower-cased
        token (``{"large": "big"}``; a phrase key such as ``"is a kind of"``
        maps a multi-word span, longest first).
    plural_quantifiers : words accepted before a plural subject, e.g.
        ``{"all"}`` repairs the corruption ``All Xes are Ys.``.
    adjectives : words always read as properties, never as plural nouns:
        the strict grammar reads a word after "are" that ends like a regular
        plural (``"flumps"``) as a noun; endings ``-ous``, ``-ss``, ``-us``,
        ``-is`` (``"luminous"``) are already read as properties.
    """

    synonyms: Mapping[str, str] = field(default_factory=dict)
    plural_quantifiers: frozenset[str] = frozenset()
    adjectives: frozenset[str] = frozenset()

    def normalize(self, text: str) -> str:
        """Apply phrase and word synonyms (case-insensitive, longest phrase first)."""
        out = text
        for src in sorted(self.synonyms, key=lambda s: (-len(s), s)):
            dst = self.synonyms[src]
            out = re.sub(
                rf"(?i)(?<![A-Za-z]){re.escape(src)}(?![A-Za-z])",
                lambda m, d=dst: _keep_case(m.group(0), d),
                out,
            )
        return out


def _keep_case(src: str, dst: str) -> str:
    return dst[:1].upper() + dst[1:] if src[:1].isupper() else dst


# ---------------------------------------------------------------- results
@dataclass(frozen=True)
class ParseResult:
    """What one sentence means, or why it does not parse.

    ``kind`` is ``"fact"`` (``atom`` set), ``"rule"`` (``rule`` set),
    ``"question"`` (``atom`` is the statement asked about) or ``"failure"``
    (``reason`` says what the strict grammar expected).  ``adjective`` records
    whether the predicate was a property (no article), so the sentence can be
    rendered back; ``style`` the surface form used.
    """

    kind: str
    atom: Atom | None = None
    rule: Rule | None = None
    adjective: bool = False
    style: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.kind != "failure"

    @property
    def value(self) -> Atom | Rule | None:
        return self.rule if self.kind == "rule" else self.atom


def parse_failure(reason: str) -> ParseResult:
    """The result of a sentence that does not parse, saying why."""
    return ParseResult("failure", reason=reason)
