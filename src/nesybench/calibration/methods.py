"""The names of the calibration methods: the one definition every module imports.

Light on purpose (no scikit-learn, no numpy), so the CLI parser and the report
can list the methods without loading the calibrators.
"""

from __future__ import annotations

from ..metrics import MULTICLASS_METHODS  # the K-way calibrators live below the instruments

# Binary calibrators of one score per row, in the order every table lists them.
METHODS = ("temperature", "platt", "isotonic")

__all__ = ["METHODS", "MULTICLASS_METHODS"]
