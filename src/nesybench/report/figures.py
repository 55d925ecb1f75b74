"""Deterministic matplotlib output: same figure, same bytes.

Importing this module changes nothing global: figures are plain ``matplotlib.figure.Figure``
objects (never registered with pyplot, so no backend is selected), and the project's style
is applied only inside :func:`figure_style`, which the report stage wraps around building and
rendering its figures.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator

import matplotlib
import matplotlib.figure

# A fixed hash salt makes SVG element ids reproducible; dates are dropped at save time.
STYLE = {
    "svg.hashsalt": "nesybench",
    "svg.fonttype": "path",
    "figure.dpi": 100,
    "font.size": 9,
}


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """The project's figure style, for the figures built and saved inside the block."""
    with matplotlib.rc_context(STYLE):
        yield


def new_figure(width: float = 5.5, height: float = 3.4):
    """A fresh (figure, axes) pair; callers never touch pyplot's global state."""
    fig = matplotlib.figure.Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    return fig, ax


def new_figure_grid(nrows: int, ncols: int, *, width: float = 8.0, height: float = 3.4, **kwargs):
    fig = matplotlib.figure.Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


def to_svg(fig) -> str:
    buf = io.StringIO()
    with figure_style():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    # Drop the XML prolog and doctype so the SVG can be inlined in HTML.
    start = text.find("<svg")
    # The RDF metadata block only names XML namespaces; drop it to keep the page lean.
    return re.sub(r"\s*<metadata>.*?</metadata>", "", text[start:], flags=re.S)


def to_png(fig) -> bytes:
    buf = io.BytesIO()
    with figure_style():
        fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()
