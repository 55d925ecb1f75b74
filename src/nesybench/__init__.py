"""nesybench: measurement instruments for neuro-symbolic reasoning.

Four instruments (shortcuts, calibration, nli, axes) run through one pipeline
``generate -> count -> train -> score -> calibrate -> report``.
"""

__version__ = "0.1.0"

INSTRUMENTS = ("shortcuts", "calibration", "nli", "axes")
STAGES = ("generate", "count", "train", "score", "calibrate", "report")
