"""The nli sweep end to end: per-seed jobs, structural claims on every seed, the aggregate's
distributions, claim rates and exhibit seed, the benchmark job, exit codes, identical reruns."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from nesybench.errors import ClaimFailed, InputError
from nesybench.io import parquet_metadata, read_json, read_parquet, write_parquet
from nesybench.nli import pipeline as nli_pipeline
from nesybench.params import load_params
from nesybench.stages import run_job, run_stage

REPO = Path(__file__).resolve().parents[2]
N_SEEDS = 3
AGG = Path("data/score/nli")


VARIANT = "prontoqa.corrupt_prob=0.5"  # one knob level measured beside the default


def _params(**overrides) -> dict:
    params = load_params(REPO / "params.yaml")
    params["nli"].update({"n_seeds": N_SEEDS, **overrides})
    params["nli"]["knobs"]["prontoqa.corrupt_prob"]["levels"] = [0.5]
    return params


def _make_root(tmp: Path, params: dict) -> Path:
    """A throw-away repository root: params.yaml, the schemas and the vendored benchmarks."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(REPO / "workflow" / "schemas", tmp / "workflow" / "schemas")
    (tmp / "benchmarks").symlink_to(REPO / "benchmarks")
    return tmp


def _run_seeds(root: Path, params: dict, *, stages=("generate", "score")) -> None:
    for stage in stages:
        for seed in range(params["nli"]["n_seeds"]):
            run_job("nli", stage, "seed", params=params, root=root, args={"seed": str(seed)})
        if stage == "generate":
            run_job("nli", "count", params=params, root=root)


def _run_sweep(root: Path, params: dict, *, benchmarks: bool = True) -> None:
    """Every job in dependency order, as Snakemake would run them."""
    _run_seeds(root, params)
    run_job("nli", "score", "aggregate", params=params, root=root)
    for seed in range(params["nli"]["n_seeds"]):
        args = {"variant": VARIANT, "seed": str(seed)}
        run_job("nli", "score", "variant", params=params, root=root, args=args)
    run_job("nli", "score", "sensitivity", params=params, root=root)
    if benchmarks:
        run_job("nli", "score", "benchmarks", params=params, root=root)
        run_job("nli", "score", "programs", params=params, root=root)


def _seed(root: Path, stage: str, name: str, seed: int) -> Path:
    return root / "data" / stage / "nli" / "seed" / f"seed-{seed}" / name


@pytest.fixture(scope="module")
def params() -> dict:
    return _params()


@pytest.fixture(scope="module")
def root(tmp_path_factory, params) -> Path:
    root = _make_root(tmp_path_factory.mktemp("nli") / "a", params)
    _run_sweep(root, params)
    return root


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / "data").rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------- per seed
def test_sweep_writes_per_seed_artifacts_and_the_aggregate(root):
    for seed in range(N_SEEDS):
        for stage, name in (
            ("generate", "prontoqa.parquet"),
            ("generate", "folio.parquet"),
            ("score", "traces.parquet"),
            ("score", "per_depth.parquet"),
            ("score", "worked_example.parquet"),
            ("score", "summary.parquet"),
            ("score", "metrics_seed.json"),
        ):
            assert _seed(root, stage, name, seed).exists(), (stage, name, seed)
    for name in ("distribution", "claims", "exhibit", "per_depth_dist", "metric_trap_dist"):
        assert (root / AGG / f"{name}.parquet").exists(), name
    for name in ("agreement", "folio_audit", "score_nli", "score_nli_depth", "inventory"):
        assert (root / AGG / f"{name}.parquet").exists(), name
    plot = pd.read_csv(root / "reports" / "plots" / "nli-per_depth.csv")
    assert plot["hops"].tolist() == [1, 3, 5]
    assert {"pipeline_label_acc", "greedy_proof_acc", "greedy_proof_acc_lo"} <= set(plot.columns)


