"""JSON Lines codec (events.md §1): parse lines into events, each bad line into a contract error.

A bad line never stops the file: `read_log` yields either a `ParsedLine` or a `LineError` for every
line, with the file and line number, and the `match_id`/`seq` whenever the line names them.
"""

from __future__ import annotations

import gc
import io
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, NamedTuple

from pydantic import TypeAdapter, ValidationError

from events.errors import ContractError
from events.fastparse import MAX_NESTING, MAX_SEQ, parse_clean
from events.models import EVENT_TYPES, AnyEvent, Event

MAX_LINE_BYTES = 1 << 20
"""A line longer than this (1 MiB) is refused as `bad_json` without being parsed."""
HEAD_BYTES = 4096
"""Of an over-long line, only this much is read for the match id and seq it names (and kept)."""



@lru_cache(maxsize=1)
def _event_adapter() -> TypeAdapter[Any]:
    """The validator of the union of every event model, built on the first line the reference path
    decides (issue 22: its schema costs a tenth of `paiju replay`'s start-up, and a clean log never
    needs it: every line takes the fast path)."""
    return TypeAdapter(Event)


class ParsedLine(NamedTuple):
    """A line that is an event (a tuple: a frozen dataclass costs a microsecond a line to build)."""

    path: str
    line: int
    event: AnyEvent


class LineError(NamedTuple):
    """A line that is not an event, with the contract error saying why."""

    path: str
    line: int
    error: ContractError
    raw: bytes

    @property
    def match_id(self) -> str | None:
        return self.error.match_id

    @property
    def seq(self) -> int | None:
        return self.error.seq


def _depth_ok(obj: Any, limit: int = MAX_NESTING) -> bool:
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return True


def _where(obj: Any) -> tuple[str | None, int | None, str | None]:
    if not isinstance(obj, dict):
        return None, None, None
    mid = obj.get("match_id")
    seq = obj.get("seq")
    typ = obj.get("type")
    return (
        mid if isinstance(mid, str) else None,
        seq if isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ else None,
        typ if isinstance(typ, str) else None,
    )


def _describe(err: ValidationError, obj: dict[str, Any]) -> ContractError:
    mid, seq, typ = _where(obj)
    first = err.errors(include_url=False)[0]
    kind = first["type"]
    loc = [str(x) for x in first["loc"]]
    if kind == "union_tag_invalid":
        return ContractError(
            "unknown_type",
            f"unknown event type {typ!r}; known types: {', '.join(sorted(EVENT_TYPES))}",
            match_id=mid, seq=seq, type=typ,
        )  # fmt: skip
    if kind == "union_tag_not_found":
        return ContractError("bad_field", "missing field 'type'", match_id=mid, seq=seq)
    field = ".".join(loc[1:]) if len(loc) > 1 else ".".join(loc)
    if kind == "extra_forbidden":
        msg = f"unknown field {field!r} in a {typ} event (events.md §1: unknown fields are an error)"
    elif kind == "missing":
        msg = f"missing field {field!r} in a {typ} event"
    else:
        value = first.get("input")
        shown = json.dumps(value, ensure_ascii=False, default=str)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        msg = f"field {field!r} of a {typ} event: {first['msg']} (got {shown})"
    return ContractError("bad_field", msg, match_id=mid, seq=seq, type=typ)


def parse_event(obj: Any) -> AnyEvent:
    """Validate one decoded JSON value as a contract event; raise ContractError if it is not one."""
    if not isinstance(obj, dict):
        raise ContractError("bad_json", f"a line must be a JSON object, got {type(obj).__name__}")
    try:
        event: AnyEvent = _event_adapter().validate_python(obj)
    except ValidationError as err:
        raise _describe(err, obj) from None
    if event.seq > MAX_SEQ:
        raise ContractError(
            "bad_field",
            f"seq {str(event.seq)[:20]}{'…' if len(str(event.seq)) > 20 else ''} exceeds the limit of {MAX_SEQ} events per match",
            match_id=event.match_id, type=event.type,
        )  # fmt: skip
    return event


