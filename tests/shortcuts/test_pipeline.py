"""The shortcuts model stages end to end on a small sweep: blocks, aggregates, exhibits, report.

Two seeds in two blocks (``seed_block: 1``), so every aggregate gathers across blocks; the
digit task keeps two supports and three models.  Jobs run in-process through the stage
runner (committed as Snakemake would commit them).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from nesybench.artifacts import registry
from nesybench.errors import ClaimFailed, InputError
from nesybench.io import read_json, read_parquet
from nesybench.params import job_params, params_hash
from nesybench.stages import run_job, run_stage

ROOT = Path(__file__).resolve().parents[2]
N_SEEDS = 2


def _section(**overrides) -> dict:
    section = copy.deepcopy(yaml.safe_load((ROOT / "params.yaml").read_text())["shortcuts"])
    section.update(n_seeds=N_SEEDS, seed_block=1)
    section["incidence"] = {"tasks": ["xor2"], "support_fracs": [1.0, 0.5]}
    digits = section["digits"]
    digits["supports"] = {
        "evenodd": {"support": "evenodd", "n_digits": 10},
        "full": {"support": "full", "n_digits": 10},
    }
    digits["mitigations"] = ["label_only", "concept_sup=0.1", "neural"]
    digits["n_tuples"] = {"train": 600, "val": 200, "test": 300, "ood": 300}
    section.update(overrides)
    return section


def _run(root, stage, step=None, section=None, **args):
    return run_job(
        "shortcuts",
        stage,
        step,
        params={"shortcuts": section or _section()},
        root=root,
        args={k: str(v) for k, v in args.items()},
    )


def _run_all(root, section, blocks=range(N_SEEDS)):
    _run(root, "generate", section=section)
    _run(root, "count", section=section)  # score aggregate reads its N_opt
    _run(root, "generate", "digits", section=section)
    _run(root, "train", "exhibit", section=section)
    for stage in ("train", "score", "calibrate"):
        for step in ("concepts", "digits"):
            for b in blocks:
                _run(root, stage, step, section=section, block=b)
        if stage != "train":
            _run(root, stage, "aggregate", section=section)
    for b in blocks:
        _run(root, "calibrate", "variant", section=section, block=b, variant=VARIANT)
    _run(root, "calibrate", "sensitivity", section=section)


VARIANT = "models.bias_init=gaussian"  # the level params.yaml retrains for


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("shortcuts")
    section = _section()
    _run_all(root, section)
    return root, section


def _t(root, stage, name, block=None):
    reg = registry("shortcuts")
    wildcards = {} if block is None else {"block": block}
    return read_parquet(root / reg.path(stage, name, **wildcards))


def test_every_declared_artifact_exists_with_these_params(run):
    from nesybench.report.pipeline import verify_artifacts

    root, section = run
    reg = registry("shortcuts")
    # count is the counting stage's job, not run here
    section_paths = [p for job, _, p in reg.all_paths(section) if job.stage != "count"]
    assert all((root / p).exists() for p in section_paths)
    assert any("/block-1/" in p for p in section_paths)
    jobs = {job.key for job, _, _ in reg.all_paths(section)}
    assert ("train", "exhibit") in jobs and ("score", "aggregate") in jobs
    with pytest.raises(Exception, match="count"):  # verification names what is missing
        verify_artifacts(root, reg, section)


def test_blocks_hold_their_seeds_and_the_aggregate_all(run):
    root, _ = run
    for b in range(N_SEEDS):
        runs = _t(root, "score", "concept_runs", b)
        assert set(runs["seed"]) == {b}
        assert set(_t(root, "score", "digit_runs", b)["seed"]) == {b}
    summary = _t(root, "score", "h2h_summaries")
    assert summary["seed"].tolist() == list(range(N_SEEDS))


def test_claims_are_rates_of_the_per_seed_verdicts(run):
    root, _ = run
    for table, summary in (("h2h_claims", "h2h_summaries"), ("digit_claims", "digit_summaries")):
        claims = _t(root, "score", table).set_index("claim")
        per_seed = _t(root, "score", summary)
        for name, row in claims.iterrows():
            assert row["holds_on"] == int(per_seed[name].sum())
            assert row["n_seeds"] == N_SEEDS
            if row["enforced"]:
                assert row["rate"] >= row["min_rate"]  # the run would have failed otherwise
    calibration = _t(root, "calibrate", "calibration_claims").set_index("claim")
    per_seed = _t(root, "calibrate", "calibration_summaries")
    assert calibration.loc["concept_temperature_lowers_ece", "holds_on"] == int(
        (per_seed["label_only_ece_after"] < per_seed["label_only_ece_before"]).sum()
    )


def test_distributions_summarise_the_per_seed_rows(run):
    root, _ = run
    summary = _t(root, "score", "h2h_summaries")
    dist = _t(root, "score", "h2h_distribution").set_index("metric")
    for metric in ("label_only_concept_accuracy", "sup_concept_accuracy", "ood_task_accuracy_ood"):
        assert dist.loc[metric, "mean"] == pytest.approx(summary[metric].mean())
        assert dist.loc[metric, "lo"] <= dist.loc[metric, "mean"] <= dist.loc[metric, "hi"]
    panels = pd.concat([_t(root, "score", "concept_panels", b) for b in range(N_SEEDS)])
    lo = panels[panels["model"] == "label_only"].sort_values("seed")
    assert summary["label_only_concept_accuracy"].tolist() == lo["acc_c"].tolist()


def test_the_head_to_head_exhibit_is_the_first_collapse_of_the_scan(run):
    root, section = run
    scan = _t(root, "train", "exhibit_scan")
    assert scan["seed"].tolist() == list(range(section["models"]["exhibit_scan"]))
    exhibit = _t(root, "score", "exhibit").iloc[0]
    first = scan.loc[scan["collapse"], "seed"].min()
    assert exhibit["seed"] == first and scan.loc[scan["picked"], "seed"].tolist() == [first]
    alpha = _t(root, "score", "exhibit_alpha")
    short = alpha[alpha["model"] == "label_only"]
    assert short["predicted_state"].nunique() < len(short)  # non-injective, as the rule says
    occurrence = _t(root, "score", "exhibit_occurrence")
    assert occurrence.groupby("model")["count"].sum().tolist() == [400, 400]
    panel = _t(root, "score", "exhibit_panel").set_index("key")
    assert panel.loc["acc_c", "label_only"] == scan.loc[scan["seed"] == first, "acc_c_test"].iloc[0]


def test_ood_and_incidence(run):
    root, _ = run
    ood = _t(root, "score", "ood").iloc[0]
    assert (ood["n_opt_biased"], ood["n_survivors_counted"]) == (64, 16)  # spec: 16 of 64
    inc = _t(root, "score", "incidence")
    assert inc["support_frac"].tolist() == [0.5, 1.0]
    assert inc["log2_n_opt"].tolist() == [6.0, 4.0]
    runs = pd.concat([_t(root, "score", "concept_runs", b) for b in range(N_SEEDS)])
    for row in inc.itertuples(index=False):
        cell = runs[(runs["support_frac"] == row.support_frac) & (runs["model"] == "label_only")]
        assert row.n_shortcut == int(cell["shortcut"].sum()) and row.n_runs == N_SEEDS
    plot = (root / "reports" / "plots" / "shortcuts-incidence.csv").read_text()
    assert plot.startswith("task,support_frac,log2_n_opt,rate,rate_lo,rate_hi\n")


def test_digit_tables(run):
    root, section = run
    inc = _t(root, "score", "digit_incidence")
    assert inc["support"].tolist() == ["evenodd"] * 3 + ["full"] * 3
    assert inc["n_support"].tolist() == [16] * 3 + [100] * 3
    runs = pd.concat([_t(root, "score", "digit_runs", b) for b in range(N_SEEDS)])
    for row in inc.itertuples(index=False):
        cell = runs[(runs["support"] == row.support) & (runs["mitigation"] == row.mitigation)]
        if row.mitigation != "neural":
            assert row.n_shortcut == int(cell["shortcut"].astype(bool).sum())
    full = runs[runs["support"] == "full"]
    assert full["acc_y_ood"].isna().all()  # no unobserved tuples at full support
    exhibit = _t(root, "score", "digit_exhibit").iloc[0]
    confusion = _t(root, "score", "digit_exhibit_confusion")
    assert set(confusion["seed"]) == {exhibit["seed"]}
    assert confusion.groupby("mitigation")["count"].sum().tolist() == [2 * 600] * 2
    maps = _t(root, "score", "digit_exhibit_maps").set_index("model")
    assert maps.loc["concept_sup=0.1", "digit_map"].startswith("0->0 1->1")
    sweep = _t(root, "score", "digit_sweep")
    cell = sweep[(sweep["support"] == "evenodd") & (sweep["mitigation"] == "label_only")]
    acc_c = cell.set_index("metric").loc["acc_c", "mean"]
    assert acc_c == pytest.approx(
        runs[(runs["support"] == "evenodd") & (runs["mitigation"] == "label_only")]["acc_c"].mean()
    )


def test_calibration_keeps_accuracy_and_reports_the_exhibits_reliability(run):
    root, _ = run
    for b in range(N_SEEDS):
        for name in ("concept_calibration", "digit_calibration"):
            table = _t(root, "calibrate", name, b)
            assert (table["acc_after"] == table["acc_before"]).all()
    table = _t(root, "calibrate", "digit_calibration_table")
    assert set(table["mitigation"]) == {"label_only", "concept_sup=0.1"}  # no heads: neural
    reliability = _t(root, "calibrate", "digit_exhibit_reliability")
    seed = _t(root, "score", "digit_exhibit")["seed"].iloc[0]
    assert set(reliability["seed"]) == {seed}
    assert set(reliability["mitigation"]) == {"label_only", "concept_sup=0.1"}


def test_metrics_carry_distributions_and_claim_rates(run):
    root, _ = run
    score = read_json(root / "data/score/shortcuts/metrics_aggregate.json")
    for key in (
        "score.head_to_head.label_only_concept_accuracy.mean",
        "score.head_to_head.label_only_concept_accuracy.lo",
        "score.head_to_head.label_only_concept_accuracy.hi",
        "score.head_to_head.label_only_concept_accuracy.n_seeds",
        "score.head_to_head.label_only_concept_accuracy.claim_rate",
        "score.head_to_head.h2h_labels_indistinguishable.claim_rate",
        "score.digits.task_accuracy_ood_gap.claim_rate",
        "score.incidence.xor2.support_0p5.rate.value",
        "score.incidence.xor2.support_0p5.rate.lo",
        "score.digit_incidence.evenodd.concept_sup_0p1",
    ):
        assert key in score, key
    assert score["score.head_to_head.label_only_concept_accuracy.n_seeds"] == N_SEEDS
    calibrate = read_json(root / "data/calibrate/shortcuts/metrics_aggregate.json")
    assert "calibrate.concept_heads.label_only_ece_change.claim_rate" in calibrate


def test_blocks_are_byte_identical_across_runs_and_sweep_sizes(run, tmp_path):
    """A block's bytes depend on its seeds only: another root, and a sweep grown to 3 seeds."""
    root, section = run
    grown = _section(n_seeds=N_SEEDS + 1)
    _run(tmp_path, "generate", section=grown)
    _run(tmp_path, "generate", "digits", section=grown)
    for step in ("concepts", "digits"):
        _run(tmp_path, "train", step, section=grown, block=1)
    for rel in (
        "data/train/shortcuts/concepts/block-1/concept_weights.parquet",
        "data/train/shortcuts/digits/block-1/digit_weights.parquet",
        "data/train/shortcuts/digits/block-1/digit_label_predictions.parquet",
        "data/generate/shortcuts/digit_tuples.parquet",
    ):
        assert (tmp_path / rel).read_bytes() == (root / rel).read_bytes(), rel


