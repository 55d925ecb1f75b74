"""train / train_incidence / score / calibrate of the shortcuts instrument on a small profile.

The head-to-head uses the default model params (the collapse it needs is a
property of those params); the incidence sweep and the OOD batch are shrunk.
"""

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml
from jsonschema import Draft202012Validator

from nesybench.artifacts import registry
from nesybench.errors import ClaimFailed, UserError
from nesybench.params import _describe
from nesybench.stages import StageContext, run_job

ROOT = Path(__file__).resolve().parents[2]


def _section():
    with open(ROOT / "params.yaml", encoding="utf-8") as handle:
        section = yaml.safe_load(handle)["shortcuts"]
    section = copy.deepcopy(section)
    section["models"]["ood_seeds"] = 6
    section["incidence"] = {"tasks": ["xor2"], "support_fracs": [1.0, 0.5], "seeds": 4}
    return section


def _run(root, stage, section, *, step=None, args=None):
    """Run one job in-process (committed like the stage runner does)."""
    return run_job(
        "shortcuts", stage, step, params={"shortcuts": section}, root=root, args=args or {}
    )


def _ctx(root, stage, section):
    """A context whose writes a test commits itself (constructed artifacts)."""
    reg = registry("shortcuts")
    return StageContext(job=reg.job(stage), registry=reg, params={"shortcuts": section}, root=root)


@pytest.fixture(scope="module")
def pipeline_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("nesybench")
    section = _section()
    _run(root, "generate", section)
    _run(root, "train", section)
    for frac in section["incidence"]["support_fracs"]:
        _run(root, "train", section, step="incidence", args={"task": "xor2", "support": repr(frac)})
    _run(root, "score", section)
    _run(root, "calibrate", section)
    return root, section


def _table(root, stage, name):
    return pd.read_parquet(root / "data" / stage / "shortcuts" / f"{name}.parquet")


def test_train_writes_the_long_concept_table(pipeline_run):
    root, section = pipeline_run
    concepts = _table(root, "train", "concepts")
    assert list(concepts.columns) == [
        "model",
        "split",
        "point",
        "concept",
        "gold",
        "probs",
        "logits",
    ]
    assert set(concepts["model"]) == {"label_only", "concept_sup"}
    test = concepts[(concepts["model"] == "label_only") & (concepts["split"] == "test")]
    assert len(test) == 4 * section["models"]["n_test_per_state"] * 2
    tasks = _table(root, "train", "tasks").set_index("use")
    sweep = _table(root, "train", "sweep")
    picked = sweep[sweep["picked"]]
    assert (
        len(picked) == 1
        and int(picked["seed_index"].iloc[0]) == tasks.loc["head_to_head", "picked_seed"]
    )
    # The picked seed is the FIRST collapse of the sweep.
    assert not sweep[sweep["seed_index"] < picked["seed_index"].iloc[0]]["collapse"].any()
    assert tasks.loc["head_to_head", "n_concept_sup"] == section["models"]["concept_sup_points"]


def test_score_panel_meets_the_spec_thresholds(pipeline_run):
    root, _ = pipeline_run
    panel = _table(root, "score", "panel").set_index("key")
    lo, sup = panel["label_only"], panel["concept_sup"]
    assert lo["acc_y"] >= 0.95 and sup["acc_y"] >= 0.95
    assert lo["acc_c"] <= 0.8 and sup["acc_c"] >= 0.95
    assert lo["f1_c"] <= 0.8 and sup["f1_c"] >= 0.95
    assert lo["cls_c"] >= 0.2 and sup["cls_c"] <= 0.05
    assert lo["ece_c"] >= 0.15 and sup["ece_c"] <= 0.05
    alpha = _table(root, "score", "alpha")
    twin = alpha[alpha["model"] == "concept_sup"]
    assert (twin["true_state"] == twin["predicted_state"]).all()
    short = alpha[alpha["model"] == "label_only"]
    assert short["predicted_state"].nunique() < len(short)  # non-injective
    occurrence = _table(root, "score", "occurrence")
    assert occurrence.groupby("model")["count"].sum().tolist() == [400, 400]


