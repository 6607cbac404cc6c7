"""Mutation-killing tests for Sichuan LEGALITY, part 3 (issue 17): the 血流 lock SC-R19 ("waits must
not change") for own kongs and zhi gang, no peng / gang at R = 0 (SC-R22) and their R = 1 boundary,
the last four tiles SC-R15 (self-draw at R = 4 / R = 3, several compulsory winners on the last
discard), the last discard at R = 0 with `last_four_auto_hu` off (SC-R22).

Logs are written by hand with the `Log` of test_mutants_sichuan_legality.py (the wall is the listed
head tiles, then the rest of the 108-tile set sorted 1m..9s, then the listed end tiles). Expected
values are the refusal code, rule id and key words of sichuan.md, and waits / hands computed by hand
in the docstrings (SC-H1, SC-H9).
"""

from __future__ import annotations

from typing import Any

from engine.mahjong.core import Meld
from engine.mahjong.sichuan import XUELIU, XUEZHAN, SichuanGame
from engine.tiles import parse_hand
from tests.test_mutants_sichuan_legality import Log


def k(t: str) -> int:
    return parse_hand(t)[0]


# ---------------------------------------------------------------- SC-R19, the 血流 lock
# Table L (`sichuan_xueliu`, dealer 0, every void s, no s tile in any hand):
# - seat 0: 5p 222m 333m 666m 111p 9m (14; no win: 5p 9m left over)
# - seat 1: 111m 234m 777p 89p 55p → waits 5p (111m 234m 555p 789p 77p) and 7p (777p 789p 55p)
# - seat 2: 555m 777m 222p 44p 66p; seat 3: 888m 999m 333p 44p 6p 8p (no wait on any tile used here)
# Seat 0 discards 5p, seat 1 wins it (ping_hu): 5p is set aside, its 13 tiles are frozen (SC-R19).
# Then seats 2 and 3 draw 3s and discard it (void s: nobody may claim it), seat 0 draws the third
# head tile. With the frozen 13, by hand (SC-H9, a kind held 4 times is no wait):
# - an / zhi gang 1m: 234m 777p 89p 55p + gang 1m → waits 5p, 7p: unchanged, allowed;
# - an / zhi gang 7p: 111m 234m 89p 55p + gang 7p → 7p is held 4 times, 5p makes 555p + 89p: no
#   wait at all: changed (5p 7p → none), refused.
L_HANDS = ["5p2m2m2m3m3m3m6m6m6m1p1p1p9m", "1m1m1m2m3m4m7p7p7p8p9p5p5p", "5m5m5m7m7m7m2p2p2p4p4p6p6p", "8m8m8m9m9m9m3p3p3p4p4p6p8p"]


def table_l(head: str, **rules: Any) -> Log:
    lg = Log(L_HANDS, "ssss", head="3s3s" + head, rules=rules, game=XUELIU)
    lg.x(0, "5p").hu(1, "5p")
    return lg.d(2, "3s").x(2, "3s").d(3, "3s").x(3, "3s")


def test_locked_seat_may_not_peng() -> None:
    """SC-R19 "It may not peng": seat 0 draws and discards the last 5p; locked seat 1 holds 55p."""
    lg = table_l("5p").d(0, "5p").x(0, "5p")
    lg.refuse("illegal_claim", ("SC-R19", "seat 1 is locked after its win and may not peng"), "peng", seat=1, tile="5p")


def test_locked_zhi_gang_keeping_the_waits_is_legal() -> None:
    """SC-R19/R10: zhi gang 1m on seat 0's 1m keeps waits 5p 7p: meld gang_zhi fed by seat 0, seat 1's
    replacement draw is next (SC-R10); then it must discard the drawn tile (SC-R19)."""
    lg = table_l("1m").d(0, "1m").x(0, "1m").gang(1, "1m", "zhi")
    assert lg.st.melds[1] == (Meld("gang_zhi", k("1m"), 0),)
    assert (lg.st.stage, lg.st.turn, lg.st.repl) == ("draw", 1, True)
    assert lg.st.hands[1][k("1m")] == 0 and sum(lg.st.hands[1]) == 10
    assert lg.st.discards[0] == (k("5p"),)  # the claimed 1m left seat 0's river; 5p (won) stays
    lg.refuse("not_your_turn", ("SC-R16", "seat 1 draws next, not seat 2"), "draw", seat=2, tile="1m")


