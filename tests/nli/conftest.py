"""Shared fixtures of the nli tests: the real PrOntoQA dev file (skipped without ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
PRONTOQA_DEV = SHARED / "external" / "prontoqa-dev.json"


@pytest.fixture(scope="session")
def prontoqa_dev() -> list[dict]:
    if not PRONTOQA_DEV.exists():
        pytest.skip("../shared/external/prontoqa-dev.json not present")
    return json.loads(PRONTOQA_DEV.read_text(encoding="utf-8"))
