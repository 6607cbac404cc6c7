"""Mutation-killing tests for Hongzhong's own refusals (engine/mahjong/hongzhong.py, issue 17):
`check`, `check_claim_hu`, `_hu` (HZ-R1), the win test `hand_wins` / `wins` (HZ-H1..H4),
`continues_after_end` and `after` (HZ-R10 forced_zimo, HZ-R12 臭庄).

Positions are the golden logs of HZ-E1..E8 cut before seq n (helpers in
tests/test_mutants_claimflow_legality.py); codes from docs/rules/README.md, rule ids and words
from hongzhong.md. Win tests use hands written out by hand with the HZ-H rule that decides them.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from engine.mahjong.hongzhong import HONGZHONG, HongzhongRules, hand_wins
from engine.tiles import N_KINDS, tile_id
from tests.test_mutants_claimflow_legality import ev, refused, state

E1 = "hongzhong_e1_zimo_wild"
E2 = "hongzhong_e2_an_gang_jia_ma"
E3 = "hongzhong_e3_qiang_gang"
E4 = "hongzhong_e4_kongs_chou_zhuang"
E5 = "hongzhong_e5_si_hong_zhong"
E7 = "hongzhong_e7_last_tile_birds_cut"
E8 = "hongzhong_e8_two_robbers"

CASES: list[tuple[str, int, dict[str, Any], tuple[Any, ...], str, str, tuple[str, ...]]] = [
    # HZ-R10 forced_zimo: seat 1's draw 7p completes its hand (HZ-E1), the next event must be its hu
    (E1, 4, {}, ("discard", 1, "7p"), "illegal_move", "HZ-R10 forced_zimo", ("seat 1 must hu now, not discard",)),
    (E1, 4, {}, ("gang", 1, "1s", "an"), "illegal_move", "HZ-R10 forced_zimo", ("seat 1 must hu now, not gang",)),
    # HZ-R1: seat 2 was dealt four 红中 (HZ-E5): the first event must be hu {2, 7z}
    (E5, 2, {}, ("discard", 0, "2m"), "illegal_move", "HZ-R1 four 红中 dealt", ("seat 2 must hu now, not discard",)),
    (E5, 2, {}, ("hu", 0, "2m"), "illegal_move", "HZ-R1 four 红中 dealt", ("seat 2 must hu now",)),
    (E5, 2, {}, ("hu", 2, "1s"), "illegal_move", "HZ-R1", ("the four-红中 win is hu {2, 7z}, not 1s",)),
    # HZ-R12: seat 2's draw 4s left R = N = 4 (HZ-E4): only its hu may follow (and it does not win)
    (E4, 115, {}, ("discard", 2, "4s"), "illegal_move", "HZ-R12", ("last drawable tile", "only a hu by seat 2")),
    (E4, 115, {}, ("hu", 3, "4s"), "illegal_move", "HZ-R12", ("only a hu by seat 2",)),
    (E4, 115, {}, ("hu", 2, "4s"), "not_a_win", "HZ-H1", ("seat 2",)),
    # HZ-R4: hongzhong_discard off forbids discarding 红中 (seat 0 drew 7z at seq 30 of HZ-E4)
    (E4, 31, {"hongzhong_discard": False}, ("discard", 0, "7z"), "illegal_move", "HZ-R4", ("hongzhong_discard is off",)),
    # HZ-R14: in wild mode 7z is never in a peng or gang (seat 0 discarded 7z at seq 31 of HZ-E4)
    (E4, 32, {}, ("peng", 1, "7z"), "illegal_claim", "HZ-R14", ("never part of a peng",)),
    (E4, 32, {}, ("gang", 1, "7z", "zhi"), "illegal_claim", "HZ-R14", ("never part of a gang",)),
    (E2, 6, {}, ("gang", 2, "7z", "an"), "illegal_move", "HZ-R14", ("never part of a gang",)),
    (E2, 6, {}, ("gang", 2, "7z", "bu"), "illegal_move", "HZ-R14", ("红中 is wild",)),
    # HZ-R9: a bu gang needs the seat's own draw (the dealer's first turn has none)
    (E1, 2, {}, ("gang", 0, "2s", "bu"), "illegal_move", "HZ-R9", ("needs the seat's own draw",)),
    # HZ-R11: with qiang_gang_hu off a bu gang cannot be robbed (HZ-E3's rob by seat 3)
    (E3, 13, {"qiang_gang_hu": False}, ("hu", 3, "4s"), "illegal_claim", "HZ-R11", ("qiang_gang_hu is off",)),
    # HZ-R5: no win on a discard (不能放炮)
    (E1, 3, {}, ("hu", 1, "6p"), "illegal_claim", "HZ-R5", ("no win on a discard", "seat 1 cannot hu 6p")),
    (E1, 3, {}, ("hu", 2, "6p"), "illegal_claim", "HZ-R5", ("no win on a discard", "seat 2 cannot hu 6p")),
]


@pytest.mark.parametrize(("name", "n", "rules", "event", "code", "rule", "words"), CASES)
def test_refusal(name: str, n: int, rules: dict[str, Any], event: tuple[Any, ...], code: str, rule: str, words: tuple[str, ...]) -> None:
    game, s = state(name, n, **rules)
    refused(game, s, ev(s, *event), code, rule, *words)


def test_legal_where_the_option_allows() -> None:
    """The options that lift a refusal: forced_zimo off lets seat 1 discard 7p instead of its hu
    (HZ-R10); si_hongzhong off makes four 红中 an ordinary hand, the dealer discards (HZ-R1);
    hongzhong_discard off still allows other discards (HZ-R4)."""
    game, s = state(E1, 4, forced_zimo=False)
    assert s.forced_seat is None
    assert game.apply(s, ev(s, "discard", 1, "7p")).phase == "claim"
    game, s = state(E5, 2, si_hongzhong="off")
    assert s.forced_seat is None
    assert game.apply(s, ev(s, "discard", 0, "2m")).phase == "claim"
    game, s = state(E4, 31, hongzhong_discard=False)
    refused(game, s, ev(s, "discard", 0, "7z"), "illegal_move", "HZ-R4")
    assert game.apply(s, ev(s, "discard", 0, "3m")).phase == "claim"


def test_four_red_win_and_end() -> None:
    """HZ-R1: hu {2, 7z} as the first event wins at once (si_hong_zhong), nothing is forced after."""
    _, s = state(E5, 3)
    assert s.done and s.forced_seat is None
    assert [(w.seat, w.how) for w in s.wins] == [(2, "si_hong_zhong")]


def test_late_bu_gang() -> None:
    """HZ-R9 with bu_gang_immediate (default): seat 0 pengs 4s (HZ-E3), draws the 4th 4s at seq 11
    but discards 6s instead; on its next turn (draw 3s) the bu gang of 4s is late. Without
    bu_gang_immediate it is legal (the rob window opens). Wall after 4s: 2p 5p 9m 3s."""
    tail = [("draw", 0, "4s"), ("discard", 0, "6s"), ("draw", 1, "2p"), ("discard", 1, "2p"), ("draw", 2, "5p"),
            ("discard", 2, "5p"), ("draw", 3, "9m"), ("discard", 3, "9m"), ("draw", 0, "3s")]  # fmt: skip
    for immediate in (True, False):
        game, s = state(E3, 11, bu_gang_immediate=immediate)
        for e in tail:
            s = game.apply(s, ev(s, *e))
        if immediate:
            refused(game, s, ev(s, "gang", 0, "4s", "bu"), "illegal_move", "HZ-R9", "late bu gang of 4s")
        else:
            assert game.apply(s, ev(s, "gang", 0, "4s", "bu")).phase == "rob"


def test_after_forced_and_chou_zhuang() -> None:
    """`after`: HZ-R10 forced_zimo marks the drawer that can win (HZ-E1 seat 1; HZ-E7 seat 3 on the
    last drawable tile); HZ-R12: the draw that leaves R = N ends the hand (HZ-E4 seq 114) unless a
    forced hu is owed; without forced_zimo HZ-E7's last draw ends the hand but its hu may follow."""
    _, s = state(E1, 4)
    assert (s.forced_seat, s.done) == (1, False)
    _, s = state(E1, 3)
    assert s.forced_seat is None
    _, s = state(E4, 114)
    assert (s.done, s.wall.remaining) == (False, 5)
    _, s = state(E4, 115)
    assert (s.done, s.wall.remaining, s.forced_seat) == (True, 4, None)
    _, s = state(E7, 112)
    assert (s.forced_seat, s.done, s.wall.remaining) == (3, False, 4)
    game, s = state(E7, 112, forced_zimo=False)
    assert (s.forced_seat, s.done) == (None, True)
    w = game.apply(s, ev(s, "hu", 3, "4m"))
    assert [x.seat for x in w.wins] == [3]
    _, s = state(E1, 5)
    assert s.done and s.forced_seat is None


