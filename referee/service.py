"""The referee without HTTP: the open matches, the journal, the answers, the metrics.

`Referee.submit(owner, path_match_id, raw)` checks one event line and journals it (accepted or
refused, `referee.journal`); the caller awaits `journal.durable()` before it answers. A restart
rebuilds every match from the journal (`Referee.recover`): each accepted record is offered again
to a fresh `LiveMatch`, in journal order, so the state is the one acknowledged before the stop.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from events.codec import event_to_json, parse_line
from events.errors import ContractError
from events.models import AnyEvent
from referee.journal import Journal, accepted_record, read_records, refused_record
from referee.live import LiveMatch

log = logging.getLogger("paiju.referee")

PARSE_CODES = frozenset({"bad_json", "bad_field", "unknown_type"})
"""Refusals of the line itself (422); a `conflict` is 409; every other refusal is the rules' (422)."""


@dataclass(slots=True)
class Answer:
    """One event's answer: `{match_id, seq, accepted, error, status, turn, phase}` and its HTTP status."""

    body: dict[str, Any]
    http: int


def read(raw: bytes) -> AnyEvent | ContractError:
    """One event line parsed by `events.codec.parse_line` (what `paiju ingest` uses), or its refusal."""
    try:
        return parse_line(raw)
    except ContractError as err:
        return err


class NotYours(Exception):
    """The match exists and belongs to another token (answered 404: its existence is not shown)."""


class Metrics:
    """Prometheus metrics in the referee's own registry (no global state)."""

    def __init__(self, open_matches: Any) -> None:
        self.registry = CollectorRegistry()
        self.events = Counter("paiju_referee_events", "events answered, by result and error code",
                              ["result", "code"], registry=self.registry)  # fmt: skip
        self.latency = Histogram(
            "paiju_referee_request_seconds", "time from a request's arrival to its answer (journal fsync included)",
            ["endpoint"], registry=self.registry,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )  # fmt: skip
        self.open = Gauge("paiju_referee_open_matches", "matches started and not finished", registry=self.registry)
        self.open.set_function(open_matches)
        self.fsyncs = Gauge("paiju_referee_journal_fsyncs", "journal fsyncs since the start (group commit)",
                            registry=self.registry)  # fmt: skip
        self.gc_pause = Histogram(
            "paiju_referee_gc_full_collection_seconds", "pauses of Python's full (generation 2) garbage collections",
            registry=self.registry, buckets=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )  # fmt: skip
        self.fsync_seconds = Histogram(
            "paiju_referee_journal_fsync_seconds", "duration of each journal fsync (every answer waits for one)",
            registry=self.registry, buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )  # fmt: skip


GC_EVERY = 2000
"""Events and requests between two of the referee's own garbage collections (`calm_gc`)."""


class GcPacer:
    """The referee's garbage collector: its own collections, paced by the work done (`calm_gc`)."""

    __slots__ = ("every", "pending")

    def __init__(self, every: int) -> None:
        self.every = every
        self.pending = 0

    def tick(self, n: int = 1) -> None:
        """Count `n` events or requests done; collect (and freeze the survivors) every `every` of them."""
        self.pending += n
        if self.pending >= self.every:
            self.pending = 0
            gc.collect()


def calm_gc(pauses: Histogram, every: int = GC_EVERY) -> GcPacer:
    """Keep Python's garbage collections cheap and short while the referee runs (bench/referee.py).

    Every match stays in memory, so the automatic collector would scan a heap that only grows
    (0.3 s at start-up, 0.7 s past 90,000 held events), and it traverses each object kept up to
    three times (generations 0, 1, 2) before it settles: about 15 % of the server's CPU an event
    (measured: 48.6-52.9 against 41.7-42.0 µs with collections off, batches of 16, 1,000 matches).
    So: freeze what lives now (imports, the recovered matches), turn the automatic collector off,
    and collect every `every` events or requests (`GcPacer.tick`, called by the app), freezing the
    survivors of each collection: each kept object is traversed once, and a pause scans only what
    came since the last one. The cost: a reference cycle frozen while alive is never collected
    when it dies (refcounting still frees everything else; the reducers' states and events hold no
    cycles). Each full collection's pause is observed in `pauses`.
    """
    started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter()
            return
        pauses.observe(time.perf_counter() - started[0])
        gc.freeze()

    gc.collect()
    gc.freeze()
    gc.callbacks.append(on_gc)
    gc.disable()
    return GcPacer(every)


