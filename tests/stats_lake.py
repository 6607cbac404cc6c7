"""A REAL lake for the statistics pages: enough matches for the default minimum sample (30).

Bots play (engine.sim), the logs are written and `ingest` stores them:
- `ddz` standard, 200 matches, dated over days 0, 1 and 4 of the lake (days 2 and 3 have none);
- `ddz` with `bomb_factor` 3 and `rob` on, 40 matches;
- one `ddz` match with `spring` off (a one-match rule set: the minimum sample must hide it);
- `hongzhong` and `sichuan_xuezhan`, 40 each (a mahjong game without fans and one with);
- two `ddz` matches cut short after 6 events (`live-1`, `live-2`: status incomplete, in progress).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from engine.sim.simulate import simulate_match
from events.codec import event_to_json

DAYS = ("2026-11-01", "2026-11-02", "2026-11-05")
LIVE = {"live-1": 6, "live-2": 9}
"""match id → events kept (an open match as the referee publishes it)."""
SETS: list[tuple[str, dict[str, Any], int, int]] = [
    ("ddz", {}, 200, 11),
    ("ddz", {"bomb_factor": 3, "rob": True}, 40, 12),
    ("ddz", {"spring": False}, 1, 13),
    ("hongzhong", {}, 40, 14),
    ("sichuan_xuezhan", {}, 40, 15),
]


def _redate(events: list[dict[str, Any]], day: str, match_id: str | None = None) -> list[dict[str, Any]]:
    out = []
    for e in events:
        d = {k: v for k, v in e.items() if k != "hash"}
        d["ts"] = day + d["ts"][10:]
        if match_id is not None:
            d["match_id"] = match_id
        out.append(d)
    return out


def build(root: Path) -> dict[str, Any]:
    """Write the logs under root/logs and ingest them into root/lake; return what was written."""
    from ingest.pipeline import ingest

    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[dict[str, Any]]] = {}
    for k, (game, rules, n, seed) in enumerate(SETS):
        with open(logs / f"{k}-{game}.jsonl", "w", encoding="utf-8") as f:
            for i in range(n):
                evs = [json.loads(event_to_json(e)) for e in simulate_match(game, rules, seed, i)]
                evs = _redate(evs, DAYS[i % len(DAYS)], f"{game}-{k}-{i:03d}")
                written[evs[0]["match_id"]] = evs
                f.write("\n".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in evs) + "\n")
    with open(logs / "live.jsonl", "w", encoding="utf-8") as f:
        for j, (mid, keep) in enumerate(LIVE.items()):
            evs = [json.loads(event_to_json(e)) for e in simulate_match("ddz", {}, 99, j)]
            evs = _redate(evs, DAYS[-1], mid)[:keep]
            written[mid] = evs
            f.write("\n".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in evs) + "\n")
    lake = root / "lake"
    ingest(sorted(str(p) for p in logs.glob("*.jsonl")), lake, workers=0)
    return {"lake": str(lake), "matches": written}


Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson 95 % score interval, written out here (not the code under test's)."""
    p, d = k / n, 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def sql(lake: str, text: str) -> list[tuple[Any, ...]]:
    """Run SQL written by a test over the lake's published Parquet files (its own connection,
    not analytics.lake or analytics.queries)."""
    import duckdb

    from ingest.schema import TABLES
    from ingest.store import read_manifest, view_sql

    root = Path(lake).resolve()
    m = read_manifest(root)
    con = duckdb.connect()
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS {view_sql(root, m, t)}")
    return con.execute(text).fetchall()
