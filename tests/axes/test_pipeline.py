"""The axes sweep end to end: per-seed jobs, structural claims, gadgets, aggregate, exit codes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.artifacts import registry
from nesybench.io import read_json, read_parquet
from nesybench.params import job_params, load_params, params_hash
from nesybench.stages import run_stage

REPO = Path(__file__).resolve().parents[2]
N_SEEDS = 2
SEED_STAGES = ("generate", "train", "score")


VARIANT = "bank.layer3_heads=2"  # the bank of two layer-3 heads, measured beside the default


def _make_root(tmp: Path, edit=None) -> Path:
    """A scratch root with the repository's params (axes.n_seeds = 2, one bank knob level)
    and schemas."""
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["axes"]["n_seeds"] = N_SEEDS
    params["axes"]["knobs"]["bank.layer3_heads"]["levels"] = [2]
    if edit:
        edit(params["axes"])
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(REPO / "workflow" / "schemas", tmp / "workflow" / "schemas")
    return tmp


def _run(
    root: Path, stage: str, step: str | None = None, seed: int | None = None, variant=None
) -> int:
    argv = ["axes", *([step] if step else []), "--params", str(root / "params.yaml")]
    if variant is not None:
        argv += ["--arg", f"variant={variant}"]
    if seed is not None:
        argv += ["--arg", f"seed={seed}"]
    return run_stage(stage, argv)


def _run_seeds(root: Path) -> None:
    for stage in SEED_STAGES:
        for seed in range(N_SEEDS):
            assert _run(root, stage, "seed", seed) == 0, (stage, seed)
        if stage == "generate":
            assert _run(root, "count") == 0


def _run_sweep(root: Path) -> None:
    """Every job in dependency order, as Snakemake would run them."""
    _run_seeds(root)
    assert _run(root, "score", "gadgets") == 0
    assert _run(root, "score", "aggregate") == 0
    for seed in range(N_SEEDS):
        assert _run(root, "score", "variant", seed, variant=VARIANT) == 0
    assert _run(root, "score", "sensitivity") == 0


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = _make_root(tmp_path_factory.mktemp("axes") / "a")
    _run_sweep(root)
    return root


def _metrics(root: Path, stage: str, step: str, seed: int | None = None) -> dict:
    folder = root / "data" / stage / "axes" / (f"{step}/seed-{seed}" if seed is not None else "")
    return read_json(folder / f"metrics_{step}.json")


def test_sweep_writes_every_declared_artifact_and_nothing_else(root):
    section = load_params(root / "params.yaml")["axes"]
    declared = {path for _, _, path in registry("axes").all_paths(section)}
    declared |= {"reports/plots/axes-per_depth.csv", "reports/plots/axes-profile.csv"}
    written = {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] in ("data", "reports")
    }
    assert written == declared
    assert sum("seed-1/" in p for p in declared) == sum("seed-0/" in p for p in declared) > 10


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_structural_numbers_hold_on_every_seed(root, seed):
    m = _metrics(root, "score", "seed", seed)
    assert m["score.accuracy_on_parsed"] == 1.0
    assert m["score.flip_prover_accuracy_after"] == 1.0
    assert m["score.grid_capped_beyond_cap"] == m["score.grid_chance_beyond_cap"]
    assert m["score.grid_pipeline_accuracy"] == m["score.grid_pipeline_coverage"]
    per_depth = read_parquet(root / f"data/score/axes/seed/seed-{seed}/per_depth.parquet")
    assert (per_depth["acc_on_parsed"] == 1.0).all()
    assert (per_depth["overall"] == per_depth["coverage"]).all()  # P(correct) = P(parse) x 1
    summary = read_parquet(root / f"data/score/axes/seed/seed-{seed}/summary.parquet")
    assert summary["seed"].tolist() == [seed]


def test_seeds_differ_and_each_seed_is_its_own_stream(root):
    a = read_parquet(root / "data/generate/axes/seed/seed-0/grid.parquet")
    b = read_parquet(root / "data/generate/axes/seed/seed-1/grid.parquet")
    assert a["id"].tolist() == b["id"].tolist()  # the same cells and indices...
    assert (a["context"] != b["context"]).mean() > 0.9  # ...drawn from different streams


def test_aggregate_metrics_are_distributions_with_claim_rates(root):
    m = _metrics(root, "score", "aggregate")
    for name in ("soft_depth_3", "coverage_repaired", "grid_soft_distractor_drop"):
        assert m[f"score.{name}.n_seeds"] == N_SEEDS
        assert m[f"score.{name}.lo"] <= m[f"score.{name}.mean"] <= m[f"score.{name}.hi"]
    assert m["score.soft_depth_deepest.claim_rate"] == 1.0
    assert m["score.grid_soft_distractor_drop.claim_rate"] == 1.0
    assert m["score.exhibit.rank"] == 1 and m["score.exhibit.seed"] in range(N_SEEDS)
    claims = read_parquet(root / "data/score/axes/claims.parquet")
    assert (claims["verdict"] == "holds (asserted)").all() and len(claims) == 7
    assert "at most 0.65" in claims.loc[0, "statement"]  # thresholds spelled from params


def test_gadgets_and_design_carry_their_exact_numbers(root):
    g = _metrics(root, "score", "gadgets")
    assert g["score.gadgets.scale.m8.closure"] == 44
    assert g["score.gadgets.query_joins.k7.witnesses"] == 126
    assert g["score.gadgets.semantics.seeds"] == N_SEEDS
    assert g["score.gadgets.semantics.monotone_min"] == 20
    c = read_json(root / "data/count/axes/metrics.json")
    assert c["count.design.questions_total"] == 841_995 and c["count.seeds"] == N_SEEDS
    query = read_parquet(root / "data/score/axes/gadget_query_joins.parquet")
    assert query["witnesses"].tolist() == [6, 6, 18, 30, 66, 126]


def test_profiles_over_seeds_summarise_the_per_seed_profiles(root):
    over = read_parquet(root / "data/score/axes/profile_over_seeds.parquet")
    per_seed = [
        read_parquet(root / f"data/score/axes/seed/seed-{s}/grid_profile.parquet")
        for s in range(N_SEEDS)
    ]
    row = over[(over["system"] == "soft_reasoner") & (over["axis"] == "depth")].iloc[0]
    values = [
        p.loc[(p["system"] == "soft_reasoner") & (p["axis"] == "depth")].iloc[0] for p in per_seed
    ]
    assert row["mean"] == pytest.approx(sum(v["accuracy"] for v in values) / N_SEEDS)
    assert row["n_seeds"] == N_SEEDS
    capped = over[(over["system"] == "depth_capped") & (over["axis"] == "depth")]
    assert capped["mean"].tolist()[:3] == [1.0, 1.0, 1.0]  # exact up to its cap (2)


def test_growing_n_seeds_leaves_every_seed_job_untouched():
    params = load_params(REPO / "params.yaml")["axes"]
    reg = registry("axes")
    for stage in SEED_STAGES:
        job = reg.job(stage, "seed")
        grown = dict(params, n_seeds=params["n_seeds"] + 5)
        assert params_hash(job_params(params, job)) == params_hash(job_params(grown, job))
        moved = dict(params, claims={**params["claims"], "mixture_tie_exists": {}})
        assert params_hash(job_params(params, job)) == params_hash(job_params(moved, job))


def test_rerun_of_a_seed_gives_the_same_bytes(root, tmp_path):
    other = _make_root(tmp_path)
    assert _run(other, "generate", "seed", 1) == 0
    assert _run(other, "train", "seed", 1) == 0
    assert _run(other, "score", "seed", 1) == 0
    for path in sorted((other / "data").rglob("*")):
        if path.is_file():
            twin = root / path.relative_to(other)
            assert twin.read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda a: a["bank"].update(fact_prob=1.5), "axes.bank.fact_prob must be < 1, got 1.5"),
        (lambda a: a.update(seed=15), "axes has unknown key seed"),
        (lambda a: a.update(n_seeds=0), "axes.n_seeds must be >= 1, got 0"),
        (lambda a: a.update(exhibit="best"), "axes.exhibit must be one of"),
        (
            lambda a: a["claims"]["grid_distractors_move_soft"].update(min_drop=2),
            "axes.claims.grid_distractors_move_soft.min_drop must be <= 1, got 2",
        ),
        (
            lambda a: a["claims"]["soft_deep_near_chance"].pop("max_accuracy"),
            "axes.claims.soft_deep_near_chance is missing required key max_accuracy",
        ),
        (
            lambda a: a["claims"]["mixture_tie_exists"].update(min_drop=0.1),
            "axes.claims.mixture_tie_exists has unknown key min_drop",
        ),
        (lambda a: a["claims"].pop("soft_misses_flips"), "missing required key soft_misses_flips"),
        (
            lambda a: a["gadgets"].update(chase_budgets=[40, 10]),
            "axes.gadgets.chase_budgets must be increasing",
        ),
        (
            lambda a: a["grid"].update(depth_cap=3),
            "axes.grid.depth_cap must be in [0, max depth level)",
        ),
    ],
)
def test_bad_params_stop_the_first_job_with_one_line(tmp_path, capsys, edit, message):
    root = _make_root(tmp_path, edit)
    assert _run(root, "generate", "seed", 0) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (root / "data").exists()


def test_a_seed_outside_the_sweep_is_refused(tmp_path, capsys):
    root = _make_root(tmp_path)
    assert _run(root, "generate", "seed", N_SEEDS) == 2
    assert "names no instance of this job" in capsys.readouterr().err


def _aggregate_root(root: Path, tmp: Path, edit) -> Path:
    """A root holding the per-seed artifacts of ``root`` but no aggregate, under edited params."""
    other = _make_root(tmp, edit)
    shutil.copytree(root / "data", other / "data")
    for path in (other / "data" / "score" / "axes").glob("*.*"):
        if path.is_file():  # the aggregates' files; a variant-<knob>=<level>/ folder stays
            path.unlink()
    return other


def test_an_enforced_claim_below_its_rate_exits_1_and_writes_nothing(root, tmp_path, capsys):
    def strict(a):
        a["claims"]["soft_deep_near_chance"]["max_accuracy"] = 0.3

    other = _aggregate_root(root, tmp_path, strict)
    assert _run(other, "score", "aggregate") == 1
    err = capsys.readouterr().err
    assert "claim failed: [axes:score:aggregate] axes over 2 seeds" in err
    assert "at most 0.3" in err and "holds on 0 of 2 seeds" in err
    assert not (other / "data/score/axes/claims.parquet").exists()


def test_an_unenforced_claim_below_its_rate_is_a_finding(root, tmp_path):
    def finding(a):
        a["claims"]["soft_deep_near_chance"].update(max_accuracy=0.3, enforce=False)

    other = _aggregate_root(root, tmp_path, finding)
    assert _run(other, "score", "aggregate") == 0
    claims = read_parquet(other / "data/score/axes/claims.parquet").set_index("claim")
    assert claims.loc["soft_deep_near_chance", "verdict"] == "finding: below the chapter's claim"
    assert claims.loc["soft_deep_near_chance", "failing_seeds"] == "0,1"
    m = read_json(other / "data/score/axes/metrics_aggregate.json")
    assert m["score.soft_depth_deepest.claim_rate"] == 0.0


def test_the_bank_variant_is_the_default_run_at_the_default_level(root):
    """bank_summary, run at the default params, gives the default run's bank numbers."""
    from nesybench.axes.sensitivity import bank_summary

    section = load_params(root / "params.yaml")["axes"]
    for seed in range(N_SEEDS):
        ours = bank_summary(section, seed)
        main = read_parquet(root / f"data/score/axes/seed/seed-{seed}/summary.parquet")
        shared = [c for c in ours.columns if c in main.columns]
        assert len(shared) > 15
        assert ours[shared].equals(main[shared]), seed


