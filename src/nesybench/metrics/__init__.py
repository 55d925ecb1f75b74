"""Metrics shared by every instrument: one ECE, one Wilson interval."""
