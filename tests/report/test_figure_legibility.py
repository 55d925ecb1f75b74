"""Every figure's labels stay apart where the data crowd them: close reliability bins, two
supports with the same count, ten per-class panels side by side."""

from __future__ import annotations

import matplotlib.figure
import pandas as pd

from nesybench.report.figures import figure_style

from .legibility import overlapping_texts


def test_the_checker_sees_labels_printed_over_each_other():
    fig = matplotlib.figure.Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.annotate("n=42", (0.10, 0.5))
    ax.annotate("n=8", (0.12, 0.5))
    assert overlapping_texts(fig) == [("n=42", "n=8")]


def _reliability(counts: dict[int, int], n_bins: int = 10) -> pd.DataFrame:
    rows = []
    for b in range(n_bins):
        n = counts.get(b, 0)
        rows.append(
            {
                "bin": b,
                "lo": b / n_bins,
                "hi": (b + 1) / n_bins,
                "count": n,
                "conf": (b + 0.5) / n_bins,
                "acc": 0.0 if n else float("nan"),
                "acc_lo": 0.0,
                "acc_hi": 0.3,
            }
        )
    return pd.DataFrame(rows)


def test_reliability_diagrams_with_neighbouring_bins_print_every_count_apart():
    from nesybench.calibration.report import reliability_figure

    crowded = _reliability({0: 42, 1: 8, 2: 1, 6: 2, 7: 1, 9: 9})
    with figure_style():
        fig = reliability_figure(
            {m: crowded for m in ("before", "temperature", "platt")}, title="t"
        )
        assert overlapping_texts(fig) == []
    counts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert counts.count("42") == 3 and counts.count("1") == 6  # every non-empty bin's count


def test_digit_incidence_names_supports_with_the_same_count_once():
    from nesybench.shortcuts.figures import digit_incidence_figure

    rows = []
    for support, log2 in (("full", 0.0), ("same_parity", 0.0), ("evenodd", 5.17)):
        for mitigation in ("label_only", "concept_sup=0.1", "entropy=1", "neural"):
            rows.append(
                {
                    "support": support,
                    "mitigation": mitigation,
                    "log2_n_opt": log2,
                    "rate": 0.4,
                    "rate_lo": 0.1,
                    "rate_hi": 0.8,
                }
            )
    with figure_style():
        fig = digit_incidence_figure(pd.DataFrame(rows))
        assert overlapping_texts(fig) == []
    names = [t.get_text() for t in fig.axes[0].texts]
    assert sorted(names) == ["evenodd", "full, same_parity"]


def test_per_class_reliability_panels_keep_their_labels_apart():
    from nesybench.shortcuts.figures import class_reliability_figure

    rows = [
        {
            "mitigation": model,
            "reading": reading,
            "target": "class",
            "class": digit,
            "count": 5,
            "conf": conf,
            "acc": conf,
        }
        for model in ("label_only", "concept_sup=0.1")
        for reading in ("before", "after")
        for digit in range(10)
        for conf in (0.05, 0.55, 0.95)
    ]
    with figure_style():
        fig = class_reliability_figure(pd.DataFrame(rows), ["label_only", "concept_sup=0.1"])
        assert overlapping_texts(fig) == []
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["before", "after"]
