"""The replay driver: a fold of a game's reducer over one match's events (events.md §6).

`replay(entries)` returns the contract's result; `steps(entries)` yields each event with the state
after it. `entries` are one match's events in file order; a line that could not be parsed but
named this match appears as a `ContractError` at its place, so the match stops there.
Strict or lenient is the caller's choice: `replay(..., strict=True)` raises the first error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, repeat
from operator import attrgetter
from typing import Any

from engine.base import Game, Settlement
from engine.errors import Illegal
from engine.registry import GameNotAvailable, get_game, turn_phase
from events.chain import event_json, link
from events.codec import LineError, ParsedLine
from events.errors import ContractError
from events.models import AnyEvent, Dealt, MatchStarted
from events.notation import CARD_GAMES, CARD_SET, MAHJONG_GAMES, TILE_SET

Entry = AnyEvent | ContractError


_RESULT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""`json.dumps(…, ensure_ascii=False, separators=(",", ":"))` with its encoder built once: with
options, `json.dumps` builds a new encoder on every call (issue 22: one a match)."""


@dataclass
class ReplayResult:
    """One match's replay result; `to_dict()` is the contract's object, in its field order."""

    match_id: str
    game: str | None = None
    status: str = "incomplete"
    events: int = 0
    error: dict[str, Any] | None = None
    winners: list[int] = field(default_factory=list)
    deltas: list[int] | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    recorded_deltas: list[int] | None = None
    settlement_matches: bool | None = None
    chain_ok: bool | None = None
    # not part of the §6 object, kept for reports
    final_hash: str | None = None
    players: list[str] | None = None
    rules: dict[str, Any] | None = None
    base: int | None = None
    dealer: int | None = None
    refused: list[ContractError] = field(default_factory=list)
    """Lines of this match that are not among its events (`merge_entries`): conflicts, and
    unreadable lines at a seq an event holds or with no readable seq. Not part of the §6 object."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "status": self.status,
            "events": self.events,
            "error": self.error,
            "winners": self.winners,
            "deltas": self.deltas,
            "items": self.items,
            "recorded_deltas": self.recorded_deltas,
            "settlement_matches": self.settlement_matches,
            "chain_ok": self.chain_ok,
        }

    def to_json(self) -> str:
        return _RESULT_JSON(self.to_dict())


@dataclass
class Step:
    """One applied (or refused) event and the state after it."""

    seq: int | None
    event: AnyEvent | None
    state: Any
    error: ContractError | None = None


def order_entries(entries: Sequence[Entry]) -> list[Entry]:
    """Stable order by seq; an entry without a seq keeps its place after the entry before it."""
    # integer keys: a seq of any size sorts without float overflow
    keyed: list[tuple[int, int, int, Entry]] = []
    last = -1
    for i, e in enumerate(entries):
        s = e.seq
        if s is not None:
            last = s
        keyed.append((last, 0 if s is not None else 1, i, e))
    keyed.sort(key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in keyed]


SAME_EVENT_SQL = "(canon = first_canon AND (hash IS NULL OR hash IS NOT DISTINCT FROM first_hash))"
"""`same_event` over the lake's merge columns (ingest/pipeline.py): `canon` is the SHA-256 of the
event's `event_json`, `first_*` the first stored row at that (match, seq)."""


def same_event(stored: AnyEvent, resent: AnyEvent) -> bool:
    """Whether a re-send at a stored seq is the stored event (a no-op) or a `conflict` (events.md §5).

    The same content (canonical JSON without `hash`), and a `hash` that is absent (the store
    fills it in) or the stored one: a re-send whose hash differs from the stored event's does
    not verify, so it is not the same event (issue 17). `SAME_EVENT_SQL` is this rule in SQL.
    """
    return (resent.hash is None or resent.hash == stored.hash) and event_json(stored) == event_json(resent)


@dataclass
class Merged:
    """One match's lines merged as the store merges them (`merge_entries`)."""

    entries: list[Entry]
    """One entry per seq, in seq order: the event, or the refusal of an unreadable line at a seq
    no event holds (the match stops there with that error)."""
    refused: list[ContractError]
    """Every other line but identical re-sends, in arrival order."""
    duplicates: int = 0


