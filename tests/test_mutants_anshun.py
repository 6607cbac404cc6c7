"""Mutation-killing tests for Anshun settlement (issue 17): AS-S8 (荒庄) from the worked example AS-E6
of anshun.md and a one-ready-seat variant of it, amounts by hand from the rule text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.replay import replay
from events.codec import parse_event

E6 = Path(__file__).parent / "data" / "golden" / "anshun_e6_huang_zhuang_jiao_pai.jsonl"


def _e6() -> list[dict[str, Any]]:
    return [json.loads(line) for line in E6.read_text(encoding="utf-8").splitlines() if '"settled"' not in line]


def test_e6_jiao_pai_lines_carry_the_call_value() -> None:
    """AS-E6: V(0) = 20 (qing_qi_dui), V(2) = 1 (ping_hu); seats 1 and 3 pay each ready seat its V."""
    r = replay([parse_event(e) for e in _e6()])
    assert r.deltas == [40, -21, 2, -21]
    lines = sorted((i["seat"], i["from"], i["points"], i["value"]) for i in r.items if i["kind"] == "jiao_pai")
    assert lines == [(0, 1, 20, 20), (0, 3, 20, 20), (2, 1, 1, 1), (2, 3, 1, 1)]


def test_one_ready_seat_is_paid_by_the_three_others() -> None:
    """AS-S8 with T = {0}: seat 2's 8s is swapped with the dealer's first discard 4m, so seat 2 holds
    1m2m3m 4m4m5m6m 2s3s4s 7s 5p5p (not ready: no tile completes it) and seat 3 discards 8s at seq 2.
    Seats 1, 2, 3 each pay V(0) = 20 to seat 0 (AS-E6's value); at base 3 (AS-C5: amounts × b) that is 60:
    Δ = [+180, -60, -60, -60]."""
    evs = _e6()
    evs[0] = {**evs[0], "base": 3}
    hands = evs[1]["hands"]
    hands[2][hands[2].index("8s")] = "4m"
    hands[3][hands[3].index("4m")] = "8s"
    assert evs[2] == {**evs[2], "type": "discard", "seat": 3, "tile": "4m"}
    evs[2] = {**evs[2], "tile": "8s"}
    r = replay([parse_event(e) for e in evs])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [180, -60, -60, -60]
    assert r.winners == []
