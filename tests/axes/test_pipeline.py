"""The four axes stages end to end on default params, in a scratch copy of the repo config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from nesybench.io import read_parquet
from nesybench.stages import run_stage

REPO = Path(__file__).resolve().parents[2]
STAGES = ("generate", "count", "train", "score")


def _scratch(tmp_path: Path, edit=None) -> Path:
    """A scratch root with only the axes section and its schema (others may be mid-edit)."""
    schemas = tmp_path / "workflow" / "schemas"
    schemas.mkdir(parents=True)
    shutil.copy(REPO / "workflow" / "schemas" / "axes.schema.yaml", schemas)
    main = yaml.safe_load((REPO / "workflow" / "schemas" / "params.schema.yaml").read_text())
    main["required"], main["properties"] = ["axes"], {"axes": main["properties"]["axes"]}
    (schemas / "params.schema.yaml").write_text(yaml.safe_dump(main, sort_keys=False))
    params = {"axes": yaml.safe_load((REPO / "params.yaml").read_text())["axes"]}
    if edit:
        edit(params["axes"])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return tmp_path / "params.yaml"


def _run_all(params: Path) -> list[int]:
    return [run_stage(stage, ["axes", "--params", str(params)]) for stage in STAGES]


@pytest.fixture(scope="module")
def pipeline_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("axes")
    params = _scratch(root)
    assert _run_all(params) == [0, 0, 0, 0]
    return root


def test_pipeline_writes_every_declared_output(pipeline_root):
    expected = [
        "data/generate/axes/bank.parquet",
        "data/generate/axes/questions.parquet",
        "data/generate/axes/metrics.json",
        "data/count/axes/depth_mix.parquet",
        "data/count/axes/design.parquet",
        "data/count/axes/metrics.json",
        "data/train/axes/soft_reasoner.parquet",
        "data/train/axes/metrics.json",
        *[
            f"data/score/axes/{n}.parquet"
            for n in ("per_depth", "synonym_depth", "flip", "mixture", "gadgets")
        ],
        "data/score/axes/metrics.json",
        "reports/plots/axes-per_depth.csv",
    ]
    written = sorted(
        str(p.relative_to(pipeline_root))
        for p in pipeline_root.rglob("*")
        if p.is_file() and not str(p.relative_to(pipeline_root)).startswith(("workflow", "params"))
    )
    assert written == sorted(expected)


def test_pipeline_metrics_carry_the_claimed_numbers(pipeline_root):
    m = json.loads((pipeline_root / "data/score/axes/metrics.json").read_text())
    assert m["score.acc_on_parsed"] == 1.0
    assert m["score.coverage_strict"] < m["score.coverage_repaired"] < 1.0
    assert m["score.soft_reasoner.depth_3"] <= 0.65
    assert m["score.soft_reasoner.depth_0"] - m["score.soft_reasoner.depth_3"] >= 0.25
    assert m["score.flip.prover_tracked_after"] == m["score.flip.n_flipped"] > 0
    assert 0 <= m["score.mixture.tie_01_pi0"] <= 1
    assert (
        m["score.gadgets.scale.m8.closure"] == 44
        and m["score.gadgets.query_joins.k7.witnesses"] == 126
    )
    c = json.loads((pipeline_root / "data/count/axes/metrics.json").read_text())
    assert c["count.design.questions_total"] == 841_995
    per_depth = read_parquet(pipeline_root / "data/score/axes/per_depth.parquet")
    assert (per_depth["acc_on_parsed"] == 1.0).all()
    assert (per_depth["overall"] == per_depth["coverage"]).all()  # P(correct) = P(parse) x 1


def test_pipeline_is_byte_identical_on_rerun(pipeline_root, tmp_path):
    params = _scratch(tmp_path)
    assert _run_all(params) == [0, 0, 0, 0]
    for path in sorted((pipeline_root / "data").rglob("*")):
        if path.is_file():
            twin = tmp_path / path.relative_to(pipeline_root)
            assert twin.read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda a: a["bank"].update(fact_prob=1.5),
            "params.yaml: axes.bank.fact_prob must be < 1, got 1.5",
        ),
        (lambda a: a["bank"].update(n_entities=0), "axes.bank.n_entities must be >= 1, got 0"),
        (lambda a: a.update(colour="red"), "axes has unknown key colour"),
        (
            lambda a: a["gadgets"].update(chase_budgets=[40, 10]),
            "axes.gadgets.chase_budgets must be increasing",
        ),
        (lambda a: a["gadgets"].update(cycle_k_max=3), "axes.gadgets.cycle_k_max must be >= 4"),
        (
            lambda a: a["lexical"].update(synonym_prob="high"),
            "axes.lexical.synonym_prob must be of type number",
        ),
    ],
)
def test_pipeline_rejects_bad_params(tmp_path, capsys, edit, message):
    params = _scratch(tmp_path, edit)
    assert run_stage("generate", ["axes", "--params", str(params)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert not (tmp_path / "data").exists()


def test_pipeline_claim_failure_exits_1_and_writes_nothing(pipeline_root, tmp_path, capsys):
    params = _scratch(tmp_path, lambda a: a["claims"].update(soft_deep_max=0.3))
    shutil.copytree(pipeline_root / "data", tmp_path / "data")
    shutil.rmtree(tmp_path / "data" / "score")
    assert run_stage("score", ["axes", "--params", str(params)]) == 1
    assert (
        "claim failed: [axes:score] soft reasoner depth-3 accuracy must be <= 0.3"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "data" / "score").exists()


def test_report_section_reads_only_artifacts(pipeline_root):
    from nesybench.axes.report import section
    from nesybench.params import load_params
    from nesybench.report.blocks import Figure, Table
    from nesybench.report.loader import ReportLoader

    params = load_params(pipeline_root / "params.yaml")["axes"]
    blocks = section(ReportLoader(pipeline_root, "axes", params))
    titles = [b.title for b in blocks if isinstance(b, Table)]
    assert any("Per-depth factorization" in t for t in titles)
    assert any("synonym" in t for t in titles) and any("Flip probe" in t for t in titles)
    assert any("Seven gadgets" in t for t in titles) and any(
        "Design arithmetic" in t for t in titles
    )
    assert sum(isinstance(b, Figure) for b in blocks) == 1
    scale = next(b.df for b in blocks if isinstance(b, Table) and "scale" in b.title)
    assert scale["closure"].tolist() == [44, 152, 560]
    query = next(b.df for b in blocks if isinstance(b, Table) and "query joins" in b.title)
    assert query["witnesses"].tolist() == [6, 6, 18, 30, 66, 126]