_SEQ_OF = attrgetter("seq")


def _errors_in(entries: Sequence[Entry]) -> int:
    """How many entries are unreadable lines, in one pass in C (a generator costs a frame step
    an entry: issue 22)."""
    return sum(map(isinstance, entries, repeat(ContractError)))


def _any_hash(entries: Sequence[Entry]) -> bool:
    """Whether an entry carries a `hash` (an unreadable line has none), in one pass in C."""
    return not {*map(getattr, entries, repeat("hash"), repeat(None))} <= {None}


def merge_entries(entries: Sequence[Entry]) -> Merged:
    """The one decision on re-sends and conflicts (events.md §5), for `replay`, `dispute` and the lake.

    In arrival order: the first event at a seq is the event; a later one that is `same_event` is
    an identical re-send (a no-op), any other is a `conflict`, quarantined: it neither replaces
    the stored event nor stops the match. A line that could not be read is charged to the seq its
    text names when no event holds that seq (the match is `invalid` there with that error);
    otherwise, or without a readable seq, it is quarantined as well.
    """
    events: dict[int, AnyEvent] = {}
    if _errors_in(entries) == 0:  # most matches: events only, once each
        if list(map(_SEQ_OF, entries)) == list(range(len(entries))):  # and in seq order (C passes)
            return Merged(list(entries), [])
        for e in entries:
            if events.setdefault(e.seq, e) is not e:
                break
        else:
            return Merged([events[s] for s in sorted(events)], [])
        events = {}
    unreadable: dict[int, ContractError] = {}
    refused: list[tuple[int, ContractError]] = []
    duplicates = 0
    for i, e in enumerate(entries):
        if isinstance(e, ContractError):
            if e.seq is None or e.seq in unreadable or e.seq in events:
                refused.append((i, e))
            else:
                unreadable[e.seq] = e
            continue
        first = events.get(e.seq)
        if first is None:
            events[e.seq] = e
        elif same_event(first, e):
            duplicates += 1
        else:
            msg = f"a different event is already at seq {e.seq} (events.md §5: append-only); the first one received stands"
            refused.append((i, ContractError("conflict", msg, match_id=e.match_id, seq=e.seq, type=e.type)))
    late = [err for s, err in unreadable.items() if s in events]
    if late:
        pos = {id(e): i for i, e in enumerate(entries)}
        refused.extend((pos[id(err)], err) for err in late)
    merged: dict[int, Entry] = {**unreadable, **events}
    refused.sort(key=lambda t: t[0])
    return Merged([merged[s] for s in sorted(merged)], [err for _, err in refused], duplicates)


