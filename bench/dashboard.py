"""Every dashboard chart's query on a lake of 1 million matches: each must answer in under 1 s.

    .venv/bin/python bench/dashboard.py [--matches 1000000] [--source real|synthetic] [--lake DIR]

Two big lakes:
- `real` (default): the ingest engineer's builder, `bench/queries.py:big_lake` — the simulated base
  log of every game ingested for real, its derived rows replicated under new ids up to `--matches`
  (real distributions; events only for the base matches).
- `synthetic`: `build_big_lake` here writes a schema-exact lake (ingest.schema's columns and types,
  hive-partitioned events, a published manifest) straight from DuckDB, with wider cardinalities:
  40 000 players, several rule sets per game, a few per cent invalid / mismatched / broken matches,
  and `--events-per-match` stored events for EVERY match (so the replay look-up searches a big
  events table).
The lake opens through `analytics.lake` exactly as the dashboard opens it; each query of
`analytics.queries` that a page runs is timed uncached (best of 3 after a warm-up), for all games and
for one game, with the CPU time of the best run beside its wall time (the machine is shared, so
wall time inflates with the load average; CPU time does not). Then every statistics page is drawn end to end under Streamlit's AppTest with the query cache
cleared (`time_pages`: its queries, the rule-set names, every chart and table). Exit 1 if any wall
time is ≥ 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LIMIT_S = 1.0
MIN_N = 30  # the pages' default minimum sample
PAGES = (
    ("overview", None, {}),
    ("winrates", "views/winrates.py", {}),
    ("winrates by player", "views/winrates.py", {"wr_by": "player"}),
    ("winrates ddz by seat", "views/winrates.py", {"wr_game": "ddz", "wr_by": "seat"}),
    ("fans", "views/fans.py", {}),
    ("fans sichuan_xuezhan", "views/fans.py", {"fans_game": "sichuan_xuezhan"}),
    ("quality", "views/quality.py", {}),
    ("glossary", "views/glossary.py", {}),
)
"""(label, page file, widget values) of every statistics page drawn end to end by `time_pages`."""
GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")
FANS = ("ping_hu", "zi_mo", "gen", "qing_yi_se", "dui_dui_hu", "qi_dui", "gang_shang_hua", "hai_di", "jin_gou_diao")


def _games_sql() -> str:
    return "[" + ", ".join(f"'{g}'" for g in GAMES) + "]"


def _fans_sql() -> str:
    return "[" + ", ".join(f"'{f}'" for f in FANS) + "]"


def build_big_lake(root: Path, matches: int = 1_000_000, events_per_match: int = 12) -> Path:
    """Write a synthetic lake of `matches` matches under `root`; return its path."""
    import duckdb

    from ingest.schema import TABLES
    from ingest.store import MANIFEST, Manifest

    root.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    g = _games_sql()
    # one row per match; h0..h3 are independent pseudo-random draws in 0..9999
    con.execute(f"""
        CREATE TEMP TABLE m AS
        SELECT i, 'bench-' || lpad(i::VARCHAR, 7, '0') AS match_id,
               {g}[1 + i % 8] AS game, i % 8 AS gi,
               CASE WHEN i % 8 < 3 THEN 3 ELSE 4 END AS n,
               (hash(i, 1) % 10000)::BIGINT AS h0, (hash(i, 2) % 10000)::BIGINT AS h1,
               (hash(i, 3) % 10000)::BIGINT AS h2, (hash(i, 4) % 10000)::BIGINT AS h3
        FROM range({matches}) t(i)""")
    con.execute("""
        CREATE TEMP TABLE mm AS
        SELECT *, CASE WHEN h0 < 9700 THEN 'finished' WHEN h0 < 9900 THEN 'incomplete' ELSE 'invalid' END AS status,
               (h1 % n)::TINYINT AS dealer, (h2 % n)::TINYINT AS winner,
               (1 << (h3 % 4))::BIGINT AS unit, (gi >= 4 AND h1 < 600) AS draw,
               game || '-r' || (h2 % 3)::VARCHAR AS rules_id,
               CASE WHEN gi >= 4 THEN ['standard', 'chengdu', 'mianzhu'][1 + h2 % 3] ELSE 'standard' END AS preset,
               '2026-' || lpad((1 + i % 12)::VARCHAR, 2, '0') || '-' || lpad((1 + (i // 12) % 28)::VARCHAR, 2, '0') AS date
        FROM m""")
    out: dict[str, list[str]] = {t: [] for t in TABLES}

    def write(table: str, select: str) -> None:
        path = root / table / "part-0.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 122880)")
        out[table].append(f"{table}/part-0.parquet")

    write("matches", """
        SELECT match_id, game, rules_id, preset, status, n::TINYINT AS n_players, dealer, 1::BIGINT AS base,
               NULL::VARCHAR AS room, 1 AS round, (20 + h3 % 80)::INTEGER AS events,
               CASE WHEN status = 'invalid' THEN (2 + h1 % 30)::BIGINT END AS error_seq,
               CASE WHEN status = 'invalid' THEN 'play' END AS error_type,
               CASE WHEN status = 'invalid' THEN ['does_not_beat', 'not_your_turn', 'not_in_hand', 'bad_hash'][1 + h2 % 4] END AS error_code,
               CASE WHEN status = 'invalid' THEN 'synthetic refusal for the benchmark' END AS error_message,
               CASE WHEN status = 'finished' AND NOT draw THEN [winner] ELSE []::TINYINT[] END AS winners,
               CASE WHEN status = 'finished' AND NOT draw THEN 1 ELSE 0 END::TINYINT AS n_winners,
               status = 'finished' AND draw AS is_draw,
               CASE WHEN status = 'finished' THEN list_transform(range(n), lambda s: CASE WHEN draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END) END AS deltas,
               CASE WHEN status = 'finished' THEN list_transform(range(n), lambda s: CASE WHEN draw THEN 0 WHEN s = winner THEN (n - 1) * unit + (CASE WHEN h1 < 10 THEN 1 ELSE 0 END) ELSE -unit END) END AS recorded_deltas,
               CASE WHEN status = 'finished' THEN h1 >= 10 END AS settlement_matches,
               h2 >= 10 AS chain_ok, lpad(to_hex(hash(i, 9)), 64, '0') AS final_hash,
               (n - 1) * unit AS max_delta, CASE WHEN gi < 2 THEN winner END::TINYINT AS landlord,
               date, date || 'T10:00:00Z' AS started_ts, date || 'T10:20:00Z' AS ended_ts
        FROM mm ORDER BY match_id""")  # fmt: skip
    write("seats", """
        SELECT match_id, game, rules_id, status, s::TINYINT AS seat, 'p' || lpad((hash(i, s) % 40000)::VARCHAR, 5, '0') AS player,
               CASE WHEN gi < 2 THEN (CASE WHEN s = winner THEN 'landlord' ELSE 'farmer' END)
                    ELSE (CASE WHEN s = dealer THEN 'dealer' ELSE 'player' END) END AS role,
               s = dealer AS is_dealer,
               CASE WHEN status <> 'finished' OR draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END::BIGINT AS delta,
               status = 'finished' AND NOT draw AND s = winner AS won,
               CASE WHEN status <> 'finished' OR draw THEN 0 WHEN s = winner THEN (n - 1) * unit ELSE -unit END::BIGINT AS recorded_delta
        FROM mm, range(n) r(s) ORDER BY match_id, seat""")  # fmt: skip
    write("items", """
        SELECT match_id, game, rules_id, (p - 1)::INTEGER AS item_no,
               CASE WHEN gi >= 4 THEN 'hu_zimo' WHEN gi < 2 THEN 'landlord_win' ELSE 'win' END AS kind,
               winner AS seat, ((winner + p) % n)::TINYINT AS from_seat, unit AS points,
               CASE WHEN gi >= 4 THEN (h3 % 5)::INTEGER END AS fan, CASE WHEN gi >= 4 THEN 0 END::INTEGER AS win_no,
               NULL::VARCHAR AS detail
        FROM mm, range(1, 4) r(p) WHERE status = 'finished' AND NOT draw AND p < n ORDER BY match_id, item_no""")  # fmt: skip
    write("fans", f"""
        SELECT match_id, game, rules_id, 0 AS win_no, winner AS seat, 'hu_zimo' AS kind,
               {_fans_sql()}[CASE WHEN k = 0 THEN 1 ELSE 2 + (hash(i, 20 + k) % {len(FANS) - 1})::BIGINT END] AS fan_id,
               (CASE WHEN k = 0 THEN 1 ELSE 1 + (hash(i, 30 + k) % 3)::BIGINT END)::INTEGER AS value, (h3 % 5)::INTEGER AS fan_total
        FROM mm, range(0, 3) r(k) WHERE gi >= 4 AND status = 'finished' AND NOT draw AND k <= h2 % 3
        ORDER BY match_id""")  # fmt: skip
    write(
        "rules",
        """
        SELECT DISTINCT rules_id, game, preset, '{"preset": "' || preset || '"}' AS options FROM mm""",
    )
    write("rejects", """
        SELECT 'sha' || (i % 50)::VARCHAR AS file_sha, 'log' || (i % 50)::VARCHAR || '.jsonl' AS file_name,
               i::BIGINT AS line, match_id, (h1 % 40)::BIGINT AS seq,
               ['bad_json', 'bad_field', 'conflict', 'unknown_type'][1 + h2 % 4] AS code,
               'synthetic reject for the benchmark' AS message, '{"match_id": "x"}' AS raw
        FROM mm WHERE h0 % 100 = 7""")  # fmt: skip
    write("files", """
        SELECT 'sha' || i::VARCHAR AS file_sha, 'log' || i::VARCHAR || '.jsonl' AS file_name,
               1000000::BIGINT AS bytes, 20000::BIGINT AS lines, 20000::BIGINT AS events, 0::BIGINT AS rejected
        FROM range(50) t(i)""")  # fmt: skip
    # events: hive-partitioned like ingest writes them (game=/date= folders, no game/date columns)
    ev_dir = root / "events"
    con.execute(f"""
        COPY (
            SELECT match_id, e::BIGINT AS seq, CASE WHEN e = 0 THEN 'match_started' WHEN e = 1 THEN 'dealt' ELSE 'play' END AS type,
                   (e % n)::TINYINT AS seat, date || 'T10:00:00Z' AS ts, NULL::VARCHAR AS hash, to_hex(hash(i, e)) AS canon,
                   '{{"match_id":"' || match_id || '","seq":' || e::VARCHAR || ',"type":"pass","seat":' || (e % n)::VARCHAR || '}}' AS line,
                   'sha0' AS file_sha, (i * {events_per_match} + e)::BIGINT AS file_line, game, substr(date, 1, 7) AS date
            FROM mm, range({events_per_match}) r(e) ORDER BY game, date, match_id, seq
        ) TO '{ev_dir}' (FORMAT parquet, PARTITION_BY (game, date), ROW_GROUP_SIZE 122880)""")  # fmt: skip
    out["events"] = sorted(str(p.relative_to(root)) for p in ev_dir.rglob("*.parquet"))
    con.close()
    m = Manifest(generation=1, tables=out)
    (root / MANIFEST).write_text(m.to_json(), encoding="utf-8")
    return root


def dashboard_queries(
    sample_match: str, sample_player: str, with_events: str
) -> list[tuple[str, Callable[[Any], Any]]]:
    """(label, function(connection)) for every query a dashboard page runs, all games and one game."""
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
        ("replay: find_matches(id)", lambda c: q.find_matches(c, sample_match)),
        ("replay: find_matches(player)", lambda c: q.find_matches(c, sample_player)),
        ("replay: match_lines", lambda c: q.match_lines(c, with_events)),
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


def time_queries(
    lake: Path, sample_match: str, sample_player: str, with_events: str, repeat: int = 3
) -> list[tuple[str, float, float, int]]:
    """(label, best wall seconds, CPU seconds of that run, rows) per dashboard query, uncached.

    The CPU time (all DuckDB threads) is reported beside the wall time because the benchmark
    machine is shared: wall time inflates under load, CPU time does not.
    """
    from analytics.lake import open_lake

    con = open_lake(lake)
    results = []
    for label, fn in dashboard_queries(sample_match, sample_player, with_events):
        rows = len(fn(con))  # warm-up: Parquet metadata, OS cache
        best, cpu = float("inf"), 0.0
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            fn(con)
            wall = time.perf_counter() - t0
            if wall < best:
                best, cpu = wall, time.process_time() - c0
        results.append((label, best, cpu, rows))
    return results


def time_pages(lake: Path, repeat: int = 2) -> list[tuple[str, float]]:
    """(label, best wall seconds) of drawing each statistics page end to end (its queries, the
    rule-set naming, every chart and table) with Streamlit's AppTest on the lake, the query cache
    cleared before each run: what an analyst waits for on a page's first view."""
    import logging

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["PAIJU_LAKE"] = str(lake)
    app = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
    out = []
    for label, page, widgets in PAGES:
        best = float("inf")
        for attempt in range(repeat + 1):
            for name in list(logging.root.manager.loggerDict):  # AppTest's bare-mode warnings, once a run
                if name.startswith("streamlit"):
                    logging.getLogger(name).setLevel(logging.ERROR)
            at = AppTest.from_file(app, default_timeout=120)
            at.run()
            if page is not None:
                at.switch_page(page)
                at.run()
            for key, value in widgets.items():
                w = at.selectbox(key=key) if key.endswith("_game") else at.radio(key=key)
                w.set_value(value)
            st.cache_data.clear()  # the lake connection stays open, every query runs again
            t0 = time.perf_counter()
            at.run()
            wall = time.perf_counter() - t0
            if at.exception or [e for e in at.error if "could not" in e.value]:
                raise RuntimeError(f"page {label} failed: {[e.value for e in at.exception] or at.error}")
            if attempt:  # the first run warms the Parquet metadata and the OS cache
                best = min(best, wall)
        out.append((label, best))
    return out


def _samples(lake: Path) -> tuple[str, str, str]:
    """A match id in the middle of the lake, one of its players, and a match id with stored events."""
    from analytics.lake import open_lake

    con = open_lake(lake)
    n = con.execute("SELECT count(*) FROM matches").fetchone()[0]
    mid = con.execute("SELECT match_id FROM matches ORDER BY match_id LIMIT 1 OFFSET ?", [n // 2]).fetchone()[0]
    player = con.execute("SELECT player FROM seats WHERE match_id = ? LIMIT 1", [mid]).fetchone()
    ev = con.execute("SELECT match_id FROM events ORDER BY match_id LIMIT 1").fetchone()
    return mid, player[0] if player else "p00", ev[0] if ev else mid


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument(
        "--source",
        choices=("real", "synthetic"),
        default="real",
        help="real: bench/queries.py's lake (simulated matches ingested, then replicated; the ingest "
        "engineer's builder, cached under /tmp/paiju-bench); synthetic: build_big_lake here",
    )
    ap.add_argument("--events-per-match", type=int, default=12, help="synthetic lake only")
    ap.add_argument("--lake", help="a big lake to use (built synthetically there if it has no manifest)")
    ap.add_argument("--keep", action="store_true", help="keep the synthetic lake built in a temporary folder")
    args = ap.parse_args(argv)
    tmp = None
    t0 = time.perf_counter()
    if args.lake:
        lake = Path(args.lake)
        if not (lake / "manifest.json").exists():
            build_big_lake(lake, args.matches, args.events_per_match)
    elif args.source == "real":
        from bench.queries import big_lake

        lake = big_lake(args.matches)
    else:
        tmp = Path(tempfile.mkdtemp(prefix="paiju-bench-dash-"))
        lake = build_big_lake(tmp / "lake", args.matches, args.events_per_match)
    try:
        print(f"lake {lake} ready in {time.perf_counter() - t0:.1f} s")
        mid, player, with_events = _samples(lake)
        results = time_queries(lake, mid, player, with_events)
        width = max(len(r[0]) for r in results)
        slow = [r for r in results if r[1] >= LIMIT_S]
        load = os.getloadavg()[0]
        print(
            f"{'query':<{width}}  {'wall':>11}  {'cpu':>11}  rows   (load average {load:.1f} on {os.cpu_count()} cores)"
        )
        for label, secs, cpu, rows in results:
            flag = "  SLOW" if secs >= LIMIT_S else ""
            print(f"{label:<{width}}  {secs * 1000:8.1f} ms  {cpu * 1000:8.1f} ms  {rows:>7}{flag}")
        pages = time_pages(lake)
        print(f"{'page (drawn end to end, uncached)':<{width}}  {'wall':>11}")
        for label, secs in pages:
            print(f"{label:<{width}}  {secs * 1000:8.1f} ms{'  SLOW' if secs >= LIMIT_S else ''}")
        slow += [(label, secs, 0.0, 0) for label, secs in pages if secs >= LIMIT_S]
        worst = max(results, key=lambda r: r[1])
        worst_cpu = max(results, key=lambda r: r[2])
        from analytics.lake import open_lake

        n = open_lake(lake).execute("SELECT count(*) FROM matches").fetchone()[0]
        summary = {
            "matches": n,
            "queries": len(results),
            "worst": worst[0],
            "worst_ms": round(worst[1] * 1000, 1),
            "worst_cpu": worst_cpu[0],
            "worst_cpu_ms": round(worst_cpu[2] * 1000, 1),
            "worst_page": max(pages, key=lambda p: p[1])[0],
            "worst_page_ms": round(max(p[1] for p in pages) * 1000, 1),
            "over_1s": len(slow),
            "load_average": round(load, 1),
        }
        print(json.dumps(summary))
        return 1 if slow else 0
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
