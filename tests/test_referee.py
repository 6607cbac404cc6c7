"""`paiju serve` as a real process on loopback: every game played through it, every corruption kind
of the conformance suite refused with its code, quarantine as ingest keeps it, tokens, limits.

Expected values come from elsewhere: the settlement from `paiju replay --json` of the same log (a
separate process, the full fold), the codes from the conformance suite's own expectations
(tests/test_conformance.py, frozen here as literals), the quarantine rows of parse-level refusals
from `paiju ingest` of the same lines into a second lake.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.sim.simulate import simulate_match
from events.chain import fill_chain
from events.codec import event_to_json, parse_event
from events.notation import GAME_IDS
from referee.client import RefereeClient

ROOT = Path(__file__).resolve().parents[1]
PAIJU = [sys.executable, str(ROOT / "paiju.py")]
TOKENS = ("tok-alpha-0001", "tok-beta-0002")


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PAIJU_LAKE_GRACE": "0"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    url: str
    lake: Path
    journal: Path
    tokens: Path
    args: list[str]

    def client(self, token: str | None = TOKENS[0]) -> RefereeClient:
        return RefereeClient(self.url, token)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=60)

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace") if self.proc.poll() is not None else ""


def start_server(tmp: Path, *extra: str, port: int | None = None, journal: Path | None = None,
                 lake: Path | None = None, publish_every: str = "0.3") -> Server:  # fmt: skip
    port = port or free_port()
    tokens = tmp / "tokens.txt"
    if not tokens.exists():
        tokens.write_text("# the game servers\n" + "\n".join(TOKENS) + "\n", encoding="utf-8")
    lake = lake or tmp / "lake"
    journal = journal or tmp / f"journal-{port}"
    args = [*PAIJU, "serve", "--lake", str(lake), "--port", str(port), "--tokens", str(tokens),
            "--journal", str(journal), "--publish-every", publish_every, *extra]  # fmt: skip
    proc = subprocess.Popen(args, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"paiju serve exited {proc.returncode}: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("paiju serve did not come up in 30 s")
        time.sleep(0.05)
    return Server(proc, port, url, lake, journal, tokens, args)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One referee for the module's tests (each test uses its own match ids)."""
    s = start_server(tmp_path_factory.mktemp("referee"))
    yield s
    if s.proc.poll() is None:
        s.stop()


def paiju_replay(events: list[Any], tmp: Path) -> dict[str, Any]:
    log = tmp / f"{events[0].match_id}.jsonl"
    log.write_text("".join(event_to_json(e) + "\n" for e in events), encoding="utf-8")
    out = subprocess.run([*PAIJU, "replay", "--json", str(log)], env=env(), capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout.splitlines()[0])


def wait_published(lake: Path, sql: str, params: list[Any], want: Any, timeout: float = 30.0) -> Any:
    from analytics.lake import open_lake

    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        try:
            got = open_lake(lake).execute(sql, params).fetchall()
        except Exception:  # a lake being published for the first time
            got = None
        if got == want:
            return got
        time.sleep(0.2)
    return got


# ---------------------------------------------------------------------- every game, played through the referee


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_event_accepted_and_settlement_equals_paiju_replay(game_id: str, server: Server, tmp_path: Path) -> None:
    with server.client() as ref:
        for index in range(2):
            events = simulate_match(game_id, None, seed=19, index=index)
            if index == 0:  # one request per event, as a game server sends them
                answers = [ref.send(e) for e in events]
            else:  # one NDJSON batch
                answers = ref.send_batch(events[0].match_id, events)
            assert [a["accepted"] for a in answers] == [True] * len(events)
            assert [a["seq"] for a in answers] == list(range(len(events)))
            assert answers[-1]["status"] == "finished" and answers[0]["status"] == "incomplete"
            got = ref.match(events[0].match_id)
            want = paiju_replay(events, tmp_path)
            assert want["status"] == "finished"
            assert {k: got[k] for k in want} == want
            assert got["next_seq"] == len(events)
            assert ref.legal(events[0].match_id)["legal"] == []
            # an identical re-send is a no-op
            again = ref.send(events[3])
            assert again["accepted"] is True and again["error"] is None
            assert ref.match(events[0].match_id)["events"] == len(events)


