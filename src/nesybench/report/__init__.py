"""Report stage: one HTML + Markdown report from every landed instrument."""
