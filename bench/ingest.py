"""Ingest benchmark: events/s of a full `paiju ingest` vs a bare JSON parse of the same file.

    .venv/bin/python bench/ingest.py [--events 1000000] [--workers 2] [--parts | --instructions [--root TREE]]

Prints, for a log of at least `--events` events (simulated, see bench/_data.py, cached in /tmp):
- bare JSON parse: `json.loads` of every line in one process (the floor any ingest pays);
- full ingest (store raw, parse + validate, dedup/conflicts, write events, replay every match,
  write every table, publish) in a fresh lake, events/s of wall time;
- their ratio (goal ≥ 0.25) and the peak memory (max RSS) of the ingest, measured for a quarter
  of the log and for the whole of it (bounded: it should not grow with the input);
- the CPU cost per event on one core of a bare parse, of the ingest's parse step and of the
  parse step with the replay, and the ratio's ceiling they imply (W workers, nothing else paid);
- the parse step's CPU per event by part (`parse_parts`; `--parts` prints only that).
Each ingest runs in its own process so that its peak memory is its own.

`--instructions` counts instead the instructions per event of a parse worker's job with the
speculative replay (`parse_job`, what the workers do for every chunk) by valgrind's cachegrind:
(a run over the first 30,000 lines − a run over the first 10,000) / 20,000, so imports, the
first chunk's lazy tables and the start-up cancel out. Exact on a loaded machine; `--root`
names the tree whose code is counted (default: this one), e.g. a checkout of the baseline.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._data import CACHE, bench_log  # noqa: E402

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from ingest.pipeline import ingest
t = time.perf_counter()
s = ingest([{path!r}], {lake!r}, workers={workers})
dt = time.perf_counter() - t
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": dt, "events": s.events, "matches": s.matches, "statuses": dict(s.statuses),
                  "steps": {{k: round(v, 1) for k, v in s.seconds.items()}},
                  "rss_main_kb": me, "rss_worker_kb": kids, "rejected": s.rejected}}))
"""


def bare_parse(path: Path) -> tuple[float, int]:
    n = 0
    t = time.perf_counter()
    with open(path, "rb") as f:
        for line in f:
            json.loads(line)
            n += 1
    return time.perf_counter() - t, n


def per_event_cpu(path: Path, lines: int = 50_000) -> tuple[float, float, float]:
    """CPU µs per event on one core, for the first `lines` lines, of: a bare `json.loads`; the
    ingest's parse step without replay (contract validation, canonical digest, Parquet); the
    parse step with the replay of every whole match (what the ingest's workers do)."""
    import itertools

    from ingest.parse import split_lines
    from ingest.pipeline import _chunks, parse_job

    got = list(itertools.islice(split_lines(str(path)), lines))
    chunks = list(_chunks(iter(got), 5000))
    out = tempfile.mkdtemp(prefix="cpu-", dir=CACHE)
    try:
        c = time.process_time()
        for _, raw, _ in got:
            json.loads(raw)  # type: ignore[arg-type]
        bare = time.process_time() - c
        for chunk in chunks[:2]:  # imports, lazy tables, first validations
            parse_job("bench", "bench.jsonl", 0, 0, chunk, out, True)
        timed = []
        for speculate in (False, True):
            c = time.process_time()
            for k, chunk in enumerate(chunks):
                parse_job("bench", "bench.jsonl", 0, k, chunk, out, speculate)
            timed.append(time.process_time() - c)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    n = len(got) / 1e6
    return bare / n, timed[0] / n, timed[1] / n


