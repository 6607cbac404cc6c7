"""Reading received files into lines and lines into event rows (events.md §1, §5).

`split_lines` streams a stored file (plain or gzip) into `(line_no, bytes)` pairs and turns every
read failure (truncated gzip, a line over the limit, an empty file) into a refusal instead of an
exception. `parse_chunk` is run in worker processes: each line becomes an `events` row or a
`rejects` row; it never raises for bad input.

Lines are parsed by `events.codec.parse_line`, so ingest accepts and refuses exactly what
`paiju replay` does, with the same codes and messages.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from functools import cache
from typing import IO, Any

import pyarrow as pa

from events.chain import event_json
from events.codec import (
    MAX_LINE_BYTES,
    LongLine,
    ReadFailure,
    gc_paused,
    open_log,
    parse_line,
    raw_lines,
    recover_where,
)
from events.errors import ContractError
from events.fastparse import construct
from events.models import EVENT_TYPES, AnyEvent, MatchStarted
from ingest.schema import schemas

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
NO_DATE = "none"
"""The `date=` partition of a match whose `match_started` carries no `ts`."""
UNKNOWN_GAME = "unknown"
"""The `game=` partition of events whose match has no stored `match_started`."""
RAW_PREVIEW = 4096
"""How much of a refused line is kept in `rejects.raw` (the whole file is in raw/)."""


def parse_fast(raw: bytes) -> AnyEvent:
    """One line → event, exactly as `events.codec.parse_line` (its refusals are ContractErrors)."""
    return parse_line(raw)


def date_of(ts: str | None) -> str:
    """`yyyy-mm-dd` of an RFC 3339 time, or `none`."""
    if ts and _DATE_RE.match(ts):
        return ts[:10]
    return NO_DATE


def canon_of(ev: AnyEvent) -> str:
    """SHA-256 of the event's canonical JSON without `hash` (the bytes the chain links)."""
    return hashlib.sha256(event_json(ev)).hexdigest()


def stored_event(line: str | bytes) -> AnyEvent:
    """An event from a line the lake already validated: built without re-validating (fast).

    Only for lines read back from the lake's `events` table; anything else goes through
    `parse_fast`.
    """
    obj = json.loads(line)
    cls = EVENT_TYPES[obj["type"]]
    defaults, by_wire = _construct_info(cls)
    d = dict(defaults)
    for k, v in obj.items():
        d[by_wire.get(k, k)] = v
    return construct(cls, d, {by_wire.get(k, k) for k in obj})


@cache
def _construct_info(cls: type) -> tuple[dict[str, Any], dict[str, str]]:
    """(field defaults in declaration order, wire name → field name) of an event model."""
    fields = cls.model_fields  # type: ignore[attr-defined]
    defaults = {name: f.default for name, f in fields.items()}
    return defaults, {(f.alias or name): name for name, f in fields.items()}


# ------------------------------------------------------------------ reading files

Line = tuple[int, bytes | None, str | None]
"""(line number, stripped bytes or None, refusal message or None); with a refusal, the bytes are
the head of the line (an over-long one) or None."""


def open_stored(path: str) -> IO[bytes]:
    """A stored file for binary reading; gzip is detected by its magic bytes (`events.codec.open_log`)."""
    return open_log(path)


def split_lines(path: str) -> Iterator[Line]:
    """Every non-blank line of a file; read failures become refusals (never an exception)."""
    try:
        stream = open_stored(path)
    except OSError as e:
        yield (0, None, f"cannot open the file: {e.strerror or e}")
        return
    with stream:
        any_line = False
        for lineno, raw in raw_lines(stream):
            if raw.__class__ is bytes:
                any_line = True
                stripped = raw.strip()  # type: ignore[union-attr]
                if stripped:
                    yield (lineno, stripped, None)
            elif isinstance(raw, LongLine):  # the head is kept for the match id and seq it names
                any_line = True
                if raw.broken is not None:
                    yield (
                        lineno,
                        raw.head,
                        f"line of {raw.size}+ bytes exceeds the limit of {MAX_LINE_BYTES}; the file is unreadable after it",
                    )
                    return
                yield (lineno, raw.head, f"line of {raw.size} bytes exceeds the limit of {MAX_LINE_BYTES}")
            else:
                assert isinstance(raw, ReadFailure)
                yield (lineno, None, f"unreadable input after line {lineno - 1}: {raw.reason}")
                return
        if not any_line:
            yield (0, None, "empty file: no events")


