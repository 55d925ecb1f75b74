"""Metrics shared by every instrument: one ECE, one Wilson interval.

``MAX_BINS`` lives here, import-light, so command-line parsers can bound ``--bins``
without loading the metric modules.
"""

MAX_BINS = 10_000  # more bins than this is a typo, not a binning (and would cost memory)