def test_growing_n_seeds_adds_blocks_and_changes_no_finished_jobs_params():
    small, grown = _section(), _section(n_seeds=N_SEEDS + 3)
    grown["claims"]["ood_alarm"]["min_rate"] = 0.5  # a claim threshold: aggregates only
    reg = registry("shortcuts")
    for job in reg.jobs.values():
        if job.per_seed:
            assert params_hash(job_params(small, job)) == params_hash(job_params(grown, job))
            assert job.expand(small) == job.expand(grown)[: len(job.expand(small))]
        elif job.stage in ("score", "calibrate"):
            assert params_hash(job_params(small, job)) != params_hash(job_params(grown, job))
    assert len(reg.job("train", "digits").expand(grown)) == N_SEEDS + 3


def test_an_enforced_claim_below_its_threshold_fails_and_writes_nothing(run, tmp_path, monkeypatch):
    root, section = run
    strict = copy.deepcopy(section)
    strict["claims"]["thresholds"]["digits_ood_margin"] = 1.0  # cannot hold
    before = {p: p.read_bytes() for p in (root / "data/score/shortcuts").glob("*.parquet")}
    with pytest.raises(ClaimFailed, match="OOD AccY can"):
        _run(root, "score", "aggregate", section=strict)
    after = {p: p.read_bytes() for p in (root / "data/score/shortcuts").glob("*.parquet")}
    assert after == before


