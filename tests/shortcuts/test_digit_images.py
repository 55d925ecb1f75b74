"""The digits stages on a user's .npz (``shortcuts.digits.images``): the file format's checks,
their one-line errors at params load time, and the generate, train, score and calibrate steps
run on an .npz this test writes (scikit-learn's digits upsampled to 16x16)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from nesybench.errors import InputError
from nesybench.images import check_digit_npz, read_digit_npz
from nesybench.io import read_parquet
from nesybench.params import validate_params
from nesybench.shortcuts.digits.tasks import load_digit_images, make_digit_task
from nesybench.stages import run_stage
from tests.shortcuts.jobs import run_shortcuts

ROOT = Path(__file__).resolve().parents[2]


def _upsampled(path: Path, *, n: int | None = None, flat: bool = False) -> Path:
    """scikit-learn's digits as 16x16 uint8 images (each pixel repeated 2 x 2, 0..255)."""
    pixels, digits = load_digit_images()
    images = (pixels.reshape(-1, 8, 8) * 255).round().astype(np.uint8)
    images = images.repeat(2, axis=1).repeat(2, axis=2)
    if n is not None:
        images, digits = images[:n], digits[:n]
    np.savez(path, images=images.reshape(len(images), -1) if flat else images, labels=digits)
    return path


def test_read_digit_npz_scales_pixels_and_reads_the_size(tmp_path):
    images = read_digit_npz(_upsampled(tmp_path / "d.npz"))
    assert images.pixels.shape == (1797, 256) and images.shape == (16, 16)
    assert images.pixels.max() == 1.0 and images.pixels.min() == 0.0
    assert images.digits.tolist() == load_digit_images()[1].tolist()
    flat = read_digit_npz(_upsampled(tmp_path / "f.npz", flat=True))
    assert flat.shape == (16, 16) and np.array_equal(flat.pixels, images.pixels)
    np.savez(tmp_path / "wide.npz", images=np.ones((2, 12), np.float32), labels=[1, 2])
    assert check_digit_npz(tmp_path / "wide.npz") == (2, (1, 12))


def _write(path, **arrays):
    np.savez(path, **arrays)
    return path


BAD = [
    ("images-4d", dict(images=np.zeros((2, 2, 2, 2)), labels=[0, 1]), "N x H x W or N x D"),
    ("images-1d", dict(images=np.zeros(4), labels=[0, 1, 2, 3]), "N x H x W or N x D"),
    ("images-empty", dict(images=np.zeros((0, 4)), labels=np.zeros(0, int)), "N >= 1"),
    ("images-bool", dict(images=np.zeros((2, 4), bool), labels=[0, 1]), "integer or float dtype"),
    ("images-complex", dict(images=np.zeros((2, 4), complex), labels=[0, 1]), "dtype, got"),
    ("images-text", dict(images=np.array([["a"] * 4] * 2), labels=[0, 1]), "dtype, got <U1"),
    ("labels-float", dict(images=np.zeros((2, 4)), labels=[0.0, 1.0]), "integer dtype"),
    ("labels-ten", dict(images=np.zeros((2, 4)), labels=[0, 10]), "digits 0-9, got 10"),
    ("labels-negative", dict(images=np.zeros((2, 4)), labels=[-1, 1]), "digits 0-9, got -1"),
    ("labels-short", dict(images=np.zeros((3, 4)), labels=[0, 1]), r"shape \(3,\)"),
    ("labels-missing", dict(images=np.zeros((2, 4))), "missing array 'labels'"),
    ("images-missing", dict(x=np.zeros((2, 4)), labels=[0, 1]), "missing array 'images'"),
]


@pytest.mark.parametrize(("case", "arrays", "message"), BAD, ids=[b[0] for b in BAD])
def test_check_digit_npz_refuses_bad_files_in_one_line(tmp_path, case, arrays, message):
    path = _write(tmp_path / f"{case}.npz", **arrays)
    with pytest.raises(InputError, match=message) as info:
        check_digit_npz(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("images", "message"),
    [
        (np.array([[0.0, 1.5]]), r"pixels in \[0, 1\]"),
        (np.array([[0.0, np.nan]]), "NaN or infinite"),
        (np.array([[-1, 2]], np.int16), "pixels >= 0"),
        (np.zeros((1, 2), np.uint8), "blank"),
    ],
)
def test_read_digit_npz_refuses_bad_pixels(tmp_path, images, message):
    path = _write(tmp_path / "p.npz", images=images, labels=[3])
    check_digit_npz(path)  # the header and the labels are fine
    with pytest.raises(InputError, match=message):
        read_digit_npz(path)


def test_check_digit_npz_refuses_what_is_not_an_npz(tmp_path):
    (tmp_path / "plain.npz").write_text("not a zip")
    with pytest.raises(InputError, match="not an .npz file"):
        check_digit_npz(tmp_path / "plain.npz")
    with pytest.raises(InputError, match="file not found"):
        check_digit_npz(tmp_path / "nope.npz")
    with pytest.raises(InputError, match="is a directory"):
        check_digit_npz(tmp_path)


