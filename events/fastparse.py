"""The fast path of the line parser (events.md §1): decode and validate from bytes in C.

`parse_clean(raw)` returns the event of a line when the line is plainly good, else None, and the
caller (`events.codec.parse_line`) then runs the reference path, which decides the line and words
the refusal. So the fast path never refuses: it only has to accept nothing the reference path
refuses and to build the same event; tests/test_fastparse*.py check both on fuzzed lines.

How each guarantee of the reference path holds here:
- one msgspec-decoded `TypedDict` per event type, made from the pydantic model's fields
  (`_typed_dict`), refuses what the model refuses: strict types, cards/tiles/ranks as
  `Literal`s, seats/seq/lengths as `Meta` bounds, required fields required; the match id's
  characters and the hash's hex digits are checked after the decode (msgspec's `pattern` costs
  more than the decode); `match_started`'s `rules` is free JSON (`dict[str, Any]`: msgspec keeps
  integers exact and refuses those over Python's 4300 digits, as `json` does). A TypedDict
  decodes to a plain dict of the keys the line holds (no struct to take apart, no pass over the
  fields to find the set ones: issue 22) and skips unknown keys, which the colon count below
  then refuses;
- duplicate (and unknown) keys: a line's `:` are one per key plus those inside its strings; the
  decoded dict keeps one key per known name, so counting the keys it holds plus the `:` in its
  free-text strings (and, in `rules`, one per key of its objects, `_colons`) gives the line's
  count exactly when no key was repeated or unknown, unless a string spells a colon as
  `\\u003a`: a line with any backslash takes the reference path (so do lone surrogates and every
  other escape);
- `null`: no field's wire type admits None, so a line with a `null` value fails the decode and
  takes the reference path (there an explicit null is a set field); inside `rules` a null is
  a plain JSON value, as it is for the reference path;
- nesting: only `rules` may nest: a line with more than MAX_NESTING brackets takes the reference
  path; an unknown key's value, however deep, fails the colon count (msgspec's own depth limit
  refuses the rest), and the reference path then words the refusal;
- NaN/Infinity, a BOM, invalid UTF-8, integers beyond Python's 4300 digits, floats out of range
  (which `json` reads as infinity): msgspec refuses them.
"""

from __future__ import annotations

import binascii
import re
import string
from binascii import unhexlify
from functools import lru_cache
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

import msgspec
from msgspec import Meta
from pydantic import BaseModel

from events.models import EVENT_TYPES, AnyEvent, MatchStarted
from events.notation import ALL_CARDS, ALL_TILE_KINDS, CARD_RANKS, GAME_IDS

MAX_NESTING = 16
"""JSON nested deeper than this is refused: no contract event nests more than three levels."""
MAX_SEQ = 100_000
"""A seq above this is refused (`bad_field`): no game needs that many events (the simulator stops a
match at 5000), and a bound keeps a replay's memory bounded and every seq within a 64-bit column."""

_Card = Literal[ALL_CARDS]  # type: ignore[valid-type]
_Tile = Literal[ALL_TILE_KINDS]  # type: ignore[valid-type]
_CardOrTile = Literal[ALL_CARDS + ALL_TILE_KINDS]  # type: ignore[valid-type]
_Rank = Literal[tuple(CARD_RANKS) + ("BJ", "RJ")]  # type: ignore[valid-type]
_MatchId = Annotated[str, Meta(min_length=1, max_length=128)]  # and _ID_CHARS, checked after
_Seq = Annotated[int, Meta(ge=0, le=MAX_SEQ)]
_Seat = Annotated[int, Meta(ge=0, le=5)]
_Hash = Annotated[str, Meta(min_length=64, max_length=64)]  # and lower-case hex, checked after
_ID_CHARS = string.ascii_letters + string.digits + "_.:-"
"""events.models.MatchId; msgspec's `pattern` (Python `re`) costs more than the whole decode."""


_WIRE: dict[str, Any] = {
    "match_id": _MatchId, "seq": _Seq, "ts": str, "hash": _Hash, "seat": _Seat, "target": _Seat,
    "hands": Annotated[list[list[_CardOrTile]], Meta(min_length=2, max_length=6)],
    "bottom": list[_Card], "wall": list[_Tile], "stacks": list[Annotated[int, Meta(ge=0)]],
    "reason": str, "deltas": Annotated[list[int], Meta(min_length=2, max_length=6)],
    "value": int, "amount": int, "rank": _Rank,
    "cards": Annotated[list[_Card], Meta(min_length=1, max_length=54)], "as_": list[str],
    "tiles": Annotated[list[_Tile], Meta(min_length=1, max_length=14)], "tile": _Tile,
    "direction": Literal["clockwise", "counterclockwise", "opposite"],
    "suit": Literal["m", "p", "s"], "kind": Literal["zhi", "bu", "an"],
    "game": Literal[GAME_IDS], "rules": dict[str, Any],
    "players": Annotated[list[Annotated[str, Meta(min_length=1, max_length=128)]], Meta(min_length=2, max_length=6)],
    "dealer": _Seat, "base": Annotated[int, Meta(ge=1)], "room": str, "round": Annotated[int, Meta(ge=1)],
}  # fmt: skip
"""Each field's wire type, as events.models declares it (Rob's `value` is a bool, below)."""


def _typed_dict(model: type[AnyEvent]) -> Any:
    """A TypedDict of the model's wire fields (`type` a Literal of its tag), optional ones not required."""
    fields: dict[str, Any] = {}
    for name, f in model.model_fields.items():
        if name == "type":
            fields[name] = Required[Literal[f.default]]
            continue
        wire = bool if (model.__name__, name) == ("Rob", "value") else _WIRE[name]
        # every optional field of the contract defaults to None (asserted); None is no wire type
        # here, so a line with a `null` takes the reference path and a missing key means "left out"
        assert f.is_required() or f.default is None, (model, name)
        fields[f.alias or name] = Required[wire] if f.is_required() else NotRequired[wire]
    return TypedDict(model.__name__, fields)  # type: ignore[operator]