def test_continues_after_end() -> None:
    """A `hu` continues after the end only as a further robber (HZ-R11, several robbers) or as the
    last drawer's hu after 臭庄 (HZ-R12); a discard window has no hu (HZ-R5)."""
    hu, other = SimpleNamespace(type="hu"), SimpleNamespace(type="discard")
    _, s = state(E8, 14)
    assert HONGZHONG.continues_after_end(s, hu) is True
    assert HONGZHONG.continues_after_end(s, other) is False
    _, s = state(E8, 13)  # rob window, no win yet
    assert HONGZHONG.continues_after_end(s, hu) is False
    _, s = state(E4, 115)
    assert HONGZHONG.continues_after_end(s, hu) is True
    assert HONGZHONG.continues_after_end(s, other) is False
    _, s = state(E1, 5)  # after seat 1's self-draw
    assert HONGZHONG.continues_after_end(s, hu) is False
    _, s = state(E1, 3)  # claim window
    assert HONGZHONG.continues_after_end(s, hu) is False
    _, s = state(E3, 4)  # after a peng: act, no draw
    assert HONGZHONG.continues_after_end(s, hu) is False


def counts(tiles: str) -> tuple[int, ...]:
    """'1m2m3m' → counts by kind."""
    c = [0] * N_KINDS
    for i in range(0, len(tiles), 2):
        c[tile_id(tiles[i : i + 2])] += 1
    return tuple(c)


