"""Mutation-killing tests for Sichuan LEGALITY, part 4 (issue 17): what a kong, a peng and the
dealer's discards leave in the state for the later rules (SC-R12 hands, SC-H4 di_hu and
gang_shang_pao), and the last discard nobody can win (SC-R22).

Logs are written by hand with the `Log` and tables A / B of test_mutants_sichuan_legality.py; the
fans and prices are computed by hand in each docstring (SC-H5, SC-H8, SC-S2, SC-S3).
"""

from __future__ import annotations

from engine.mahjong.sichuan import XUEZHAN
from engine.tiles import parse_hand
from tests.test_mutants_sichuan_legality import A_HANDS, A_VOIDS, B_HANDS, Log, to_bu_gang
from tests.test_mutants_sichuan_legality_3 import table_r


def k(t: str) -> int:
    return parse_hand(t)[0]


def wins(lg: Log) -> list[tuple[str, int, int, int]]:
    return sorted((f["kind"], f["from"], f["seat"], f["points"]) for f in lg.st.flows if f["kind"].startswith("hu_"))


def test_bu_gang_takes_the_fourth_tile_out_of_the_hand() -> None:
    """SC-R12: seat 1 (peng 9p, then 11 concealed after its draw of the 4th 9p) adds the 9p: 10
    concealed tiles remain, none of them 9p."""
    lg = to_bu_gang(Log(B_HANDS, "sssm", head="1p8s8s2s9p4s"))
    assert lg.st.hands[1][k("9p")] == 0 and min(lg.st.hands[1]) == 0 and sum(lg.st.hands[1]) == 10


def test_di_hu_on_the_first_draw_and_not_after_a_kong() -> None:
    """SC-H4 di_hu "a non-dealer wins by self-draw on its first draw of the hand, with no peng or gang
    made by anyone before". Table B, seat 1 (99p 123p 456m 789m 33m) draws 3m: 123p 456m 789m 333m
    99p. Without a kong: di_hu 6 (flat, > ping_hu 1 + zi_mo 1) → M = 2^5 = 32 from seats 0, 2, 3.
    After seat 0's an gang on its first turn: ping_hu 1 + zi_mo 1 = 2 → M = 2 from each."""
    lg = Log(B_HANDS, "sssm", head="3m").x(0, "7p").d(1, "3m").hu(1, "3m")
    assert wins(lg) == [("hu_zimo", p, 1, 32) for p in (0, 2, 3)]
    lg = Log(B_HANDS, "sssm", head="1p3m").gang(0, "1m", "an").d(0, "1p").x(0, "7p").d(1, "3m").hu(1, "3m")
    assert wins(lg) == [("hu_zimo", p, 1, 2) for p in (0, 2, 3)]


def test_dealer_discard_di_hu_only_on_the_first_discard() -> None:
    """SC-H4 with `di_hu_mode = first_draw_or_dealer_discard`: a win on the dealer's FIRST discard is
    di_hu; table A, seat 0 first discards 6p (nobody wins it), every seat draws and discards 3s (void
    for seats 0..2, seat 3 holds only s and p), seat 0 draws 7m and discards its 5p: seat 1's win on it is
    ping_hu 1 → M = 1, seat 0 pays 1 (SC-S3)."""
    lg = Log(A_HANDS, A_VOIDS, head="3s3s3s7m", rules={"di_hu_mode": "first_draw_or_dealer_discard"})
    lg.x(0, "6p").d(1, "3s").x(1, "3s").d(2, "3s").x(2, "3s").d(3, "3s").x(3, "3s").d(0, "7m").x(0, "5p")
    lg.hu(1, "5p")
    assert wins(lg) == [("hu_dianpao", 0, 1, 1)]


def test_a_discard_after_a_peng_is_not_a_kong_discard() -> None:
    """SC-H4 gang_shang_pao = "won on the first discard the discarder made after its replacement draw":
    seat 0's 9p after its an gang is one (the window carries the gang); seat 1's 3m after its peng of
    that 9p is not."""
    lg = Log(B_HANDS, "sssm", head="1p").gang(0, "1m", "an").d(0, "1p").x(0, "9p")
    assert lg.st.gsp_gang is not None and lg.st.gsp_gang.seat == 0
    lg.peng(1, "9p").x(1, "3m")
    assert lg.st.gsp_gang is None


