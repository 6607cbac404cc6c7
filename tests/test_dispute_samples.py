"""The disputed sample logs that `make run` ingests beside the bots' matches, pinned by outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.replay import group_lines, replay
from events.codec import read_log

DISPUTES = Path(__file__).parent / "data" / "disputes"


def _result(name: str):  # type: ignore[no-untyped-def]
    (entries,) = group_lines(read_log(DISPUTES / name)).matches.values()
    return replay(entries)


def test_server_overcharged_is_a_mismatch_of_the_rules_settlement() -> None:
    r = _result("sichuan_server_overcharged.jsonl")
    assert r.status == "finished" and r.deltas == [-21, -21, -21, 63]
    assert r.recorded_deltas == [-48, -21, -21, 90] and r.settlement_matches is False


def test_pass_while_leading_is_must_play_at_its_seq() -> None:
    r = _result("ddz_pass_while_leading.jsonl")
    assert r.status == "invalid"
    assert (r.error["seq"], r.error["code"]) == (5, "must_play") and "DDZ-R17" in r.error["message"]


def test_edited_bet_breaks_the_chain_at_its_seq() -> None:
    r = _result("zhajinhua_edited_bet.jsonl")
    assert (r.status, r.error["code"], r.error["seq"], r.chain_ok) == ("invalid", "bad_hash", 2, False)


@pytest.mark.parametrize("name", sorted(p.name for p in DISPUTES.glob("*.jsonl")))
def test_every_sample_is_pinned_here(name: str) -> None:
    assert name in {"sichuan_server_overcharged.jsonl", "ddz_pass_while_leading.jsonl", "zhajinhua_edited_bet.jsonl"}
