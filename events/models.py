"""Pydantic models of every event type of the contract (events.md §2–4).

One discriminated union on `type`. Models are strict (no coercion: `"3"` is not a seat) and
forbid unknown fields, so a typo never passes silently (`bad_field`). Syntax is checked here
(a card string is a card, a seat is a small non-negative integer); meaning (is it your turn, is
the card in your hand) is the engine's job.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from events.notation import CARD_RANKS, CARD_SET, GAME_IDS, TILE_SET

MatchId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:\-]{1,128}$")]
Seat = Annotated[int, Field(ge=0, le=5)]
HexHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
GameId = Literal[GAME_IDS]  # type: ignore[valid-type]


def _check_cards(cards: list[str]) -> list[str]:
    for c in cards:
        if c not in CARD_SET:
            raise ValueError(f"{c!r} is not a card (rank 3456789TJQKA2 + suit shcd, or BJ/RJ)")
    return cards


def _check_tile(tile: str) -> str:
    if tile not in TILE_SET:
        raise ValueError(f"{tile!r} is not a tile (1m..9m, 1p..9p, 1s..9s or 7z)")
    return tile


class _Event(BaseModel):
    """The envelope shared by every event."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    match_id: MatchId
    seq: Annotated[int, Field(ge=0)]
    ts: str | None = None
    hash: HexHash | None = None

    def model_post_init(self, context: Any, /) -> None:
        # `type` is part of every event as written, even when a model was built without naming it
        self.__pydantic_fields_set__.add("type")

    def canonical_dict(self) -> dict[str, Any]:
        """The event's fields as written (absent optional fields stay absent), without `hash`."""
        d = self.to_dict()
        d.pop("hash", None)
        return d

    def canonical_fields(self) -> dict[str, Any]:
        """`canonical_dict()` without the copy: the set fields by wire name, without `hash`.

        For serialising only (the hash chain, `canon`): the values are the frozen event's own,
        so the caller must not edit them. About a third cheaper than `canonical_dict()`.
        """
        given = self.__pydantic_fields_set__
        return {_ALIASES.get(k, k): v for k, v in self.__dict__.items() if k in given and k != "hash"}

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON object, `hash` included when present.

        Field values are plain JSON values (str, int, bool, lists, the rules object), so the set
        fields are read directly: `model_dump` costs 10–60 µs an event in the hash chain.
        """
        return {k: _plain(v) for k, v in self.wire_fields().items()}

    def wire_fields(self) -> dict[str, Any]:
        """The set fields by their wire names, the values themselves (not copies: read, never
        edit them): the JSON object of the event's line."""
        given = self.__pydantic_fields_set__
        return {_ALIASES.get(k, k): v for k, v in self.__dict__.items() if k in given}


_ALIASES = {"as_": "as"}