def test_seeds_draw_different_corpora(root):
    texts = [
        read_parquet(_seed(root, "generate", "prontoqa.parquet", s))["context"].tolist()
        for s in range(N_SEEDS)
    ]
    assert texts[0] != texts[1] != texts[2]


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_structural_claims_hold_on_every_seed(root, seed):
    traces = read_parquet(_seed(root, "score", "traces.parquet", seed))
    pipe = traces[traces["system"] == "translate-then-prove"]
    answered = pipe[~pipe["abstained"]]
    assert answered["strict"].all() and answered["correct"].all()
    assert set(pipe.loc[pipe["abstained"], "id"]) == set(pipe.loc[pipe["is_corrupted"], "id"])
    greedy = traces[traces["system"] == "greedy"]
    assert not (greedy["strict"] & ~greedy["correct"]).any()
    per = read_parquet(_seed(root, "score", "per_depth.parquet", seed)).set_index(
        ["system", "hops"]
    )
    assert per.loc[("greedy", 3), "proof_acc"] == 0.0 and per.loc[("greedy", 5), "proof_acc"] == 0
    assert per.loc[("greedy", 1), "label_acc"] == 1.0 and per.loc[("greedy", 3), "label_acc"] == 1
    summary = read_parquet(_seed(root, "score", "summary.parquet", seed)).iloc[0]
    assert summary["greedy_rfwr"] == pytest.approx(
        summary["greedy_label_accuracy"] - summary["greedy_proof_accuracy"]
    )
    assert summary["pipeline_label_accuracy"] == summary["pipeline_proof_accuracy"]
    assert summary["pipeline_abstention"] == summary["prontoqa_corrupted_frac"]
    folio = read_parquet(_seed(root, "score", "folio_per_label.parquet", seed)).set_index("system")
    assert folio.loc["dual-query prover", "overall"] == 1.0
    assert folio.loc["greedy CWA", "acc_Unknown"] == 0.0
    mix = read_parquet(root / "data/count/nli/label_mix.parquet")
    p_unknown = mix.query("seed == @seed and dataset == 'folio' and label == 'Unknown'")["frac"]
    assert folio.loc["greedy CWA", "overall"] == pytest.approx(1 - float(p_unknown.iloc[0]))


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_worked_example_shows_the_greedy_trap(root, seed):
    worked = read_parquet(_seed(root, "score", "worked_example.parquet", seed)).set_index("system")
    meta = parquet_metadata(_seed(root, "score", "worked_example.parquet", seed))
    assert meta["example_id"].startswith("pq-h3-") and "first example by id" in meta["rule"]
    assert worked.loc["translate-then-prove", "strict"] and not worked.loc["greedy", "strict"]
    assert worked.loc["greedy", "valid"] and not worked.loc["greedy", "linear"]
    assert (worked["label"] == worked["gold_label"]).all()


