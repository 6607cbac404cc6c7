"""The fast path of the line parser (events.md §1): decode and validate from bytes in C.

`parse_clean(raw)` returns the event of a line when the line is plainly good, else None, and the
caller (`events.codec.parse_line`) then runs the reference path, which decides the line and words
the refusal. So the fast path never refuses: it only has to accept nothing the reference path
refuses and to build the same event; tests/test_fastparse.py checks both on fuzzed lines.

How each guarantee of the reference path holds here:
- one msgspec Struct per event type, made from the pydantic model's fields in their order
  (`_struct`), refuses what the model refuses: strict types, unknown fields, cards/tiles/ranks
  as `Literal`s, seats/seq/lengths as `Meta` bounds; the match id's characters and the hash's
  hex digits are checked after the decode (msgspec's `pattern` costs more than the decode);
  `match_started` always takes the reference path (its `rules` object is free JSON);
- duplicate keys: a line's `:` are one per key plus those inside its strings; the decoded event
  keeps one key per name, so counting the keys it holds plus the `:` in its free-text strings
  gives the line's count exactly when no key was repeated, unless a string spells a colon as
  `\\u003a`: a line with any `\\u` escape takes the reference path (so do lone surrogates);
- a line with `null` takes the reference path, so a None here always means "left out";
- nesting: no Struct field nests deeper than a list of lists (`hands`), so a line nested
  deeper than MAX_NESTING cannot decode (an unknown key is refused before its value is read);
- NaN/Infinity, a BOM, invalid UTF-8, integers beyond Python's 4300 digits: msgspec refuses them.
"""

from __future__ import annotations

import binascii
import re
import string
from binascii import unhexlify
from functools import lru_cache
from itertools import compress, repeat
from operator import is_not
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from msgspec.structs import asdict

from events.models import EVENT_TYPES, AnyEvent
from events.notation import ALL_CARDS, ALL_TILE_KINDS, CARD_RANKS

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
}  # fmt: skip
"""Each field's wire type, as events.models declares it (Rob's `value` is a bool, below)."""


def _struct(model: type[AnyEvent]) -> type[msgspec.Struct]:
    """A msgspec Struct with the model's fields in its order (`type` a Literal of its tag)."""
    fields: list[tuple[str, Any, Any]] = []
    for name, f in model.model_fields.items():
        if name == "type":
            fields.append((name, Literal[f.default], msgspec.NODEFAULT))
            continue
        wire = bool if (model.__name__, name) == ("Rob", "value") else _WIRE[name]
        # every optional field of the contract defaults to None (asserted); a line with a `null`
        # takes the reference path, so None here always means "left out"
        assert f.is_required() or f.default is None, (model, name)
        fields.append((name, wire, msgspec.NODEFAULT) if f.is_required() else (name, wire | None, None))
    return msgspec.defstruct(
        model.__name__, fields, kw_only=True, forbid_unknown_fields=True, omit_defaults=True, rename={"as_": "as"}
    )


_FREE_TEXT = {"reason": False, "as_": True}
"""Fields of free text besides `match_id`/`ts` (True: a list of strings): where a `:` may sit
inside a string. Every other string field is a Literal or hex, with no `:` in any value."""
_FAST: dict[bytes, tuple[type[AnyEvent], Any, tuple[str, ...], tuple[tuple[str, bool], ...]]] = {}
"""`type` → (model, the decoder of its Struct, its field names in order, its free-text fields
beyond the envelope); every type but `match_started`."""
for _typ, _model in EVENT_TYPES.items():
    if _typ != "match_started":
        _free = tuple((n, _FREE_TEXT[n]) for n in _model.model_fields if n in _FREE_TEXT)
        _FAST[_typ.encode()] = (_model, msgspec.json.Decoder(_struct(_model)).decode, tuple(_model.model_fields), _free)
_TYPE_RE = re.compile(rb'"type"\s*:\s*"([a-z_]{1,20})"')


def _hex_ok(h: str) -> bool:
    """64 lower-case hex digits (the length was checked by the decoder)."""
    try:
        return unhexlify(h).hex() == h
    except (ValueError, binascii.Error):
        return False


@lru_cache(maxsize=4096)
def _id_ok(match_id: str) -> bool:
    """A match id of the contract's characters (the lengths were checked by the decoder)."""
    return not match_id.strip(_ID_CHARS)


def parse_clean(raw: bytes) -> AnyEvent | None:
    """The event of a plainly good line, or None when the reference path must decide it."""
    if b"\\u" in raw or b"null" in raw:
        return None
    m = _TYPE_RE.search(raw)
    fast = _FAST.get(m.group(1)) if m is not None else None
    if fast is None:
        return None
    model, decode, names, free = fast
    try:
        w = decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    h = w.hash
    if (h is not None and not _hex_ok(h)) or not _id_ok(w.match_id):
        return None
    d = asdict(w)
    given = set(compress(names, map(is_not, d.values(), repeat(None))))
    # a duplicate key: the line has one `:` per key plus those inside strings, and the decoded
    # event keeps one key per name (the last value): count both
    ts = w.ts
    colons = len(given) + w.match_id.count(":") + (ts.count(":") if ts is not None else 0)
    for name, many in free:
        v = d[name]
        if v is not None:
            colons += sum(x.count(":") for x in v) if many else v.count(":")
    if raw.count(b":") != colons:
        return None
    ev = model.__new__(model)
    object.__setattr__(ev, "__dict__", d)
    object.__setattr__(ev, "__pydantic_fields_set__", given)
    object.__setattr__(ev, "__pydantic_extra__", None)
    object.__setattr__(ev, "__pydantic_private__", None)
    return ev