def test_score_ood_counts_the_spec_survivors(pipeline_run):
    root, _ = pipeline_run
    ood = _table(root, "score", "ood").iloc[0]
    assert (ood["n_opt_biased"], ood["n_survivors_counted"]) == (
        64,
        16,
    )  # spec: 16 of 64 at k=2, half support
    assert ood["mean_acc_y_ood"] < ood["mean_acc_y_test"]


def test_score_incidence_table_and_plot(pipeline_run):
    root, _ = pipeline_run
    inc = _table(root, "score", "incidence")
    assert inc["support_frac"].tolist() == [0.5, 1.0]
    assert inc["log2_n_opt"].tolist() == [6.0, 4.0]  # N_opt 64 and 16
    assert ((inc["rate_lo"] <= inc["rate"]) & (inc["rate"] <= inc["rate_hi"])).all()
    assert (root / "reports" / "plots" / "shortcuts-incidence.csv").exists()
    metrics = yaml.safe_load((root / "data" / "score" / "shortcuts" / "metrics.json").read_text())
    for model in ("label_only", "concept_sup"):
        for key in ("acc_y", "acc_c", "f1_c", "cls_c", "ece_c"):
            assert f"score.panel.{model}.{key}" in metrics
    assert "score.incidence.xor2.support_0p5.rate" in metrics


def test_calibrate_lowers_label_only_ece_and_keeps_accc(pipeline_run):
    root, _ = pipeline_run
    table = _table(root, "calibrate", "concept_calibration").set_index("model")
    assert table.loc["label_only", "ece_c_after"] < table.loc["label_only", "ece_c_before"]
    assert table.loc["label_only", "tau"] > 1
    assert (table["acc_c_after"] == table["acc_c_before"]).all()
    metrics = yaml.safe_load(
        (root / "data" / "calibrate" / "shortcuts" / "metrics.json").read_text()
    )
    assert all(
        key.startswith(("calibrate.concept_calibration.", "_provenance.")) for key in metrics
    )


def test_train_incidence_is_byte_deterministic(pipeline_run, tmp_path):
    root, section = pipeline_run
    _run(tmp_path, "generate", section)
    _run(tmp_path, "train", section, step="incidence", args={"task": "xor2", "support": "0.5"})
    name = "data/train/shortcuts/task-xor2/support-0.5/runs.parquet"
    assert (tmp_path / name).read_bytes() == (root / name).read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        ({"task": "xor9", "support": "1.0"}, "names no instance of this job"),
        ({"task": "xor2", "support": "0.3"}, "names no instance of this job"),
        ({"task": "xor2", "support": "1"}, "names no instance of this job"),
        ({"task": "xor2"}, "needs --arg support"),
    ],
)
def test_train_incidence_bad_args(tmp_path, args, message):
    with pytest.raises(UserError, match=message):
        _run(tmp_path, "train", _section(), step="incidence", args=args)
    assert not (tmp_path / "data").exists()


def test_train_fails_loudly_when_no_seed_collapses(tmp_path):
    section = _section()
    section["models"]["sweep_seeds"] = 1
    section["models"]["epochs"] = 5  # a barely trained model is never label-perfect
    _run(tmp_path, "generate", section)
    with pytest.raises(ClaimFailed, match="no seed of the 1-seed label-only sweep"):
        _run(tmp_path, "train", section)
    assert not (tmp_path / "data" / "train").exists()


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("models", "epochs"), 0, "shortcuts.models.epochs must be >= 1, got 0"),
        (("models", "lr"), -1.0, "shortcuts.models.lr must be > 0, got -1.0"),
        (
            ("models", "ood_support_frac"),
            1.0,
            "shortcuts.models.ood_support_frac must be < 1, got 1.0",
        ),
        (
            ("incidence", "seeds"),
            "many",
            'shortcuts.incidence.seeds must be of type integer, got "many"',
        ),
        (
            ("incidence", "support_fracs"),
            [1.5],
            "shortcuts.incidence.support_fracs.0 must be <= 1, got 1.5",
        ),
        (("models", "colour"), 1, "shortcuts.models has unknown key colour"),
    ],
)
def test_params_schema_rejects_bad_values_with_one_line(path, value, message):
    with open(ROOT / "workflow" / "schemas" / "shortcuts.schema.yaml", encoding="utf-8") as handle:
        schema = yaml.safe_load(handle)
    section = _section()
    section[path[0]][path[1]] = value
    errors = list(Draft202012Validator(schema).iter_errors(section))
    assert errors
    error = max(errors, key=lambda e: len(e.absolute_path))
    # Prefix as load_params does for the whole file.
    error.path.appendleft("shortcuts")
    assert _describe(error).startswith(message)


