"""Reliability (issue 12 §1, §5): the codec never crashes on what a server sends.

Random bytes, random JSON, structurally valid events with random field values and over-size or
over-deep input: every line ends as an event or as a `ContractError` with a contract code, never as
any other exception, and memory stays bounded on absurd input.
"""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.codec import MAX_LINE_BYTES, MAX_NESTING, LineError, ParsedLine, event_to_json, iter_lines, parse_line
from events.errors import ERROR_CODES, ContractError
from events.models import EVENT_TYPES
from events.notation import ALL_CARDS, ALL_TILE_KINDS, GAME_IDS

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PARSE_CODES = {"bad_json", "bad_field", "unknown_type"}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=30,
)

# values a server might plausibly (or implausibly) put in a field
field_values = st.one_of(
    st.integers(min_value=-3, max_value=8),
    st.integers(),
    st.booleans(),
    st.none(),
    st.sampled_from(ALL_CARDS + ALL_TILE_KINDS + GAME_IDS + ("clockwise", "zhi", "m", "", "3", "10")),
    st.text(max_size=6),
    st.lists(st.sampled_from(ALL_CARDS + ALL_TILE_KINDS + ("XX", "")), max_size=20),
    st.lists(st.lists(st.sampled_from(ALL_CARDS + ALL_TILE_KINDS), max_size=17), max_size=7),
    st.dictionaries(st.sampled_from(["preset", "rob", "x", "cap"]), json_scalars, max_size=3),
)


def _fields(model: Any) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items() if name != "type"]


@st.composite
def structured_events(draw: st.DrawFn) -> dict[str, Any]:
    """An object shaped like an event: a real type, its own field names, random values."""
    typ = draw(st.sampled_from(sorted(EVENT_TYPES)))
    names = _fields(EVENT_TYPES[typ])
    obj: dict[str, Any] = {
        "match_id": draw(st.sampled_from(["m1", "m-2", "", "a b", "x" * 129])),
        "seq": draw(st.integers(-2, 10**6)),
        "type": typ,
    }
    for name in names:
        if name in ("match_id", "seq"):
            continue
        if draw(st.integers(0, 4)) == 0:
            continue  # leave the field out
        obj[name] = draw(field_values)
    if draw(st.integers(0, 9)) == 0:
        obj[draw(st.sampled_from(["extra", "Seat", "cards "]))] = 1
    return obj


def _parse_or_code(raw: bytes | str) -> str | None:
    """None when the line is an event, else the contract code; any other exception fails the test."""
    try:
        parse_line(raw)
    except ContractError as e:
        assert e.code in ERROR_CODES
        assert e.message
        return e.code
    return None


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_give_contract_errors_only(raw: bytes) -> None:
    code = _parse_or_code(raw)
    assert code is None or code in PARSE_CODES


@FUZZ
@given(json_values)
def test_random_json_gives_contract_errors_only(value: Any) -> None:
    code = _parse_or_code(json.dumps(value))
    assert code is None or code in PARSE_CODES


@FUZZ
@given(structured_events())
def test_structured_events_parse_or_are_refused_and_round_trip(obj: dict[str, Any]) -> None:
    raw = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    try:
        ev = parse_line(raw)
    except ContractError as e:
        assert e.code in PARSE_CODES
        return
    # an accepted event survives a write/read cycle unchanged, byte for byte after one pass
    line = event_to_json(ev)
    again = parse_line(line)
    assert again == ev
    assert event_to_json(again) == line


@FUZZ
@given(st.lists(st.one_of(st.binary(max_size=60), json_values.map(json.dumps).map(str.encode)), max_size=12))
def test_every_line_of_a_random_file_yields_exactly_one_result(lines: list[bytes]) -> None:
    cleaned = [ln.replace(b"\n", b" ").replace(b"\r", b" ") for ln in lines]
    good = '{"match_id":"ok","seq":0,"type":"pass","seat":1}'
    body = b"\n".join([*cleaned, good.encode()]) + b"\n"
    out = list(iter_lines(io.BytesIO(body), "fuzz"))
    non_blank = [i + 1 for i, ln in enumerate([*cleaned, b"x"]) if ln.strip()]
    assert [r.line for r in out] == non_blank
    assert isinstance(out[-1], ParsedLine) and out[-1].event.match_id == "ok"
    for r in out:
        if isinstance(r, LineError):
            assert r.error.code in PARSE_CODES


