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
- `room_findings` one row per match whose dealer breaks a rule across its room's matches
             (PDK-R2/R16, ZJH-R2, SC-R23, HZ-R15, AS-R17; `ingest.rooms`): `previous` names the
             match whose end names the dealer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pyarrow as pa


@dataclass(frozen=True)
class Table:
    """One table of the lake: a new table is one entry of `REGISTRY`.

    `columns` are (name, type) with types `string`, `bool`, `int8`…`int64` or `list<T>`;
    `built`: its rows come from `ingest.tables.build_tables` (a replay), else from parsing and
    merging raw/; `per_match`: a match's rows are replaced each time more of its events arrive.
    """

    name: str
    key: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    built: bool = False
    per_match: bool = False
    cross_match: bool = False
    """Its rows come from checking a room's matches together (`ingest.rooms`), after the replay."""


_S, _I8, _I32, _I64, _B = "string", "int8", "int32", "int64", "bool"
REGISTRY: tuple[Table, ...] = (
    Table("events", ("match_id", "seq"), (
        ("match_id", _S), ("seq", _I64), ("type", _S), ("seat", _I8), ("ts", _S), ("hash", _S),
        ("canon", _S), ("line", _S), ("file_sha", _S), ("file_line", _I64), ("game", _S), ("date", _S))),
    Table("matches", ("match_id",), (
        ("match_id", _S), ("game", _S), ("rules_id", _S), ("preset", _S), ("status", _S),
        ("n_players", _I8), ("dealer", _I8), ("base", _I64), ("room", _S), ("round", _I32),
        ("events", _I32), ("error_seq", _I64), ("error_type", _S), ("error_code", _S),
        ("error_message", _S), ("winners", "list<int8>"), ("n_winners", _I8), ("is_draw", _B),
        ("deltas", "list<int64>"), ("recorded_deltas", "list<int64>"),
        ("settlement_matches", _B), ("chain_ok", _B), ("final_hash", _S), ("max_delta", _I64),
        ("landlord", _I8), ("date", _S), ("started_ts", _S), ("ended_ts", _S)), built=True, per_match=True),
    Table("seats", ("match_id", "seat"), (
        ("match_id", _S), ("game", _S), ("rules_id", _S), ("status", _S), ("seat", _I8),
        ("player", _S), ("role", _S), ("is_dealer", _B), ("delta", _I64), ("won", _B),
        ("recorded_delta", _I64)), built=True, per_match=True),
    Table("items", ("match_id", "item_no"), (
        ("match_id", _S), ("game", _S), ("rules_id", _S), ("item_no", _I32), ("kind", _S),
        ("seat", _I8), ("from_seat", _I8), ("points", _I64), ("fan", _I32), ("win_no", _I32),
        ("opens_win", _B), ("detail", _S)), built=True, per_match=True),
    Table("fans", ("match_id", "win_no", "fan_id"), (
        ("match_id", _S), ("game", _S), ("rules_id", _S), ("win_no", _I32), ("seat", _I8),
        ("kind", _S), ("fan_id", _S), ("value", _I32), ("fan_total", _I32)), built=True, per_match=True),
    Table("rules", ("rules_id",), (("rules_id", _S), ("game", _S), ("preset", _S), ("options", _S)), built=True),
    Table("rejects", ("file_sha", "line"), (
        ("file_sha", _S), ("file_name", _S), ("line", _I64), ("match_id", _S), ("seq", _I64),
        ("code", _S), ("message", _S), ("raw", _S))),
    Table("files", ("file_sha",), (
        ("file_sha", _S), ("file_name", _S), ("bytes", _I64), ("lines", _I64), ("events", _I64), ("rejected", _I64))),
    Table("room_findings", ("match_id", "rule"), (
        ("match_id", _S), ("seq", _I64), ("code", _S), ("rule", _S), ("message", _S), ("game", _S), ("room", _S),
        ("previous", _S)), cross_match=True),
)  # fmt: skip

TABLES: tuple[str, ...] = tuple(t.name for t in REGISTRY)
DERIVED: tuple[str, ...] = tuple(t.name for t in REGISTRY if t.per_match)
"""Tables rebuilt for a match each time more of its events arrive."""
BUILT: tuple[str, ...] = tuple(t.name for t in REGISTRY if t.built)
"""Tables whose rows `ingest.tables.build_tables` returns (replayed from a match's events)."""
CROSS: tuple[str, ...] = tuple(t.name for t in REGISTRY if t.cross_match)
"""Tables checked across matches after the replay (`ingest.rooms`)."""
KEYS: dict[str, tuple[str, ...]] = {t.name: t.key for t in REGISTRY}
"""Unique key of each table (checked by the schema tests)."""

STATUSES = ("finished", "incomplete", "invalid")
ROLES = ("landlord", "farmer", "dealer", "player")


def arrow_type(name: str) -> pa.DataType:
    """`string`, `bool`, `int8`…`int64`, `list<T>` → the Arrow type."""
    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(arrow_type(name[5:-1]))
    return {"string": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
            "int64": pa.int64()}[name]  # fmt: skip


@cache
def schemas() -> dict[str, pa.Schema]:
    """Every table's Arrow schema (built lazily, once)."""
    return {t.name: pa.schema([(c, arrow_type(ty)) for c, ty in t.columns]) for t in REGISTRY}


def empty(table: str) -> pa.Table:
    """An empty table with the table's schema."""
    return schemas()[table].empty_table()
