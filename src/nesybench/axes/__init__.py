"""axes instrument."""