class Referee:
    """All matches of this process, keyed by match id."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.gc_pacer: GcPacer | None = None
        """Set by `paiju serve` (`calm_gc`): the app ticks it once a request and once an event."""
        self.matches: dict[str, LiveMatch] = {}
        self.n_open = 0
        self.metrics = Metrics(lambda: self.n_open)
        self.metrics.fsyncs.set_function(lambda: self.journal.fsyncs)
        self.journal.on_fsync = self.metrics.fsync_seconds.observe
        self._accepted = self.metrics.events.labels("accepted", "")
        self._accepted_unreported = 0
        """Accepted events not yet added to the counter (`report_metrics`): one add per scrape, not
        one locked increment per event."""

    # ------------------------------------------------------------------ start-up

    def recover(self) -> tuple[int, int]:
        """Rebuild every match from the journal; returns (accepted records, refused records)."""
        n_acc = n_ref = 0
        for _, rec in read_records(self.journal.path):
            if not rec.accepted:
                n_ref += 1
                continue
            try:
                ev = parse_line(rec.line)
            except ContractError as e:  # cannot happen for a line this referee accepted
                log.error("journal: an accepted line no longer parses (%s): skipped", e)
                continue
            m = self.matches.get(ev.match_id)
            if m is None:
                m = LiveMatch(ev.match_id, rec.owner)
            out = m.offer(ev)
            if not out.accepted:
                log.error("journal: %s seq %s no longer applies (%s): skipped", ev.match_id, ev.seq, out.error)
                continue
            if ev.seq == 0:
                self.matches[ev.match_id] = m
            n_acc += 1
        self.n_open = sum(1 for m in self.matches.values() if not m.finished)
        return n_acc, n_ref

    # ------------------------------------------------------------------ one event

    def submit(self, owner: str, path_match_id: str | None, raw: bytes, parsed: AnyEvent | ContractError | None = None) -> Answer:
        """Check one event line and journal the verdict.

        `path_match_id`: the match of `/v1/matches/{id}/events` (the body's must equal it), or None
        for the multiplexed `/v1/events` (the line's own). `parsed`: `read(raw)` if already done.
        """
        if parsed is None:
            parsed = read(raw)
        if isinstance(parsed, ContractError):
            err = parsed
            if path_match_id is None:
                path_match_id = err.match_id
            elif err.match_id is not None and err.match_id != path_match_id:
                err = ContractError("bad_field", f"the body's match_id {err.match_id!r} is not the path's {path_match_id!r}",
                                    match_id=path_match_id, seq=err.seq)  # fmt: skip
            return self._refused(owner, path_match_id, err.seq, err, raw, self.matches.get(path_match_id or ""))
        ev = parsed
        if path_match_id is None:
            path_match_id = ev.match_id
        elif ev.match_id != path_match_id:
            err = ContractError("bad_field", f"the body's match_id {ev.match_id!r} is not the path's {path_match_id!r}",
                                match_id=path_match_id, seq=ev.seq, type=ev.type)  # fmt: skip
            return self._refused(owner, path_match_id, ev.seq, err, raw, self.matches.get(path_match_id))
        m = self.matches.get(path_match_id)
        if m is not None and m.owner != owner:
            raise NotYours(path_match_id)
        new = m is None
        if m is None:
            m = LiveMatch(path_match_id, owner)
        was_finished = m.finished
        out = m.offer(ev)
        if not out.accepted:
            assert out.error is not None
            return self._refused(owner, path_match_id, ev.seq, out.error, raw, None if new else m)
        if not out.duplicate:
            line = raw if b"\n" not in raw and b"\r" not in raw else event_to_json(ev).encode("utf-8")
            self.journal.append(accepted_record(owner, line))
            if new:
                self.matches[path_match_id] = m
                self.n_open += 1
            if m.finished and not was_finished:
                self.n_open -= 1
        self._accepted_unreported += 1
        turn, phase = m.turn_phase()
        return Answer({"match_id": path_match_id, "seq": ev.seq, "accepted": True, "error": None,
                       "status": m.status(), "turn": turn, "phase": phase}, 200)  # fmt: skip

    def _refused(self, owner: str, match_id: str | None, seq: int | None, err: ContractError, raw: bytes,
                 m: LiveMatch | None) -> Answer:  # fmt: skip
        self.journal.append(refused_record(owner, match_id, seq, err.code, err.message, raw))
        self.metrics.events.labels("refused", err.code).inc()
        if m is not None and m.owner == owner:
            turn, phase = m.turn_phase()
            status: str | None = m.status()
        else:
            turn, phase, status = None, None, None  # type: ignore[assignment]
        http = 409 if err.code == "conflict" else 422
        return Answer({"match_id": match_id, "seq": seq, "accepted": False,
                       "error": {"code": err.code, "message": err.message},
                       "status": status, "turn": turn, "phase": phase}, http)  # fmt: skip

    def report_metrics(self) -> None:
        """Bring the counters up to date (before /metrics is read)."""
        n, self._accepted_unreported = self._accepted_unreported, 0
        if n:
            self._accepted.inc(n)

    # ------------------------------------------------------------------ reading

    def foreign(self, owner: str, parsed: list[AnyEvent | ContractError]) -> str | None:
        """The first match id among `parsed` that another token started (None if there is none)."""
        for p in parsed:
            mid = p.match_id
            if mid is not None:
                m = self.matches.get(mid)
                if m is not None and m.owner != owner:
                    return mid
        return None

    def may_write(self, owner: str, match_id: str) -> bool:
        """False when the match exists and another token started it."""
        m = self.matches.get(match_id)
        return m is None or m.owner == owner

    def get(self, owner: str, match_id: str) -> LiveMatch | None:
        m = self.matches.get(match_id)
        if m is None or m.owner != owner:
            return None
        return m
