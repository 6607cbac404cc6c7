"""`paiju rebuild` and `paiju verify` on a lake the Spark engine built (issue 21 §2): verify
replays locally and finds the Spark lake whole, and rebuild (the local path, from raw/ alone)
gives the rows the Spark ingests published, and those of the same ingests run locally."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.sim.spark import java_available
from ingest.pipeline import ingest
from ingest.rebuild import rebuild
from ingest.spark import SparkReplayer
from ingest.verify import verify
from tests.ingest_data import golden_files
from tests.test_lake_faults import rows
from tests.test_spark import NO_JAVA, _logs

pytestmark = [
    pytest.mark.spark,
    pytest.mark.xdist_group("spark"),
    pytest.mark.skipif(not java_available(), reason=NO_JAVA),
    pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from engine.sim.spark import get_session

    s = get_session("local[2]", app="paiju-tests-lake")
    yield s
    s.stop()


def test_a_spark_lake_verifies_whole_and_rebuilds_to_the_same_rows(tmp_path: Path, spark: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PAIJU_LAKE_GRACE", "0")
    first, second = _logs(tmp_path)
    dist, local = tmp_path / "spark", tmp_path / "local"
    replayer = SparkReplayer(spark, bucket_events=300)
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
