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


def test_a_refused_line_charged_to_its_match_gives_the_same_rows_on_spark(tmp_path: Path, request: pytest.FixtureRequest,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Issue 17: an unreadable line that names its match and a seq no event holds is that match's
    error in the Spark lake as in the local one; verify finds it whole, rebuild gives the same rows."""
    from tests.test_one_decision import _unreadable

    monkeypatch.setenv("PAIJU_LAKE_GRACE", "0")
    session: Any = request.getfixturevalue("spark")
    deliveries: list[list[str]] = [[], []]
    for i, name in enumerate(sorted(_unreadable())):  # each case a match of its own
        files = _unreadable(100 + i)[name][0]
        for k, lines in enumerate(files):
            deliveries[k].extend(lines)
    paths = []
    for k, lines in enumerate(deliveries):
        p = tmp_path / f"{k}.jsonl"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(p))
    dist, local = tmp_path / "spark", tmp_path / "local"
    replayer = SparkReplayer(session, bucket_events=3)
    for p in paths:
        ingest([p], dist, workers=0, replayer=replayer)
        ingest([p], local, workers=0)
    published = rows(dist)
    assert published == rows(local)
    assert any('"bad_json"' in r for row in published["matches"] for r in row)
    assert verify(dist).whole
    rebuild(dist, workers=0)
    assert rows(dist) == published