def test_legal_actions_and_turn_follow_the_match(server: Server) -> None:
    events = simulate_match("ddz", None, seed=2, index=0)
    with server.client() as ref:
        first = ref.send(events[0])
        assert (first["phase"], first["turn"]) == ("dealing", None)
        ref.send(events[1])
        legal = ref.legal(events[0].match_id)
        assert legal["next_seq"] == 2 and legal["turn"] == events[0].dealer
        nxt = {k: v for k, v in events[2].to_dict().items() if k not in ("match_id", "seq", "ts", "hash")}
        assert nxt in legal["legal"]  # the bot's logged bid is one of the legal actions


# ---------------------------------------------------------------------- refusals, as the conformance suite expects them


def _plain(events: list[Any]) -> list[Any]:
    return [parse_event({k: v for k, v in e.to_dict().items() if k != "hash"}) for e in events]


def _lines(events: list[Any]) -> list[str]:
    return [event_to_json(e) for e in events]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_corruption_kind_refused_with_its_code(game_id: str, server: Server) -> None:
    events = simulate_match(game_id, None, seed=5, index=0)
    plain = _plain(events)
    n = len(events)
    mid = plain[0].match_id

    def renamed(evs: list[Any], suffix: str) -> list[Any]:
        return [parse_event({**e.to_dict(), "match_id": mid + suffix}) for e in evs]

    with server.client() as ref:
        # a missing event: seq 4 after seq 2 → seq_gap at 4
        m = renamed(plain, "-gap")
        assert all(a["accepted"] for a in ref.send_batch(m[0].match_id, m[:3]))
        a = ref.send(m[4])
        assert (a["accepted"], a["error"]["code"], a["seq"]) == (False, "seq_gap", 4)
        # an action after the end → after_end at n-1
        m = renamed(plain, "-end")
        assert all(a["accepted"] for a in ref.send_batch(m[0].match_id, m[:-1]))
        a = ref.send({"match_id": m[0].match_id, "seq": n - 1, "type": "forfeit", "seat": 0})
        assert (a["accepted"], a["error"]["code"], a["seq"]) == (False, "after_end", n - 1)
        # a different event at a stored seq → 409 conflict
        r = ref.http.post(f"/v1/matches/{m[0].match_id}/events",
                          content=json.dumps({"match_id": m[0].match_id, "seq": 2, "type": "forfeit", "seat": 0, "reason": "x"}))  # fmt: skip
        assert r.status_code == 409 and r.json()["error"]["code"] == "conflict" and r.json()["seq"] == 2
        # an edited event under a hash chain → bad_hash at 1
        chained = fill_chain(renamed(plain, "-hash"))
        d = chained[1].to_dict()
        d["hands"] = [list(reversed(h)) for h in d["hands"]]
        assert ref.send(chained[0])["accepted"]
        a = ref.send(d)
        assert (a["accepted"], a["error"]["code"], a["seq"]) == (False, "bad_hash", 1)
        # no match_started
        a = ref.send({**plain[1].to_dict(), "match_id": mid + "-nostart"})
        assert a["accepted"] is False and a["error"]["code"] in ("not_started", "seq_gap")
        # an unknown rule option → bad_rules at 0
        a = ref.send({**plain[0].to_dict(), "match_id": mid + "-rules", "rules": {"preset": "standard", "no_such_option": 1}})
        assert (a["accepted"], a["error"]["code"], a["seq"]) == (False, "bad_rules", 0)
        # an impossible deal → bad_deal at 1
        d = {**plain[1].to_dict(), "match_id": mid + "-deal"}
        hand = d["hands"][0]
        every = [t for h in d["hands"] for t in h] + list(d.get("wall") or [])
        hand[1] = hand[0] if game_id in ("ddz", "ddz_laizi", "paodekuai", "zhajinhua") else max(
            sorted(set(every) - {hand[1]}), key=every.count)  # fmt: skip
        assert ref.send({**plain[0].to_dict(), "match_id": mid + "-deal"})["accepted"]
        a = ref.send(d)
        assert (a["accepted"], a["error"]["code"], a["seq"]) == (False, "bad_deal", 1)
        # the refused events changed nothing: the match goes on from where it was
        m = renamed(plain, "-end")
        assert ref.match(m[0].match_id)["next_seq"] == n - 1
        assert ref.send(m[-1])["accepted"] and ref.match(m[0].match_id)["status"] == "finished"


