"""Mutation-killing tests for Zha Jin Hua's legality and turn code (issue 17): `apply`, `_need_actor`,
`_no_allin_pending`, `_afford`, `_compare`, `_timeout`, `_forfeit` and `_Work.enter`/`after_turn`.

Expected values are written by hand from docs/rules/zhajinhua.md: the codes of ZJH-R1, the rule ids
(ZJH-R6/R8/R9/R12/R13/R14/R15) and the E1 hands (seat 0 Kh Kd 7s pair K, seat 1 As Qd 9c high card,
seat 2 8c 8s 3d pair 8; dealer 0, so the action order is 1, 2, 0). Base 1: a blind call is 1.
"""

from __future__ import annotations

from typing import Any

from engine.replay import replay
from tests.test_zhajinhua_errors import E6_HANDS, log, refused


def test_out_of_turn_names_the_seat_and_the_actor() -> None:
    """ZJH-R6: seat 1 acts first; seat 2 betting is refused, naming seat 2, the verb and seat 1."""
    msg = refused(log(["bet 2 1"]), 2, "not_your_turn", "ZJH-R6")
    assert "seat 2 cannot bet" in msg and "seat 1 is to act" in msg


def test_timeout_of_another_seat_names_the_actor() -> None:
    """ZJH-R12: a timeout concerns only the actor (seat 1), not seat 2."""
    msg = refused(log(["timeout 2"]), 2, "not_your_turn", "ZJH-R12")
    assert "seat 1 is to act" in msg and "not seat 2" in msg


def test_a_bet_while_an_allin_waits_names_the_opener() -> None:
    """ZJH-R15 (a): after seat 0's all-in (E6 stacks) seat 1 may only call, look, fold or forfeit."""
    ev = log(["bet 0 1", "bet 1 1", "fold 2", "look 0", "allin 0", "bet 1 1"], rules={"mode": "gold"},
             hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])  # fmt: skip
    msg = refused(ev, 7, "wrong_phase", "ZJH-R15")
    assert "seat 0 went all-in" in msg and "seat 1 may only call" in msg and "not bet" in msg


def test_compare_targets_outside_the_table_itself_or_an_out_seat() -> None:
    """ZJH-R9 / ZJH-R1 (a bad `target`): n = 3, so seat 3 does not exist; a seat cannot compare with
    itself; seat 2 folded in round 1 and is out."""
    base = ["bet 1 1", "bet 2 1", "bet 0 1"]  # round 2 begins: seat 1 acts
    msg = refused(log([*base, "compare 1 3"]), 5, "wrong_phase", "ZJH-R1/R9")
    assert "seat 3" in msg and "3-player" in msg
    msg = refused(log([*base, "compare 1 1"]), 5, "wrong_phase", "ZJH-R9")
    assert msg.endswith("cannot compare with itself"), msg
    msg = refused(log(["bet 1 1", "fold 2", "bet 0 1", "compare 1 2"]), 5, "wrong_phase", "ZJH-R9")
    assert "seat 2, which is out (fold)" in msg


def test_a_stack_equal_to_the_call_is_not_autocompared_and_may_be_bet() -> None:
    """ZJH-R14 compares a seat whose stack is *smaller* than its call; ZJH-R8 allows amount ≤ stack.
    Gold, stacks [50, 2, 50]: after the ante seat 1 holds 1 = its blind call 1, so it acts and bets
    its last chip. In round 2 its stack 0 < 1: autocompare, high card loses to pair K and pair 8,
    seat 1 is out, seat 2 acts; `fold {2}` → seat 0 wins. c = [2, 2, 2], P = 6: Δ = [+4, −2, −2]."""
    ev = log(["bet 1 1", "bet 2 1", "bet 0 1", "fold 2"], rules={"mode": "gold"}, stacks=[50, 2, 50])
    r = replay(ev)
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [4, -2, -2] and r.winners == [0]
    early = replay(ev[:3])  # only seat 1's bet: it was the actor, not autocompared
    assert early.status == "incomplete" and early.error is None


def test_a_forfeit_off_turn_that_leaves_one_seat_ends_the_match() -> None:
    """ZJH-R13: after `bet {1, 1}`, `fold {2}` seat 0 acts; seat 1 forfeits off turn, so one active seat
    is left: seat 0 wins (ZJH-R17). c = [1, 2, 1], P = 4: Δ = [+3, −2, −1]."""
    r = replay(log(["bet 1 1", "fold 2", "forfeit 1"]))
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [3, -2, -1]


def test_max_rounds_caps_room_card_only() -> None:
    """ZJH-R5 + section 6 (`max_rounds`: room_card only): with `max_rounds` 1 the three round-1 calls
    end a room-card match in a showdown (pair K wins: c = [2, 2, 2], Δ = [+4, −2, −2]); in gold the
    match goes on into round 2."""
    calls = ["bet 1 1", "bet 2 1", "bet 0 1"]
    r = replay(log(calls, rules={"max_rounds": 1}))
    assert r.status == "finished" and r.deltas == [4, -2, -2]
    g = replay(log([*calls, "bet 1 1"], rules={"mode": "gold", "max_rounds": 1}, stacks=[50, 50, 50]))
    assert g.status == "incomplete" and g.error is None


