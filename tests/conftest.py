"""Shared pytest set-up."""

from hypothesis import settings

# Property tests explore with a fixed seed so that a run is reproducible (and CI
# is not flaky); `HYPOTHESIS_PROFILE=explore pytest` searches with fresh randomness.
settings.register_profile("default", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "default"))