def test_bad_lines_are_422_with_the_contract_code(server: Server) -> None:
    mid = "bad-lines-1"
    started = {k: v for k, v in simulate_match("ddz", None, seed=1, index=0)[0].to_dict().items() if k != "hash"} | {"match_id": mid}
    cases = [
        (b'{"match_id": "bad-lines-1", "seq": 0, "type": ', "bad_json"),
        (b'{"match_id": "bad-lines-1", "seq": 0, "type": "teleport", "seat": 0}', "unknown_type"),
        (json.dumps({**started, "colour": "red"}).encode(), "bad_field"),
        (json.dumps({**started, "match_id": "another-id"}).encode(), "bad_field"),
        (b"[1, 2]", "bad_json"),
        (b'{"match_id": "bad-lines-1", "seq": 0, "seq": 1, "type": "pass", "seat": 0}', "bad_json"),
    ]
    with server.client() as ref:
        for raw, code in cases:
            r = ref.http.post(f"/v1/matches/{mid}/events", content=raw, headers={"Content-Type": "application/json"})
            assert r.status_code == 422, raw
            body = r.json()
            assert body["accepted"] is False and body["error"]["code"] == code and body["match_id"] == mid, raw
            assert "Traceback" not in r.text and str(ROOT) not in r.text
        # a batch: one answer line per line, in order
        body = b"\n".join([cases[0][0], json.dumps(started).encode(), cases[1][0]]) + b"\n"
        r = ref.http.post(f"/v1/matches/{mid}/events", content=body, headers={"Content-Type": "application/x-ndjson"})
        got = [json.loads(x) for x in r.text.splitlines()]
        assert [(a["accepted"], (a["error"] or {}).get("code")) for a in got] == [(False, "bad_json"), (True, None), (False, "unknown_type")]


def test_refusals_are_quarantined_as_ingest_does(server: Server, tmp_path: Path) -> None:
    events = simulate_match("paodekuai", None, seed=3, index=1)
    mid = events[0].match_id
    bad = [b'{"match_id": "%s", "seq": 9, ' % mid.encode(), b'{"match_id": "%s", "seq": 9, "type": "warp"}' % mid.encode()]
    with server.client() as ref:
        answers = ref.send_batch(mid, events)
        assert all(a["accepted"] for a in answers)
        for raw in bad:
            ref.http.post(f"/v1/matches/{mid}/events", content=raw)
        conflict = {"match_id": mid, "seq": 2, "type": "forfeit", "seat": 1}
        assert ref.send(conflict)["error"]["code"] == "conflict"
        late = {"match_id": mid, "seq": len(events), "type": "forfeit", "seat": 1}
        assert ref.send(late)["error"]["code"] == "after_end"
    # in the order sent: by the journal segment (`refused-<start>-<end>.jsonl`, start = its journal
    # offset; a publish under load may split the four refusals over segments), then the line in it
    sql = """SELECT code FROM rejects WHERE match_id = ?
             ORDER BY CAST(split_part(file_name, '-', 2) AS BIGINT), line"""
    got = wait_published(server.lake, sql, [mid], [("bad_json",), ("unknown_type",), ("conflict",), ("after_end",)])
    assert got == [("bad_json",), ("unknown_type",), ("conflict",), ("after_end",)]
    # the accepted events are the lake's events, the match replayed `finished` there
    rows = wait_published(server.lake, "SELECT status, events FROM matches WHERE match_id = ?", [mid], [("finished", len(events))])
    assert rows == [("finished", len(events))]
    # the parse-level refusals carry the code and message `paiju ingest` gives the same lines
    other = tmp_path / "other.jsonl"
    other.write_bytes(b"\n".join(bad) + b"\n")
    subprocess.run([*PAIJU, "ingest", str(other), "--lake", str(tmp_path / "lake2"), "--workers", "0", "--json"],
                   env=env(), check=True, capture_output=True)  # fmt: skip
    from analytics.lake import open_lake

    want = open_lake(tmp_path / "lake2").execute("SELECT match_id, seq, code, message, raw FROM rejects ORDER BY line").fetchall()
    have = open_lake(server.lake).execute(
        "SELECT match_id, seq, code, message, raw FROM rejects WHERE match_id = ? AND code <> 'conflict' AND code <> 'after_end' "
        "ORDER BY CAST(split_part(file_name, '-', 2) AS BIGINT), line",
        [mid]).fetchall()  # fmt: skip
    assert [w[1:] for w in want] == [h[1:] for h in have]  # seq, code, message, raw
    # ingest recovers the match id an unreadable line names (events/codec.py recover_where); the
    # referee takes it from the path: both charge the same match
    assert [w[0] for w in want] == [mid, mid] and [h[0] for h in have] == [mid, mid]


