"""`paiju rebuild` and `paiju verify` on a lake the Spark engine built (issue 21 §2): verify
replays locally and finds the Spark lake whole, and rebuild (the local path, from raw/ alone)
gives the rows the Spark ingests published, and those of the same ingests run locally."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ingest.pipeline import ingest
from ingest.rebuild import rebuild
from ingest.spark import SparkReplayer
from ingest.verify import verify
from tests.test_lake_faults import rows
from tests.test_spark import _logs, pytestmark, spark  # noqa: F401 - the module's marks and its Spark session fixture


def test_a_spark_lake_verifies_whole_and_rebuilds_to_the_same_rows(tmp_path: Path, request: pytest.FixtureRequest,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PAIJU_LAKE_GRACE", "0")
    session: Any = request.getfixturevalue("spark")
    first, second = _logs(tmp_path)
    dist, local = tmp_path / "spark", tmp_path / "local"
    replayer = SparkReplayer(session, bucket_events=300)
    for batch in (first, second):
        ingest(batch, dist, workers=0, replayer=replayer)
        ingest(batch, local, workers=0)
    r = verify(dist)
    assert r.whole, [f.line() for f in r.findings]
    published = rows(dist)
    assert published == rows(local)
    rebuild(dist, workers=0)
    assert rows(dist) == published
    assert verify(dist).whole
