"""Building blocks an instrument returns for its report section.

Each instrument's ``nesybench.<instrument>.report.section(loader)`` returns a
list of these; the report stage renders them to HTML (self-contained) and to
Markdown.  Every number in a block must come from a pipeline artifact read via
the loader: nothing is typed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass
class Heading:
    text: str
    level: int = 3


@dataclass
class Paragraph:
    """Prose; ``**bold**`` and ``code`` stay Markdown and are rendered minimally in HTML."""

    text: str


@dataclass
class Table:
    """A table with the params it came from (task, k, support, seeds...)."""

    title: str
    df: pd.DataFrame
    params: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    floatfmt: str = "{:.4f}"


@dataclass
class Figure:
    """A matplotlib figure (Agg); rendered as inline SVG in HTML and as a PNG file beside the
    Markdown."""

    title: str
    figure: Any  # matplotlib.figure.Figure
    name: str  # file stem under reports/figures/
    caption: str = ""


Block = Heading | Paragraph | Table | Figure
