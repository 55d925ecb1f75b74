"""Score a system's answers on a grid: the degradation profile, the interaction table, the
axis that moves accuracy most, and the mixture analysis of the per-depth profile.

Inputs are plain data: the grid's records (ProofWriter's ``id, options, answer``
plus ``cell``, the axis levels) and ``{id: label or None}`` predictions (None,
or a missing id, is an abstention).  Every question counts in every accuracy
(an abstention is not correct); ``coverage`` is the share answered and
``accuracy_answered`` the accuracy on those.

* **per axis, per level**: n, answered, correct, accuracy with a Wilson 95% interval
  (the degradation profile);
* **interaction** (when the grid has ``depth`` and ``distractors``): accuracy per
  (depth, distractors) pair and the interaction contrast
  ``c(d, x) = [a(d, x) - a(d, x0)] - [a(d0, x) - a(d0, x0)]`` (d0, x0 the first levels):
  how much more level x of the distractors costs at depth d than at depth d0;
* **spread** per axis, ``max_l a(l) - min_l a(l)``, and the axis with the largest;
* **coefficients**: a logistic regression (scikit-learn) of correctness on one
  indicator per non-reference level of each axis,
  ``logit P(correct) = b0 + sum_{axis, level} b_{axis,level} [cell level = level]``,
  with percentile bootstrap intervals (questions resampled with replacement);
* **mixture**: the per-depth profile ``a_d``, the aggregate ``sum_d pi_d a_d`` under the
  grid's own depth mix, under a uniform mix and under a given one, its range over all
  mixes (``[min a_d, max a_d]``), and, against a second system's profile ``b``, the
  two-depth mixes that tie them (:mod:`.mixture`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..predictions import NotALabel, PredictionSet, items_of, rate
from ..predictions import read_predictions as read_under_policy
from ..seeds import child_rng
from . import mixture as mixture_mod
from .grid import AXES as GRID_AXES
from .grid import level_problem

_OPTION = re.compile(r"^([A-Z])\)\s*(.+)$")
#: the depth and distractor axes the interaction table crosses
INTERACTION = ("depth", "distractors")


@dataclass(frozen=True)
class Grid:
    """A grid's gold side, validated: per question its gold label, options and cell."""

    ids: tuple[str, ...]
    gold: dict[str, str]  # id -> gold label text ("True")
    options: dict[str, dict[str, str]]  # id -> letter -> label text
    cells: dict[str, dict]  # id -> {axis: level}
    axes: tuple[str, ...]
    levels: dict[str, list]  # axis -> levels in order of first appearance
    source: str

    @property
    def label_set(self) -> frozenset[str]:
        """Every label text of the grid's options."""
        return frozenset(label for opts in self.options.values() for label in opts.values())

    @property
    def letters(self) -> frozenset[str]:
        return frozenset(letter for opts in self.options.values() for letter in opts)

    def __len__(self) -> int:
        return len(self.ids)


# --------------------------------------------------------------------------- reading


def read_json_records(path: str | Path, *, what: str) -> list[tuple[int, object]]:
    """The records of a JSONL file (or of a JSON array file), each with its line number.

    Read with the input bound and the JSON / JSON Lines rules of
    :func:`nesybench.io.json_records`; a line that is not JSON is an ``InputError``
    naming the file and line.
    """
    from ..io import BadLine, json_records, read_input_text

    try:
        _, items = json_records(read_input_text(path, what=what), source=path)
    except InputError as exc:
        raise InputError(str(exc)) from None
    for _, record in items:
        if isinstance(record, BadLine):
            raise InputError(f"{path}: {record}")
    return items


