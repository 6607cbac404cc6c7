"""Referee benchmark (loopback only, bounded): `paiju serve` closed-loop and open-loop, beside the
in-process reducer cost per event measured in the same run.

    .venv/bin/python bench/referee.py [--seconds 6] [--levels 1,100,1000] [--rates 1000,2000,5000] [--batch 16]

One `paiju serve` process (no publisher: `--publish-every 0`, no rate limit) on 127.0.0.1. The
load generator is this process: a minimal HTTP/1.1 keep-alive client on asyncio streams (uvloop
when installed), requests encoded before the clock starts, every match bound to one connection
(so its events go in order), 1,000 matches sharing 100 connections as a game server multiplexes
its tables. Server CPU per event is the server process's own CPU time (/proc/PID/stat, user+sys,
the journal's fsync thread included) over the events answered; the client's CPU is printed apart.

In-process, same run (the baselines, µs per event over the same simulated matches):
- bare reducer: `engine.replay.replay` (the whole fold; the logs carry hashes, so the chain too);
- live fold: `referee.live.LiveMatch.offer` + `turn_phase` (one `engine.replay.Fold.step`);
- where the server's µs go besides HTTP: `parse_line`, `Referee.submit` (parse + fold + journal
  buffer + metrics + answer), the answer's JSON. The rest of the server's CPU per event is
  uvicorn/httptools/the event loop/socket calls and the journal's write + fsync.

Closed loop (each match waits for its answer before its next event; a slot whose match ended
starts the next one): throughput at saturation. Its p99 is mostly queueing: with C requests
outstanding, latency ≈ C / throughput, so p99 < 10 ms at 1,000 outstanding needs 100,000
events/s. Routes: `match` (one event a request), `match×B` (NDJSON of B events of one match),
`multi` (`POST /v1/events`: each connection sends the next event of each of its matches in one
request).

Open loop (as wrk2 does, against coordinated omission): each of the matches sends its events at
a fixed pace, the total offered rate `--rates` events/s, staggered; latency is measured from the
event's *scheduled* send time, so time an event waited behind a slow answer counts. Route
`match`: one request per event (a connection busy with one answer delays the next event of its
matches: counted); route `multi`: a connection sends every event due on it in one request.
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
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")
CONNS = 100
"""Keep-alive connections at most (1,000 matches share them)."""


def _matches(n: int, seed: int) -> list[list[Any]]:
    from engine.sim.simulate import simulate_match

    return [simulate_match(GAMES[i % len(GAMES)], None, seed, i, prefix=f"bench{seed}") for i in range(n)]


def _relabel(matches: list[list[Any]], tag: str) -> list[list[bytes]]:
    """The matches as JSON lines under new match ids (`<id>-<tag>`), hash chains recomputed."""
    from events.chain import fill_chain
    from events.codec import event_to_json

    out = []
    for m in matches:
        mid = f"{m[0].match_id}-{tag}"
        out.append([event_to_json(e).encode() for e in fill_chain(e.model_copy(update={"match_id": mid}) for e in m)])
    return out


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


# ---------------------------------------------------------------------- in-process baselines


def reducer_costs(matches: list[list[Any]]) -> dict[str, float]:
    """µs per event: bare fold, live fold, and the referee's per-event work besides HTTP."""
    from engine.replay import replay
    from events.codec import event_to_json, parse_line
    from referee.journal import Journal
    from referee.live import LiveMatch
    from referee.service import Referee

    n = sum(len(m) for m in matches)
    lines = [[event_to_json(e).encode() for e in m] for m in matches]

    def per_event(f: Any) -> float:
        t = time.process_time()
        f()
        return (time.process_time() - t) / n * 1e6

    def live() -> None:
        for m in matches:
            lm = LiveMatch(m[0].match_id, "-")
            for e in m:
                lm.offer(e)
                lm.turn_phase()

    tmp = tempfile.mkdtemp(prefix="paiju-bench-submit-")
    try:
        ref = Referee(Journal(tmp))
        answers: list[dict[str, Any]] = []

        def submit() -> None:
            for m, ls in zip(matches, lines, strict=True):
                mid = m[0].match_id
                for x in ls:
                    answers.append(ref.submit("-", mid, x).body)

        out = {"bare": per_event(lambda: [replay(m) for m in matches]), "live": per_event(live),
               "parse": per_event(lambda: [parse_line(x) for ls in lines for x in ls]), "submit": per_event(submit)}  # fmt: skip
        out["json"] = per_event(lambda: [orjson.dumps(a) for a in answers])
        ref.journal.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# ---------------------------------------------------------------------- the client


