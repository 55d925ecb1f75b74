"""The calibration sweep end to end: per-seed jobs, structural claims, the aggregate, exit codes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.io import read_json, read_parquet
from nesybench.stages import run_stage

REPO = Path(__file__).resolve().parents[2]
N_SEEDS = 3


def _make_root(tmp: Path, **overrides) -> Path:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["calibration"].update({"n_seeds": N_SEEDS, **overrides})
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(REPO / "workflow" / "schemas", tmp / "workflow" / "schemas")
    return tmp


VARIANT = "stratify=label_heldout"  # the level params.yaml measures besides the default


def _run(
    root: Path, stage: str, step: str | None = None, seed: int | None = None, variant=None
) -> int:
    argv = ["calibration", *([step] if step else []), "--params", str(root / "params.yaml")]
    if variant is not None:
        argv += ["--arg", f"variant={variant}"]
    if seed is not None:
        argv += ["--arg", f"seed={seed}"]
    return run_stage(stage, argv)


def _run_sweep(root: Path, *, upto: str = "aggregate") -> None:
    """Every job in dependency order, as Snakemake would run them."""
    assert _run(root, "generate") == 0
    for seed in range(N_SEEDS):
        assert _run(root, "generate", "seed", seed) == 0
    assert _run(root, "count") == 0
    for stage in ("train", "score", "calibrate"):
        for seed in range(N_SEEDS):
            assert _run(root, stage, "seed", seed) == 0, (stage, seed)
    if upto == "aggregate":
        assert _run(root, "calibrate", "aggregate") == 0
        for seed in range(N_SEEDS):
            assert _run(root, "calibrate", "variant", seed, variant=VARIANT) == 0
        assert _run(root, "calibrate", "sensitivity") == 0


def _seed(root: Path, stage: str, name: str, seed: int) -> Path:
    return root / "data" / stage / "calibration" / "seed" / f"seed-{seed}" / f"{name}"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = _make_root(tmp_path_factory.mktemp("cal") / "a")
    _run_sweep(root)
    return root


def test_sweep_writes_per_seed_artifacts_and_the_aggregate(root):
    for seed in range(N_SEEDS):
        for stage, name in (
            ("generate", "labelled"),
            ("train", "scores"),
            ("score", "before_reliability"),
            ("calibrate", "summary"),
            ("calibrate", "ledger"),
        ):
            assert _seed(root, stage, f"{name}.parquet", seed).exists(), (stage, name, seed)
    for name in ("distribution", "claims", "exhibit", "bootstrap", "summaries"):
        assert (root / "data/calibrate/calibration" / f"{name}.parquet").exists()
    assert (
        (root / "reports" / "plots" / "calibration-reliability.csv")
        .read_text()
        .startswith("method,bin,conf,acc,count,acc_lo,acc_hi\n")
    )


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_structural_claims_hold_on_every_seed(root, seed):
    m = read_json(_seed(root, "calibrate", "metrics_seed.json", seed))
    s = read_json(_seed(root, "score", "metrics_seed.json", seed))
    assert m["calibrate.nll_cal_at_tau"] <= m["calibrate.nll_cal_at_tau1"]
    assert m["calibrate.accuracy"] == s["score.accuracy"] and m["calibrate.auc"] == s["score.auc"]
    inv = read_parquet(_seed(root, "calibrate", "invariance.parquet", seed))
    assert inv[inv["method"] == "temperature"]["held"].all()
    ledger = read_parquet(_seed(root, "calibrate", "ledger.parquet", seed)).set_index("metric")
    assert not ledger.loc["acc", "moved_temperature"] and not ledger.loc["auc", "moved_temperature"]
    before = read_parquet(_seed(root, "score", "before_summary.parquet", seed)).set_index("metric")[
        "value"
    ]
    parts = before["brier_calibration"] + before["brier_refinement"] + before["brier_residual"]
    assert abs(parts - before["brier"]) <= 1e-12


def test_aggregate_summarises_every_seed(root):
    summaries = read_parquet(root / "data/calibrate/calibration/summaries.parquet")
    assert summaries["seed"].tolist() == list(range(N_SEEDS))
    dist = read_parquet(root / "data/calibrate/calibration/distribution.parquet").set_index(
        "metric"
    )
    taus = summaries["tau"]
    assert dist.loc["tau", "mean"] == pytest.approx(taus.mean())
    assert dist.loc["tau", "lo"] <= dist.loc["tau", "mean"] <= dist.loc["tau", "hi"]
    assert dist.loc["tau", "n_seeds"] == N_SEEDS
    claims = read_parquet(root / "data/calibrate/calibration/claims.parquet").set_index("claim")
    assert claims.loc["tau_above_1", "holds_on"] == int((taus > 1).sum())
    assert claims.loc["ece_improves", "holds_on"] == int(summaries["ece_improves"].sum())
    exhibit = read_parquet(root / "data/calibrate/calibration/exhibit.parquet").iloc[0]
    # rule chapter_median: among the seeds whose eval half holds the chapter's 2 held-out
    # facts, else (none here) among all seeds, said so
    assert exhibit["rule"] == "chapter_median"
    matching = summaries[summaries["heldout_in_eval"] == 2]
    pool = matching if len(matching) else summaries
    ranked = pool.sort_values(["ece_change_temperature", "seed"])["seed"].tolist()
    assert exhibit["seed"] == ranked[(len(ranked) - 1) // 2]
    assert ("so the median" in exhibit["statement"]) == matching.empty
    metrics = read_json(root / "data/calibrate/calibration/metrics_aggregate.json")
    assert metrics["calibrate.tau.mean"] == pytest.approx(taus.mean())
    assert metrics["calibrate.tau.n_seeds"] == N_SEEDS
    assert metrics["calibrate.tau.claim_rate"] == claims.loc["tau_above_1", "rate"]


def test_brier_after_temperature_is_a_claim_over_seeds(root):
    summaries = read_parquet(root / "data/calibrate/calibration/summaries.parquet")
    change = summaries["brier_after_temperature"] - summaries["brier_before"]
    assert summaries["brier_change_temperature"].tolist() == pytest.approx(change.tolist())
    assert summaries["brier_rises"].tolist() == (change > 0).tolist()
    claims = read_parquet(root / "data/calibrate/calibration/claims.parquet").set_index("claim")
    assert claims.loc["brier_rises", "holds_on"] == int((change > 0).sum())


def test_sensitivity_table_has_the_default_run_and_every_level(root):
    from nesybench.calibration.claims import SEED_CLAIMS

    table = read_parquet(root / "data/calibrate/calibration/sensitivity.parquet")
    claims = read_parquet(root / "data/calibrate/calibration/claims.parquet").set_index("claim")
    assert list(dict.fromkeys(table["claim"])) == [c.name for c in SEED_CLAIMS]
    assert set(table["setting"]) == {"default", VARIANT}
    default = table[table["setting"] == "default"].set_index("claim")
    for c in SEED_CLAIMS:  # the default row is the default run's claim table
        assert default.loc[c.name, "holds_on"] == claims.loc[c.name, "holds_on"]
        assert default.loc[c.name, "n_seeds"] == N_SEEDS
    level = table[table["setting"] == VARIANT]
    assert (level["knob"] == "stratify").all() and (level["level"] == "label_heldout").all()
    assert (level["provenance"] == "stated by the chapter").all()
    metrics = read_json(root / "data/calibrate/calibration/metrics_sensitivity.json")
    for key in ("claim_rate", "lo", "hi", "n_seeds"):
        # the knob level as one key segment (nesybench.metric_keys.knob_segment)
        assert f"calibrate.sensitivity.ece_improves.stratify_label_heldout.{key}" in metrics
        assert f"calibrate.sensitivity.ece_improves.stratify_label.{key}" in metrics


def test_the_stratify_knob_reaches_the_split(root):
    """label_heldout never leaves 0 or 3 held-out facts in the eval half, and on these seeds
    it moves them: the counts differ from the label-only split's on some seed."""
    variants = [
        read_parquet(
            root
            / f"data/calibrate/calibration/variant/variant-{VARIANT}/seed-{s}"
            / "variant_summary.parquet"
        )
        for s in range(N_SEEDS)
    ]
    held = [int(v["heldout_in_eval"].iloc[0]) for v in variants]
    assert set(held) <= {1, 2}
    summaries = read_parquet(root / "data/calibrate/calibration/summaries.parquet")
    assert summaries["heldout_in_eval"].tolist() != held


