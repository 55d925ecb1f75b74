"""The shortcuts report's figures, each drawn from artifact tables (no I/O here)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..report.figures import new_figure, new_figure_grid
from .summaries import panel_word

MODELS = ("label_only", "concept_sup")


def incidence_figure(incidence: pd.DataFrame):
    """Shortcut rate against the support fraction, one line per task, 95% Wilson error bars."""
    fig, ax = new_figure(5.0, 3.4)
    for i, task in enumerate(sorted(incidence["task"].unique())):
        rows = incidence[incidence["task"] == task].sort_values("support_frac")
        err = [rows["rate"] - rows["rate_lo"], rows["rate_hi"] - rows["rate"]]
        ax.errorbar(
            rows["support_frac"],
            rows["rate"],
            yerr=err,
            fmt="-o",
            color=f"C{i}",
            capsize=3,
            markersize=4,
            label=f"{task} (k={int(rows['k'].iloc[0])})",
        )
    ax.set_xlabel("support fraction")
    ax.set_ylabel("shortcut rate (label-only runs)")
    ax.set_ylim(-0.02, 1.02)
    ax.invert_xaxis()  # read left to right as the support shrinks
    ax.legend(fontsize=7)
    return fig


def curves_figure(curves: pd.DataFrame):
    """Label NLL per epoch of the exhibit's two nets (log scale)."""
    fig, ax = new_figure(5.0, 3.0)
    for i, model in enumerate(MODELS):
        rows = curves[curves["model"] == model].sort_values("epoch")
        ax.plot(rows["epoch"], rows["label_nll"].clip(lower=1e-12), color=f"C{i}", label=model)
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("label NLL (train)")
    ax.legend(fontsize=7)
    return fig


def seeds_figure(summary: pd.DataFrame, keys, *, labels=("label-only", "supervised")):
    """Every seed's value of each panel metric, label-only (left) beside the supervised model
    (right), one dot per seed: the spread behind the distribution table."""
    fig, axes = new_figure_grid(1, len(keys), width=1.45 * len(keys), height=2.6, squeeze=False)
    for ax, key in zip(axes[0], keys):
        for i, prefix in enumerate(("label_only", "sup")):
            values = summary[f"{prefix}_{panel_word(key)}"].to_numpy(dtype=float)
            offsets = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else [0.0]
            ax.plot(i + np.asarray(offsets), values, "o", color=f"C{i}", markersize=3, alpha=0.8)
        ax.set_xticks([0, 1], labels, fontsize=7, rotation=30)
        ax.set_xlim(-0.5, 1.5)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(key, fontsize=8)
    return fig


def confusion_figure(confusion: pd.DataFrame, models, *, titles=None):
    """The learned digit map as a confusion matrix per model: row = true digit, column =
    predicted digit, shade = share of the row's images (test and ood pooled), counts written."""
    fig, axes = new_figure_grid(1, len(models), width=3.4 * len(models), height=3.4, squeeze=False)
    for ax, model, title in zip(axes[0], models, titles or models):
        rows = confusion[confusion["mitigation"] == model]
        V = int(rows["true_digit"].max()) + 1
        counts = np.zeros((V, V), dtype=np.int64)
        counts[rows["true_digit"], rows["predicted_digit"]] = rows["count"]
        share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0)
        for t in range(V):
            for p in range(V):
                if counts[t, p]:
                    colour = "white" if share[t, p] > 0.5 else "black"
                    ax.text(
                        p, t, str(counts[t, p]), ha="center", va="center", fontsize=6, color=colour
                    )
        ax.set_xticks(range(V))
        ax.set_yticks(range(V))
        ax.set_xlabel("predicted digit")
        ax.set_ylabel("true digit")
        ax.set_title(title, fontsize=8)
    return fig


def digit_incidence_figure(incidence: pd.DataFrame):
    """Shortcut incidence of each (support, mitigation) against the support's log2 N_opt from
    the counter, one marker per mitigation, 95% Wilson bars."""
    fig, ax = new_figure(5.6, 3.6)
    shown = incidence[incidence["mitigation"] != "neural"]
    x_col = "log2_n_opt"
    markers = "osD^vP*Xh"
    for i, mitigation in enumerate(dict.fromkeys(shown["mitigation"])):
        rows = shown[shown["mitigation"] == mitigation].sort_values(x_col)
        jitter = (i - len(markers) / 2) * 0.01 * max(1.0, float(np.ptp(rows[x_col])))
        ax.errorbar(
            rows[x_col] + jitter,
            rows["rate"],
            yerr=[rows["rate"] - rows["rate_lo"], rows["rate_hi"] - rows["rate"]],
            fmt=markers[i % len(markers)],
            color=f"C{i}",
            capsize=2,
            markersize=5,
            label=mitigation,
        )
    ax.set_xlabel("log2 N_opt of the support (shared digit maps, the counter)")
    # One label per x position: supports with the same count (full and same_parity both have
    # log2 N_opt = 0) share it, instead of being printed over each other.
    at_x: dict[float, list[str]] = {}
    for support, x in zip(shown["support"], shown[x_col]):
        names = at_x.setdefault(round(float(x), 6), [])
        if support not in names:
            names.append(support)
    for x, names in at_x.items():
        ax.annotate(", ".join(names), (x, 1.03), fontsize=7, ha="center")
    ax.set_ylabel("shortcut incidence over seeds")
    ax.set_ylim(-0.03, 1.1)
    ax.margins(x=0.12)
    fig.legend(fontsize=7, loc="outside right center")
    return fig


def class_reliability_figure(reliability: pd.DataFrame, models, *, titles=None):
    """Per-class reliability diagrams of the digit heads: one row per model, one panel per
    digit; before (circles) and after calibration (crosses), with the diagonal."""
    classes = sorted(
        int(c) for c in reliability.loc[reliability["target"] == "class", "class"].unique()
    )
    fig, axes = new_figure_grid(
        len(models),
        len(classes),
        width=1.05 * len(classes),
        height=1.3 * len(models) + 0.7,
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    for r, (model, title) in enumerate(zip(models, titles or models)):
        for c, digit in enumerate(classes):
            ax = axes[r][c]
            ax.plot([0, 1], [0, 1], color="0.7", linewidth=0.8, linestyle="--")
            for reading, style in (("before", "o"), ("after", "x")):
                rows = reliability[
                    (reliability["mitigation"] == model)
                    & (reliability["reading"] == reading)
                    & (reliability["target"] == "class")
                    & (reliability["class"] == digit)
                    & (reliability["count"] > 0)
                ]
                ax.plot(
                    rows["conf"],
                    rows["acc"],
                    style,
                    markersize=3,
                    color="C0" if reading == "before" else "C3",
                    label=reading,
                )
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xticks([0, 0.5, 1], ["0", ".5", "1"])
            ax.set_yticks([0, 0.5, 1], ["0", ".5", "1"])
            ax.tick_params(labelsize=6, length=2, pad=1)
            if r == 0:
                ax.set_title(f"digit {digit}", fontsize=7)
            if c == 0:
                ax.set_ylabel(f"{title}\naccuracy", fontsize=7)
    fig.supxlabel("confidence (mean in bin)", fontsize=7)
    # The legend above the panels, not inside one (where it hid that panel's points).
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=2, fontsize=7, frameon=False)
    return fig
