"""The referee in operation: `kill -9` under load then a restart, schemathesis over the generated
OpenAPI document, and nginx routing by match id in front of two referees (real processes, loopback).

Expected values: what the client saw acknowledged (recorded before the kill), the full fold of
`engine.replay.replay` over the simulator's events, and which referee holds a match by asking both.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from engine.replay import replay
from engine.sim.simulate import simulate_match
from referee.client import AsyncRefereeClient, RefereeClient
from referee.journal import read_records
from tests.test_referee import TOKENS, env, free_port, start_server, wait_published

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
SCHEMATHESIS = shutil.which("schemathesis") or str(Path(sys.executable).parent / "schemathesis")


def _matches(n: int) -> list[list]:
    games = ("ddz", "hongzhong", "zhajinhua", "sichuan_xuezhan")
    return [simulate_match(games[i % len(games)], None, seed=41, index=i) for i in range(n)]


def test_kill_9_under_load_then_restart_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    s = start_server(tmp_path, publish_every="0.5")
    matches = _matches(24)
    acked: dict[str, int] = {}  # match id → highest seq the referee acknowledged as accepted
    kill_after = 80  # acknowledged events: the kill comes while all 24 matches are in flight, however slow the machine

    async def load() -> None:
        async with AsyncRefereeClient(s.url, TOKENS[0], connections=24, timeout=5) as c:
            n = 0

            async def play(events: list) -> None:
                nonlocal n
                for e in events:
                    try:
                        a = await c.send(e)
                    except Exception:  # the referee died under us: whatever was not answered is unacknowledged
                        return
                    assert a["accepted"], a
                    acked[e.match_id] = e.seq
                    n += 1
                    if n == kill_after:
                        s.proc.send_signal(signal.SIGKILL)

            await asyncio.gather(*(play(m) for m in matches))

    asyncio.run(load())
    assert s.proc.wait(timeout=30) == -signal.SIGKILL
    assert acked and sum(acked.values()) < sum(len(m) - 1 for m in matches), "the kill came after the load ended"
    # the journal holds every acknowledged event exactly once
    seen = Counter()
    for _, rec in read_records(s.journal / "journal.log"):
        if rec.accepted:
            d = json.loads(rec.line)
            seen[(d["match_id"], d["seq"])] += 1
    assert max(seen.values()) == 1
    for mid, seq in acked.items():
        assert all(seen[(mid, k)] == 1 for k in range(seq + 1)), mid
    # a restart rebuilds every match from the journal: the acknowledged events are there
    again = start_server(tmp_path, port=s.port, journal=s.journal, publish_every="0.3")
    try:
        with RefereeClient(again.url, TOKENS[0]) as ref:
            for events in matches:
                mid = events[0].match_id
                if mid in acked:
                    assert ref.match(mid)["next_seq"] >= acked[mid] + 1, mid
                # the game server re-sends what it does not know was stored: safe, no duplicates
                answers = ref.send_batch(mid, events)
                assert all(a["accepted"] for a in answers), [a for a in answers if not a["accepted"]][:1]
                assert {k: v for k, v in ref.match(mid).items() if k not in ("next_seq", "view")} == replay(events).to_dict()
        # and the lake holds each event once, every match finished
        want = [(len(matches), sum(len(m) for m in matches), sum(len(m) for m in matches))]
        got = wait_published(again.lake, "SELECT count(DISTINCT match_id), count(*), count(DISTINCT (match_id, seq)) FROM events",
                             [], want, timeout=60)  # fmt: skip
        assert got == want
        got = wait_published(again.lake, "SELECT status, count(*) FROM matches GROUP BY status", [], [("finished", len(matches))])
        assert got == [("finished", len(matches))]
    finally:
        again.stop()


def test_schemathesis_finds_no_server_error(tmp_path: Path) -> None:
    """Bounded: 15 generated cases per operation plus schemathesis' coverage phase, fixed seed."""
    s = start_server(tmp_path, "--rate", "0", publish_every="0")
    try:
        out = subprocess.run(
            [SCHEMATHESIS, "run", f"{s.url}/openapi.json", "--checks", "not_a_server_error", "-n", "15", "--seed", "19",
             "--generation-database", "none", "-H", f"Authorization: Bearer {TOKENS[0]}", "--request-timeout", "10"],
            env=env(), capture_output=True, text=True, timeout=170, check=False, cwd=tmp_path,
        )  # fmt: skip
        assert out.returncode == 0, out.stdout[-3000:]
        assert "passed" in out.stdout and "failed" not in out.stdout.split("SUMMARY")[-1]
        assert httpx.get(s.url + "/healthz").json()["status"] == "ok"
    finally:
        assert s.stop() == 0
    assert "Traceback" not in s.stderr()


