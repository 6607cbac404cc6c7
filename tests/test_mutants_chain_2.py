"""More mutation-killing tests for `events/chain.py` (issue 17): the two encoders and the memo.

events.md §5: the chain links the canonical JSON of each event (keys sorted, no insignificant white
space, UTF-8, integers as integers). Expected bytes are written out by hand; hashes are a
from-scratch `hashlib.sha256` of `utf8(hash(k-1)) ‖ canonical JSON` (never `events.chain`).
"""

from __future__ import annotations

import hashlib

from events import chain
from events.codec import parse_event


def _sha(prev: str, body: bytes) -> str:
    return hashlib.sha256(prev.encode("utf-8") + body).hexdigest()


STARTED = {
    "type": "match_started", "match_id": "m", "seq": 0, "game": "zhajinhua",
    "rules": {"preset": "standard", "x": 1e-7}, "players": ["a", "b"], "dealer": 0, "base": 1,
}  # fmt: skip
# `match_started` is the one event that may hold a float (in `rules`): written as Python's json
# writes it, 1e-07 (orjson would write 1e-7, another byte string and another hash)
STARTED_JSON = (
    b'{"base":1,"dealer":0,"game":"zhajinhua","match_id":"m","players":["a","b"],'
    b'"rules":{"preset":"standard","x":1e-07},"seq":0,"type":"match_started"}'
)
BIG = {"match_id": "m", "seq": 3, "type": "bet", "seat": 1, "amount": 2**70}
# 2**70 = 1180591620717411303424, beyond orjson's 64 bits: written as an integer all the same
BIG_JSON = b'{"amount":1180591620717411303424,"match_id":"m","seat":1,"seq":3,"type":"bet"}'
FORFEIT = {"type": "forfeit", "match_id": "m", "seq": 1, "seat": 0, "reason": "é"}
FORFEIT_JSON = b'{"match_id":"m","reason":"\xc3\xa9","seat":0,"seq":1,"type":"forfeit"}'


def test_match_started_floats_are_written_by_canonical_json() -> None:
    e = parse_event(STARTED)
    assert chain.event_json(e) == STARTED_JSON
    assert chain._event_bytes(e) == STARTED_JSON
    assert chain.link("", e) == _sha("", STARTED_JSON)


def test_an_integer_beyond_64_bits_falls_back_to_canonical_json() -> None:
    e = parse_event(BIG)
    assert chain._event_bytes(e) == BIG_JSON
    assert chain.event_json(e) == BIG_JSON


def test_other_events_by_orjson_same_bytes() -> None:
    e = parse_event(FORFEIT)
    assert chain._event_bytes(e) == FORFEIT_JSON
    h0 = _sha("", STARTED_JSON)
    assert chain.link(h0, e) == _sha(h0, FORFEIT_JSON)


def test_canonical_json_utf8_and_integers() -> None:
    assert chain.canonical_json({"z": "中", "a": 10**20}) == '{"a":100000000000000000000,"z":"中"}'.encode()
    assert chain.canonical_json({}) == b"{}"


def test_memo_outer_block_restored_after_inner_and_used() -> None:
    e = parse_event(FORFEIT)
    with chain.remembering():
        outer = chain._memo
        assert outer is not None
        with chain.remembering():
            assert chain._memo is not outer
            chain.event_json(e)
        assert chain._memo is outer and id(e) not in outer
        assert chain.event_json(e) == FORFEIT_JSON and outer[id(e)] == (e, FORFEIT_JSON)
    assert chain._memo is None


def test_fill_chain_keeps_the_other_fields_and_replaces_a_hash() -> None:
    started, forfeit = parse_event(STARTED), parse_event({**FORFEIT, "hash": "a" * 64})
    out = chain.fill_chain([started, forfeit])
    h0 = _sha("", STARTED_JSON)
    h1 = _sha(h0, FORFEIT_JSON)
    assert [e.hash for e in out] == [h0, h1]
    assert out[1].reason == "é" and out[1].seat == 0 and out[0].rules == {"preset": "standard", "x": 1e-7}
    assert forfeit.hash == "a" * 64  # the input is not changed
    assert chain.fill_chain([]) == []
    assert "hash" in out[0].__pydantic_fields_set__ and "hash" in out[1].__pydantic_fields_set__


def test_first_broken_link_unhashed_after_a_good_hash() -> None:
    h0 = _sha("", STARTED_JSON)
    h1 = _sha(h0, FORFEIT_JSON)
    es = [parse_event({**STARTED, "hash": h0}), parse_event(FORFEIT)]
    assert chain.first_broken_link(es) == (None, True, h1)
