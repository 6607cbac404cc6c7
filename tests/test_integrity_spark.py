"""The integrity tables (`pair_signals`, `deal_strength`) from `paiju ingest --engine spark` are the
local ingest's, row for row (issue 18). Marked `spark` like tests/test_spark.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.feather as feather
import pytest

from engine.sim.simulate import World, simulate_lines
from engine.sim.spark import java_available
from ingest.integrity_tables import table_paths
from ingest.pipeline import ingest

pytestmark = [
    pytest.mark.spark,
    pytest.mark.xdist_group("spark"),
    pytest.mark.skipif(not java_available(), reason="no Java runtime: Spark cannot start"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from engine.sim.spark import get_session

    s = get_session("local[2]", app="paiju-tests-integrity")
    yield s
    s.stop()


def test_integrity_tables_local_equal_spark(tmp_path: Path, spark: Any) -> None:
    from ingest.spark import SparkReplayer

    logs = []
    for game, n in (("zhajinhua", 150), ("ddz", 90)):
        log = tmp_path / f"{game}.jsonl"
        w = World(pool=10, colluders=(("p01", "p02"),), rig=("p03", 0.5))
        log.write_text("".join(simulate_lines(game, None, n, 4, world=w)), encoding="utf-8")
        logs.append(str(log))
    local, dist = tmp_path / "local", tmp_path / "spark"
    ingest(logs[:1], local, workers=0)
    ingest(logs[1:], local, workers=0)
    replayer = SparkReplayer(spark, bucket_events=400)
    ingest(logs[:1], dist, workers=0, replayer=replayer)
    ingest(logs[1:], dist, workers=0, replayer=replayer)
    a, b = table_paths(local), table_paths(dist)
    assert a is not None and b is not None and set(a) == set(b) == {"pair_signals", "deal_strength"}
    for name in a:
        ta, tb = feather.read_table(a[name]), feather.read_table(b[name])
        assert ta.schema == tb.schema and ta.num_rows > 0, name
        assert ta.equals(tb), name
    assert feather.read_table(a["deal_strength"]).num_rows == 150 * 5 + 90 * 3
