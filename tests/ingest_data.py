"""Real logs for the ingest and analytics tests: the golden logs of every game that has them,
replicated under new match ids (hash chains refilled) when a test needs volume, and simulated
matches of every available game when the simulator can play it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from analytics.lake import open_lake
from engine.registry import get_game
from events.chain import fill_chain
from events.codec import event_to_json, parse_line
from events.models import AnyEvent
from events.notation import GAME_IDS
from ingest.schema import TABLES

GOLDEN = Path(__file__).parent / "data" / "golden"


def loadable_games() -> set[str]:
    """Games whose engine imports now (engines land one by one; a half-written one is skipped)."""
    out = set()
    for g in GAME_IDS:
        try:
            get_game(g)
        except Exception:
            continue
        out.add(g)
    return out


def golden_files() -> list[Path]:
    """Golden logs of the games whose engine loads (one match each, most ending `settled`)."""
    have = loadable_games()
    out = []
    for p in sorted(GOLDEN.glob("*.jsonl")):
        first = p.read_bytes().split(b"\n", 1)[0]
        try:
            ev = parse_line(first)
        except Exception:
            continue
        if getattr(ev, "game", None) in have:
            out.append(p)
    return out


def golden_matches() -> list[list[AnyEvent]]:
    out = []
    for p in golden_files():
        evs = [parse_line(ln) for ln in p.read_bytes().splitlines() if ln.strip()]
        if evs:
            out.append(evs)
    return out


def renamed(events: list[AnyEvent], match_id: str) -> list[AnyEvent]:
    """The same match under another id; the hash chain is refilled when the original had one."""
    evs = [e.model_copy(update={"match_id": match_id}) for e in events]
    for e, orig in zip(evs, events, strict=True):
        e.__pydantic_fields_set__.update(orig.__pydantic_fields_set__)
    if any(e.hash is not None for e in events):
        evs = fill_chain(evs)
    return evs


def write_log(path: Path, matches: list[list[AnyEvent]]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for evs in matches:
            for e in evs:
                f.write(event_to_json(e) + "\n")
    return path


def many_matches(n: int, prefix: str = "x") -> list[list[AnyEvent]]:
    """n matches cycling over the golden ones, each with a new id."""
    base = golden_matches()
    return [renamed(base[i % len(base)], f"{prefix}-{i:06d}") for i in range(n)]


def snapshot(lake: Path, drop: tuple[str, ...] = ()) -> dict[str, pd.DataFrame]:
    """Every table, sorted by all its columns, for equality checks."""
    con = open_lake(lake)
    out = {}
    for t in TABLES:
        df = con.execute(f"SELECT * FROM {t}").df()
        df = df.drop(columns=[c for c in drop if c in df.columns])
        key = [c for c in df.columns if df[c].map(lambda v: not isinstance(v, list | tuple) and not hasattr(v, "tolist")).all()]
        df = df.astype({c: "string" for c in df.columns if df[c].dtype == object and c in key})
        out[t] = df.sort_values(key).reset_index(drop=True) if key and len(df) else df
    return out


def assert_same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame], tables: Any = None) -> None:
    for t in tables or a:
        pd.testing.assert_frame_equal(a[t], b[t], check_dtype=True, obj=t)
