"""calibration instrument."""
