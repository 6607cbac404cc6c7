"""Zha Jin Hua rule scenarios beyond the worked examples, deltas derived by hand from the rules:
autocompare at the first turn, a non-actor forfeit ending the match, an all-in folded to, a compare
with two left, a one-round cap, rewards for a folded holder (`any_holder`), the 2-3-5 cycle."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line


def log(actions: list[str], rules: dict[str, Any], hands: list[str], dealer: int, base: int = 1,
        stacks: list[int] | None = None) -> list[Any]:  # fmt: skip
    n = len(hands)
    evs: list[dict[str, Any]] = [
        {"match_id": "s", "seq": 0, "type": "match_started", "game": "zhajinhua", "rules": rules,
         "players": [f"p{i}" for i in range(n)], "dealer": dealer, "base": base},
        {"match_id": "s", "seq": 1, "type": "dealt", "hands": [h.split() for h in hands]},
    ]  # fmt: skip
    if stacks is not None:
        evs[1]["stacks"] = stacks
    for a in actions:
        p = a.split()
        e: dict[str, Any] = {"match_id": "s", "seq": len(evs), "type": p[0], "seat": int(p[1])}
        if p[0] == "bet":
            e["amount"] = int(p[2])
        if p[0] == "compare":
            e["target"] = int(p[2])
        evs.append(e)
    return [parse_line(json.dumps(e)) for e in evs]


E6_HANDS = ["Ah Kh 2c", "7s 7d Tc", "3c 8h Jd"]
CYCLE = ["2s 3h 5d", "9s 9h 9c", "Th Jh Qh"]

SCENARIOS: dict[str, tuple[list[str], dict[str, Any], list[str], int, list[int] | None, list[int], list[int]]] = {
    # name: (actions, rules, hands, dealer, stacks, deltas, winners)
    # ZJH-R14 at the first turn: seat 0 has 0 chips after the ante, its 豹子 beats both -> wins, reward 10 each
    "autocompare_first_turn_wins": ([], {"mode": "gold"}, ["As Ad Ah", "Ks Qd 9c", "8c 8s 3d"], 2, [1, 50, 50],
                                    [22, -11, -11], [0]),
    # the same short seat with a weak hand is out; the match goes on from seat 1
    "autocompare_first_turn_loses": (["bet 1 1", "fold 2"], {"mode": "gold"}, ["2s 4h 6d", "Ks Qd 9c", "8c 8s 3d"], 2,
                                     [1, 50, 50], [-1, 2, -1], [1]),
    # ZJH-R13: a non-actor leaves and one seat remains
    "forfeit_by_non_actor_ends": (["forfeit 0"], {}, ["Ks Kd 2c", "As Qd 9c"], 0, None, [-1, 1], [1]),
    # ZJH-R15: the all-in is folded to: the opener takes the pot (8 + 2 + 1)
    "allin_folded_to": (["bet 0 1", "bet 1 1", "fold 2", "look 0", "allin 0", "fold 1"], {"mode": "gold"}, E6_HANDS, 2,
                        [30, 8, 50], [3, -2, -1], [0]),
    # ZJH-R9 with two left: the initiator (seat 1, A-high) loses to the pair of kings
    "compare_with_two_left": (["bet 1 1", "bet 0 1", "compare 1 0"], {}, ["Ks Kd 2c", "As Qd 9c"], 0, None, [3, -3], [0]),
    # ZJH-R5 with max_rounds 1: showdown after round 1
    "round_cap_one_round": (["bet 1 1", "bet 2 1", "bet 0 1"], {"max_rounds": 1}, ["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"],
                            0, None, [4, -2, -2], [0]),
    # S5 any_holder: the folded 顺金 holder is still paid 5 by each other seat
    "any_holder_folded_shunjin": (["fold 1", "bet 2 1", "bet 0 1", "fold 2"], {"special_rewards": "any_holder"},
                                  ["Kh Kd 7s", "9h Th Jh", "8c 8s 3d"], 0, None, [-2, 9, -7], [0]),
    "winner_only_folded_shunjin": (["fold 1", "bet 2 1", "bet 0 1", "fold 2"], {},
                                   ["Kh Kd 7s", "9h Th Jh", "8c 8s 3d"], 0, None, [3, -1, -2], [0]),
    # 4.5 cycle 2-3-5 > 豹子 > 顺金 > 2-3-5: the special is ignored, the 豹子 wins and is rewarded
    "showdown_235_cycle": (["bet 1 1", "bet 2 1", "bet 0 1"], {"max_rounds": 1, "special_235": True}, CYCLE, 0, None,
                           [-12, 24, -12], [1]),
    # without the special the 豹子 simply beats everything
    "showdown_no_special": (["bet 1 1", "bet 2 1", "bet 0 1"], {"max_rounds": 1}, CYCLE, 0, None, [-12, 24, -12], [1]),
    # open by the 2-3-5 against the 顺金 with the special on: the 顺金 wins (2-3-5 only beats 豹子)
    "open_235_vs_shunjin": (["bet 1 1", "fold 2", "bet 0 1", "open 1"], {"special_235": True},
                            ["Th Jh Qh", "2s 3h 5d", "9s 8h 4c"], 0, None, [14, -8, -6], [0]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name: str) -> None:
    actions, rules, hands, dealer, stacks, deltas, winners = SCENARIOS[name]
    r = replay(log(actions, rules, hands, dealer, stacks=stacks))
    assert r.status == "finished", r.error
    assert r.deltas == deltas
    assert r.winners == winners
    assert r.events == 2 + len(actions)
