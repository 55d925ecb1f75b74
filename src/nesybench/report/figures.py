"""Deterministic matplotlib output (Agg backend): same figure, same bytes."""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# A fixed hash salt makes SVG element ids reproducible; dates are dropped below.
matplotlib.rcParams["svg.hashsalt"] = "nesybench"
matplotlib.rcParams["svg.fonttype"] = "path"
matplotlib.rcParams["figure.dpi"] = 100
matplotlib.rcParams["font.size"] = 9


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
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    # Drop the XML prolog and doctype so the SVG can be inlined in HTML.
    start = text.find("<svg")
    # The RDF metadata block only names XML namespaces; drop it to keep the page lean.
    return re.sub(r"\s*<metadata>.*?</metadata>", "", text[start:], flags=re.S)


def to_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def close(fig) -> None:
    plt.close(fig)