def test_the_last_discard_nobody_can_win_ends_the_hand() -> None:
    """SC-R22 "When R = 0 the hand ends after … the last drawer's discard": table R at R = 0, seat 3
    discards 9p (seats 0 and 1 wait on 5p only): the hand ends at once; anything after is after_end."""
    lg = table_r(0).x(3, "9p")
    assert lg.st.ended and lg.st.phase == "end"
    assert XUEZHAN.is_finished(lg.st)
    lg.refuse("after_end", ("SC-R21/R22", "hu after the hand ended"), "hu", seat=0, tile="9p")


def test_peng_while_a_draw_is_due_is_no_claim() -> None:
    """SC-R7: after seat 0's an gang its replacement draw is due; nothing is offered, a peng is
    illegal_claim (SC-R16: and not a draw out of turn)."""
    lg = Log(B_HANDS, "sssm", head="1p").gang(0, "1m", "an")
    lg.refuse("illegal_claim", ("SC-R7", "peng 1p by seat 1", "nothing is offered, seat 0 draws next"), "peng", seat=1, tile="1p")


def test_di_hu_is_the_first_draw_only() -> None:
    """SC-H4 di_hu is "on its first draw": table B, seat 1 draws 8s (void, discarded), every seat
    draws and discards an 8s, then seat 1 draws 3m and wins (123p 456m 789m 333m 99p) on its SECOND
    draw: ping_hu 1 + zi_mo 1 = 2 → M = 2 from seats 0, 2, 3 (no flat 6)."""
    lg = Log(B_HANDS, "sssm", head="8s8s8s8s3m").x(0, "7p")
    for s in (1, 2, 3, 0):
        lg.d(s, "8s").x(s, "8s")
    lg.d(1, "3m").hu(1, "3m")
    assert wins(lg) == [("hu_zimo", p, 1, 2) for p in (0, 2, 3)]


def test_tail_replacement_then_head_draws() -> None:
    """SC-C4 `replacement_from = tail`: only a kong's replacement comes from the tail; the next normal
    draw takes the head again (table B: seat 0's replacement 9s from the tail, seat 1 draws head 1p)."""
    lg = Log(B_HANDS, "sssm", head="1p", tail="9s", rules={"replacement_from": "tail"}).gang(0, "1m", "an").d(0, "9s")
    lg.x(0, "9s").d(1, "1p")
    assert lg.st.hands[1][k("1p")] == 2


def test_draws_after_a_hu_or_a_pass_come_from_the_head() -> None:
    """SC-C4 with `replacement_from = tail` (table A, head 3s, tail 9s): after seat 1's hu on 5p seat 2
    draws the head 3s; after an unclaimed 2p seat 1 draws the head 3s too."""
    rules = {"replacement_from": "tail"}
    Log(A_HANDS, A_VOIDS, head="3s", tail="9s", rules=rules).x(0, "5p").hu(1, "5p").d(2, "3s")
    Log(A_HANDS, A_VOIDS, head="3s", tail="9s", rules=rules).x(0, "2p").d(1, "3s")


def test_bu_gang_replacement_is_a_kong_draw() -> None:
    """SC-R12 confirmed by the replacement draw, SC-H4 gang_shang_hua: table B, seat 1's bu gang of 9p,
    nobody robs, its replacement draw 3m wins: 123p 456m 789m + gang 9p, pair 33m: ping_hu 1 + gang 1
    + zi_mo 1 + gang_shang_hua 1 = 4 → M = 8 from seats 0, 2, 3 (SC-S2), after the bu gang's 1 each."""
    lg = to_bu_gang(Log(B_HANDS, "sssm", head="1p8s8s2s9p3m")).d(1, "3m").hu(1, "3m")
    assert wins(lg) == [("hu_zimo", p, 1, 8) for p in (0, 2, 3)]
    assert sorted((f["from"], f["points"]) for f in lg.st.flows if f["kind"] == "gang_bu") == [(0, 1), (2, 1), (3, 1)]


