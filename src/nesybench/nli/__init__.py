"""nli instrument."""