def parse_parts(path: Path, lines: int = 50_000) -> dict[str, float]:
    """CPU µs per event on one core, for the first `lines` lines, of each part of a parse worker's
    job (`ingest.pipeline.parse_job` with the speculative replay), each the best of 3 runs:
    `parse_line` (decode + validate), the `canon` digest (canonical JSON + SHA-256, memoised for
    the chain link), the rows as Arrow (`parse_chunk_events` less the two before), the Parquet
    files (`parse_job` without replay less `parse_chunk_events`), the replay (`engine.replay`
    with the states kept), the derived tables' rows (`build_rows` less the replay) and the
    integrity facts (`build_rows` with facts less without)."""
    import itertools

    from events import chain
    from events.codec import gc_paused
    from ingest.parse import canon_of, parse_chunk_events, parse_fast, split_lines
    from ingest.pipeline import _chunks, parse_job
    from ingest.tables import _replay, build_rows

    got = list(itertools.islice(split_lines(str(path)), lines))
    chunks = list(_chunks(iter(got), 5000))
    groups = []
    for chunk in chunks:
        by: dict[str, list] = {}
        for ev in parse_chunk_events("bench", "bench.jsonl", chunk)[2]:
            by.setdefault(ev.match_id, []).append(ev)
        groups.append(sorted(by.items()))
    out = tempfile.mkdtemp(prefix="cpu-", dir=CACHE)

    def best(fn) -> float:
        times = []
        for _ in range(3):
            c = time.process_time()
            fn()
            times.append(time.process_time() - c)
        return min(times) / len(got) * 1e6

    def decode() -> None:
        with gc_paused():
            for _, raw, _ in got:
                parse_fast(raw)  # type: ignore[arg-type]

    def digest() -> None:
        with gc_paused(), chain.remembering():
            for _, raw, _ in got:
                canon_of(parse_fast(raw))  # type: ignore[arg-type]

    def rows() -> None:
        with chain.remembering():
            for chunk in chunks:
                parse_chunk_events("bench", "bench.jsonl", chunk)

    def job(speculate: bool):
        return lambda: [parse_job("bench", "bench.jsonl", 0, k, c, out, speculate) for k, c in enumerate(chunks)]

    def replay() -> None:
        for g in groups:
            for mid, evs in g:
                _replay(mid, list(evs), keep=True)

    def built(facts: bool):
        return lambda: [build_rows(g, facts=facts) for g in groups]

    try:
        job(True)()  # imports, lazy tables
        t = {k: best(f) for k, f in (("parse_line", decode), ("digest", digest), ("rows", rows), ("job", job(False)),
                                     ("replay", replay), ("tables", built(False)), ("facts", built(True)),
                                     ("job+replay", job(True)))}  # fmt: skip
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"parse_line": t["parse_line"], "canon digest": t["digest"] - t["parse_line"],
            "rows (Arrow)": t["rows"] - t["digest"], "Parquet": t["job"] - t["rows"], "replay": t["replay"],
            "table rows": t["tables"] - t["replay"], "integrity facts": t["facts"] - t["tables"],
            "whole job": t["job+replay"]}  # fmt: skip


def _job_child(path: Path, lines: int) -> None:
    """The child `--instructions` counts: parse_job with speculation over the first `lines` lines
    (after one warm-up chunk), in chunks of 5,000 as the ingest makes them."""
    import itertools

    from ingest.parse import split_lines
    from ingest.pipeline import _chunks, parse_job

    got = list(itertools.islice(split_lines(str(path)), lines))
    out = tempfile.mkdtemp(prefix="cg-", dir=CACHE)
    try:
        parse_job("bench", "bench.jsonl", 0, 0, got[:5000], out, True)
        for k, chunk in enumerate(_chunks(iter(got), 5000)):
            parse_job("bench", "bench.jsonl", 0, k, chunk, out, True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _count_job(root: str, events: int, lines: int) -> int:
    """Instructions (cachegrind `I refs`) of `_job_child` over `lines` lines, code from `root`."""
    import os

    env = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", sys.executable,
           str(Path(__file__).resolve()), "--root", root, "--events", str(events), "--child-job", str(lines)]  # fmt: skip
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    line = next(x for x in res.stderr.splitlines() if "I   refs:" in x or "I refs:" in x)
    return int(line.rsplit(":", 1)[1].replace(",", ""))


def job_instructions(root: str, events: int, lo: int = 10_000, hi: int = 30_000) -> float:
    """Instructions per event of a parse worker's job with replay, lines `lo`..`hi` of the log."""
    return (_count_job(root, events, hi) - _count_job(root, events, lo)) / (hi - lo)