def _head(path: bytes, ctype: bytes, body: bytes) -> bytes:
    return (b"POST " + path + b" HTTP/1.1\r\nHost: bench\r\nContent-Type: " + ctype
            + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)  # fmt: skip


def _one(line: bytes) -> bytes:
    """The request for one event on its match's route."""
    mid = json.loads(line)["match_id"].encode()
    return _head(b"/v1/matches/" + mid + b"/events", b"application/json", line)


def _per_match_batches(lines: list[bytes], batch: int) -> list[tuple[bytes, int]]:
    mid = json.loads(lines[0])["match_id"].encode()
    out = []
    for k in range(0, len(lines), batch):
        chunk = lines[k:k + batch]
        out.append((_head(b"/v1/matches/" + mid + b"/events", b"application/x-ndjson", b"".join(x + b"\n" for x in chunk)), len(chunk)))
    return out


def _multi(lines: list[bytes]) -> bytes:
    return _head(b"/v1/events", b"application/x-ndjson", b"".join(x + b"\n" for x in lines))


class Conn:
    """One keep-alive connection: one request at a time, answers read by Content-Length."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> Conn:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def exchange(self, req: bytes) -> bytes:
        for attempt in (0, 1):
            try:
                assert self.reader is not None and self.writer is not None
                self.writer.write(req)
                head = await self.reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                return await self.reader.readexactly(length)
            except (asyncio.IncompleteReadError, ConnectionError):  # closed while idle: re-send (a no-op if stored)
                if attempt:
                    raise
                if self.writer is not None:
                    self.writer.close()
                await self.open()
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _stats(lat: list[float]) -> dict[str, float]:
    lat.sort()
    if not lat:
        return {"p50": float("nan"), "p99": float("nan"), "p999": float("nan"), "max": float("nan")}
    q = lambda f: lat[min(len(lat) - 1, int(len(lat) * f))] * 1e3  # noqa: E731
    return {"p50": q(0.5), "p99": q(0.99), "p999": q(0.999), "max": lat[-1] * 1e3}


async def closed_loop(port: int, matches: list[list[bytes]], seconds: float, slots: int, route: str, batch: int) -> dict[str, Any]:
    """`slots` matches in flight; each waits for its answer; a slot whose match ended takes the next."""
    nconn = min(slots, CONNS)
    conns = [await Conn(port).open() for _ in range(nconn)]
    todo = list(reversed(matches))
    lat: list[float] = []
    done = refused = 0
    stop_at = time.perf_counter() + seconds

    async def per_match_slot(conn_lock: asyncio.Lock, conn: Conn) -> None:
        nonlocal done, refused
        while todo and time.perf_counter() < stop_at:
            ls = todo.pop()
            reqs = [(_one(x), 1) for x in ls] if route == "match" else _per_match_batches(ls, batch)
            for req, n in reqs:
                if time.perf_counter() > stop_at:
                    return
                async with conn_lock:
                    t = time.perf_counter()
                    body = await conn.exchange(req)
                lat.append(time.perf_counter() - t)
                refused += body.count(b'"accepted":false')
                done += n

    async def multi_conn(conn: Conn, k: int) -> None:
        """This connection's share of the slots; each request carries the next event of each."""
        nonlocal done, refused
        mine = [iter(todo.pop()) for _ in range(slots // nconn + (1 if k < slots % nconn else 0)) if todo]
        while mine and time.perf_counter() < stop_at:
            batch_lines = []
            for i, it in enumerate(mine):
                x = next(it, None)
                while x is None and todo:
                    mine[i] = it = iter(todo.pop())
                    x = next(it, None)
                if x is not None:
                    batch_lines.append(x)
            if not batch_lines:
                return
            t = time.perf_counter()
            body = await conn.exchange(_multi(batch_lines))
            lat.append(time.perf_counter() - t)
            refused += body.count(b'"accepted":false')
            done += len(batch_lines)

    t0 = time.perf_counter()
    c0 = time.process_time()
    if route == "multi":
        await asyncio.gather(*(multi_conn(c, k) for k, c in enumerate(conns)))
    else:
        locks = [asyncio.Lock() for _ in conns]
        await asyncio.gather(*(per_match_slot(locks[i % nconn], conns[i % nconn]) for i in range(slots)))
    wall = time.perf_counter() - t0
    client = time.process_time() - c0
    for c in conns:
        c.close()
    return {"events": done, "requests": len(lat), "wall": wall, "refused": refused, "client": client, **_stats(lat)}


async def open_loop(port: int, matches: list[list[bytes]], seconds: float, slots: int, rate: float, route: str) -> dict[str, Any]:
    """`slots` matches at `rate / slots` events/s each (staggered); latency from the scheduled time."""
    nconn = min(slots, CONNS)
    conns = [await Conn(port).open() for _ in range(nconn)]
    per_match = rate / slots
    gap = 1.0 / per_match
    todo = list(reversed(matches))
    # each slot: its matches one after the other, an event every `gap` seconds; slot j starts at j / rate
    plans: list[list[tuple[float, bytes]]] = [[] for _ in conns]
    for j in range(slots):
        t = j / rate
        while t < seconds:
            if not todo:
                raise SystemExit("open loop: too few simulated matches for --seconds at this rate")
            for x in todo.pop():
                if t >= seconds:
                    break
                plans[j % nconn].append((t, x))
                t += gap
    for p in plans:
        p.sort(key=lambda e: e[0])
    lat: list[float] = []
    done = refused = 0

    async def run_conn(conn: Conn, plan: list[tuple[float, bytes]], start: float) -> None:
        nonlocal done, refused
        i = 0
        while i < len(plan):
            due = start + plan[i][0]
            now = time.perf_counter()
            if due > now:
                await asyncio.sleep(due - now)
                now = time.perf_counter()
            if route == "multi":  # everything due on this connection, in one request
                k = i
                while k < len(plan) and start + plan[k][0] <= now:
                    k += 1
                k = max(k, i + 1)
                req, sched = _multi([x for _, x in plan[i:k]]), [start + t for t, _ in plan[i:k]]
                i = k
            else:
                req, sched = _one(plan[i][1]), [due]
                i += 1
            body = await conn.exchange(req)
            t = time.perf_counter()
            lat.extend(t - s for s in sched)
            refused += body.count(b'"accepted":false')
            done += len(sched)

    start = time.perf_counter() + 0.05
    c0 = time.process_time()
    await asyncio.gather(*(run_conn(c, p, start) for c, p in zip(conns, plans, strict=True)))
    wall = time.perf_counter() - start
    client = time.process_time() - c0
    for c in conns:
        c.close()
    return {"events": done, "wall": wall, "refused": refused, "client": client, **_stats(lat)}


NULL_APP = """
import sys, uvicorn
from referee.cli import uvicorn_options
ANSWER = b'{"match_id":"m","seq":0,"accepted":true,"error":null,"status":"incomplete","turn":0,"phase":"bid"}'
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(ANSWER)).encode())]})
    await send({"type": "http.response.body", "body": ANSWER})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), lifespan="off", **uvicorn_options())
"""
"""The HTTP floor: an ASGI app that reads the body and sends a fixed answer, under the referee's uvicorn settings."""


def http_floor(port: int, matches: list[list[bytes]], seconds: float, env: dict[str, str]) -> tuple[dict[str, Any], float]:
    """(closed-loop result, server CPU seconds) of the null app at 100 concurrent matches, one event a request."""
    proc = subprocess.Popen([sys.executable, "-c", NULL_APP, str(port)], env=env)
    try:
        _wait_up(port, proc, "/")
        c0 = _cpu_seconds(proc.pid)
        r = _run(closed_loop(port, matches, seconds, 100, "match", 1))
        return r, _cpu_seconds(proc.pid) - c0
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def fsync_cost(folder: Path, n: int = 300) -> tuple[float, float]:
    """(CPU µs, wall ms) of one 200-byte append + `os.fsync` in `folder` (the journal's file system)."""
    fd = os.open(folder / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        t, c = time.perf_counter(), time.process_time()
        for _ in range(n):
            os.write(fd, b"x" * 200)
            os.fsync(fd)
        return (time.process_time() - c) / n * 1e6, (time.perf_counter() - t) / n * 1e3
    finally:
        os.close(fd)


def _wait_up(port: int, proc: subprocess.Popen[bytes], path: str) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}{path}", timeout=1)
            return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def _run(coro: Any) -> Any:
    try:
        import uvloop

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


def _journal(port: int) -> dict[str, float]:
    """From /metrics: fsyncs, their total seconds, how many took over 50 ms; seconds of full GC pauses."""
    import httpx

    out = {"fsyncs": float("nan"), "sum": float("nan"), "count": float("nan"), "le_0.05": float("nan"), "gc": float("nan")}
    for ln in httpx.get(f"http://127.0.0.1:{port}/metrics").text.splitlines():
        name, _, value = ln.rpartition(" ")
        if name == "paiju_referee_journal_fsyncs":
            out["fsyncs"] = float(value)
        elif name == "paiju_referee_journal_fsync_seconds_sum":
            out["sum"] = float(value)
        elif name == "paiju_referee_journal_fsync_seconds_count":
            out["count"] = float(value)
        elif name == 'paiju_referee_journal_fsync_seconds_bucket{le="0.05"}':
            out["le_0.05"] = float(value)
        elif name == "paiju_referee_gc_full_collection_seconds_sum":
            out["gc"] = float(value)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=6.0, help="at most this long per level (default 6)")
    p.add_argument("--levels", default="1,100,1000", help="closed loop: concurrent matches per level (default 1,100,1000)")
    p.add_argument("--rates", default="1000,2000,5000", help="open loop: total offered events/s over 1,000 matches (default 1000,2000,5000)")
    p.add_argument("--batch", type=int, default=16, help="events per request of the closed-loop `match×B` level (default 16)")
    p.add_argument("--compare", metavar="DIR", help="also run each level against the `paiju serve` of another checkout "
                   "(e.g. the commit before a change), interleaved level by level in this run")
    p.add_argument("--seed", type=int, default=None, help="simulation seed (default: random, so match ids are new)")
    args = p.parse_args()
    levels = [int(x) for x in args.levels.split(",") if x]
    rates = [float(x) for x in args.rates.split(",") if x]
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    top = max(levels)
    slots_open = 1000
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    t = time.perf_counter()
    base = _matches(2000, seed)
    n_ev = sum(len(m) for m in base)
    print(f"simulated {len(base)} matches ({n_ev} events) in {time.perf_counter() - t:.1f} s; each level replays them under new match ids")
    c = reducer_costs(base[:top] if top >= 60 else base[:1000])
    bare, live = c["bare"], c["live"]
    print(f"in-process, same run, µs/event: bare reducer (engine.replay.replay) {bare:.1f}; live fold (LiveMatch.offer + turn_phase) "
          f"{live:.1f}; parse_line {c['parse']:.1f}; Referee.submit (parse + fold + journal buffer + metrics + answer) "
          f"{c['submit']:.1f}; answer JSON {c['json']:.1f}")  # fmt: skip
    tmp = Path(tempfile.mkdtemp(prefix="paiju-bench-referee-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fs_cpu, fs_wall = fsync_cost(tmp)
    floor, floor_cpu = http_floor(_free_port(), _relabel(base, "f"), args.seconds, env)
    floor_us = floor_cpu / max(floor["requests"], 1) * 1e6
    print(f"HTTP floor (a null ASGI app under the same uvicorn, 100 matches closed loop, one event a request): "
          f"{floor['events'] / floor['wall']:.0f} requests/s, server {floor_us:.1f} µs CPU per request, "
          f"p50 {floor['p50']:.2f} ms p99 {floor['p99']:.2f} ms; client {floor['client'] / max(floor['requests'], 1) * 1e6:.1f} µs per request")
    print(f"journal fsync (200-byte append + os.fsync, same file system, in-process): {fs_cpu:.1f} µs CPU, {fs_wall:.2f} ms wall each")
    servers: list[tuple[str, subprocess.Popen[bytes], int]] = []
    tag = iter(range(1000))
    try:
        for label, root in [("now", ROOT)] + ([("before", Path(args.compare).resolve())] if args.compare else []):
            port = _free_port()
            proc = subprocess.Popen([sys.executable, str(root / "paiju.py"), "serve", "--lake", str(tmp / f"lake-{label}"),
                                     "--port", str(port), "--journal", str(tmp / f"journal-{label}"), "--publish-every", "0",
                                     "--rate", "0"], env={**os.environ, "PYTHONPATH": str(root)}, stderr=subprocess.PIPE)  # fmt: skip
            servers.append((label, proc, port))
        for _, proc, port in servers:
            _wait_up(port, proc, "/healthz")
            # warm-up: one match of every game, so that no level pays a game module's first import
            _run(closed_loop(port, _relabel(base[: len(GAMES)], f"w{port}"), 60, len(GAMES), "match", 1))
        import httpx

        multi_ok = {port: "/v1/events" in httpx.get(f"http://127.0.0.1:{port}/openapi.json").json()["paths"] for _, _, port in servers}

        def row(r: dict[str, Any], cpu: float, j0: dict[str, float], j1: dict[str, float]) -> str:
            per = cpu / max(r["events"], 1) * 1e6
            fs = j1["fsyncs"] - j0["fsyncs"]
            n = j1["count"] - j0["count"]
            fs_ms = (j1["sum"] - j0["sum"]) / n * 1e3 if n > 0 else float("nan")
            slow = n - (j1["le_0.05"] - j0["le_0.05"])
            return (f"{r['events']:>7} {r['events'] / r['wall']:>8.0f} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['p999']:>7.2f} "
                    f"{per:>7.1f} {1e6 / per:>7.0f} {per / bare:>6.2f} {per / live:>6.2f} {r['events'] / max(fs, 1):>6.1f} "
                    f"{fs_ms:>6.2f} {slow:>5.0f} {(j1['gc'] - j0['gc']) * 1e3:>6.0f} {r['client'] / max(r['events'], 1) * 1e6:>7.1f} {r['refused']:>4} {_load():>5}")  # fmt: skip

        def level(head: str, route: str, run: Any) -> None:
            for label, proc, port in servers:
                if route == "multi" and not multi_ok[port]:
                    continue
                c0, j0 = _cpu_seconds(proc.pid), _journal(port)
                r = _run(run(port))
                who = f"{label:>6} " if args.compare else ""
                print(f"{who}{head} {route:>9} " + row(r, _cpu_seconds(proc.pid) - c0, j0, _journal(port)), flush=True)

        cols = (f"{'events':>7} {'ev/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'p99.9':>7} {'srv µs':>7} {'1-core':>7} "
                f"{'×bare':>6} {'×live':>6} {'ev/fs':>6} {'fs ms':>6} {'fs>50':>5} {'gc ms':>6} {'cli µs':>7} {'ref':>4} {'load':>5}")  # fmt: skip
        who = f"{'server':>6} " if args.compare else ""
        print("\nclosed loop (each match waits for its answer): saturation; p99 ≈ outstanding / throughput")
        print(f"{who}{'matches':>7} {'route':>9} " + cols)
        runs = [(lv, "match", 1) for lv in levels] + [(top, f"match×{args.batch}", args.batch), (top, "multi", 1)]
        for lv, route, b in runs:
            kind = "multi" if route == "multi" else "match" if b == 1 else "batch"
            level(f"{lv:>7}", route, lambda port, lv=lv, b=b, kind=kind: closed_loop(port, _relabel(base, f"c{next(tag)}"),
                                                                                   args.seconds, lv, kind, b))  # fmt: skip
        print(f"\nopen loop ({slots_open} matches, each at offered/{slots_open} events/s; latency from the scheduled send time)")
        print(f"{who}{'offered':>7} {'route':>9} " + cols)
        for rate in rates:
            for route in ("match", "multi"):
                level(f"{rate:>7.0f}", route, lambda port, rate=rate, route=route: open_loop(
                    port, _relabel(base, f"o{next(tag)}"), args.seconds, slots_open, rate, route))  # fmt: skip
    finally:
        for _, proc, _ in servers:
            proc.send_signal(signal.SIGTERM)
        for _, proc, _ in servers:
            proc.wait(timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
    print("\ncolumns: ev/s achieved (wall); latency per event (closed loop: per request); srv µs = server process CPU per event; "
          "1-core = 1e6 / srv µs; ×bare, ×live = srv µs over the in-process baselines; ev/fs = events per journal fsync; fs ms = mean fsync "
          "wall time in the server, fs>50 = fsyncs over 50 ms (every answer in flight waits for them); "
          "gc ms = the server's full garbage-collection pauses in the level (referee.service.calm_gc); "
          "cli µs = this client's CPU per event; ref = events refused (0 expected)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(json.dumps({"bare_us": round(bare, 1), "live_us": round(live, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