# ---------------------------------------------------------------------- who may see what


def test_a_token_cannot_read_or_write_another_tokens_match(server: Server) -> None:
    events = simulate_match("zhajinhua", None, seed=8, index=0)
    mid = events[0].match_id
    with server.client(TOKENS[0]) as a, server.client(TOKENS[1]) as b:
        assert a.send(events[0])["accepted"]
        for call in (lambda: b.match(mid), lambda: b.legal(mid), lambda: b.send(events[1]), lambda: b.send_batch(mid, events[1:3])):
            with pytest.raises(Exception) as e:
                call()
            assert getattr(e.value, "status", None) == 404
        # b's attempts did not touch the match; a carries on
        assert a.send(events[1])["accepted"] and a.match(mid)["next_seq"] == 2
        # the same id is not b's to start either
        r = b.http.post(f"/v1/matches/{mid}/events", content=event_to_json(events[0]))
        assert r.status_code == 404
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {TOKENS[0]}"}):
        r = httpx.get(f"{server.url}/v1/matches/{mid}", headers=headers)
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        r = httpx.post(f"{server.url}/v1/matches/{mid}/events", content=event_to_json(events[2]), headers=headers)
        assert r.status_code == 401
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_tokens_reloaded_on_sighup(tmp_path: Path) -> None:
    server = start_server(tmp_path, publish_every="0")
    new = "tok-gamma-0003"
    assert httpx.get(f"{server.url}/v1/matches/x1", headers={"Authorization": f"Bearer {new}"}).status_code == 401
    server.tokens.write_text(f"{TOKENS[0]}\n{new}  # a new game server\n", encoding="utf-8")
    server.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while httpx.get(f"{server.url}/v1/matches/x1", headers={"Authorization": f"Bearer {new}"}).status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # the removed token is refused now
    assert httpx.get(f"{server.url}/v1/matches/x1", headers={"Authorization": f"Bearer {TOKENS[1]}"}).status_code == 401
    # a tokens file that became unreadable keeps the tokens in force
    server.tokens.write_text("# nothing\n", encoding="utf-8")
    server.proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert httpx.get(f"{server.url}/v1/matches/x1", headers={"Authorization": f"Bearer {new}"}).status_code == 404
    assert server.stop() == 0


