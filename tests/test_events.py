"""The event models, the JSONL codec and the hash chain (events.md §1, §5)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from events.chain import canonical_json, fill_chain, first_broken_link
from events.codec import LineError, ParsedLine, event_to_json, parse_event, parse_line, read_log
from events.errors import ContractError
from events.models import EVENT_TYPES
from tests.strategies import FIELDS, event_dicts

STARTED = {"match_id": "m1", "seq": 0, "type": "match_started", "game": "ddz",
           "rules": {"preset": "standard"}, "players": ["a", "b", "c"], "dealer": 0, "base": 1}  # fmt: skip


def test_every_contract_event_type_has_a_model() -> None:
    assert set(EVENT_TYPES) == set(FIELDS)
    assert len(EVENT_TYPES) == 25


@given(event_dicts())
@settings(max_examples=300)
def test_every_event_round_trips_through_json(d: dict) -> None:
    ev = parse_event(d)
    line = event_to_json(ev)
    again = parse_line(line.encode())
    assert again == ev
    assert json.loads(line) == d
    assert event_to_json(again) == line


@pytest.mark.parametrize(
    ("line", "code", "needle"),
    [
        (b"{not json", "bad_json", "not JSON"),
        (b"[1,2]", "bad_json", "JSON object"),
        (b"\xff\xfe{}", "bad_json", "UTF-8"),
        (json.dumps({**STARTED, "colour": "red"}).encode(), "bad_field", "colour"),
        (json.dumps({**STARTED, "type": "deal"}).encode(), "unknown_type", "deal"),
        (json.dumps({"match_id": "m1", "seq": 2, "type": "bid", "seat": "1", "value": 1}).encode(), "bad_field", "seat"),
        (json.dumps({"match_id": "m1", "seq": 2, "type": "bid", "seat": True, "value": 1}).encode(), "bad_field", "seat"),
        (json.dumps({"match_id": "m1", "seq": 2, "type": "play", "seat": 1, "cards": ["3x"]}).encode(), "bad_field", "3x"),
        (json.dumps({"match_id": "m 1", "seq": 2, "type": "pass", "seat": 1}).encode(), "bad_field", "match_id"),
        (json.dumps({"match_id": "m1", "seq": -1, "type": "pass", "seat": 1}).encode(), "bad_field", "seq"),
        (json.dumps({"match_id": "m1", "seq": 3, "type": "draw", "seat": 1, "tile": "8z"}).encode(), "bad_field", "8z"),
        (json.dumps({"match_id": "m1", "seq": 3, "type": "pass"}).encode(), "bad_field", "seat"),
        (b'{"match_id":"m1","seq":3,"type":"pass","seat":1,"x":' + b"[" * 100 + b"]" * 100 + b"}", "bad_json", "nested"),
    ],
)
def test_bad_lines_get_contract_codes(line: bytes, code: str, needle: str) -> None:
    with pytest.raises(ContractError) as info:
        parse_line(line)
    assert info.value.code == code
    assert needle in info.value.message


def test_bad_line_keeps_its_match_and_seq() -> None:
    with pytest.raises(ContractError) as info:
        parse_line(json.dumps({"match_id": "m9", "seq": 4, "type": "pass", "seat": 1, "oops": 1}))
    assert (info.value.match_id, info.value.seq, info.value.type) == ("m9", 4, "pass")


def test_read_log_plain_and_gzip_and_bad_lines_do_not_stop_the_file(tmp_path: Path) -> None:
    lines = [json.dumps(STARTED), "garbage", "", json.dumps({"match_id": "m1", "seq": 1, "type": "pass", "seat": 0})]
    text = "\n".join(lines) + "\n"
    plain = tmp_path / "a.jsonl"
    plain.write_text(text)
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    for p in (plain, gz):
        got = list(read_log(p))
        assert [type(x) for x in got] == [ParsedLine, LineError, ParsedLine]
        assert [x.line for x in got] == [1, 2, 4]
        assert got[1].error.code == "bad_json"


def test_truncated_gzip_is_reported_not_raised(tmp_path: Path) -> None:
    text = "".join(json.dumps({**STARTED, "match_id": f"m{i}"}) + "\n" for i in range(200))
    data = gzip.compress(text.encode())
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(data[: len(data) // 2])
    got = list(read_log(p))
    assert isinstance(got[-1], LineError)
    assert "unreadable" in got[-1].error.message
    assert all(isinstance(x, ParsedLine) for x in got[:-2])


def test_missing_file_is_one_line_error(tmp_path: Path) -> None:
    (err,) = list(read_log(tmp_path / "nope.jsonl"))
    assert isinstance(err, LineError) and "cannot open" in err.error.message


def test_canonical_json_is_sorted_compact_utf8() -> None:
    assert canonical_json({"b": 1, "a": ["é", 2]}) == '{"a":["é",2],"b":1}'.encode()


def _log() -> list:
    return [
        parse_event(STARTED),
        parse_event({"match_id": "m1", "seq": 1, "type": "bid", "seat": 0, "value": 1}),
        parse_event({"match_id": "m1", "seq": 2, "type": "pass", "seat": 1}),
    ]


def test_chain_fill_then_verify_and_detect_an_edit() -> None:
    chained = fill_chain(_log())
    assert all(e.hash for e in chained)
    assert first_broken_link(chained)[:2] == (None, True)
    # the hash is part of the written line and survives a round trip
    again = [parse_line(event_to_json(e)) for e in chained]
    assert first_broken_link(again)[:2] == (None, True)
    edited = list(again)
    d = edited[1].to_dict()
    d["value"] = 0
    edited[1] = parse_event(d)
    assert first_broken_link(edited)[:2] == (1, False)
    assert first_broken_link(_log())[:2] == (None, None)


def test_chain_follows_the_contract_formula() -> None:
    import hashlib

    e0 = _log()[0]
    expected = hashlib.sha256(b"" + canonical_json(json.loads(event_to_json(e0)))).hexdigest()
    assert fill_chain([e0])[0].hash == expected
