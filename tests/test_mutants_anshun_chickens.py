"""Mutation-killing tests for Anshun chickens on a won discard (issue 17, AS-S7 step 4): the winning
tile belongs to the first winner in turn order from the discarder only. Logs are built by
tests/mj_golden_builder.py (its fillers hold no chicken tile and nobody can claim them, checked by its
own rule); every amount below is worked out by hand from anshun.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line

SEAT1 = ["1s", "1s", "2p", "2p", "2p", "7s", "7s", "7s", "9m", "9m", "9m", "5s", "5s"]  # waits 1s / 5s
SEAT2 = ["1s", "3p", "3p", "3p", "4m", "4m", "4m", "6m", "6m", "6m", "8p", "8p", "8p"]  # waits 1s (pair)


def _log(flip: str, both: bool, **rules: Any) -> list[dict[str, Any]]:
    from tests.mj_golden_builder import make

    events: list[tuple[Any, ...]] = [("discard", 3, "1s"), ("hu", 1, "1s")]
    if both:
        events.append(("hu", 2, "1s"))
    spec = {"name": "as_chicken_win", "game": "anshun", "dealer": 3, "rules": rules,
            "hands": {1: SEAT1, 2: SEAT2, 3: ["1s"]}, "events": events, "after": [flip], "deltas": None}  # fmt: skip
    return [json.loads(x) for x in make(spec) if '"settled"' not in x]


@pytest.mark.parametrize(
    ("flip", "rules", "deltas"),
    [
        # f = 2m → Y = {1m, 3m} (nobody holds one): v(1s) = 1. Seat 1 holds 1s 1s + the won 1s: c = 3;
        # seat 2 (second in turn order 0, 1, 2 from the discarder 3) holds one 1s: c = 1.
        # Δ0 = −3 − 1, Δ1 = 5 + 9 − 1, Δ2 = 5 + 3 − 3, Δ3 = −5 − 5 − 3 − 1
        ("2m", {}, [-4, 13, 5, -14]),
        # f = 9s → Y = {8s, 1s}: 1s is 金鸡, v = 2: c(1) = 6, c(2) = 2.
        # Δ0 = −6 − 2, Δ1 = 5 + 18 − 2, Δ2 = 5 + 6 − 6, Δ3 = −10 − 6 − 2
        ("9s", {}, [-8, 21, 5, -18]),
        # jin_ji off: v(1s) stays 1, as with f = 2m
        ("9s", {"jin_ji": False}, [-4, 13, 5, -14]),
    ],
)
def test_two_winners_on_a_discarded_1s(flip: str, rules: dict[str, Any], deltas: list[int]) -> None:
    """AS-S7 step 4, AS-S3: seat 3 discards the hand's first 1s; seat 1 (111s 222p 777s 999m 55s) and
    seat 2 (333p 444m 666m 888p, pair 1s1s) both win it, da_dui_zi 5 each, paid by seat 3.
    The 1s was won, so it is not a 冲锋鸡 (step 6)."""
    r = replay([parse_line(json.dumps(e)) for e in _log(flip, True, **rules)])
    assert r.error is None and r.status == "finished", r.error
    assert sorted((i["kind"], i["seat"], i["from"], i["points"]) for i in r.items if i["kind"] == "hu_dianpao") == [
        ("hu_dianpao", 1, 3, 5), ("hu_dianpao", 2, 3, 5)]  # fmt: skip
    assert not any(i["kind"] == "chong_feng_ji" for i in r.items)
    assert r.deltas == deltas


def test_one_winner_on_a_discarded_1s_counts_it() -> None:
    """AS-S7 step 4 with one winner: seat 2 passes, seat 1 alone wins the 1s (da_dui_zi 5 from seat 3)
    and holds three 1s → c = 3 (f = 2m); seat 2 still holds its own 1s → c = 1.
    Δ0 = −4, Δ1 = 5 + 9 − 1 = 13, Δ2 = 3 − 3 = 0, Δ3 = −5 − 3 − 1 = −9."""
    r = replay([parse_line(json.dumps(e)) for e in _log("2m", False)])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [-4, 13, 0, -9]
