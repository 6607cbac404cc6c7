"""The Replay page per step on the longest simulated xueliu match, and the Search / Player queries on
a lake of a million matches: each must answer in under 1 s (issue 16).

    .venv/bin/python bench/replay_page.py [--matches 300] [--steps 40] [--search-matches 1000000]

1. `paiju simulate --game sichuan_xueliu --matches N --seed 1` (a real process); the longest match
   is ingested into a fresh lake.
2. Baseline, in the same process: the bare engine replay of that match (parse every line, then
   `engine.replay.replay_with_steps`), best of 3.
3. The Replay page under Streamlit's AppTest (the real script, the real lake): the first open (the
   replay, the dispute report and the timeline, uncached), then `--steps` steps: forward with the
   button, jumps through the timeline, the seat view switched on and off. Each step's wall time is
   one script run; printed with its ratio to the baseline.
4. The Search and Player pages' queries (bench/dashboard.py's `search_queries`) on its big lake
   of `--search-matches` matches (`--source synthetic` or `real`; cached under /tmp/paiju-bench),
   best of 3 after a warm-up; the id, name and game searched are taken from the lake.
Every figure is printed, then: exit 1 if a step or a query took 1 s or more. The load average is
printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LIMIT_S = 1.0
APP = str(ROOT / "dashboard" / "app.py")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def longest_xueliu(matches: int, out: Path) -> tuple[str, list[str]]:
    """Simulate with the command line; the longest match's id and its lines."""
    log = out / "xueliu.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "paiju.py"), "simulate", "--game", "sichuan_xueliu", "--matches", str(matches),
         "--seed", "1", "--workers", "2", "--out", str(log)],
        check=True, stdout=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    lines = log.read_text(encoding="utf-8").splitlines()
    counts = Counter(json.loads(x)["match_id"] for x in lines)
    mid, _ = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return mid, [x for x in lines if json.loads(x)["match_id"] == mid]


def baseline(lines: list[str]) -> float:
    """The bare engine replay of the match (parse + fold), best of 3."""
    from engine.replay import replay_with_steps
    from events.codec import parse_line

    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        replay_with_steps([parse_line(x) for x in lines])
        best = min(best, time.perf_counter() - t)
    return best


def page_steps(lake: Path, mid: str, n_lines: int, steps: int) -> tuple[float, list[tuple[str, float]]]:
    """The first open of the page, then (action, seconds) per step."""
    from streamlit.testing.v1 import AppTest

    os.environ["PAIJU_LAKE"] = str(lake)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/replay.py")
    at.query_params["match"] = mid
    t = time.perf_counter()
    at.run()
    first = time.perf_counter() - t
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    rng = random.Random(16)
    out: list[tuple[str, float]] = []
    for i in range(steps):
        kind = ("forward", "jump", "forward", "seat")[i % 4]
        t = time.perf_counter()
        if kind == "forward":
            at.button(key="forward").click().run()
        elif kind == "jump":
            at.radio(key="replay_timeline").set_value(rng.randrange(n_lines)).run()
        else:
            seat = at.selectbox(key="replay_seat")
            seat.set_value(-1 if seat.value != -1 else rng.randrange(4)).run()
        out.append((kind, time.perf_counter() - t))
        if at.exception:
            raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    return first, out


def time_search(lake: Path) -> list[tuple[str, float, float]]:
    """bench/dashboard.py's Search / Player / Replay look-ups on `lake`: (label, wall, CPU) seconds."""
    from bench.dashboard import samples, search_queries, time_calls

    return time_calls(lake, search_queries(samples(lake)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=300, help="xueliu matches to simulate (default 300)")
    ap.add_argument("--steps", type=int, default=40, help="page steps to time (default 40)")
    ap.add_argument("--search-matches", type=int, default=1_000_000, help="matches in the search lake (0: skip)")
    ap.add_argument("--source", choices=("synthetic", "real"), default="synthetic", help="the search lake (bench/dashboard.py)")
    args = ap.parse_args(argv)
    from ingest.pipeline import ingest

    bad = False
    with tempfile.TemporaryDirectory(prefix="paiju-replay-bench-") as tmp:
        mid, lines = longest_xueliu(args.matches, Path(tmp))
        (Path(tmp) / "one.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        lake = Path(tmp) / "lake"
        ingest([str(Path(tmp) / "one.jsonl")], lake, workers=0)
        base = baseline(lines)
        first, steps = page_steps(lake, mid, len(lines), args.steps)
    times = [s for _, s in steps]
    worst = max(times)
    print(f"longest of {args.matches} simulated sichuan_xueliu matches: {mid}, {len(lines)} events (load average {_load()})")
    print(f"baseline: bare engine replay (parse + replay_with_steps), best of 3: {base * 1000:.1f} ms")
    print(f"replay page, first open (replay + dispute report + timeline, uncached): {first * 1000:.1f} ms "
          f"= {first / base:.2f} x baseline")  # fmt: skip
    for kind in ("forward", "jump", "seat"):
        ks = [s for k, s in steps if k == kind]
        if ks:
            print(f"replay page, {kind:7s} step: median {statistics.median(ks) * 1000:.1f} ms, max {max(ks) * 1000:.1f} ms "
                  f"({len(ks)} runs; max = {max(ks) / base:.2f} x baseline)")  # fmt: skip
    print(f"replay page, every step: max {worst * 1000:.1f} ms {'OK' if worst < LIMIT_S else 'OVER 1 s'}")
    bad |= worst >= LIMIT_S or first >= LIMIT_S * 3
    if args.search_matches:
        from bench.dashboard import big_lake

        slake = big_lake(args.source, args.search_matches, 12)
        from analytics.lake import open_lake

        n = open_lake(slake).execute("SELECT count(*) FROM matches").fetchone()[0]
        print(f"\nsearch queries on {n:,} matches ({slake}); load average {_load()}")
        for label, wall, cpu in time_search(slake):
            flag = "OK" if wall < LIMIT_S else "OVER 1 s"
            print(f"  {label:40s} {wall * 1000:8.1f} ms wall  {cpu * 1000:8.1f} ms cpu  {flag}")
            bad |= wall >= LIMIT_S
    print(f"load average after: {_load()}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