def _no_constant(name: str) -> Any:
    raise ContractError("bad_json", f"not JSON: {name} is not a JSON number (RFC 8259)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for k, v in pairs:
        if k in obj:
            raise ContractError("bad_json", f"duplicate key {k!r} in one object: ambiguous JSON")
        obj[k] = v
    return obj


_LONE_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")


def _text_ok(obj: Any) -> bool:
    """No string or key holds a lone surrogate (an escaped `\\ud800`), which has no UTF-8 form to hash."""
    stack: list[Any] = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return True


def parse_line(raw: bytes | str) -> AnyEvent:
    """Parse one JSON Lines line (bytes or text) into an event, or raise ContractError.

    Strict JSON (RFC 8259) in UTF-8 only: no NaN/Infinity, no duplicate keys, no lone surrogates,
    no integer over Python's 4300-digit limit; anything else is `bad_json` with the reason. Most
    lines are decoded and validated in C (`events.fastparse`); any other line, and every refusal,
    is decided by `parse_line_reference`.
    """
    if raw.__class__ is bytes and len(raw) <= MAX_LINE_BYTES:  # a subclass: the reference path
        event = parse_clean(raw)  # type: ignore[arg-type]
        if event is not None:
            return event
    return parse_line_reference(raw)


_ID_IN_TEXT = re.compile(rb'"match_id"\s*:\s*"([A-Za-z0-9_.:\-]{1,128})"')
_SEQ_IN_TEXT = re.compile(rb'"seq"\s*:\s*(0|[1-9][0-9]{0,5})(?![0-9.eE])')


def recover_where(raw: bytes | str) -> tuple[str | None, int | None]:
    """(match_id, seq) read from the text of a line that could not be decoded, where readable.

    A value counts only when the text names exactly one: a line with two different match ids
    (or seqs) is charged to none, rather than to a guess (issue 17).
    """
    b = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    ids = {m.group(1) for m in _ID_IN_TEXT.finditer(b)}
    seqs = {int(m.group(1)) for m in _SEQ_IN_TEXT.finditer(b)}
    mid = ids.pop().decode("ascii") if len(ids) == 1 else None
    seq = seqs.pop() if len(seqs) == 1 and mid is not None else None
    return mid, (seq if seq is not None and seq <= MAX_SEQ else None)


def _charged(err: ContractError, raw: bytes | str) -> ContractError:
    """The refusal of an unreadable line, charged to the match (and seq) its text names."""
    if err.match_id is None:
        err.match_id, seq = recover_where(raw)
        if err.seq is None:
            err.seq = seq
    return err


def parse_line_reference(raw: bytes | str) -> AnyEvent:
    """`parse_line` by the reference path: `json.loads` with checks, then the pydantic models.

    A refusal that the decoded value cannot place (not JSON, a duplicate key, NaN, a huge
    integer…) names the match id and seq its text names, where readable (`recover_where`).
    """
    try:
        return _parse_reference(raw)
    except ContractError as err:
        raise _charged(err, raw) from None


def _parse_reference(raw: bytes | str) -> AnyEvent:
    if len(raw) > MAX_LINE_BYTES:
        raise ContractError("bad_json", f"line of {len(raw)} bytes exceeds the limit of {MAX_LINE_BYTES}")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        obj = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as e:
        raise ContractError("bad_json", f"not UTF-8: {e.reason} at byte {e.start}") from None
    except json.JSONDecodeError as e:
        raise ContractError("bad_json", f"not JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise ContractError("bad_json", "JSON nested too deeply") from None
    except ValueError as e:  # an integer longer than Python's int/str conversion limit
        raise ContractError("bad_json", f"not usable JSON: {str(e)[:100]}") from None
    if _LONE_SURROGATE_HINT.search(text) and not _text_ok(obj):
        mid, seq, typ = _where(obj)
        raise ContractError("bad_json", "a string holds a lone UTF-16 surrogate escape: not UTF-8 text", match_id=mid, seq=seq, type=typ)
    # a line with at most MAX_NESTING brackets cannot nest deeper: skip the walk (most lines)
    if text.count("[") + text.count("{") > MAX_NESTING and not _depth_ok(obj):
        mid, seq, typ = _where(obj)
        raise ContractError("bad_json", f"JSON nested deeper than {MAX_NESTING} levels", match_id=mid, seq=seq, type=typ)
    return parse_event(obj)


_CHUNK = 1 << 16


class Gunzip(io.RawIOBase):
    """A gzip stream (every member, RFC 1952 §2.2), decompressed as read.

    Unlike `gzip.GzipFile`, input cut short does not lose the bytes decompressed before the cut:
    the stream yields them, then ends, with `failure` saying why, so the last partial line can
    still be read for its match (issue 17).
    """

    def __init__(self, f: IO[bytes]) -> None:
        super().__init__()
        self.f = f
        self.d = zlib.decompressobj(31)
        self.pending = b""
        self.done = False
        self.failure: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self.pending and not self.done:
            self._fill()
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def _fill(self) -> None:
        if self.d.eof:  # a member ended: another may follow
            data = self.d.unused_data or self.f.read(_CHUNK)
            if not data:
                self.done = True
                return
            self.d = zlib.decompressobj(31)
        else:
            data = self.d.unconsumed_tail or self.f.read(_CHUNK)
            if not data:
                self.failure = "Compressed file ended before the end-of-stream marker was reached"
                self.done = True
                return
        try:
            self.pending = self.d.decompress(data, 16 * _CHUNK)
        except zlib.error as e:
            self.failure = f"not gzip data: {e}"
            self.done = True

    def close(self) -> None:
        self.f.close()
        super().close()


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (and back on after it, if it was on).

    Reading a log keeps every event alive (a replay needs a match's events together), so each
    collection walks all of them again: a fifth of `paiju replay`'s CPU on 3,000 matches (issue
    22). Events and reducer states hold no reference cycles; cycles made meanwhile (if any) are
    collected when the collector is back on.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def open_log(path: str | Path) -> IO[bytes]:
    """Open a `.jsonl` or `.jsonl.gz` file for binary reading (gzip detected by magic bytes)."""
    f = open(path, "rb")  # noqa: SIM115 - returned to the caller
    head = f.peek(2)[:2] if hasattr(f, "peek") else b""
    if head == b"\x1f\x8b":
        return io.BufferedReader(Gunzip(f))
    return f


def read_failure(stream: IO[bytes]) -> str | None:
    """Why a stream from `open_log` ended early (a cut gzip), or None when it ended whole."""
    raw = getattr(stream, "raw", None)
    return raw.failure if isinstance(raw, Gunzip) else None


READ_BLOCK = 1 << 18
"""Bytes read at a time by `raw_lines` (a line may span blocks)."""


class LongLine(NamedTuple):
    """A line over MAX_LINE_BYTES: its first HEAD_BYTES, its size in bytes (its newline included)
    and, when the stream failed while the rest was skipped, why (the stream ends there)."""

    head: bytes
    size: int
    broken: str | None = None


class ReadFailure(NamedTuple):
    """The stream could not be read on (an I/O error, a cut gzip): the last item."""

    reason: str


RawItem = bytes | LongLine | ReadFailure


def raw_blocks(stream: IO[bytes]) -> Iterator[tuple[int, list[RawItem], bool]]:
    """`raw_lines` a block at a time: (the number of the block's first line, its lines in order
    and numbered on from there, whether they are all plain `bytes`). The numbers run on from one
    block to the next; a block is never empty. One item per read of `READ_BLOCK` bytes, so that
    a reader of a clean log pays no Python step per line to get at its lines (issue 22)."""
    read = getattr(stream, "read1", stream.read)
    lineno = 0
    tail = b""  # the start of a line whose newline has not been read yet
    long_head: bytes | None = None  # the head of an over-long line being skipped
    long_size = 0
    while True:
        try:
            block = read(READ_BLOCK)
        except (OSError, EOFError, zlib.error) as e:
            if long_head is not None:  # the stream ends inside an over-long line
                yield lineno + 1, [LongLine(long_head, long_size, str(e))], False
            else:
                yield lineno + 1, [ReadFailure(str(e))], False
            return
        if not block:
            break
        first = lineno + 1
        out: list[RawItem] = []
        if long_head is not None:  # skipping the rest of an over-long line
            cut = block.find(b"\n")
            if cut < 0:
                long_size += len(block)
                continue
            lineno += 1
            out.append(LongLine(long_head, long_size + cut + 1))
            long_head = None
            block = block[cut + 1 :]
        pieces: list[bytes] = block.split(b"\n")
        if tail:
            pieces[0] = tail + pieces[0]
        tail = pieces.pop()
        if pieces and max(map(len, pieces)) > MAX_LINE_BYTES:
            for piece in pieces:
                out.append(LongLine(piece[:HEAD_BYTES], len(piece) + 1) if len(piece) > MAX_LINE_BYTES else piece)
        elif out:
            out.extend(pieces)
        else:
            out = pieces  # type: ignore[assignment]  # the common block: its lines as split
        lineno += len(pieces)
        if out:
            yield first, out, out is pieces
        if len(tail) > MAX_LINE_BYTES:
            long_head, long_size, tail = tail[:HEAD_BYTES], len(tail), b""
    if long_head is not None:
        lineno += 1
        yield lineno, [LongLine(long_head, long_size)], False
    elif tail:
        lineno += 1
        yield lineno, [tail], True
    failure = read_failure(stream)
    if failure is not None:
        yield lineno + 1, [ReadFailure(failure)], False


def raw_lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes | LongLine | ReadFailure]]:
    """(line number, the line's bytes without its newline) for every line of a binary stream,
    read in blocks (issue 22: a `readline` a line cost a microsecond an event); an over-long
    line comes as a `LongLine` (the rest of it is skipped, never held), a failure to read on as a
    `ReadFailure` numbered after the last line read (a cut line before it is lost, as it is by
    `readline`; inside an over-long line, the `LongLine` says it instead, as the last item).
    Blank lines are yielded too: the numbers count every line."""
    for first, items, _ in raw_blocks(stream):
        yield from enumerate(items, first)


