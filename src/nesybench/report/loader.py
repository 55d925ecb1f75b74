"""Read pipeline artifacts for the report stage."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..io import parquet_metadata, read_json, read_parquet


class ReportLoader:
    """Loads one instrument's artifacts: ``loader.table("score", "panel")``."""

    def __init__(self, root: Path, instrument: str, params: dict):
        self.root = Path(root)
        self.instrument = instrument
        self.params = params  # this instrument's params section

    def path(self, stage: str, name: str, ext: str = "parquet") -> Path:
        return self.root / "data" / stage / self.instrument / f"{name}.{ext}"

    def table(self, stage: str, name: str) -> pd.DataFrame:
        return read_parquet(self.path(stage, name))

    def metadata(self, stage: str, name: str) -> dict[str, str]:
        return parquet_metadata(self.path(stage, name))

    def metrics(self, stage: str, name: str = "metrics") -> dict:
        return read_json(self.path(stage, name, "json"))

    def exists(self, stage: str, name: str, ext: str = "parquet") -> bool:
        return self.path(stage, name, ext).exists()
