"""Render report blocks to one self-contained HTML page and to Markdown.

HTML: inline CSS, figures inlined as SVG, no scripts, no network.  Markdown:
the same tables as pipe tables (diff-friendly), figures as PNG files beside it.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

import pandas as pd

from ..canonical import format_float
from .blocks import Figure, Heading, Paragraph, Table
from .figures import to_png, to_svg

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto;
max-width: 1100px; color: #1b1f23; line-height: 1.45; padding: 0 1rem; }
h1 { border-bottom: 2px solid #444; padding-bottom: .3rem; }
h2 { border-bottom: 1px solid #bbb; margin-top: 2.5rem; padding-bottom: .2rem; }
nav ul { columns: 2; }
table { border-collapse: collapse; margin: .4rem 0 .3rem; font-size: .88rem; }
th, td { border: 1px solid #ccc; padding: .2rem .55rem; text-align: right; vertical-align: top; }
th { background: #f0f2f4; }
td.text, th.text { text-align: left; }
.table-title { font-weight: 600; margin: 1.2rem 0 .2rem; }
.params { color: #555; font-size: .8rem; margin: 0 0 1.2rem; }
.note { color: #333; font-size: .85rem; margin: .1rem 0 .3rem; }
figure { margin: 1rem 0 1.5rem; }
figcaption { font-size: .85rem; color: #333; }
figure svg { max-width: 100%; height: auto; }
code { background: #f3f3f3; padding: 0 .2rem; }
"""


def _fmt(value: Any, floatfmt: str) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return format_float(value, floatfmt)
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt(v, floatfmt) for v in value)
    return str(value)


def _is_text(series: pd.Series) -> bool:
    return pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series)


def _inline_md_to_html(text: str) -> str:
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    return out


def params_line(params: dict[str, Any], params_yaml_hash: str) -> str:
    parts = [f"{k}={_fmt(v, '{:g}')}" for k, v in params.items()]
    parts.append(f"params.yaml sha256:{params_yaml_hash}")
    return "params: " + ", ".join(parts)


def table_html(block: Table, params_yaml_hash: str) -> str:
    df = block.df
    text_cols = {c for c in df.columns if _is_text(df[c])}
    head = "".join(
        f'<th class="{"text" if c in text_cols else "num"}">{html.escape(str(c))}</th>'
        for c in df.columns
    )
    rows = []
    for row in df.itertuples(index=False):
        cells = "".join(
            f'<td class="{"text" if c in text_cols else "num"}">'
            f"{html.escape(_fmt(v, block.floatfmt))}</td>"
            for c, v in zip(df.columns, row)
        )
        rows.append(f"<tr>{cells}</tr>")
    note = f'<p class="note">{_inline_md_to_html(block.note)}</p>' if block.note else ""
    return (
        f'<p class="table-title">{html.escape(block.title)}</p>'
        f'<table class="nb-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
        f'<p class="params">{html.escape(params_line(block.params, params_yaml_hash))}</p>'
    )


def table_markdown(block: Table, params_yaml_hash: str) -> str:
    df = block.df
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" if _is_text(df[c]) else "---:" for c in df.columns) + "|"
    lines = [f"**{block.title}**", "", header, sep]
    for row in df.itertuples(index=False):
        lines.append(
            "| " + " | ".join(_fmt(v, block.floatfmt).replace("|", "\\|") for v in row) + " |"
        )
    if block.note:
        lines += ["", block.note]
    lines += ["", f"_{params_line(block.params, params_yaml_hash)}_", ""]
    return "\n".join(lines)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def render(
    sections: list[tuple[str, list]], *, title: str, params_yaml_hash: str, intro: str
) -> tuple[str, str, dict[str, bytes]]:
    """Return (html, markdown, {figure file name: png bytes})."""
    body, md, figures = [], [f"# {title}", "", intro, ""], {}
    toc = []
    for name, blocks in sections:
        anchor = _slug(name)
        toc.append(f'<li><a href="#{anchor}">{html.escape(name)}</a></li>')
        body.append(f'<section id="{anchor}" class="instrument"><h2>{html.escape(name)}</h2>')
        md += [f"## {name}", ""]
        for block in blocks:
            if isinstance(block, Heading):
                level = max(3, min(6, block.level))
                body.append(f"<h{level}>{html.escape(block.text)}</h{level}>")
                md += ["#" * level + " " + block.text, ""]
            elif isinstance(block, Paragraph):
                body.append(f"<p>{_inline_md_to_html(block.text)}</p>")
                md += [block.text, ""]
            elif isinstance(block, Table):
                body.append(table_html(block, params_yaml_hash))
                md.append(table_markdown(block, params_yaml_hash))
            elif isinstance(block, Figure):
                file_name = f"{block.name}.png"
                figures[file_name] = to_png(block.figure)
                caption = html.escape(block.caption or block.title)
                body.append(
                    '<figure class="nb-figure" '
                    f'id="fig-{_slug(block.name)}">{to_svg(block.figure)}<figcaption>{caption}</figcaption></figure>'
                )
                md += [
                    f"![{block.title}](figures/{file_name})",
                    "",
                    f"_{block.caption or block.title}_",
                    "",
                ]
            else:
                raise TypeError(f"unknown report block {type(block).__name__}")
        body.append("</section>")
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{_inline_md_to_html(intro)}</p>"
        f"<nav><ul>{''.join(toc)}</ul></nav>{''.join(body)}</body></html>\n"
    )
    return page, "\n".join(md).rstrip() + "\n", figures