def _nginx_conf(tmp: Path, port: int, upstreams: list[int]) -> Path:
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in upstreams)
    conf = tmp / "nginx.conf"
    conf.write_text(f"""{user}
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 512; }}
http {{
  access_log {tmp}/nginx-access.log;
  client_body_temp_path {tmp}/nginx-body;
  proxy_temp_path {tmp}/nginx-proxy;
  fastcgi_temp_path {tmp}/nginx-fastcgi;
  uwsgi_temp_path {tmp}/nginx-uwsgi;
  scgi_temp_path {tmp}/nginx-scgi;
  client_max_body_size 8m;
  map $uri $match_id {{
    ~^/v1/matches/(?<mid>[^/]+) $mid;
    default "";
  }}
  upstream referees {{
    hash $match_id consistent;
{servers}
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://referees;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_next_upstream off;
    }}
  }}
}}
""", encoding="utf-8")
    return conf


@pytest.mark.nginx
@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (Debian package nginx)")
def test_nginx_routes_each_match_to_one_of_two_referees(tmp_path: Path) -> None:
    a = start_server(tmp_path, publish_every="0")
    b = start_server(tmp_path, publish_every="0")
    port = free_port()
    conf = _nginx_conf(tmp_path, port, [a.port, b.port])
    assert NGINX is not None
    ng = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "nginx-error.log")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert ng.poll() is None, ng.stderr.read().decode() if ng.stderr else ""
            assert time.monotonic() < deadline, "nginx did not come up"
            time.sleep(0.1)
        games = ("ddz", "paodekuai", "hongzhong", "anshun")
        matches = [simulate_match(games[i % 4], None, seed=77, index=i) for i in range(16)]
        with RefereeClient(url, TOKENS[0]) as via:
            for events in matches:
                half = len(events) // 2
                assert all(x["accepted"] for x in [via.send(e) for e in events[:half]])  # one request per event
                assert all(x["accepted"] for x in via.send_batch(events[0].match_id, events[half:]))
                res = via.match(events[0].match_id)
                assert {k: v for k, v in res.items() if k not in ("next_seq", "view")} == replay(events).to_dict()
        # each match lives on exactly one referee, and both referees got matches
        holders: dict[str, list[int]] = {}
        for server in (a, b):
            with server.client() as direct:
                for events in matches:
                    r = direct.http.get(f"/v1/matches/{events[0].match_id}")
                    if r.status_code == 200:
                        holders.setdefault(events[0].match_id, []).append(server.port)
        assert sorted(holders) == sorted(m[0].match_id for m in matches)
        assert all(len(v) == 1 for v in holders.values())
        assert {v[0] for v in holders.values()} == {a.port, b.port}
        # failover: referee a dies; its matches answer 502 (never routed to b), b's carry on;
        # a referee on a's journal and address brings them back as they were
        on_a = next(m for m, v in holders.items() if v == [a.port])
        on_b = next(m for m, v in holders.items() if v == [b.port])
        before = RefereeClient(url, TOKENS[0]).match(on_a)
        a.stop(signal.SIGKILL)
        h = {"Authorization": f"Bearer {TOKENS[0]}"}
        assert httpx.get(f"{url}/v1/matches/{on_a}", headers=h).status_code == 502
        assert httpx.post(f"{url}/v1/matches/{on_a}/events", headers=h, content=b"{}").status_code == 502
        assert httpx.get(f"{url}/v1/matches/{on_b}", headers=h).status_code == 200
        a = start_server(tmp_path, port=a.port, journal=a.journal, publish_every="0")
        deadline = time.monotonic() + 20
        while httpx.get(f"{url}/v1/matches/{on_a}", headers=h).status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert httpx.get(f"{url}/v1/matches/{on_a}", headers=h).json() == before
    finally:
        ng.send_signal(signal.SIGQUIT)
        ng.wait(timeout=30)
        for server in (a, b):
            server.stop()