def test_params_load_time_refuses_a_bad_images_file_naming_the_field(tmp_path):
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    validate_params(params, schema_dir=ROOT / "workflow/schemas")  # default: null, bundled
    params["shortcuts"]["digits"]["images"] = str(
        _write(tmp_path / "bad.npz", images=np.zeros((2, 4)), labels=[0, 12])
    )
    with pytest.raises(InputError) as info:
        validate_params(params, schema_dir=ROOT / "workflow/schemas")
    message = str(info.value)
    assert message.startswith("params.yaml: shortcuts.digits.images: ") and "got 12" in message


def test_a_stage_exits_2_with_one_line_on_a_bad_images_file(tmp_path, capsys):
    shutil.copytree(ROOT / "workflow/schemas", tmp_path / "workflow/schemas")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["shortcuts"]["digits"]["images"] = str(tmp_path / "missing.npz")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    code = run_stage("generate", ["shortcuts", "digits", "--params", str(tmp_path / "params.yaml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "shortcuts.digits.images" in err[0]
    assert "file not found" in err[0] and not (tmp_path / "data").exists()


def test_make_digit_task_needs_every_digit_in_every_pool(tmp_path):
    path = _write(
        tmp_path / "few.npz",
        images=np.ones((12, 4), np.uint8),
        labels=[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2],
    )
    with pytest.raises(InputError, match="digit 2 has no image in the .* pool"):
        make_digit_task(n_digits=3, images=str(path), n_tuples={"train": 8}, seed=0)


# ---- the digits stages on the user's file --------------------------------------------------


def _section(images: str) -> dict:
    section = copy.deepcopy(yaml.safe_load((ROOT / "params.yaml").read_text())["shortcuts"])
    section.update(n_seeds=1, seed_block=1)
    digits = section["digits"]
    digits["images"] = images
    digits["supports"] = {"evenodd": {"support": "evenodd", "n_digits": 10}}
    digits["mitigations"] = ["label_only", "concept_sup=0.1", "neural"]
    digits["n_tuples"] = {"train": 300, "val": 100, "test": 200, "ood": 200}
    digits["model"] = {**digits["model"], "epochs": 2}
    return section


@pytest.fixture(scope="module")
def npz_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("npz")
    path = _upsampled(root / "digits16.npz")
    section = _section(str(path))
    run_shortcuts(root, section, "generate", "digits")
    for stage in ("train", "score", "calibrate"):
        run_shortcuts(root, section, stage, "digits", block=0)
    return root, section, path


def _t(root, stage, name, block=None):
    from nesybench.shortcuts.artifacts import ARTIFACTS

    wildcards = {} if block is None else {"block": block}
    return read_parquet(root / ARTIFACTS.path(stage, name, **wildcards))


def test_digit_stages_run_on_the_users_npz(npz_run):
    root, _, path = npz_run
    supports = _t(root, "generate", "digit_supports")
    assert set(supports["images"]) == {str(path)}
    assert set(zip(supports["image_height"], supports["image_width"])) == {(16, 16)}
    samples = _t(root, "generate", "digit_samples")
    assert len(samples["pixels"].iloc[0]) == 256 and set(samples["height"]) == {16}
    weights = _t(root, "train", "digit_weights", 0)
    w1 = weights[(weights["mitigation"] == "label_only") & (weights["array"] == "W1")]
    assert tuple(w1["shape"].iloc[0]) == (256, 64)  # the encoder reads 16 x 16 pixels
    runs = _t(root, "score", "digit_runs", 0)
    assert {"label_only", "concept_sup=0.1"} <= set(runs["mitigation"])
    assert _t(root, "calibrate", "digit_calibration", 0).shape[0] > 0


def test_digit_stages_refuse_an_images_file_changed_since_generate(npz_run, tmp_path):
    root, section, path = npz_run
    copy_root = tmp_path / "run"
    shutil.copytree(root / "data", copy_root / "data")
    moved = tmp_path / "digits16.npz"
    shutil.copy(path, moved)
    section = {**section, "digits": {**section["digits"], "images": str(moved)}}
    run_shortcuts(copy_root, section, "generate", "digits")
    _upsampled(moved, n=1000)  # the user overwrites the file after generate
    with pytest.raises(InputError, match="changed since the generate stage"):
        run_shortcuts(copy_root, section, "train", "digits", block=0)


def test_sample_figure_draws_the_files_image_size(npz_run):
    from nesybench.shortcuts.digits.tasks import sample_figure

    root, _, _ = npz_run
    fig = sample_figure(_t(root, "generate", "digit_samples"), title="16x16")
    assert fig.axes[0].images[0].get_array().shape == (16, 32)