def test_an_out_seat_and_an_unknown_event_are_named() -> None:
    """ZJH-R1: seat 1 folded and is out, so its `look` is refused naming the seat and why it is out;
    `pass` is no Zha Jin Hua action."""
    msg = refused(log(["fold 1", "look 1"]), 3, "wrong_phase", "ZJH-R1")
    assert "seat 1 is out (fold)" in msg and "look" in msg
    msg = refused(log(["pass 1"]), 2, "wrong_phase", "ZJH-R1")
    assert "pass is not a Zha Jin Hua action" in msg


E7_HANDS = ["Ah Kc 9d", "Qs Qh Qd", "6c 6d Jh"]
E7_ACTIONS = ["bet 1 2", "bet 2 10", "look 0", "bet 0 20"]  # seq 2..5; then seat 1 is autocompared


def _e7_view(hands: list[str]) -> dict[str, Any]:
    from engine.zhajinhua.game import ZHAJINHUA as G

    ev = log(E7_ACTIONS, rules={"mode": "gold"}, hands=hands, base=2, stacks=[100, 7, 100])
    st = G.start(ev[0], ev[1], G.parse_rules(ev[0].rules))
    for e in ev[2:]:
        st = G.apply(st, e)
    return G.view(st)


def test_the_autocompare_is_shown_with_its_rule_and_stack() -> None:
    """ZJH-R14, E7: in round 2 seat 1 acts with stack 3 < call 10; QQQ beats both hands, so it wins
    (derived at seq 5, the bet that ended round 1). The audit notes say so."""
    v = _e7_view(E7_HANDS)
    assert v["phase"] == "finished" and v["winners"] == [1] and v["end"] == "autocompare"
    assert any("ZJH-R14 seat 1 stack 3 < call 10" in n and "wins" in n for n in v["notes"]), v["notes"]
    assert any(n.startswith("seq 5:") and "autocompare" in n and "[1]" in n for n in v["notes"]), v["notes"]


def test_the_losing_autocompare_puts_the_seat_out() -> None:
    """ZJH-R14, E7 variant: seat 1 holds 5s 5h Qd, loses the autocompare and is out; seat 2 acts."""
    v = _e7_view(["Ah Kc 9d", "5s 5h Qd", "6c 6d Jh"])
    assert v["phase"] == "betting" and v["turn"] == 2
    assert v["active"] == [True, False, True] and v["out"][1] == "autocompare"
    assert any("ZJH-R14 seat 1 stack 3 < call 10" in n and "loses" in n for n in v["notes"]), v["notes"]


def test_out_of_turn_refusals_name_the_action() -> None:
    """ZJH-R6: seat 1 is the first actor (after `bet {1, 1}` seat 2); seat 0 may not compare, open,
    fold or go all-in out of turn, and the refusal says which action it tried."""
    gold = {"rules": {"mode": "gold"}, "stacks": [50, 50, 50]}
    for actions, kw, verb in [
        (["bet 1 1", "compare 0 1"], {}, "compare"),
        (["open 0"], {}, "open"),
        (["fold 0"], {}, "fold"),
        (["allin 0"], gold, "go all-in"),
    ]:
        msg = refused(log(actions, **kw), 1 + len(actions), "not_your_turn", "ZJH-R6")
        assert f"seat 0 cannot {verb}:" in msg, msg


def test_allin_pending_refusals_name_the_action() -> None:
    """ZJH-R15 (a): while seat 0's all-in waits, seat 1 may not compare or open."""
    pre = ["bet 0 1", "bet 1 1", "fold 2", "look 0", "allin 0"]
    for last, verb in [("compare 1 0", "compare"), ("open 1", "open")]:
        ev = log([*pre, last], rules={"mode": "gold"}, hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])
        msg = refused(ev, 7, "wrong_phase", "ZJH-R15")
        assert msg.endswith(f"not {verb}") and "seat 1 may only call" in msg, msg


def test_last_standing_end_is_noted_at_its_event() -> None:
    """ZJH-R17, E1: `fold {2}` at seq 11 leaves seat 0 alone: the match ends there (last standing)."""
    from engine.zhajinhua.game import ZHAJINHUA as G

    e1 = ["bet 1 1", "bet 2 2", "look 0", "bet 0 4", "look 1", "fold 1", "bet 2 2", "bet 0 10", "look 2", "fold 2"]
    ev = log(e1)
    st = G.start(ev[0], ev[1], G.parse_rules(ev[0].rules))
    for e in ev[2:]:
        st = G.apply(st, e)
    v = G.view(st)
    assert v["end"] == "last_standing" and v["winners"] == [0]
    assert v["notes"][-1].startswith("seq 11:"), v["notes"]


