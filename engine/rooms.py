"""Who deals next, checked across a room's matches (events.md §2 `room` / `round`).

A single-match replay cannot check a later match's dealer: the rules name it from the previous match
of the same room. Each game states its rule as a small method on its game object:
- `next_dealer(state) -> int | None`: the seat the rule names to deal (lead, bid first) the next
  match, or None when it names nobody (Sichuan and Anshun `dealer_rule: random`: "the record states
  its dealer", SC-R23 / AS-R17; an unfinished hand);
- `next_is_first_match(state) -> bool` (optional, Pao De Kuai): after a forfeit the next match is a
  first match again, `round` 1 (PDK-R16);
- `next_dealer_rule`: the rule id a wrong dealer breaks (PDK-R2, ZJH-R2, SC-R23, HZ-R15, AS-R17).
Dou Dizhu has no such rule (no `next_dealer`): its matches are never checked.

`check_room` is a pure function over the room's matches in order (`RoomMatch`, one per match, built
by `room_match` from a replay); `check_rooms` groups matches into rooms and orders them
(`order_key`). A finding names the later match, seq 0 (`match_started`, whose `dealer` is wrong),
code `bad_deal`, the rule id, the room and the previous match. `paiju replay` (engine/cli_replay.py)
and the ingest (ingest/rooms.py, the `room_findings` table) report the same findings.

Choices where the rule files are silent:
- The previous match of a match with `round` r ≥ 2 is the match just before it in the room's order,
  and only if its `round` is r − 1 (a gap, or no earlier match stored yet: nothing to check). A
  room's order is `order_key`: by `match_started.ts` (a match without one last), then `round`, then
  match id; a room is one (game, `room`) pair.
- The rules name a person ("the winner deals next"), so the dealer seat of the later match must hold
  the player id the previous match's rule names; a player who left the room is not checked.
- A previous match that did not finish (incomplete, invalid) names nobody.
- Consecutive matches of different games in one room are not compared.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise
from typing import Any

from engine.registry import get_game
from engine.replay import Entry, ReplayResult, replay_final
from events.models import MatchStarted


@dataclass(frozen=True, slots=True)
class RoomMatch:
    """What the check needs of one match of a room."""

    match_id: str
    game: str
    room: str
    round: int
    players: tuple[str, ...]
    dealer: int
    next_dealer: int | None = None
    """The seat the game's rule names to deal the next match (None: nobody named)."""
    next_first: bool = False
    """The next match must be a first match, `round` 1 (PDK-R16 after a forfeit)."""
    rule: str = ""
    """The rule id of the next-dealer rule (or of `next_first`)."""
    ts: str | None = None
    """`match_started.ts`: the room's order (`order_key`)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """A match whose `match_started` breaks a rule across matches."""

    match_id: str
    seq: int
    code: str
    rule: str
    message: str
    """Why, without the match id, seq, code and rule id (`line` puts them in front)."""
    game: str = ""
    room: str = ""
    previous: str = ""
    """The match of the same room whose end names this match's dealer (or its `round` 1)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line: match id, seq, code, rule id, why (`paiju replay`, the ingest summary)."""
        return f"{self.match_id} seq {self.seq} {self.code} {self.rule}: {self.message}"


def order_key(ts: str | None, rnd: int | None, match_id: str) -> tuple[bool, str, int, str]:
    """A match's place in its room: by `match_started.ts` (none: last), then `round`, then match id."""
    return (ts is None, ts or "", rnd or 1, match_id)


def check_room(matches: Sequence[RoomMatch]) -> list[Finding]:
    """The findings of one room's matches, given in the room's order."""
    out: list[Finding] = []
    for prev, cur in pairwise(matches):
        if cur.round < 2 or prev.round != cur.round - 1 or prev.game != cur.game:
            continue
        if prev.next_first:
            out.append(Finding(cur.match_id, 0, "bad_deal", prev.rule, (
                f"match {prev.match_id} ended by a forfeit, so the next match of room {cur.room} "
                f"is a first match (round 1), not round {cur.round}"
            ), cur.game, cur.room, prev.match_id))  # fmt: skip
            continue
        if prev.next_dealer is None:
            continue
        want = prev.players[prev.next_dealer]
        if want not in cur.players or cur.players[cur.dealer] == want:
            continue
        out.append(Finding(cur.match_id, 0, "bad_deal", prev.rule, (
            f"dealer {cur.dealer} ({cur.players[cur.dealer]}) of room {cur.room} round {cur.round}: "
            f"match {prev.match_id} names {want} (seat {cur.players.index(want)}) to deal next"
        ), cur.game, cur.room, prev.match_id))  # fmt: skip
    return out


def check_rooms(matches: Iterable[RoomMatch]) -> list[Finding]:
    """The findings of matches of any rooms, in any order: each room (game, `room`) in `order_key`
    order; rooms by (game, room)."""
    rooms: dict[tuple[str, str], list[RoomMatch]] = defaultdict(list)
    for m in matches:
        rooms[(m.game, m.room)].append(m)
    out: list[Finding] = []
    for key in sorted(rooms):
        out.extend(check_room(sorted(rooms[key], key=lambda m: order_key(m.ts, m.round, m.match_id))))
    return out


def room_match(entries: Sequence[Entry]) -> RoomMatch | None:
    """Replay one match and summarise it for `check_room`; None when it has no `room` (or no
    `match_started`). Pure: the engine's replay of the events given."""
    if started_of(entries) is None:
        return None
    return summarise(entries, *replay_final(entries))


def started_of(entries: Sequence[Entry]) -> MatchStarted | None:
    """The match's `match_started` when it names a room (else None: nothing to check)."""
    started = next((e for e in entries if isinstance(e, MatchStarted)), None)
    return started if started is not None and started.room is not None else None


def summarise(entries: Sequence[Entry], result: ReplayResult, state: Any) -> RoomMatch | None:
    """`room_match` from a replay already made (its result and last state)."""
    started = started_of(entries)
    if started is None:
        return None
    game = get_game(started.game)
    nxt: int | None = None
    first = False
    rule = str(getattr(game, "next_dealer_rule", ""))
    named = getattr(game, "next_dealer", None)
    if result.status == "finished" and state is not None and named is not None:
        nxt = named(state)
        restart = getattr(game, "next_is_first_match", None)
        if restart is not None and restart(state):
            first, rule, nxt = True, str(getattr(game, "first_match_rule", rule)), None
    return RoomMatch(
        match_id=started.match_id, game=started.game, room=started.room, round=started.round or 1,
        players=tuple(started.players), dealer=started.dealer, next_dealer=nxt, next_first=first, rule=rule,
        ts=started.ts,
    )  # fmt: skip
