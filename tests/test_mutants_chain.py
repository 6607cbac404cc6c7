"""Mutation-killing tests for `events/chain.py` (issue 17), checked against events.md §5 itself.

Expected values never come from `events.chain`: canonical JSON is written out by hand as bytes,
and every hash is a from-scratch `hashlib.sha256` over the contract's formula
(`hash(k) = SHA-256(utf8(hash(k-1)) ‖ canonical JSON of event k without hash)`).
"""

from __future__ import annotations

import hashlib

from events import chain
from events.codec import parse_event

# Hand-written canonical JSON (keys sorted, no white space, UTF-8, non-ASCII kept as is).
E0_OBJ = {
    "type": "match_started", "match_id": "m-1", "seq": 0, "game": "zhajinhua",
    "rules": {"preset": "standard"}, "players": ["甲", "乙", "丙"], "dealer": 0, "base": 1,
}
E0_JSON = (
    '{"base":1,"dealer":0,"game":"zhajinhua","match_id":"m-1","players":["甲","乙","丙"],'
    '"rules":{"preset":"standard"},"seq":0,"type":"match_started"}'
).encode()
E1_OBJ = {"type": "forfeit", "match_id": "m-1", "seq": 1, "seat": 2, "reason": "掉线"}
E1_JSON = b'{"match_id":"m-1","reason":"\xe6\x8e\x89\xe7\xba\xbf","seat":2,"seq":1,"type":"forfeit"}'


def _sha(prev: str, body: bytes) -> str:
    return hashlib.sha256(prev.encode("utf-8") + body).hexdigest()


H0 = _sha("", E0_JSON)
H1 = _sha(H0, E1_JSON)


def test_canonical_json_is_the_contract_bytes() -> None:
    """Sorted keys, ',' and ':' without spaces, UTF-8 non-ASCII kept (not \\u escapes)."""
    assert chain.canonical_json(E0_OBJ) == E0_JSON
    assert chain.canonical_json({"b": [1, {"d": 2, "c": "é"}], "a": True}) == '{"a":true,"b":[1,{"c":"é","d":2}]}'.encode()


def test_event_json_without_hash() -> None:
    e = parse_event({**E1_OBJ, "hash": "0" * 64})
    assert chain.event_json(e) == E1_JSON


def test_link_is_sha256_of_prev_then_event() -> None:
    e0, e1 = parse_event(E0_OBJ), parse_event(E1_OBJ)
    assert chain.link("", e0) == H0
    assert chain.link(H0, e1) == H1
    # order matters: hash(k-1) first, then the event (a reversed concatenation differs)
    assert hashlib.sha256(E1_JSON + H0.encode()).hexdigest() != H1


def test_fill_chain_sets_frozen_hashes_and_marks_them_set() -> None:
    out = chain.fill_chain([parse_event(E0_OBJ), parse_event({**E1_OBJ, "hash": "f" * 64})])
    assert [e.hash for e in out] == [H0, H1]
    assert [e.to_dict()["hash"] for e in out] == [H0, H1]
    assert out[0].model_dump(exclude_unset=True, by_alias=True)["hash"] == H0


def test_first_broken_link_verdicts() -> None:
    e0, e1 = parse_event(E0_OBJ), parse_event(E1_OBJ)
    assert chain.first_broken_link([e0, e1]) == (None, None, H1)
    good = [parse_event({**E0_OBJ, "hash": H0}), parse_event({**E1_OBJ, "hash": H1})]
    assert chain.first_broken_link(good) == (None, True, H1)
    # only the second carries a hash: still verified against the chain from ""
    assert chain.first_broken_link([e0, good[1]]) == (None, True, H1)
    bad = [parse_event({**E0_OBJ, "hash": H0}), parse_event({**E1_OBJ, "hash": H0})]
    assert chain.first_broken_link(bad) == (1, False, H1)
    bad0 = [parse_event({**E0_OBJ, "hash": H1}), good[1]]
    assert chain.first_broken_link(bad0) == (0, False, H0)
    assert chain.first_broken_link([]) == (None, None, "")


def test_remembering_memoises_per_event_and_restores() -> None:
    e0, e1 = parse_event(E0_OBJ), parse_event(E1_OBJ)
    assert chain._memo is None
    with chain.remembering():
        assert chain._memo == {}
        assert chain.event_json(e0) == E0_JSON
        assert chain._memo[id(e0)] == (e0, E0_JSON)
        assert chain._memo[id(e0)][0] is e0
        assert chain.event_json(e0) == E0_JSON  # the hit path
        assert chain.event_json(e1) == E1_JSON
        assert len(chain._memo) == 2
        assert chain.link("", e0) == H0 and chain.link(H0, e1) == H1
        # a stale entry under the same id but another object is not used
        chain._memo[id(e1)] = (e0, b"stale")
        assert chain.event_json(e1) == E1_JSON
        assert chain._memo[id(e1)] == (e1, E1_JSON)
        # a cached value is returned as cached (proves the hit path returns the memo)
        chain._memo[id(e0)] = (e0, b"cached")
        assert chain.event_json(e0) == b"cached"
        with chain.remembering():
            inner = chain._memo
            assert inner == {}
        assert chain._memo is not inner and len(chain._memo) == 2
    assert chain._memo is None
    assert chain.event_json(e0) == E0_JSON


def test_remembering_restores_after_an_error() -> None:
    try:
        with chain.remembering():
            raise KeyError("x")
    except KeyError:
        pass
    assert chain._memo is None