def test_too_early_refusals_name_the_seat_action_and_rounds() -> None:
    """ZJH-R9/R10/R15: compare, open and all-in are allowed from `compare_min_round` (default 2)."""
    msg = refused(log(["bet 1 1", "compare 2 1"]), 3, "wrong_phase", "ZJH-R9")
    assert msg.startswith("ZJH-R9 seat 2 cannot compare in round 1: allowed from round 2"), msg
    msg = refused(log(["bet 1 1", "fold 2", "open 0"]), 4, "wrong_phase", "ZJH-R10")
    assert msg.startswith("ZJH-R10 seat 0 cannot open in round 1: allowed from round 2"), msg
    ev = log(["bet 0 1", "bet 1 1", "fold 2", "allin 0"], rules={"mode": "gold", "compare_min_round": 3},
             hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])  # fmt: skip
    msg = refused(ev, 5, "wrong_phase", "ZJH-R15")
    assert "seat 0 cannot go all-in in round 2: allowed from round 3" in msg, msg


def test_round_cap_showdown_is_noted() -> None:
    """ZJH-R5/R16 with `max_rounds` 1: `bet {0, 1}` at seq 4 would start round 2, so the showdown ends
    the match there (pair K wins); the audit notes name ZJH-R5 and the round."""
    from engine.zhajinhua.game import ZHAJINHUA as G

    ev = log(["bet 1 1", "bet 2 1", "bet 0 1"], rules={"max_rounds": 1})
    st = G.start(ev[0], ev[1], G.parse_rules(ev[0].rules))
    for e in ev[2:]:
        st = G.apply(st, e)
    v = G.view(st)
    assert v["end"] == "round_cap" and v["winners"] == [0] and v["out"] == [None, "showdown", "showdown"]
    assert any(n.startswith("seq 4:") and "ZJH-R5 round 1 was the last" in n for n in v["notes"]), v["notes"]
    assert v["notes"][-1].startswith("seq 4:"), v["notes"]


def test_an_unaffordable_compare_says_what_it_costs() -> None:
    """ZJH-R9 in gold, stacks [50, 9, 50]: seat 1 holds 9 − 1 (ante) − 1 (its call) = 7 in round 2;
    `bet {2, 2}` raised to k = 2, so seat 1's seen call is S[2] = 4 and a factor-2 compare costs 8 > 7."""
    ev = log(["bet 0 1", "bet 1 1", "bet 2 2", "bet 0 2", "look 1", "compare 1 2"],
             rules={"mode": "gold", "compare_cost_factor": 2}, hands=E6_HANDS, dealer=2, stacks=[50, 9, 50])  # fmt: skip
    msg = refused(ev, 7, "illegal_bet", "ZJH-R9")
    assert msg.startswith("ZJH-R9 seat 1 cannot afford a compare of 8: stack 7"), msg


def test_a_losing_autocompare_that_leaves_one_seat_ends_the_match_at_its_event() -> None:
    """ZJH-R14 + ZJH-R4/R17, gold, n = 2 (E1's first two hands), dealer 0, stacks [50, 3]: after the
    ante seat 1 holds 2, calls 1 (seq 2); seat 0 raises blind to 5 (k = 3, seq 3). Seat 1 then acts
    with 1 < 5: its high card loses to pair K, it is out and seat 0 is left alone: the match ends at
    seq 3. c = [6, 2]: Δ = [+2, −2]."""
    from engine.zhajinhua.game import ZHAJINHUA as G

    ev = log(["bet 1 1", "bet 0 5"], rules={"mode": "gold"}, hands=["Kh Kd 7s", "As Qd 9c"], stacks=[50, 3])
    r = replay(ev)
    assert r.error is None and r.status == "finished" and r.deltas == [2, -2], r.error
    st = G.start(ev[0], ev[1], G.parse_rules(ev[0].rules))
    for e in ev[2:]:
        st = G.apply(st, e)
    v = G.view(st)
    assert v["end"] == "last_standing" and v["out"][1] == "autocompare"
    assert v["notes"][-1].startswith("seq 3:"), v["notes"]


def test_the_out_reason_is_the_action() -> None:
    """ZJH-R9 / ZJH-R12: in round 2 seat 1 (high card) compares with seat 2 (pair 8) and loses: out by
    compare (the turn passes from seat 1, ZJH-R4: seat 2 acts); seat 1 timing out is out by timeout."""
    from engine.zhajinhua.game import ZHAJINHUA as G

    for actions, reason, turn in [
        (["bet 1 1", "bet 2 1", "bet 0 1", "compare 1 2"], "compare", 2),
        (["timeout 1"], "timeout", 2),
    ]:
        ev = log(actions)
        st = G.start(ev[0], ev[1], G.parse_rules(ev[0].rules))
        for e in ev[2:]:
            st = G.apply(st, e)
        v = G.view(st)
        assert v["out"][1] == reason and v["turn"] == turn, v
