"""The dealer of a room's later matches, checked over the lake (PDK-R2/R16, ZJH-R2, SC-R23, HZ-R15,
AS-R17): the rule engine/rooms.py states, applied to every room the lake's `matches` table names.

`room_findings(lake)` reads the matches that carry a `room` (DuckDB over the published Parquet files,
filters passed as parameters), replays each from its stored `events` lines, orders each room's
matches by `match_started.ts`, then `round`, then match id, and returns the findings of
`engine.rooms.check_room` (match id, seq 0, `bad_deal`, rule id, message).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.replay import Entry
from engine.rooms import Finding, RoomMatch, check_room, room_match
from events.errors import ContractError
from ingest.parse import stored_event
from ingest.store import read_manifest, view_sql

_ROOM_MATCHES = """
SELECT match_id, game, room, started_ts, "round" FROM matches
WHERE room IS NOT NULL AND (CAST(? AS VARCHAR) IS NULL OR game = ?) AND (CAST(? AS VARCHAR) IS NULL OR room = ?)
"""
_ROOM_EVENTS = """
SELECT e.match_id, e.seq, e.line FROM events e
JOIN (SELECT match_id FROM matches
      WHERE room IS NOT NULL AND (CAST(? AS VARCHAR) IS NULL OR game = ?) AND (CAST(? AS VARCHAR) IS NULL OR room = ?)) m
USING (match_id)
ORDER BY e.match_id, e.seq
"""


def _entry(line: str) -> Entry:
    try:
        return stored_event(line)
    except ContractError as err:
        return err
    except Exception as e:  # a stored line is valid JSON; anything else is reported by the replay
        return ContractError("bad_json", f"unreadable stored line: {type(e).__name__}: {e}")


def room_findings(lake: str | Path, *, game: str | None = None, room: str | None = None) -> list[Finding]:
    """Every finding over the lake's rooms (optionally one game, one room), in room then match order."""
    import duckdb

    root = Path(lake).resolve()
    manifest = read_manifest(root)
    con = duckdb.connect(":memory:")
    try:
        for t in ("matches", "events"):
            con.execute(f"CREATE VIEW {t} AS {view_sql(root, manifest, t)}")
        params = [game, game, room, room]
        rows = con.execute(_ROOM_MATCHES, params).fetchall()
        lines: dict[str, list[str]] = defaultdict(list)
        for mid, _seq, line in con.execute(_ROOM_EVENTS, params).fetchall():
            lines[mid].append(line)
    finally:
        con.close()
    order: dict[tuple[str, str], list[tuple[Any, ...]]] = defaultdict(list)
    for mid, g, rm, ts, rnd in rows:
        order[(g, rm)].append((ts is None, ts or "", rnd or 1, mid))
    out: list[Finding] = []
    for key in sorted(order):
        summaries: list[RoomMatch] = []
        for *_, mid in sorted(order[key]):
            rm = room_match([_entry(x) for x in lines.get(mid, [])])
            if rm is not None:
                summaries.append(rm)
        out.extend(check_room(summaries))
    return out