def test_gang_in_the_rob_window_is_refused() -> None:
    """SC-R12: after a bu gang only robs or the kong seat's replacement draw; a zhi gang claim is not."""
    lg = to_bu_gang(Log(B_HANDS, "sssm", head="1p8s8s2s9p4s"))
    lg.refuse("illegal_claim", ("SC-R12", "gang 9p", "only a hu (rob) or seat 1's replacement draw"), "gang", seat=2, tile="9p", kind="zhi")


def test_a_pass_beside_another_seats_hu_locks() -> None:
    """SC-R17 "the log moves on without j's hu on it (… other seats' hu)": seat 2 wins 5p, seat 1 (who
    could win it, 1 fan) does not: after seat 3's draw seat 1 is locked at 1."""
    lg = Log(A_HANDS, A_VOIDS, head="3s").x(0, "5p").hu(2, "5p").d(3, "3s")
    assert lg.st.locks == (-1, 1, -1, -1)


def test_single_hu_rule_locks_only_the_first_passer() -> None:
    """SC-R17 with `yi_pao_duo_xiang` off: only the nearest seat (1) could take the hu (SC-R7), so seat 3's
    peng of 5p locks seat 1 alone (with the option on, seats 1 and 2: the legality test file)."""
    lg = Log(A_HANDS, A_VOIDS, head="3s", rules={"yi_pao_duo_xiang": False}).x(0, "5p").peng(3, "5p")
    assert lg.st.locks == (-1, 1, -1, -1)


def test_rob_gang_off_still_locks_a_passed_discard() -> None:
    """SC-R17 on a discard does not depend on `rob_gang`: seat 2 passes 5p (1 fan) and is locked."""
    lg = Log(A_HANDS, A_VOIDS, head="3s", rules={"rob_gang": False}).x(0, "5p").d(1, "3s")
    assert lg.st.locks == (-1, -1, 1, -1)


def test_next_drawer_skips_two_winners() -> None:
    """SC-R20: seats 1 and 2 won 5p (血战: inactive); after seat 3's and seat 0's discards the next
    active seat after seat 0 is seat 3 (three steps on)."""
    lg = Log(A_HANDS, A_VOIDS, head="3s4s5s").x(0, "5p").hu(1, "5p").hu(2, "5p")
    lg.d(3, "3s").x(3, "3s").d(0, "4s").x(0, "4s")
    lg.refuse("not_your_turn", ("SC-R16", "seat 3 draws next, not seat 0"), "draw", seat=0, tile="5s")
    lg.d(3, "5s")


def test_claim_answers_belong_to_their_state() -> None:
    """SC-R8 as the bot asks it, state by state: on seat 0's 5p seat 1 can win (1 fan), on seat 0's 6p
    (table A, nobody holds a 6p wait) nobody can; asked one after the other."""
    game = XUEZHAN
    st5 = Log(A_HANDS, A_VOIDS, head="3s").x(0, "5p").st
    st6 = Log(A_HANDS, A_VOIDS, head="3s").x(0, "6p").st
    assert game._can_claim_win(st5, 1) is not None
    assert game._can_claim_win(st6, 1) is None
    assert game._first_claimer(st5, (1, 2, 3)) == 1
    assert game._first_claimer(st6, (1, 2, 3)) == -1


def test_dingque_m_once_and_no_honour_exchange() -> None:
    """SC-R3 once per seat, also for void m (suit 0); SC-R1 exchange tiles are suited (7z is no tile of
    Sichuan, SC-C1)."""
    lg = Log(A_HANDS, None)
    lg.do("dingque", seat=0, suit="m")
    lg.refuse("not_your_turn", ("SC-R3", "seat 0 already declared its void suit"), "dingque", seat=0, suit="p")
    ex = Log(A_HANDS, None, rules={"huan_san_zhang": True})
    ex.refuse("illegal_move", ("SC-R1", "exactly 3 tiles of one suit"), "exchange", seat=0, tiles=["7z", "7z", "7z"])


