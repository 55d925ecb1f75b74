import json
import re

import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.report.blocks import Figure, Heading, Paragraph, Table
from nesybench.report.figures import new_figure
from nesybench.report.pipeline import merge_stage_metrics
from nesybench.report.render import render


def _sections():
    fig, ax = new_figure()
    ax.plot([0.5, 0.75, 1.0], [6, 5, 4], marker="o")
    table = Table(
        "N_opt by support",
        pd.DataFrame({"task": ["xor2", "xor2"], "frac": [1.0, 0.5], "n_opt": ["16", "64"]}),
        params={"task": "xor2", "k": 2},
        note="certified by enumeration",
    )
    return [
        (
            "shortcuts",
            [
                Heading("Counting"),
                Paragraph("Counts are **exact**."),
                table,
                Figure("log2 N_opt", fig, "n_opt"),
            ],
        )
    ]


def test_render_html_is_self_contained_and_complete():
    page, md, figures = render(_sections(), title="T", params_yaml_hash="abc123", intro="intro")
    assert page.count('<table class="nb-table">') == 1
    assert page.count('<figure class="nb-figure"') == 1 and "<svg" in page
    assert "<script" not in page and "<link" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page), (
        "the page must not load anything from the network"
    )
    assert "params: task=xor2, k=2, params.yaml sha256:abc123" in page
    assert "<strong>exact</strong>" in page
    assert list(figures) == ["n_opt.png"] and figures["n_opt.png"][:8] == b"\x89PNG\r\n\x1a\n"


def test_render_markdown_tables_and_figure_links():
    _, md, _ = render(_sections(), title="T", params_yaml_hash="abc123", intro="intro")
    assert "| task | frac | n_opt |" in md
    assert "|---|---:|---|" in md
    assert "| xor2 | 1.0000 | 16 |" in md
    assert "![log2 N_opt](figures/n_opt.png)" in md


def test_render_is_deterministic():
    first = render(_sections(), title="T", params_yaml_hash="h", intro="i")
    second = render(_sections(), title="T", params_yaml_hash="h", intro="i")
    assert first == second


def test_merge_stage_metrics_in_stage_order_and_rejects_collisions(tmp_path):
    from nesybench.artifacts import Job, Registry

    reg = Registry("shortcuts", [Job("count"), Job("count", "aggregate"), Job("score")])
    files = {
        "data/score/shortcuts/metrics.json": {
            "score.panel.acc": 1.0,
            "_provenance.params_hash": "x",
        },
        "data/count/shortcuts/metrics.json": {"count.n_opt": "16"},
    }
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(data))
    (tmp_path / "data/count/shortcuts/metrics.json").write_text(json.dumps({"count.n_opt": "16"}))
    with pytest.raises(InputError, match="missing artifact|not found"):
        merge_stage_metrics(tmp_path, reg)  # the aggregate job's metrics are missing
    aggregate = tmp_path / reg.metrics_path("count", "aggregate")
    aggregate.write_text(json.dumps({"count.mean": 2.0}))
    merged = merge_stage_metrics(tmp_path, reg)
    assert merged == {"count.n_opt": "16", "count.mean": 2.0, "score.panel.acc": 1.0}
    assert list(merged) == ["count.n_opt", "count.mean", "score.panel.acc"]  # stage order
    aggregate.write_text(json.dumps({"count.n_opt": "17"}))
    with pytest.raises(ValueError, match="written by both count and count"):
        merge_stage_metrics(tmp_path, reg)
