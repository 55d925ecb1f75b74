"""shortcuts instrument."""