# ------------------------------------------------------------------ cases the fuzzing found


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b'{"seq":' + b"9" * 5000 + b"}", "integer longer than 4300 digits"),
        (b'{"match_id":"a","seq":1,"type":"pass","seat":0,"seat":1}', "duplicate key"),
        (
            b'{"match_id":"a","seq":0,"type":"match_started","game":"ddz","rules":{"x":NaN},"players":["a","b","c"],"dealer":0,"base":1}',
            "NaN",
        ),
        (
            b'{"match_id":"a","seq":0,"type":"match_started","game":"ddz","rules":{"x":"\\ud800"},"players":["a","b","c"],"dealer":0,"base":1}',
            "lone surrogate",
        ),
        ('{"match_id":"a","seq":1,"type":"pass","seat":0}'.encode("utf-16"), "UTF-16 instead of UTF-8"),
        (b'\xef\xbb\xbf{"match_id":"a","seq":1,"type":"pass","seat":0}', "byte order mark"),
    ],
)
def test_ambiguous_or_non_utf8_json_is_bad_json(raw: bytes, why: str) -> None:
    assert _parse_or_code(raw) == "bad_json", why


def test_absurd_seq_is_refused_but_names_its_match() -> None:
    with pytest.raises(ContractError) as ei:
        parse_line(json.dumps({"match_id": "a", "seq": 10**400, "type": "pass", "seat": 0}))
    assert ei.value.code == "bad_field"
    assert ei.value.match_id == "a"


# ------------------------------------------------------------------ limits (§5)


def test_over_long_line_is_refused_with_its_size_and_memory_stays_bounded() -> None:
    big = b'{"match_id":"a","seq":1,"type":"pass","seat":0,"ts":"' + b"x" * (8 * MAX_LINE_BYTES) + b'"}\n'
    body = big + b'{"match_id":"a","seq":2,"type":"pass","seat":0}\n'
    stream = io.BytesIO(body)
    tracemalloc.start()
    out = list(iter_lines(stream, "big"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert isinstance(out[0], LineError) and out[0].error.code == "bad_json"
    assert "exceeds the limit" in out[0].error.message and str(len(big)) in out[0].error.message
    assert isinstance(out[1], ParsedLine) and out[1].line == 2
    assert peak < 4 * MAX_LINE_BYTES, f"peak {peak} bytes for an {len(big)}-byte line"


def test_over_long_line_inside_gzip_is_refused() -> None:
    body = b'{"x":"' + b"y" * (2 * MAX_LINE_BYTES) + b'"}\n{"match_id":"a","seq":0,"type":"pass","seat":0}\n'
    gz = gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(body)), mode="rb")
    out = list(iter_lines(gz, "g"))  # type: ignore[arg-type]
    assert [type(r) for r in out] == [LineError, ParsedLine]


def test_truncated_gzip_ends_with_a_line_error() -> None:
    data = gzip.compress(b'{"match_id":"a","seq":0,"type":"pass","seat":0}\n' * 2000)
    gz = gzip.GzipFile(fileobj=io.BytesIO(data[: len(data) // 2]), mode="rb")
    out = list(iter_lines(gz, "t"))  # type: ignore[arg-type]
    assert isinstance(out[-1], LineError) and out[-1].error.code == "bad_json"
    assert "unreadable input" in out[-1].error.message


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 100, 100_000])
def test_deeply_nested_json_is_refused(depth: int) -> None:
    nested = "[" * depth + "]" * depth
    raw = (
        '{"match_id":"a","seq":0,"type":"match_started","game":"ddz","rules":{"x":'
        + nested
        + '},"players":["a","b","c"],"dealer":0,"base":1}'
    )
    with pytest.raises(ContractError) as ei:
        parse_line(raw)
    assert ei.value.code == "bad_json"
    assert "nested" in ei.value.message


def test_nesting_within_the_limit_is_accepted() -> None:
    nested = "[" * (MAX_NESTING - 2) + "]" * (MAX_NESTING - 2)
    raw = (
        '{"match_id":"a","seq":0,"type":"match_started","game":"ddz","rules":{"x":'
        + nested
        + '},"players":["a","b","c"],"dealer":0,"base":1}'
    )
    assert parse_line(raw).type == "match_started"
