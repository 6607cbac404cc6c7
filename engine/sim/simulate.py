"""The deterministic simulator: bots play matches through the engine and write contract logs.

Each match draws from its own generator, seeded from (seed, game, index) by SHA-256, so match i
is the same whatever the number of workers or the matches around it: same arguments → same bytes.
The engine itself stays free of randomness; the deal and every system draw are written to the log.
"""

from __future__ import annotations

import gzip
import hashlib
import inspect
import io
import json
import os
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from typing import IO, Any

import orjson

from engine.errors import Illegal
from engine.registry import get_bot, get_game
from engine.workers import process_pool
from events.chain import fields_json, fill_chain
from events.codec import _FIRST_KEYS
from events.errors import ContractError
from events.fastparse import construct
from events.models import (
    EVENT_TYPES,
    Allin,
    AnyEvent,
    Bet,
    Bid,
    Compare,
    Dealt,
    Discard,
    Draw,
    Fold,
    Forfeit,
    Gang,
    Hu,
    Laizi,
    Look,
    MatchStarted,
    Open,
    Pass,
    Peng,
    Play,
    Rob,
    Timeout,
    Ting,
)
from events.notation import ALL_CARDS, CARD_RANKS, CARD_SET, MATCH_ID_RE, TILE_SET

MAX_EVENTS = 5000
"""A match that has not ended after this many events is a bot bug, reported as such."""
PLAYER_POOL = 40
"""Simulated players are drawn from this many names, so per-player statistics mean something."""
EPOCH = datetime(2026, 11, 1, tzinfo=UTC)


class SimulationError(RuntimeError):
    """A bot produced an event the engine refused, or a match did not end."""