_FREE_TEXT = ("reason", "as", "players", "room", "rules")
"""Fields of free text besides `match_id`/`ts` (strings, lists of strings, `rules` any JSON):
where a `:` may sit inside a string. Every other string field is a Literal or hex, with no `:`
in any value."""
_FAST: dict[bytes, tuple[type[AnyEvent], Any, dict[str, None], tuple[str, ...]]] = {}
"""`type` → (model, the decoder of its TypedDict, every field None in the model's order, its
free-text fields beyond the envelope), for every type."""
for _typ, _model in EVENT_TYPES.items():
    _wire_names = tuple(f.alias or n for n, f in _model.model_fields.items())
    _FAST[_typ.encode()] = (
        _model,
        msgspec.json.Decoder(_typed_dict(_model)).decode,
        dict.fromkeys(_model.model_fields),
        tuple(n for n in _FREE_TEXT if n in _wire_names),
    )
assert all(m.__new__ is object.__new__ for m in EVENT_TYPES.values()), "an event model defines __new__"
_TYPE_RE = re.compile(rb'"type"\s*:\s*"([a-z_]{1,20})"')
_SET_DICT = BaseModel.__dict__["__dict__"].__set__
_SET_FIELDS = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__
"""The `__dict__` and the slots of a pydantic model, set through their descriptors (cheaper than
object.__setattr__)."""
_NEW = object.__new__
"""Every event model's `__new__` (asserted below): called directly, without the look-up through
pydantic's metaclass."""


def construct(model: type[AnyEvent], values: dict[str, Any], fields_set: set[str]) -> AnyEvent:
    """An event of `model` holding `values` (every field, by field name) with `fields_set` the
    fields the line gave: what pydantic's validator builds, without validating (the caller has)."""
    ev = _NEW(model)
    _SET_DICT(ev, values)
    _SET_FIELDS(ev, fields_set)
    _SET_EXTRA(ev, None)
    _SET_PRIVATE(ev, None)
    return ev


def _hex_ok(h: str) -> bool:
    """64 lower-case hex digits (the length was checked by the decoder). `parse_clean` inlines
    it (a call a line); a `strip` of the 16 digits costs four times as many instructions."""
    try:
        return unhexlify(h).hex() == h
    except (ValueError, binascii.Error):
        return False


@lru_cache(maxsize=4096)
def _id_colons(match_id: str) -> int:
    """The number of `:` in a match id of the contract's characters, -1 for any other match id
    (the lengths were checked by the decoder); one cached call for both (issue 22)."""
    return -1 if match_id.strip(_ID_CHARS) else match_id.count(":")


def _colons(value: Any) -> int:
    """The `:` a decoded JSON value takes on its line: those inside its strings and keys, and
    one after each key of its objects, however nested."""
    if value.__class__ is str:
        return value.count(":")  # type: ignore[no-any-return]
    if value.__class__ is list:
        return sum(_colons(x) for x in value)
    if value.__class__ is dict:
        return sum(k.count(":") + 1 + _colons(x) for k, x in value.items())
    return 0


_BACKSLASH = ord("\\")
"""`int in bytes` is a `memchr`; `b"\\" in raw` first tries the needle as an integer and pays
for the TypeError (a few thousand instructions a line, issue 22)."""
_TYPE_KEY = b'"type":"'
_DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)


def parse_clean(raw: bytes) -> AnyEvent | None:
    """The event of a plainly good line, or None when the reference path must decide it."""
    if _BACKSLASH in raw:
        return None
    # the type's decoder: `"type":"` as our writer spells it (two partitions cost less than the
    # regex, and a third of two `find`s with their start argument), else the regex (spaces);
    # any choice is safe, the decoder checks the type itself
    typ = raw.partition(_TYPE_KEY)[2].partition(b'"')[0]
    if not typ:
        m = _TYPE_RE.search(raw)
        typ = m[1] if m is not None else b""
    fast = _FAST.get(typ)
    if fast is None:
        return None
    model, decode, unset, free = fast
    if model is MatchStarted and raw.count(b"[") + raw.count(b"{") > MAX_NESTING:
        return None  # `rules` may nest: the reference path measures the depth
    try:
        given = decode(raw)
    except _DECODE_ERRORS:
        return None
    id_colons = _id_colons(given["match_id"])
    if id_colons < 0:
        return None
    h = given.get("hash")
    if h is not None:
        try:  # `_hex_ok`, inlined
            if unhexlify(h).hex() != h:
                return None
        except (ValueError, binascii.Error):
            return None
    # a duplicate or unknown key: the line has one `:` per key plus those inside strings, and
    # the decoded dict keeps one key per known name (the last value): count both. The strings'
    # colons are at least the kept values' colons, so `extra` is 0 with no `ts`/free-text colon
    # only if the line has neither a repeated nor an unknown key
    extra = raw.count(b":") - len(given) - id_colons
    if extra:
        ts = given.get("ts")
        if ts is not None:
            extra -= ts.count(":")
        for name in free:
            v = given.get(name)
            if v is not None:
                extra -= _colons(v)
        if extra:
            return None
    if "as" in given:
        given["as_"] = given.pop("as")
    # `construct`, inlined (a call a line)
    ev = _NEW(model)
    _SET_DICT(ev, unset | given)  # one merge in C (the order of `unset`: the model's)
    _SET_FIELDS(ev, {*given})
    _SET_EXTRA(ev, None)
    _SET_PRIVATE(ev, None)
    return ev