_TUPLE_NEW = tuple.__new__
"""`ParsedLine(...)` is a Python-level `__new__`; `tuple.__new__(ParsedLine, (…))` builds the same
tuple in C (issue 22: a call a line)."""


def iter_lines(stream: IO[bytes], path: str) -> Iterator[ParsedLine | LineError]:
    """Parse every line of a binary stream; a read failure (truncated gzip) ends it with a LineError."""
    for first, items, _ in raw_blocks(stream):
        yield from _parsed(items, first, path)


def _parsed(items: list[RawItem], first: int, path: str) -> Iterator[ParsedLine | LineError]:
    """`iter_lines` of one block of `raw_blocks` (its first line numbered `first`)."""
    for lineno, raw in enumerate(items, first):
        if raw.__class__ is bytes:
            stripped = raw.strip()  # type: ignore[union-attr]
            if stripped:
                try:
                    event = parse_line(stripped)
                except ContractError as err:
                    yield LineError(path, lineno, err, stripped)
                else:
                    yield _TUPLE_NEW(ParsedLine, (path, lineno, event))
        elif isinstance(raw, LongLine):
            where = recover_where(raw.head)  # the match its head names
            err = ContractError("bad_json", f"line of {raw.size} bytes exceeds the limit of {MAX_LINE_BYTES}", match_id=where[0], seq=where[1])
            yield LineError(path, lineno, err, b"")
            if raw.broken is not None:
                yield LineError(path, lineno + 1, ContractError("bad_json", f"unreadable input after line {lineno}: {raw.broken}"), b"")
        else:
            assert isinstance(raw, ReadFailure)
            yield LineError(path, lineno, ContractError("bad_json", f"unreadable input after line {lineno - 1}: {raw.reason}"), b"")


