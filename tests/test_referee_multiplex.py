"""`POST /v1/events`: one request carrying the events of many matches (a real `paiju serve` process).

Expected values come from elsewhere: each match's result from `engine.replay.replay` of its log
(the whole-log fold), `turn`/`phase` from the game's own `view` after each event (not the
`turn_phase` hooks the referee reads), refusal codes from the contract (events.md §3, §5).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine.registry import get_game
from engine.replay import replay, replay_with_steps
from engine.sim.simulate import simulate_match
from events.codec import event_to_json
from events.notation import GAME_IDS
from referee.journal import read_records
from tests.test_referee import TOKENS, Server, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server(tmp_path_factory.mktemp("multiplex"), publish_every="0")
    yield s
    if s.proc.poll() is None:
        s.stop()


def _interleaved(matches: list[list]) -> list:
    """Round-robin over the matches: event k of every match, then event k+1 (each match in order)."""
    out = []
    for k in range(max(len(m) for m in matches)):
        out.extend(m[k] for m in matches if k < len(m))
    return out


def test_many_matches_in_one_request_each_answered_in_order_and_replayed_equal(server: Server) -> None:
    matches = [simulate_match(g, None, seed=31, index=i) for i, g in enumerate(GAME_IDS)]
    views = {}
    for m in matches:
        game = get_game(m[0].game)
        steps, _ = replay_with_steps(m)
        views[m[0].match_id] = [None if s.state is None else game.view(s.state) for s in steps]
    lines = _interleaved(matches)
    answers = []
    with server.client() as ref:
        for k in range(0, len(lines), 37):  # batches that cut across matches and events
            answers += ref.send_batch(None, lines[k:k + 37])
        assert len(answers) == len(lines)
        for ev, a in zip(lines, answers, strict=True):
            assert (a["match_id"], a["seq"], a["accepted"], a["error"]) == (ev.match_id, ev.seq, True, None)
            v = views[ev.match_id][ev.seq]
            if v is not None:
                assert (a["turn"], a["phase"]) == (v["turn"], v["phase"])
        for m in matches:
            got = ref.match(m[0].match_id)
            want = replay(m).to_dict()
            assert want["status"] == "finished"
            assert {k: got[k] for k in want} == want
        # a re-send of the whole request is a no-op, answered accepted again
        again = ref.send_batch(None, lines[:10])
        assert all(a["accepted"] for a in again)
        assert all(ref.match(m[0].match_id)["events"] == len(m) for m in matches)


def test_refused_lines_are_answered_in_place_and_journaled(server: Server) -> None:
    a = simulate_match("ddz", None, seed=32, index=0)
    b = simulate_match("hongzhong", None, seed=32, index=1)
    gap = a[3]  # a's seq 3 before its seq 2: seq_gap
    body = [event_to_json(x).encode() for x in (a[0], b[0], a[1], gap, b[1])] + [b"{not json", event_to_json(a[2]).encode()]
    r = httpx.post(server.url + "/v1/events", content=b"\n".join(body) + b"\n",
                   headers={"Authorization": f"Bearer {TOKENS[0]}", "Content-Type": "application/x-ndjson"})  # fmt: skip
    assert r.status_code == 200
    got = [json.loads(x) for x in r.text.splitlines()]
    assert [(g["match_id"], g["seq"], g["accepted"]) for g in got] == [
        (a[0].match_id, 0, True), (b[0].match_id, 0, True), (a[0].match_id, 1, True), (a[0].match_id, 3, False),
        (b[0].match_id, 1, True), (None, None, False), (a[0].match_id, 2, True)]  # fmt: skip
    assert got[3]["error"]["code"] == "seq_gap" and got[5]["error"]["code"] == "bad_json"
    refused = [rec for _, rec in read_records(server.journal / "journal.log") if not rec.accepted]
    codes = [(x.refusal()["match_id"], x.refusal()["code"]) for x in refused]
    assert (a[0].match_id, "seq_gap") in codes and (None, "bad_json") in codes


def test_a_line_of_another_tokens_match_refuses_the_whole_request(server: Server, tmp_path: Path) -> None:
    mine = simulate_match("paodekuai", None, seed=33, index=0)
    theirs = simulate_match("zhajinhua", None, seed=33, index=1)
    with server.client(TOKENS[1]) as other:
        assert other.send(theirs[0])["accepted"]
    with server.client(TOKENS[0]) as ref:
        assert ref.send(mine[0])["accepted"]
        r = ref.http.post("/v1/events", content=b"".join(event_to_json(x).encode() + b"\n" for x in (mine[1], theirs[1])),
                          headers={"Content-Type": "application/x-ndjson"})  # fmt: skip
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert ref.match(mine[0].match_id)["next_seq"] == 1  # nothing of the request was applied
    with server.client(TOKENS[1]) as other:
        assert other.match(theirs[0].match_id)["next_seq"] == 1
    r = httpx.post(server.url + "/v1/events", content=event_to_json(mine[1]))
    assert r.status_code == 401
