"""Benchmark data: simulated matches of every available game, replicated under new match ids.

The bots of the mahjong games play a few hundred events per second, so a million simulated events
would take an hour: the simulator plays a base set of matches once (every game the registry can
load), and the log is grown to the size asked for by copying those matches under new ids with the
hash chain recomputed, so every copy is a valid, distinct match that replays exactly like its
original. Files are cached under /tmp/paiju-bench (never in the repository).

`synthetic_lake` writes a lake straight from DuckDB instead, with every table and column of
`ingest.schema` (so it cannot go stale: a column the schema gains and the builder does not know
is written as typed NULLs, and named by `unknown_columns`).
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from events.chain import canonical_json

CACHE = Path(os.environ.get("PAIJU_BENCH_CACHE", "/tmp/paiju-bench"))
BASE_MATCHES = {"ddz": 120, "ddz_laizi": 120, "paodekuai": 120, "zhajinhua": 160,
                "sichuan_xuezhan": 24, "sichuan_xueliu": 24, "hongzhong": 24, "anshun": 24}  # fmt: skip


def _play(job: tuple[str, int]) -> list[str]:
    from engine.sim.simulate import simulate_match
    from events.codec import event_to_json

    game, i = job
    try:
        return [event_to_json(e) for e in simulate_match(game, {}, 2026, i)]
    except Exception:  # a game whose bots are not ready yet is left out
        return []


def base_log() -> Path:
    """The simulated base set (cached)."""
    from engine.registry import GAME_MODULES, get_game

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / "base.jsonl"
    if path.exists():
        return path
    games = []
    for g in GAME_MODULES:
        try:
            get_game(g)
            games.append(g)
        except Exception:
            continue
    jobs = [(g, i) for g in games for i in range(BASE_MATCHES.get(g, 20))]
    tmp = path.with_suffix(".tmp")
    with ProcessPoolExecutor(2) as pool, open(tmp, "w", encoding="utf-8") as f:
        for lines in pool.map(_play, jobs, chunksize=4):
            for ln in lines:
                f.write(ln + "\n")
    os.replace(tmp, path)
    return path


def _matches(path: Path) -> list[list[dict]]:
    by: dict[str, list[dict]] = {}
    with open(path, "rb") as f:
        for line in f:
            obj = json.loads(line)
            by.setdefault(obj["match_id"], []).append(obj)
    return list(by.values())


def bench_log(min_events: int) -> tuple[Path, int]:
    """A log of at least `min_events` events (cached): (path, events)."""
    path = CACHE / f"ingest-{min_events}.jsonl"
    if path.exists():
        with open(path, "rb") as f:
            return path, sum(1 for _ in f)
    base = _matches(base_log())
    n = 0
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        copy = 0
        while n < min_events:
            for events in base:
                prev = ""
                for obj in events:
                    o = dict(obj)
                    o["match_id"] = f"{obj['match_id']}.r{copy}"
                    if "hash" in o:
                        body = {k: v for k, v in o.items() if k != "hash"}
                        h = hashlib.sha256(prev.encode())
                        h.update(canonical_json(body))
                        prev = h.hexdigest()
                        o["hash"] = prev
                    out.write(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n")
                    n += 1
            copy += 1
    os.replace(tmp, path)
    return path, n


GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")
FANS = ("ping_hu", "zi_mo", "gen", "qing_yi_se", "dui_dui_hu", "qi_dui", "gang_shang_hua", "hai_di", "jin_gou_diao")


def _duck(ty: str) -> str:
    """`ingest.schema` type name -> DuckDB type."""
    if ty.startswith("list<"):
        return _duck(ty[5:-1]) + "[]"
    return {"string": "VARCHAR", "bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER",
            "int64": "BIGINT"}[ty]  # fmt: skip


def _list(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


# Per table, a synthetic value for each column (SQL over `mm`, one row per match: i, match_id, game,
# gi (game index), n (players), h0..h3 (independent draws 0..9999), status, dealer, winner, unit, draw,
# rules_id, preset, date, started_ts; and the table's own range variable). Rows per table: `_FROM`.
_COLUMNS: dict[str, dict[str, str]] = {
    "matches": {
        "match_id": "match_id", "game": "game", "rules_id": "rules_id", "preset": "preset", "status": "status",
        "n_players": "n", "dealer": "dealer", "base": "1", "room": "NULL", "round": "1", "events": "20 + h3 % 80",
        "error_seq": "CASE WHEN status = 'invalid' THEN 2 + h1 % 30 END",
        "error_type": "CASE WHEN status = 'invalid' THEN 'play' END",
        "error_code": "CASE WHEN status = 'invalid' THEN ['does_not_beat', 'not_your_turn', 'not_in_hand', 'bad_hash'][1 + h2 % 4] END",
        "error_message": "CASE WHEN status = 'invalid' THEN 'synthetic refusal for the benchmark' END",
        "winners": "CASE WHEN status = 'finished' AND NOT draw THEN [winner] ELSE [] END",
        "n_winners": "CASE WHEN status = 'finished' AND NOT draw THEN 1 ELSE 0 END",
        "is_draw": "status = 'finished' AND draw",
        "deltas": "CASE WHEN status = 'finished' THEN list_transform(range(n), lambda s: CASE WHEN draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END) END",
        "recorded_deltas": "CASE WHEN status = 'finished' THEN list_transform(range(n), lambda s: CASE WHEN draw THEN 0 WHEN s = winner THEN (n - 1) * unit + (CASE WHEN h1 < 10 THEN 1 ELSE 0 END) ELSE -unit END) END",
        "settlement_matches": "CASE WHEN status = 'finished' THEN h1 >= 10 END", "chain_ok": "h2 >= 10",
        "final_hash": "lpad(to_hex(hash(i, 9)), 64, '0')", "max_delta": "(n - 1) * unit",
        "landlord": "CASE WHEN gi < 2 THEN winner END", "date": "date", "started_ts": "started_ts",
        "ended_ts": "strftime(ts + INTERVAL 20 MINUTE, '%Y-%m-%dT%H:%M:%SZ')",
    },
    "seats": {
        "match_id": "match_id", "game": "game", "rules_id": "rules_id", "status": "status", "seat": "s",
        "player": "'p' || lpad((hash(i, s) % $players)::VARCHAR, 5, '0')",
        "role": "CASE WHEN gi < 2 THEN (CASE WHEN s = winner THEN 'landlord' ELSE 'farmer' END) ELSE (CASE WHEN s = dealer THEN 'dealer' ELSE 'player' END) END",
        "is_dealer": "s = dealer",
        "delta": "CASE WHEN status <> 'finished' OR draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END",
        "won": "status = 'finished' AND NOT draw AND s = winner",
        "recorded_delta": "CASE WHEN status <> 'finished' OR draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END",
    },
    "items": {
        "match_id": "match_id", "game": "game", "rules_id": "rules_id", "item_no": "p - 1",
        "kind": "CASE WHEN gi >= 4 THEN 'hu_zimo' WHEN gi < 2 THEN 'landlord_win' ELSE 'win' END",
        "seat": "winner", "from_seat": "(winner + p) % n", "points": "unit",
        "fan": "CASE WHEN gi >= 4 THEN h3 % 5 END", "win_no": "CASE WHEN gi >= 4 THEN 0 END",
        "opens_win": "CASE WHEN gi >= 4 THEN p = 1 END", "detail": "NULL",
    },
    "fans": {
        "match_id": "match_id", "game": "game", "rules_id": "rules_id", "win_no": "0", "seat": "winner", "kind": "'hu_zimo'",
        "fan_id": f"{_list(FANS)}[CASE WHEN k = 0 THEN 1 ELSE 2 + (hash(i, 20 + k) % {len(FANS) - 1})::BIGINT END]",
        "value": "CASE WHEN k = 0 THEN 1 ELSE 1 + (hash(i, 30 + k) % 3)::BIGINT END", "fan_total": "h3 % 5",
    },
    "rules": {"rules_id": "rules_id", "game": "game", "preset": "preset", "options": "'{\"preset\": \"' || preset || '\"}'"},
    "rejects": {
        "file_sha": "'sha' || (i % 50)::VARCHAR", "file_name": "'log' || (i % 50)::VARCHAR || '.jsonl'", "line": "i",
        "match_id": "match_id", "seq": "h1 % 40", "code": "['bad_json', 'bad_field', 'conflict', 'unknown_type'][1 + h2 % 4]",
        "message": "'synthetic reject for the benchmark'", "raw": "'{\"match_id\": \"x\"}'",
    },
    "files": {
        "file_sha": "'sha' || i::VARCHAR", "file_name": "'log' || i::VARCHAR || '.jsonl'", "bytes": "1000000",
        "lines": "20000", "events": "20000", "rejected": "0",
    },
    "events": {
        "match_id": "match_id", "seq": "e",
        "type": "CASE WHEN e = 0 THEN 'match_started' WHEN e = 1 THEN 'dealt' ELSE 'play' END", "seat": "e % n",
        "ts": "started_ts", "hash": "NULL", "canon": "to_hex(hash(i, e))",
        "line": "'{\"match_id\":\"' || match_id || '\",\"seq\":' || e::VARCHAR || ',\"type\":\"pass\",\"seat\":' || (e % n)::VARCHAR || '}'",
        "file_sha": "'sha0'", "file_line": "i * $events_per_match + e", "game": "game", "date": "coalesce(date, 'none')",
    },
    "room_findings": {
        "match_id": "match_id", "seq": "0", "code": "'bad_deal'", "rule": "'PDK-R2'", "game": "game",
        "message": "'synthetic room finding for the benchmark'", "room": "'r' || (i % 5000)::VARCHAR",
        "previous": "'prev-' || match_id",
    },
}  # fmt: skip
_FROM = {
    "matches": "mm ORDER BY match_id",
    "seats": "mm, range(n) r(s) ORDER BY match_id, seat",
    "items": "mm, range(1, 4) r(p) WHERE status = 'finished' AND NOT draw AND p < n ORDER BY match_id, item_no",
    "fans": "mm, range(0, 3) r(k) WHERE gi >= 4 AND status = 'finished' AND NOT draw AND k <= h2 % 3 ORDER BY match_id, fan_id",
    "rules": "(SELECT DISTINCT rules_id, game, preset FROM mm) ORDER BY rules_id",
    "rejects": "mm WHERE h0 % 100 = 7 ORDER BY file_sha, line",
    "files": "range(50) t(i)",
    "events": "mm, range($events_per_match) r(e) ORDER BY game, date, match_id, seq",
    "room_findings": "mm WHERE h0 % 1000 = 3 ORDER BY match_id",
}


def unknown_columns() -> list[str]:
    """`table.column` of the schema that `synthetic_lake` has no value for (written as NULLs)."""
    from ingest.schema import REGISTRY

    return [f"{t.name}.{c}" for t in REGISTRY for c, _ in t.columns if c not in _COLUMNS.get(t.name, {})]


def synthetic_lake(root: Path, matches: int = 1_000_000, *, events_per_match: int = 12, players: int = 40_000,
                   span_s: int = 365 * 86400, undated_every: int = 0) -> Path:  # fmt: skip
    """Write a lake of `matches` matches under `root` (every table of `ingest.schema` with its typed
    columns, events hive-partitioned by game and day, a published manifest); return `root`.

    Matches start at a pseudo-random second within `span_s` seconds of 2026-01-01 (every
    `undated_every`-th has no start: no date, no `started_ts`); a few per cent are invalid,
    incomplete, mismatched or with a broken chain; `players` distinct names."""
    import duckdb

    from ingest.schema import REGISTRY
    from ingest.store import Manifest, write_manifest

    root.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    undated = f"i % {int(undated_every)} = {int(undated_every) - 1}" if undated_every else "false"
    con.execute(f"""
        CREATE TEMP TABLE m AS
        SELECT i, 'bench-' || lpad(i::VARCHAR, 7, '0') AS match_id, {_list(GAMES)}[1 + i % 8] AS game, i % 8 AS gi,
               CASE WHEN i % 8 < 3 THEN 3 ELSE 4 END AS n,
               (hash(i, 1) % 10000)::BIGINT AS h0, (hash(i, 2) % 10000)::BIGINT AS h1,
               (hash(i, 3) % 10000)::BIGINT AS h2, (hash(i, 4) % 10000)::BIGINT AS h3,
               CASE WHEN NOT ({undated}) THEN TIMESTAMP '2026-01-01 00:00:00' + to_seconds((hash(i, 5) % {int(span_s)})::BIGINT) END AS ts
        FROM range({int(matches)}) t(i)""")  # fmt: skip
    con.execute("""
        CREATE TEMP TABLE mm AS
        SELECT *, CASE WHEN h0 < 9700 THEN 'finished' WHEN h0 < 9900 THEN 'incomplete' ELSE 'invalid' END AS status,
               (h1 % n)::TINYINT AS dealer, (h2 % n)::TINYINT AS winner,
               (1 << (h3 % 4))::BIGINT AS unit, (gi >= 4 AND h1 < 600) AS draw,
               game || '-r' || (h2 % 3)::VARCHAR AS rules_id,
               CASE WHEN gi >= 4 THEN ['standard', 'chengdu', 'mianzhu'][1 + h2 % 3] ELSE 'standard' END AS preset,
               strftime(ts, '%Y-%m-%d') AS date, strftime(ts, '%Y-%m-%dT%H:%M:%SZ') AS started_ts
        FROM m""")  # fmt: skip
    bind = {"$players": str(int(players)), "$events_per_match": str(int(events_per_match))}
    tables: dict[str, list[str]] = {}
    for t in REGISTRY:
        exprs = _COLUMNS.get(t.name, {})
        cols = ", ".join(f"({exprs.get(c, 'NULL')})::{_duck(ty)} AS {c}" for c, ty in t.columns)
        select = f"SELECT {cols} FROM {_FROM[t.name]}"
        for k, v in bind.items():
            select = select.replace(k, v)
        if t.name == "events":  # hive-partitioned like ingest writes them (no game/date columns in the files)
            con.execute(f"COPY ({select}) TO '{root / 'events'}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, date))")
            tables["events"] = sorted(str(p.relative_to(root)) for p in (root / "events").rglob("*.parquet"))
            continue
        (root / t.name).mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY ({select}) TO '{root / t.name / 'part-0.parquet'}' (FORMAT parquet, COMPRESSION zstd)")
        tables[t.name] = [f"{t.name}/part-0.parquet"]
    con.close()
    write_manifest(root, Manifest(1, tables))
    return root
