"""Corrupted Zha Jin Hua logs: every refusal stops replay at the right seq with the contract code
and the rule id (ZJH-R1 code table; zhajinhua.md section 3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line

E1_HANDS = ["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"]  # n = 3, dealer 0: order 1, 2, 0
E6_HANDS = ["Ah Kh 2c", "7s 7d Tc", "3c 8h Jd"]  # dealer 2: order 0, 1, 2


def log(actions: list[str], *, rules: dict[str, Any] | None = None, hands: list[str] = E1_HANDS, dealer: int = 0,
        base: int = 1, stacks: list[int] | None = None, dealt: dict[str, Any] | None = None) -> list[Any]:  # fmt: skip
    """A match as a server writes it; `actions` are "type seat [amount|target]"."""
    n = len(hands)
    evs: list[dict[str, Any]] = [
        {"match_id": "bad", "seq": 0, "type": "match_started", "game": "zhajinhua", "rules": rules or {},
         "players": [f"p{i}" for i in range(n)], "dealer": dealer, "base": base},
    ]  # fmt: skip
    d: dict[str, Any] = {"match_id": "bad", "seq": 1, "type": "dealt", "hands": [h.split() for h in hands]}
    if stacks is not None:
        d["stacks"] = stacks
    d.update(dealt or {})
    evs.append(d)
    for a in actions:
        p = a.split()
        e: dict[str, Any] = {"match_id": "bad", "seq": len(evs), "type": p[0]}
        if p[0] == "settled":
            e["deltas"] = [int(x) for x in p[1:]]
        elif p[0] != "pass_no_seat":
            e["seat"] = int(p[1])
        if p[0] == "bet":
            e["amount"] = int(p[2])
        if p[0] == "compare":
            e["target"] = int(p[2])
        evs.append(e)
    return [parse_line(json.dumps(e)) for e in evs]


def refused(events: list[Any], seq: int, code: str, rule: str) -> str:
    r = replay(events)
    assert r.status == "invalid", r.to_dict()
    assert r.error is not None
    assert (r.error["seq"], r.error["code"]) == (seq, code), r.error
    assert rule in r.error["message"], r.error
    assert r.deltas is None
    return str(r.error["message"])


# ---------------------------------------------------------------- not_your_turn


def test_bet_out_of_turn() -> None:
    refused(log(["bet 2 1"]), 2, "not_your_turn", "ZJH-R6")


def test_fold_out_of_turn_and_compare_out_of_turn() -> None:
    refused(log(["bet 1 1", "fold 0"]), 3, "not_your_turn", "ZJH-R6")
    refused(log(["bet 1 1", "bet 2 1", "bet 0 1", "bet 1 1", "compare 0 2"]), 6, "not_your_turn", "ZJH-R6")


def test_timeout_of_a_seat_that_is_not_the_actor() -> None:
    refused(log(["timeout 2"]), 2, "not_your_turn", "ZJH-R12")


# ---------------------------------------------------------------- illegal_bet


def test_bet_not_in_the_stake_table() -> None:
    msg = refused(log(["bet 1 3"]), 2, "illegal_bet", "ZJH-R8")
    assert "allowed [1, 2, 5, 10]" in msg


def test_bet_below_the_current_level() -> None:
    refused(log(["bet 1 1", "bet 2 2", "bet 0 1"]), 4, "illegal_bet", "ZJH-R8")


def test_seen_seat_betting_a_blind_amount() -> None:
    refused(log(["bet 1 1", "bet 2 2", "look 0", "bet 0 2"]), 5, "illegal_bet", "ZJH-R8")


def test_bet_above_the_cap_level() -> None:
    refused(log(["bet 1 10"], rules={"cap_level": 3}), 2, "illegal_bet", "ZJH-R8")
    r = replay(log(["bet 1 5"], rules={"cap_level": 3}))
    assert r.status == "incomplete"


def test_gold_bet_beyond_the_stack() -> None:
    # E7: seat 1 has 5 chips after the ante (base 2): a blind raise to 10 is more than it holds
    ev = log(["bet 1 10"], rules={"mode": "gold"}, hands=["Ah Kc 9d", "Qs Qh Qd", "6c 6d Jh"], base=2, stacks=[100, 7, 100])
    refused(ev, 2, "illegal_bet", "ZJH-R8")


def test_gold_compare_cost_beyond_the_stack() -> None:
    # seat 1 has 7 chips left in round 2; after looking a seen call is 4 and a factor-2 compare costs 8
    ev = log(["bet 0 1", "bet 1 1", "bet 2 2", "bet 0 2", "look 1", "compare 1 2"],
             rules={"mode": "gold", "compare_cost_factor": 2}, hands=E6_HANDS, dealer=2, stacks=[50, 9, 50])  # fmt: skip
    refused(ev, 7, "illegal_bet", "ZJH-R9")


def test_allin_with_both_stacks_at_the_threshold() -> None:
    ev = log(["bet 0 1", "bet 1 1", "fold 2", "allin 0"], rules={"mode": "gold"}, hands=E6_HANDS, dealer=2,
             stacks=[30, 30, 50])  # fmt: skip
    refused(ev, 5, "illegal_bet", "ZJH-R15")


# ---------------------------------------------------------------- wrong_phase


def test_compare_before_the_allowed_round() -> None:
    refused(log(["bet 1 1", "compare 2 1"]), 3, "wrong_phase", "ZJH-R9")


def test_open_with_three_players() -> None:
    refused(log(["open 1"], rules={"compare_min_round": 1}), 2, "wrong_phase", "ZJH-R10")


def test_open_before_the_allowed_round() -> None:
    refused(log(["bet 1 1", "fold 2", "open 0"]), 4, "wrong_phase", "ZJH-R10")


def test_look_by_a_seen_player() -> None:
    refused(log(["look 0", "look 0"]), 3, "wrong_phase", "ZJH-R7")


def test_look_too_early() -> None:
    refused(log(["look 0"], rules={"look_min_round": 2}), 2, "wrong_phase", "ZJH-R7")
    ok = replay(log(["bet 1 1", "bet 2 1", "bet 0 1", "look 0"], rules={"look_min_round": 2}))
    assert ok.status == "incomplete"


def test_compare_with_a_bad_target() -> None:
    base = ["bet 1 1", "bet 2 1", "bet 0 1"]
    refused(log([*base, "compare 1 1"]), 5, "wrong_phase", "ZJH-R9")
    refused(log(["bet 1 1", "fold 2", "bet 0 1", "compare 1 2"]), 5, "wrong_phase", "ZJH-R9")


def test_allin_in_room_card_mode() -> None:
    refused(log(["allin 1"]), 2, "wrong_phase", "ZJH-R15")


def test_allin_with_three_active_seats() -> None:
    ev = log(["bet 0 1", "bet 1 1", "bet 2 1", "allin 0"], rules={"mode": "gold"}, hands=E6_HANDS, dealer=2,
             stacks=[5, 5, 50])  # fmt: skip
    refused(ev, 5, "wrong_phase", "ZJH-R15")


def test_bet_while_an_allin_waits_for_its_call() -> None:
    ev = log(["bet 0 1", "bet 1 1", "fold 2", "look 0", "allin 0", "bet 1 1"], rules={"mode": "gold"}, hands=E6_HANDS,
             dealer=2, stacks=[30, 8, 50])  # fmt: skip
    refused(ev, 7, "wrong_phase", "ZJH-R15")


def test_timeout_without_a_timer() -> None:
    refused(log(["timeout 1"], rules={"turn_seconds": 0}), 2, "wrong_phase", "ZJH-R12")


def test_any_action_by_a_seat_that_is_out() -> None:
    refused(log(["fold 1", "look 1"]), 3, "wrong_phase", "ZJH-R1")
    refused(log(["bet 1 1", "bet 2 1", "bet 0 1", "fold 1", "forfeit 1"]), 6, "wrong_phase", "ZJH-R1")


def test_an_event_type_of_another_game() -> None:
    refused(log(["pass 1"]), 2, "wrong_phase", "ZJH-R1")


def test_settled_before_the_end() -> None:
    r = replay(log(["bet 1 1", "settled 1 -1 0"]))
    assert r.status == "invalid" and r.error is not None and (r.error["seq"], r.error["code"]) == (3, "wrong_phase")


# ---------------------------------------------------------------- after_end


def test_events_after_the_end() -> None:
    e1 = ["bet 1 1", "bet 2 2", "look 0", "bet 0 4", "look 1", "fold 1", "bet 2 2", "bet 0 10", "look 2", "fold 2"]
    r = replay(log([*e1, "settled 7 -2 -5"]))
    assert r.status == "finished" and r.deltas == [7, -2, -5]
    r = replay(log([*e1, "bet 0 10"]))
    assert r.status == "invalid" and r.error is not None and (r.error["seq"], r.error["code"]) == (12, "after_end")


def test_engine_refuses_after_end_itself() -> None:
    from engine.zhajinhua.game import ZHAJINHUA

    ev = log(["bet 1 1", "fold 2", "fold 0"])
    st = ZHAJINHUA.start(ev[0], ev[1], ZHAJINHUA.parse_rules({}))
    for e in ev[2:]:
        st = ZHAJINHUA.apply(st, e)
    assert ZHAJINHUA.is_finished(st)
    with pytest.raises(Exception, match="ZJH-R17") as info:
        ZHAJINHUA.apply(st, log(["look 1"])[2].model_copy(update={"seq": 5}))
    assert getattr(info.value, "code", None) == "after_end"


# ---------------------------------------------------------------- bad_deal / bad_rules


@pytest.mark.parametrize(
    ("hands", "extra", "rules"),
    [
        (["Kh Kd 7s", "Kh Qd 9c", "8c 8s 3d"], None, None),  # a card dealt twice
        (["Kh Kd 7s 6s", "As Qd 9c", "8c 8s 3d"], None, None),  # four cards
        (["Kh Kd", "As Qd 9c", "8c 8s 3d"], None, None),  # two cards
        (["Kh Kd BJ", "As Qd 9c", "8c 8s 3d"], None, None),  # a joker
        (["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"], {"stacks": [10, 10, 10]}, None),  # stacks in room_card
        (["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"], None, {"mode": "gold"}),  # gold without stacks
        (["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"], {"stacks": [10, 0, 10]}, {"mode": "gold"}),  # stack below base
        (["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"], {"stacks": [10, 10]}, {"mode": "gold"}),  # stacks for 2 of 3 seats
        (["Kh Kd 7s", "As Qd 9c", "8c 8s 3d"], {"bottom": ["2s", "2h", "2d"]}, None),  # a Dou Dizhu bottom
        (["Kh Kd 7s", "As Qd 9c", "1m 2m 3m"], None, None),  # tiles
    ],
)
def test_bad_deal(hands: list[str], extra: dict[str, Any] | None, rules: dict[str, Any] | None) -> None:
    r = replay(log([], hands=hands, dealt=extra, rules=rules))
    assert r.status == "invalid" and r.error is not None, r.to_dict()
    assert (r.error["seq"], r.error["code"]) == (1, "bad_deal"), r.error


@pytest.mark.parametrize(
    "rules",
    [
        {"nope": 1},
        {"mode": "casino"},
        {"blind_levels": [1, 1, 5, 10]},
        {"seen_levels": [2, 4, 10]},
        {"seen_levels": [1, 2, 3, 4], "blind_levels": [1, 2, 5, 10]},
        {"cap_level": 5},
        {"compare_cost_factor": 3},
        {"max_rounds": -1},
        {"preset": "nope"},
    ],
)
def test_bad_rules(rules: dict[str, Any]) -> None:
    r = replay(log([], rules=rules))
    assert r.status == "invalid" and r.error is not None
    assert (r.error["seq"], r.error["code"]) == (0, "bad_rules"), r.error
