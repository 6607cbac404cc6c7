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

from engine.cards import CARD_ID, RANK_INDEX
from engine.climbing.ddz import DDZ
from engine.climbing.ddz_laizi import DDZ_LAIZI
from engine.climbing.laizi import auto_reading, move_of, readings, split_laizi
from engine.climbing.moves import ddz_move_rules
from engine.errors import Illegal
from engine.replay import replay_final
from events.codec import parse_event
from events.models import Play, Rob
from tests.test_ddz_errors import E1, E4, E5, ins, put, run


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


# ---------------------------------------------------------------- ddz_laizi point bidding (DDZ-R9/R10)


def _laizi_view(evs: list[dict[str, Any]]) -> dict[str, Any]:
    return DDZ_LAIZI.view(_final(evs)[1])


def _e4_bids(*bids: tuple[int, int]) -> list[dict[str, Any]]:
    """The E4 deal (`ddz_laizi`, first 2) with these bids from seq 2."""
    return [*E4[:2], *(bid(s, v) for s, v in bids)]


def test_a_laizi_bid_out_of_turn_names_the_rule_both_seats_and_the_verb() -> None:
    """DDZ-R9: bidding starts at `first` = 2 (E4); seat 0 bidding at seq 2 is refused."""
    msg = _refused(put(E4, 2, type="bid", seat=0, value=1), 2, "not_your_turn")
    assert msg == "DDZ-R9 seat 0 cannot bid: it is seat 2's turn", msg


def test_a_laizi_bid_after_bidding_names_the_phase() -> None:
    """DDZ-R1: E4's bid {0, 3} ends the bidding (DDZ-R10), the laizi event is due: a bid is refused."""
    msg = _refused(ins(E4, 4, type="bid", seat=1, value=0), 4, "wrong_phase")
    assert msg == "DDZ-R1 bid during the laizi phase: bidding is over", msg


def test_three_rising_bids_give_the_last_and_highest_bidder_r_2() -> None:
    """DDZ-R9/R10: 2 bids 1, 0 bids 2 (> 1), 1 bids 0: all three have bid; the highest bid is seat
    0's 2: landlord 0, R = 2; the laizi event comes next (DDZ-R13), nobody is to act."""
    v = _laizi_view(_e4_bids((2, 1), (0, 2), (1, 0)))
    assert v["bids"] == [2, 0, 1] and v["landlord"] == 0 and v["multiplier"] == 2
    assert (v["phase"], v["turn"]) == ("laizi", None)


def test_the_highest_bid_wins_even_if_first_and_not_3() -> None:
    """DDZ-R10: 2 bids 2, then 0 and 1 bid 0: landlord = the seat with the highest bid = 2, R = 2."""
    v = _laizi_view(_e4_bids((2, 2), (0, 0), (1, 0)))
    assert v["bids"] == [0, 0, 2] and v["landlord"] == 2 and v["multiplier"] == 2


def test_a_bid_of_3_ends_the_bidding_with_r_3() -> None:
    """DDZ-R10, E4: 2 bids 1, 0 bids 3: bidding ends at once (seat 1 never bids), landlord 0, R = 3."""
    v = _laizi_view(_e4_bids((2, 1), (0, 3)))
    assert v["bids"] == [3, None, 1] and v["landlord"] == 0 and v["multiplier"] == 3


def test_three_zero_bids_make_first_landlord_with_r_1() -> None:
    """DDZ-R10: all three bid 0 → `first` (2) is landlord with R = 1."""
    v = _laizi_view(_e4_bids((2, 0), (0, 0), (1, 0)))
    assert v["bids"] == [0, 0, 0] and v["landlord"] == 2 and v["multiplier"] == 1
    assert len(v["hands"][2]) == 20  # DDZ-R12: the bottom joined seat 2's hand


# ---------------------------------------------------------------- the laizi event (DDZ-R13)


def test_a_second_laizi_event_is_named_as_such() -> None:
    msg = _refused(ins(E4, 5, type="laizi", rank="8"), 5, "wrong_phase")
    assert msg == "DDZ-R13 a second laizi event: it comes once, after the landlord is fixed", msg


def test_a_laizi_event_during_bidding_names_the_phase() -> None:
    msg = _refused(ins(E4, 2, type="laizi", rank="8"), 2, "wrong_phase")
    assert msg == "DDZ-R13 laizi during the bid phase: it comes once, after the landlord is fixed", msg