def test_locked_zhi_gang_changing_the_waits_is_refused() -> None:
    """SC-R19: zhi gang 7p would change seat 1's waits 5p 7p to none → illegal_claim; with the lock
    off (`xueliu_lock_after_hu = false`) the same zhi gang is legal."""
    lg = table_l("7p").d(0, "7p").x(0, "7p")
    lg.refuse("illegal_claim", ("SC-R19", "locked seat 1", "zhi gang 7p changes its waits", "['5p', '7p'] → []"), "gang", seat=1, tile="7p", kind="zhi")
    off = table_l("7p", xueliu_lock_after_hu=False).d(0, "7p").x(0, "7p").gang(1, "7p", "zhi")
    assert off.st.melds[1] == (Meld("gang_zhi", k("7p"), 0),)


def test_locked_an_gang_keeping_the_waits_is_legal() -> None:
    """SC-R19/R11: seat 0 draws and discards 3s, seat 1 draws the 4th 1m (tile id 0) and an-gangs it:
    waits 5p 7p before (frozen 13) and after → legal; replacement draw by seat 1 (SC-R11)."""
    lg = table_l("3s1m").d(0, "3s").x(0, "3s").d(1, "1m").gang(1, "1m", "an")
    assert lg.st.melds[1] == (Meld("gang_an", k("1m"), None),)
    assert (lg.st.stage, lg.st.turn, lg.st.repl, lg.st.drawn) == ("draw", 1, True, -1)
    assert lg.st.hands[1][k("1m")] == 0 and sum(lg.st.hands[1]) == 10


def test_locked_an_gang_changing_the_waits_is_refused() -> None:
    """SC-R19: seat 1 draws the 4th 7p; an gang 7p changes its waits 5p 7p → none: illegal_move; it
    must then discard the drawn 7p (or hu: 7p is a wait)."""
    lg = table_l("3s7p").d(0, "3s").x(0, "3s").d(1, "7p")
    lg.refuse("illegal_move", ("SC-R19", "locked seat 1", "gang 7p changes its waits", "['5p', '7p'] → []"), "gang", seat=1, tile="7p", kind="an")
    lg.refuse("illegal_move", ("SC-R19", "must discard the drawn 7p, not 1m"), "discard", seat=1, tile="1m")
    lg.x(1, "7p")


# ---------------------------------------------------------------- R = 0 / R = 1 (SC-R22, SC-R15)
# Table R (`sichuan_xuezhan`, dealer 0, every void s, no s tile in any hand; 53 tiles in hands, so
# the wall is 19 m/p tiles then the 36 s tiles):
# - seat 0: 111m 222m 444m 66m 4p6p 8m (14) → discards 8m, then waits 5p only
# - seat 1: 123m 456m 789m 22p 4p6p → waits 5p only
# - seat 2: 555p 1111p 333p 88p 7p; seat 3: 5p 9999p 777p 33m 9m 66p (neither ready)
# Every seat discards the tile it draws (draw n by seat n mod 4), so seat 2 draws at R = 1
# (draw 54) and seat 3 at R = 0 (draw 55); every tile drawn at R ≤ 18 is an s tile (void for all).
R_HANDS = ["1m1m1m2m2m2m4m4m4m6m6m4p6p8m", "1m2m3m4m5m6m7m8m9m2p2p4p6p", "5p5p5p1p1p1p1p3p3p3p8p8p7p", "5p9p9p9p9p7p7p7p3m3m9m6p6p"]


def table_r(to_r: int, game: SichuanGame = XUEZHAN, **rules: Any) -> Log:
    """Table R played until R = `to_r`, the last drawer to act (that draw made R = to_r)."""
    lg = Log(R_HANDS, "ssss", rules={"que_discard_first": False, **rules}, game=game)
    wall = list(lg_wall())
    lg.x(0, "8m")
    n = 0
    while 55 - n > to_r:
        seat, tile = (n + 1) % 4, wall[n]
        lg.d(seat, tile)
        n += 1
        if 55 - n > to_r:
            lg.x(seat, tile)
    assert lg.st.wall.remaining == to_r
    return lg


def lg_wall() -> list[str]:
    """Table R's wall by hand: the 19 m/p tiles no hand holds, sorted, then 4 of each s kind."""
    mp = "3m5m5m5m6m7m7m7m8m8m9m9m2p2p3p4p4p8p8p"
    return [mp[i : i + 2] for i in range(0, len(mp), 2)] + [f"{n}s" for n in range(1, 10) for _ in range(4)]


