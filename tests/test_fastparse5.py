"""The fast path's shortcuts of issue 22 against the plain computations they replace.

- `match_started` lines are decoded in C too (`rules` free JSON): fuzzed lines, with nested
  rules, colons and unicode in strings, floats, huge integers, nulls, duplicate keys inside the
  rules and deep nesting, agree with the reference path (`tests/test_fastparse.py`'s `_check`);
- `_colons` (the `:` a decoded value takes on its line) against the `:` of its compact JSON;
- `_hex_ok` and the copy `parse_clean` inlines (hashed lines) against the contract's regex;
- the event `parse_clean` builds against pydantic's own validation of the same line.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.fastparse import _colons, _hex_ok, parse_clean
from events.models import EVENT_TYPES
from events.notation import GAME_IDS
from tests.test_fastparse import _check, _same

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_text = st.one_of(
    st.sampled_from(["a:b", ":", "::x", "é:", "standard", ""]),
    st.text(alphabet="ab: é", max_size=6),
    st.text(max_size=4),
)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(10**40), 10**40),
    st.floats(allow_nan=False, allow_infinity=False), _text,
)  # fmt: skip
_json = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4), max_leaves=12
)


def _dump(pairs: list[tuple[str, Any]], sep: tuple[str, str] = (",", ":"), ascii_: bool = False) -> bytes:
    """A line of `pairs` (repeats kept), nested values spaced as the top level is."""
    body = sep[0].join(
        json.dumps(k, ensure_ascii=ascii_) + sep[1] + json.dumps(v, ensure_ascii=ascii_, separators=sep)
        for k, v in pairs
    )
    return ("{" + body + "}").encode("utf-8", "surrogatepass")


_NAMES = ["p1", "a:b", "é", "y" * 128]
_players = st.lists(st.sampled_from(_NAMES), min_size=2, max_size=6)


@st.composite
def _started(draw: st.DrawFn) -> bytes:
    pairs: list[tuple[str, Any]] = [
        ("match_id", draw(st.sampled_from(["m1", "m1", "a:b", "x" * 128, "a b"]))),
        ("seq", draw(st.sampled_from([0, 1, 1, 100_000, 100_001, -1]))),
        ("type", "match_started"),
        ("game", draw(st.sampled_from([*GAME_IDS, "chess"]))),
        ("rules", draw(st.dictionaries(_text, _json, max_size=4) | st.dictionaries(_text, _json) | _json)),
        ("players", draw(_players | _players | st.lists(st.sampled_from(_NAMES + ["", "x" * 129]), max_size=7))),
        ("dealer", draw(st.sampled_from([0, 1, 5, 6, -1]))),
        ("base", draw(st.sampled_from([1, 1, 2, 0]))),
    ]
    for key, values in (
        ("ts", _text), ("hash", st.sampled_from(["a" * 64, "0f" * 32, "A" * 64, "0" * 63])), ("room", _text),
        ("round", st.sampled_from([1, 2, 0])),
    ):  # fmt: skip
        if draw(st.booleans()):
            pairs.append((key, None if draw(st.integers(0, 5)) == 5 else draw(values)))
    if draw(st.integers(0, 5)) == 5:  # a duplicate key
        pairs.append(draw(st.sampled_from(pairs)))
    if draw(st.integers(0, 8)) == 8:
        pairs.append(("extra", draw(_json)))
    if draw(st.booleans()):
        pairs = draw(st.permutations(pairs))
    sep = draw(st.sampled_from([(",", ":"), (",", ":"), (", ", ": ")]))
    return _dump(pairs, sep, draw(st.integers(0, 3)) == 3)


@FUZZ
@given(_started())
def test_fuzzed_match_started_lines_agree_with_the_reference(raw: bytes) -> None:
    _check(raw)


_GOOD = [
    ("match_id", "m1"), ("seq", 0), ("type", "match_started"), ("ts", "2026-11-01T00:00:00Z"), ("game", "ddz"),
    ("rules", {"preset": "standard"}), ("players", ["p1", "p2", "p3"]), ("dealer", 1), ("base", 1),
]  # fmt: skip


def _nested(depth: int) -> Any:
    v: Any = 1
    for i in range(depth):
        v = [v] if i % 2 else {"k": v}
    return v


@pytest.mark.parametrize(
    "rules",
    [
        {}, {"preset": "standard"}, {"a:b": "c:d", "e": ["f:g", {"h:": ":"}]}, {"x": 10**100}, {"x": 10**4299},
        {"x": 1.5, "y": -0.0, "z": 1e308}, {"x": None, "y": True}, _nested(12), _nested(13), _nested(20),
    ],
)  # fmt: skip
def test_match_started_rules_decoded_in_c(rules: Any) -> None:
    raw = _dump([(k, rules if k == "rules" else v) for k, v in _GOOD])
    _check(raw)


_STARTED_CASES = [
    _dump(_GOOD),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":"standard","preset":"x"'),  # duplicate inside rules
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":{"a":1,"a":2}'),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":NaN'),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":Infinity'),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":1e400'),  # json: inf; msgspec: refused
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":' + b"9" * 4301),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":"\\ud800"'),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"preset":"\xed\xa0\x80"'),
    _dump(_GOOD).replace(b'"preset":"standard"', b'"pre:set":"a"'),
    _dump(_GOOD).replace(b'"rules":{"preset":"standard"}', b'"rules":[]'),
    _dump(_GOOD).replace(b'"rules":{"preset":"standard"}', b'"rules":null'),
    _dump(_GOOD).replace(b'"dealer":1', b'"dealer":1,"room":null'),
    _dump(_GOOD).replace(b'"dealer":1', b'"dealer":1,"room":"r:1","round":2'),
    _dump(_GOOD).replace(b'"base":1', b'"base":true'),
    _dump(_GOOD).replace(b'"p1"', b'"p:1"'),
    _dump(_GOOD).replace(b'"ddz"', b'"chess"'),
    b"\xef\xbb\xbf" + _dump(_GOOD),  # BOM
]
"""Lines of match_started that each break one guarantee (or none: the first)."""


def test_the_match_started_cases_each_edit_the_line() -> None:
    assert len(set(_STARTED_CASES)) == len(_STARTED_CASES)


@pytest.mark.parametrize("raw", _STARTED_CASES)
def test_each_match_started_guarantee(raw: bytes) -> None:
    _check(raw)


def test_the_writer_s_match_started_lines_take_the_fast_path() -> None:
    assert parse_clean(_dump(_GOOD)) is not None
    deep = _dump([(k, _nested(20) if k == "rules" else v) for k, v in _GOOD])
    assert parse_clean(deep) is None  # the reference path measures the depth


@given(_json)
@settings(max_examples=500, deadline=None)
def test_colons_count_those_of_the_compact_json(value: Any) -> None:
    assert _colons(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":")).count(":")


_HEX = re.compile(r"[0-9a-f]{64}")


@given(st.text(alphabet="0123456789abcdefABCDEFg \n:é", min_size=64, max_size=64))
@settings(max_examples=500, deadline=None)
def test_hex_ok_is_the_contract_s_pattern(h: str) -> None:
    assert _hex_ok(h) == bool(_HEX.fullmatch(h))
    # `parse_clean` inlines the check: a line with that hash takes the fast path just when it matches
    line = {"match_id": "m1", "seq": 3, "type": "pass", "ts": "2026-11-01T00:00:03Z", "seat": 1, "hash": h}
    got = parse_clean(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode())
    assert (got is not None) == bool(_HEX.fullmatch(h))
    if got is not None:
        assert got.hash == h


@pytest.mark.parametrize("typ", sorted(EVENT_TYPES))
def test_the_built_event_is_pydantic_s(typ: str) -> None:
    """Each type's writer-shaped line: `parse_clean` builds what the model's own validation builds."""
    from tests.test_fastparse import _reference

    model = EVENT_TYPES[typ]
    pairs: list[tuple[str, Any]] = [("match_id", "m:1"), ("seq", 3), ("type", typ), ("ts", "2026-11-01T00:00:03Z")]
    sample = {"seat": 1, "target": 2, "hands": [["3s"], ["4s"]], "bottom": ["5s"], "wall": ["1m"], "stacks": [1],
              "reason": "a:b", "deltas": [1, -1], "value": 2, "amount": 5, "rank": "T", "cards": ["3s"], "as": ["4s"],
              "tiles": ["1m"], "tile": "1m", "direction": "opposite", "suit": "m", "kind": "an", "game": "ddz",
              "rules": {"a": [1, {"b:": None}]}, "players": ["a", "b"], "dealer": 0, "base": 1, "room": "r", "round": 1}  # fmt: skip
    for name, f in model.model_fields.items():
        wire = f.alias or name
        if wire in sample:
            pairs.append((wire, True if (typ, wire) == ("rob", "value") else sample[wire]))
    pairs.append(("hash", "0f" * 32))
    raw = _dump(pairs)
    ev = parse_clean(raw)
    assert ev is not None, raw
    _same(ev, _reference(raw))
    _same(ev, model.model_validate_json(raw))
    assert ev.__pydantic_extra__ is None and ev.__pydantic_private__ is None
    assert ev.model_dump() == model.model_validate_json(raw).model_dump()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"seat" :2}',  # a spaced duplicate
        b'{"match_id":"m1","seq":5,"type":"pass","seat" :1,"x":2}',
        b'{"match_id":"m1","seq":0,"type":"match_started","game":"ddz","rules":{"a":1,"a" :2},'
        b'"players":["p1","p2"],"dealer":1,"base":1}',
    ],
)
def test_a_duplicate_hidden_by_spacing_is_refused(raw: bytes) -> None:
    """Counting the `":` of a line would not see a key spaced from its colon: every `:` counts."""
    assert parse_clean(raw) is None
    _check(raw)
