"""Mutation-killing tests for Zha Jin Hua settlement (issue 17), deltas computed by hand from
zhajinhua.md section 5 (S1..S6) and events.md section 6 — never read back from the engine.

Each case names the surviving mutants of `ZhaJinHua.settle` it was written against.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.replay import replay
from tests.test_zhajinhua_scenarios import log

TIE = {"a": "Kc Qc 9c", "b": "Kd Qd 9d"}  # equal flushes: a tie without suit_tiebreak (4.2)

CASES: dict[str, tuple[list[str], dict[str, Any], list[str], int, list[int] | None, list[int], list[int]]] = {
    # name: (actions, rules, hands, dealer, stacks, deltas, winners)
    # S3, odd pot: dealer 0 -> order 1, 2, 0; seats 2 and 0 tie at the one-round cap (ZJH-R5).
    # c = [2, 1, 2], P = 5, q = 2, the extra point goes to seat 2 (earlier in action order than 0).
    # Δ = [2-2, -1, 3-2]. (kills sorting the winners by seat instead of by action order)
    "odd_pot_extra_to_first_in_action_order": (
        ["fold 1", "bet 2 1", "bet 0 1"], {"max_rounds": 1}, [TIE["a"], "Jd Js 4h", TIE["b"]], 0, None,
        [0, -1, 1], [0, 2]),
    # S3, even pot: c = [2, 2, 2], P = 6, q = 3, no extra point: Δ = [1, -2, 1]
    # (kills giving the first winner a point when P - q|W| = 0)
    "even_pot_no_extra": (
        ["bet 1 1", "bet 2 1", "bet 0 1"], {"max_rounds": 1}, [TIE["a"], "Jd Js 4h", TIE["b"]], 0, None,
        [1, -2, 1], [0, 2]),
    # S5 with a reward of 1 × base: seat 1 (豹子) wins on a fold, c = [1, 2], pot Δ [-1, +1], reward 1.
    "reward_of_one_point": (
        ["bet 1 1", "fold 0"], {"baozi_reward": 1}, ["2c 5d 8s", "As Ad Ah"], 0, None, [-2, 2], [1]),
    # S5 any_holder: the first seat in action order holds nothing, the second a 豹子 (10 from each other seat).
    # dealer 0 -> order 1, 2, 0; seats 1, 2 fold; c = [1, 1, 1]: pot Δ [+2, -1, -1]; reward Δ [-10, -10, +20].
    "any_holder_second_in_order": (
        ["fold 1", "fold 2"], {"special_rewards": "any_holder"}, ["Kh Kd 7s", "2c 5d 8s", "As Ad Ah"], 0, None,
        [-8, -11, 19], [0]),
    # events.md §6: after a forfeit, winners = seats with a positive delta. Seat 0 (豹子, any_holder) forfeits
    # as the first actor, seat 1 folds, seat 2 takes the pot: pot Δ [-1, -1, +2]; 10 from 1 and 2 to seat 0.
    "forfeit_winner_is_the_positive_delta": (
        ["forfeit 0", "fold 1"], {"special_rewards": "any_holder"}, ["As Ad Ah", "2c 5d 8s", "Kh Kd 7s"], 2, None,
        [19, -11, -8], [0]),
    # the same rule, a delta of exactly 0 is not positive: seat 0 (顺金, reward 1) bets 1, then forfeits while
    # seat 1 acts; seat 1 folds; c = [2, 1, 1], P = 4: pot Δ [-2, -1, +3]; 1 from seats 1 and 2 to seat 0.
    "forfeit_zero_delta_is_not_a_winner": (
        ["bet 0 1", "forfeit 0", "fold 1"], {"special_rewards": "any_holder", "shunjin_reward": 1},
        ["9h Th Jh", "2c 5d 8s", "Kh Kd 7s"], 2, None, [0, -2, 2], [2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_settlement_by_hand(name: str) -> None:
    actions, rules, hands, dealer, stacks, deltas, winners = CASES[name]
    r = replay(log(actions, rules, hands, dealer, stacks=stacks))
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == deltas
    assert sorted(r.winners) == winners


@pytest.mark.parametrize("stack0", [100, 11])
def test_gold_rewards_capped_by_the_stack_left(stack0: int) -> None:
    """S5 in `gold`: a payer pays at most its stack left after S4, shrinking as it pays.

    n = 3, dealer 2 (order 0, 1, 2), stacks [stack0, 100, 1], any_holder. Seat 0 豹子, seat 1 顺金, seat 2
    nothing; seats 0 and 1 fold, seat 2 takes P = 3. Left after S4: [99, 99, 1 - 1 + 3 = 3].
    Rewards in action order of the rewarded seats: seat 0 (10 each): seat 1 pays 10, seat 2 pays 3 (capped,
    left 0). Seat 1 (5 each): seat 0 pays 5 (left after S4 ≥ 10, whether or not the 13 it received count),
    seat 2 pays 0 (no line).
    Δ = [-1 + 13 - 5, -1 - 10 + 5, +2 - 3] = [7, -6, -1].
    """
    ev = log(["fold 0", "fold 1"], {"mode": "gold", "special_rewards": "any_holder"},
             ["As Ad Ah", "9h Th Jh", "2c 5d 8s"], 2, stacks=[stack0, 100, 1])  # fmt: skip
    r = replay(ev)
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [7, -6, -1]
    rewards = [(i["seat"], i["from"], i["points"], i["capped"]) for i in r.items if i["kind"] == "special_reward"]
    assert rewards == [(0, 1, 10, False), (0, 2, 3, True), (1, 0, 5, False)]
