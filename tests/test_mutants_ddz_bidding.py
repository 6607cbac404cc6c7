"""Mutation-killing tests for Dou Dizhu bidding and robbing (`DouDizhu._bid`, `_rob`) and the
`ddz_laizi` legality code (`DouDizhuLaizi._bid`, `_laizi`, `_play`, `_declared`; issue 17).

Refusals are checked word for word: the rule id first (DDZ-R4/R7/R9/R11/R13/R23/R24/R27), the seat
that acted, the seat to act, the value or `as` entry at fault. Legal bidding is checked on the
table the replay shows (bids, robs, landlord, multiplier R × Bm, DDZ-R5..R10). Expected values are
written by hand from docs/rules/doudizhu.md; logs are its golden logs E1, E2, E4, E5
(tests/ddz_golden_src.py) or hand-built from the E1/E4 deals.
"""

from __future__ import annotations

from typing import Any

from engine.climbing.ddz import DDZ
from engine.replay import replay_final
from events.codec import parse_event
from tests.test_ddz_errors import E1, E4, ins, put, run


def _final(evs: list[dict[str, Any]]) -> tuple[Any, Any]:
    r, st = replay_final([parse_event({**e, "match_id": "b", "seq": i}) for i, e in enumerate(evs)])
    assert r.error is None, r.error
    return r, st


def _view(evs: list[dict[str, Any]]) -> dict[str, Any]:
    return DDZ.view(_final(evs)[1])


def _refused(evs: list[dict[str, Any]], seq: int, code: str) -> str:
    status, at, got, msg = run(evs)
    assert (status, at, got) == ("invalid", seq, code), (status, at, got, msg)
    return msg


def _rob_log(first: int, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The E1 deal with `rob` on and `first` = dealer; `actions` from seq 2."""
    return [{**E1[0], "rules": {"rob": True}, "dealer": first}, E1[1], *actions]


def bid(seat: int, value: int) -> dict[str, Any]:
    return {"type": "bid", "seat": seat, "value": value}


def rob(seat: int, value: bool) -> dict[str, Any]:
    return {"type": "rob", "seat": seat, "value": value}


# ---------------------------------------------------------------- ddz bidding (DDZ-R4..R6)


def test_a_bid_out_of_turn_names_the_rule_both_seats_and_the_verb() -> None:
    """DDZ-R4: bidding starts at `first` = 0 (E1); seat 1 bidding at seq 2 is refused."""
    msg = _refused(put(E1, 2, type="bid", seat=1, value=0), 2, "not_your_turn")
    assert msg == "DDZ-R4 seat 1 cannot bid: it is seat 0's turn", msg


def test_the_bids_are_shown_as_bid() -> None:
    """DDZ-R4/R5, E1: seat 0 bids 0, seat 1 bids 1 and is landlord at once (rob off), seat 2 never
    bids; R = 1, no bomb yet: multiplier 1; the landlord leads (DDZ-R14)."""
    v = _view(E1[:4])
    assert v["bids"] == [0, 1, None] and v["landlord"] == 1 and v["multiplier"] == 1
    assert (v["phase"], v["turn"]) == ("play", 1)


def test_with_rob_a_caller_at_first_plus_two_is_landlord_at_once_with_r_1() -> None:
    """DDZ-R7: first 1; seats 1 and 2 bid 0, seat 0 (= first + 2) bids 1: no robbers, seat 0 is
    landlord at once; DDZ-R8 k = 0: R = 2^0 = 1."""
    v = _view(_rob_log(1, [bid(1, 0), bid(2, 0), bid(0, 1)]))
    assert v["landlord"] == 0 and v["multiplier"] == 1 and v["robs"] == []
    assert (v["phase"], v["turn"]) == ("play", 0)


def test_a_redeal_leaves_no_seat_to_act() -> None:
    """DDZ-R6 `all_pass` = redeal: three 0 bids end the match void; nobody is to act."""
    evs = [{**E1[0], "rules": {"all_pass": "redeal"}}, E1[1], bid(0, 0), bid(1, 0), bid(2, 0)]
    v = _view(evs)
    assert v["phase"] == "end" and v["void"] is True and v["turn"] is None and v["landlord"] is None


# ---------------------------------------------------------------- ddz robbing (DDZ-R7/R8)


def test_a_rob_with_rob_off_says_rob_is_off() -> None:
    """DDZ-R7 (`rob` events outside the rob round are rejected), E1 with rob off."""
    msg = _refused(ins(E1, 4, type="rob", seat=1, value=True), 4, "wrong_phase")
    assert msg == "DDZ-R7 rob event rejected: rob is off", msg


def test_a_rob_after_the_rob_round_names_the_phase() -> None:
    """DDZ-R7 with rob on: E2 (first 2): bid {2, 1}, robs by 0 (true), 1 (false), 2 (true) → the rob
    round is over and the play phase has begun: a further rob is refused naming the phase."""
    evs = _rob_log(2, [bid(2, 1), rob(0, True), rob(1, False), rob(2, True), rob(0, True)])
    msg = _refused(evs, 6, "wrong_phase")
    assert msg == "DDZ-R7 rob event rejected: no rob round now (play)", msg


def test_a_rob_in_ddz_laizi_cites_r11() -> None:
    """DDZ-R11: `rob` events are rejected in `ddz_laizi` (it has no rob option at all)."""
    msg = _refused(ins(E4, 3, type="rob", seat=0, value=True), 3, "wrong_phase")
    assert msg == "DDZ-R11 rob event rejected: rob is off", msg


def test_a_rob_out_of_turn_names_the_rule_both_seats_and_the_verb() -> None:
    """DDZ-R7: first 0, seat 0 bids 1: robbers 1 then 2 (turn order from c + 1); seat 2 robbing
    first is refused."""
    msg = _refused(_rob_log(0, [bid(0, 1), rob(2, True)]), 3, "not_your_turn")
    assert msg == "DDZ-R7 seat 2 cannot rob: it is seat 1's turn", msg


def test_e2_robs_are_all_recorded_and_r_is_two_to_the_k() -> None:
    """E2 (DDZ-R7/R8): bid {2, 1}; rob 0 true, rob 1 false, then the caller 2 robs back true.
    Landlord = the last seat with true = 2; k = 2: R = 4; seat 2 leads."""
    v = _view(_rob_log(2, [bid(2, 1), rob(0, True), rob(1, False), rob(2, True)]))
    assert v["robs"] == [[0, True], [1, False], [2, True]]
    assert v["landlord"] == 2 and v["multiplier"] == 4 and (v["phase"], v["turn"]) == ("play", 2)