def test_the_laizi_may_be_a_2() -> None:
    """DDZ-R13: rank ∈ {3, …, A, 2}: 2 is allowed (only the jokers are not); the landlord (0) leads."""
    v = _laizi_view([*E4[:4], {"type": "laizi", "rank": "2"}])
    assert v["laizi"] == "2" and (v["phase"], v["turn"]) == ("play", 0)


# ---------------------------------------------------------------- plays without `as` (DDZ-R27)


def test_a_laizi_play_without_as_that_cannot_beat_says_does_not_beat() -> None:
    """DDZ-R27 + DDZ-R24, E4 (laizi 7): after seat 0's pair straight 44 55 66 (seq 5) seat 1 plays the
    lone laizi 7d with no `as`: its only reading is the solo 7, a move that does not beat the top."""
    msg = _refused(put(E4, 6, type="play", seat=1, cards=["7d"]), 6, "does_not_beat")
    assert msg == "DDZ-R27 no reading of 7d (no `as` logged) beats the top move", msg


def test_a_laizi_lead_without_as_and_no_reading_is_illegal_move() -> None:
    """DDZ-R27, E4 (laizi 7): seat 0 leads 4s 5s 7c with no `as`: 4 5 x is no move of section 4 for
    any rank x (45 + a pair is not a move, three cards are a trio only if all equal)."""
    msg = _refused(put(E4, 5, type="play", seat=0, cards=["4s", "5s", "7c"]), 5, "illegal_move")
    assert msg == "DDZ-R27 no reading of 4s 5s 7c (no `as` logged) is a move of section 4", msg


def test_a_two_card_laizi_play_without_as_is_named_card_by_card() -> None:
    """DDZ-R27, E4 (laizi 7): after 44 55 66 (seq 5) seat 1 plays 7d 2d with no `as`: its only reading
    is the pair of 2 (7d as 2), which does not beat a pair straight."""
    msg = _refused(put(E4, 6, type="play", seat=1, cards=["7d", "2d"]), 6, "does_not_beat")
    assert msg == "DDZ-R27 no reading of 7d 2d (no `as` logged) beats the top move", msg


# ---------------------------------------------------------------- `as` declarations (DDZ-R23)


def test_an_as_of_the_wrong_length_names_the_cards_and_both_counts() -> None:
    """DDZ-R23, E4 seq 5: 4s 4h 5s 5h 6s 7c holds m = 1 laizi (7c) but `as` has 2 entries."""
    cards = ["4s", "4h", "5s", "5h", "6s", "7c"]
    msg = _refused(put(E4, 5, type="play", seat=0, cards=cards, **{"as": ["6", "6"]}), 5, "illegal_move")
    assert msg == "DDZ-R23 4s 4h 5s 5h 6s 7c has 1 laizi but `as` has 2 entries", msg


def test_a_laizi_may_stand_for_a_2() -> None:
    """DDZ-R23: `as` ranks are 3 … A, 2 (never a joker). E4 seq 5: the landlord (seat 0, laizi 7)
    leads Js Jh Jc 7c with `as ["2"]`: the trio_solo JJJ + 2, legal."""
    evs = put(E4, 5, type="play", seat=0, cards=["Js", "Jh", "Jc", "7c"], **{"as": ["2"]})[:6]
    v = _laizi_view(evs)
    assert v["last_play"] == {"seat": 0, "cards": ["Js", "Jh", "Jc", "7c"], "as": ["2"], "type": "trio_solo"}


# ---------------------------------------------------------------- laizi readings (engine/climbing/laizi.py)


def test_a_pure_laizi_bomb_beats_a_higher_hard_bomb() -> None:
    """§4.6 / DDZ-R27 (1): rocket > pure_laizi_bomb > hard_bomb > soft_bomb. Laizi 5: 5s 5h 5c 5d is
    the pure laizi bomb (DDZ-R24); it beats the hard bomb 2222 although 5 < 2."""
    top = move_of(["2s", "2h", "2c", "2d"], "5")
    assert top is not None and top.type == "hard_bomb"
    assert auto_reading(["5s", "5h", "5c", "5d"], "5", top) == ["5", "5", "5", "5"]


def test_thirteen_cards_with_a_laizi_have_no_reading() -> None:
    """Section 4: no move has 13 cards (straights stop at 12 cards, 3…A; pair straights, planes and
    their kickers have other sizes). 3…A (one card each) plus a laizi 2: no reading, no `as`."""
    cards = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As", "2h"]
    plain, m = split_laizi([CARD_ID[c] for c in cards], RANK_INDEX["2"])
    assert (sum(plain), m) == (12, 1)
    assert readings(plain, m, RANK_INDEX["2"], ddz_move_rules()) == []
    assert auto_reading(cards, "2") is None


