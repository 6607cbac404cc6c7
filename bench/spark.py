"""Spark against the local engine on the same data: ingest (replay + tables) and simulation.

Run: `.venv/bin/python bench/spark.py [--small N] [--large N] [--games ddz,hongzhong] [--master local[2]]`.

For each engine and each of two sizes (simulated matches of every available game, round robin)
it times a full `ingest` into a fresh lake and the replay step alone (`Summary.seconds`), then
`paiju simulate` of the large size. The per-match cost of an engine is the slope between the two
sizes, (t_large - t_small) / (n_large - n_small); its fixed cost is what remains at zero matches.
The overhead per match is that slope minus the bare `build_tables` cost per match in this process
divided by the cores the engine uses (2 here), i.e. what the engine adds per match on top of the
replay itself. The Spark session start is reported on its own (paid once per process).
Absolute times on a shared machine are noise; compare ratios from the same run.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

if __name__ == "__main__":  # run as a script: bench/ingest.py must not shadow the ingest package
    import sys

    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine.registry import available_games
from engine.sim.simulate import simulate_lines
from ingest.pipeline import ingest
from ingest.tables import build_tables


def _data(root: Path, games: list[str], n: int) -> Path:
    per = math.ceil(n / len(games))
    texts: list[str] = []
    for g in games:
        texts.extend(simulate_lines(g, None, per, seed=11, workers=2))
    path = root / f"logs-{n}.jsonl"
    path.write_text("".join(texts[:n]), encoding="utf-8")
    return path


def _bare_build(lake: Path) -> float:
    """Seconds of `build_tables` over every stored event of the lake, in this process (one core)."""
    files = sorted((lake / "events").rglob("*.parquet"))
    events = pa.concat_tables([pq.read_table(f, columns=["match_id", "seq", "line"]) for f in files])
    t0 = time.perf_counter()
    build_tables(events)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=300)
    ap.add_argument("--large", type=int, default=1500)
    ap.add_argument("--games", default=None, help="comma-separated game ids (default: every available game)")
    ap.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[2]"))
    ap.add_argument("--cores", type=int, default=2, help="cores each engine uses (for the overhead figure)")
    args = ap.parse_args()
    from engine.sim.spark import SparkUnavailable, require_spark

    try:
        require_spark()
    except SparkUnavailable as e:
        print(f"bench/spark.py: skipped: {e}")
        return
    games = args.games.split(",") if args.games else available_games()
    root = Path(tempfile.mkdtemp(prefix="paiju-bench-spark-"))
    try:
        logs = {n: _data(root, games, n) for n in (args.small, args.large)}
        from engine.sim.spark import get_session, write_simulation_spark
        from ingest.spark import SparkReplayer

        t0 = time.perf_counter()
        spark = get_session(args.master, app="paiju-bench")
        spark.range(1).count()  # the JVM and a first job
        session_s = time.perf_counter() - t0
        replayer = SparkReplayer(spark)
        rows: dict[tuple[str, int], tuple[float, float, int, int]] = {}
        bare: dict[int, float] = {}
        for n, path in logs.items():
            for engine in ("local", "spark"):
                lake = root / f"lake-{engine}-{n}"
                t0 = time.perf_counter()
                s = ingest([str(path)], lake, workers=args.cores, replayer=replayer if engine == "spark" else None)
                wall = time.perf_counter() - t0
                rows[engine, n] = (wall, s.seconds.get("replay", float("nan")), s.matches, s.events)
                if engine == "local":
                    bare[n] = _bare_build(lake)
        print(f"games: {', '.join(games)}; Spark master {args.master}; session start {session_s:.1f} s (once)")
        print(f"{'engine':<7}{'matches':>9}{'events':>9}{'ingest s':>10}{'replay s':>10}{'ms/match':>10}")
        for (engine, _n), (wall, rep, m, ev) in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            print(f"{engine:<7}{m:>9}{ev:>9}{wall:>10.2f}{rep:>10.2f}{1000 * wall / max(1, m):>10.2f}")
        dn = args.large - args.small
        bare_pm = (bare[args.large] - bare[args.small]) / dn if dn else float("nan")
        print(f"bare build_tables: {1000 * bare[args.large] / args.large:.2f} ms/match on one core")
        for what, k in (("ingest", 0), ("replay step", 1)):
            ratio = rows["spark", args.large][k] / rows["local", args.large][k]
            print(f"{what}: spark / local = {ratio:.2f} at {args.large} matches, "
                  f"{rows['spark', args.small][k] / rows['local', args.small][k]:.2f} at {args.small}")  # fmt: skip
        for engine in ("local", "spark"):
            slope = (rows[engine, args.large][1] - rows[engine, args.small][1]) / dn
            fixed = rows[engine, args.small][1] - slope * args.small
            print(f"{engine}: replay {1000 * slope:.2f} ms per match + {fixed:.2f} s fixed; "
                  f"overhead {1000 * (slope - bare_pm / args.cores):.2f} ms per match over bare replay on {args.cores} cores")  # fmt: skip
        # simulation: the same bytes, timed
        g = games[0]
        a, b = root / "sim-local.jsonl", root / "sim-spark.jsonl"
        from engine.sim.simulate import write_simulation

        t0 = time.perf_counter()
        write_simulation(str(a), g, None, args.large, 3, workers=args.cores)
        t_local = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_simulation_spark(str(b), g, None, args.large, 3, spark=spark)
        t_spark = time.perf_counter() - t0
        same = a.read_bytes() == b.read_bytes()
        print(f"simulate {args.large} {g}: local {t_local:.2f} s ({1000 * t_local / args.large:.2f} ms/match), "
              f"spark {t_spark:.2f} s ({1000 * t_spark / args.large:.2f} ms/match), ratio {t_spark / t_local:.2f}, "
              f"identical bytes: {same}")  # fmt: skip
        spark.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