STD = "1m2m3m4m5m6m7m8m9m1p2p3p5p5p"  # 123m 456m 789m 123p + pair 55p (HZ-H1)
WILD = "1m2m3m4m5m6m7m8m9m1p2p7z5p5p"  # 12p + 红中 as 3p (HZ-H2)
PAIRS = "1m1m4m4m7m7m2p2p5p5p8p8p9s9s"  # seven pairs, no standard split (gaps of 3)
FOUR_RED = "1m4m7m1p4p7p1s4s7s9s7z7z7z7z"  # 10 isolated tiles: 4 wilds cannot make 4 sets + pair


def test_hand_wins() -> None:
    """HZ-H1..H4 by hand: the standard split, 红中 as a wild (and as a plain kind without wild mode),
    the count check |C| + 3·melds = 14, seven pairs only with qi_dui and no melds, four 红中 with no
    shape only under si_hongzhong = any_time."""
    r = HongzhongRules()
    assert hand_wins(r, counts(STD), 0) == "zi_mo"
    assert hand_wins(r, counts(WILD), 0) == "zi_mo"
    assert hand_wins(HongzhongRules(hongzhong_wild=False), counts(WILD), 0) is None
    assert hand_wins(HongzhongRules(hongzhong_wild=False), counts(STD[:-4] + "7z7z"), 0) == "zi_mo"
    assert hand_wins(r, counts(STD[:-2]), 0) is None  # 13 tiles
    assert hand_wins(r, counts(STD), 1) is None  # 14 + 3 = 17
    assert hand_wins(r, counts(STD[6:]), 1) == "zi_mo"  # 456m 789m 123p 55p + one meld
    assert hand_wins(r, counts(PAIRS), 0) is None
    assert hand_wins(HongzhongRules(qi_dui=True), counts(PAIRS), 0) == "qi_dui"
    assert hand_wins(HongzhongRules(qi_dui=True), counts(PAIRS[6:]), 1) is None
    assert hand_wins(r, counts(FOUR_RED), 0, 4) is None
    assert hand_wins(HongzhongRules(si_hongzhong="any_time"), counts(FOUR_RED), 0, 4) == "si_hong_zhong"
    assert hand_wins(HongzhongRules(si_hongzhong="any_time"), counts(FOUR_RED), 0, 3) is None


def test_wins_on_the_table() -> None:
    """`wins` counts the seat's melds: HZ-E1 seat 1 after drawing 7p wins (234m 5p6p7p 99p 111s 88s
    + 红中 as 8s); the dealer's 14 dealt tiles do not (2m6m8m 1p2p4p5p6p6p9p 1s2s2s4s: no split);
    HZ-E3 seat 0 after its peng holds 3m4m6m6m8m 1p6p9p 1s2s6s (11 + the peng, no split)."""
    _, s = state(E1, 4)
    assert HONGZHONG.wins(s, 1, s.hands[1], "zimo") is True
    assert HONGZHONG.wins(s, 0, s.hands[0], "zimo") is False
    _, s = state(E3, 4)  # seat 0 has a peng: 11 concealed + 3 = 14 needed
    assert HONGZHONG.wins(s, 0, s.hands[0], "zimo") is False


def test_dealer_dealt_a_win_must_hu() -> None:
    """HZ-R10 with forced_zimo: a dealer dealt a winning 14 (123m 456m 789m 123p 55p, HZ-H1) must
    hu first; the refusal names HZ-R10, not HZ-R1 (nobody holds four 红中). Other seats: the rest
    of the set in kind order, 13 each; the wall is what remains."""
    from types import SimpleNamespace

    from engine.tiles import full_set, tile_name

    rest = sorted(full_set(3, 4))
    dealer = [STD[i : i + 2] for i in range(0, len(STD), 2)]
    for t in dealer:
        rest.remove(tile_id(t))
    names = [tile_name(t) for t in rest]
    hands = [dealer, names[0:13], names[13:26], names[26:39]]
    dealt = SimpleNamespace(hands=hands, wall=names[39:], bottom=None, stacks=None)
    s = HONGZHONG.start(SimpleNamespace(dealer=0, base=1), dealt, HONGZHONG.parse_rules({}))
    assert s.forced_seat == 0
    refused(HONGZHONG, s, ev(s, "discard", 0, "5p"), "illegal_move", "HZ-R10 forced_zimo", "seat 0 must hu now, not discard")
    w = HONGZHONG.apply(s, ev(s, "hu", 0, "5p"))
    assert [(x.seat, x.how) for x in w.wins] == [(0, "zimo")]
