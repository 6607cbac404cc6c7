"""The C fast path of the line parser (events/fastparse.py) against the reference path.

The reference (`events.codec.parse_line_reference`: `json.loads` with a duplicate-key hook, then
the pydantic models) decides every line; the fast path may only decline a line (None) or build
exactly the event the reference builds: same model, same field values in the same order, same
set fields. Checked on every golden and simulated line, on fuzzed events and on hand-made
lines that each break one guarantee (duplicate keys, NaN, lone surrogates, huge integers, a BOM,
depth, explicit nulls, escapes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.codec import parse_line, parse_line_reference
from events.errors import ContractError
from events.fastparse import parse_clean
from events.models import EVENT_TYPES
from events.notation import ALL_CARDS, ALL_TILE_KINDS

DATA = Path(__file__).parent / "data"


def _same(fast: Any, ref: Any) -> None:
    assert type(fast) is type(ref)
    assert list(fast.__dict__.items()) == list(ref.__dict__.items())
    assert fast.__pydantic_fields_set__ == ref.__pydantic_fields_set__
    assert fast.to_dict() == ref.to_dict() and fast == ref


def _reference(raw: bytes) -> Any:
    try:
        return parse_line_reference(raw)
    except ContractError as e:
        return e


def _check(raw: bytes) -> Any:
    """The fast path agrees with the reference on one line; returns the fast result."""
    fast = parse_clean(raw)
    ref = _reference(raw)
    if fast is not None:
        assert not isinstance(ref, ContractError), (raw, ref)
        _same(fast, ref)
    # and the public parser answers exactly what the reference answers
    try:
        got: Any = parse_line(raw)
    except ContractError as e:
        got = e
    if isinstance(ref, ContractError):
        assert isinstance(got, ContractError) and got.as_dict() == ref.as_dict() and got.match_id == ref.match_id
    else:
        _same(got, ref)
    return fast


def test_every_golden_and_sample_line() -> None:
    files = sorted(DATA.rglob("*.jsonl"))
    assert files
    fast = total = 0
    for f in files:
        for raw in f.read_bytes().splitlines():
            if raw.strip():
                total += 1
                fast += _check(raw.strip()) is not None
    assert fast > total // 2  # the fast path is the common path


def test_simulated_logs_of_every_game() -> None:
    from engine.registry import GAME_MODULES
    from engine.sim.simulate import simulate_match
    from events.chain import fill_chain
    from events.codec import event_to_json

    for game in GAME_MODULES:
        for i in range(2):
            events = fill_chain(simulate_match(game, {}, 7, i))
            for e in events:
                raw = event_to_json(e).encode("utf-8")
                if e.type != "match_started":
                    assert parse_clean(raw) is not None, raw
                _check(raw)


PLAY = b'{"match_id":"m1","seq":5,"type":"play","seat":1,"cards":["3s","3h"]}'


@pytest.mark.parametrize(
    "raw",
    [
        b'{"match_id":"m1","seq":5,"seq":6,"type":"play","seat":1,"cards":["3s"]}',  # duplicate key
        b'{"match_id":"m1","seq":5,"type":"play","type":"pass","seat":1,"cards":["3s"]}',
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"seat":1}',  # same value twice
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"a\\u003ab","ts":"c"}',  # escaped colon
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"a:b"}',  # a colon in a string
        b'{"match_id":"m:1","seq":5,"type":"pass","seat":1,"ts":"1:2:3"}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":NaN}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":Infinity}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":1e400}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":123456789012345678901234567890}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":' + b"9" * 5000 + b"}",
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":1.0}',
        b'{"match_id":"m1","seq":5,"type":"bid","seat":1,"value":true}',
        b'{"match_id":"m1","seq":5,"type":"rob","seat":1,"value":1}',
        b"\xef\xbb\xbf" + PLAY,  # BOM
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"\\ud800"}',  # lone surrogate
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"\xed\xa0\x80"}',  # encoded surrogate
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"\xff"}',  # not UTF-8
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":null}',  # an explicit null stays set
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"hash":null}',
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"\\u00e9t\\u00e9"}',
        b'{"match_id":"m1","seq":5,"type":"play","seat":1,"cards":["3s"],"as":null}',
        b'{"match_id":"m1","seq":5,"type":"play","seat":1,"cards":["3s"],"as":["4s"]}',
        b'{"match_id":"m1","seq":5,"type":"play","seat":1,"cards":["3s"],"x":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}',
        b'{"match_id":"m1","seq":5,"type":"dealt","hands":[["3s"],["1m"]],"stacks":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}',
        b' {"match_id":"m1" , "seq" : 5 , "type" : "pass" , "seat" : 1 } ',
        b'{"type":"pass","seat":1,"seq":5,"match_id":"m1"}',  # any key order
        b'{"match_id":"m1","seq":100000,"type":"pass","seat":1}',
        b'{"match_id":"m1","seq":100001,"type":"pass","seat":1}',
        b'{"match_id":"m1","seq":-1,"type":"pass","seat":1}',
        b'{"match_id":"m1\\n","seq":1,"type":"pass","seat":1}',
        b'{"match_id":"m1 ","seq":1,"type":"pass","seat":1}',
        b'{"match_id":"' + b"x" * 128 + b'","seq":1,"type":"pass","seat":1}',
        b'{"match_id":"' + b"x" * 129 + b'","seq":1,"type":"pass","seat":1}',
        b'{"match_id":"","seq":1,"type":"pass","seat":1}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":6}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"hash":"' + b"a" * 64 + b'"}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"hash":"' + b"A" * 64 + b'"}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"hash":"' + b"a" * 63 + b'"}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"hash":"' + b"a" * 63 + b'g"}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"hash":"' + b"a" * 63 + b'\\n"}',
        b'{"match_id":"m1","seq":1,"type":"laizi","rank":"T"}',
        b'{"match_id":"m1","seq":1,"type":"laizi","rank":"10"}',
        b'{"match_id":"m1","seq":1,"type":"play","seat":1,"cards":[]}',
        b'{"match_id":"m1","seq":1,"type":"play","seat":1,"cards":["1m"]}',
        b'{"match_id":"m1","seq":1,"type":"discard","seat":1,"tile":"3s"}',
        b'{"match_id":"m1","seq":1,"type":"discard","seat":1,"tile":"8z"}',
        b'{"match_id":"m1","seq":1,"type":"gang","seat":1,"tile":"3s","kind":"ming"}',
        b'{"match_id":"m1","seq":1,"type":"dealt","hands":[["3s","1m"],["XX"]]}',
        b'{"match_id":"m1","seq":1,"type":"dealt","hands":[["3s"],["4s"]],"bottom":["1m"]}',
        b'{"match_id":"m1","seq":1,"type":"dealt","hands":[["1m"],["2m"]],"wall":["3s"]}',
        b'{"match_id":"m1","seq":1,"type":"dealt","hands":[["1m"],["2m"]],"stacks":[-1]}',
        b'{"match_id":"m1","seq":1,"type":"settled","deltas":[1]}',
        b'{"match_id":"m1","seq":1,"type":"nope","seat":1}',
        b'{"match_id":"m1","seq":1,"seat":1}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"extra":1}',
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"extra":"a:b"}',  # unknown, a colon inside
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"x":' + b"[" * 200_000 + b"]" * 200_000 + b"}",  # deep unknown
        b'{"match_id":"m1","seq":1,"type":"pass","seat":1,"x":' + b'{"y":' * 100_000 + b"1" + b"}" * 100_001,
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"null"}',  # the word null in a string
        b'{"match_id":"m1","seq":5,"type":"pass","seat":null}',
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"a\\"b"}',  # an escaped quote
        b'{"match_id":"m1","seq":1,"type":"pass"}',
        b'{"match_id":"m1","seq":1,"type":"match_started","game":"ddz","rules":{},"players":["a","b","c"],"dealer":0,"base":1}',
        b'{"match_id":"m1","seq":5,"x":{"type":"pass"},"type":"play","seat":1,"cards":["3s"]}',  # a nested "type" first
        b'{"match_id":"m1","seq":5,"type":"","type":"pass","seat":1}',  # an empty type, then the real one
        b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"1:2","x":"3"}',  # colons in ts, an unknown key
        b'{"match_id":"m:1","seq":5,"type":"forfeit","seat":1,"reason":"a:b","ts":"c:d"}',
        b'{"match_id":"m:1","seq":5,"type":"forfeit","seat":1,"reason":"a:b","reason":"c"}',
        b"[1,2]",
        b'"pass"',
        b"{",
        PLAY,
    ],
)
def test_each_guarantee_on_a_hand_made_line(raw: bytes) -> None:
    _check(raw)


def test_a_colon_spelt_as_an_escape_cannot_hide_a_duplicate_key() -> None:
    raw = b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":"\\u003a","ts":"x"}'
    assert parse_clean(raw) is None
    with pytest.raises(ContractError) as e:
        parse_line(raw)
    assert e.value.code == "bad_json" and "duplicate key 'ts'" in e.value.message


def test_the_fast_path_takes_colons_in_strings_and_spaced_lines() -> None:
    """Good lines the fast path decides itself (a colon inside a string, spaces around a `:`,
    any key order), and the repeated key among them it leaves to the reference."""
    for raw in (
        b'{"match_id":"m:1","seq":5,"type":"forfeit","seat":1,"reason":"a:b","ts":"c:d"}',
        b'{"match_id":"m1","seq":5,"type":"play","seat":1,"cards":["3s"],"as":["4:s"]}',
        b' {"match_id":"m1" , "seq" : 5 , "type" : "pass" , "seat" : 1 } ',
        b'{"type":"pass","seat":1,"seq":5,"match_id":"m1"}',
    ):
        assert _check(raw) is not None, raw
    assert parse_clean(b'{"match_id":"m:1","seq":5,"type":"forfeit","seat":1,"reason":"a:b","reason":"c"}') is None


def test_an_explicit_null_stays_a_set_field() -> None:
    ev = parse_line(b'{"match_id":"m1","seq":5,"type":"pass","seat":1,"ts":null}')
    assert ev.to_dict() == {"match_id": "m1", "seq": 5, "type": "pass", "seat": 1, "ts": None}


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_values = st.one_of(
    st.integers(-3, 8), st.integers(), st.booleans(), st.none(), st.text(max_size=6),
    st.sampled_from(ALL_CARDS + ALL_TILE_KINDS + ("clockwise", "zhi", "m", "T", "", "a:b")),
    st.lists(st.sampled_from(ALL_CARDS + ALL_TILE_KINDS + ("XX",)), max_size=8),
    st.lists(st.lists(st.sampled_from(ALL_CARDS + ALL_TILE_KINDS), max_size=5), max_size=7),
    st.lists(st.integers(-5, 5), max_size=7),
)  # fmt: skip


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    typ = draw(st.sampled_from(sorted(EVENT_TYPES)))
    model = EVENT_TYPES[typ]
    pairs: list[tuple[str, Any]] = [
        ("match_id", draw(st.sampled_from(["m1", "a:b", "", "a b", "x" * 129]))),
        ("seq", draw(st.integers(-1, 100_002))),
        ("type", typ),
    ]
    for name, f in model.model_fields.items():
        wire = f.alias or name
        if wire in ("match_id", "seq", "type") or draw(st.integers(0, 3)) == 0:
            continue
        pairs.append((wire, draw(_values)))
    if draw(st.integers(0, 5)) == 0:  # a duplicate key
        pairs.append(draw(st.sampled_from(pairs)))
    if draw(st.integers(0, 8)) == 0:
        pairs.append(("extra", 1))
    pairs = draw(st.permutations(pairs))
    sep = draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " :")]))
    ascii_ = draw(st.booleans())
    body = sep[0].join(json.dumps(k, ensure_ascii=ascii_) + sep[1] + json.dumps(v, ensure_ascii=ascii_) for k, v in pairs)
    return ("{" + body + "}").encode("utf-8", "surrogatepass")


@FUZZ
@given(_lines())
def test_fuzzed_lines_agree_with_the_reference(raw: bytes) -> None:
    _check(raw)
