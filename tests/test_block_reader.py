"""The block reader (`events.codec.raw_lines`, issue 22) against the `readline` loops it replaced.

`iter_lines` (replay, CLI) and `ingest.parse.split_lines` (ingest) read a stream in blocks now.
Their references are the loops they ran before, written out below: one `readline(MAX + 1)` a
line, an over-long line skipped by further `readline`s. Inputs are random logs with blank lines,
CRLF, lines around the (lowered) limit, lines spanning blocks, no final newline, a gzip cut short,
and a stream whose reads fail after some bytes; blocks are made small so that every line boundary
falls everywhere in a block. Both must give the same items: numbers, bytes, errors and messages.
"""

from __future__ import annotations

import gzip
import io
import random
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from events import codec
from events.codec import ContractError, LineError, ParsedLine, parse_line, read_failure, recover_where
from ingest import parse as ingest_parse

MAX = 300
HEAD = 40


def _reference_iter_lines(stream: Any, path: str) -> Iterator[ParsedLine | LineError]:
    lineno = 0
    reader = io.BufferedReader(stream) if not hasattr(stream, "peek") else stream
    while True:
        try:
            raw = reader.readline(MAX + 1)
        except (OSError, EOFError, zlib.error) as e:
            yield LineError(path, lineno + 1, ContractError("bad_json", f"unreadable input after line {lineno}: {e}"), b"")
            return
        if not raw:
            failure = read_failure(reader)
            if failure is not None:
                yield LineError(path, lineno + 1, ContractError("bad_json", f"unreadable input after line {lineno}: {failure}"), b"")
            return
        lineno += 1
        if len(raw) > MAX and not raw.endswith(b"\n"):
            where, size = recover_where(raw[:HEAD]), len(raw)
            try:
                while raw and not raw.endswith(b"\n"):
                    raw = reader.readline(MAX)
                    size += len(raw)
            except (OSError, EOFError, zlib.error):
                pass
            err = ContractError("bad_json", f"line of {size} bytes exceeds the limit of {MAX}", match_id=where[0], seq=where[1])
            yield LineError(path, lineno, err, b"")
            continue
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            yield ParsedLine(path, lineno, parse_line(stripped))
        except ContractError as err:
            yield LineError(path, lineno, err, stripped)


def _reference_split_lines(stream: Any) -> Iterator[tuple[int, bytes | None, str | None]]:
    lineno = 0
    any_line = False
    while True:
        try:
            raw = stream.readline(MAX + 1)
        except (OSError, EOFError, zlib.error) as e:
            yield (lineno + 1, None, f"unreadable input after line {lineno}: {e}")
            return
        if not raw:
            failure = read_failure(stream)
            if failure is not None:
                yield (lineno + 1, None, f"unreadable input after line {lineno}: {failure}")
                return
            break
        lineno += 1
        any_line = True
        if len(raw) > MAX and not raw.endswith(b"\n"):
            head, size = raw[:HEAD], len(raw)
            try:
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX)
                    size += len(raw)
            except (OSError, EOFError, zlib.error):
                yield (lineno, head, f"line of {size}+ bytes exceeds the limit of {MAX}; the file is unreadable after it")
                return
            yield (lineno, head, f"line of {size} bytes exceeds the limit of {MAX}")
            continue
        stripped = raw.strip()
        if stripped:
            yield (lineno, stripped, None)
    if not any_line:
        yield (0, None, "empty file: no events")