# ---------------------------------------------------------------- aggregate
def test_aggregate_summarises_every_seed(root):
    summaries = read_parquet(root / AGG / "summaries.parquet")
    assert summaries["seed"].tolist() == list(range(N_SEEDS))
    dist = read_parquet(root / AGG / "distribution.parquet").set_index("metric")
    gap = summaries["label_gap"]
    assert dist.loc["label_gap", "mean"] == pytest.approx(gap.mean())
    assert dist.loc["label_gap", "sd"] == pytest.approx(gap.std(ddof=1))
    assert (
        dist.loc["label_gap", "lo"] <= dist.loc["label_gap", "mean"] <= dist.loc["label_gap", "hi"]
    )
    assert (dist["n_seeds"] == N_SEEDS).all()
    claims = read_parquet(root / AGG / "claims.parquet").set_index("claim")
    assert claims.loc["greedy_wins_labels", "holds_on"] == int((gap > 0).sum())
    assert claims.loc["greedy_loses_proofs", "holds_on"] == int(
        (summaries["proof_gap"] >= 0.25).sum()
    )
    assert bool(claims.loc["greedy_loses_proofs", "enforced"])
    assert not bool(claims.loc["greedy_wins_labels", "enforced"])
    exhibit = read_parquet(root / AGG / "exhibit.parquet").iloc[0]
    ranked = summaries.sort_values(["label_gap", "seed"])["seed"].tolist()
    assert exhibit["seed"] == ranked[(N_SEEDS - 1) // 2] and exhibit["rule"] == "median"
    assert exhibit["rank"] == (N_SEEDS - 1) // 2 + 1


def test_per_depth_distribution_is_the_mean_of_the_seeds(root):
    per_seed = pd.concat(
        [read_parquet(_seed(root, "score", "per_depth.parquet", s)) for s in range(N_SEEDS)]
    )
    dist = read_parquet(root / AGG / "per_depth_dist.parquet").set_index(
        ["system", "hops", "metric"]
    )
    for (system, hops), g in per_seed.groupby(["system", "hops"]):
        row = dist.loc[(system, hops, "label_acc")]
        assert row["mean"] == pytest.approx(g["label_acc"].mean())
        assert row["min"] == g["label_acc"].min() and row["n_seeds"] == N_SEEDS
    plot = pd.read_csv(root / "reports" / "plots" / "nli-per_depth.csv").set_index("hops")
    assert plot.loc[5, "greedy_label_acc"] == pytest.approx(
        dist.loc[("greedy", 5, "label_acc"), "mean"]
    )


def test_aggregate_metrics_carry_distributions_and_claim_rates(root):
    m = read_json(root / AGG / "metrics_aggregate.json")
    claims = read_parquet(root / AGG / "claims.parquet").set_index("claim")
    for name in ("greedy_label_accuracy", "label_gap", "folio_majority_accuracy"):
        for stat in ("mean", "lo", "hi", "n_seeds"):
            assert f"score.{name}.{stat}" in m, (name, stat)
    assert m["score.label_gap.claim_rate"] == claims.loc["greedy_wins_labels", "rate"]
    assert m["score.deep_label_gap.claim_rate"] == claims.loc["greedy_deep_collapse", "rate"]
    assert m["score.per_depth.h3.greedy.proof_accuracy.mean"] == 0.0
    assert m["score.per_depth.h1.greedy.label_accuracy.n_seeds"] == N_SEEDS
    exhibit = read_parquet(root / AGG / "exhibit.parquet").iloc[0]
    assert m["score.exhibit.seed"] == exhibit["seed"]


def test_sweep_is_byte_identical_across_runs(root, params, tmp_path):
    other = _make_root(tmp_path / "b", params)
    _run_sweep(other, params, benchmarks=False)
    mine = {k: v for k, v in _hashes(root).items() if "benchmarks" not in k}
    theirs = _hashes(other)
    assert len(theirs) > 20
    for rel, digest in theirs.items():
        assert mine[rel] == digest, rel


def test_a_per_seed_job_of_another_sweep_is_the_same_job(root, tmp_path):
    """Growing n_seeds or moving a claim's threshold leaves a finished seed's bytes unchanged."""
    claims = copy.deepcopy(_params()["nli"]["claims"])
    claims["greedy_loses_proofs"]["min_gap"] = 0.5
    params = _params(n_seeds=N_SEEDS + 2, claims=claims, exhibit="max")
    other = _make_root(tmp_path / "g", params)
    for stage in ("generate", "score"):
        run_job("nli", stage, "seed", params=params, root=other, args={"seed": "1"})
    for stage, name in (("generate", "prontoqa.parquet"), ("score", "summary.parquet")):
        assert _seed(other, stage, name, 1).read_bytes() == _seed(root, stage, name, 1).read_bytes()


def test_a_seed_outside_the_sweep_is_refused(root, params):
    with pytest.raises(InputError, match="names no instance of this job"):
        run_job("nli", "generate", "seed", params=params, root=root, args={"seed": "99"})


# ---------------------------------------------------------------- claims failing
def _copy_seeds(root: Path, tmp: Path, params: dict) -> Path:
    other = _make_root(tmp, params)
    shutil.copytree(root / "data", other / "data")
    for name in ("distribution.parquet", "claims.parquet", "metrics_aggregate.json"):
        (other / AGG / name).unlink()
    return other


def test_enforced_claim_below_its_rate_exits_1_and_writes_nothing(root, tmp_path, capsys):
    claims = copy.deepcopy(_params()["nli"]["claims"])
    claims["greedy_loses_proofs"]["min_gap"] = 0.9  # above every seed's measured gap
    other = _copy_seeds(root, tmp_path / "c", _params(claims=claims))
    argv = ["nli", "aggregate", "--params", str(other / "params.yaml")]
    assert run_stage("score", argv) == 1
    err = capsys.readouterr().err
    assert "claim failed: [nli:score:aggregate]" in err
    assert f"holds on 0 of {N_SEEDS} seeds" in err and "Traceback" not in err
    assert not (other / AGG / "distribution.parquet").exists()


def test_unenforced_claim_below_its_rate_is_reported_as_a_finding(root, tmp_path):
    claims = copy.deepcopy(_params()["nli"]["claims"])
    claims["greedy_wins_labels"]["min_rate"] = 1.0
    params = _params(claims=claims)
    summaries = read_parquet(root / AGG / "summaries.parquet")
    other = _copy_seeds(root, tmp_path / "f", params)
    # One seed on which greedy does not win the label column, made by hand.
    summary = _seed(other, "score", "summary.parquet", 0)
    row = read_parquet(summary).assign(label_gap=-0.05)
    made_with = parquet_metadata(summary)["params_hash"]
    write_parquet(
        row, summary, key=["seed"], instrument="nli", stage="score", params_hash=made_with
    )
    run_job("nli", "score", "aggregate", params=params, root=other)
    verdict = read_parquet(other / AGG / "claims.parquet").set_index("claim")
    assert verdict.loc["greedy_wins_labels", "verdict"] == "finding: below the chapter's claim"
    assert verdict.loc["greedy_wins_labels", "failing_seeds"] == "0"
    assert len(summaries) == N_SEEDS


def test_structural_claim_failure_fails_the_seed_job_and_writes_nothing(
    root, params, tmp_path, monkeypatch
):
    other = _make_root(tmp_path / "s", params)
    run_job("nli", "generate", "seed", params=params, root=other, args={"seed": "0"})
    real = nli_pipeline.score_prontoqa

    def broken(examples, *, cap):
        traces = real(examples, cap=cap)
        answered = traces.index[(traces["system"] == "translate-then-prove") & ~traces["abstained"]]
        traces.loc[answered[0], "strict"] = False
        return traces

    monkeypatch.setattr(nli_pipeline, "score_prontoqa", broken)
    with pytest.raises(ClaimFailed, match="every translate-then-prove trace passes the checker"):
        run_job("nli", "score", "seed", params=params, root=other, args={"seed": "0"})
    assert not (other / "data" / "score").exists()


def test_a_seed_without_a_worked_example_writes_empty_tables(tmp_path):
    # Every example corrupted: the pipeline abstains everywhere, no clean 3-hop example exists.
    pq = {**_params()["nli"]["prontoqa"], "n_per_hops": 2, "corrupt_prob": 1.0}
    params = _params(n_seeds=1, prontoqa=pq)
    root = _make_root(tmp_path / "e", params)
    _run_seeds(root, params)
    worked = _seed(root, "score", "worked_example.parquet", 0)
    assert read_parquet(worked).empty and parquet_metadata(worked)["example_id"] == ""


# ---------------------------------------------------------------- benchmarks
def test_benchmark_job_on_the_vendored_files(root):
    agreement = read_parquet(root / AGG / "agreement.parquet").set_index("benchmark")
    pw = agreement.loc["proofwriter"]
    assert pw["n_agree"] == pw["parsed"] == pw["n"] > 0
    outcomes = ["True", "False", "Unknown", "Inconsistent", "Undecided"]
    assert (agreement[outcomes].sum(axis=1) == agreement["parsed"]).all()
    audit = read_parquet(root / AGG / "folio_audit.parquet")
    folio = agreement.loc["folio"]
    assert len(audit) == folio["n"] - folio["n_agree"]  # every example not confirmed is listed
    assert (audit.loc[audit["status"] == "not parsed", "reason"] != "").all()
    scores = read_parquet(root / AGG / "score_nli.parquet").set_index("system")
    assert scores[["majority", "uniform", "blind_lo", "blind_hi"]].notna().all().all()
    assert (
        scores.loc["prontoqa-greedy", "proof_accuracy"] < scores.loc["prontoqa-greedy", "accuracy"]
    )
    depth = read_parquet(root / AGG / "score_nli_depth.parquet")
    assert depth["majority"].notna().all()
    inventory = read_parquet(root / AGG / "inventory.parquet").set_index("benchmark")
    assert set(inventory.index) == {"proofwriter", "prontoqa", "folio", "logicbench"}
    m = read_json(root / AGG / "metrics_benchmarks.json")
    assert m["score.agreement.proofwriter.agreement"] == 1.0
    assert m["score.folio_audit.disagreements"] + m["score.folio_audit.not_parsed"] == len(audit)


def test_a_crashing_labeler_fails_the_claim_naming_the_question(
    params, tmp_path, monkeypatch, capsys
):
    from nesybench.nli import benchmark_tables

    real = benchmark_tables.labeler_for

    def crashing(benchmark, **kwargs):
        labeler = real(benchmark, **kwargs)
        if benchmark != "prontoqa":
            return labeler

        def wrapped(q):
            if q.id == "ProntoQA_1":
                raise KeyError("boom")
            return labeler(q)

        return wrapped

    monkeypatch.setattr(benchmark_tables, "labeler_for", crashing)
    other = _make_root(tmp_path / "x", params)
    assert run_stage("score", ["nli", "benchmarks", "--params", str(other / "params.yaml")]) == 1
    err = capsys.readouterr().err
    assert "never crash" in err and "ProntoQA_1" in err and "KeyError" in err
    assert "Traceback" not in err and not (other / "data").exists()


def test_every_vendored_data_file_is_a_declared_input():
    from nesybench.nli.vendored import input_files, program_inputs

    declared = set(input_files(REPO)) | set(program_inputs())
    on_disk = {
        str(p.relative_to(REPO))
        for p in (REPO / "benchmarks").rglob("*")
        if p.suffix in (".json", ".jsonl")
    }
    assert declared == on_disk


# ---------------------------------------------------------------- report
def test_report_section_reads_every_number_from_artifacts(root, params):
    from nesybench.nli.report import section
    from nesybench.report.blocks import Figure, Paragraph, Table
    from nesybench.report.loader import ReportLoader

    blocks = section(ReportLoader(root, "nli", params["nli"]))
    tables = {b.title: b for b in blocks if isinstance(b, Table)}
    figures = [b for b in blocks if isinstance(b, Figure)]
    assert len(figures) == 1 and figures[0].name == "nli-per_depth"
    assert f"Distribution over {N_SEEDS} seeds" in tables
    assert "The chapter's directional claims, seed by seed" in tables
    exhibit = read_parquet(root / AGG / "exhibit.parquet").iloc[0]
    text = " ".join(b.text for b in blocks if isinstance(b, Paragraph))
    assert f"seed {exhibit['seed']}: the median label_gap over {N_SEEDS} seeds" in text
    assert f"rank {exhibit['rank']} of {N_SEEDS}" in text
    assert any(t.startswith("Worked example pq-h3-") for t in tables)
    audit = next(t for t in tables if t.startswith("FOLIO label audit"))
    assert "\n" not in "".join(tables[audit].df["premises_fol"])
    scores = tables["score-nli on the shipped predictions: accuracy beside every baseline"]
    assert "proof accuracy 0.000" in scores.note and "cap 1 - always_unknown" in scores.note


# ---------------------------------------------------------------- programs
def test_programs_job_runs_every_vendored_program_in_both_semantics(root):
    from nesybench.nli.vendored import PROGRAM_FILES

    programs = read_parquet(root / "data/score/nli/programs.parquet")
    assert len(programs) == 2 * len(PROGRAM_FILES)
    assert set(programs["semantics"]) == {"standard", "logic-lm"}
    for row in programs.itertuples():
        records = json.loads((REPO / "benchmarks" / "logiclm-programs" / row.file).read_text())
        assert row.n == len(records)  # every program executed or counted not executable
        assert row.accuracy <= row.executable_rate + 1e-12
    causes = read_parquet(root / "data/score/nli/program_causes.parquet")
    wrong = (programs["n"] * (1 - programs["accuracy"])).round().astype(int)
    per_run = causes.groupby(["file", "semantics"])["n"].sum()
    for row, n_wrong in zip(programs.itertuples(), wrong):
        assert per_run[(row.file, row.semantics)] == n_wrong  # one cause per wrong answer
    checker = read_parquet(root / "data/score/nli/checker_agreement.parquet").set_index("kind")
    assert checker.loc["gold", "strict_agree"] == 1.0 and checker.loc["gold", "broad_agree"] == 1.0


def test_report_shows_the_program_tables(root, params):
    from nesybench.nli.report import section
    from nesybench.report.blocks import Table
    from nesybench.report.loader import ReportLoader

    titles = [
        b.title for b in section(ReportLoader(root, "nli", params["nli"])) if isinstance(b, Table)
    ]
    assert "Programs per file and semantics" in titles
    assert "Items the two semantics answer differently" in titles
    assert any(t.startswith("The step checker's two readings side by side") for t in titles)
    assert any(t.startswith("Why programs do not run") for t in titles)


def test_the_in_memory_chain_is_the_default_run(root, params):
    """The variant machinery, run at the default params, gives the default run's summary."""
    from nesybench.nli.sensitivity import CHAIN, KEEP
    from nesybench.sensitivity import run_in_memory

    for seed in range(N_SEEDS):
        tables = run_in_memory(
            "nli", CHAIN, params=params, root=root, wildcards={"seed": seed}, keep=[KEEP]
        )
        main = read_parquet(_seed(root, "score", "summary.parquet", seed))
        pd.testing.assert_frame_equal(tables[KEEP], main)


def test_the_corruption_rate_reaches_the_claims(root):
    """More out-of-grammar paraphrases: the pipeline abstains more, so its label accuracy falls
    and greedy's label lead grows (the mechanism of 'greedy wins the label column')."""
    variants = pd.concat(
        [
            read_parquet(
                root
                / AGG
                / "variant"
                / f"variant-{VARIANT}"
                / f"seed-{s}"
                / "variant_summary.parquet"
            )
            for s in range(N_SEEDS)
        ]
    )
    main = read_parquet(root / AGG / "summaries.parquet")
    assert variants["prontoqa_corrupted_frac"].mean() > main["prontoqa_corrupted_frac"].mean()
    assert variants["label_gap"].mean() > main["label_gap"].mean()
    table = read_parquet(root / AGG / "sensitivity.parquet")
    assert set(table["setting"]) == {"default", VARIANT}
    claims = read_parquet(root / AGG / "claims.parquet").set_index("claim")
    default = table[table["setting"] == "default"].set_index("claim")
    assert (default["holds_on"] == claims.loc[default.index, "holds_on"]).all()
