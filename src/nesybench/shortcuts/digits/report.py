"""Report blocks of the real-digit task (MNIST-Addition) and of concept-head calibration.

Every number is read from a pipeline artifact through the loader.
"""

from __future__ import annotations

import pandas as pd

from ...canonical import unsigned_zero
from ...report.blocks import Block, Figure, Heading, Paragraph, Table
from ..report_models import sweep_tables
from .summaries import CALIBRATION_READINGS, SWEEP_METRICS

SPLITS = ("train", "val", "test", "ood")


def _image_source(loader, cert, support: str) -> tuple[str, str]:
    """What the digit images are (heading, sentence), read from the generated supports table."""
    from .tasks import SKLEARN

    sup = loader.table("generate", "digit_supports")
    first = sup[sup["support"] == support].iloc[0]
    own = cert[(cert["support"] == support) & (cert["kind"] == "images")]
    n = int(own[own["item"] == "all"]["count"].sum())
    size = f"{int(first['image_height'])}x{int(first['image_width'])}"
    if first["images"] == SKLEARN:
        return (
            "scikit-learn's bundled handwritten digits",
            f"The {n:,} real {size} scans of scikit-learn's `load_digits` (digits used)",
        )
    return (
        f"the digit images of {first['images']}",
        f"The {n:,} {size} images of `{first['images']}` (sha256 "
        f"{str(first['images_sha256'])[:12]}, digits used)",
    )


def certificate_blocks(loader) -> list[Block]:
    """The generator certificate: images per pool and digit, tuples per split, the supports,
    and sample images with their gold digits."""
    from .tasks import sample_figure

    d = loader.params["digits"]
    cert = loader.table("generate", "digit_certificate")
    h2h = d["head_to_head"]["support"]
    rows = []
    for name in d["supports"]:
        own = cert[cert["support"] == name]
        total = own[own["item"] == "all"].set_index(["kind", "split"])["count"]
        support = own[own["kind"] == "support"]
        rows.append(
            {
                "support": name,
                "observed tuples": int((support["split"] == "train").sum()),
                "domain": int(len(support)),
                **{f"{s} points": int(total["tuples", s]) for s in SPLITS},
                "tuple kinds (train)": int(
                    ((own["kind"] == "tuples") & (own["split"] == "train")).sum() - 1
                ),
            }
        )
    first = d["supports"][h2h]
    images = cert[(cert["support"] == h2h) & (cert["kind"] == "images") & (cert["item"] != "all")]
    per_digit = images.pivot(index="item", columns="split", values="count").reset_index()
    per_digit = per_digit.rename(columns={"item": "digit"})[["digit", "train", "val", "test"]]
    samples = loader.table("generate", "digit_samples")
    heading, images = _image_source(loader, cert, h2h)
    return [
        Heading(f"Real digits: MNIST-Addition on {heading}", level=3),
        Paragraph(
            f"{images} are split first, stratified "
            "by digit, into disjoint train / val / test image pools (asserted), then tuples of "
            f"{d['n_positions']} images are built from each pool; a point's label is computed "
            f"from its gold digits, y = {d['knowledge']}(gold), asserted on every split. The "
            "in-distribution splits draw only the support's tuples; the ood split draws the "
            "others, from the test pool."
        ),
        Table(
            "generator certificate: tuples per split and support",
            pd.DataFrame(rows),
            params={"knowledge": d["knowledge"], "seed": loader.params["seed"]},
        ),
        Table(
            f"images per pool and digit (digits 0-{first['n_digits'] - 1})",
            per_digit,
            params={"image_fracs": ", ".join(map(str, d["image_fracs"]))},
        ),
        Figure(
            "sample images with their gold digits",
            sample_figure(
                samples,
                knowledge=d["knowledge"],
                title=f"{h2h} support, train split: gold digits and label",
            ),
            name="shortcuts-digit-samples",
            caption="The first points of the (shuffled) training split; titles are the gold "
            "digits and the label they determine.",
        ),
    ]


def _sweep_wide(sweep: pd.DataFrame) -> pd.DataFrame:
    """One row per (support, mitigation), one ``mean [lo, hi]`` column per metric."""
    sweep = sweep.copy()
    sweep["cell"] = [
        f"{r.mean:.3f} [{r.lo:.3f}, {r.hi:.3f}]" for r in sweep.itertuples(index=False)
    ]
    wide = sweep.pivot_table(
        index=["order", "support", "mitigation"], columns="metric", values="cell", aggfunc="first"
    ).reset_index()
    metrics = [m for m in SWEEP_METRICS if m in wide.columns]
    return wide[["support", "mitigation", *metrics]].fillna("-")