# ------------------------------------------------------------------ parsing (worker side)


def _preview(raw: bytes | None) -> str:
    if not raw:
        return ""
    return raw[:RAW_PREVIEW].decode("utf-8", errors="backslashreplace")


def parse_chunk(file_sha: str, file_name: str, lines: list[Line]) -> tuple[pa.Table, pa.Table]:
    """Lines of one file → (`events` rows without dedup, `rejects` rows). Pure; never raises.

    The events rows carry `game`/`date` only on `match_started` (the ingest spreads them over
    the match).
    """
    events, rejects, _ = parse_chunk_events(file_sha, file_name, lines)
    return events, rejects


def parse_chunk_events(file_sha: str, file_name: str, lines: list[Line]) -> tuple[pa.Table, pa.Table, list[AnyEvent]]:
    """`parse_chunk`, plus the parsed events themselves in line order (one per `events` row)."""
    with gc_paused():  # every event of the chunk stays alive: no collection walking them
        return _parse_chunk_events(file_sha, file_name, lines)


def _parse_chunk_events(file_sha: str, file_name: str, lines: list[Line]) -> tuple[pa.Table, pa.Table, list[AnyEvent]]:
    parsed: list[AnyEvent] = []
    ev_cols: dict[str, list[Any]] = {n: [] for n in schemas()["events"].names}
    rj_cols: dict[str, list[Any]] = {n: [] for n in schemas()["rejects"].names}

    def reject(lineno: int, err: ContractError, raw: bytes | None) -> None:
        rj_cols["file_sha"].append(file_sha)
        rj_cols["file_name"].append(file_name)
        rj_cols["line"].append(lineno)
        rj_cols["match_id"].append(err.match_id)
        rj_cols["seq"].append(err.seq)
        rj_cols["code"].append(err.code)
        rj_cols["message"].append(err.message)
        rj_cols["raw"].append(_preview(raw))

    # the columns' appends bound once (a dict look-up and a method look-up a column an event)
    add_mid, add_seq, add_type, add_seat, add_ts, add_hash, add_canon, add_text, add_line = (
        ev_cols[c].append for c in ("match_id", "seq", "type", "seat", "ts", "hash", "canon", "line", "file_line")
    )
    starts: list[tuple[int, str, str]] = []
    for lineno, raw, problem in lines:
        if problem is not None or raw is None:
            mid, seq = recover_where(raw) if raw else (None, None)  # issue 17: charged to its match
            reject(lineno, ContractError("bad_json", problem or "unreadable line", match_id=mid, seq=seq), raw)
            continue
        try:
            ev = parse_fast(raw)
            canon = canon_of(ev)
            text = raw.decode("utf-8")
        except ContractError as err:
            reject(lineno, err, raw)
            continue
        except Exception as e:  # a line must never stop the file
            reject(lineno, ContractError("bad_json", f"unreadable line: {type(e).__name__}: {e}"), raw)
            continue
        parsed.append(ev)
        add_mid(ev.match_id)
        add_seq(ev.seq)
        add_type(ev.type)  # type: ignore[attr-defined]
        add_seat(ev.__dict__.get("seat"))  # a model without the field: None (a getattr miss costs µs)
        add_ts(ev.ts)
        add_hash(ev.hash)
        add_canon(canon)
        add_text(text)
        add_line(lineno)
        if isinstance(ev, MatchStarted):
            starts.append((len(parsed) - 1, ev.game, date_of(ev.ts)))
    n = len(parsed)
    ev_cols["file_sha"] = [file_sha] * n
    ev_cols["game"], ev_cols["date"] = [None] * n, [None] * n  # only on `match_started`
    for k, game, date in starts:
        ev_cols["game"][k], ev_cols["date"][k] = game, date
    events = pa.Table.from_pydict(ev_cols, schema=schemas()["events"])
    rejects = pa.Table.from_pydict(rj_cols, schema=schemas()["rejects"])
    return events, rejects, parsed
