"""Every dashboard page's queries on a lake of 1 million matches, and every page drawn end to end:
each must answer in under 1 s (issue 16).

    .venv/bin/python bench/dashboard.py [--matches 1000000] [--source synthetic|real] [--lake DIR]

Two big lakes (cached under /tmp/paiju-bench):
- `synthetic` (default): `bench._data.synthetic_lake`, every table and column of `ingest.schema`
  written straight from DuckDB (so it cannot go stale: the cache folder is named by a digest of the
  schema), 40 000 players, starts spread over a year, a few per cent invalid / mismatched / broken
  matches, `--events-per-match` stored events for EVERY match.
- `real`: `bench/queries.py:big_lake`, the simulated base log of every game ingested for real, its
  derived rows replicated under new ids (40 players, 160 distinct starts; events only for the base
  matches; the integrity tables built from those by `ingest.integrity_tables.publish_tables`).
The lake opens through `analytics.lake` exactly as the dashboard opens it. Every query a page runs
(statistics, Search, Player, Replay's look-ups, Integrity's tables) is timed uncached, best of 3
after a warm-up, its CPU time (all DuckDB threads) beside its wall time: the machine is shared, so
wall time inflates with the load average (printed beside) and CPU time does not. Then every page is
drawn end to end under Streamlit's AppTest with the caches cleared (`time_pages`). Exit 1 if any
wall time is 1 s or more.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LIMIT_S = 1.0
MIN_N = 30  # the pages' default minimum sample
Widget = tuple[str, str, Any]
"""(kind, key, value) of a widget set before a page is timed: kind `selectbox`, `radio`, `text_input`, `number_input`."""


def pages(s: Samples) -> list[tuple[str, str | None, dict[str, str], list[Widget]]]:
    """(label, page file, query parameters, widgets) of every page drawn end to end by `time_pages`."""
    return [
        ("overview", None, {}, []),
        ("winrates", "views/winrates.py", {}, []),
        ("winrates by player", "views/winrates.py", {}, [("radio", "wr_by", "player")]),
        ("winrates ddz by seat", "views/winrates.py", {}, [("selectbox", "wr_game", "ddz"), ("radio", "wr_by", "seat")]),
        ("fans", "views/fans.py", {}, []),
        ("fans sichuan_xuezhan", "views/fans.py", {}, [("selectbox", "fans_game", "sichuan_xuezhan")]),
        ("quality", "views/quality.py", {}, []),
        ("glossary", "views/glossary.py", {}, []),
        ("integrity", "views/integrity.py", {}, []),
        ("search: all matches", "views/search.py", {}, []),
        ("search: all matches, page 2000", "views/search.py", {}, [("number_input", "search_page", 2000)]),
        (f"search: part of an id ({s.id_part!r})", "views/search.py", {"q": s.id_part}, []),
        (f"search: part of a name ({s.name_part!r})", "views/search.py", {"q": s.name_part}, []),
        (f"player {s.player} (most matches)", "views/player.py", {"name": s.player}, []),
        (f"replay {s.with_events} (opened by link)", "views/replay.py", {"match": s.with_events}, []),
        (f"replay box: part of an id ({s.id_part!r})", "views/replay.py", {"match": s.id_part}, []),
    ]  # fmt: skip


@dataclass(frozen=True)
class Samples:
    """Ids and names taken from the lake: a match in the middle, parts of its id and of a name, the
    player with the most matches, a game, a match with stored events, the date range."""

    match: str
    id_part: str
    name_part: str
    player: str
    game: str
    with_events: str
    first_date: str
    last_date: str


def samples(lake: Path) -> Samples:
    from analytics.lake import open_lake

    con = open_lake(lake)
    n = con.execute("SELECT count(*) FROM matches").fetchone()[0]
    mid = con.execute("SELECT match_id FROM matches ORDER BY match_id LIMIT 1 OFFSET ?", [n // 2]).fetchone()[0]
    player = con.execute("SELECT player FROM seats GROUP BY player ORDER BY count(*) DESC, player LIMIT 1").fetchone()[0]
    game = con.execute("SELECT game FROM matches GROUP BY game ORDER BY count(*) DESC, game LIMIT 1").fetchone()[0]
    ev = con.execute("SELECT match_id FROM events ORDER BY match_id LIMIT 1").fetchone()
    lo, hi = con.execute("SELECT min(date), max(date) FROM matches").fetchone()
    return Samples(mid, mid[len(mid) // 3 : len(mid) // 3 + 8].upper(), player[:-1].upper(), player, game,
                   ev[0] if ev else mid, lo, hi)  # fmt: skip


def dashboard_queries(s: Samples) -> list[tuple[str, Callable[[Any], Any]]]:
    """(label, function(connection)) for every query a statistics page runs, all games and one game."""
    from analytics import queries as q

    out: list[tuple[str, Callable[[Any], Any]]] = [
        ("overview", lambda c: q.overview(c)),
        ("reject_codes", lambda c: q.reject_codes(c)),
        ("activity", lambda c: q.activity(c, days=60)),
        ("rule_sets", lambda c: q.rule_sets(c)),
        ("rejects", lambda c: q.rejects(c, limit=200)),
        ("error_codes", lambda c: q.error_codes(c)),
        ("invalid_matches", lambda c: q.invalid_matches(c, limit=200)),
        ("settlement_mismatches", lambda c: q.settlement_mismatches(c, limit=200)),
        ("broken_chains", lambda c: q.broken_chains(c, limit=200)),
        ("in_progress", lambda c: q.in_progress(c, limit=50)),
        # the Win rates page ranks players per game (the most played one when no game is picked),
        # by the lower end of their interval, with the default minimum sample (30)
        ("win_rate_by_player [sichuan_xuezhan]", lambda c: q.win_rate_by_player(c, "sichuan_xuezhan", min_matches=MIN_N, limit=60)),
        ("win_rate_by_player [ddz]", lambda c: q.win_rate_by_player(c, "ddz", min_matches=MIN_N, limit=60)),
    ]
    for game in (None, "sichuan_xuezhan"):
        tag = "all" if game is None else game
        out += [
            (f"win_rate_by_role [{tag}]", lambda c, g=game: q.win_rate_by_role(c, g, min_n=MIN_N)),
            (f"win_rate_by_seat [{tag}]", lambda c, g=game: q.win_rate_by_seat(c, g, min_n=MIN_N)),
            (f"win_rate_by_dealer [{tag}]", lambda c, g=game: q.win_rate_by_dealer(c, g, min_n=MIN_N)),
            (f"draw_rate [{tag}]", lambda c, g=game: q.draw_rate(c, g, min_n=MIN_N)),
            (f"rules_comparison [{tag}]", lambda c, g=game: q.rules_comparison(c, g, min_n=MIN_N)),
            (f"fan_distribution [{tag}]", lambda c, g=game: q.fan_distribution(c, g, min_n=MIN_N)),
            (f"fan_total_distribution [{tag}]", lambda c, g=game: q.fan_total_distribution(c, g, min_n=MIN_N)),
            (f"score_distribution [{tag}]", lambda c, g=game: q.score_distribution(c, g, min_n=MIN_N)),
            (f"score_histogram [{tag}]", lambda c, g=game: q.score_histogram(c, g, width=1)),
            (f"biggest_wins [{tag}]", lambda c, g=game: q.biggest_wins(c, g, limit=10)),
        ]
    return out


def search_queries(s: Samples) -> list[tuple[str, Callable[[Any], Any]]]:
    """What the Search and Player pages and Replay's search box run (count + page as the pages do)."""
    from analytics import search

    def player_page(c: Any, offset: int = 0) -> Any:
        pl = search.player(c, s.player)
        return pl, search.rows(c, pl.page(50, offset), search.Filters(player=s.player))

    F = search.Filters
    return [
        ("search: all matches (count + page 1)", lambda c: search.find(c, F())),
        ("search: all matches, page 2000", lambda c: search.find(c, F(), offset=1999 * 50)),
        ("search: all matches, last page", lambda c: search.find(c, F(), offset=(search.count(c, F()) - 1) // 50 * 50)),
        (f"search: part of an id ({s.id_part!r})", lambda c: search.find(c, F(text=s.id_part))),
        (f"search: part of a name ({s.name_part!r})", lambda c: search.find(c, F(text=s.name_part))),
        (f"search: {s.game} + mismatch + dates", lambda c: search.find(c, F(game=s.game, mismatch=True, date_from=s.first_date, date_to=s.last_date))),
        ("search: broken chain + invalid", lambda c: search.find(c, F(broken=True, status="invalid"))),
        (f"player {s.player}: figures + matches page 1", lambda c: player_page(c)),
        (f"player {s.player}: figures + matches page 100", lambda c: player_page(c, 99 * 50)),
        (f"replay box: exact id, any case ({s.match.upper()!r})", lambda c: search.exact_id(c, s.match.upper())),
        (f"replay: match_lines ({s.with_events})", lambda c: _match_lines(c, s.with_events)),
    ]  # fmt: skip


def _match_lines(con: Any, match_id: str) -> list[str]:
    from analytics.queries import match_lines

    return match_lines(con, match_id)


def time_calls(lake: Path, calls: list[tuple[str, Callable[[Any], Any]]], repeat: int = 3) -> list[tuple[str, float, float]]:
    """(label, best wall seconds, CPU seconds of that run) per call on one connection, uncached,
    after a warm-up (Parquet metadata, OS cache)."""
    from analytics.lake import open_lake

    con = open_lake(lake)
    results = []
    for label, fn in calls:
        fn(con)
        best, cpu = float("inf"), 0.0
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            fn(con)
            wall = time.perf_counter() - t0
            if wall < best:
                best, cpu = wall, time.process_time() - c0
        results.append((label, best, cpu))
    return results


def time_integrity(lake: Path) -> list[tuple[str, float, float]]:
    """The Integrity page's read of the published tables (None: the lake has none)."""
    from analytics.integrity import published

    return time_calls(lake, [("integrity: published tables", lambda c: published(lake))])


def time_pages(lake: Path, s: Samples, repeat: int = 2) -> list[tuple[str, float]]:
    """(label, best wall seconds) of drawing each page end to end (its queries, every chart and
    table) with Streamlit's AppTest on the lake, every cache cleared before each run: what a user
    waits for on a page's first view."""
    import logging

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["PAIJU_LAKE"] = str(lake)
    app = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
    out = []
    for label, page, params, widgets in pages(s):
        best = float("inf")
        for attempt in range(repeat + 1):
            for name in list(logging.root.manager.loggerDict):  # AppTest's bare-mode warnings, once a run
                if name.startswith("streamlit"):
                    logging.getLogger(name).setLevel(logging.ERROR)
            at = AppTest.from_file(app, default_timeout=120)
            at.run()
            if page is not None:
                at.switch_page(page)
                for k, v in params.items():
                    at.query_params[k] = v
                at.run()
            for kind, key, value in widgets:
                getattr(at, kind)(key=key).set_value(value)
            st.cache_data.clear()
            for fn in _resource_caches():
                fn.clear()
            t0 = time.perf_counter()
            at.run()
            wall = time.perf_counter() - t0
            if at.exception or [e for e in at.error if "could not" in e.value]:
                raise RuntimeError(f"page {label} failed: {[e.value for e in at.exception] or [e.value for e in at.error]}")
            if attempt:  # the first run warms the Parquet metadata and the OS cache
                best = min(best, wall)
        out.append((label, best))
    return out


def _resource_caches() -> list[Any]:
    """The per-query resource caches (not the lake connection: the dashboard keeps it open)."""
    from dashboard import finder

    return [finder._player, finder._found]


def big_lake(source: str, matches: int, events_per_match: int) -> Path:
    """The cached big lake of `source` (built on first use)."""
    if source == "real":
        from bench.queries import big_lake as real_lake

        lake = real_lake(matches)
        from analytics.integrity import table_paths

        if table_paths(lake) is None:
            from ingest.integrity_tables import publish_tables
            from ingest.store import read_manifest

            publish_tables(lake, read_manifest(lake))
        return lake
    import hashlib

    from bench._data import _COLUMNS, _FROM, CACHE, synthetic_lake
    from ingest.schema import REGISTRY

    digest = hashlib.sha256(repr((REGISTRY, _COLUMNS, _FROM)).encode()).hexdigest()[:10]
    lake = CACHE / f"synthetic-{matches}-{events_per_match}-{digest}"
    if not (lake / "manifest.json").exists():
        shutil.rmtree(lake, ignore_errors=True)
        synthetic_lake(lake, matches, events_per_match=events_per_match)
    return lake


def _print(rows: list[tuple[str, float, float]], width: int) -> None:
    for label, secs, cpu in rows:
        flag = "  SLOW" if secs >= LIMIT_S else ""
        print(f"{label:<{width}}  {secs * 1000:8.1f} ms  {cpu * 1000:8.1f} ms{flag}")


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--source", choices=("synthetic", "real"), default="synthetic")
    ap.add_argument("--events-per-match", type=int, default=12, help="synthetic lake only")
    ap.add_argument("--lake", help="a big lake to use instead (built synthetically there if it has no manifest)")
    ap.add_argument("--no-pages", action="store_true", help="time the queries only")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.lake:
        lake = Path(args.lake)
        if not (lake / "manifest.json").exists():
            from bench._data import synthetic_lake

            synthetic_lake(lake, args.matches, events_per_match=args.events_per_match)
    else:
        lake = big_lake(args.source, args.matches, args.events_per_match)
    from analytics.lake import open_lake

    n = open_lake(lake).execute("SELECT count(*) FROM matches").fetchone()[0]
    print(f"lake {lake}: {n:,} matches, ready in {time.perf_counter() - t0:.1f} s")
    s = samples(lake)
    stats = time_calls(lake, dashboard_queries(s))
    finder = time_calls(lake, search_queries(s)) + time_integrity(lake)
    width = max(len(r[0]) for r in stats + finder)
    print(f"{'query (uncached, best of 3)':<{width}}  {'wall':>11}  {'cpu':>11}   load average {_load()} on {os.cpu_count()} cores")
    _print(stats, width)
    print(f"{'-- Search, Player, Replay look-ups, Integrity':<{width}}")
    _print(finder, width)
    drawn = [] if args.no_pages else time_pages(lake, s)
    if drawn:
        print(f"{'page (drawn end to end, caches cleared)':<{width}}  {'wall':>11}   load average {_load()}")
        for label, secs in drawn:
            print(f"{label:<{width}}  {secs * 1000:8.1f} ms{'  SLOW' if secs >= LIMIT_S else ''}")
    timed = [(label, secs) for label, secs, _ in stats + finder] + drawn
    slow = [t for t in timed if t[1] >= LIMIT_S]
    worst = max(timed, key=lambda t: t[1])
    worst_cpu = max(stats + finder, key=lambda r: r[2])
    print(json.dumps({
        "matches": n, "timed": len(timed), "worst": worst[0], "worst_ms": round(worst[1] * 1000, 1),
        "worst_cpu": worst_cpu[0], "worst_cpu_ms": round(worst_cpu[2] * 1000, 1), "over_1s": [t[0] for t in slow],
        "load_average": _load(),
    }))  # fmt: skip
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