def test_a_winner_may_not_peng_in_xuezhan() -> None:
    """SC-R20 (血战: a winner leaves the hand) / SC-R9 "j is active": seat 2 won 5p; seat 3 draws and
    discards 1p, seat 2 (11p) may not peng it."""
    lg = Log(A_HANDS, A_VOIDS, head="3s").x(0, "5p").hu(2, "5p").d(3, "3s").x(3, "1p")
    lg.refuse("illegal_claim", ("SC-R20", "seat 2 has already won and left the hand"), "peng", seat=2, tile="1p")


def test_peng_of_a_suit_that_is_not_the_void() -> None:
    """SC-R9 "d is not j's void suit": table B with seat 3's void p; seat 1 discards the 1s it drew,
    seat 3 (11s) may peng it (1s is of suit s)."""
    lg = Log(B_HANDS, "sssp", head="1s").x(0, "7p").d(1, "1s").x(1, "1s").peng(3, "1s")
    assert (lg.st.stage, lg.st.turn, lg.st.after_peng) == ("act", 3, True)


def test_bu_gang_needs_the_fourth_tile() -> None:
    """SC-R12 "holds the 4th copy concealed": table B, seat 1 has peng 9p but draws 4s, not the 9p."""
    lg = Log(B_HANDS, "sssm", head="1p8s8s2s4s").gang(0, "1m", "an").d(0, "1p").x(0, "9p").peng(1, "9p").x(1, "3m")
    lg.d(2, "8s").x(2, "8s").d(3, "8s").x(3, "8s").d(0, "2s").x(0, "2s").d(1, "4s")
    lg.refuse("not_in_hand", ("SC-R12", "seat 1 does not hold the 4th 9p"), "gang", seat=1, tile="9p", kind="bu")


def test_every_draw_carries_its_own_seq() -> None:
    """The state's `seq` is the last applied event's (SC-R0 reports by event index): a draw after an
    unclaimed discard, after a hu, a kong's replacement draw (an and bu)."""
    lg = Log(A_HANDS, A_VOIDS, head="3s3s").x(0, "2p").d(1, "3s")
    assert lg.st.seq == lg.seq - 1
    lg = Log(A_HANDS, A_VOIDS, head="3s").x(0, "5p").hu(1, "5p").d(2, "3s")
    assert lg.st.seq == lg.seq - 1
    lg = Log(B_HANDS, "sssm", head="1p").gang(0, "1m", "an").d(0, "1p")
    assert lg.st.seq == lg.seq - 1
    lg = to_bu_gang(Log(B_HANDS, "sssm", head="1p8s8s2s9p4s")).d(1, "4s")
    assert lg.st.seq == lg.seq - 1


def test_discard_after_a_peng_in_the_last_four() -> None:
    """SC-R5 after a peng only a discard, also at R = 1 (SC-R15 has no self-draw to force: no draw)."""
    lg = table_r(1).x(2, "7p").peng(3, "7p").x(3, "9m")
    assert (lg.st.stage, lg.st.turn, lg.st.offered) == ("window", 3, k("9m"))


def test_view_offered_and_drawn_follow_the_log() -> None:
    """`view` (the dashboard's and the referee's picture): `offered` is the tile just discarded or
    added to a bu gang (sichuan.md section 3 "Offered tile"), `drawn` the tile just drawn; each is None
    once the next event moves on (a draw, a peng, a kong, a discard)."""
    game = XUEZHAN
    lg = Log(B_HANDS, "sssm", head="1p8s")
    v = game.view(lg.gang(0, "1m", "an").st)
    assert (v["offered"], v["drawn"], v["phase"]) == (None, None, "play:draw")
    v = game.view(lg.d(0, "1p").st)
    assert (v["offered"], v["drawn"]) == (None, "1p")
    v = game.view(lg.x(0, "9p").st)
    assert (v["offered"], v["drawn"]) == ("9p", None)
    v = game.view(lg.peng(1, "9p").st)
    assert (v["offered"], v["drawn"], v["phase"], v["turn"]) == (None, None, "play:act", 1)
    v = game.view(lg.x(1, "3m").d(2, "8s").st)
    assert (v["offered"], v["drawn"]) == (None, "8s")
    lg = Log(A_HANDS, A_VOIDS, head="3s").x(0, "5p")
    v = game.view(lg.peng(3, "5p").st)
    assert (v["offered"], v["drawn"]) == (None, None)
