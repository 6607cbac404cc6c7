"""Referee benchmark (loopback only, bounded): events/s and latency of `paiju serve` at 1, 100 and
1,000 concurrent matches, beside the in-process reducer cost per event measured in the same run.

    .venv/bin/python bench/referee.py [--seconds 6] [--levels 1,100,1000] [--batch 16]

One `paiju serve` process (no publisher: `--publish-every 0`, no rate limit) on 127.0.0.1; the
load generator is this process, a minimal HTTP/1.1 keep-alive client on asyncio streams (httpx
would cost more CPU than the server on a 2-core machine). Each concurrent match sends its
simulated events in order, one request per event, and waits for each answer (as a game server
does); a slot whose match ended starts the next one; a level runs `--seconds`
(1,000 matches share 200 keep-alive connections, as a game server multiplexes its tables). Printed per level:
events/s (wall), p50/p99 latency of a request, the server process's CPU time per event (from
/proc, so the client's CPU is not counted), the events/s one core would give at that cost
(1e6 / server µs per event: the ceiling when the machine is shared), and its ratio to the bare
reducer's cost per event:
- bare reducer: `engine.replay.replay` over the same matches in this process (the full fold:
  validation of nothing, parse excluded, the chain linked as the logs carry hashes);
- live fold: `referee.live.LiveMatch.offer` + `turn_phase` per event (what the service runs per
  event besides HTTP, JSON parse and the journal).
A last level sends NDJSON batches of `--batch` events per request at the highest concurrency.
Goals (issue 19): ≥ 5,000 events/s on one core, p99 < 10 ms at 1,000 matches, service ≤ 3× reducer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")


def _matches(n: int, seed: int) -> list[list]:
    from engine.sim.simulate import simulate_match

    return [simulate_match(GAMES[i % len(GAMES)], None, seed, i, prefix=f"bench{seed}") for i in range(n)]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def reducer_costs(matches: list[list]) -> tuple[float, float, int]:
    """(µs per event of the bare fold, µs per event of the live fold, events)."""
    from engine.replay import replay
    from referee.live import LiveMatch

    n = sum(len(m) for m in matches)
    t = time.process_time()
    for m in matches:
        replay(m)
    bare = (time.process_time() - t) / n * 1e6
    t = time.process_time()
    for m in matches:
        live = LiveMatch(m[0].match_id, "-")
        for e in m:
            live.offer(e)
            live.turn_phase()
    return bare, (time.process_time() - t) / n * 1e6, n


def _requests(events: list, batch: int) -> list[tuple[bytes, int]]:
    """Pre-encoded HTTP requests (bytes, events in it) for one match."""
    from events.codec import event_to_json

    mid = events[0].match_id
    out = []
    lines = [event_to_json(e).encode() for e in events]
    step = max(1, batch)
    for k in range(0, len(lines), step):
        chunk = lines[k:k + step]
        body = chunk[0] if batch <= 1 else b"".join(x + b"\n" for x in chunk)
        ctype = b"application/json" if batch <= 1 else b"application/x-ndjson"
        head = (b"POST /v1/matches/" + mid.encode() + b"/events HTTP/1.1\r\nHost: bench\r\nContent-Type: " + ctype
                + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n")  # fmt: skip
        out.append((head + body, len(chunk)))
    return out


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, req: bytes) -> bytes:
    writer.write(req)
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    return await reader.readexactly(length)


async def run_level(port: int, matches: list[list], seconds: float, batch: int, slots: int) -> dict[str, float]:
    """`slots` matches in flight at once, each slot taking the next match when its match ends."""
    conns = min(slots, 200)
    pool: asyncio.Queue = asyncio.Queue()
    for _ in range(conns):
        pool.put_nowait(await asyncio.open_connection("127.0.0.1", port))
    todo: asyncio.Queue = asyncio.Queue()
    for m in matches:  # requests encoded before the clock starts: the client's work is not the server's latency
        todo.put_nowait(_requests(m, batch))
    latencies: list[float] = []
    done_events = 0
    refused = 0
    stop_at = time.perf_counter() + seconds

    async def slot() -> None:
        nonlocal done_events, refused
        while not todo.empty() and time.perf_counter() < stop_at:
            for req, n in todo.get_nowait():
                if time.perf_counter() > stop_at:
                    return
                conn = await pool.get()
                t = time.perf_counter()
                try:
                    body = await _exchange(conn[0], conn[1], req)
                except (asyncio.IncompleteReadError, ConnectionError):  # closed while idle: re-send (a no-op if stored)
                    conn[1].close()
                    conn = await asyncio.open_connection("127.0.0.1", port)
                    body = await _exchange(conn[0], conn[1], req)
                latencies.append(time.perf_counter() - t)
                pool.put_nowait(conn)
                refused += body.count(b'"accepted":false')
                done_events += n

    t0 = time.perf_counter()
    await asyncio.gather(*(slot() for _ in range(slots)))
    wall = time.perf_counter() - t0
    while not pool.empty():
        _, w = pool.get_nowait()
        w.close()
    latencies.sort()
    return {"events": done_events, "requests": len(latencies), "wall": wall, "refused": refused,
            "p50_ms": latencies[len(latencies) // 2] * 1e3, "p99_ms": latencies[int(len(latencies) * 0.99)] * 1e3}  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=6.0, help="at most this long per level (default 6)")
    p.add_argument("--levels", default="1,100,1000", help="concurrent matches per level (default 1,100,1000)")
    p.add_argument("--batch", type=int, default=16, help="events per request in the last, batched level (default 16)")
    p.add_argument("--seed", type=int, default=None, help="simulation seed (default: random, so match ids are new)")
    args = p.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    top = max(levels)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    t = time.perf_counter()
    sets = {}
    for k, lv in enumerate(levels):  # enough matches that a slot never runs dry within --seconds
        sets[lv] = _matches(max(lv, 60), seed * 10 + k)
    batch_set = _matches(max(top, 60), seed * 10 + len(levels))
    print(f"simulated {sum(len(v) for v in sets.values()) + len(batch_set)} matches in {time.perf_counter() - t:.1f} s")
    bare, live, n = reducer_costs(sets[top])
    print(f"in-process, same run: bare reducer (engine.replay.replay) {bare:.1f} µs/event; "
          f"live fold (LiveMatch.offer + turn_phase) {live:.1f} µs/event; over {n} events of {len(sets[top])} matches")
    tmp = Path(tempfile.mkdtemp(prefix="paiju-bench-referee-"))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(ROOT / "paiju.py"), "serve", "--lake", str(tmp / "lake"), "--port", str(port),
                             "--journal", str(tmp / "journal"), "--publish-every", "0", "--rate", "0"],
                            env=env, stderr=subprocess.PIPE)  # fmt: skip
    try:
        import httpx

        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("the referee did not start")
            time.sleep(0.1)
        # warm-up: one match of every game, so that no level pays a game module's first import
        asyncio.run(run_level(port, _matches(len(GAMES), seed * 10 + 99), 60, 1, len(GAMES)))
        print(f"{'matches':>8} {'batch':>5} {'events':>7} {'events/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'server µs/ev':>12} {'1-core ev/s':>11} {'× bare':>6} {'× live':>6} {'refused':>7} {'load':>5}")  # fmt: skip
        runs = [(lv, sets[lv], 1) for lv in levels] + [(top, batch_set, args.batch)]
        for lv, ms, b in runs:
            c0 = _cpu_seconds(proc.pid)
            r = asyncio.run(run_level(port, ms, args.seconds, b, lv))
            cpu = _cpu_seconds(proc.pid) - c0
            per = cpu / max(r["events"], 1) * 1e6
            print(f"{lv:>8} {b:>5} {r['events']:>7} {r['events'] / r['wall']:>9.0f} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} "
                  f"{per:>12.1f} {1e6 / per:>11.0f} {per / bare:>6.2f} {per / live:>6.2f} {r['refused']:>7} {os.getloadavg()[0]:>5.2f}")  # fmt: skip
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        fs = [ln for ln in metrics.splitlines() if ln.startswith("paiju_referee_journal_fsyncs")]
        acc = [ln for ln in metrics.splitlines() if ln.startswith('paiju_referee_events_total{code="",result="accepted"}')]
        print("server:", "; ".join(fs + acc))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(json.dumps({"bare_us": round(bare, 1), "live_us": round(live, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
