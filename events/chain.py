"""Canonical JSON and the hash chain (events.md §5)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from events.models import AnyEvent


def canonical_json(obj: dict[str, Any]) -> bytes:
    """Keys sorted, no insignificant white space, UTF-8, integers as integers."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


_memo: dict[int, tuple[AnyEvent, bytes]] | None = None


@contextmanager
def remembering() -> Iterator[None]:
    """Within the block, each event's canonical JSON is computed once (`event_json`).

    The ingest needs it twice per event (the `canon` digest when parsing, the chain link when
    replaying the same parsed events); the memo holds the events it keys, so an `id` is never
    reused while it lasts. Not thread-safe: one block at a time per process.
    """
    global _memo
    outer, _memo = _memo, {}
    try:
        yield
    finally:
        _memo = outer


def _event_bytes(event: AnyEvent) -> bytes:
    """`canonical_json` of the event's fields; by orjson (a tenth of the cost) where it writes the
    same bytes: every event but `match_started` holds only strings, strict integers, booleans and
    lists (no float, whose text the two encoders spell differently), and orjson refuses an
    integer beyond 64 bits, which then goes to `canonical_json` (tests/test_chain_reference.py)."""
    return fields_json(event.canonical_fields())


def fields_json(fields: dict[str, Any]) -> bytes:
    """`canonical_json` of an event's fields (`canonical_fields`), by orjson where it writes the
    same bytes (`_event_bytes`)."""
    if fields["type"] != "match_started":
        try:
            return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            pass
    return canonical_json(fields)


def event_json(event: AnyEvent) -> bytes:
    """The canonical JSON of an event without its `hash` (what the chain links, events.md §5)."""
    memo = _memo
    if memo is not None:
        hit = memo.get(id(event))
        if hit is not None and hit[0] is event:
            return hit[1]
        data = _event_bytes(event)
        memo[id(event)] = (event, data)
        return data
    return _event_bytes(event)


def link(prev_hash: str, event: AnyEvent) -> str:
    """hash(k) = SHA-256(hash(k-1) ‖ canonical JSON of event k without `hash`)."""
    h = hashlib.sha256(prev_hash.encode("utf-8"))
    h.update(event_json(event))
    return h.hexdigest()


def fill_chain(events: Iterable[AnyEvent]) -> list[AnyEvent]:
    """The events with `hash` set on each (computed; an existing hash is replaced)."""
    out: list[AnyEvent] = []
    prev = ""
    for e in events:
        prev = link(prev, e)
        out.append(e.model_copy(update={"hash": prev}))
        # model_copy does not mark the field as set; keep it in exclude_unset dumps
        out[-1].__pydantic_fields_set__.add("hash")
    return out


def first_broken_link(events: Sequence[AnyEvent]) -> tuple[int | None, bool | None, str]:
    """Verify the chain over a match's events in seq order.

    Returns (index of the first event whose present `hash` does not verify or None,
    chain_ok: None when no event carries a hash else whether all present hashes verify,
    the final computed hash).
    """
    prev = ""
    any_hash = False
    for i, e in enumerate(events):
        prev = link(prev, e)
        if e.hash is not None:
            any_hash = True
            if e.hash != prev:
                return i, False, prev
    return None, (True if any_hash else None), prev
