"""Names say what things are, not when they were written: no issue numbers in code or docs."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATTERN = re.compile(r"\(issue \d+\)|\bissue \d+\b", re.IGNORECASE)


def test_no_issue_numbers_in_tracked_sources_and_docs():
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.smk", "*.yaml", "*.rst", "Snakefile", "Makefile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    hits = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file():
            continue
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        ):
            if PATTERN.search(line):
                hits.append(f"{rel}:{number}: {line.strip()[:80]}")
    assert not hits, "issue numbers in code or docs:\n" + "\n".join(hits[:20])
