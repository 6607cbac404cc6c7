"""Issue 17, codec and replay driver: each defect, on inputs written here (each failed before the fix).

Expected values come from events.md: §6 (`incomplete` means "nothing wrong was found", so a
match one of whose lines is unreadable is `invalid` at that line's seq; `not_started` for a log
without seq 0; `settlement_matches` is null only without a `settled` event) and §5 (a re-send is
a no-op only when it is the same event, `hash` included).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from engine.replay import group_lines, replay
from engine.sim.simulate import simulate_match
from events.chain import fill_chain
from events.codec import MAX_LINE_BYTES, event_to_json, read_log


def _lines() -> list[str]:
    return [event_to_json(e) for e in fill_chain(simulate_match("ddz", {}, 5, 1))]


def _replay_file(path: Path) -> Any:
    g = group_lines(read_log(path))
    (entries,) = g.matches.values()
    return replay(entries), g


K = 4


def _spoil(kind: str, line: str) -> bytes:
    d = json.loads(line)
    body = line[:-1]
    if kind == "nan":
        return (body + ',"x":NaN}').encode()
    if kind == "duplicate_key":
        return (body + f',"seq":{d["seq"]}}}').encode()
    if kind == "huge_integer":
        return (body + ',"x":' + "9" * 5000 + "}").encode()
    if kind == "not_json":
        return body.encode()  # the closing brace lost
    if kind == "over_long":
        return (body + ',"pad":"' + "x" * (MAX_LINE_BYTES + 10) + '"}').encode()
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["nan", "duplicate_key", "huge_integer", "not_json", "over_long"])
def test_an_unreadable_line_is_charged_to_its_match_and_seq(kind: str, tmp_path: Path) -> None:
    lines = _lines()
    p = tmp_path / "m.jsonl"
    p.write_bytes(b"\n".join([ln.encode() for ln in lines[:K]] + [_spoil(kind, lines[K])] + [ln.encode() for ln in lines[K + 1 :]]) + b"\n")
    r, g = _replay_file(p)
    assert g.orphans == []
    (le,) = g.line_errors
    assert (le.match_id, le.seq, le.error.code) == (json.loads(lines[0])["match_id"], K, "bad_json")
    assert r.status == "invalid" and (r.error["seq"], r.error["code"]) == (K, "bad_json"), r.error


def test_a_cut_gzip_charges_its_partial_last_line(tmp_path: Path) -> None:
    lines = _lines()
    data = ("\n".join(lines) + "\n").encode()
    start = data.index(lines[K + 1].encode())
    keep = data[: data.index(b'"type"', start)]  # line K+1 cut after its match id and seq
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    p = tmp_path / "m.jsonl.gz"
    p.write_bytes(c.compress(keep) + c.flush(zlib.Z_SYNC_FLUSH))  # no end-of-stream marker
    r, g = _replay_file(p)
    mid = json.loads(lines[0])["match_id"]
    assert [(e.line, e.match_id, e.seq, e.error.code) for e in g.line_errors] == [
        (K + 2, mid, K + 1, "bad_json"),  # the partial line
        (K + 3, None, None, "bad_json"),  # the cut: "unreadable input after line K+2"
    ]
    assert "unreadable input after line" in g.orphans[0].error.message
    assert r.status == "invalid" and (r.error["seq"], r.error["code"]) == (K + 1, "bad_json")


def test_a_resend_whose_hash_does_not_verify_is_not_accepted() -> None:
    from events.codec import parse_line

    lines = _lines()
    evs = [parse_line(x.encode()) for x in lines]
    d = json.loads(lines[K])
    d["hash"] = "f" * 64
    r = replay([*evs, parse_line(json.dumps(d).encode())])
    assert [(e.code, e.seq) for e in r.refused] == [("conflict", K)]
    # the same re-send with the stored hash, or with none, is a no-op
    d["hash"] = evs[K].hash
    same = parse_line(json.dumps(d).encode())
    d.pop("hash")
    bare = parse_line(json.dumps(d).encode())
    assert replay([*evs, same, bare]).refused == []


def test_settlement_matches_is_set_when_an_error_follows_settled() -> None:
    from events.codec import parse_event

    evs = simulate_match("ddz", {}, 5, 1)
    assert evs[-1].type == "settled"
    after = parse_event({"match_id": evs[0].match_id, "seq": len(evs), "type": "pass", "seat": 0})
    r = replay([*evs, after])
    assert (r.status, r.error["code"]) == ("invalid", "after_end")
    assert r.recorded_deltas == list(evs[-1].deltas)
    assert r.settlement_matches is False  # §6: whether it equals `deltas`, which are null here


def test_a_log_without_seq_0_is_not_started() -> None:
    evs = simulate_match("ddz", {}, 5, 1)
    r = replay(evs[1:])
    assert (r.status, r.error["seq"], r.error["code"]) == ("invalid", 1, "not_started")
    assert "seq -1" not in r.error["message"]