def test_peng_and_zhi_gang_at_r_one_are_legal() -> None:
    """SC-R9/R10 need R ≥ 1: at R = 1 seat 2 discards 7p, seat 3 (777p) may peng or zhi gang it."""
    lg = table_r(1).x(2, "7p").peng(3, "7p")
    assert lg.st.melds[3] == (Meld("peng", k("7p"), 2),)
    # seat 2's river: the tiles of its 13 earlier draws (draws 2, 6, .., 50), the claimed 7p left it
    assert lg.st.discards[2] == tuple(k(t) for t in lg_wall()[1:53:4])
    assert (lg.st.stage, lg.st.turn, lg.st.after_peng) == ("act", 3, True)
    lg = table_r(1).x(2, "7p").gang(3, "7p", "zhi")
    assert lg.st.melds[3] == (Meld("gang_zhi", k("7p"), 2),)
    assert (lg.st.stage, lg.st.turn) == ("draw", 3)


def test_an_gang_at_r_one_is_legal_at_r_zero_refused() -> None:
    """SC-R11 needs R ≥ 1 (SC-R22 "At R = 0 no peng or gang is legal"): seat 2 an-gangs 1p at R = 1
    and draws the last tile (9s) as its replacement; seat 3 (9999p) may not an-gang at R = 0."""
    lg = table_r(1).gang(2, "1p", "an")
    assert (lg.st.stage, lg.st.turn, lg.st.repl) == ("draw", 2, True)
    lg.d(2, "9s")
    assert lg.st.wall.remaining == 0
    lg = table_r(0)
    lg.refuse("illegal_move", ("SC-R22", "no gang at R = 0"), "gang", seat=3, tile="9p", kind="an")


def test_last_discard_with_two_compulsory_winners() -> None:
    """SC-R15 at R = 0: seat 3 discards 5p, seats 0 and 1 can both win it (5p is each one's wait) and
    must, in turn order from (3 + 1) mod 4 = 0: seat 1 before seat 0 is refused, and after seat 0's hu
    anything but seat 1's hu is refused; both hu end the hand (SC-R22)."""
    lg = table_r(0).x(3, "5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu 5p (last four tiles) before seat 1"), "hu", seat=1, tile="5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu 5p (last four tiles), not peng"), "peng", seat=2, tile="5p")
    lg.hu(0, "5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 1 must hu 5p (last four tiles), not draw"), "draw", seat=1, tile="1s")
    lg.refuse("illegal_move", ("SC-R15", "seat 1 must hu 5p (last four tiles), not peng"), "peng", seat=2, tile="5p")
    lg.hu(1, "5p")
    assert lg.st.ended and lg.st.phase == "end"


def test_last_discard_with_two_compulsory_winners_in_xueliu() -> None:
    """The same in 血流 (`sichuan_xueliu`): seat 0 stays active after its hu (SC-R20) and may not hu 5p
    twice (SC-R7 "at most once per seat"); seat 1 must still hu it (SC-R15), then the hand ends."""
    lg = table_r(0, game=XUELIU).x(3, "5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu 5p (last four tiles) before seat 1"), "hu", seat=1, tile="5p")
    lg.hu(0, "5p")
    lg.refuse("illegal_claim", ("SC-R7", "seat 0 already won 5p"), "hu", seat=0, tile="5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 1 must hu 5p (last four tiles), not draw"), "draw", seat=1, tile="1s")
    lg.hu(1, "5p")
    assert lg.st.ended and lg.st.wins[0] == (k("5p"),) and lg.st.wins[1] == (k("5p"),)


def test_last_discard_single_winner_when_yi_pao_duo_xiang_is_off() -> None:
    """SC-R15 with `yi_pao_duo_xiang` off: "only the first such seat in turn order must win": seat 0;
    a draw instead is refused; after seat 0's hu the hand ends (one hu only, SC-R7)."""
    lg = table_r(0, yi_pao_duo_xiang=False).x(3, "5p")
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu 5p (last four tiles), not draw"), "draw", seat=0, tile="1s")
    lg.hu(0, "5p")
    assert lg.st.ended


