"""MNIST-Addition-style tasks on real handwritten digits, with gold digits on every split.

The images are scikit-learn's bundled ``load_digits`` by default (1,797 real 8x8 scans
of handwritten digits shipped inside the package: no download), or a user's ``.npz``
(``shortcuts.digits.images``: arrays ``images`` N x H x W or N x D and ``labels`` 0-9,
e.g. MNIST; :mod:`nesybench.images` reads and checks it, and the image size is the
file's).  A task records its image source and the file's SHA-256, and a stage that reads
the task back refuses a file that changed since.  A task is built in two steps, so that
no image is ever shared between splits:

1. **split the images**: stratified by digit into disjoint ``train`` / ``val``
   / ``test`` pools (fractions ``image_fracs``; disjointness and coverage are
   asserted);
2. **build tuples from each pool**: a point is a tuple of ``n_positions``
   images whose gold digits ``c = (c_1, ..., c_k)`` form a digit tuple, and its
   label is computed from the gold digits by the knowledge, ``y = K(c)``
   (``sum`` for MNIST-Addition); ``y = K(gold)`` is asserted on every split.

The support knob: ``train``, ``val`` and ``test`` draw their digit tuples from
the observed support only (balanced over its tuples), and ``ood`` draws from
the unobserved tuples, with images from the test pool; at full support ``ood``
is empty.  Named supports (:data:`SUPPORTS`):

- ``full``: every tuple of the domain (MNIST-Addition);
- ``same_parity``: the tuples whose digits are all even or all odd;
- ``evenodd``: rsbench's MNAdd-EvenOdd training pairs (dataset ``shortmnist``
  of rsbench's evaluation suite, read from its ``filtrate`` method), the
  8 unordered pairs 0+6, 2+8, 4+6, 4+8, 1+5, 3+7, 1+9, 3+9 taken in both
  orders: 16 ordered pairs, sums 6, 10 and 12 (:data:`MNADD_EVENODD`);
- ``half``: rsbench's MNIST-Half training pairs on digits 0-4 (dataset
  ``halfmnist``), 0+0, 0+1, 2+3, 2+4 in both orders: 7 ordered pairs
  (:data:`MNADD_HALF`).

Any other support is given as a list of digit tuples.  The restricted variant
of the task uses ``n_digits=5`` (digits 0-4; images of 5-9 are left out).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ...counting.tasks import RSBENCH_EVEN_ODD_PAIRS, RSBENCH_HALF_PAIRS
from ...errors import InputError, check_claim
from ...images import DigitImages, file_digest, read_digit_npz
from ...seeds import child_rng

__all__ = [
    "IMAGE_SPLITS",
    "SPLITS",
    "SUPPORTS",
    "KNOWLEDGE",
    "MNADD_EVENODD",
    "MNADD_HALF",
    "TupleSplit",
    "DigitTask",
    "load_digit_images",
    "split_images",
    "all_tuples",
    "resolve_support",
    "knowledge_labels",
    "make_digit_task",
    "certificate",
    "sample_table",
    "sample_figure",
    "sample_grid",
    "tuple_string",
    "task_tables",
    "task_from_tables",
]

IMAGE_SPLITS = ("train", "val", "test")
SPLITS = ("train", "val", "test", "ood")
SUPPORTS = ("full", "same_parity", "evenodd", "half")
N_PIXELS = 64  # scikit-learn's 8x8 digits; a user's file brings its own size
PIXEL_MAX = 16.0  # load_digits pixels are integers 0..16
SKLEARN = "sklearn"  # the image source name of scikit-learn's bundled digits

# rsbench MNAdd-EvenOdd (``shortmnist``) and MNIST-Half (``halfmnist``, digits 0-4): the
# training pairs as read from rsbench's code in nesybench.counting.tasks, in both orders.
MNADD_EVENODD = tuple(sorted({p for a, b in RSBENCH_EVEN_ODD_PAIRS for p in ((a, b), (b, a))}))
MNADD_HALF = tuple(sorted({p for a, b in RSBENCH_HALF_PAIRS for p in ((a, b), (b, a))}))


def _sum(c: np.ndarray) -> np.ndarray:
    return c.sum(axis=1)


def _product(c: np.ndarray) -> np.ndarray:
    return np.prod(c, axis=1)


KNOWLEDGE = {"sum": _sum, "product": _product}


# ---- images ---------------------------------------------------------------------


@lru_cache(maxsize=4)
def image_source(source: str | None = None) -> DigitImages:
    """The digit images of ``source``: None or ``"sklearn"`` for scikit-learn's bundled
    digits, else the path of a user's ``.npz`` (read and checked once per process)."""
    if source in (None, SKLEARN):
        from sklearn.datasets import load_digits

        bunch = load_digits()
        images = np.ascontiguousarray(bunch.data, dtype=np.float64) / PIXEL_MAX
        digits = np.asarray(bunch.target, dtype=np.int64)
        images.setflags(write=False)
        digits.setflags(write=False)
        return DigitImages(images, digits, (8, 8), SKLEARN, "")
    return read_digit_npz(source)


