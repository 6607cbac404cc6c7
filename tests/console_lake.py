"""The dashboard test lake (tests/dashboard_lake.py) plus the three dispute samples of tests/data/disputes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import dashboard_lake

DISPUTES = Path(__file__).resolve().parent / "data" / "disputes"


def build(root: Path) -> dict[str, Any]:
    from ingest.pipeline import ingest

    info = dashboard_lake.build(root)
    ingest(sorted(str(p) for p in DISPUTES.glob("*.jsonl")), info["lake"], workers=0)
    return info
