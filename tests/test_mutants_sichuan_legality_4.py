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
