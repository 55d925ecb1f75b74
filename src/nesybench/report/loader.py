"""Read an instrument's pipeline artifacts for its report section, through its registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..artifacts import Registry
from ..artifacts import registry as lookup
from ..io import parquet_metadata, read_json, read_parquet


class ReportLoader:
    """Loads one instrument's declared artifacts: ``loader.table("score", "panel")``."""

    def __init__(self, root: Path, registry: Registry | str, params: dict):
        self.root = Path(root)
        self.registry = registry if isinstance(registry, Registry) else lookup(registry)
        self.instrument = self.registry.instrument
        self.params = params  # this instrument's params section

    def path(self, stage: str, name: str, ext: str = "parquet", **wildcards: Any) -> Path:
        return self.root / self.registry.path(stage, name, ext=ext, **wildcards)

    def table(self, stage: str, name: str, **wildcards: Any) -> pd.DataFrame:
        return read_parquet(self.path(stage, name, **wildcards))

    def metadata(self, stage: str, name: str, **wildcards: Any) -> dict[str, str]:
        return parquet_metadata(self.path(stage, name, **wildcards))

    def metrics(self, stage: str, step: str | None = None, **wildcards: Any) -> dict:
        """A job's metrics as written, keys with the stage prefix (``score.panel.acc_c``)."""
        path = self.root / self.registry.metrics_path(stage, step, **wildcards)
        return {k: v for k, v in read_json(path).items() if not k.startswith("_provenance.")}

    def exists(self, stage: str, name: str, ext: str = "parquet", **wildcards: Any) -> bool:
        return self.path(stage, name, ext, **wildcards).exists()