def test_the_point_bids_offered_are_0_and_those_above_the_highest() -> None:
    """DDZ-R9 (a non-zero bid must exceed every earlier bid), E4 (first 2): at the start seat 2 may
    bid 0, 1, 2, 3; after its 1, seat 0 may bid 0, 2, 3; after a 2, seat 0 may bid 0 or 3."""

    def offered(evs: list[dict[str, Any]]) -> list[int]:
        st = _final(evs)[1]
        return [a["value"] for a in DDZ_LAIZI.legal_actions(st) if a["type"] == "bid"]

    assert offered(_e4_bids()) == [0, 1, 2, 3]
    assert offered(_e4_bids((2, 1))) == [0, 2, 3]
    assert offered(_e4_bids((2, 2))) == [0, 3]


def test_an_import_without_as_is_read_under_the_match_rules() -> None:
    """DDZ-R27 with the match's options: K2 `kicker_rocket` = true lets BJ + RJ be the two kickers of a
    four_two_solo. E5's deal, bids 1: 0, 2: 3 → seat 2 is landlord (DDZ-R10); laizi 7; seat 2 leads
    9s 9h 9c 7c BJ RJ with no `as`: the only reading is 9999 + BJ + RJ, so `as` = ["9"] (under the
    default options this set has no reading at all)."""
    evs = [{**E5[0], "rules": {"kicker_rocket": True}}, E5[1], bid(1, 0), bid(2, 3), {"type": "laizi", "rank": "7"},
           {"type": "play", "seat": 2, "cards": ["9s", "9h", "9c", "7c", "BJ", "RJ"]}]  # fmt: skip
    lp = _laizi_view(evs)["last_play"]
    assert (lp["as"], lp["type"]) == (["9"], "four_two_solo"), lp


def test_an_import_without_as_that_cannot_beat_is_judged_under_the_match_rules() -> None:
    """DDZ-R27 with K2 `kicker_rocket` = true: E5's bids (all 0: first = 1 is landlord, DDZ-R10),
    laizi 7; seat 1 leads the hard bomb 5555; seat 2 answers 9s 9h 9c 7c BJ RJ with no `as`: a
    four_two_solo under these options (so a move) that does not beat a bomb → does_not_beat."""
    evs = [{**E5[0], "rules": {"kicker_rocket": True}}, *E5[1:5], {"type": "laizi", "rank": "7"},
           {"type": "play", "seat": 1, "cards": ["5s", "5h", "5c", "5d"]},
           {"type": "play", "seat": 2, "cards": ["9s", "9h", "9c", "7c", "BJ", "RJ"]}]  # fmt: skip
    msg = _refused(evs, 7, "does_not_beat")
    assert msg == "DDZ-R27 no reading of 9s 9h 9c 7c BJ RJ (no `as` logged) beats the top move", msg


def test_r27_type_order_comes_before_the_key() -> None:
    """DDZ-R27 (2), laizi 9: 5d 6d 6s + three laizi reads as the plane 555 666 (as 5 5 6, key 6), the
    pair straight 55 66 77 (as 5 7 7, key 7), 44 55 66, or 6666 + 5 + x; the plane comes first in
    the type order although 556677 has the higher key."""
    assert auto_reading(["5d", "6d", "6s", "9c", "9h", "9s"], "9") == ["5", "5", "6"]


def test_r27_higher_key_within_a_type() -> None:
    """DDZ-R27 (2), laizi 7: 7c 8s 9s Ts Js is the straight 7…J (7c as itself) or 8…Q (7c as Q):
    both straights, the higher key Q wins."""
    assert auto_reading(["7c", "8s", "9s", "Ts", "Js"], "7") == ["Q"]


def test_r27_more_laizi_as_their_own_rank() -> None:
    """DDZ-R27 (3), laizi 7: 4s 4h 4c 4d 5s 7c is 4444 + 5 + x for x = 3, 5, 6, 7, …: all
    four_two_solo of key 4; the laizi standing for its own rank (7) is chosen, not the smallest (3)."""
    assert auto_reading(["4s", "4h", "4c", "4d", "5s", "7c"], "7") == ["7"]