def load_digit_images(source: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pixels ``(N, D)`` in [0, 1] and digits ``(N,)`` of ``source`` (default: scikit-learn's
    bundled handwritten digits, ``(1797, 64)``).

    The arrays are read-only and shared between calls.

    >>> images, digits = load_digit_images()
    >>> images.shape, int(digits.max()), float(images.max())
    ((1797, 64), 9, 1.0)
    """
    images = image_source(source)
    return images.pixels, images.digits


def split_images(
    digits, *, fracs: Sequence[float] = (0.5, 0.2, 0.3), seed: int
) -> dict[str, np.ndarray]:
    """Stratified, disjoint train / val / test pools of image indices.

    Within each digit class the indices are shuffled (stream ``("digits",
    "image_split")`` of ``seed``) and cut at ``round(n_c * cumsum(fracs))``, so
    every split holds about its fraction of every digit.  Returns sorted index
    arrays; disjointness and full coverage are asserted.

    >>> pools = split_images([0, 0, 0, 0, 1, 1, 1, 1, 1, 1], fracs=(0.5, 0.25, 0.25), seed=0)
    >>> [len(pools[s]) for s in ("train", "val", "test")]
    [5, 2, 3]
    """
    digits = np.asarray(digits, dtype=np.int64)
    fracs = [float(f) for f in fracs]
    if len(fracs) != 3 or min(fracs) <= 0 or abs(sum(fracs) - 1.0) > 1e-9:
        raise InputError(
            f"image_fracs must be three positive fractions (train, val, test) summing to 1, "
            f"got {fracs}"
        )
    rng = child_rng(seed, "digits", "image_split")
    cuts = np.cumsum(fracs)
    pools: dict[str, list[np.ndarray]] = {s: [] for s in IMAGE_SPLITS}
    for value in np.unique(digits):
        members = np.flatnonzero(digits == value)
        members = members[rng.permutation(len(members))]
        bounds = [0, *[int(round(c * len(members))) for c in cuts[:-1]], len(members)]
        for s, lo, hi in zip(IMAGE_SPLITS, bounds[:-1], bounds[1:]):
            pools[s].append(members[lo:hi])
    out = {s: np.sort(np.concatenate(pools[s])) for s in IMAGE_SPLITS}
    every = np.concatenate([out[s] for s in IMAGE_SPLITS])
    check_claim(
        len(np.unique(every)) == len(every) == len(digits),
        "image splits must be disjoint and cover every image",
    )
    return out


# ---- tuples, supports, knowledge ------------------------------------------------------


def all_tuples(n_digits: int, n_positions: int) -> tuple[tuple[int, ...], ...]:
    """Every digit tuple of the domain, lexicographic (position 0 most significant).

    >>> all_tuples(2, 2)
    ((0, 0), (0, 1), (1, 0), (1, 1))
    """
    return tuple(itertools.product(range(n_digits), repeat=n_positions))


def tuple_string(t: Sequence[int]) -> str:
    """``(0, 6) -> "0:6"`` (the counter's spelling of a categorical state)."""
    return ":".join(str(int(v)) for v in t)


def resolve_support(
    support: str | Sequence[Sequence[int]], *, n_digits: int, n_positions: int
) -> tuple[tuple[int, ...], ...]:
    """The observed support as a sorted tuple of digit tuples.

    ``support`` is a name from :data:`SUPPORTS` or an explicit list of digit
    tuples (each of length ``n_positions``, values in ``0..n_digits-1``, no
    duplicates).

    >>> len(resolve_support("evenodd", n_digits=10, n_positions=2))
    16
    >>> resolve_support("same_parity", n_digits=3, n_positions=2)
    ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2))
    """
    domain = all_tuples(n_digits, n_positions)
    if isinstance(support, str):
        if support == "full":
            return domain
        if support == "same_parity":
            return tuple(t for t in domain if len({v % 2 for v in t}) == 1)
        if support in ("evenodd", "half"):
            pairs, digits = (MNADD_EVENODD, 10) if support == "evenodd" else (MNADD_HALF, 5)
            if (n_digits, n_positions) != (digits, 2):
                raise InputError(
                    f"support: {support!r} is defined for 2 positions of digits 0-{digits - 1}, "
                    f"got n_positions={n_positions}, n_digits={n_digits}"
                )
            return pairs
        raise InputError(
            f"support must be one of {', '.join(SUPPORTS)} or a list of digit tuples, "
            f"got {support!r}"
        )
    tuples = []
    for t in support:
        t = tuple(int(v) for v in t)
        if len(t) != n_positions or min(t) < 0 or max(t) >= n_digits:
            raise InputError(
                f"support: every tuple must have {n_positions} digits in 0..{n_digits - 1}, got {t}"
            )
        tuples.append(t)
    if not tuples:
        raise InputError("support must list at least one digit tuple, got an empty list")
    if len(set(tuples)) != len(tuples):
        dup = next(t for t in tuples if tuples.count(t) > 1)
        raise InputError(f"support: tuple {dup} is listed more than once")
    return tuple(sorted(tuples))


def knowledge_labels(knowledge: str, digits) -> np.ndarray:
    """``y = K(c)`` for every row of ``digits`` ``(n, k)``: ``sum`` or ``product`` of the digits.

    >>> knowledge_labels("sum", [[3, 4], [0, 6]]).tolist()
    [7, 6]
    """
    if knowledge not in KNOWLEDGE:
        raise InputError(f"knowledge must be one of {', '.join(KNOWLEDGE)}, got {knowledge!r}")
    digits = np.asarray(digits, dtype=np.int64)
    if digits.ndim != 2:
        raise InputError(
            f"digits must be a 2-d array (points, positions), got shape {digits.shape}"
        )
    return KNOWLEDGE[knowledge](digits)


# ---- the task ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TupleSplit:
    """One split: image indices ``(n, k)`` into :func:`load_digit_images`, gold digits ``(n, k)``
    and labels ``(n,)``."""

    image_index: np.ndarray
    digits: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def pixels(self, images: np.ndarray) -> np.ndarray:
        """The tuple's pixels ``(n, k, 64)``."""
        return images[self.image_index]


@dataclass(frozen=True)
class DigitTask:
    """A digit-tuple task: the knowledge, the domain, the observed support and four splits."""

    knowledge: str
    n_digits: int
    n_positions: int
    support: tuple[tuple[int, ...], ...]
    image_pools: dict  # image split -> sorted image indices
    splits: dict  # split name -> TupleSplit
    seed: int
    support_name: str
    images_source: str = SKLEARN  # "sklearn" or the path of the user's .npz
    images_digest: str = ""  # the file's SHA-256 ("" for the bundled digits)
    image_shape: tuple[int, int] = (8, 8)

    @property
    def images(self) -> np.ndarray:
        return load_digit_images(self.images_source)[0]

    @property
    def image_digits(self) -> np.ndarray:
        return load_digit_images(self.images_source)[1]

    @property
    def unobserved(self) -> tuple[tuple[int, ...], ...]:
        observed = set(self.support)
        return tuple(t for t in all_tuples(self.n_digits, self.n_positions) if t not in observed)


DEFAULT_N_TUPLES = {"train": 1000, "val": 300, "test": 600, "ood": 600}


def _draw_tuples(
    tuples: Sequence[tuple[int, ...]],
    n: int,
    pool: np.ndarray,
    image_digits: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points balanced over ``tuples`` (the remainder of ``n / len(tuples)`` goes to a random
    subset), each position's image drawn uniformly from the pool's images of its digit."""
    k = len(tuples[0])
    counts = np.full(len(tuples), n // len(tuples), dtype=np.int64)
    counts[rng.choice(len(tuples), size=n % len(tuples), replace=False)] += 1
    digits = np.repeat(np.asarray(tuples, dtype=np.int64), counts, axis=0).reshape(-1, k)
    by_digit = {int(d): pool[image_digits[pool] == d] for d in np.unique(digits)}
    index = np.empty_like(digits)
    for j in range(k):
        for d, members in by_digit.items():
            rows = np.flatnonzero(digits[:, j] == d)
            index[rows, j] = members[rng.integers(0, len(members), size=len(rows))]
    order = rng.permutation(len(digits))
    return index[order], digits[order]


def make_digit_task(
    *,
    knowledge: str = "sum",
    n_digits: int = 10,
    n_positions: int = 2,
    support: str | Sequence[Sequence[int]] = "full",
    n_tuples: dict | None = None,
    image_fracs: Sequence[float] = (0.5, 0.2, 0.3),
    seed: int = 0,
    images: str | None = None,
) -> DigitTask:
    """Build a digit-tuple task (see the module docstring).

    Parameters
    ----------
    knowledge : ``"sum"`` (MNIST-Addition) or ``"product"``.
    n_digits : digits ``0..n_digits-1`` (10, or 5 for the restricted variant; 2..10).
    n_positions : images per point (k >= 1).
    support : a name from :data:`SUPPORTS` or a list of digit tuples.
    n_tuples : points per split, keys ``train``, ``val``, ``test``, ``ood`` (missing keys take
        :data:`DEFAULT_N_TUPLES`); ``ood`` is empty at full support whatever its count.
    image_fracs : stratified image fractions for train / val / test.
    seed : root seed; the image split and every tuple draw come from its named streams.
    images : None for scikit-learn's bundled digits, else the path of an ``.npz``
        (:mod:`nesybench.images`).

    >>> task = make_digit_task(support="evenodd", n_tuples={"train": 64}, seed=0)
    >>> len(task.splits["train"]), len(task.support), len(task.unobserved)
    (64, 16, 84)
    >>> sorted(set(task.splits["train"].y.tolist()))
    [6, 10, 12]
    """
    if knowledge not in KNOWLEDGE:
        raise InputError(f"knowledge must be one of {', '.join(KNOWLEDGE)}, got {knowledge!r}")
    if not (isinstance(n_digits, (int, np.integer)) and 2 <= n_digits <= 10):
        raise InputError(f"n_digits must be an integer in 2..10, got {n_digits!r}")
    if not (isinstance(n_positions, (int, np.integer)) and 1 <= n_positions <= 4):
        raise InputError(f"n_positions must be an integer in 1..4, got {n_positions!r}")
    sizes = dict(DEFAULT_N_TUPLES)
    for key, value in (n_tuples or {}).items():
        if key not in sizes:
            raise InputError(f"n_tuples: keys must be among {', '.join(SPLITS)}, got {key!r}")
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
            raise InputError(f"n_tuples[{key!r}] must be an integer >= 0, got {value!r}")
        sizes[key] = int(value)
    if sizes["train"] < 1:
        raise InputError(f"n_tuples['train'] must be at least 1, got {sizes['train']}")
    observed = resolve_support(support, n_digits=n_digits, n_positions=n_positions)
    name = support if isinstance(support, str) else "custom"

    source = image_source(images)
    image_digits = source.digits
    keep = np.flatnonzero(image_digits < n_digits)
    pools = {
        s: keep[idx]
        for s, idx in split_images(image_digits[keep], fracs=image_fracs, seed=seed).items()
    }
    _check_pools(pools, image_digits, observed, n_digits, n_positions, source.source)
    unobserved = tuple(t for t in all_tuples(n_digits, n_positions) if t not in set(observed))
    splits = {}
    for split in SPLITS:
        tuples = unobserved if split == "ood" else observed
        n = sizes[split] if tuples else 0
        if n == 0:
            empty = np.zeros((0, n_positions), dtype=np.int64)
            splits[split] = TupleSplit(empty, empty.copy(), np.zeros(0, dtype=np.int64))
            continue
        pool = pools["test" if split == "ood" else split]
        index, digits = _draw_tuples(
            tuples, n, pool, image_digits, child_rng(seed, "digits", "tuples", split)
        )
        splits[split] = TupleSplit(index, digits, knowledge_labels(knowledge, digits))
    task = DigitTask(
        knowledge=knowledge,
        n_digits=int(n_digits),
        n_positions=int(n_positions),
        support=observed,
        image_pools=pools,
        splits=splits,
        seed=int(seed),
        support_name=name,
        images_source=source.source,
        images_digest=source.digest,
        image_shape=source.shape,
    )
    _check_task(task)
    return task


def _check_pools(pools, image_digits, observed, n_digits, n_positions, source) -> None:
    """Every digit a split draws has an image in that split's pool (a user's file may not)."""
    unobserved = set(all_tuples(n_digits, n_positions)) - set(observed)
    needs = {
        "train": set(observed),
        "val": set(observed),
        "test": set(observed) | unobserved,
    }
    for pool, tuples in needs.items():
        shown = set(np.unique(image_digits[pools[pool]]).tolist())
        for digit in sorted({v for t in tuples for v in t}):
            if digit not in shown:
                total = int((image_digits == digit).sum())
                raise InputError(
                    f"images: digit {digit} has no image in the {pool} pool ({source} holds "
                    f"{total} image{'s' if total != 1 else ''} of it); every digit used needs "
                    "images in the train, val and test pools"
                )


def _check_task(task: DigitTask) -> None:
    """The generator's promises, asserted: gold digits match the images, y = K(gold) on every
    split, each split uses only its own image pool, in-distribution splits stay on the support
    and ood covers only unobserved tuples."""
    image_digits = task.image_digits
    observed = set(task.support)
    for split, data in task.splits.items():
        if len(data) == 0:
            continue
        check_claim(
            np.array_equal(image_digits[data.image_index], data.digits),
            f"{split}: every gold digit must be the digit of its image",
        )
        check_claim(
            np.array_equal(data.y, knowledge_labels(task.knowledge, data.digits)),
            f"{split}: y = K(gold digits) must hold on every point",
        )
        pool = task.image_pools["test" if split == "ood" else split]
        check_claim(
            bool(np.isin(data.image_index, pool).all()),
            f"{split}: images must come from the {split} image pool only",
        )
        seen = {tuple(int(v) for v in row) for row in data.digits}
        inside = seen <= observed if split != "ood" else not (seen & observed)
        check_claim(
            inside,
            f"{split}: tuples must lie {'outside' if split == 'ood' else 'on'} "
            "the observed support",
        )


# ---- the generator certificate --------------------------------------------------------


def certificate(task: DigitTask) -> pd.DataFrame:
    """The generator certificate as one long table: ``kind``, ``split``, ``item``, ``count``.

    Rows:

    - ``images``: images per image split and digit (``item`` = the digit), and ``item = "all"``;
    - ``tuples``: points per split and digit tuple (``item`` = ``"a:b"``), and ``"all"``;
    - ``support``: one row per observed tuple (``split = "train"``, ``count = 1``) and one per
      unobserved tuple (``split = "ood"``, ``count = 0``);
    - ``check``: the asserted promises with the number of points they were checked on
      (``y = K(gold)``, ``images disjoint``).

    >>> cert = certificate(make_digit_task(n_digits=2, n_tuples={"train": 8}, seed=0))
    >>> cert[cert.kind == "tuples"].query("item == 'all'")["count"].tolist()
    [0, 600, 8, 300]
    """
    image_digits = task.image_digits
    rows = []
    for split in IMAGE_SPLITS:
        pool = task.image_pools[split]
        counts = np.bincount(image_digits[pool], minlength=task.n_digits)[: task.n_digits]
        rows += [("images", split, str(d), int(c)) for d, c in enumerate(counts)]
        rows.append(("images", split, "all", int(len(pool))))
    for split in SPLITS:
        data = task.splits[split]
        keys, counts = (
            np.unique(
                np.array([tuple_string(r) for r in data.digits], dtype=object), return_counts=True
            )
            if len(data)
            else ([], [])
        )
        rows += [("tuples", split, str(key), int(c)) for key, c in zip(keys, counts)]
        rows.append(("tuples", split, "all", len(data)))
    rows += [("support", "train", tuple_string(t), 1) for t in task.support]
    rows += [("support", "ood", tuple_string(t), 0) for t in task.unobserved]
    n_points = sum(len(task.splits[s]) for s in SPLITS)
    n_images = sum(len(task.image_pools[s]) for s in IMAGE_SPLITS)
    rows.append(("check", "all", f"y = {task.knowledge}(gold)", n_points))
    rows.append(("check", "all", "image splits disjoint", n_images))
    df = pd.DataFrame(rows, columns=["kind", "split", "item", "count"])
    return df.sort_values(["kind", "split", "item"], kind="stable").reset_index(drop=True)


SAMPLE_COLUMNS = ("point", "position", "digit", "y", "pixels", "height", "width")


def sample_table(task: DigitTask, *, split: str = "train", n: int = 12) -> pd.DataFrame:
    """The first ``n`` points of ``split`` (already shuffled), one row per (point, position):
    the gold ``digit``, the point's label ``y``, the image's ``pixels`` and its ``height`` and
    ``width``.

    What the report draws as the generator's sample figure (:func:`sample_figure`).

    >>> t = sample_table(make_digit_task(n_tuples={"train": 4}, seed=0), n=2)
    >>> t.shape, sorted(t.columns)
    ((4, 7), ['digit', 'height', 'pixels', 'point', 'position', 'width', 'y'])
    """
    if split not in SPLITS:
        raise InputError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    data = task.splits[split]
    if len(data) == 0:
        raise InputError(f"split: {split!r} has no points to show")
    if not (isinstance(n, int) and n >= 1):
        raise InputError(f"n must be an integer >= 1, got {n!r}")
    images = task.images
    height, width = task.image_shape
    rows = [
        (
            point,
            j,
            int(data.digits[point, j]),
            int(data.y[point]),
            images[i].tolist(),
            height,
            width,
        )
        for point in range(min(n, len(data)))
        for j, i in enumerate(data.image_index[point])
    ]
    return pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))


def sample_figure(samples: pd.DataFrame, *, n_cols: int = 4, knowledge: str = "sum", title: str):
    """A matplotlib figure of a :func:`sample_table`: each point's images side by side, titled
    with its gold digits and label (``"0+6 = 6"``)."""
    from ...report.figures import new_figure_grid

    if not (isinstance(n_cols, int) and n_cols >= 1):
        raise InputError(f"n_cols must be an integer >= 1, got {n_cols!r}")
    points = sorted(samples["point"].unique())
    if not points:
        raise InputError("samples: the table has no points to show")
    k = int(samples["position"].max()) + 1
    n_rows = -(-len(points) // n_cols)
    op = "+" if knowledge == "sum" else "*"
    fig, axes = new_figure_grid(
        n_rows, n_cols, width=1.3 * k * n_cols, height=1.45 * n_rows, squeeze=False
    )
    for cell, ax in enumerate(axes.ravel()):
        ax.set_axis_off()
        if cell >= len(points):
            continue
        rows = samples[samples["point"] == points[cell]].sort_values("position")
        shape = (
            (int(rows["height"].iloc[0]), int(rows["width"].iloc[0]))
            if "height" in rows
            else (8, 8)
        )
        strip = np.hstack([np.asarray(p, dtype=float).reshape(shape) for p in rows["pixels"]])
        ax.imshow(strip, cmap="gray_r", vmin=0.0, vmax=1.0, interpolation="nearest")
        digits = op.join(str(int(d)) for d in rows["digit"])
        ax.set_title(f"{digits} = {int(rows['y'].iloc[0])}", fontsize=8)
    fig.suptitle(title, fontsize=9)
    return fig


def sample_grid(task: DigitTask, *, split: str = "train", n_rows: int = 3, n_cols: int = 4):
    """A matplotlib figure of the first ``n_rows * n_cols`` points of ``split``: each point's
    images side by side, titled with its gold digits and label (``"0+6 = 6"``).

    The points shown are the first of the (already shuffled) split, so the figure
    is a deterministic function of the task.
    """
    if not (isinstance(n_rows, int) and isinstance(n_cols, int) and n_rows >= 1 and n_cols >= 1):
        raise InputError(f"n_rows, n_cols must be integers >= 1, got {n_rows!r}, {n_cols!r}")
    samples = sample_table(task, split=split, n=n_rows * n_cols)
    return sample_figure(
        samples,
        n_cols=n_cols,
        knowledge=task.knowledge,
        title=f"{split}: gold digits and label ({task.support_name} support)",
    )


# ---- the task as tables (the generate stage's artifacts) and back ----------------------


def task_tables(task: DigitTask) -> dict[str, pd.DataFrame]:
    """The task as three tables, keyed by ``support`` (the task's support name):

    - ``tuples``: one row per point of every split: ``split``, ``point``, ``images``
      (image indices, one per position), ``digits`` (gold digits) and ``y``;
    - ``pools``: one row per image the task uses: ``image``, ``digit``, ``pool``;
    - ``supports``: one row per digit tuple of the domain: ``state`` (``"a:b"``),
      ``observed``, with ``knowledge``, ``n_digits``, ``n_positions`` and the image source
      (``images``, ``images_sha256``, ``image_height``, ``image_width``).

    :func:`task_from_tables` reads them back into the same task.
    """
    image_digits = task.image_digits
    name = task.support_name
    tuples = pd.DataFrame(
        [
            (name, split, i, data.image_index[i].tolist(), data.digits[i].tolist(), int(data.y[i]))
            for split in SPLITS
            for data in [task.splits[split]]
            for i in range(len(data))
        ],
        columns=["support", "split", "point", "images", "digits", "y"],
    )
    pools = pd.DataFrame(
        [
            (name, int(i), int(image_digits[i]), pool)
            for pool in IMAGE_SPLITS
            for i in task.image_pools[pool]
        ],
        columns=["support", "image", "digit", "pool"],
    )
    observed = set(task.support)
    supports = pd.DataFrame(
        [
            (
                name,
                tuple_string(t),
                t in observed,
                task.knowledge,
                task.n_digits,
                task.n_positions,
                task.images_source,
                task.images_digest,
                *task.image_shape,
            )
            for t in all_tuples(task.n_digits, task.n_positions)
        ],
        columns=[
            "support",
            "state",
            "observed",
            "knowledge",
            "n_digits",
            "n_positions",
            "images",
            "images_sha256",
            "image_height",
            "image_width",
        ],
    )
    return {"tuples": tuples, "pools": pools, "supports": supports}


def task_from_tables(
    tuples: pd.DataFrame, pools: pd.DataFrame, supports: pd.DataFrame, *, support: str, seed: int
) -> DigitTask:
    """The task named ``support`` read back from :func:`task_tables`; its promises are asserted
    again (gold digits match the images, y = K(gold), pools, support)."""
    sup = supports[supports["support"] == support]
    if sup.empty:
        raise InputError(
            f"support: no generated digit task named {support!r}; have "
            f"{', '.join(sorted(supports['support'].unique()))}"
        )
    first = sup.iloc[0]
    k = int(first["n_positions"])
    source = _same_images(str(first["images"]), str(first["images_sha256"]))
    observed = tuple(
        sorted(tuple(int(v) for v in s.split(":")) for s in sup.loc[sup["observed"], "state"])
    )
    rows = tuples[tuples["support"] == support]
    splits = {}
    for split in SPLITS:
        part = rows[rows["split"] == split].sort_values("point")
        index = np.array(part["images"].tolist(), dtype=np.int64).reshape(-1, k)
        digits = np.array(part["digits"].tolist(), dtype=np.int64).reshape(-1, k)
        splits[split] = TupleSplit(index, digits, part["y"].to_numpy(dtype=np.int64))
    own = pools[pools["support"] == support]
    image_pools = {
        p: np.sort(own.loc[own["pool"] == p, "image"].to_numpy(dtype=np.int64))
        for p in IMAGE_SPLITS
    }
    task = DigitTask(
        knowledge=str(first["knowledge"]),
        n_digits=int(first["n_digits"]),
        n_positions=k,
        support=observed,
        image_pools=image_pools,
        splits=splits,
        seed=int(seed),
        support_name=support,
        images_source=source.source,
        images_digest=source.digest,
        image_shape=(int(first["image_height"]), int(first["image_width"])),
    )
    _check_task(task)
    return task


def _same_images(source: str, digest: str) -> DigitImages:
    """The images the generate stage read, refused if the user's file changed since."""
    if source != SKLEARN and (not Path(source).is_file() or file_digest(source) != digest):
        raise InputError(
            f"shortcuts.digits.images: {source} is gone or changed since the generate stage "
            f"read it (sha256 {digest[:12]}...); rerun the generate stage"
        )
    return image_source(source)
