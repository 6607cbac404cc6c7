"""The lake's tables and their typed columns (architecture.md "The lake").

One Arrow schema per table, the single source of truth for ingest (which writes them), the
scale-out runner (whose output must have these schemas) and analytics (which opens empty tables
with them before anything was ingested).

- `events`   one row per stored event; partitioned `game=`/`date=`; `line` is the event exactly
             as received (so a log round-trips byte for byte), `canon` the SHA-256 of its
             canonical JSON without `hash` (events.md §5, used to tell a re-send from a conflict).
- `matches`  one row per match (the latest replay of everything stored for it).
- `seats`    one row per match and seat.
- `items`    one row per settlement line (`detail` holds the rare extra keys as JSON; every key
             that is queried has its own column); `opens_win` marks the first line of each win, so
             per-win statistics need no GROUP BY over matches.
- `fans`     one row per (win, fan); a win is a run of items with `fans` that pay one seat.
- `rules`    one row per distinct validated rules object; `rules_id` = short hash of its canonical JSON.
- `rejects`  the quarantine: every refused line or event, where it came from and why.
- `files`    one row per received file (raw/ holds its bytes under its SHA-256).
"""

from __future__ import annotations

from functools import cache

import pyarrow as pa

TABLES: tuple[str, ...] = ("events", "matches", "seats", "items", "fans", "rules", "rejects", "files")
DERIVED: tuple[str, ...] = ("matches", "seats", "items", "fans")
"""Tables rebuilt for a match each time more of its events arrive."""

STATUSES = ("finished", "incomplete", "invalid")
ROLES = ("landlord", "farmer", "dealer", "player")


@cache
def schemas() -> dict[str, pa.Schema]:
    """Every table's Arrow schema (built lazily, once)."""
    i8, i32, i64, s, b = pa.int8(), pa.int32(), pa.int64(), pa.string(), pa.bool_()
    return {
        "events": pa.schema(
            [
                ("match_id", s), ("seq", i64), ("type", s), ("seat", i8), ("ts", s), ("hash", s),
                ("canon", s), ("line", s), ("file_sha", s), ("file_line", i64), ("game", s), ("date", s),
            ]
        ),
        "matches": pa.schema(
            [
                ("match_id", s), ("game", s), ("rules_id", s), ("preset", s), ("status", s),
                ("n_players", i8), ("dealer", i8), ("base", i64), ("room", s), ("round", i32),
                ("events", i32), ("error_seq", i64), ("error_type", s), ("error_code", s),
                ("error_message", s), ("winners", pa.list_(i8)), ("n_winners", i8), ("is_draw", b),
                ("deltas", pa.list_(i64)), ("recorded_deltas", pa.list_(i64)),
                ("settlement_matches", b), ("chain_ok", b), ("final_hash", s), ("max_delta", i64),
                ("landlord", i8), ("date", s), ("started_ts", s), ("ended_ts", s),
            ]
        ),
        "seats": pa.schema(
            [
                ("match_id", s), ("game", s), ("rules_id", s), ("status", s), ("seat", i8),
                ("player", s), ("role", s), ("is_dealer", b), ("delta", i64), ("won", b),
                ("recorded_delta", i64),
            ]
        ),
        "items": pa.schema(
            [
                ("match_id", s), ("game", s), ("rules_id", s), ("item_no", i32), ("kind", s),
                ("seat", i8), ("from_seat", i8), ("points", i64), ("fan", i32), ("win_no", i32),
                ("opens_win", b), ("detail", s),
            ]
        ),
        "fans": pa.schema(
            [
                ("match_id", s), ("game", s), ("rules_id", s), ("win_no", i32), ("seat", i8),
                ("kind", s), ("fan_id", s), ("value", i32), ("fan_total", i32),
            ]
        ),
        "rules": pa.schema([("rules_id", s), ("game", s), ("preset", s), ("options", s)]),
        "rejects": pa.schema(
            [
                ("file_sha", s), ("file_name", s), ("line", i64), ("match_id", s), ("seq", i64),
                ("code", s), ("message", s), ("raw", s),
            ]
        ),
        "files": pa.schema(
            [("file_sha", s), ("file_name", s), ("bytes", i64), ("lines", i64), ("events", i64), ("rejected", i64)]
        ),
    }


KEYS: dict[str, tuple[str, ...]] = {
    "events": ("match_id", "seq"),
    "matches": ("match_id",),
    "seats": ("match_id", "seat"),
    "items": ("match_id", "item_no"),
    "fans": ("match_id", "win_no", "fan_id"),
    "rules": ("rules_id",),
    "rejects": ("file_sha", "line"),
    "files": ("file_sha",),
}
"""Unique key of each table (checked by the schema tests)."""


def empty(table: str) -> pa.Table:
    """An empty table with the table's schema."""
    return schemas()[table].empty_table()