def _plain(value: Any) -> Any:
    """A copy of a JSON value, so that a caller editing the dict never edits the frozen event."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------- common events (§2)


class MatchStarted(_Event):
    type: Literal["match_started"] = "match_started"
    game: GameId
    rules: dict[str, Any]
    players: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=128)]], Field(min_length=2, max_length=6)]
    dealer: Seat
    base: Annotated[int, Field(ge=1)]
    room: str | None = None
    round: Annotated[int, Field(ge=1)] | None = None


class Dealt(_Event):
    type: Literal["dealt"] = "dealt"
    hands: Annotated[list[list[str]], Field(min_length=2, max_length=6)]
    bottom: list[str] | None = None
    wall: list[str] | None = None
    stacks: list[Annotated[int, Field(ge=0)]] | None = None

    @field_validator("hands")
    @classmethod
    def _hands_are_cards_or_tiles(cls, hands: list[list[str]]) -> list[list[str]]:
        for hand in hands:
            for x in hand:
                if x not in CARD_SET and x not in TILE_SET:
                    raise ValueError(f"{x!r} is neither a card nor a tile")
        return hands

    @field_validator("bottom")
    @classmethod
    def _bottom_cards(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else _check_cards(v)

    @field_validator("wall")
    @classmethod
    def _wall_tiles(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            for t in v:
                _check_tile(t)
        return v


class Forfeit(_Event):
    type: Literal["forfeit"] = "forfeit"
    seat: Seat
    reason: str | None = None


class Settled(_Event):
    type: Literal["settled"] = "settled"
    deltas: Annotated[list[int], Field(min_length=2, max_length=6)]


# ---------------------------------------------------------------- card games (§3)


class Bid(_Event):
    type: Literal["bid"] = "bid"
    seat: Seat
    value: int


class Rob(_Event):
    type: Literal["rob"] = "rob"
    seat: Seat
    value: bool


class Laizi(_Event):
    type: Literal["laizi"] = "laizi"
    rank: Annotated[str, StringConstraints(min_length=1, max_length=2)]

    @field_validator("rank")
    @classmethod
    def _rank(cls, v: str) -> str:
        if v not in CARD_RANKS and v not in ("BJ", "RJ"):
            raise ValueError(f"{v!r} is not a rank")
        return v


class Play(_Event):
    type: Literal["play"] = "play"
    seat: Seat
    cards: Annotated[list[str], Field(min_length=1, max_length=54)]
    as_: list[str] | None = Field(default=None, alias="as")

    @field_validator("cards")
    @classmethod
    def _cards(cls, v: list[str]) -> list[str]:
        return _check_cards(v)


class Pass(_Event):
    type: Literal["pass"] = "pass"
    seat: Seat


class Look(_Event):
    type: Literal["look"] = "look"
    seat: Seat


class Bet(_Event):
    type: Literal["bet"] = "bet"
    seat: Seat
    amount: int


class Compare(_Event):
    type: Literal["compare"] = "compare"
    seat: Seat
    target: Seat


class Open(_Event):
    type: Literal["open"] = "open"
    seat: Seat


class Fold(_Event):
    type: Literal["fold"] = "fold"
    seat: Seat


class Allin(_Event):
    type: Literal["allin"] = "allin"
    seat: Seat


class Timeout(_Event):
    type: Literal["timeout"] = "timeout"
    seat: Seat


# ---------------------------------------------------------------- mahjong (§4)


class Exchange(_Event):
    type: Literal["exchange"] = "exchange"
    seat: Seat
    tiles: Annotated[list[str], Field(min_length=1, max_length=14)]

    @field_validator("tiles")
    @classmethod
    def _tiles(cls, v: list[str]) -> list[str]:
        for t in v:
            _check_tile(t)
        return v


class ExchangeDirection(_Event):
    type: Literal["exchange_direction"] = "exchange_direction"
    direction: Literal["clockwise", "counterclockwise", "opposite"]


class Dingque(_Event):
    type: Literal["dingque"] = "dingque"
    seat: Seat
    suit: Literal["m", "p", "s"]


class _TileAction(_Event):
    seat: Seat
    tile: str

    @field_validator("tile")
    @classmethod
    def _tile(cls, v: str) -> str:
        return _check_tile(v)


class Draw(_TileAction):
    type: Literal["draw"] = "draw"


class Discard(_TileAction):
    type: Literal["discard"] = "discard"


class Peng(_TileAction):
    type: Literal["peng"] = "peng"


class Gang(_TileAction):
    type: Literal["gang"] = "gang"
    kind: Literal["zhi", "bu", "an"]


class Hu(_TileAction):
    type: Literal["hu"] = "hu"


class Ting(_Event):
    type: Literal["ting"] = "ting"
    seat: Seat


EVENT_MODELS: tuple[type[_Event], ...] = (
    MatchStarted, Dealt, Forfeit, Settled,
    Bid, Rob, Laizi, Play, Pass, Look, Bet, Compare, Open, Fold, Allin, Timeout,
    Exchange, ExchangeDirection, Dingque, Draw, Discard, Peng, Gang, Hu, Ting,
)  # fmt: skip

EVENT_TYPES: dict[str, type[_Event]] = {
    m.model_fields["type"].default: m for m in EVENT_MODELS
}

Event = Annotated[
    MatchStarted | Dealt | Forfeit | Settled | Bid | Rob | Laizi | Play | Pass | Look | Bet | Compare | Open | Fold | Allin | Timeout | Exchange | ExchangeDirection | Dingque | Draw | Discard | Peng | Gang | Hu | Ting,
    Field(discriminator="type"),
]  # fmt: skip
"""Any contract event; `type` selects the model."""

AnyEvent = _Event
"""The base class, for type hints of code that handles any event."""
