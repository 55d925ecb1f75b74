"""The names of the calibration methods: the one definition every module imports.

Light on purpose (no scikit-learn, no numpy), so the CLI parser and the report
can list the methods without loading the calibrators.
"""

from __future__ import annotations

# The calibrators live below the instruments (nesybench.metrics.calibrators), named there.
from ..metrics import METHODS, MULTICLASS_METHODS

__all__ = ["METHODS", "MULTICLASS_METHODS"]