def test_conditional_rows_partition_the_seeds(root):
    from nesybench.calibration.sensitivity import CONDITIONAL_CLAIMS

    table = read_parquet(root / "data/calibrate/calibration/conditional.parquet")
    summaries = read_parquet(root / "data/calibrate/calibration/summaries.parquet")
    default = table[table["setting"] == "default"]
    assert sorted(set(default["heldout_in_eval"])) == [0, 1, 2, 3]
    assert default.loc[default["chapter_case"], "heldout_in_eval"].unique().tolist() == [2]
    for claim in CONDITIONAL_CLAIMS:
        rows = default[default["claim"] == claim].set_index("heldout_in_eval")
        for k, row in rows.iterrows():
            part = summaries[summaries["heldout_in_eval"] == k]
            assert (row["n_seeds"], row["holds_on"]) == (len(part), int(part[claim].sum()))


def test_tau_matches_scipy_on_the_calibration_half(root):
    from scipy.optimize import minimize_scalar

    from nesybench.metrics.calibration import nll_from_scores

    lab = read_parquet(_seed(root, "generate", "labelled.parquet", 1))
    scores = read_parquet(_seed(root, "train", "scores.parquet", 1))
    cal = lab.merge(scores, on="triple_id").query("split == 'cal'")
    ref = minimize_scalar(
        lambda t: nll_from_scores(cal["label"], cal["score"], temperature=t),
        bounds=(0.05, 20.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    tau = read_json(_seed(root, "calibrate", "metrics_seed.json", 1))["calibrate.tau"]
    assert abs(tau - ref.x) / ref.x <= 1e-6


def test_sweep_is_byte_identical_across_runs(root, tmp_path):
    other = _make_root(tmp_path / "b")
    _run_sweep(other)
    files = sorted(p.relative_to(root) for p in (root / "data").rglob("*") if p.is_file())
    assert len(files) > 20
    for rel in files:
        assert (root / rel).read_bytes() == (other / rel).read_bytes(), rel


def test_enforced_claim_below_its_rate_exits_1_and_writes_nothing(root, tmp_path, capsys):
    claims = yaml.safe_load((REPO / "params.yaml").read_text())["calibration"]["claims"]
    summaries = read_parquet(root / "data/calibrate/calibration/summaries.parquet")
    # Enforce a claim at a rate above the one this sweep reached.
    rate = float(summaries["ece_improves"].mean())
    claims["ece_improves"] = {"min_rate": min(1.0, rate + 0.01), "enforce": True}
    other = _make_root(tmp_path / "c", claims=claims)
    shutil.copytree(root / "data", other / "data")
    aggregate = other / "data/calibrate/calibration"
    for name in ("distribution.parquet", "claims.parquet", "metrics_aggregate.json"):
        (aggregate / name).unlink()
    assert _run(other, "calibrate", "aggregate") == 1
    err = capsys.readouterr().err
    assert "claim failed: [calibration:calibrate:aggregate]" in err
    assert f"holds on {int(summaries['ece_improves'].sum())} of {N_SEEDS} seeds" in err
    assert not (aggregate / "distribution.parquet").exists()


def test_a_per_seed_job_of_another_sweep_size_is_the_same_job(root, tmp_path):
    """Growing n_seeds leaves a finished seed's params (and so its bytes) unchanged."""
    other = _make_root(tmp_path / "g", n_seeds=N_SEEDS + 2)
    assert _run(other, "generate", "seed", 1) == 0
    rel = Path("data/generate/calibration/seed/seed-1/labelled.parquet")
    assert (other / rel).read_bytes() == (root / rel).read_bytes()


def test_a_seed_outside_the_sweep_is_refused(root, capsys):
    assert _run(root, "train", "seed", N_SEEDS) == 2
    assert "names no instance of this job" in capsys.readouterr().err


@pytest.mark.parametrize(
    "override, message",
    [
        ({"corruptions": 0}, "calibration.corruptions must be >= 1, got 0"),
        ({"cal_fraction": 1.5}, "calibration.cal_fraction must be < 1, got 1.5"),
        ({"strategy": "kmeans"}, "calibration.strategy must be one of"),
        (
            {"model": {"dim": 8, "epochs": 10, "lr": -1.0, "l2": 0.0, "init_scale": 0.1}},
            "calibration.model.lr must be > 0",
        ),
        ({"extra": 1}, "calibration has unknown key extra"),
        ({"n_seeds": 0}, "calibration.n_seeds must be >= 1, got 0"),
        ({"exhibit": "best"}, "calibration.exhibit must be one of"),
    ],
)
def test_bad_params_exit_2_with_one_line(tmp_path, capsys, override, message):
    other = _make_root(tmp_path / "d", **override)
    assert _run(other, "generate") == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (other / "data").exists()


def test_report_section_reads_artifacts(root):
    from nesybench.calibration.report import section
    from nesybench.params import load_params
    from nesybench.report.blocks import Figure, Paragraph, Table
    from nesybench.report.loader import ReportLoader

    params = load_params(root / "params.yaml")["calibration"]
    blocks = section(ReportLoader(root, "calibration", params))
    titles = [b.title for b in blocks if isinstance(b, (Table, Figure))]
    assert titles[:2] == [
        f"Distribution over {N_SEEDS} seeds",
        "The chapter's directional claims, seed by seed",
    ]
    assert any(t.startswith("BEFORE") for t in titles) and any(
        t.startswith("Ledger") for t in titles
    )
    assert sum(t.startswith("AFTER") for t in titles) == 3
    exhibit = read_parquet(root / "data/calibrate/calibration/exhibit.parquet").iloc[0]
    text = " ".join(b.text for b in blocks if isinstance(b, Paragraph))
    assert f"seed {exhibit['seed']}: {exhibit['statement']}" in text
    assert "What each claim depends on: its rate over seeds at each measured level" in titles
    assert any(t.startswith("Temperature claims conditional") for t in titles)
    fig = [b for b in blocks if isinstance(b, Figure)][0]
    assert len(fig.figure.axes) == 8  # four reliability diagrams, each over its bin counts


def test_the_in_memory_chain_is_the_default_run(root):
    """The variant machinery, run at the default params, gives each seed's summary exactly."""
    import pandas as pd

    from nesybench.calibration.sensitivity import CHAIN, KEEP
    from nesybench.params import load_params
    from nesybench.sensitivity import run_in_memory

    params = load_params(root / "params.yaml")
    for seed in range(N_SEEDS):
        tables = run_in_memory(
            "calibration", CHAIN, params=params, root=root, wildcards={"seed": seed}, keep=[KEEP]
        )
        pd.testing.assert_frame_equal(
            tables[KEEP], read_parquet(_seed(root, "calibrate", "summary.parquet", seed))
        )
