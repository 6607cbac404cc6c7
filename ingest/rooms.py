"""The dealer of a room's later matches, checked over the lake (PDK-R2/R16, ZJH-R2, SC-R23, HZ-R15,
AS-R17): the rule engine/rooms.py states, applied to the rooms the lake's `matches` table names, and
published as the `room_findings` table (ingest/schema.py).

A room is a (game, `room`) pair; its matches are ordered by `engine.rooms.order_key` (from the
`matches` columns `started_ts`, `round`, `match_id`). Only a consecutive pair (previous, current) can
give a finding, and it is the current match's. So an ingest that touched the matches T rechecks, in
the rooms T belongs to, only the matches of T and the match after each one (its previous match may
have changed: a round that arrived late sits between two stored ones), replaying just those and
the match before each (`room_check`); every other row of `room_findings` stays as it was, and is
what a check of the whole lake (`touched=None`: `paiju rebuild`, `paiju verify`) gives too.

Which previous match names nobody follows the `matches` table: only a `finished` match names the
next dealer (a match an ingest charged a refused line to is `invalid` there, and names nobody).
Filters are passed as parameters or as registered Arrow tables, never as SQL text.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pyarrow as pa

from engine.replay import Entry
from engine.rooms import Finding, RoomMatch, check_room, order_key, room_match
from events.errors import ContractError
from ingest.parse import stored_event
from ingest.schema import schemas
from ingest.store import read_manifest, view_sql

TABLE = "room_findings"


def _entry(line: str) -> Entry:
    try:
        return stored_event(line)
    except ContractError as err:
        return err
    except Exception as e:  # a stored line is valid JSON; anything else is reported by the replay
        return ContractError("bad_json", f"unreadable stored line: {type(e).__name__}: {e}")


BATCH_MATCHES = 500
"""Matches per replay job of the room check."""


def summaries_job(batch: list[tuple[str, list[str]]]) -> list[tuple[str, RoomMatch | None]]:
    """Replay a batch of matches (their stored lines) for the room check (a pool job)."""
    return [(mid, room_match([_entry(x) for x in lines])) for mid, lines in batch]


def _batches(cur: Any, size: int = BATCH_MATCHES) -> Iterator[list[tuple[str, list[str]]]]:
    """Whole matches of a `match_id, line` result ordered by match, `size` matches at a time."""
    batch: list[tuple[str, list[str]]] = []
    while rows := cur.fetchmany(10_000):
        for mid, line in rows:
            if batch and batch[-1][0] == mid:
                batch[-1][1].append(line)
                continue
            if len(batch) >= size:
                yield batch
                batch = []
            batch.append((mid, [line]))
    if batch:
        yield batch


def _summarise(batches: Iterator[list[tuple[str, list[str]]]], pool: Executor) -> Iterator[tuple[str, RoomMatch | None]]:
    """`summaries_job` of each batch on the pool, a bounded number in flight, results in order."""
    pending: deque[Future[list[tuple[str, RoomMatch | None]]]] = deque()
    limit = 2 * max(1, getattr(pool, "_max_workers", 1)) + 2
    for b in batches:
        pending.append(pool.submit(summaries_job, b))
        while len(pending) > limit:
            yield from pending.popleft().result()
    while pending:
        yield from pending.popleft().result()


@dataclass
class RoomCheck:
    """What `room_check` found: the findings of the rechecked matches, and which matches those are
    (their old `room_findings` rows are replaced), and how many matches were replayed."""

    findings: list[Finding]
    rechecked: list[str]
    replayed: int


def _ids(con: Any, name: str, ids: list[str]) -> None:
    con.register(name, pa.table({"match_id": pa.array(ids, pa.string())}))


def room_check(con: Any, matches: str, events: str, touched: str | None = None, *, game: str | None = None,
               room: str | None = None, pool: Executor | None = None) -> RoomCheck:  # fmt: skip
    """Check the rooms of `matches` (a SELECT with the `matches` columns) from `events` (a SELECT
    with `match_id, seq, line`): every room (`touched` None) or only what the matches `touched`
    (a SELECT of `match_id`) change; optionally one game or one room (parameters). The replays
    run on `pool` (the ingest's workers) in batches read one after another (bounded memory)."""
    where = "room IS NOT NULL AND (CAST(? AS VARCHAR) IS NULL OR game = ?) AND (CAST(? AS VARCHAR) IS NULL OR room = ?)"
    params: list[Any] = [game, game, room, room]
    if touched is not None:
        where += f" AND (game, room) IN (SELECT game, room FROM ({matches}) WHERE match_id IN ({touched}))"
    rows = con.execute(f"SELECT match_id, game, room, started_ts, \"round\", status FROM ({matches}) WHERE {where}",
                       params).fetchall()  # fmt: skip
    hit: set[str] = set()
    if touched is not None and rows:
        _ids(con, "_room_candidates", [r[0] for r in rows])
        hit = {r[0] for r in con.execute(f"SELECT match_id FROM _room_candidates WHERE match_id IN ({touched})").fetchall()}
    rooms: dict[tuple[str, str], list[tuple[Any, ...]]] = defaultdict(list)
    finished: dict[str, bool] = {}
    for mid, g, rm, ts, rnd, status in rows:
        rooms[(g, rm)].append((*order_key(ts, rnd, mid), mid))
        finished[mid] = status == "finished"
    pairs: list[tuple[str, str]] = []
    rechecked: list[str] = []
    for key in sorted(rooms):
        order = [r[-1] for r in sorted(rooms[key])]
        if touched is None:
            rechecked += order
            pairs += pairwise(order)
            continue
        for i, mid in enumerate(order):
            if mid in hit or (i and order[i - 1] in hit):
                rechecked.append(mid)
                if i:
                    pairs.append((order[i - 1], mid))
    need = sorted({m for p in pairs for m in p})
    summaries: dict[str, RoomMatch] = {}
    if need:
        _ids(con, "_room_need", need)
        cur = con.execute(
            f"SELECT e.match_id, e.line FROM ({events}) e SEMI JOIN _room_need n ON e.match_id = n.match_id"
            " ORDER BY e.match_id, e.seq"
        )  # fmt: skip
        if pool is None:
            from ingest.pipeline import _Inline

            pool = _Inline()
        for mid, s in _summarise(_batches(cur), pool):
            if s is not None:
                summaries[mid] = s if finished[mid] else replace(s, next_dealer=None, next_first=False)
    findings = [f for a, b in pairs if a in summaries and b in summaries for f in check_room([summaries[a], summaries[b]])]
    return RoomCheck(findings, rechecked, len(need))


def findings_table(findings: list[Finding]) -> pa.Table:
    """The `room_findings` rows of the findings (by match id, then rule)."""
    fs = sorted(findings, key=lambda f: (f.match_id, f.rule))
    games = [f.game for f in fs]
    cols = {"match_id": [f.match_id for f in fs], "seq": [f.seq for f in fs], "code": [f.code for f in fs],
            "rule": [f.rule for f in fs], "message": [f.message for f in fs], "game": games,
            "room": [f.room for f in fs], "previous": [f.previous for f in fs]}  # fmt: skip
    return pa.table(cols, schema=schemas()[TABLE])


def room_findings(lake: str | Path, *, game: str | None = None, room: str | None = None) -> list[Finding]:
    """Every finding over the published lake's rooms (optionally one game, one room), checked now
    from its `matches` and `events` (what the `room_findings` table must hold), rooms by (game,
    room), each in its order."""
    import duckdb

    root = Path(lake).resolve()
    manifest = read_manifest(root)
    con = duckdb.connect(":memory:")
    try:
        for t in ("matches", "events"):
            con.execute(f"CREATE VIEW {t} AS {view_sql(root, manifest, t)}")
        found = room_check(con, "SELECT * FROM matches", "SELECT match_id, seq, line FROM events", game=game, room=room)
    finally:
        con.close()
    return found.findings
