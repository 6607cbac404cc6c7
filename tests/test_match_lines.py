"""`analytics.queries.match_lines` reads a match's partitions only, and still returns every stored
line of it: compared with a scan of every event segment of the lake, written here with DuckDB over
the manifest's files (not with the code under test), for matches with and without a start time,
and for events that arrived before their `match_started` (stored under game=unknown/date=none).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from analytics.queries import match_events, match_lines
from engine.sim.simulate import simulate_match
from events.codec import event_to_json
from ingest.pipeline import ingest
from ingest.store import read_manifest


def _every_segment(lake: Path, match_id: str) -> list[str]:
    files = [str(lake / f) for f in read_manifest(lake).tables["events"]]
    con = duckdb.connect()
    rows = con.execute("SELECT line FROM read_parquet(?, hive_partitioning = true) WHERE match_id = ? "
                       "ORDER BY seq, file_sha, file_line", [files, match_id]).fetchall()  # fmt: skip
    return [r[0] for r in rows]


def _lines(game: str, i: int, match_id: str, *, ts: bool = True) -> list[str]:
    out = []
    for e in simulate_match(game, {}, 5, i):
        d = json.loads(event_to_json(e))
        d["match_id"] = match_id
        d.pop("hash", None)
        if not ts:
            d.pop("ts", None)
        out.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")))
    return out


@pytest.fixture()
def lake(tmp_path: Path) -> Path:
    dated, undated, late = _lines("ddz", 1, "m-dated"), _lines("ddz", 2, "m-undated", ts=False), _lines("paodekuai", 3, "m-late")
    (tmp_path / "a.jsonl").write_text("\n".join(dated + undated + late[1:]) + "\n", encoding="utf-8")
    ingest([str(tmp_path / "a.jsonl")], tmp_path / "lake", workers=0)
    return tmp_path / "lake"


def test_every_stored_line_of_each_match(lake: Path, tmp_path: Path) -> None:
    parts = {Path(f).parts[1] for f in read_manifest(lake).tables["events"]}
    assert "game=unknown" in parts  # m-late's events wait for their match_started
    for mid in ("m-dated", "m-undated", "m-late"):
        want = _every_segment(lake, mid)
        assert want and match_lines(lake, mid) == want, mid
    # the match_started arrives: the waiting events move to the match's partition
    late = _lines("paodekuai", 3, "m-late")
    (tmp_path / "b.jsonl").write_text(late[0] + "\n", encoding="utf-8")
    ingest([str(tmp_path / "b.jsonl")], lake, workers=0)
    want = _every_segment(lake, "m-late")
    assert len(want) == len(late) and match_lines(lake, "m-late") == want
    assert [e.seq for e in match_events(lake, "m-late")] == list(range(len(late)))


def test_an_unknown_match_has_no_lines(lake: Path) -> None:
    assert match_lines(lake, "no-such-match") == []