class _Failing(io.RawIOBase):
    """Gives `data` in reads of random sizes, then raises OSError (when `fail`)."""

    def __init__(self, data: bytes, fail: bool, rng: random.Random) -> None:
        self.data, self.pos, self.fail, self.rng = data, 0, fail, rng

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.pos >= len(self.data):
            if self.fail:
                raise OSError("disk went away")
            return 0
        n = min(len(b), self.rng.randint(1, 64), len(self.data) - self.pos)
        b[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def _log(rng: random.Random) -> bytes:
    good = b'{"match_id":"m-%d","seq":%d,"type":"pass","seat":0}'
    lines = []
    for k in range(rng.randint(0, 14)):
        kind = rng.random()
        if kind < 0.45:
            lines.append(good % (k, rng.randint(0, 9)))
        elif kind < 0.55:
            lines.append(rng.choice([b"", b"   ", b"\r"]))
        elif kind < 0.75:  # around the limit, naming a match in its head
            size = rng.choice([MAX - 1, MAX, MAX + 1, MAX + 2, 2 * MAX, 5 * MAX + 7])
            body = b'{"match_id":"long-%d","seq":3,"x":"' % k
            lines.append((body + b"a" * size)[:size])
        elif kind < 0.85:
            lines.append(good % (k, 1) + b"\r")
        else:
            lines.append(b"not json " + bytes(rng.randrange(32, 127) for _ in range(rng.randint(0, 30))))
    text = b"\n".join(lines)
    return text if rng.random() < 0.3 else text + b"\n"


def _streams(data: bytes, rng: random.Random) -> list[tuple[str, Any]]:
    """(label, maker of a fresh stream) for the same content: plain, failing, gzip whole and cut."""
    gz = gzip.compress(data)
    cut = gz[: rng.randint(1, max(1, len(gz) - 1))]
    seed = rng.random()
    return [
        ("plain", lambda: io.BufferedReader(io.BytesIO(data))),
        ("failing", lambda: io.BufferedReader(_Failing(data, True, random.Random(seed)), buffer_size=rng.choice([16, 64, 256]))),
        ("gzip", lambda: io.BufferedReader(codec.Gunzip(io.BytesIO(gz)))),
        ("cut gzip", lambda: io.BufferedReader(codec.Gunzip(io.BytesIO(cut)))),
    ]


def _items(it: Iterator[Any]) -> list[Any]:
    out = []
    for x in it:
        if isinstance(x, ParsedLine):
            out.append(("event", x.line, x.event.to_dict()))
        elif isinstance(x, LineError):
            out.append(("error", x.line, x.error.code, x.error.message, x.error.match_id, x.error.seq, x.raw))
        else:
            out.append(x)
    return out


def _size(msg: str) -> int:
    return int(msg.split(" ")[2].rstrip("+"))


def _cut_size(want: list[Any], got: list[Any], at: int) -> tuple[list[Any], list[Any]]:
    """When the stream fails inside an over-long line, `readline` dropped the bytes its failing
    call had read, so the reference under-counts the line's size; the block reader counts every
    byte it received. Their sizes are compared (the block reader's at least the reference's),
    then left out; everything else must be equal."""
    want, got = list(want), list(got)
    for k in (-1, -2):
        if len(want) == len(got) >= -k and len(want[k]) > at and str(want[k][at]).startswith("line of"):
            ws, gs = _size(want[k][at]), _size(got[k][at])
            assert gs >= ws
            want[k] = want[k][:at] + (want[k][at].replace(str(ws), "N", 1),) + want[k][at + 1 :]
            got[k] = got[k][:at] + (got[k][at].replace(str(gs), "N", 1),) + got[k][at + 1 :]
            break
    return want, got


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 18])
def test_block_reader_gives_what_readline_gave(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "MAX_LINE_BYTES", MAX)
    monkeypatch.setattr(codec, "HEAD_BYTES", HEAD)
    monkeypatch.setattr(ingest_parse, "MAX_LINE_BYTES", MAX)
    monkeypatch.setattr(codec, "READ_BLOCK", block)
    rng = random.Random(block)
    kinds = set()
    for _ in range(150):
        data = _log(rng)
        for label, make in _streams(data, rng):
            want = _items(_reference_iter_lines(make(), "f"))
            got = _items(codec.iter_lines(make(), "f"))
            want_split = list(_reference_split_lines(make()))
            monkeypatch.setattr(ingest_parse, "open_stored", lambda _p, make=make: make())
            got_split = list(ingest_parse.split_lines("f"))
            if label == "failing":  # see _cut_size
                (want, got), (want_split, got_split) = _cut_size(want, got, 3), _cut_size(want_split, got_split, 2)
            assert got == want, (label, data)
            assert got_split == want_split, (label, data)
            kinds.update(msg.split(" ")[0] for _n, _raw, msg in want_split if msg)
    assert kinds >= {"line", "unreadable", "empty"}  # over-long lines, failures and empty files were met