def _plain(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_options(options: object, where: str) -> dict[str, str]:
    if not isinstance(options, list) or not options:
        raise InputError(
            f"{where}: 'options' must be a non-empty list of strings, got {_plain(options)}"
        )
    out: dict[str, str] = {}
    for i, option in enumerate(options):
        if not isinstance(option, str) or not option.strip():
            raise InputError(f"{where}: 'options' must be a list of strings, got {_plain(option)}")
        m = _OPTION.match(option.strip())
        letter, label = (m.group(1), m.group(2).strip()) if m else (chr(65 + i), option.strip())
        if letter in out or label in out.values():
            raise InputError(f"{where}: 'options' repeats {letter} / {label!r}")
        out[letter] = label
    return out


def grid_from_records(records: Sequence[tuple[int, object]], *, source: str) -> Grid:
    """Validate a grid's records (``id``, ``options``, ``answer``, ``cell``); see :class:`Grid`.

    Every cell names the axes of the first line; a level of one of the exported grid's
    axes (:data:`nesybench.axes.grid.AXES`) must have that axis's declared form
    (:func:`~nesybench.axes.grid.level_problem`: a depth is an integer in [0, 20], not
    ``"deep"`` or 1e308), and the levels of any axis are all numbers or all strings.
    """
    if not records:
        raise InputError(f"{source}: the grid holds no questions")
    ids: list[str] = []
    gold, options, cells = {}, {}, {}
    axes: tuple[str, ...] | None = None
    levels: dict[str, list] = {}
    kinds: dict[str, tuple[str, int]] = {}
    seen: dict[str, int] = {}
    for lineno, record in records:
        where = f"{source}: line {lineno}"
        if not isinstance(record, dict):
            raise InputError(f"{where}: record must be a JSON object, got {_plain(record)}")
        for key in ("id", "options", "answer", "cell"):
            if key not in record:
                raise InputError(f"{where}: missing field '{key}'")
        qid = record["id"]
        if not isinstance(qid, str) or not qid:
            raise InputError(f"{where}: 'id' must be a non-empty string, got {_plain(qid)}")
        if qid in seen:
            raise InputError(f"{where}: duplicate id {_plain(qid)} (first on line {seen[qid]})")
        seen[qid] = lineno
        opts = _parse_options(record["options"], where)
        answer = record["answer"]
        if isinstance(answer, str) and answer.strip() in opts:
            label = opts[answer.strip()]
        elif isinstance(answer, str) and answer.strip() in opts.values():
            label = answer.strip()
        else:
            raise InputError(
                f"{where}: 'answer' must be one of the options' letters "
                f"{', '.join(sorted(opts))}, got {_plain(answer)}"
            )
        cell = record["cell"]
        if not isinstance(cell, dict) or not cell:
            raise InputError(
                f"{where}: 'cell' must be an object of axis levels, got {_plain(cell)}"
            )
        if axes is None:
            axes = tuple(cell)
        elif tuple(cell) != axes and set(cell) != set(axes):
            raise InputError(
                f"{where}: 'cell' must name the same axes as line {records[0][0]} "
                f"({', '.join(axes)}), got {', '.join(map(str, cell))}"
            )
        for axis in axes:
            value = cell[axis]
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise InputError(
                    f"{where}: cell.{axis} must be a number or a string, got {_plain(value)}"
                )
            if isinstance(value, float) and not math.isfinite(value):
                raise InputError(f"{where}: cell.{axis} must be finite, got {value}")
            expected = level_problem(axis, value) if axis in GRID_AXES else None
            if expected is not None:
                raise InputError(
                    f"{where}: cell.{axis} must be one of the grid's {axis} levels, "
                    f"{expected}, got {_plain(value)}"
                )
            kind = "a string" if isinstance(value, str) else "a number"
            first = kinds.setdefault(axis, (kind, lineno))
            if first[0] != kind:
                raise InputError(
                    f"{where}: cell.{axis} must be {first[0]} like on line {first[1]} (one axis, "
                    f"one kind of level), got {_plain(value)}"
                )
            if value not in levels.setdefault(axis, []):
                levels[axis].append(value)
        ids.append(qid)
        gold[qid], options[qid], cells[qid] = label, opts, {a: cell[a] for a in axes}
    return Grid(tuple(ids), gold, options, cells, axes or (), levels, source)


def read_grid(path: str | Path) -> Grid:
    """:func:`grid_from_records` on a JSONL (or JSON array) file."""
    return grid_from_records(read_json_records(path, what="grid file"), source=str(path))


def predictions_from_records(
    records: Sequence[tuple[int | str, object]],
    grid: Grid,
    *,
    source: str,
    strict: bool = False,
) -> PredictionSet:
    """The predictions of ``{"id": ..., "prediction": ...}`` records, read under the one policy
    of :mod:`nesybench.predictions` (as ``score-nli`` reads them).

    A prediction is a letter (``"A"``), an option (``"A) True"``) or a label (``"true"``,
    any case) of the grid's label set; ``null`` abstains; anything else is unreadable (not
    correct, counted; an error with ``strict``).  Unknown and duplicate ids are
    ``InputError``; ids the file leaves out are abstentions (coverage < 1).  ``records``
    are ``(line number or "where", record)``.
    """
    if not records:
        raise InputError(f"{source}: no predictions")
    words = {label.lower(): label for label in grid.label_set}
    letters = grid.letters
    accepted = ", ".join(sorted(letters) + sorted(grid.label_set))

    def read_label(value: object, record: dict) -> str:
        if not isinstance(value, str):
            raise NotALabel(f"{_plain(value)} is not a label string (or null to abstain)")
        text = value.strip()
        m = _OPTION.match(text)
        if m and m.group(1) in letters:
            text = m.group(1)
        if len(text) == 1 and text.upper() in letters:
            return grid.options[str(record["id"]).strip()].get(text.upper(), f"({text.upper()})")
        if text.lower() in words:
            return words[text.lower()]
        raise NotALabel(
            f"{_plain(value)} is outside the grid's label set ({accepted}, any case, or null "
            "to abstain)"
        )

    items = [(f"line {n}" if isinstance(n, int) else n, r) for n, r in records]
    return read_under_policy(
        items,
        source=source,
        gold_ids=grid.ids,
        read_label=read_label,
        strict=strict,
        gold_name=f"the questions of the grid {grid.source}",
    )


def read_predictions(path: str | Path, grid: Grid, *, strict: bool = False) -> PredictionSet:
    """:func:`predictions_from_records` on a JSONL (or JSON array) file."""
    return predictions_from_records(items_of(str(path)), grid, source=str(path), strict=strict)


# --------------------------------------------------------------------------- scoring


def _level_key(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _stats(correct: np.ndarray, answered: np.ndarray) -> dict:
    """:func:`nesybench.predictions.rate`: accuracy over every question, with its coverage."""
    return rate(int(correct.sum()), int(answered.sum()), int(correct.size))


def _outcomes(grid: Grid, predictions: Mapping[str, str | None]) -> tuple[np.ndarray, np.ndarray]:
    answered = np.array([predictions.get(q) is not None for q in grid.ids], dtype=bool)
    correct = np.array([predictions.get(q) == grid.gold[q] for q in grid.ids], dtype=bool)
    return correct, answered


def _column(grid: Grid, axis: str) -> np.ndarray:
    return np.array([grid.cells[q][axis] for q in grid.ids], dtype=object)


def per_axis_profile(grid: Grid, correct: np.ndarray, answered: np.ndarray) -> dict:
    """``axis -> level -> {n, answered, correct, accuracy, lo, hi, accuracy_answered}``."""
    out = {}
    for axis in grid.axes:
        column = _column(grid, axis)
        out[axis] = {
            _level_key(level): _stats(correct[column == level], answered[column == level])
            for level in grid.levels[axis]
        }
    return out


def per_cell_table(grid: Grid, correct: np.ndarray, answered: np.ndarray) -> list[dict]:
    """One row per cell (order of first appearance): its levels, counts, accuracies, chance."""
    groups: dict[tuple, list[int]] = {}
    for i, q in enumerate(grid.ids):
        groups.setdefault(tuple(grid.cells[q][a] for a in grid.axes), []).append(i)
    rows = []
    for key, idx in groups.items():
        idx_arr = np.asarray(idx)
        n_options = {len(grid.options[grid.ids[i]]) for i in idx}
        rows.append(
            {
                "cell": dict(zip(grid.axes, key)),
                **_stats(correct[idx_arr], answered[idx_arr]),
                "chance": 1 / n_options.pop() if len(n_options) == 1 else None,
            }
        )
    return rows


def interaction_table(grid: Grid, correct: np.ndarray, answered: np.ndarray) -> dict | None:
    """Accuracy per (depth, distractors) pair and the interaction contrast (module docstring)."""
    if not set(INTERACTION) <= set(grid.axes):
        return None
    rows_axis, cols_axis = INTERACTION
    r_col, c_col = _column(grid, rows_axis), _column(grid, cols_axis)
    acc = {}
    table = []
    for r in grid.levels[rows_axis]:
        for c in grid.levels[cols_axis]:
            mask = (r_col == r) & (c_col == c)
            if not mask.any():
                continue
            stats = _stats(correct[mask], answered[mask])
            acc[(r, c)] = stats["accuracy"]
            table.append({rows_axis: r, cols_axis: c, **stats})
    r0, c0 = grid.levels[rows_axis][0], grid.levels[cols_axis][0]
    for row in table:
        r, c = row[rows_axis], row[cols_axis]
        parts = [acc.get(k) for k in ((r, c), (r, c0), (r0, c), (r0, c0))]
        row["contrast"] = (
            None if any(p is None for p in parts) else (parts[0] - parts[1]) - (parts[2] - parts[3])
        )
    return {"rows": rows_axis, "columns": cols_axis, "table": table}


def axis_spread(per_axis: Mapping[str, Mapping[str, dict]]) -> dict[str, float]:
    """``max_l accuracy - min_l accuracy`` per axis (0 for an axis with one level)."""
    out = {}
    for axis, levels in per_axis.items():
        values = [s["accuracy"] for s in levels.values() if s["accuracy"] is not None]
        out[axis] = float(max(values) - min(values)) if values else 0.0
    return out


def _design(grid: Grid) -> tuple[np.ndarray, list[tuple[str, object]]]:
    terms = [(axis, level) for axis in grid.axes for level in grid.levels[axis][1:]]
    columns = {axis: _column(grid, axis) for axis in grid.axes}
    x = np.zeros((len(grid), len(terms)))
    for j, (axis, level) in enumerate(terms):
        x[:, j] = columns[axis] == level
    return x, terms


def regression(
    grid: Grid,
    correct: np.ndarray,
    *,
    resamples: int = 200,
    level: float = 0.95,
    C: float = 1.0,
    seed: int = 0,
) -> dict:
    """Logistic regression of correctness on the axis levels, with bootstrap intervals.

    Reference level of each axis: its first level.  ``C`` is scikit-learn's inverse L2
    strength (the intercept is not penalised).  Resamples in which correctness is
    constant are skipped (``used`` counts the others).
    """
    from sklearn.linear_model import LogisticRegression

    x, terms = _design(grid)
    y = correct.astype(int)
    out: dict = {
        "model": "logit P(correct) = b0 + sum of one coefficient per non-reference axis level",
        "reference": {axis: grid.levels[axis][0] for axis in grid.axes},
        "C": C,
        "level": level,
        "resamples": resamples,
    }
    if y.min() == y.max():
        out.update(
            used=0,
            intercept=None,
            terms=[],
            most_moving_axis=None,
            note=f"correctness is constant ({'all correct' if y[0] else 'none correct'}): "
            "no regression",
        )
        return out

    # The design has one row per cell, so the fit runs on (cell, outcome) groups weighted by
    # their counts: the same penalised likelihood, a few hundred rows however many questions.
    cell_of = {}
    group = np.array([cell_of.setdefault(tuple(row), len(cell_of)) for row in x.tolist()])
    key = group * 2 + y
    n_keys = 2 * len(cell_of)
    rows_x = np.repeat(np.asarray(list(cell_of), dtype=float).reshape(len(cell_of), -1), 2, axis=0)
    rows_y = np.tile([0, 1], len(cell_of))

    def fit(counts: np.ndarray) -> np.ndarray:
        keep = counts > 0
        model = LogisticRegression(C=C, solver="newton-cholesky", max_iter=200)
        model.fit(rows_x[keep], rows_y[keep], sample_weight=counts[keep])
        return np.concatenate([model.intercept_, model.coef_[0]])

    point = fit(np.bincount(key, minlength=n_keys).astype(float))
    rng = child_rng(seed, "axes-score", "bootstrap")
    draws = []
    for _ in range(resamples):
        idx = rng.integers(0, len(y), len(y))
        if y[idx].min() != y[idx].max():
            draws.append(fit(np.bincount(key[idx], minlength=n_keys).astype(float)))
    alpha = (1 - level) / 2
    if draws:
        lo, hi = np.quantile(np.asarray(draws), [alpha, 1 - alpha], axis=0)
    else:
        lo = hi = np.full(point.shape, np.nan)

    def interval(j: int) -> dict:
        return {
            "coef": float(point[j]),
            "lo": None if np.isnan(lo[j]) else float(lo[j]),
            "hi": None if np.isnan(hi[j]) else float(hi[j]),
        }

    rows = [{"axis": a, "level": v, **interval(j + 1)} for j, (a, v) in enumerate(terms)]
    by_axis: dict[str, float] = {}
    for r in rows:
        by_axis[r["axis"]] = max(by_axis.get(r["axis"], 0.0), abs(r["coef"]))
    out.update(
        used=len(draws),
        intercept=interval(0),
        terms=rows,
        most_moving_axis=max(by_axis, key=lambda a: (by_axis[a], a)) if by_axis else None,
    )
    return out


def depth_profile(grid: Grid, correct: np.ndarray) -> tuple[list, list[int], list[float]] | None:
    """``(depths, n_d, a_d)`` over the grid's depth levels (sorted), or None without a depth
    axis."""
    if "depth" not in grid.axes:
        return None
    column = _column(grid, "depth")
    depths = sorted(grid.levels["depth"], key=lambda v: (str(type(v)), v))
    n = [int((column == d).sum()) for d in depths]
    acc = [float(correct[column == d].mean()) for d in depths]
    return depths, n, acc


def mixture_analysis(
    grid: Grid,
    correct: np.ndarray,
    *,
    mix: Sequence[float] | None = None,
    against: np.ndarray | None = None,
    answered: np.ndarray | None = None,
) -> dict | None:
    """The per-depth profile and its aggregates under other depth mixes (module docstring);
    with ``answered``, each depth's coverage beside its accuracy."""
    profile = depth_profile(grid, correct)
    if profile is None:
        if mix is not None:
            raise InputError(f"--mix: the grid {grid.source} has no depth axis to mix over")
        return None
    depths, n, a = profile
    out: dict = {
        "depths": depths,
        "n": n,
        "accuracy": a,
        "aggregate": mixture_mod.aggregate(a, n),
        "aggregate_uniform": float(np.mean(a)),
        "range": [min(a), max(a)],
    }
    if answered is not None:
        column = _column(grid, "depth")
        out["coverage"] = [float(answered[column == d].mean()) for d in depths]
    if mix is not None:
        if len(mix) != len(depths):
            raise InputError(
                f"--mix must be {len(depths)} weights (one per depth {depths}), got {len(mix)}"
            )
        out["under_mix"] = {
            "weights": list(map(float, mixture_mod.mixture_weights(mix, name="--mix"))),
            "aggregate": mixture_mod.aggregate(a, mix),
        }
    if against is not None:
        b = depth_profile(grid, against)[2]  # type: ignore[index]
        report = mixture_mod.mixture_report(a, b, n, names=("this system", "--against", "n"))
        out["against"] = {
            "accuracy": b,
            "aggregate": report["aggregate_b"],
            "ties": [
                {"depths": [depths[t["depths"][0]], depths[t["depths"][1]]], "pi": t["pi"],
                 "accuracy": t["accuracy"]}
                for t in report["ties"]
            ],
            "pure_depth": [
                {"depth": depths[r["depth"]], "this": r["a"], "against": r["b"],
                 "first": {"a": "this", "b": "against", "tie": "tie"}[r["first"]]}
                for r in report["pure_depth"]
            ],
        }  # fmt: skip
    return out


def score(
    grid: Grid,
    predictions: Mapping[str, str | None] | PredictionSet,
    *,
    against: Mapping[str, str | None] | PredictionSet | None = None,
    mix: Sequence[float] | None = None,
    resamples: int = 200,
    level: float = 0.95,
    C: float = 1.0,
    seed: int = 0,
    regress: bool = True,
) -> dict:
    """Everything the module docstring lists, as one JSON-ready dict.

    Keys: ``n``, ``answered``, ``coverage``, ``correct``, ``accuracy``, ``accuracy_lo``,
    ``accuracy_hi``, ``accuracy_answered``, ``not_an_option``, ``per_axis``, ``per_cell``,
    ``interaction``, ``spread``, ``most_moving_axis``, ``coefficients``, ``mixture``.
    ``regress=False`` leaves ``coefficients`` None (no scikit-learn: for a caller that fits
    the regression elsewhere, e.g. over a sweep of seeds).

    >>> records = [(1, {"id": "a", "options": ["A) True", "B) False"], "answer": "A",
    ...                 "cell": {"depth": 0}}),
    ...            (2, {"id": "b", "options": ["A) True", "B) False"], "answer": "B",
    ...                 "cell": {"depth": 1}})]
    >>> out = score(grid_from_records(records, source="g"), {"a": "True"}, resamples=0)
    >>> out["coverage"], out["accuracy"], out["per_axis"]["depth"]["1"]["accuracy"]
    (0.5, 0.5, 0.0)
    """
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), got {level}")
    if resamples < 0:
        raise InputError(f"resamples must be >= 0, got {resamples}")
    policy = predictions.report(grid.ids) if isinstance(predictions, PredictionSet) else None
    if isinstance(predictions, PredictionSet):
        predictions = predictions.labels
    if isinstance(against, PredictionSet):
        against = against.labels
    correct, answered = _outcomes(grid, predictions)
    per_axis = per_axis_profile(grid, correct, answered)
    spread = axis_spread(per_axis)
    overall = _stats(correct, answered)
    not_an_option = sum(
        1
        for q in grid.ids
        if predictions.get(q) is not None and predictions[q] not in grid.options[q].values()
    )
    against_correct = _outcomes(grid, against)[0] if against is not None else None
    counts = {"abstained": overall["n"] - overall["answered"], "unreadable": 0}
    if policy is not None:
        counts = {k: policy[k] for k in ("abstained", "unreadable")}
        counts["unreadable_predictions"] = policy["unreadable_predictions"]
        counts["skipped_predictions"] = policy["skipped_predictions"]
    return {
        "n": overall["n"],
        "answered": overall["answered"],
        **counts,
        "coverage": overall["coverage"],
        "correct": overall["correct"],
        "accuracy": overall["accuracy"],
        "accuracy_lo": overall["lo"],
        "accuracy_hi": overall["hi"],
        "accuracy_answered": overall["accuracy_answered"],
        "not_an_option": not_an_option,
        "per_axis": per_axis,
        "per_cell": per_cell_table(grid, correct, answered),
        "interaction": interaction_table(grid, correct, answered),
        "spread": spread,
        "most_moving_axis": max(spread, key=lambda a: (spread[a], a)) if spread else None,
        "coefficients": (
            regression(grid, correct, resamples=resamples, level=level, C=C, seed=seed)
            if regress
            else None
        ),
        "mixture": mixture_analysis(
            grid, correct, mix=mix, against=against_correct, answered=answered
        ),
    }