def _constructed_train_artifacts(root, section, alpha_label_only):
    """train-stage tables for two constructed models: label-only predicts alpha(g), the twin the
    identity."""
    import numpy as np

    from nesybench.shortcuts.panel import concept_table

    ctx = _ctx(root, "train", section)
    states = ["00", "01", "10", "11"]
    concept_frames, label_frames = [], []
    for model, alpha in (("label_only", alpha_label_only), ("concept_sup", {g: g for g in states})):
        for split in ("train", "test"):
            g = np.array([[int(b) for b in s] for s in states for _ in range(10)])
            pred = np.array([[int(b) for b in alpha[s]] for s in states for _ in range(10)])
            logits = [np.where(pred[:, j : j + 1] == np.arange(2), 8.0, 0.0) for j in range(2)]
            probs = [np.exp(z) / np.exp(z).sum(axis=1, keepdims=True) for z in logits]
            df = concept_table(np.arange(40), g, probs, logits=logits)
            df.insert(0, "split", split)
            df.insert(0, "model", model)
            concept_frames.append(df)
            y = g.sum(axis=1) % 2
            label_frames.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "split": split,
                        "point": np.arange(40),
                        "y_true": y,
                        "y_pred": y,
                    }
                )
            )
    ctx.write_table(
        "concepts",
        pd.concat(concept_frames, ignore_index=True),
        key=["model", "split", "point", "concept"],
    )
    ctx.write_table(
        "labels", pd.concat(label_frames, ignore_index=True), key=["model", "split", "point"]
    )
    ctx.write_table(
        "tasks",
        pd.DataFrame(
            [
                {
                    "use": "head_to_head",
                    "task": "xor2",
                    "support_frac": 1.0,
                    "support": ",".join(states),
                    "n_train": 40,
                    "n_concept_sup": 4,
                    "picked_seed": 0,
                }
            ]
        ),
        key=["use"],
    )
    ctx.commit()


def test_score_claims_fail_when_label_only_has_no_shortcut(tmp_path):
    section = _section()
    _constructed_train_artifacts(tmp_path, section, {g: g for g in ["00", "01", "10", "11"]})
    with pytest.raises(ClaimFailed, match="AccC: label-only <= 0.8"):
        _run(tmp_path, "score", section)
    assert not (tmp_path / "data" / "score").exists()


def test_score_claims_fail_on_a_permutation_shortcut(tmp_path):
    # Swapping both bits is a label-preserving shortcut but not a collapse: Cls(C) = 0 fails its
    # claim.
    section = _section()
    _constructed_train_artifacts(
        tmp_path, section, {"00": "11", "01": "10", "10": "01", "11": "00"}
    )
    with pytest.raises(ClaimFailed, match="Cls\\(C\\): label-only >= 0.2"):
        _run(tmp_path, "score", section)


def test_calibrate_keeps_accc_on_constructed_collapse(tmp_path):
    section = _section()
    _constructed_train_artifacts(
        tmp_path, section, {"00": "00", "01": "01", "10": "01", "11": "11"}
    )
    _run(tmp_path, "calibrate", section)
    table = _table(tmp_path, "calibrate", "concept_calibration").set_index("model")
    assert table.loc["label_only", "acc_c_before"] == table.loc["label_only", "acc_c_after"] == 0.75
    assert table.loc["label_only", "ece_c_after"] < table.loc["label_only", "ece_c_before"]
