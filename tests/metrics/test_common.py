"""Every public metric of nesybench.metrics in one table, and the tests that run over all of it.

The model is scikit-learn's ``sklearn/metrics/tests/test_common.py``: a registry says what
kind of input each metric reads (binary probabilities, binary scores, K-way probabilities,
K-way logits, a depth profile) and what it promises (best value on perfect predictions,
bounds, the scikit-learn function it agrees with); shared tests check those promises and
that bad input of every sort (wrong shapes, NaN / inf, probabilities outside [0, 1], empty
input, keyword values outside their declared constraints) raises ``InputError`` in the one
template.  ``test_every_public_function_is_registered`` fails when a new public function
appears in ``nesybench.metrics`` without an entry here or in ``NOT_METRICS``.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.special import softmax as sp_softmax
from sklearn.metrics import accuracy_score, brier_score_loss, log_loss, roc_auc_score

import nesybench.metrics
from nesybench.constraints import Boolean, Interval, Options
from nesybench.errors import InputError
from nesybench.metrics import calibration as cal
from nesybench.metrics import calibrators, mixture, multiclass, multiclass_calibration, temperature
from nesybench.metrics import stats as stats_mod

# <where>: <name> must <constraint>, got <value>  (errors.bad_value and the array checks)
TEMPLATE = re.compile(r"^(?:(?P<where>[\w.\-]+): )?(?P<name>[\w\[\]. ]+?) must .+, got .+$")

BINARY_PROB, BINARY_SCORE = "binary probability", "binary score"
MULTI_PROB, MULTI_LOGITS, PROFILE = "multiclass probability", "multiclass logits", "depth profile"


@dataclass(frozen=True)
class Metric:
    func: Callable
    kind: str
    best: float | None = None  # the value on perfect predictions (None: a table or a dict)
    bounds: tuple[float, float] | None = None
    higher_is_better: bool = False
    sklearn: Callable | None = None  # the same number computed by scikit-learn


def _sk_multiclass_brier(y, p):
    return float(np.mean(np.sum((p - np.eye(p.shape[1])[y]) ** 2, axis=1)))


REGISTRY = [
    Metric(cal.expected_calibration_error, BINARY_PROB, 0.0, (0, 1)),
    Metric(cal.maximum_calibration_error, BINARY_PROB, 0.0, (0, 1)),
    Metric(cal.debiased_calibration_error, BINARY_PROB, 0.0, (0, 1)),
    Metric(cal.l2_calibration_error, BINARY_PROB, 0.0, (0, 1)),
    Metric(cal.brier_score, BINARY_PROB, 0.0, (0, 1), sklearn=brier_score_loss),
    Metric(cal.nll_from_probs, BINARY_PROB, 0.0, (0, math.inf), sklearn=log_loss),
    Metric(
        cal.accuracy_at_half,
        BINARY_PROB,
        1.0,
        (0, 1),
        higher_is_better=True,
        sklearn=lambda y, p: accuracy_score(y, p >= 0.5),
    ),
    Metric(cal.reliability_table, BINARY_PROB),
    Metric(cal.brier_decomposition, BINARY_PROB),
    Metric(cal.calibration_summary, BINARY_PROB),
    Metric(
        cal.nll_from_scores,
        BINARY_SCORE,
        0.0,
        (0, math.inf),
        sklearn=lambda y, s: log_loss(y, expit(s)),
    ),
    Metric(cal.roc_auc, BINARY_SCORE, 1.0, (0, 1), higher_is_better=True, sklearn=roc_auc_score),
    Metric(multiclass.top_label_ece, MULTI_PROB, 0.0, (0, 1)),
    Metric(multiclass.classwise_ece, MULTI_PROB, 0.0, (0, 1)),
    Metric(
        multiclass.multiclass_nll,
        MULTI_PROB,
        0.0,
        (0, math.inf),
        sklearn=lambda y, p: log_loss(y, p, labels=range(p.shape[1])),
    ),
    Metric(multiclass.multiclass_brier, MULTI_PROB, 0.0, (0, 2), sklearn=_sk_multiclass_brier),
    Metric(
        multiclass.multiclass_accuracy,
        MULTI_PROB,
        1.0,
        (0, 1),
        higher_is_better=True,
        sklearn=lambda y, p: accuracy_score(y, p.argmax(axis=1)),
    ),
    Metric(multiclass.multiclass_summary, MULTI_PROB),
    Metric(multiclass.multiclass_reliability, MULTI_PROB),
    Metric(
        multiclass.nll_from_logits,
        MULTI_LOGITS,
        0.0,
        (0, math.inf),
        sklearn=lambda y, z: log_loss(y, sp_softmax(z, axis=1), labels=range(z.shape[1])),
    ),
    Metric(mixture.aggregate, PROFILE, None, (0, 1), higher_is_better=True),
    Metric(mixture.mix_range, PROFILE),
]
BY_NAME = {m.func.__name__: m for m in REGISTRY}

# Public functions of nesybench.metrics that are not metrics of predictions, and why.
NOT_METRICS = {
    "plain": "formats a number for messages",
    "check_labels": "input validator (exercised through every metric below)",
    "check_scores": "input validator",
    "check_probs": "input validator",
    "check_n_bins": "the declared n_bins constraint, for CLI parsers",
    "check_class_labels": "input validator",
    "check_logits": "input validator",
    "check_class_probs": "input validator",
    "check_profile": "input validator",
    "check_calibration_split": "input validator of a calibration split",
    "bin_edges": "binning convention (keyword constraints swept below)",
    "bin_index": "binning convention (keyword constraints swept below)",
    "sigmoid": "a reading of scores, not a score of predictions",
    "softmax": "a reading of logits",
    "top_label": "a reading of probabilities",
    "bootstrap_interval": "an interval of a metric (keyword constraints swept below)",
    "wilson_interval": "an interval of a count",
    "mixture_weights": "weights from counts",
    "golden_section": "an optimiser",
    "fit_temperature": "a fit",
    "fit_temperature_softmax": "a fit",
    "make_calibrator": "a calibrator factory",
    "make_multiclass_calibrator": "a calibrator factory",
    "invariances": "a comparison of two readings",
    "ranking_invariances": "a comparison of two readings",
    "calibrate_multiclass": "a fit and its audit",
}


def public_functions() -> dict[str, Callable]:
    """Every public function defined in a module of nesybench.metrics (re-exports excluded)."""
    found = {}
    modules = [nesybench.metrics] + [
        importlib.import_module(f"nesybench.metrics.{info.name}")
        for info in pkgutil.iter_modules(nesybench.metrics.__path__)
    ]
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(obj):
                continue
            if inspect.unwrap(obj).__module__ == module.__name__:
                found[name] = obj
    return found


def unregistered() -> list[str]:
    return sorted(set(public_functions()) - set(BY_NAME) - set(NOT_METRICS))


def test_every_public_function_is_registered():
    assert not unregistered(), (
        f"add {unregistered()} to REGISTRY (a metric) or NOT_METRICS (with the reason) here"
    )
    assert not (set(BY_NAME) | set(NOT_METRICS)) - set(public_functions()), "stale entries"


def test_a_new_public_function_fails_the_completeness_test(monkeypatch):
    def new_metric(y_true, y_prob):
        return 0.0

    new_metric.__module__ = cal.__name__
    monkeypatch.setattr(cal, "new_metric", new_metric, raising=False)
    assert unregistered() == ["new_metric"]


# ---------------------------------------------------------------- data of each kind
def data(kind: str, seed: int = 0, n: int = 240, k: int = 4):
    rng = np.random.default_rng(seed)
    if kind == BINARY_PROB:
        p = rng.beta(0.8, 0.8, n)
        return (rng.random(n) < p).astype(int), p
    if kind == BINARY_SCORE:
        s = rng.normal(0, 2, n)
        return (rng.random(n) < expit(s)).astype(int), s
    if kind in (MULTI_PROB, MULTI_LOGITS):
        z = rng.normal(0, 2, (n, k))
        y = np.array([rng.choice(k, p=row) for row in sp_softmax(z, axis=1)])
        return y, (z if kind == MULTI_LOGITS else sp_softmax(z, axis=1))
    if kind == PROFILE:
        return rng.random(6), rng.integers(1, 50, 6).astype(float)
    raise AssertionError(kind)


def perfect(kind: str, n: int = 60, k: int = 3):
    y = np.arange(n) % (2 if kind.startswith("binary") else k)
    if kind == BINARY_PROB:
        return y, y.astype(float)
    if kind == BINARY_SCORE:
        return y, 40.0 * (2 * y - 1)
    onehot = np.eye(k)[y]
    return y, (onehot if kind == MULTI_PROB else 40.0 * onehot)


def _flat(value) -> np.ndarray:
    if isinstance(value, pd.DataFrame):
        return value.select_dtypes("number").to_numpy(dtype=float).ravel()
    if isinstance(value, dict):
        return np.array([float(v) for v in value.values()])
    return np.atleast_1d(np.asarray(value, dtype=float))


ALL = pytest.mark.parametrize("metric", REGISTRY, ids=lambda m: m.func.__name__)
SCALAR = pytest.mark.parametrize(
    "metric", [m for m in REGISTRY if m.bounds], ids=lambda m: m.func.__name__
)


# ---------------------------------------------------------------- properties
@ALL
@pytest.mark.parametrize("seed", range(3))
def test_invariant_under_a_permutation_of_the_samples(metric, seed):
    first, second = data(metric.kind, seed)
    order = np.random.default_rng(100 + seed).permutation(len(first))
    if metric.kind == PROFILE:  # a profile's samples are its depths, with their counts
        np.testing.assert_allclose(
            _flat(metric.func(first[order], second[order])), _flat(metric.func(first, second))
        )
        return
    before, after = metric.func(first, second), metric.func(first[order], second[order])
    if isinstance(before, pd.DataFrame):  # a table keeps its bins, whatever the row order
        assert list(before.columns) == list(after.columns)
    np.testing.assert_allclose(_flat(after), _flat(before), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "metric", [m for m in REGISTRY if m.best is not None], ids=lambda m: m.func.__name__
)
def test_perfect_predictions_score_the_best_value_and_beat_noisy_ones(metric):
    y, best_input = perfect(metric.kind)
    best = metric.func(y, best_input)
    assert best == pytest.approx(metric.best, abs=1e-12)
    y_noisy, noisy = data(metric.kind)
    if metric.kind == BINARY_PROB:  # noisy and miscalibrated (data() is calibrated by design)
        noisy = noisy**3
    elif metric.kind == MULTI_PROB:
        noisy = sp_softmax(3 * np.log(noisy), axis=1)
    worse = metric.func(y_noisy, noisy)
    assert worse < best if metric.higher_is_better else worse > best


@SCALAR
@pytest.mark.parametrize("seed", range(4))
def test_values_stay_in_their_bounds(metric, seed):
    lo, hi = metric.bounds
    value = metric.func(*data(metric.kind, seed))
    assert lo <= value <= hi


def test_the_profile_aggregate_lies_between_the_worst_and_best_depth():
    for seed in range(5):
        a, n = data(PROFILE, seed)
        r = mixture.mix_range(a, n)
        assert r["min"] <= mixture.aggregate(a, n) == r["realized"] <= r["max"]
        assert mixture.aggregate(np.full(6, 0.7), n) == pytest.approx(0.7)  # constant profile


@pytest.mark.parametrize(
    "metric", [m for m in REGISTRY if m.sklearn is not None], ids=lambda m: m.func.__name__
)
@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_scikit_learn(metric, seed):
    y, pred = data(metric.kind, seed)
    assert metric.func(y, pred) == pytest.approx(
        float(metric.sklearn(y, pred)), rel=1e-9, abs=1e-12
    )


# ---------------------------------------------------------------- bad input
def _bad_inputs(kind: str):
    """(case, first, second) of input no metric of ``kind`` may score."""
    y, pred = data(kind, n=8)
    nan, inf = pred.astype(float).copy(), pred.astype(float).copy()
    nan.flat[3], inf.flat[3] = np.nan, np.inf
    cases = [
        ("nan", y, nan),
        ("inf", y, inf),
        ("empty", y[:0], pred[:0]),
        ("length", y[:-1], pred),
        ("labels 2-D", y[:, None], pred),
        ("strings", y, np.array(["a"] * len(y), dtype=object)),
    ]
    if kind.startswith("binary"):
        cases += [("predictions 2-D", y, np.column_stack([pred, pred])), ("label 2", y + 2, pred)]
    else:
        cases += [("predictions 1-D", y, pred[:, 0]), ("class index K", y + pred.shape[1], pred)]
    if kind == BINARY_PROB:
        above, below = pred.copy(), pred.copy()
        above[0], below[0] = 1.5, -0.1
        cases += [("prob > 1", y, above), ("prob < 0", y, below)]
    if kind == MULTI_PROB:
        off = pred.copy()
        off[0] *= 1.1
        neg = pred.copy()
        neg[0, 0] -= 2.0
        cases += [("row sum", y, off), ("prob < 0", y, neg)]
    return cases


def _expect_template(error: pytest.ExceptionInfo, where: str | None) -> None:
    message = str(error.value)
    assert "\n" not in message
    match = TEMPLATE.match(message)
    assert match, f"not in the template: {message!r}"
    if where is not None:
        assert match["where"] == where, message


BAD = [
    (m, case, first, second)
    for m in REGISTRY
    if m.kind != PROFILE
    for case, first, second in _bad_inputs(m.kind)
]


@pytest.mark.parametrize(
    ("metric", "case", "first", "second"),
    BAD,
    ids=[f"{m.func.__name__}-{case}" for m, case, _, _ in BAD],
)
def test_bad_arrays_raise_one_line_in_the_template(metric, case, first, second):
    with pytest.raises(InputError) as error:
        metric.func(first, second)
    _expect_template(error, metric.func.__name__)


@pytest.mark.parametrize("func", [mixture.aggregate, mixture.mix_range])
@pytest.mark.parametrize(
    ("a", "n"),
    [
        ([], []),
        ([0.5, np.nan], [1, 1]),
        ([0.5, 1.5], [1, 1]),
        ([0.5, 0.5], [1, np.inf]),
        ([0.5, 0.5], [1, -1]),
        ([0.5, 0.5], [0, 0]),
        ([0.5, 0.5], [1, 1, 1]),
    ],
)
def test_bad_profiles_raise_one_line_in_the_template(func, a, n):
    with pytest.raises(InputError) as error:
        func(a, n)
    # where: none, or the CLI's option name it passes as the parameter's name
    _expect_template(error, None)


# ---------------------------------------------------------------- declared keyword constraints
def _violations(spec) -> list:
    """Values outside every alternative of a declared constraint."""
    alternatives = spec if isinstance(spec, (list, tuple)) else [spec]
    values = ["bogus", [1], None]
    for c in alternatives:
        if isinstance(c, Interval):
            values += [True, "3", math.nan, math.inf]
            for bound, step in ((c.left, -1), (c.right, 1)):
                if bound is not None:
                    values += [bound + step, bound]  # beyond, and the bound itself (maybe open)
        elif isinstance(c, Boolean):
            values += ["no", "False", 0, 1]
        elif isinstance(c, Options):
            values += [c.options[0].upper() + "_"]
    held = [c for c in alternatives if c is not None]
    return [
        v
        for v in values
        if not (v is None and None in alternatives) and not any(c.is_satisfied_by(v) for c in held)
    ]


def _calls():
    """A valid call of every function with declared constraints, keywords open."""
    y, p = data(BINARY_PROB, n=40)
    ys, s = data(BINARY_SCORE, n=40)
    yk, pk = data(MULTI_PROB, n=40)
    _, z = data(MULTI_LOGITS, n=40)
    is_cal = np.arange(40) < 20
    calls = {
        "bin_edges": lambda **kw: cal.bin_edges(p, **kw),
        "bin_index": lambda **kw: cal.bin_index(p, **kw),
        "bootstrap_interval": lambda **kw: cal.bootstrap_interval(
            cal.brier_score, y, p, rng=np.random.default_rng(0), **kw
        ),
        "softmax": lambda **kw: multiclass.softmax(z, **kw),
        "golden_section": lambda **kw: temperature.golden_section(lambda x: x * x, -1.0, 1.0, **kw),
        "fit_temperature": lambda **kw: temperature.fit_temperature(s, ys, **kw),
        "fit_temperature_softmax": lambda **kw: temperature.fit_temperature_softmax(z, yk, **kw),
        "make_calibrator": lambda **kw: calibrators.make_calibrator(**{"method": "platt", **kw}),
        "make_multiclass_calibrator": lambda **kw: calibrators.make_multiclass_calibrator(
            **{"method": "vector", **kw}
        ),
        "calibrate_multiclass": lambda **kw: multiclass_calibration.calibrate_multiclass(
            z, yk, is_cal, **{"method": "temperature", **kw}
        ),
        "MulticlassVectorCalibrator": lambda **kw: calibrators.MulticlassVectorCalibrator(**kw),
        "MulticlassMatrixCalibrator": lambda **kw: calibrators.MulticlassMatrixCalibrator(**kw),
    }
    for m in REGISTRY:
        if m.kind != PROFILE:
            first, second = {
                BINARY_PROB: (y, p),
                BINARY_SCORE: (ys, s),
                MULTI_PROB: (yk, pk),
                MULTI_LOGITS: (yk, z),
            }[m.kind]
            calls[m.func.__name__] = lambda f=m.func, a=first, b=second, **kw: f(a, b, **kw)
    return calls


def declared() -> dict[str, dict]:
    """Every function or calibrator class of nesybench.metrics that declares constraints."""
    found = {}
    for name, func in public_functions().items():
        if getattr(func, "parameter_constraints", None):
            found[name] = func.parameter_constraints
    for name, cls in vars(calibrators).items():
        if inspect.isclass(cls) and not name.startswith("_"):
            constraints = getattr(cls.__init__, "parameter_constraints", None)
            if constraints:
                found[name] = constraints
    return found


def test_every_declared_function_has_a_call_in_the_sweep():
    assert set(declared()) <= set(_calls()), sorted(set(declared()) - set(_calls()))
    assert {"expected_calibration_error", "bin_index", "calibrate_multiclass"} <= set(declared())


SWEEP = [
    (name, param, value)
    for name, constraints in sorted(declared().items())
    for param, spec in constraints.items()
    for value in _violations(spec)
]


@pytest.mark.parametrize(
    ("name", "param", "value"), SWEEP, ids=[f"{n}-{p}-{v!r}" for n, p, v in SWEEP]
)
def test_bad_keyword_values_raise_the_declared_constraint(name, param, value):
    with pytest.raises(InputError) as error:
        _calls()[name](**{param: value})
    _expect_template(error, name)
    assert TEMPLATE.match(str(error.value))["name"] == param


@pytest.mark.parametrize("name", sorted(declared()))
def test_the_default_keywords_satisfy_their_own_constraints(name):
    _calls()[name]()  # a declaration that refuses its own defaults would fail every call


def test_wilson_interval_keeps_its_cross_field_check():
    with pytest.raises(InputError) as error:
        stats_mod.wilson_interval(5, 3)
    _expect_template(error, "wilson_interval")
