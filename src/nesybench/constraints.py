"""Declared parameter constraints: a function states each keyword's allowed values once.

``@validate_params({"n_bins": N_BINS, "right_closed": Boolean(), ...})`` checks the named
arguments of every call before the body runs and raises
:class:`~nesybench.errors.InputError` in the one template
``<function>: <name> must be <constraint>, got <value>``, so a slip such as
``bin_index(p, n_bins=0)`` (all zeros) or ``right_closed="no"`` (a true string) stops at
the call instead of yielding a number.  The constraint objects also describe themselves
(``str(Interval(int, 1, 10, closed="both"))`` is ``an integer in [1, 10]``), so a CLI or a
params check can print the same words.

Why not scikit-learn's ``sklearn.utils._param_validation`` (``validate_params``,
``Interval``, ``StrOptions``), the model for this module: it is private API (the leading
underscore; its signatures changed between 1.2 and 1.4 and are not covered by the
deprecation policy), it raises ``InvalidParameterError`` with its own message
(``The 'n_bins' parameter of f must be ... Got 0 instead.``), not this project's class and
template, and ``Interval(Integral, ...)`` accepts ``True`` as 1.  Wrapping it would mean
catching and re-wording its messages, i.e. depending on their text.  What is kept from it:
constraints are declared in a dict beside the signature, checked by one decorator, and a
parameter may list several alternatives (``[None, Interval(...)]``).

Array arguments (``y_true``, ``y_prob``) are not declared here: their checks depend on one
another (equal lengths, class indices below ``K``) and live with the metrics
(:func:`nesybench.metrics.calibration.check_probs`).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import threading
from collections.abc import Callable, Iterable

from .errors import InputError, bad_value

__all__ = ["Boolean", "Constraint", "Interval", "Options", "check", "validate_params"]


class _Depth(threading.local):
    depth = 0  # declared functions on this thread's stack


_calls = _Depth()


def _is_bool(value: object) -> bool:
    # numpy's bool scalar (named bool_ before numpy 2, bool since), without importing numpy
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool")
    )


class Constraint:
    """A set of allowed values that can say whether it holds a value and describe itself."""

    def is_satisfied_by(self, value: object) -> bool:
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


class Interval(Constraint):
    """Numbers of one kind (``int`` or ``float``) between two bounds.

    ``left`` / ``right`` ``None`` mean unbounded; ``closed`` is ``"both"``, ``"left"``,
    ``"right"`` or ``"neither"``.  Booleans are never numbers here, and ``float`` admits
    integers but not NaN or the infinities.

    >>> str(Interval(int, 1, 10_000)), str(Interval(float, 0, None, closed="neither"))
    ('an integer in [1, 10000]', 'a real number > 0')
    >>> Interval(int, 1, 10).is_satisfied_by(True), Interval(float, 0, 1).is_satisfied_by(0.5)
    (False, True)
    """

    CLOSED = ("both", "left", "right", "neither")

    def __init__(self, kind: type, left=None, right=None, *, closed: str = "both"):
        if kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float, got {kind!r}")
        if closed not in self.CLOSED:
            raise TypeError(f"Interval closed must be one of {self.CLOSED}, got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def is_satisfied_by(self, value: object) -> bool:
        if _is_bool(value):
            return False
        wanted = numbers.Integral if self.kind is int else numbers.Real
        if not isinstance(value, wanted):
            return False
        if not isinstance(value, numbers.Integral) and not math.isfinite(value):
            return False  # NaN and the infinities are never a parameter's value
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        noun = "an integer" if self.kind is int else "a real number"
        lo_closed = self.closed in ("both", "left")
        hi_closed = self.closed in ("both", "right")
        if self.left is None and self.right is None:
            return f"{noun} (finite)" if self.kind is float else noun
        if self.right is None:
            return f"{noun} {'>=' if lo_closed else '>'} {self.left}"
        if self.left is None:
            return f"{noun} {'<=' if hi_closed else '<'} {self.right}"
        opening, closing = "[" if lo_closed else "(", "]" if hi_closed else ")"
        return f"{noun} in {opening}{self.left}, {self.right}{closing}"


class Options(Constraint):
    """One of a fixed set of values (strings, as scikit-learn's ``StrOptions``).

    >>> str(Options(("uniform", "quantile")))
    "one of 'uniform', 'quantile'"
    """

    def __init__(self, options: Iterable[str]):
        self.options = tuple(options)

    def is_satisfied_by(self, value: object) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)


class Boolean(Constraint):
    """``True`` or ``False`` (a Python or numpy bool); never a string such as ``"no"`` or 0/1."""

    def is_satisfied_by(self, value: object) -> bool:
        return _is_bool(value)

    def __str__(self) -> str:
        return "True or False"


class _NoneValue(Constraint):
    def is_satisfied_by(self, value: object) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


def _alternatives(spec) -> tuple[Constraint, ...]:
    items = spec if isinstance(spec, (list, tuple)) else [spec]
    out = tuple(_NoneValue() if item is None else item for item in items)
    if not out or not all(isinstance(c, Constraint) for c in out):
        raise TypeError(
            f"a parameter constraint must be a Constraint, None or a list of them, got {spec!r}"
        )
    return out


def _shown(value: object) -> object:
    """numpy scalars as Python ones, so messages say ``0``, not ``np.int64(0)``."""
    return value.item() if type(value).__module__ == "numpy" and hasattr(value, "item") else value


def check(name: str, value: object, spec, *, where: str = ""):
    """``value`` unchanged if it satisfies ``spec`` (a constraint, ``None`` or a list), else raise.

    >>> check("n_bins", 0, Interval(int, 1, 10), where="ece")
    Traceback (most recent call last):
    ...
    nesybench.errors.InputError: ece: n_bins must be an integer in [1, 10], got 0
    """
    alternatives = _alternatives(spec)
    if any(c.is_satisfied_by(value) for c in alternatives):
        return value
    raise bad_value(name, " or ".join(str(c) for c in alternatives), _shown(value), where=where)


def validate_params(constraints: dict[str, object]) -> Callable:
    """Decorator: check the named arguments of every call against their declared constraints.

    Every key must name a parameter of the function (a typo in a declaration fails at import).
    The error names the function (``where``) and the parameter.  Arguments not declared are
    passed through unchecked.  An :class:`~nesybench.errors.InputError` the body raises
    without a ``where`` (an array check shared by many functions) gets the name of the
    outermost declared function on the stack put in front, once, so every message of a
    declared function reads ``<function>: <name> must be <constraint>, got <value>``.
    """

    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(
                f"{func.__qualname__}: constraints for unknown parameters {sorted(unknown)}"
            )
        declared = {name: _alternatives(spec) for name, spec in constraints.items()}
        defaults = {
            name: p.default
            for name, p in signature.parameters.items()
            if name in declared and p.default is not inspect.Parameter.empty
        }

        is_init = func.__name__ == "__init__"

        def where_of(args) -> str:
            # a constructor's errors name the class the user called, not __init__
            return type(args[0]).__name__ if is_init else func.__name__

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, alternatives in declared.items():
                value = bound.arguments.get(name, defaults.get(name))
                if not any(c.is_satisfied_by(value) for c in alternatives):
                    error = bad_value(
                        name,
                        " or ".join(str(c) for c in alternatives),
                        _shown(value),
                        where=where_of(args),
                    )
                    error.where = where_of(args)
                    raise error
            _calls.depth += 1
            try:
                return func(*args, **kwargs)
            except InputError as error:
                # An array check in the body (y_prob outside [0, 1], ...) does not know which
                # function it serves: the outermost declared function, the one the caller
                # called, names itself (maximum_calibration_error, not the reliability_table
                # it computes through).
                if _calls.depth == 1 and getattr(error, "where", None) is None and error.args:
                    error.where = where_of(args)
                    error.args = (f"{error.where}: {error.args[0]}", *error.args[1:])
                raise
            finally:
                _calls.depth -= 1

        wrapper.parameter_constraints = dict(constraints)  # read by the metrics registry tests
        return wrapper

    return decorate