def gap_error(seq: int, expected: int) -> Illegal:
    """Seq `seq` arrived where seq `expected` was due (events.md §5/§6): `not_started` when no
    seq 0 came first, else `seq_gap` named by the seq after the gap."""
    if expected == 0:
        return Illegal("not_started", f"the match has no seq 0 (match_started); its first line is seq {seq}")
    return Illegal("seq_gap", f"seq {seq} follows seq {expected - 1}; seq {expected} is missing")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one event offered to a `Fold`: applied, an identical re-send, or refused."""

    accepted: bool
    duplicate: bool = False
    error: ContractError | None = None


_DRIVER_TYPES = frozenset({"match_started", "dealt", "settled"})
"""Event types `Fold` decides itself, at any seq; every other type past seq 1 goes to the game."""

APPLIED = Outcome(True)
DUPLICATE = Outcome(True, duplicate=True)


class Fold:
    """One match's fold, one event at a time: the step `replay()` takes for each event and the
    live referee (`referee/live.py`) takes as each event arrives (events.md §5-§6).

    `step(ev)` checks, in this order: a re-send at a stored seq (`same_event`: a no-op, else
    `conflict`), `not_started`/`seq_gap`, the hash chain (`bad_hash`), then the per-event rules
    (seq 0 and 1, `settled`, `after_end`, seat ranges, the game's `apply`). A refused event
    changes nothing. The chain is linked from the first hashed event on (the events before it
    are linked then, once); `link_chain=True` links from the start.
    """

    __slots__ = ("any_hash", "chain_broken", "events", "finished", "game", "link_chain", "n", "prev_hash",
                 "result", "rules", "settled_seen", "started", "state")  # fmt: skip

    def __init__(self, match_id: str, *, link_chain: bool = False) -> None:
        self.result = ReplayResult(match_id=match_id)
        self.events: list[AnyEvent] = []
        self.game: Game | None = None
        self.state: Any = None
        self.rules: Any = None
        self.started: MatchStarted | None = None
        self.n = 0
        self.finished = False
        self.settled_seen = False
        self.prev_hash = ""
        self.any_hash = False
        self.chain_broken = False
        # canonical JSON + SHA-256 is the driver's largest per-event cost: only when a hash is present
        self.link_chain = link_chain

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def step(self, ev: AnyEvent) -> Outcome:
        """Apply `ev` if the contract and the rules allow it; never raises for bad input."""
        fields = ev.__dict__  # plain dict look-ups: a pydantic attribute goes through its __getattr__ hook
        seq, n = fields["seq"], len(self.events)
        if seq != n:
            if seq < n:
                if same_event(self.events[seq], ev):
                    return DUPLICATE  # an identical re-send is a no-op (events.md §5)
                return self._refuse(Illegal("conflict", f"a different event is already at seq {seq} (events.md §5: append-only)"), ev)
            return self._refuse(gap_error(seq, n), ev)
        h = ""
        if self.link_chain or fields["hash"] is not None:
            if not self.link_chain:  # the first hashed event: link the events before it, once
                prev = ""
                for e in self.events:
                    prev = link(prev, e)
                self.prev_hash, self.link_chain = prev, True
            h = link(self.prev_hash, ev)
            if ev.hash is not None and ev.hash != h:
                return self._refuse(Illegal("bad_hash", f"hash of seq {seq} does not verify: the log was edited after it was written (events.md §5)"), ev)
        try:
            self._apply(ev, fields)
        except ContractError as err:
            return self._refuse(err, ev)
        self.events.append(ev)
        if self.link_chain:
            self.prev_hash = h
            if ev.hash is not None:
                self.any_hash = True
        return APPLIED

    def _refuse(self, err: ContractError, ev: AnyEvent) -> Outcome:
        if err.seq is None:
            err.seq = ev.seq
        if err.type is None:
            err.type = ev.type
        err.match_id = self.result.match_id
        return Outcome(False, error=err)

    def turn_phase(self) -> tuple[int | None, str]:
        """Whose turn it is and the phase, as the game's `view` says (`dealing` before the deal)."""
        if self.state is None or self.game is None:
            return None, "dealing"
        return turn_phase(self.game, self.state)

    def _apply(self, ev: AnyEvent, fields: dict[str, Any]) -> None:
        """`step`'s rules part; `fields` is `ev.__dict__`. Event kinds by their `type` string:
        isinstance on pydantic models is a slow metaclass check."""
        if fields["seq"] < 2 or fields["type"] in _DRIVER_TYPES:
            self._apply_driver(ev)
            return
        if self.finished:
            # a game may accept a few events after its end, e.g. more `hu` on the same discard or
            # robbed kong (一炮多响): optional hook `continues_after_end(state, event) -> bool`
            more = getattr(self.game, "continues_after_end", None)
            if more is None or not more(self.state, ev):
                raise Illegal("after_end", f"{ev.type} after the match ended")
        seat = fields.get("seat")
        if seat is not None and seat >= self.n:
            raise Illegal("bad_field", f"seat {seat} does not exist in a {self.n}-player match")
        game = self.game
        assert game is not None
        self.state = state = game.apply(self.state, ev)
        self.finished = game.is_finished(state)

    def _apply_driver(self, ev: AnyEvent) -> None:
        """The events the driver itself checks: seq 0 and 1, and the types that belong there or
        at the end (`_DRIVER_TYPES`) wherever they come."""
        typ = ev.type
        if ev.seq == 0:
            if typ != "match_started":
                raise Illegal("not_started", f"seq 0 must be match_started, got {ev.type}")
            try:
                self.game = get_game(ev.game)
            except GameNotAvailable as e:
                raise Illegal("bad_rules", str(e)) from None
            r = self.result
            r.game, r.players, r.base, r.dealer = ev.game, list(ev.players), ev.base, ev.dealer
            self.n = len(ev.players)
            if self.n not in self.game.seats:
                raise Illegal("bad_field", f"{ev.game} is played by {' or '.join(map(str, self.game.seats))} players, got {self.n}")
            if ev.dealer >= self.n:  # the deal rule of each game (DDZ-R2, PDK-R2, ZJH-R2, mahjong C6)
                rule = getattr(self.game, "deal_rule", "")
                raise Illegal("bad_deal", f"{rule} dealer {ev.dealer} is not a seat of a {self.n}-player match".lstrip())
            self.rules = self.game.parse_rules(ev.rules)
            r.rules = self.rules.options()
            self.started = ev
            return
        if typ == "match_started":
            raise Illegal("wrong_phase", f"match_started at seq {ev.seq}: only seq 0 starts a match")
        assert self.game is not None and self.started is not None
        if ev.seq == 1:
            if typ != "dealt":
                raise Illegal("wrong_phase", f"seq 1 must be dealt, got {ev.type}")
            if len(ev.hands) != self.n:
                raise Illegal("bad_deal", f"dealt has {len(ev.hands)} hands for {self.n} players")
            _check_deal_kind(self.started.game, ev)
            self.state = self.game.start(self.started, ev, self.rules)
            self.finished = self.game.is_finished(self.state)
            return
        if typ == "dealt":
            raise Illegal("wrong_phase", f"dealt at seq {ev.seq}: the deal is seq 1")
        assert typ == "settled", typ  # `_DRIVER_TYPES`
        if not self.finished:
            raise Illegal("wrong_phase", "settled before the match ended (events.md §2: settled follows the end)")
        if self.settled_seen:
            raise Illegal("after_end", "a second settled event")
        if len(ev.deltas) != self.n:
            raise Illegal("bad_field", f"settled has {len(ev.deltas)} deltas for {self.n} seats")
        self.settled_seen = True
        self.result.recorded_deltas = list(ev.deltas)

    def conclude(self) -> ReplayResult:
        """The §6 result of the events applied so far: status, settlement, chain (idempotent).

        `events` is the caller's (`replay` counts every event of the log, past an error too).
        """
        r = self.result
        r.chain_ok = (not self.chain_broken) if self.any_hash else None
        r.final_hash = self.prev_hash or None
        if r.status != "invalid":
            if self.finished and self.game is not None:
                s: Settlement = self.game.settle(self.state)
                r.status = "finished"
                r.deltas = list(s.deltas)
                r.winners = list(s.winners)
                r.items = [dict(i) for i in s.items]
            else:
                r.status = "incomplete"
        if r.recorded_deltas is not None:  # §6: null without a `settled` event, else whether it equals deltas
            r.settlement_matches = r.recorded_deltas == r.deltas
        return r


class _Run:
    """`replay` and `steps` over a whole log: the merge, then one `Fold.step` per entry."""

    def __init__(self, match_id: str, entries: Sequence[Entry]) -> None:
        merged = merge_entries(entries)
        self.entries = merged.entries
        self.fold = Fold(match_id, link_chain=_any_hash(self.entries))
        self.result = self.fold.result
        self.unreadable = _errors_in(self.entries)
        self.result.events = len(self.entries) - self.unreadable
        self.result.refused = merged.refused
        for err in merged.refused:
            err.match_id = match_id
        self.want_steps = True

    @property
    def state(self) -> Any:
        return self.fold.state

    def _fail(self, err: ContractError, entry: Entry | None) -> ContractError:
        if isinstance(entry, ContractError):
            err = entry
        if err.seq is None and entry is not None:
            err.seq = entry.seq
        if err.type is None and entry is not None:
            err.type = getattr(entry, "type", None)
        err.match_id = self.result.match_id
        self.result.status = "invalid"
        self.result.error = err.as_dict()
        return err

    def _plain(self, k: int) -> tuple[int, ContractError | None]:
        """From entry `k` on (past seq 1), the entries `Fold.step` would simply apply, applied
        here with the same checks in one loop (no `step`/`_apply` call, no `Outcome` an event:
        issue 22): (the index of the first entry it does not take, the refusal of the game's
        `apply` there or None). For `run` without steps, unreadable lines or any hash only (so no
        chain is linked: `Fold.step`'s hash part never runs).

        It takes an entry at its seq, of a type the game decides (not `_DRIVER_TYPES`), before
        the end, with its seat in range, as `Fold.step`/`_apply` check them in that order; any
        other entry goes back to `run`, whose `step` decides it."""
        fold = self.fold
        game = fold.game
        assert game is not None
        entries = self.entries
        n_entries = len(entries)
        apply, is_finished, seats = game.apply, game.is_finished, fold.n
        # optional hook: the functions `apply` dispatches to by event class, called straight
        # (valid while the match is not finished: the loop stops at the end)
        hook = getattr(game, "reducers", None)
        direct: Mapping[type, Any] = hook() if hook is not None else {}
        append = fold.events.append
        state, finished = fold.state, fold.finished
        err: ContractError | None = None
        try:
            while k < n_entries:
                ev = entries[k]
                f = ev.__dict__
                if f["seq"] != k or finished or f["type"] in _DRIVER_TYPES:
                    break
                seat = f.get("seat")
                if seat is not None and seat >= seats:
                    break
                try:
                    state = direct.get(ev.__class__, apply)(state, ev)
                except ContractError as e:
                    err = fold._refuse(e, ev).error
                    break
                finished = is_finished(state)
                append(ev)
                k += 1
        finally:
            fold.state, fold.finished = state, finished
        return k, err

    def run(self) -> Iterator[Step]:
        fold = self.fold
        step, want_steps, unreadable = fold.step, self.want_steps, self.unreadable > 0
        plain = not want_steps and not unreadable and not fold.link_chain
        stopped = False
        entries = self.entries
        n_entries = len(entries)
        # one entry per seq, ascending (merge_entries): the k-th must be seq k
        expected = 0
        while expected < n_entries:
            if expected == 2 and plain:  # seq 0 and 1 applied: the game's events, in one loop
                expected, err = self._plain(2)
                if err is not None:
                    entry = entries[expected]
                    yield Step(entry.seq, entry, fold.state, self._fail(err, entry))
                    stopped = True
                    break
                if expected == n_entries:
                    break
            entry = entries[expected]
            if entry.seq != expected:
                err = gap_error(entry.seq, expected)
                ev = None if isinstance(entry, ContractError) else entry
                err.seq = entry.seq  # the gap is the first fault, named by the seq after it
                yield Step(entry.seq, ev, fold.state, self._fail(err, ev))
                stopped = True
                break
            if unreadable and isinstance(entry, ContractError):
                yield Step(entry.seq, None, fold.state, self._fail(entry, entry))
                stopped = True
                break
            out = step(entry)
            if out is not APPLIED and out.error is not None:
                if fold.link_chain:  # the final hash runs through the event the match stops at
                    fold.prev_hash = link(fold.prev_hash, entry)
                yield Step(entry.seq, entry, fold.state, self._fail(out.error, entry))
                stopped = True
                break
            if want_steps:
                yield Step(entry.seq, entry, fold.state)
            expected += 1
        if stopped:
            fold.any_hash, fold.chain_broken = _whole_chain(self.entries)
        fold.conclude()


def _check_deal_kind(game_id: str, ev: Dealt) -> None:
    """Cards in a card game, tiles in a mahjong game (a `dealt` line may hold either kind)."""
    if game_id in CARD_GAMES:
        want, kind = CARD_SET, "card"
    elif game_id in MAHJONG_GAMES:
        want, kind = TILE_SET, "tile"
    else:
        return
    for s, hand in enumerate(ev.hands):
        for x in hand:
            if x not in want:
                raise Illegal("bad_deal", f"hand {s} holds {x!r}, which is not a {kind} of {game_id}")


def _whole_chain(ordered: Sequence[Entry]) -> tuple[bool, bool]:
    """(any hash present, chain broken) over a whole match, past any refused event.

    A line that could not be parsed breaks the chain for every hashed event after it.
    """
    prev = ""
    any_hash = broken = False
    seen: set[int] = set()
    unreadable = False
    for e in ordered:
        if isinstance(e, ContractError):
            unreadable = True
            continue
        if e.seq in seen:
            continue
        seen.add(e.seq)
        prev = link(prev, e)
        if e.hash is not None:
            any_hash = True
            if unreadable or e.hash != prev:
                broken = True
    return any_hash, broken


def _match_id(entries: Sequence[Entry]) -> str:
    for e in entries:
        if e.match_id is not None:
            return e.match_id
    return ""


def replay(entries: Sequence[Entry], *, strict: bool = False) -> ReplayResult:
    """Replay one match. Lenient by default (the error is in the result); strict raises it."""
    run = _Run(_match_id(entries), entries)
    run.want_steps = False  # only the refused event, if any, comes out as a step
    for step in run.run():
        if step.error is not None and strict:
            raise step.error
    return run.result


def steps(entries: Sequence[Entry]) -> Iterator[Step]:
    """Each event of one match with the state after it; the last step carries the error, if any.

    After the generator is exhausted, `.result` is not available here: call `replay` for it.
    """
    run = _Run(_match_id(entries), entries)
    yield from run.run()


def replay_final(entries: Sequence[Entry]) -> tuple[ReplayResult, Any]:
    """The result and the last state reached (None before the deal), without keeping steps."""
    run = _Run(_match_id(entries), entries)
    run.want_steps = False
    for _ in run.run():
        pass
    return run.result, run.state


def replay_states(entries: Sequence[Entry]) -> tuple[ReplayResult, Any, list[AnyEvent], list[Any]]:
    """`replay_final` plus the events applied (in seq order) and the state after each of them."""
    run = _Run(_match_id(entries), entries)
    states = [s.state for s in run.run() if s.error is None]
    return run.result, run.state, run.fold.events, states


def replay_with_steps(entries: Sequence[Entry]) -> tuple[list[Step], ReplayResult]:
    """Both the steps and the result, from one fold."""
    run = _Run(_match_id(entries), entries)
    out = list(run.run())
    return out, run.result


@dataclass
class GroupedLog:
    """A file's lines grouped by match, in order of first appearance, and the lines with no match."""

    matches: dict[str, list[Entry]] = field(default_factory=dict)
    orphans: list[LineError] = field(default_factory=list)
    line_errors: list[LineError] = field(default_factory=list)


def group_lines(lines: Iterable[ParsedLine | LineError]) -> GroupedLog:
    """Group interleaved matches by `match_id`; a bad line joins its match when it names one."""
    g = GroupedLog()
    _group_into(g, lines)
    return g


def _group_into(g: GroupedLog, lines: Iterable[ParsedLine | LineError]) -> None:
    matches = g.matches
    for ln in lines:
        if isinstance(ln, ParsedLine):
            event = ln.event
            entries = matches.get(event.match_id)
            if entries is None:  # not `setdefault(…, [])`: no list made and dropped a line
                matches[event.match_id] = entries = []
            entries.append(event)
            continue
        g.line_errors.append(ln)
        mid = ln.error.match_id
        if mid is not None:
            g.matches.setdefault(mid, []).append(ln.error)
        else:
            g.orphans.append(ln)


_MATCH_ID_OF = attrgetter("match_id")


def group_blocks(blocks: Iterable[tuple[bool, list[Any]]]) -> GroupedLog:
    """`group_lines` of the blocks of `events.codec.iter_blocks`: a block of events only is
    grouped by runs of one match id (`groupby`, in C: a log's matches mostly come one after the
    other), any other block line by line as `group_lines` does (issue 22)."""
    g = GroupedLog()
    matches = g.matches
    for clean, items in blocks:
        if not clean:
            _group_into(g, items)
            continue
        for mid, run in groupby(items, _MATCH_ID_OF):
            entries = matches.get(mid)
            if entries is None:
                matches[mid] = list(run)
            else:
                entries.extend(run)
    return g