def test_report_section_reads_the_artifacts(run):
    from nesybench.report.blocks import Figure, Table
    from nesybench.report.loader import ReportLoader
    from nesybench.shortcuts.digits.report import digit_blocks
    from nesybench.shortcuts.report_models import model_blocks

    root, section = run
    loader = ReportLoader(root, "shortcuts", section)
    blocks = [*model_blocks(loader), *digit_blocks(loader)]
    titles = [b.title for b in blocks if isinstance(b, (Table, Figure))]
    assert titles[0] == f"Head-to-head: distribution over {N_SEEDS} seeds"
    assert titles[1] == "Head-to-head: the chapter's claims, seed by seed"
    assert "exhibit: concept panel on the test split" in titles
    assert "exhibit: the learned digit maps as confusion matrices" in titles
    assert any(t.startswith("per-class reliability") for t in titles)
    text = " ".join(b.text for b in blocks if hasattr(b, "text"))
    assert "first of seeds 0..99 whose label-only net collapses" in text
    assert "pending" not in " ".join(b.note for b in blocks if isinstance(b, Table))


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda s: s["digits"].update(mitigations=["label_only", "concept_sup=1.5"]),
            "shortcuts.digits.mitigations.1 must be label_only, neural, or concept_sup=F with F "
            'in [0, 1], entropy=W, multitask=sum|product joined by +, got "concept_sup=1.5"',
        ),
        (
            lambda s: s["digits"].update(mitigations=["label_only", "dropout=0.5"]),
            'got "dropout=0.5"',
        ),
        (
            lambda s: s["digits"]["head_to_head"].update(support="mnist"),
            "shortcuts.digits.head_to_head.support must name a key of shortcuts.digits.supports",
        ),
        (lambda s: s.update(n_seeds=0), "shortcuts.n_seeds must be >= 1, got 0"),
        (
            lambda s: s["exhibit"].update(head_to_head="median"),
            "shortcuts.exhibit.head_to_head must be one of",
        ),
        (
            lambda s: s["claims"].pop("ood_alarm"),
            "shortcuts.claims is missing required key ood_alarm",
        ),
        (
            lambda s: s["digits"]["head_to_head"].update(supervised="concept_sup=0.5"),
            "must be a list holding label_only and the head-to-head's supervised model",
        ),
    ],
)
def test_bad_params_stop_with_one_line_before_writing(tmp_path, capsys, edit, message):
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    edit(params["shortcuts"])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    (tmp_path / "workflow").mkdir()
    import shutil

    shutil.copytree(ROOT / "workflow" / "schemas", tmp_path / "workflow" / "schemas")
    code = run_stage("generate", ["shortcuts", "digits", "--params", str(tmp_path / "params.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "data").exists()


def test_a_block_outside_the_sweep_is_refused(run):
    root, section = run
    with pytest.raises(InputError, match="names no instance of this job"):
        _run(root, "train", "digits", section=section, block=N_SEEDS)


def test_sensitivity_tables_cover_every_claim_setting_and_threshold(run):
    from nesybench.shortcuts.incidence import OPTIMUM_KINDS
    from nesybench.shortcuts.sensitivity import CLAIMS

    root, section = run
    table = _t(root, "calibrate", "sensitivity")
    assert list(dict.fromkeys(table["claim"])) == [c.name for c in CLAIMS]
    assert list(dict.fromkeys(table["setting"])) == ["default", VARIANT, "models.min_acc_y=0.99"]
    h2h = _t(root, "score", "h2h_claims").set_index("claim")
    default = table[table["setting"] == "default"].set_index("claim")
    for name in h2h.index:  # the default row is the default run
        assert default.loc[name, "holds_on"] == h2h.loc[name, "holds_on"]
    kinds = _t(root, "calibrate", "optimum_kinds")
    assert [(r.setting, r.min_acc_y) for r in kinds.itertuples()] == [
        ("default", 0.95),
        ("default", 0.99),
        (VARIANT, 0.95),
        (VARIANT, 0.99),
    ]
    assert (kinds[list(OPTIMUM_KINDS)].sum(axis=1) == kinds["n_seeds"]).all()
    seeds = _t(root, "calibrate", "optimum_seeds")
    assert len(seeds) == 4 * N_SEEDS and set(seeds["kind"]) <= set(OPTIMUM_KINDS)
    # a stricter threshold can only take runs out of "label-perfect"
    strict = kinds[kinds["min_acc_y"] == 0.99].set_index("setting")["n_collapse"]
    loose = kinds[kinds["min_acc_y"] == 0.95].set_index("setting")["n_collapse"]
    assert (strict <= loose).all()


def test_variant_blocks_retrain_only_the_head_to_head_and_ood_nets(run):
    root, section = run
    runs = read_parquet(
        root / f"data/calibrate/shortcuts/variant/variant-{VARIANT}/block-0/variant_runs.parquet"
    )
    m = section["models"]
    assert set(zip(runs["task"], runs["support_frac"])) == {
        (m["task"], float(m["support_frac"])),
        (m["task"], float(m["ood_support_frac"])),
    }
    default = _t(root, "score", "concept_panels", 0)
    variant = read_parquet(
        root / f"data/calibrate/shortcuts/variant/variant-{VARIANT}/block-0/variant_panels.parquet"
    )
    assert not default["acc_c"].equals(variant["acc_c"]) or not default["ece_c"].equals(
        variant["ece_c"]
    )