def test_size_and_rate_limits(tmp_path: Path) -> None:
    # a bucket that refills one event every 2 s: 12 requests cannot outrun it on however slow a machine
    s = start_server(tmp_path, "--max-body", "2048", "--rate", "0.5", "--burst", "5")
    try:
        big = json.dumps({"match_id": "m1", "seq": 0, "type": "forfeit", "seat": 0, "reason": "x" * 5000})
        r = httpx.post(f"{s.url}/v1/matches/m1/events", content=big, headers={"Authorization": f"Bearer {TOKENS[0]}"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        with s.client(TOKENS[1]) as c:
            codes = [c.http.post("/v1/matches/m2/events", content=b"{}").status_code for _ in range(12)]
        assert codes[0] == 422 and 429 in codes
        with s.client(TOKENS[0]) as c:  # another token has its own budget
            assert c.http.post("/v1/matches/m2/events", content=b"{}").status_code == 422
    finally:
        s.stop()


def test_no_tokens_refused_off_loopback(tmp_path: Path) -> None:
    out = subprocess.run([*PAIJU, "serve", "--host", "0.0.0.0", "--port", str(free_port()), "--lake", str(tmp_path / "l")],
                         env=env(), capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert out.returncode == 2
    assert "--tokens" in out.stderr and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_sigterm_stops_cleanly_and_releases_port_and_journal(tmp_path: Path) -> None:
    s = start_server(tmp_path)
    events = simulate_match("hongzhong", None, seed=4, index=0)
    with s.client() as ref:
        assert all(a["accepted"] for a in ref.send_batch(events[0].match_id, events[:10]))
    assert s.stop(signal.SIGTERM) == 0
    with socket.socket() as sock:  # the port is free again
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", s.port))
    again = start_server(tmp_path, port=s.port, journal=s.journal)  # the journal is free again, and whole
    try:
        with again.client() as ref:
            assert ref.match(events[0].match_id)["next_seq"] == 10
            assert all(a["accepted"] for a in ref.send_batch(events[0].match_id, events))
            assert ref.match(events[0].match_id)["status"] == "finished"
    finally:
        assert again.stop(signal.SIGINT) == 0


def test_paiju_simulate_to_plays_against_the_referee(server: Server, tmp_path: Path) -> None:
    out = subprocess.run([*PAIJU, "simulate", "--to", server.url, "--game", "anshun", "--matches", "3", "--seed", "31",
                          "--prefix", "cli", "--concurrency", "2", "--json"],
                         env={**env(), "PAIJU_TOKEN": TOKENS[1]}, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    want = sum(len(simulate_match("anshun", None, seed=31, index=i, prefix="cli")) for i in range(3))
    assert (s["matches"], s["events"], s["accepted"], s["refused"], s["settled_as_logged"]) == (3, want, want, 0, 3)
    # the same matches again: every event an identical re-send, still exit 0
    again = subprocess.run([*PAIJU, "simulate", "--to", server.url, "--game", "anshun", "--matches", "3", "--seed", "31",
                            "--prefix", "cli", "--batch", "50", "--token", TOKENS[1], "--json"],
                           env=env(), capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert again.returncode == 0 and json.loads(again.stdout)["accepted"] == want
    # another token's matches: refused as a whole, one line, exit 2
    bad = subprocess.run([*PAIJU, "simulate", "--to", server.url, "--game", "anshun", "--matches", "1", "--seed", "31",
                          "--prefix", "cli", "--token", TOKENS[0]], env=env(), capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert bad.returncode == 2 and "404" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_a_busy_port_or_journal_is_one_line_and_exit_2(server: Server, tmp_path: Path) -> None:
    out = subprocess.run([*PAIJU, "serve", "--port", str(server.port), "--lake", str(tmp_path / "l")],
                         env=env(), capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert out.returncode == 2 and "cannot listen" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    out = subprocess.run([*PAIJU, "serve", "--port", str(free_port()), "--journal", str(server.journal), "--lake", str(tmp_path / "l")],
                         env=env(), capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert out.returncode == 2 and "another referee" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_metrics_count_events_fsyncs_and_full_collections(server: Server) -> None:
    """/metrics: the fsync histogram counts every fsync the gauge counts; full GC pauses are observed
    (`referee.service.calm_gc`); accepted events are counted."""
    events = simulate_match("anshun", None, seed=41, index=0)
    with server.client() as ref:
        assert all(a["accepted"] for a in ref.send_batch(events[0].match_id, events))
    text = httpx.get(server.url + "/metrics").text
    value = {ln.rpartition(" ")[0]: float(ln.rpartition(" ")[2]) for ln in text.splitlines() if ln and not ln.startswith("#")}
    assert value["paiju_referee_journal_fsyncs"] >= 1
    assert value["paiju_referee_journal_fsync_seconds_count"] == value["paiju_referee_journal_fsyncs"]
    assert "paiju_referee_gc_full_collection_seconds_count" in value
    assert value['paiju_referee_events_total{code="",result="accepted"}'] >= len(events)