def test_the_layer3_knob_moves_only_depth_3(root):
    from nesybench.axes.bank import MAX_LAYER

    table = read_parquet(root / "data/score/axes/sensitivity.parquet")
    assert set(table["setting"]) == {"default", VARIANT}
    # the grid's claim is judged at the default only: the bank knobs do not reach the grid
    grid = table[table["claim"] == "grid_distractors_move_soft"]
    assert grid["setting"].tolist() == ["default"]
    mixture = read_parquet(root / "data/score/axes/sensitivity_mixture.parquet")
    share = mixture[mixture["metric"] == "depth_share_3"].set_index("setting")["mean"]
    assert share[VARIANT] > 1.5 * share["default"]
    for seed in range(N_SEEDS):
        two = read_parquet(
            root / f"data/score/axes/variant/variant-{VARIANT}/seed-{seed}/variant_summary.parquet"
        )
        one = read_parquet(root / f"data/score/axes/seed/seed-{seed}/summary.parquet")
        for d in range(MAX_LAYER):  # depths 0-2 are the same questions under either bank
            assert two[f"soft_depth_{d}"].iloc[0] == one[f"soft_depth_{d}"].iloc[0]


def test_report_section_reads_only_artifacts(root):
    from nesybench.axes.report import section
    from nesybench.report.blocks import Figure, Paragraph, Table
    from nesybench.report.loader import ReportLoader

    params = load_params(root / "params.yaml")["axes"]
    blocks = section(ReportLoader(root, "axes", params))
    titles = [b.title for b in blocks if isinstance(b, Table)]
    for expected in (
        "Distribution over 2 seeds",
        "The chapter's directional claims, seed by seed",
        "Degradation profiles: mean accuracy over 2 seeds",
        "Depth x distractors: mean accuracy over 2 seeds",
        "Per-depth factorization beside the soft reasoner (same questions)",
        "Which synonym hits which depth",
        "Seven gadgets beyond completeness, completeness pinned in each",
        "Design arithmetic (computed)",
    ):
        assert expected in titles, expected
    figures = [b.name for b in blocks if isinstance(b, Figure)]
    assert figures == ["axes-profile", "axes-per_depth"]
    text = " ".join(b.text for b in blocks if isinstance(b, Paragraph))
    assert "(rank 1 of 2" in text and "`exhibit: median`" in text
    scale = next(b.df for b in blocks if isinstance(b, Table) and "scale" in b.title)
    assert scale["closure"].tolist() == [44, 152, 560]
    interaction = next(b.df for b in blocks if isinstance(b, Table) and "Depth x" in b.title)
    assert list(interaction.columns) == [
        "system",
        "depth",
        "distractors=0",
        "distractors=2",
        "distractors=4",
    ]