def test_last_discard_without_last_four_auto_hu() -> None:
    """SC-R22 with `last_four_auto_hu` off: the last discard 5p at R = 0 ends the hand, only a hu on it
    may follow; the reducer refuses peng / zhi gang ("At R = 0 no peng or gang is legal") and a draw
    ("no tile left"); after seat 0's hu seat 1 may still win it, a draw is still refused."""
    lg = table_r(0, last_four_auto_hu=False).x(3, "5p")
    game = XUEZHAN
    assert game.is_finished(lg.st) and not lg.st.ended
    assert game.continues_after_end(lg.st, lg._ev({"type": "hu", "seat": 0, "tile": "5p"}))
    lg.seq -= 1
    assert not game.continues_after_end(lg.st, lg._ev({"type": "peng", "seat": 2, "tile": "5p"}))
    lg.seq -= 1
    lg.refuse("illegal_claim", ("SC-R22", "no peng at R = 0"), "peng", seat=2, tile="5p")
    lg.refuse("illegal_claim", ("SC-R22", "no gang at R = 0"), "gang", seat=2, tile="5p", kind="zhi")
    lg.refuse("wrong_draw", ("SC-R22", "the wall is empty: no tile left to draw"), "draw", seat=0, tile="1s")
    lg.hu(0, "5p")
    assert not lg.st.ended  # seat 1 can still win 5p (SC-R7 (a), yi_pao_duo_xiang on)
    lg.refuse("wrong_draw", ("SC-R22", "the wall is empty: no tile left to draw"), "draw", seat=1, tile="1s")
    lg.hu(1, "5p")
    assert lg.st.ended and lg.st.wins[0] == (k("5p"),) and lg.st.wins[1] == (k("5p"),)


# ---------------------------------------------------------------- SC-R15 self-draw, R = 4 / R = 3
# Table F (`sichuan_xuezhan`, dealer 0, every void s, no s tile in any hand), the wall's last five
# tiles drawn 3p, 1m, 2s, 2s, 2s (draws 51..55):
# - seat 0: 23m 444m 666m 888p 99p 7m (14) → discards 7m, then waits 1m (123m) and 4m (234m 444m)
# - seat 1: 1m 55m 77m 9m 22p 44p 66p 8m; seat 2: 55m 88m 9m 11p 4p 6p 7p 9p 2p 7m (not ready)
# - seat 3: 12p 333p 555p 777p 99m → waits 3p (123p 333p)
# Every seat discards the tile it draws (draw n by seat n mod 4): seat 3 draws 3p at R = 4 (draw 51),
# seat 0 draws 1m at R = 3 (draw 52).
F_HANDS = ["2m3m4m4m4m6m6m6m8p8p8p9p9p7m", "1m5m5m7m7m9m2p2p4p4p6p6p8m", "5m5m8m8m9m1p1p4p6p7p9p2p7m", "1p2p3p3p3p5p5p5p7p7p7p9m9m"]


def table_f(**rules: Any) -> Log:
    """Table F played until seat 3 holds its 3p at R = 4."""
    lg = Log(F_HANDS, "ssss", tail="2s2s2s1m3p", rules=rules)  # the tail is drawn last, first listed last
    mp = "1m1m2m2m2m3m3m3m4m6m8m1p4p5p6p8p9p"  # the 17 m/p tiles no hand holds and not at the end, sorted
    wall = [mp[i : i + 2] for i in range(0, len(mp), 2)] + [f"{n}s" for n in range(1, 10) for _ in range(4 - (n == 2) * 3)]
    assert len(wall) == 50
    lg.x(0, "7m")
    for n, tile in enumerate(wall, start=1):
        lg.d(n % 4, tile).x(n % 4, tile)
    return lg.d(3, "3p")


def test_self_draw_is_free_at_r_four_and_compulsory_at_r_three() -> None:
    """SC-R15 "While R ≤ 3": at R = 4 seat 3 may discard the 3p it could win with; at R = 3 seat 0 drew
    1m (a win: 123m 444m 666m 888p 99p) and must hu: a discard or a gang is refused, the hu is made:
    ping_hu 1 + zi_mo 1 = 2 fan, M = 2, seats 1, 2, 3 pay 2 each (SC-S2)."""
    lg = table_f()
    assert lg.st.wall.remaining == 4
    lg.x(3, "3p").d(0, "1m")
    assert lg.st.wall.remaining == 3
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu on 1m (last four tiles), not discard"), "discard", seat=0, tile="1m")
    lg.refuse("illegal_move", ("SC-R15", "seat 0 must hu on 1m (last four tiles), not gang"), "gang", seat=0, tile="6m", kind="an")
    lg.hu(0, "1m")
    assert lg.st.wins[0] == (k("1m"),)
    assert sorted((f["kind"], f["from"], f["seat"], f["points"]) for f in lg.st.flows) == [("hu_zimo", p, 0, 2) for p in (1, 2, 3)]


def test_self_draw_at_r_three_is_free_without_last_four_auto_hu() -> None:
    """SC-R15 is option `last_four_auto_hu`: off, seat 0 may discard its winning 1m at R = 3."""
    lg = table_f(last_four_auto_hu=False).x(3, "3p").d(0, "1m").x(0, "1m")
    assert lg.st.stage == "window" and not lg.st.wins[0]
