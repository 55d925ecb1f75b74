"""Labelled digit images from a user's ``.npz``: the format, its reader and its checks.

The digits stages of the shortcuts instrument run on scikit-learn's bundled 8x8 digits by
default; ``shortcuts.digits.images`` may name an ``.npz`` instead (MNIST, or any labelled
digit images), holding two arrays:

* ``images``: ``(N, H, W)`` or ``(N, D)``, an integer dtype (pixels >= 0, scaled by the
  largest pixel in the file) or a float dtype (pixels in [0, 1], used as they are);
* ``labels``: ``(N,)``, an integer dtype, every value in 0..9.

:func:`check_digit_npz` reads only the two array headers and the labels, so params
validation can check a file of any size at load time; :func:`read_digit_npz` reads and
checks the pixels too.  Bad files give one :class:`~nesybench.errors.InputError` line
naming the file, the array and the expected form.  Nothing is unpickled.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.lib.format as npy_format

from .errors import InputError

__all__ = ["DigitImages", "check_digit_npz", "read_digit_npz", "file_digest"]

IMAGES, LABELS = "images", "labels"
MAX_IMAGES = 10_000_000
MAX_PIXELS = 1_000_000  # pixels per image


@dataclass(frozen=True)
class DigitImages:
    """Pixels ``(N, D)`` in [0, 1] (float64), digits ``(N,)`` (int64), the image shape
    ``(H, W)`` (``(1, D)`` for flat images that are not square) and the file's SHA-256."""

    pixels: np.ndarray = field(repr=False)
    digits: np.ndarray = field(repr=False)
    shape: tuple[int, int]
    source: str
    digest: str


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex), read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _open(path: Path) -> zipfile.ZipFile:
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected an .npz file")
    if not path.exists():
        raise InputError(f"{path}: file not found (expected an .npz with arrays images, labels)")
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(
            f"{path}: not an .npz file ({exc.__class__.__name__}); expected arrays images and "
            "labels saved with numpy.savez"
        ) from None


def _header(archive: zipfile.ZipFile, name: str, path: Path) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype of array ``name`` from its .npy header alone."""
    member = f"{name}.npy"
    if member not in archive.namelist():
        have = ", ".join(sorted(n.removesuffix(".npy") for n in archive.namelist())) or "none"
        raise InputError(f"{path}: missing array {name!r} (has: {have}); expected images, labels")
    with archive.open(member) as handle:
        try:
            version = npy_format.read_magic(handle)
            read = (
                npy_format.read_array_header_1_0
                if version == (1, 0)
                else npy_format.read_array_header_2_0
            )
            shape, _, dtype = read(handle)
        except ValueError as exc:
            raise InputError(
                f"{path}: array {name!r} has no readable .npy header ({exc})"
            ) from None
    return tuple(int(n) for n in shape), np.dtype(dtype)


def _image_shape(shape: tuple[int, ...], path: Path) -> tuple[int, int]:
    if len(shape) == 3:
        return shape[1], shape[2]
    side = int(round(shape[1] ** 0.5))
    return (side, side) if side * side == shape[1] else (1, shape[1])


def check_digit_npz(path: str | Path) -> tuple[int, tuple[int, int]]:
    """Check an images .npz without reading its pixels; returns ``(N, (H, W))``.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> f = os.path.join(folder, "d.npz")
    >>> np.savez(f, images=np.zeros((3, 4, 5), np.uint8), labels=np.array([0, 9, 3]))
    >>> check_digit_npz(f)
    (3, (4, 5))
    """
    path = Path(path)
    with _open(path) as archive:
        shape, dtype = _header(archive, IMAGES, path)
        label_shape, label_dtype = _header(archive, LABELS, path)
    if len(shape) not in (2, 3) or shape[0] < 1 or any(n < 1 for n in shape[1:]):
        raise InputError(
            f"{path}: array 'images' must be N x H x W or N x D with N >= 1, got shape "
            f"{list(shape)}"
        )
    if shape[0] > MAX_IMAGES or int(np.prod(shape[1:])) > MAX_PIXELS:
        raise InputError(
            f"{path}: array 'images' of shape {list(shape)} is above {MAX_IMAGES:,} images or "
            f"{MAX_PIXELS:,} pixels per image"
        )
    if dtype.kind not in "uif":
        raise InputError(f"{path}: array 'images' must have an integer or float dtype, got {dtype}")
    if label_shape != (shape[0],):
        raise InputError(
            f"{path}: array 'labels' must have shape ({shape[0]},), one label per image, got "
            f"{list(label_shape)}"
        )
    if label_dtype.kind not in "ui":
        raise InputError(f"{path}: array 'labels' must have an integer dtype, got {label_dtype}")
    with np.load(path, allow_pickle=False) as data:
        labels = data[LABELS]
    if labels.min() < 0 or labels.max() > 9:
        bad = int(labels[(labels < 0) | (labels > 9)][0])
        raise InputError(f"{path}: array 'labels' must hold digits 0-9, got {bad}")
    return shape[0], _image_shape(shape, path)


def read_digit_npz(path: str | Path) -> DigitImages:
    """Read and check an images .npz (see the module docstring)."""
    path = Path(path)
    n, image_shape = check_digit_npz(path)
    with np.load(path, allow_pickle=False) as data:
        raw, labels = data[IMAGES], data[LABELS]
    pixels = raw.reshape(n, -1)
    if raw.dtype.kind == "f":
        if not np.isfinite(pixels).all():
            raise InputError(f"{path}: array 'images' holds a NaN or infinite pixel")
        if pixels.min() < 0 or pixels.max() > 1:
            raise InputError(
                f"{path}: float images must have pixels in [0, 1], got "
                f"[{float(pixels.min()):g}, {float(pixels.max()):g}]"
            )
        pixels = pixels.astype(np.float64)
    else:
        if pixels.min() < 0:
            raise InputError(f"{path}: integer images must have pixels >= 0, got {pixels.min()}")
        top = int(pixels.max())
        if top == 0:
            raise InputError(f"{path}: array 'images' is blank (every pixel 0)")
        pixels = pixels.astype(np.float64) / top
    pixels = np.ascontiguousarray(pixels)
    digits = np.asarray(labels, dtype=np.int64)
    pixels.setflags(write=False)
    digits.setflags(write=False)
    return DigitImages(pixels, digits, image_shape, str(path), file_digest(path))
