"""Temperature scaling fitted by a deterministic golden-section search.

This module holds THE golden-section search of nesybench (:func:`golden_section`)
and the two temperature fits built on it: binary (``p = sigmoid(s / tau)``)
and multi-class (``softmax(z / tau)``), both minimising the mean negative
log-likelihood on held-out data.

Why golden-section search is valid here: write ``beta = 1 / tau``.  The binary
per-example loss ``softplus(-y± s beta)`` is a convex function (softplus)
of a linear function of ``beta``, hence convex in ``beta``; the multi-class
loss ``logsumexp(beta z) - beta z_y`` is convex in ``beta`` for the same reason
(log-sum-exp is convex).  A mean of convex functions is convex, and a convex
function of one variable is unimodal (non-increasing, then non-decreasing).
``tau -> 1/tau`` is strictly monotone on ``tau > 0``, and a monotone change
of variable preserves unimodality, so NLL(tau) is unimodal on any bracket
``[lo, hi]`` with ``lo > 0``: discarding the end beyond the worse interior
probe never discards the minimiser.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..constraints import Interval, validate_params
from ..errors import InputError
from .calibration import check_scores, nll_from_scores
from .multiclass import check_logits, nll_from_logits

INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0  # 0.618...: each iteration keeps this share of the bracket
DEFAULT_TOL = 1e-8


@dataclass
class GoldenResult:
    """Outcome of :func:`golden_section`.

    ``x`` is the best probe evaluated (lowest ``f``; earliest on ties), ``fx``
    its value, ``iterations`` the number of bracket reductions, ``width`` the
    final bracket width, ``trace`` one row every ``trace_every`` iterations
    (and the last): ``{"iteration", "lo", "hi", "width", "best_x", "best_f"}``.
    """

    x: float
    fx: float
    iterations: int
    width: float
    converged: bool
    trace: list[dict] = field(default_factory=list)


# The search's own knobs, declared once (``lo < hi`` relates two values and is checked in
# :func:`golden_section`).
SEARCH = {
    "tol": Interval(float, 0, None, closed="neither"),
    "max_iter": Interval(int, 1, None),
    "trace_every": Interval(int, 0, None),  # 0: no trace
}
# A temperature bracket must hold tau = 1, else "fitted NLL <= NLL at 1" could fail by
# construction.
BRACKET = {
    "lo": Interval(float, 0, 1, closed="neither"),
    "hi": Interval(float, 1, None, closed="neither"),
}


@validate_params(SEARCH)
def golden_section(
    f: Callable[[float], float],
    lo: float,
    hi: float,
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = 200,
    trace_every: int = 10,
) -> GoldenResult:
    """Minimise a unimodal ``f`` on ``[lo, hi]`` by golden-section search.

    Two interior probes sit at ``hi - phi (hi - lo)`` and ``lo + phi (hi - lo)``
    with ``phi = (sqrt 5 - 1) / 2``; the end beyond the worse probe is dropped
    (on a tie the upper end), and the surviving probe is reused, so each
    iteration costs one evaluation and multiplies the width by ``phi``:
    after ``k`` iterations the width is ``(hi - lo) phi^k``.  Stops when the
    width is ``<= tol`` or after ``max_iter`` iterations.  Deterministic: a
    fixed sequence of pure-function probes.

    >>> r = golden_section(lambda x: (x - 2.0) ** 2, 0.0, 5.0, tol=1e-10)
    >>> round(r.x, 6), r.converged
    (2.0, True)
    """
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"lo and hi must be finite with lo < hi, got lo={lo}, hi={hi}")
    a, b = float(lo), float(hi)
    c, d = b - INV_PHI * (b - a), a + INV_PHI * (b - a)
    fc, fd = float(f(c)), float(f(d))
    best_x, best_f = (c, fc) if fc <= fd else (d, fd)
    trace: list[dict] = []
    iteration = 0
    while (b - a) > tol and iteration < max_iter:
        iteration += 1
        if fc < fd:  # minimiser cannot lie in (d, b]
            b, d, fd = d, c, fc
            c = b - INV_PHI * (b - a)
            fc = float(f(c))
            new_x, new_f = c, fc
        else:  # minimiser cannot lie in [a, c)
            a, c, fc = c, d, fd
            d = a + INV_PHI * (b - a)
            fd = float(f(d))
            new_x, new_f = d, fd
        if new_f < best_f:
            best_x, best_f = new_x, new_f
        if trace_every and (iteration % trace_every == 0):
            trace.append(
                {
                    "iteration": iteration,
                    "lo": a,
                    "hi": b,
                    "width": b - a,
                    "best_x": best_x,
                    "best_f": best_f,
                }
            )
    if not trace or trace[-1]["iteration"] != iteration:
        trace.append(
            {
                "iteration": iteration,
                "lo": a,
                "hi": b,
                "width": b - a,
                "best_x": best_x,
                "best_f": best_f,
            }
        )
    return GoldenResult(
        x=best_x,
        fx=best_f,
        iterations=iteration,
        width=b - a,
        converged=(b - a) <= tol,
        trace=trace,
    )


@dataclass
class TemperatureFit:
    """A fitted temperature: ``tau``, the NLL there and at ``tau = 1``, and the search trace."""

    tau: float
    nll: float
    nll_at_1: float
    trace: list[dict]
    lo: float = 0.05
    hi: float = 20.0
    iterations: int = 0
    nll_at_lo: float = math.inf
    nll_at_hi: float = math.inf

    @property
    def at_bracket_edge(self) -> bool:
        """True when the optimum may lie outside ``[lo, hi]``: tau sits at an edge, or the NLL
        at an edge is no worse than at tau (a loss flat up to the edge, e.g. one that has
        rounded to 0 on well-separated scores, stops the search short of the edge)."""
        near = min(self.tau - self.lo, self.hi - self.tau) <= 10 * max(
            self.trace[-1]["width"], 1e-12
        )
        return near or min(self.nll_at_lo, self.nll_at_hi) <= self.nll

    @property
    def direction(self) -> str:
        """``overconfident`` (tau > 1: soften), ``underconfident`` (tau < 1: sharpen), or
        ``calibrated``."""
        return (
            "overconfident"
            if self.tau > 1
            else ("underconfident" if self.tau < 1 else "calibrated")
        )


def _fit(nll: Callable[[float], float], *, lo, hi, tol, max_iter, trace_every) -> TemperatureFit:
    result = golden_section(nll, lo, hi, tol=tol, max_iter=max_iter, trace_every=trace_every)
    nll_1 = float(nll(1.0))
    tau, best = result.x, result.fx
    # The search returns a probe, never tau = 1 itself: keep the better of the two so the
    # fitted NLL can never exceed NLL(1) because of the stopping tolerance.
    if nll_1 < best:
        tau, best = 1.0, nll_1
    return TemperatureFit(
        tau=float(tau),
        nll=float(best),
        nll_at_1=nll_1,
        trace=result.trace,
        lo=lo,
        hi=hi,
        iterations=result.iterations,
        nll_at_lo=float(nll(lo)),
        nll_at_hi=float(nll(hi)),
    )


@validate_params({**BRACKET, **SEARCH})
def fit_temperature(
    scores,
    labels,
    *,
    lo: float = 0.05,
    hi: float = 20.0,
    tol: float = DEFAULT_TOL,
    max_iter: int = 200,
    trace_every: int = 10,
) -> TemperatureFit:
    """Fit ``tau`` in ``p = sigmoid(s / tau)`` by minimising the mean NLL of 0/1 ``labels``.

    Notes
    -----
    ``NLL(tau) = (1/n) sum_i softplus(-y±_i s_i / tau)`` with ``y± = 2y - 1``
    (see :func:`nesybench.metrics.calibration.nll_from_scores`), minimised by
    :func:`golden_section` over ``[lo, hi]`` (valid: see the module docstring).
    """
    y, s = check_scores(labels, scores)
    return _fit(
        lambda t: nll_from_scores(y, s, temperature=t),
        lo=lo,
        hi=hi,
        tol=tol,
        max_iter=max_iter,
        trace_every=trace_every,
    )


@validate_params({**BRACKET, **SEARCH})
def fit_temperature_softmax(
    logits,
    labels,
    *,
    lo: float = 0.05,
    hi: float = 20.0,
    tol: float = DEFAULT_TOL,
    max_iter: int = 200,
    trace_every: int = 10,
) -> TemperatureFit:
    """Fit ``tau`` in ``softmax(z / tau)`` for a multi-class head by minimising the mean NLL.

    ``logits`` has shape (n, K); ``labels`` holds class indices in ``0..K-1``.

    Notes
    -----
    ``NLL(tau) = (1/n) sum_i [logsumexp_k(z_ik / tau) - z_{i y_i} / tau]``
    (:func:`nesybench.metrics.multiclass.nll_from_logits`); convex in ``1/tau``, so
    :func:`golden_section` applies (module docstring).
    """
    y, z = check_logits(labels, logits, name="labels")
    return _fit(
        lambda t: nll_from_logits(y, z, temperature=t),
        lo=lo,
        hi=hi,
        tol=tol,
        max_iter=max_iter,
        trace_every=trace_every,
    )