def test_move_of_reads_exactly_the_logged_as() -> None:
    """DDZ-R26's example (laizi 7): 3s 3h 3c 7h with `as ["3"]` is the soft bomb of 3 (§4.6: plain
    cards and a laizi), with `as ["7"]` the trio_solo 3 + 7. DDZ-R23: `as` of the wrong length, a
    non-rank entry, or a missing `as` for a play with laizi read as nothing."""
    cards = ["3s", "3h", "3c", "7h"]
    bomb, trio = move_of(cards, "7", ["3"]), move_of(cards, "7", ["7"])
    assert bomb is not None and (bomb.type, bomb.key, bomb.level) == ("soft_bomb", RANK_INDEX["3"], 1)
    assert trio is not None and (trio.type, trio.key, trio.level) == ("trio_solo", RANK_INDEX["3"], 0)
    assert trio.counts[RANK_INDEX["7"]] == 1 and trio.counts[RANK_INDEX["3"]] == 3
    assert move_of(cards, "7", ["3", "3"]) is None and move_of(cards, "7", ["X"]) is None
    assert move_of(cards, "7") is None and move_of(cards, "7", []) is None
    hard = move_of(["3s", "3h", "3c", "3d"], "7")  # no laizi: `as` absent is the hard bomb
    assert hard is not None and (hard.type, hard.level) == ("hard_bomb", 2)


def test_split_laizi_counts_the_plain_ranks_and_the_laizi() -> None:
    """DDZ-R25: laizi 7: 3s 3h 7c 7d BJ → plain counts 3: 2, BJ: 1 (jokers stay jokers), m = 2."""
    plain, m = split_laizi([CARD_ID[c] for c in ["3s", "3h", "7c", "7d", "BJ"]], RANK_INDEX["7"])
    want = [0] * 15
    want[RANK_INDEX["3"]], want[RANK_INDEX["BJ"]] = 2, 1
    assert (plain, m) == (tuple(want), 2)


def test_a_state_without_cached_move_rules_falls_back_to_the_match_rules() -> None:
    """DDZ-R27 on a hand-built play state (no `mr` cached, as tests/test_ddz_laizi_readings.py builds
    them): laizi 7, seat 0 leads 4s 5s 7c with no `as`: no reading (see above) → illegal_move."""
    from tests.test_ddz_laizi_readings import _state

    st = _state(["4s", "5s", "7c"], RANK_INDEX["7"], None)
    assert st.mr is None
    try:
        DDZ_LAIZI.apply(st, Play(match_id="m", seq=9, seat=0, cards=["4s", "5s", "7c"]))
    except Illegal as e:
        assert (e.code, e.message) == (
            "illegal_move",
            "DDZ-R27 no reading of 4s 5s 7c (no `as` logged) is a move of section 4",
        )
    else:
        raise AssertionError("4s 5s 7c was accepted")


def test_a_play_state_without_a_laizi_refuses_the_play() -> None:
    """DDZ-R13 (a `play` before the laizi event is rejected; DDZ-R1: wrong_phase). A log cannot reach
    the play phase without it; a hand-built state (laizi None) can, and is refused the same way."""
    from tests.test_ddz_laizi_readings import _state

    st = _state(["4s"], None, None)  # type: ignore[arg-type]
    try:
        DDZ_LAIZI.apply(st, Play(match_id="m", seq=9, seat=0, cards=["4s"]))
    except Illegal as e:
        assert (e.code, e.message) == ("wrong_phase", "DDZ-R13 play before the laizi event")
    else:
        raise AssertionError("a play without a laizi was accepted")


def test_move_of_applies_the_pure_rule() -> None:
    """DDZ-R24's example (laizi 5, E5 seq 6 variant): 5s 5h, all laizi, read as 5 5 is the pair of 5;
    read as A A it is nothing."""
    pair = move_of(["5s", "5h"], "5", ["5", "5"])
    assert pair is not None and (pair.type, pair.key) == ("pair", RANK_INDEX["5"])
    assert move_of(["5s", "5h"], "5", ["A", "A"]) is None


def test_a_rob_round_state_without_a_caller_refuses_the_rob() -> None:
    """DDZ-R7: the rob round exists only after a call (seat c bid 1). A log cannot reach it without a
    caller; a hand-built state can (the E1 deal, rob on, seat 0 called; the caller removed), and a
    rob there is refused as wrong_phase, not crashed on."""
    st = _final(_rob_log(0, [bid(0, 1)]))[1]
    assert (st.phase, st.caller, st.turn) == ("rob", 0, 1)
    try:
        DDZ.apply(st._replace(caller=None), Rob(match_id="m", seq=3, seat=1, value=True))
    except Illegal as e:
        assert (e.code, e.message) == ("wrong_phase", "DDZ-R7 rob without a caller")
    else:
        raise AssertionError("a rob without a caller was accepted")
