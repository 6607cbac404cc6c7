"""The referee's journal: every accepted or refused event, on disk before its answer goes out.

One append-only file per referee process (`journal.log` in the journal folder), one record a line:

    A <TAB> owner <TAB> the event's line as received           an accepted event
    R <TAB> owner <TAB> {"match_id", "seq", "code", "message", "raw"}   a refused one (JSON)

`owner` names the token that sent it (`referee.auth.owner_of`), so a restart knows whose each
match is. Group commit: records are appended to a buffer in the event loop; one writer task
writes and `fsync`s everything buffered so far while the next requests keep buffering, then
releases every request whose records that `fsync` covered (`durable()`), so N concurrent requests
cost one `fsync`, not N. A process killed mid-write leaves at most one torn last line, which was
never acknowledged; `read_records` drops it and `Journal` truncates it on open.
The folder is locked (`flock`, released by the kernel when the process dies): one referee per
journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

JOURNAL = "journal.log"
LOCK = ".lock"


class JournalBusy(RuntimeError):
    """Another referee holds this journal folder."""


class JournalFailed(RuntimeError):
    """A write or fsync of the journal failed: nothing more can be acknowledged."""


@dataclass(frozen=True, slots=True)
class Record:
    accepted: bool
    owner: str
    line: bytes
    """Accepted: the event's line. Refused: the JSON object of the refusal."""

    def refusal(self) -> dict[str, object]:
        return json.loads(self.line)  # type: ignore[no-any-return]


def accepted_record(owner: str, line: bytes) -> bytes:
    return b"A\t" + owner.encode() + b"\t" + line + b"\n"


def refused_record(owner: str, match_id: str | None, seq: int | None, code: str, message: str, raw: bytes) -> bytes:
    body = {"match_id": match_id, "seq": seq, "code": code, "message": message,
            "raw": raw.decode("utf-8", errors="backslashreplace")}  # fmt: skip
    return b"R\t" + owner.encode() + b"\t" + json.dumps(body, ensure_ascii=False).encode() + b"\n"


def complete_length(path: Path) -> int:
    """Bytes of the file up to and including its last newline (a torn last line is not a record)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb") as f:
        pos = size
        while pos > 0:
            step = min(1 << 16, pos)
            f.seek(pos - step)
            block = f.read(step)
            k = block.rfind(b"\n")
            if k >= 0:
                return pos - step + k + 1
            pos -= step
    return 0


def parse_record(raw: bytes) -> Record | None:
    """One journal line (without its newline) → a Record; None for a line that is not one."""
    kind, sep1, rest = raw.partition(b"\t")
    owner, sep2, line = rest.partition(b"\t")
    if not sep1 or not sep2 or kind not in (b"A", b"R"):
        return None
    return Record(kind == b"A", owner.decode("utf-8", errors="replace"), line)


def read_records(path: Path, start: int = 0, end: int | None = None) -> Iterator[tuple[int, Record]]:
    """(offset after the line, record) of every complete line from `start` to `end` (or the last newline)."""
    stop = complete_length(path) if end is None else end
    if stop <= start:
        return
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        while pos < stop:
            raw = f.readline(stop - pos)
            if not raw:
                return
            pos += len(raw)
            rec = parse_record(raw.rstrip(b"\n"))
            if rec is not None:
                yield pos, rec


class Journal:
    """The append-only journal file with group commit (see the module docstring)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / JOURNAL
        self._lock_fd = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise JournalBusy(f"another referee is using the journal {self.folder}") from None
        keep = complete_length(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if os.fstat(self._fd).st_size != keep:  # a torn last line: never acknowledged
            os.ftruncate(self._fd, keep)
            os.fsync(self._fd)
        self._buf = bytearray()
        self._waiters: list[asyncio.Future[None]] = []
        self._flushing = False
        self.failed: str | None = None
        self.fsyncs = 0
        self.on_fsync: Callable[[float], None] | None = None
        """Called with each fsync's duration in seconds (the metrics' histogram; from the writer thread)."""
        self.records = 0
        self._closed = False

    def append(self, record: bytes) -> None:
        """Buffer one record (`accepted_record`/`refused_record`); `durable()` waits until it is on disk."""
        if self.failed is not None:
            raise JournalFailed(self.failed)
        self._buf += record
        self.records += 1

    async def durable(self) -> None:
        """Return when everything appended so far is written and fsynced (group commit)."""
        if self.failed is not None:
            raise JournalFailed(self.failed)
        if not self._buf and not self._flushing:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().create_task(self._flush())
        await fut

    async def _flush(self) -> None:
        try:
            while self._waiters:
                data, self._buf = bytes(self._buf), bytearray()
                waiters, self._waiters = self._waiters, []
                if data:
                    try:
                        await asyncio.to_thread(self._write, data)
                    except OSError as e:
                        self.failed = f"journal write failed: {e.strerror or e}"
                        for w in waiters + self._waiters:
                            if not w.done():
                                w.set_exception(JournalFailed(self.failed))
                        self._waiters = []
                        return
                for w in waiters:
                    if not w.done():
                        w.set_result(None)
        finally:
            self._flushing = False

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        t = time.perf_counter()
        os.fsync(self._fd)
        self.fsyncs += 1
        if self.on_fsync is not None:
            self.on_fsync(time.perf_counter() - t)

    def write_now(self, record: bytes) -> None:
        """Append and fsync one record synchronously (start-up and tests; not in the event loop)."""
        self._write(record)

    def close(self) -> None:
        """Flush what is buffered, close the file, release the folder (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            if self._buf and self.failed is None:
                self._write(bytes(self._buf))
                self._buf = bytearray()
        with contextlib.suppress(OSError):
            os.close(self._fd)
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
