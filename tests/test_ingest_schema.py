"""Column tests on every lake table, like dbt schema tests: types, unique keys, not null,
accepted values, relationships — and the settlement invariants the tables must keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from analytics.lake import open_lake
from events.errors import ERROR_CODES
from events.models import EVENT_TYPES
from events.notation import GAME_IDS
from ingest.parse import UNKNOWN_GAME
from ingest.pipeline import ingest
from ingest.schema import KEYS, ROLES, STATUSES, TABLES, schemas
from ingest.store import _duck_type
from ingest.tables import ENGINE_ERROR
from tests.ingest_data import golden_files, golden_matches, loadable_games, many_matches, write_log

pytestmark = pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet")

NOT_NULL: dict[str, tuple[str, ...]] = {
    "events": ("match_id", "seq", "type", "canon", "line", "file_sha", "file_line", "game", "date"),
    "matches": ("match_id", "status", "events", "winners", "n_winners", "is_draw"),
    "seats": ("match_id", "seat", "player", "role", "is_dealer", "status"),
    "items": ("match_id", "game", "item_no", "kind", "seat", "from_seat", "points", "opens_win"),
    "fans": ("match_id", "game", "win_no", "seat", "kind", "fan_id", "value"),
    "rules": ("rules_id", "game", "preset", "options"),
    "rejects": ("file_sha", "file_name", "line", "code", "message", "raw"),
    "files": ("file_sha", "file_name", "bytes", "lines", "events", "rejected"),
    "room_findings": ("match_id", "seq", "code", "rule", "message", "game", "room", "previous"),
}

ACCEPTED: list[tuple[str, str, set[object]]] = [
    ("matches", "status", set(STATUSES)),
    ("matches", "error_code", set(ERROR_CODES) | {ENGINE_ERROR, None}),
    ("matches", "game", set(GAME_IDS) | {None}),
    ("seats", "role", set(ROLES)),
    ("seats", "status", set(STATUSES)),
    ("rejects", "code", set(ERROR_CODES)),
    ("events", "type", set(EVENT_TYPES)),
    ("events", "game", set(GAME_IDS) | {UNKNOWN_GAME}),
    ("rules", "game", set(GAME_IDS)),
    ("room_findings", "code", {"bad_deal"}),
]


def _simulated(n: int) -> list[list]:
    """A few bot-played matches of every game the simulator can play now (engines land over time)."""
    try:
        from engine.sim.simulate import simulate_match
    except Exception:
        return []
    out = []
    for g in sorted(loadable_games()):
        for i in range(n):
            try:
                out.append(simulate_match(g, {}, 11, i))
            except Exception:
                break
    return out


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    d = tmp_path_factory.mktemp("schema")
    files = [str(p) for p in golden_files()]
    files.append(str(write_log(d / "many.jsonl", many_matches(40, "s"))))
    sims = _simulated(3)
    if sims:
        files.append(str(write_log(d / "sim.jsonl", sims)))
    m = golden_matches()[0]
    bad = d / "bad.jsonl"
    bad.write_text("garbage\n" + "\n".join(ln.decode() for ln in (Path(files[0]).read_bytes().splitlines()[:2])) + "\n"
                   + '{"match_id":"q","seq":0,"type":"nope"}\n', encoding="utf-8")  # fmt: skip
    changed = m[1].model_copy(update={"ts": "1999-01-01T00:00:00Z"})
    changed.__pydantic_fields_set__.add("ts")
    from events.codec import event_to_json

    conflict = d / "conflict.jsonl"
    conflict.write_text(event_to_json(changed) + "\n", encoding="utf-8")
    lake = d / "lake"
    ingest(files, lake, workers=2)
    ingest([str(bad), str(conflict)], lake, workers=0)
    return open_lake(lake)


@pytest.mark.parametrize("table", TABLES)
def test_columns_have_the_schema_types(con, table: str) -> None:  # type: ignore[no-untyped-def]
    got = [(r[0], r[1]) for r in con.execute(f"DESCRIBE {table}").fetchall()]
    want = [(f.name, _duck_type(f.type)) for f in schemas()[table]]
    assert got == want


@pytest.mark.parametrize("table", TABLES)
def test_unique_keys(con, table: str) -> None:  # type: ignore[no-untyped-def]
    key = ", ".join(KEYS[table])
    dup = con.execute(f"SELECT {key}, count(*) FROM {table} GROUP BY ALL HAVING count(*) > 1 LIMIT 5").fetchall()
    assert dup == []
    assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, f"{table} is empty: the test proves nothing"


@pytest.mark.parametrize("table", TABLES)
def test_not_null(con, table: str) -> None:  # type: ignore[no-untyped-def]
    for col in NOT_NULL[table]:
        n = con.execute(f"SELECT count(*) FROM {table} WHERE {col} IS NULL").fetchone()[0]
        assert n == 0, f"{table}.{col} has {n} nulls"


@pytest.mark.parametrize(("table", "col", "allowed"), ACCEPTED, ids=[f"{t}.{c}" for t, c, _ in ACCEPTED])
def test_accepted_values(con, table: str, col: str, allowed: set[object]) -> None:  # type: ignore[no-untyped-def]
    values = {r[0] for r in con.execute(f"SELECT DISTINCT {col} FROM {table}").fetchall()}
    assert values <= allowed, values - allowed


RELATIONSHIPS = [
    ("seats", "match_id", "matches", "match_id"),
    ("items", "match_id", "matches", "match_id"),
    ("fans", "match_id || ':' || win_no", "items", "match_id || ':' || win_no"),
    ("matches", "rules_id", "rules", "rules_id"),
    ("events", "match_id", "matches", "match_id"),
    ("rejects", "file_sha", "files", "file_sha"),
    ("events", "file_sha", "files", "file_sha"),
]


@pytest.mark.parametrize(("child", "ccol", "parent", "pcol"), RELATIONSHIPS, ids=[f"{c}->{p}" for c, _, p, _ in RELATIONSHIPS])
def test_relationships(con, child: str, ccol: str, parent: str, pcol: str) -> None:  # type: ignore[no-untyped-def]
    orphans = con.execute(
        f"SELECT DISTINCT {ccol} FROM {child} WHERE {ccol} IS NOT NULL AND {ccol} NOT IN (SELECT {pcol} FROM {parent} WHERE {pcol} IS NOT NULL) LIMIT 5"
    ).fetchall()
    assert orphans == []


def test_settlement_invariants(con) -> None:  # type: ignore[no-untyped-def]
    # finished matches: deltas per seat, zero-sum, equal to the net of the items
    bad = con.execute("""
        SELECT match_id FROM matches WHERE status = 'finished'
        AND (deltas IS NULL OR len(deltas) <> n_players OR list_sum(deltas) <> 0)""").fetchall()
    assert bad == []
    net = con.execute("""
        WITH flows AS (SELECT match_id, seat, points AS p FROM items UNION ALL
                       SELECT match_id, from_seat, -points FROM items),
        n AS (SELECT match_id, seat, sum(p) AS d FROM flows GROUP BY ALL)
        SELECT s.match_id, s.seat, s.delta, coalesce(n.d, 0) FROM seats s LEFT JOIN n USING (match_id, seat)
        WHERE s.status = 'finished' AND s.delta <> coalesce(n.d, 0)""").fetchall()
    assert net == []
    # not finished: no deltas, no items
    assert con.execute("SELECT count(*) FROM matches WHERE status <> 'finished' AND deltas IS NOT NULL").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM items WHERE match_id IN (SELECT match_id FROM matches WHERE status <> 'finished')").fetchone()[0] == 0
    # winners agree with seats.won; a draw is finished without winners
    mismatch = con.execute("""
        SELECT m.match_id FROM matches m JOIN seats s USING (match_id)
        WHERE m.status = 'finished' AND s.won <> list_contains(m.winners, s.seat)""").fetchall()
    assert mismatch == []
    assert con.execute("SELECT count(*) FROM matches WHERE is_draw <> (status = 'finished' AND n_winners = 0)").fetchone()[0] == 0
    # each win is opened by exactly one of its items; lines outside a win open nothing
    assert con.execute("""SELECT match_id, win_no FROM items WHERE win_no IS NOT NULL GROUP BY ALL
                          HAVING count(*) FILTER (WHERE opens_win) <> 1""").fetchall() == []
    assert con.execute("SELECT count(*) FROM items WHERE win_no IS NULL AND opens_win").fetchone()[0] == 0
    # every match's events are contiguous from seq 0 (rejected lines leave gaps only in incomplete/invalid matches)
    gaps = con.execute("""
        SELECT e.match_id FROM events e JOIN matches m USING (match_id) WHERE m.status = 'finished'
        GROUP BY e.match_id HAVING max(e.seq) + 1 <> count(*) OR min(e.seq) <> 0""").fetchall()
    assert gaps == []


def test_match_dates_are_dates_or_null(con) -> None:  # type: ignore[no-untyped-def]
    # every non-null date casts (the dashboard charts matches per day)
    assert con.execute("SELECT count(*) FROM matches WHERE date IS NOT NULL AND TRY_CAST(date AS DATE) IS NULL").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM events WHERE date <> 'none' AND TRY_CAST(date AS DATE) IS NULL").fetchone()[0] == 0


def test_rejects_hold_the_bad_lines_and_the_conflict(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("SELECT file_name, line, code FROM rejects ORDER BY file_name, line").fetchall()
    assert rows == [("bad.jsonl", 1, "bad_json"), ("bad.jsonl", 4, "unknown_type"), ("conflict.jsonl", 1, "conflict")]
