"""Mutation-killing tests for `engine/replay.py`'s chain verdict after a refused event (issue 17).

events.md §5/§6: `chain_ok` is null without hashes, else whether the chain verifies. Hashes here are a
from-scratch SHA-256 of the contract's formula over the test's own dicts (not `events.chain`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.replay import replay
from events.codec import parse_event
from events.errors import ContractError

RAW: list[dict[str, Any]] = [
    {"type": "match_started", "game": "zhajinhua", "rules": {}, "players": ["a", "b"], "dealer": 0, "base": 1},
    {"type": "dealt", "hands": [["Ks", "Kd", "2c"], ["As", "Qd", "9c"]]},
    {"type": "bet", "seat": 1, "amount": 1},  # dealer 0: seat 1 acts first (ZJH-R3)
    {"type": "bet", "seat": 1, "amount": 1},  # not the actor: refused (ZJH-R6)
    {"type": "bet", "seat": 0, "amount": 1},
]


def _dicts() -> list[dict[str, Any]]:
    return [{"match_id": "r", "seq": i, **e} for i, e in enumerate(RAW)]


def _hashed(dicts: list[dict[str, Any]], skip: int | None = None) -> list[dict[str, Any]]:
    """`hash` per events.md §5; the event at `skip` is left out of the chain (as if never written)."""
    prev, out = "", []
    for i, d in enumerate(dicts):
        if i == skip:
            out.append(d)
            continue
        body = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        prev = hashlib.sha256(prev.encode("utf-8") + body).hexdigest()
        out.append({**d, "hash": prev})
    return out


def test_refused_event_in_a_sound_chain_keeps_chain_ok_true() -> None:
    r = replay([parse_event(d) for d in _hashed(_dicts())])
    assert r.status == "invalid" and r.error is not None and r.error["seq"] == 3
    assert r.chain_ok is True


def test_refused_event_without_hashes_has_chain_ok_null() -> None:
    r = replay([parse_event(d) for d in _dicts()])
    assert r.status == "invalid" and r.error["seq"] == 3
    assert r.chain_ok is None


def test_an_unreadable_line_breaks_the_chain_after_it() -> None:
    """Seq 2 cannot be read: the hashed events after it cannot be verified through it, even when their
    hashes were computed as if seq 2 did not exist."""
    hashed = _hashed(_dicts(), skip=2)
    entries: list[Any] = [parse_event(hashed[0]), parse_event(hashed[1]),
                          ContractError("bad_json", "line could not be decoded", seq=2)]  # fmt: skip
    entries += [parse_event(d) for d in hashed[3:]]
    r = replay(entries)
    assert r.status == "invalid" and r.error["seq"] == 2
    assert r.chain_ok is False


def test_an_edited_event_after_the_refusal_is_found() -> None:
    hashed = _hashed(_dicts())
    hashed[4] = {**hashed[4], "amount": 2}  # edited after it was written: its hash no longer verifies
    r = replay([parse_event(d) for d in hashed])
    assert r.status == "invalid" and r.error["seq"] == 3
    assert r.chain_ok is False


def test_an_identical_resend_is_skipped_by_the_chain() -> None:
    """events.md §5: an identical re-send is a no-op, so the chain links each seq once."""
    hashed = _hashed(_dicts())
    r = replay([parse_event(d) for d in [*hashed[:3], hashed[2], *hashed[3:]]])
    assert r.status == "invalid" and r.error["seq"] == 3
    assert r.chain_ok is True
    edited = [*hashed[:4], {**hashed[4], "amount": 2}]
    r = replay([parse_event(d) for d in [*edited[:3], edited[2], *edited[3:]]])
    assert r.chain_ok is False
