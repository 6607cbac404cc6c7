"""Mutation-killing tests for Pao De Kuai settlement (issue 17), deltas computed by hand from
paodekuai.md section 5 (P1, P4) and events.md section 6 — never read back from the engine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line
from tests.test_paodekuai import _fill

QUADS = "3s 3h 3c 3d"  # a bomb (4.1) that holds 3s: a legal first lead of a first match (PDK-R4)


def _log(rules: dict[str, Any], base: int, actions: list[dict[str, Any]]) -> list[Any]:
    hands = _fill({0: QUADS})
    evs: list[dict[str, Any]] = [
        {"match_id": "p", "seq": 0, "type": "match_started", "game": "paodekuai", "rules": rules,
         "players": ["a", "b", "c"], "dealer": 0, "base": base},
        {"match_id": "p", "seq": 1, "type": "dealt", "hands": hands},
    ]  # fmt: skip
    for a in actions:
        evs.append({"match_id": "p", "seq": len(evs), **a})
    return [parse_line(json.dumps(e)) for e in evs]


BOMB = {"type": "play", "seat": 0, "cards": QUADS.split()}

CASES: dict[str, tuple[dict[str, Any], int, list[dict[str, Any]], list[int], list[int]]] = {
    # P4 at base 3: the forfeiter pays closed_factor × 16 × b = 2 × 16 × 3 = 96 to each other seat.
    "forfeit_at_base_3": ({}, 3, [{"type": "forfeit", "seat": 1}], [96, -192, 96], [0, 2]),
    # P1 then P4, bomb_points 32: the bomb takes 32 from seats 1 and 2; seat 2 forfeits and pays 32 to each.
    # Seat 1 nets -32 + 32 = 0, which is not positive (events.md §6): winners [0].
    "forfeit_zero_delta_is_not_a_winner": ({"bomb_points": 32}, 1, [BOMB, {"type": "forfeit", "seat": 2}],
                                           [96, 0, -96], [0]),
    # bomb_points 31: seat 1 nets -31 + 32 = +1, positive: winners [0, 1]; seat 0 +62 + 32, seat 2 -31 - 64.
    "forfeit_delta_of_one_is_a_winner": ({"bomb_points": 31}, 1, [BOMB, {"type": "forfeit", "seat": 2}],
                                         [94, 1, -95], [0, 1]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forfeit_settlement_by_hand(name: str) -> None:
    rules, base, actions, deltas, winners = CASES[name]
    r = replay(_log(rules, base, actions))
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == deltas
    assert all(type(d) is int for d in r.deltas)
    assert sorted(r.winners) == winners