def match_rng(seed: int, game_id: str, index: int) -> random.Random:
    """The generator of one match, independent of every other match."""
    digest = hashlib.sha256(f"paiju-sim:{seed}:{game_id}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


@lru_cache(maxsize=1024)
def _day(days: int) -> str:
    return (EPOCH + timedelta(days=days)).strftime("%Y-%m-%d")


def _stamps(index: int, seq: int) -> Iterator[str]:
    """The `ts` of events seq, seq + 1, … of match `index`: EPOCH + 600 s per match index + 3 s
    per seq, as `YYYY-MM-DDTHH:MM:SSZ` (the date string made once per day, the time of day from its
    minute's and second's strings). The one place the simulator's clock is written: `_ts` is its
    first value, the match loop reads one value per event."""
    days, sec = divmod(index * 600 + seq * 3, 86400)
    while True:
        day = _day(days)
        while sec < 86400:
            yield day + _HM[sec // 60] + _SS[sec % 60]
            sec += 3
        days, sec = days + 1, sec - 86400  # midnight: the next day's string


def _ts(index: int, seq: int) -> str:
    """The `ts` of event `seq` of match `index` (`_stamps`' first value)."""
    return next(_stamps(index, seq))


_HM: tuple[str, ...] = tuple(f"T{m // 60:02d}:{m % 60:02d}" for m in range(1440))
"""`THH:MM` of each minute of the day."""
_SS: tuple[str, ...] = tuple(f":{s:02d}Z" for s in range(60))
"""`:SSZ` of each second of a minute: `_HM[sec // 60] + _SS[sec % 60]` = `THH:MM:SSZ` of `sec`."""


def _event(match_id: str, seq: int, index: int, payload: Mapping[str, Any]) -> AnyEvent:
    """The validated event: `Model(match_id=…, seq=…, ts=…, **payload)`. A payload of the shapes
    the bots write (`_TRUSTED`: exact types, known keys, values in range) is built directly as the
    model's validator would build it; anything else goes through the model's own validator with
    the same data (the same event, checks and errors: tests/test_sim_speed_shared.py and
    tests/test_sim_speed_climbing3.py compare both paths with the model on generated payloads)."""
    t = payload["type"]
    ts = _ts(index, seq)
    build = _TRUSTED.get(t)
    if build is not None and seq.__class__ is int and seq >= 0 and (match_id is _ID_OK[0] or _id_ok(match_id)):
        ev = build(match_id, seq, ts, payload)
        if ev is not None:
            return ev
    validate = _VALIDATE.get(t)
    if validate is None:
        validate = _VALIDATE[t] = EVENT_TYPES[t].__pydantic_validator__.validate_python  # KeyError: unknown type
    data = {"match_id": match_id, "seq": seq, "ts": ts, **payload}
    if len(data) != len(payload) + 3:  # the payload names match_id, seq or ts: the model call's TypeError
        return EVENT_TYPES[t](match_id=match_id, seq=seq, ts=ts, **payload)
    return validate(data)  # type: ignore[no-any-return]


_VALIDATE: dict[str, Any] = {}
_STARTED = MatchStarted.__pydantic_validator__.validate_python
_ID_OK: list[str] = [""]
"""The last match id `_id_ok` accepted (a match's events share one id)."""


def _id_ok(match_id: str) -> bool:
    """Does `match_id` pass the envelope's MatchId pattern (an exact str)? `_event` asks when it is
    not the last id accepted."""
    if match_id.__class__ is str and MATCH_ID_RE.fullmatch(match_id) is not None:  # = MatchId's pattern
        _ID_OK[0] = match_id
        return True
    return False


_SEATS = frozenset(range(6))
"""A Seat's values (0..5), for an exact int: `seat in _SEATS` = `0 <= seat <= 5`."""
_CARD_NAME: dict[str, str] = {c: c for c in ALL_CARDS}
_LAIZI_RANKS: frozenset[str] = frozenset([*CARD_RANKS, "BJ", "RJ"])
_Builder = Callable[[str, int, str, Mapping[str, Any]], Any]
# Each builder returns the event the model's validator returns for its payload, or None (the
# validator decides): the field dict in the model's field order (`hash` None, not set), the set
# fields the given ones with `type` (`_Event.model_post_init`), no extra, no private attributes.


def _seat_only(cls: type) -> _Builder:
    """{type, seat}: pass, look, open, fold, allin, timeout, ting, forfeit (its `reason` None, not
    set); a Seat is an exact int 0..5."""
    name = cls.model_fields["type"].default  # type: ignore[attr-defined]
    reason = "reason" in cls.model_fields  # type: ignore[attr-defined]

    def build(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
        seat = p.get("seat")
        if len(p) != 2 or seat.__class__ is not int or seat not in _SEATS:
            return None
        fields = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "type": name, "seat": seat}
        if reason:
            fields["reason"] = None
        return construct(cls, fields, {"match_id", "seq", "ts", "type", "seat"})

    return build


def _seat_and(cls: type, key: str, kind: type, seat_value: bool = False) -> _Builder:
    """{type, seat, key}: `key` an exact `kind` (bid and bet: int, rob: bool, compare: a Seat)."""
    name = cls.model_fields["type"].default  # type: ignore[attr-defined]

    def build(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
        seat = p.get("seat")
        v = p.get(key)
        if len(p) != 3 or seat.__class__ is not int or seat not in _SEATS or v.__class__ is not kind:
            return None
        if seat_value and not 0 <= v <= 5:
            return None
        values = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "type": name, "seat": seat, key: v}
        return construct(cls, values, {"match_id", "seq", "ts", "type", "seat", key})

    return build


def _play(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
    """{type, seat, cards[, as]}: 1..54 card names (copied as exact strs), `as` None or a list of
    exact strs (copied)."""
    seat = p.get("seat")
    raw = p.get("cards")
    if seat.__class__ is not int or seat not in _SEATS or raw.__class__ is not list or not 1 <= len(raw) <= 54:
        return None
    try:
        cards = list(map(_CARD_NAME.__getitem__, raw))  # KeyError: not a card; TypeError: unhashable
    except (KeyError, TypeError):
        return None
    given = {"match_id", "seq", "ts", "type", "seat", "cards"}
    as_ = None
    if len(p) == 4:
        a = p.get("as", p)  # p: no `as` (another key)
        if a is not None:
            if a.__class__ is not list or not all(x.__class__ is str for x in a):
                return None
            as_ = list(a)
        given.add("as_")
    elif len(p) != 3:
        return None
    values = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "type": "play", "seat": seat, "cards": cards,
              "as_": as_}  # fmt: skip
    return construct(Play, values, given)


def _laizi(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
    """{type, rank}: a rank name (3..2, BJ, RJ), an exact str."""
    rank = p.get("rank")
    if len(p) != 2 or rank.__class__ is not str or rank not in _LAIZI_RANKS:
        return None
    values = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "type": "laizi", "rank": rank}
    return construct(Laizi, values, {"match_id", "seq", "ts", "type", "rank"})


def _tile_action(cls: type) -> _Builder:
    """{type, seat, tile}: draw, discard, peng, hu (the mahjong bots' and the wall's events); gang
    with its `kind` too (zhi, bu, an). A tile is an exact str of the contract's tile names."""
    name = cls.model_fields["type"].default  # type: ignore[attr-defined]
    gang = "kind" in cls.model_fields  # type: ignore[attr-defined]
    size = 4 if gang else 3  # the payload's keys

    def build(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
        seat = p.get("seat")
        tile = p.get("tile")
        if len(p) != size or seat.__class__ is not int or seat not in _SEATS:
            return None
        if tile.__class__ is not str or tile not in TILE_SET:
            return None
        values = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "seat": seat, "tile": tile, "type": name}
        if gang:
            kind = p.get("kind")
            if kind.__class__ is not str or kind not in _GANG_KINDS:
                return None
            values["kind"] = kind
            return construct(cls, values, {"match_id", "seq", "ts", "type", "seat", "tile", "kind"})
        return construct(cls, values, {"match_id", "seq", "ts", "type", "seat", "tile"})

    return build


_GANG_KINDS = frozenset(("zhi", "bu", "an"))
_HAND_ITEMS = CARD_SET | TILE_SET
"""What a dealt hand may hold (`Dealt._hands_are_cards_or_tiles`)."""
_STR_ONLY = frozenset((str,))


def _dealt(match_id: str, seq: int, ts: str, p: Mapping[str, Any]) -> Any:
    """{type, hands, wall}: the mahjong deal. 2..6 hands, each a list of exact strs that are cards
    or tiles, the wall a list of exact strs that are tiles (the lists copied); the checks in C
    (`set(map(type, …))`, `issuperset`) instead of the model's per-tile validators."""
    hands = p.get("hands")
    wall = p.get("wall")
    if len(p) != 3 or hands.__class__ is not list or wall.__class__ is not list or not 2 <= len(hands) <= 6:
        return None
    if not _STR_ONLY.issuperset(map(type, wall)) or not TILE_SET.issuperset(wall):
        return None
    copies = []
    for h in hands:
        if h.__class__ is not list or not _STR_ONLY.issuperset(map(type, h)) or not _HAND_ITEMS.issuperset(h):
            return None
        copies.append(list(h))
    values = {"match_id": match_id, "seq": seq, "ts": ts, "hash": None, "type": "dealt", "hands": copies,
              "bottom": None, "wall": list(wall), "stacks": None}  # fmt: skip
    return construct(Dealt, values, {"match_id", "seq", "ts", "type", "hands", "wall"})


_TRUSTED: dict[str, _Builder] = {
    **{m.model_fields["type"].default: _seat_only(m) for m in (Pass, Look, Open, Fold, Allin, Timeout, Ting, Forfeit)},
    "bid": _seat_and(Bid, "value", int),
    "bet": _seat_and(Bet, "amount", int),
    "rob": _seat_and(Rob, "value", bool),
    "compare": _seat_and(Compare, "target", int, seat_value=True),
    "play": _play,
    "laizi": _laizi,
    "dealt": _dealt,
    **{m.model_fields["type"].default: _tile_action(m) for m in (Draw, Discard, Peng, Gang, Hu)},
}
"""The bots' event types built without the validator when their payload has the expected shape."""


_RULES: dict[tuple[str, str], Any] = {}


def _parsed_rules(game: Any, raw_rules: dict[str, Any]) -> Any:
    """The game's parsed rules (a frozen object), parsed once per (game, rules as JSON)."""
    try:
        key = (game.id, json.dumps(raw_rules, sort_keys=True) if raw_rules else "{}")  # = json.dumps({})
    except TypeError:  # not JSON (never from the CLI): no caching
        return game.parse_rules(raw_rules)
    parsed = _RULES.get(key)
    if parsed is None:
        parsed = game.parse_rules(raw_rules)
        if len(_RULES) >= 64:
            _RULES.clear()
        _RULES[key] = parsed
    return parsed


@dataclass(frozen=True, slots=True)
class World:
    """Who plays: a pool of `pool` names (p00, p01, …), colluding pairs whose bots play for the pair
    (engine/sim/collusion.py), a dealer that favours one player (`rig` = (name, fraction of deals
    re-drawn), engine/sim/rig.py) and `seek`: the chance that a colluder seated without its partner
    brings the partner to the table (colluders who seek each other's tables); `dumpers`: pairs
    (a, b) of colluders where a dumps chips to b (Zha Jin Hua, `--colluders A>B`). Ground truth for
    `paiju integrity` (docs/integrity.md)."""

    pool: int = PLAYER_POOL
    colluders: tuple[tuple[str, str], ...] = ()
    rig: tuple[str, float] | None = None
    seek: float = 0.0
    dumpers: tuple[tuple[str, str], ...] = ()

    def dumps_at(self, names: list[str]) -> list[tuple[int, int]]:
        """The seats (from, to) of each chip-dumping pair that sits at this table together."""
        return [(names.index(a), names.index(b)) for a, b in self.dumpers if a in names and b in names]

    def pairs_at(self, names: list[str]) -> list[tuple[int, int]]:
        """The seats of each colluding pair that sits at this table together."""
        return [(names.index(a), names.index(b)) for a, b in self.colluders if a in names and b in names]

    def seat_partners(self, names: list[str], rng: random.Random) -> list[str]:
        """With chance `seek`, a colluder seated alone takes its partner to the table (replacing a
        seat drawn by `rng`); other draws are untouched."""
        out = list(names)
        for a, b in self.colluders:
            here = [x for x in (a, b) if x in out]
            if len(here) == 1 and rng.random() < self.seek:
                other = b if here[0] == a else a
                free = [k for k, x in enumerate(out) if x != here[0] and not any(x in p for p in self.colluders)]
                if free:
                    out[rng.choice(free)] = other
        return out


DEFAULT_WORLD = World()


@lru_cache(maxsize=64)
def _deal_takes_dealer(game_id: str) -> bool:
    return "dealer" in inspect.signature(get_game(game_id).deal).parameters


def _play_match(
    game_id: str,
    rules: Mapping[str, Any] | None,
    seed: int,
    index: int,
    players: int | None,
    prefix: str,
    world: World | None = None,
) -> list[AnyEvent]:
    """match_started, dealt, the bots' events, the engine's `settled` (no hashes yet)."""
    return list(match_events(game_id, rules, seed, index, players=players, prefix=prefix, world=world))


def match_events(
    game_id: str,
    rules: Mapping[str, Any] | None,
    seed: int,
    index: int,
    *,
    players: int | None = None,
    prefix: str = "sim",
    world: World | None = None,
) -> Iterator[AnyEvent]:
    """The events of one simulated match, one at a time (no hashes): match_started, dealt, the
    bots' events, the engine's `settled`. Public so that a client can play bot matches event by
    event against a server. `world` (a player pool, colluding pairs, a rigged dealer) changes
    nothing when it is None or `World()`: the same bytes as without it."""
    game = get_game(game_id)
    raw_rules = dict(rules or {})
    parsed = _parsed_rules(game, raw_rules)
    rng = match_rng(seed, game_id, index)
    n = players or game.sim_players
    w = world or DEFAULT_WORLD
    names = [f"p{k:02d}" for k in rng.sample(range(w.pool), n)]
    if w.seek:
        names = w.seat_partners(names, rng)
    match_id = f"{prefix}-{game_id}-{seed}-{index:06d}"
    started = _STARTED({
        "match_id": match_id, "seq": 0, "ts": _ts(index, 0), "game": game_id, "rules": raw_rules or {"preset": "standard"},
        "players": names, "dealer": rng.randrange(n), "base": 1,
    })  # fmt: skip  # = MatchStarted(match_id=…, …): the model's validator on the same data
    yield started
    # mahjong deals give the dealer (庄家) 14 tiles: a game whose deal takes `dealer` gets it
    deal_kw = {"dealer": started.dealer} if _deal_takes_dealer(game_id) else {}
    if w.rig is not None and w.rig[0] in names:
        from engine.sim.rig import rigged_deal

        fields = rigged_deal(game, parsed, n, rng, deal_kw, names.index(w.rig[0]), w.rig[1], started.dealer)
    else:
        fields = game.deal(parsed, n, rng, **deal_kw)
    dealt = _event(match_id, 1, index, {"type": "dealt", **fields})
    assert isinstance(dealt, Dealt)
    yield dealt
    state = game.start(started, dealt, parsed)
    is_finished, apply = game.is_finished, game.apply
    bot_action = get_bot(game_id)
    pairs = w.pairs_at(names)
    if pairs:
        from engine.sim.collusion import colluding_bot

        bot_action = colluding_bot(game, bot_action, pairs, dumps=w.dumps_at(names))
    seq = 2
    # `_event(match_id, seq, index, payload)` inlined for the bots' events: this match's id passes
    # the envelope's pattern or not (once), seq is an int ≥ 2, and `ts` is the clock's next value
    # (`_stamps`); a payload of no trusted shape still goes to `_event`
    trusted = _id_ok(match_id)
    next_ts = _stamps(index, seq).__next__
    get_build = _TRUSTED.get
    while not is_finished(state):
        if seq >= MAX_EVENTS:
            raise SimulationError(f"{match_id}: no end after {MAX_EVENTS} events (bot loop in {game_id})")
        payload = bot_action(state, rng)
        ts = next_ts()
        try:
            build = get_build(payload["type"]) if trusted else None  # = _event's KeyError on no type
            ev = None
            if build is not None:
                ev = build(match_id, seq, ts, payload)
            if ev is None:
                ev = _event(match_id, seq, index, payload)
            state = apply(state, ev)
        except (Illegal, ContractError, ValueError) as e:
            raise SimulationError(f"{match_id} seq {seq}: the {game_id} bot chose {payload}, refused: {e}") from e
        yield ev
        seq += 1
    settlement = game.settle(state)
    yield _event(match_id, seq, index, {"type": "settled", "deltas": list(settlement.deltas)})


def simulate_match(
    game_id: str,
    rules: Mapping[str, Any] | None,
    seed: int,
    index: int,
    *,
    players: int | None = None,
    prefix: str = "sim",
    chain: bool = True,
    world: World | None = None,
) -> list[AnyEvent]:
    """One match played by bots: match_started, dealt, the bots' events, the engine's `settled`."""
    events = _play_match(game_id, rules, seed, index, players, prefix, world)
    return fill_chain(events) if chain else events


@cache
def _line_encoder() -> json.JSONEncoder:
    """The line format of events.codec.event_to_json, built once: `json.dumps` with options
    builds a new encoder on every call."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _chained_text(events: list[AnyEvent]) -> str:
    """The match as JSON Lines with the hash chain: the same text as `event_to_json` of each event
    of `fill_chain(events)` (tests/test_sim_speed.py, tests/test_sim_speed_shared.py check it).
    Each event's set fields are read once (`canonical_fields`, no copies) and written by orjson
    where it writes the same bytes as `json` (as `events.chain._event_bytes`: every event but
    `match_started` holds only strings, strict integers, booleans, None and lists); orjson's
    TypeError (an integer beyond 64 bits) and `match_started` go to `json`. The chain's bytes are
    `events.chain.fields_json`'s."""
    line = _line_encoder()
    lines: list[bytes] = []
    prev = b""
    for e in events:
        d = e.canonical_fields()  # no `hash` yet: exactly what the chain hashes (events.md §5)
        prev = hashlib.sha256(prev + fields_json(d)).hexdigest().encode()  # = events.chain.link
        ordered = {k: d[k] for k in _FIRST_KEYS}
        ordered.update(d)  # the envelope first, then the other fields in the event's order
        ordered["hash"] = prev.decode()
        text = None
        if d["type"] != "match_started":
            with suppress(TypeError):  # an integer beyond 64 bits: json below
                text = orjson.dumps(ordered)  # = json.dumps(ordered, ensure_ascii=False, separators=…)
        lines.append(text if text is not None else line.encode(ordered).encode("utf-8"))
    lines.append(b"")
    return b"\n".join(lines).decode("utf-8")


def _batch(args: tuple[Any, ...]) -> list[str]:
    """(game, rules, seed, start, stop, players[, world]) → each match's chained JSON Lines text."""
    game_id, rules, seed, start, stop, players = args[:6]
    world = args[6] if len(args) > 6 else None
    return [_chained_text(_play_match(game_id, rules, seed, i, players, "sim", world)) for i in range(start, stop)]


def simulate_lines(
    game_id: str,
    rules: Mapping[str, Any] | None,
    matches: int,
    seed: int,
    *,
    workers: int = 1,
    players: int | None = None,
    batch: int = 50,
    world: World | None = None,
) -> Iterator[str]:
    """Each match's JSON Lines text, in index order, computed by `workers` processes."""
    r = dict(rules or {})
    jobs: list[tuple[Any, ...]] = [
        (game_id, r, seed, s, min(s + batch, matches), players) + ((world,) if world is not None else ())
        for s in range(0, matches, batch)
    ]
    if workers <= 1 or len(jobs) == 1:
        for job in jobs:
            yield from _batch(job)
        return
    with process_pool(workers) as pool:
        for chunk in pool.map(_batch, jobs):
            yield from chunk


def simulate(
    game_id: str, rules: Mapping[str, Any] | None, matches: int, seed: int, *, workers: int = 1
) -> Iterator[list[AnyEvent]]:
    """Per-match event lists, in index order (single process; use `simulate_lines` for many)."""
    del workers  # the event objects stay in this process; simulate_lines parallelises
    for i in range(matches):
        yield simulate_match(game_id, rules, seed, i)


@contextmanager
def open_output(path: str, *, gz: bool | None = None) -> Iterator[IO[str]]:
    """A text stream writing `path`; gzip (when `gz`, by default when it ends in .gz) with a fixed
    header (no name, mtime 0) so that the same content always gives the same bytes."""
    with ExitStack() as stack:
        raw: IO[bytes] = stack.enter_context(open(path, "wb"))
        if path.endswith(".gz") if gz is None else gz:
            raw = stack.enter_context(gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0))
        yield stack.enter_context(io.TextIOWrapper(raw, encoding="utf-8", newline="\n"))


def write_simulation(
    path: str,
    game_id: str,
    rules: Mapping[str, Any] | None,
    matches: int,
    seed: int,
    *,
    workers: int = 1,
    on_match: Callable[[int], None] | None = None,
    world: World | None = None,
) -> tuple[int, int]:
    """Simulate into `path` atomically (temporary name, then rename). Returns (matches, events)."""
    return write_lines(path, simulate_lines(game_id, rules, matches, seed, workers=workers, world=world), on_match)


def write_lines(path: str, texts: Iterable[str], on_match: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Write each match's JSON Lines text to `path` atomically (temporary name, then rename);
    gzip when `path` ends in .gz. Returns (matches, events)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    n_events = 0
    done = 0
    try:
        with open_output(tmp, gz=path.endswith(".gz")) as out:
            for text in texts:
                out.write(text)
                n_events += text.count("\n")
                done += 1
                if on_match is not None:
                    on_match(done)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return done, n_events
