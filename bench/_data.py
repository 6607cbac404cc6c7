"""Benchmark data: simulated matches of every available game, replicated under new match ids.

The bots of the mahjong games play a few hundred events per second, so a million simulated events
would take an hour: the simulator plays a base set of matches once (every game the registry can
load), and the log is grown to the size asked for by copying those matches under new ids with the
hash chain recomputed, so every copy is a valid, distinct match that replays exactly like its
original. Files are cached under /tmp/paiju-bench (never in the repository).
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