def _counts_as_text(df: pd.DataFrame, columns) -> pd.DataFrame:
    """Count columns that may be missing (the neural baseline has no concepts) as integers or a
    dash."""
    df = df.copy()
    for col in columns:
        df[col] = ["–" if pd.isna(v) else str(int(v)) for v in df[col]]
    return df


def _signed(value: float) -> str:
    """``+0.006`` / ``-0.185``; a value that rounds to zero prints unsigned, ``0.000``."""
    return unsigned_zero(f"{value:+.3f}").replace("+0.000", "0.000")


def _calibration_wide(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (support, mitigation, method): ``before -> after`` per metric, and the ECE
    change with its interval."""
    rows = []
    for (_, support, mitigation, method), cell in table.groupby(
        ["order", "support", "mitigation", "method"], sort=True
    ):
        by = cell.set_index("metric")
        row = {"support": support, "mitigation": mitigation, "method": method}
        for metric in CALIBRATION_READINGS:
            row[metric] = f"{by.loc[metric, 'before']:.3f} -> {by.loc[metric, 'after']:.3f}"
        e = by.loc["ece_top"]
        row["ece_top change [95%]"] = (
            f"{_signed(e['change'])} [{_signed(e['change_lo'])}, {_signed(e['change_hi'])}]"
        )
        row["tau at bracket edge"] = f"{int(e['tau_at_edge'])}/{int(e['n_seeds'])}"
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_blocks(loader) -> list[Block]:
    """The digit head-to-head over seeds, the mitigation sweep, incidence vs the count."""
    from ..figures import digit_incidence_figure, seeds_figure

    p, d = loader.params, loader.params["digits"]
    summary = loader.table("score", "digit_summaries")
    incidence = loader.table("score", "digit_incidence")
    return [
        Heading("The mitigation sweep on real digits", level=3),
        *sweep_tables(
            loader.table("score", "digit_distribution"),
            loader.table("score", "digit_claims"),
            what=f"Digit head-to-head on {d['head_to_head']['support']} (label-only vs "
            f"{d['head_to_head']['supervised']})",
        ),
        Figure(
            "every seed's digit panel",
            seeds_figure(summary, ["acc_y", "acc_y_ood", "acc_c", "cls_c", "ece_c"]),
            name="shortcuts-digit-seeds",
            caption="One dot per seed; the two models of a seed share their initial weights "
            "and batch order.",
        ),
        Table(
            "mitigation sweep: mean [95% bootstrap interval of the mean] over seeds",
            _sweep_wide(loader.table("score", "digit_sweep")),
            params={"n_seeds": p["n_seeds"], "epochs": d["model"]["epochs"]},
            note="AccY on test (the support's tuples) and ood (the others); the panel on test "
            "(digit positions as concepts); Cls(C) over digit pairs and over single digits "
            "(cls_c_digits). neural: the MLP baseline without concepts (labels only).",
        ),
        Table(
            "shortcut incidence per support and mitigation (95% Wilson), beside the count",
            _counts_as_text(
                incidence.drop(columns=["order"]),
                ["n_distinct", "n_identity_map", "n_shortcut", "n_map_is_optimum"],
            ),
            params={"min AccY": d["min_acc_y"]},
            note="shortcut = label-perfect on the support (test AccY >= min AccY) and the learned "
            "digit map is not the identity; map is optimum = the counter's membership test. "
            "log2 N_opt and n_distinct from the categorical counter (shared digit maps).",
            floatfmt="{:.3f}",
        ),
        Figure(
            "does the count predict where shortcuts appear?",
            digit_incidence_figure(incidence),
            name="shortcuts-digit-incidence",
            caption="One marker per mitigation, one column per support; bars are 95% Wilson "
            "intervals over seeds.",
        ),
    ]


def exhibit_blocks(loader) -> list[Block]:
    """The digit exhibit: its panel, learned maps and confusion matrices."""
    from ..figures import confusion_figure
    from .mitigations import supervised_name

    ex = loader.table("score", "digit_exhibit").iloc[0]
    panel = loader.table("score", "digit_exhibit_panel").sort_values("row")
    models = ["label_only", supervised_name(loader.params["digits"])]
    maps = loader.table("score", "digit_exhibit_maps").set_index("model").loc[models]
    maps = maps.reset_index()
    seed = {"seed": int(ex["seed"])}
    label = (
        f"seed {int(ex['seed'])}: {ex['statement']} ({int(ex['n_shortcut'])} of "
        f"{int(ex['n_seeds'])} seeds land on a shortcut); its label-only AccC "
        f"{ex['value']:.4f} ranks {int(ex['rank'])} of {int(ex['n_seeds'])} (1 = lowest)"
    )
    return [
        Heading(f"Worked example: the digit head-to-head on {ex['support']}", level=3),
        Paragraph(
            f"**Worked example.** One seed, picked by the rule declared in params.yaml "
            f"(`exhibit.digits: {ex['rule']}`): {label}."
        ),
        Table("exhibit: the panel", panel[["metric", *models]], params=seed),
        Table(
            "exhibit: the learned digit maps (true digit -> majority predicted digit, test and "
            "ood images)",
            maps,
            params=seed,
            note="map_is_optimum: asked of the categorical counter's membership test (is the "
            "learned map one of the counted optima of the support, shared digit maps).",
        ),
        Figure(
            "exhibit: the learned digit maps as confusion matrices",
            confusion_figure(
                loader.table("score", "digit_exhibit_confusion"), models, titles=models
            ),
            name="shortcuts-digit-confusion",
            caption="Row = true digit, column = predicted digit (positions pooled, test and ood "
            "images); shade = share of the row.",
        ),
    ]


def calibration_blocks(loader) -> list[Block]:
    """Concept-head calibration over seeds; the digit exhibit's per-class reliability."""
    from ..figures import class_reliability_figure

    d = loader.params["digits"]
    table = loader.table("calibrate", "digit_calibration_table")
    reliability = loader.table("calibrate", "digit_exhibit_reliability")
    method = d["calibration"]["methods"][0]
    shown = reliability[reliability["method"] == method]
    models = list(dict.fromkeys(shown["mitigation"]))
    seed = int(loader.table("score", "digit_exhibit")["seed"].iloc[0])
    summary = loader.table("calibrate", "calibration_summaries")
    n = len(summary)
    edge = {m: int(summary[f"{m}_tau_at_edge"].sum()) for m in ("label_only", "sup")}
    return [
        Heading("Concept-head calibration", level=3),
        *sweep_tables(
            loader.table("calibrate", "calibration_distribution"),
            loader.table("calibrate", "calibration_claims"),
            what="Concept-head calibration",
        ),
        Paragraph(
            "**Bracket edge.** The label-only net's concept-head temperature sits on the edge of "
            f"its search bracket on {edge['label_only']} of {n} seeds, the twin's on "
            f"{edge['sup']} of {n}: there the NLL keeps falling towards the edge (uniform heads "
            "for tau at the top, hard ones at the bottom), so the fitted tau is the bracket, not "
            "an interior optimum, and the ECE(C) drop of the claim above is what flattening "
            "confidently wrong heads buys, not a calibrated temperature."
        ),
        Table(
            "digit heads before -> after calibration (means over seeds; the top-label ECE's "
            "change with its 95% bootstrap interval)",
            _calibration_wide(table),
            params={"fit": "val split", "audit": "test split", "bins": d["n_bins"]},
            note="Digit positions pooled as rows of 10 logits. Temperature keeps every argmax "
            "(asserted per model), so acc cannot move: calibration cannot repair wrong meaning. "
            "A temperature at the bracket edge (20) means the NLL keeps falling as the heads go "
            "uniform: confidently wrong digits. "
            f"Bins: {d['n_bins']} equal-width, left-closed, the last closed.",
        ),
        Figure(
            f"per-class reliability of the digit exhibit's heads ({method})",
            class_reliability_figure(shown, models, titles=models),
            name="shortcuts-digit-reliability",
            caption=f"Seed {seed}, test split: accuracy of 'digit = k' against the mean "
            "probability of k per bin; circles before, crosses after calibration.",
        ),
    ]


def digit_blocks(loader) -> list[Block]:
    return [
        *certificate_blocks(loader),
        *sweep_blocks(loader),
        *exhibit_blocks(loader),
        *calibration_blocks(loader),
    ]