def iter_blocks(stream: IO[bytes], path: str) -> Iterator[tuple[bool, list[Any]]]:
    """`iter_lines` a block at a time, for a reader that needs the events and not their line
    numbers (`paiju replay`): `(True, events)` for a block whose every line is an event, each
    decided by the fast path alone, else `(False, the block's ParsedLine | LineError)`, as
    `iter_lines` yields them. Of a clean log, each line costs one `parse_clean` called from C
    (`map`) and no Python step of ours (issue 22).

    A line is tried by the fast path as read, before `iter_lines` strips it: JSON's own
    whitespace (space, tab, CR) around it changes neither its decode nor its colon, bracket and
    backslash counts, so the event is the one of the stripped line; any other line (blank, other
    whitespace, refused) is then decided by `iter_lines`' own code."""
    for first, items, plain in raw_blocks(stream):
        if plain:
            events = list(map(parse_clean, items))  # type: ignore[arg-type]
            if all(events):  # an event is always true (no __bool__/__len__); None is not
                yield True, events
                continue
        yield False, list(_parsed(items, first, path))


def _open_or_error(path: str | Path) -> IO[bytes] | LineError:
    p = str(path)
    try:
        return open_log(path)
    except OSError as e:
        return LineError(p, 0, ContractError("bad_json", f"cannot open {p}: {e.strerror or e}"), b"")


def read_log_blocks(path: str | Path) -> Iterator[tuple[bool, list[Any]]]:
    """`read_log` a block at a time (`iter_blocks`); an unopenable file yields one LineError."""
    stream = _open_or_error(path)
    if isinstance(stream, LineError):
        yield False, [stream]
        return
    with stream:
        yield from iter_blocks(stream, str(path))


def read_log(path: str | Path) -> Iterator[ParsedLine | LineError]:
    """Every line of a log file, parsed; an unopenable file yields one LineError."""
    p = str(path)
    try:
        stream = open_log(path)
    except OSError as e:
        yield LineError(p, 0, ContractError("bad_json", f"cannot open {p}: {e.strerror or e}"), b"")
        return
    with stream:
        yield from iter_lines(stream, p)


_FIRST_KEYS = ("match_id", "seq", "type")


def event_to_json(event: AnyEvent) -> str:
    """One event as a JSON line (no newline): envelope first, then the type's fields, `hash` last."""
    d = event.to_dict()
    ordered = {k: d[k] for k in _FIRST_KEYS}
    for k, v in d.items():
        if k not in ordered and k != "hash":
            ordered[k] = v
    if "hash" in d:
        ordered["hash"] = d["hash"]
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def write_log(events: Iterable[AnyEvent], out: IO[str]) -> int:
    """Write events as JSON Lines; returns how many were written."""
    n = 0
    for e in events:
        out.write(event_to_json(e))
        out.write("\n")
        n += 1
    return n
