"""Metrics shared by every instrument: one ECE, one Wilson interval.

Import-light on purpose (no numpy): ``MAX_BINS`` lets command-line parsers bound
``--bins`` and :func:`plain` formats numbers in error messages, without loading the
metric modules.
"""

from __future__ import annotations

import numbers

MAX_BINS = 10_000  # more bins than this is a typo, not a binning (and would cost memory)

# The calibrators of :mod:`nesybench.metrics.calibrators`, by method name, in the order
# every table lists them (every instrument calibrating a head names them from here):
# of one score per row (``<Method>Calibrator``) and of a K-way row of logits
# (``Multiclass<Method>Calibrator``).
METHODS = ("temperature", "platt", "isotonic")
MULTICLASS_METHODS = ("temperature", "vector", "matrix", "isotonic")


def plain(value: object) -> str:
    """A number as a person writes it, for messages: ``1.1``, ``2``, never ``np.float64(1.1)``.

    >>> import numpy as np
    >>> plain(np.float64(1.1)), plain(np.int64(3)), plain(2.0), plain(float("inf"))
    ('1.1', '3', '2', 'inf')
    """
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    return repr(value)
