"""Query benchmark: every named query of analytics.queries on a lake of at least 1 million matches.

    .venv/bin/python bench/queries.py [--matches 1000000] [--repeat 3]

The big lake is built synthetically, to keep it fast: the simulated base log (bench/_data.py) is
ingested for real, then the rows of its derived tables (matches, seats, items, fans) are
replicated under new match ids (`<id>.r<k>`) with DuckDB until there are at least `--matches`
matches; rules, rejects, files and events are the base lake's (events are not replicated: the
per-match event look-up is timed on the real ones). Cached under /tmp/paiju-bench.
Each query is timed on a fresh in-memory connection (analytics.lake.open_lake): cold = first
run, warm = best of the repeats. Goal: each under 1 s.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._data import CACHE, base_log  # noqa: E402


def base_lake() -> Path:
    from ingest.pipeline import ingest

    lake = CACHE / "qlake-base"
    if not (lake / "manifest.json").exists():
        shutil.rmtree(lake, ignore_errors=True)
        ingest([str(base_log())], lake, workers=2)
    return lake


def big_lake(matches: int) -> Path:
    import duckdb

    from ingest import store
    from ingest.schema import DERIVED

    base = base_lake()
    lake = CACHE / f"qlake-{matches}"
    if (lake / "manifest.json").exists():
        return lake
    shutil.rmtree(lake, ignore_errors=True)
    lake.mkdir(parents=True)
    m = store.read_manifest(base)
    con = duckdb.connect()
    n_base = con.execute(f"SELECT count(*) FROM read_parquet({store.table_files(base, m, 'matches')!r})").fetchone()[0]
    copies = -(-matches // n_base)
    new = store.Manifest(1, {t: [] for t in m.tables}, dict(m.raw))
    for t, files in m.tables.items():
        if t in DERIVED:
            rel = f"{t}/part-big.parquet"
            (lake / t).mkdir(parents=True, exist_ok=True)
            con.execute(
                f"COPY (SELECT * REPLACE (match_id || '.r' || k AS match_id) FROM read_parquet({store.table_files(base, m, t)!r}),"
                f" range({copies}) r(k) ORDER BY k, match_id) TO '{lake / rel}' (FORMAT parquet, COMPRESSION zstd)"
            )
            new.tables[t] = [rel]
        else:
            for f in files:
                (lake / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(base / f, lake / f)
            new.tables[t] = list(files)
    store.write_manifest(lake, new)
    return lake


def main() -> None:
    from analytics import queries as q
    from analytics.lake import open_lake

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    t = time.perf_counter()
    lake = big_lake(args.matches)
    con = open_lake(lake)
    sizes = {tb: con.execute(f"SELECT count(*) FROM {tb}").fetchone()[0] for tb in ("matches", "seats", "items", "fans", "events")}
    print(f"lake {lake} ready in {time.perf_counter() - t:.1f} s: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    some = con.execute("SELECT match_id, game FROM matches ORDER BY match_id DESC LIMIT 1").fetchone()
    stored = con.execute("SELECT match_id FROM events LIMIT 1").fetchone()[0]
    player = con.execute("SELECT player FROM seats LIMIT 1").fetchone()[0]
    cases = [(name, f, {}) for name, f in q.QUERIES.items()]
    cases += [(f"{name} --game {some[1]}", f, {"game": some[1]}) for name, f in q.QUERIES.items() if name != "reject_codes"]
    for name in ("activity", "rule_sets", "invalid_matches", "settlement_mismatches", "broken_chains", "rejects",
                 "in_progress"):
        f = getattr(q, name, None)  # the dashboard's named queries
        if f is not None:
            cases.append((f"{name} (dashboard)", f, {}))
    cases += [
        ("find_matches (id)", lambda c, **_: q.find_matches(c, some[0]), {}),
        ("find_matches (player)", lambda c, **_: q.find_matches(c, player), {}),
        ("match_events", lambda c, **_: q.match_events(c, stored), {}),
    ]
    worst = 0.0
    print(f"{'query':52s} {'cold s':>8s} {'warm s':>8s} {'rows':>7s}")
    for name, f, kw in cases:
        c = open_lake(lake)
        t0 = time.perf_counter()
        out = f(c, **kw)
        cold = time.perf_counter() - t0
        warm = cold
        for _ in range(args.repeat - 1):
            t0 = time.perf_counter()
            f(c, **kw)
            warm = min(warm, time.perf_counter() - t0)
        worst = max(worst, cold)
        print(f"{name:52s} {cold:8.3f} {warm:8.3f} {len(out):7d}")
    print(f"slowest (cold): {worst:.3f} s (goal: each < 1 s); machine load {Path('/proc/loadavg').read_text().split()[0]}")


if __name__ == "__main__":
    main()