def run_ingest(path: Path, workers: int) -> dict:
    lake = Path(tempfile.mkdtemp(prefix="lake-", dir=CACHE))
    try:
        code = _CHILD.format(root=str(ROOT), path=str(path), lake=str(lake), workers=workers)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(lake, ignore_errors=True)


def subset(path: Path, events: int) -> Path:
    """The first `events` lines, cut at a match boundary (cached)."""
    out = path.with_name(f"{path.stem}-first{events}.jsonl")
    if out.exists():
        return out
    with open(path, "rb") as f, open(out, "wb") as g:
        last = None
        for i, line in enumerate(f):
            mid = json.loads(line)["match_id"]
            if i >= events and mid != last:
                break
            g.write(line)
            last = mid
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--parts", action="store_true", help="only the CPU per event of the parse step's parts")
    ap.add_argument("--instructions", action="store_true", help="instructions per event of a worker's job (valgrind)")
    ap.add_argument("--root", default=str(ROOT), help="with --instructions: the tree whose code is counted")
    ap.add_argument("--child-job", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_job:
        sys.path.insert(0, str(Path(args.root).resolve()))
        path, _ = bench_log(args.events)
        _job_child(path, args.child_job)
        return
    path, n = bench_log(args.events)
    if args.instructions:
        root = str(Path(args.root).resolve())
        print(f"code under test: {root}; log {path}; load average {Path('/proc/loadavg').read_text().split()[0]}")
        print(f"instructions per event of a parse worker's job with replay (lines 10,000-30,000): "
              f"{job_instructions(root, args.events):,.0f}")  # fmt: skip
        return
    if args.parts:
        print("; ".join(f"{k} {v:.1f} µs" for k, v in parse_parts(path).items()))
        return
    print(f"log: {path} ({n} events, {path.stat().st_size / 1e6:.1f} MB)")
    t_parse, _ = bare_parse(path)
    parse_rate = n / t_parse
    print(f"bare JSON parse : {t_parse:8.2f} s  {parse_rate:12,.0f} events/s")
    quarter = subset(path, n // 4)
    small = run_ingest(quarter, args.workers)
    full = run_ingest(path, args.workers)
    if full["events"] < n * 0.99:
        raise SystemExit(
            f"only {full['events']} of {n} events were stored ({full['rejected']} rejected): not a benchmark"
        )
    rate = full["events"] / full["seconds"]
    print(f"full ingest     : {full['seconds']:8.2f} s  {rate:12,.0f} events/s "
          f"({full['matches']} matches replayed: {full['statuses']}, workers={args.workers})")  # fmt: skip
    print(f"  seconds per step: {full['steps']}; rejected lines: {full['rejected']}")
    print(f"ratio ingest / bare parse: {rate / parse_rate:.3f} (goal >= 0.25)")
    bare_us, parse_us, replay_us = per_event_cpu(path)
    print(
        f"CPU per event, one core, first 50,000 lines: bare json.loads {bare_us:.1f} µs; parse step "
        f"(validate, digest, Parquet) {parse_us:.1f} µs; parse + replay {replay_us:.1f} µs"
    )
    parts = parse_parts(path)
    print("CPU per event of a parse worker's job by part, µs (best of 3, first 50,000 lines): "
          + "; ".join(f"{k} {v:.1f}" for k, v in parts.items()))  # fmt: skip
    print(
        f"ceiling of the ratio with {args.workers} workers and no other cost: "
        f"{args.workers} x {bare_us:.1f} / {replay_us:.1f} = {args.workers * bare_us / replay_us:.3f}"
    )
    for label, r in (("1/4 of the log", small), ("whole log", full)):
        print(f"peak memory, {label:15s}: main {r['rss_main_kb'] / 1024:7.0f} MB, largest worker "
              f"{r['rss_worker_kb'] / 1024:7.0f} MB ({r['events']} events)")  # fmt: skip
    print(f"machine load average at the end: {Path('/proc/loadavg').read_text().split()[0]} (2 cores shared)")


if __name__ == "__main__":
    main()
