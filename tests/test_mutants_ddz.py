"""Mutation-killing tests for Dou Dizhu settlement (issue 17), values computed by hand from
doudizhu.md section 5 (S1..S9) — never read back from the engine.
"""

from __future__ import annotations

from typing import Any

from engine.replay import replay
from events.codec import parse_event
from tests.test_ddz_errors import E1


def _replay(evs: list[dict[str, Any]]) -> Any:
    return replay([parse_event({**e, "match_id": "d", "seq": i}) for i, e in enumerate(evs)])


def test_forfeit_before_landlord_at_base_3() -> None:
    """S8 first case at b = 3: the forfeiter (seat 1) pays b = 3 to each other seat; the line's unit is b."""
    evs = [{**E1[0], "base": 3}, E1[1], {"type": "forfeit", "seat": 1}]
    r = _replay(evs)
    assert r.status == "finished" and r.deltas == [3, -6, 3] and r.winners == [0, 2]
    assert [(i["kind"], i["seat"], i["from"], i["points"], i["base"]) for i in r.items] == [
        ("forfeit", 0, 1, 3, 3), ("forfeit", 2, 1, 3, 3)]  # fmt: skip


def test_landlord_forfeit_after_a_bomb_is_s7_with_the_bombs_so_far() -> None:
    """S8 second case: landlord 1 (bid 1: R = 1) plays the bomb 2222 (Bm = 2) and forfeits; Sp = 1,
    M = 2, U = b × M = 3 × 2 = 6 → S7: landlord −2U = −12, each farmer +6."""
    evs = [{**E1[0], "base": 3}, E1[1], E1[2], E1[3],
           {"type": "play", "seat": 1, "cards": ["2s", "2h", "2c", "2d"]}, {"type": "forfeit", "seat": 1}]  # fmt: skip
    r = _replay(evs)
    assert r.status == "finished" and r.deltas == [6, -12, 6] and r.winners == [0, 2]
    lines = [(i["kind"], i["seat"], i["from"], i["points"], i["unit"], i["multiplier"], i["bomb_factor"], i["spring"])
             for i in r.items]  # fmt: skip
    assert lines == [("forfeit", 0, 1, 6, 6, 2, 2, 1), ("forfeit", 2, 1, 6, 6, 2, 2, 1)]


def test_landlord_forfeit_at_unit_one_pays_each_farmer_one() -> None:
    """S8 → S7 at b = 1, R = 1, no bomb: U = 1; farmers +1 each, so both are winners (delta > 0)."""
    r = _replay([E1[0], E1[1], E1[2], E1[3], {"type": "forfeit", "seat": 1}])
    assert r.status == "finished" and r.deltas == [1, -2, 1] and r.winners == [0, 2]
