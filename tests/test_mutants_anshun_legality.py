"""Mutation-killing tests for Anshun's own refusals (engine/mahjong/anshun.py, issue 17): `check`
(AS-R12 天听, AS-R13 lock, AS-R16 no claim at R = 0), `_ting`, `check_claim_hu_after` (AS-R6),
`wins` (AS-H1) and the legality part of `after` (the 天听 discard must leave the hand ready, 荒庄
at R = 0, the 热炮 and first-1s bookkeeping the claims read).

Positions are the golden logs of AS-E1..E7 cut before seq n (helpers in
tests/test_mutants_claimflow_legality.py); codes from docs/rules/README.md, rule ids and words
from anshun.md. Hands quoted are the logs' deals.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Illegal
from engine.mahjong.anshun import ANSHUN
from engine.tiles import tile_id
from tests.test_mutants_claimflow_legality import ev, refused, state

A1 = "anshun_e1_zimo_chong_feng_ji"  # seat 1 = 234m 567m 6789p 9p 23s; dealer 0 discards 1s at seq 2
A2 = "anshun_e2_re_pao_men_dou"  # seat 1 pengs 1s (seq 3), seat 2 an gangs 6p (seq 6), hot 4m
A4 = "anshun_e4_tian_ting_sha_bao"  # dealer 0: ting (seq 2), discard 9p
A5 = "anshun_e5_tian_ting_dian_pao_dou"  # seat 1: ting (seq 4) after its first draw, discard 6p
A6 = "anshun_e6_huang_zhuang_jiao_pai"  # ends at R = 0 with seat 1's discard 8p (seq 112)

CASES: list[tuple[str, int, dict[str, Any], tuple[Any, ...], str, str, tuple[str, ...]]] = [
    # AS-R12: after `ting` the next event must be that seat's discard
    (A4, 3, {}, ("draw", 1, "5s"), "illegal_move", "AS-R12", ("seat 0 declared 天听 and must discard now, not draw",)),
    (A4, 3, {}, ("hu", 0, "1m"), "illegal_move", "AS-R12", ("must discard now, not hu",)),
    (A4, 3, {}, ("ting", 0), "illegal_move", "AS-R12", ("must discard now, not ting",)),
    # 123m 456m 7p888p 99p 3s after discarding 2s: two tiles left over, not ready (AS-H4)
    (A4, 3, {}, ("discard", 0, "2s"), "illegal_move", "AS-R12", ("declared 天听 but after discarding 2s", "not ready")),
    # AS-R12: only the seat to act, once, before its first discard and before any peng or gang
    (A4, 2, {}, ("ting", 1), "not_your_turn", "AS-R12", ("seat 1 is not to act",)),
    (A5, 22, {}, ("ting", 1), "illegal_move", "AS-R12", ("seat 1 already declared 天听",)),
    (A1, 10, {}, ("ting", 0), "illegal_move", "AS-R12", ("only before a seat's first discard", "(seat 0)")),
    (A2, 6, {}, ("ting", 2), "illegal_move", "AS-R12", ("before any peng or gang", "(seat 2)")),
    (A4, 2, {"tian_ting": False}, ("ting", 0), "wrong_phase", "AS-R0", ("ting is not an event of anshun",)),
    # AS-R13: a tian-ting seat's 13 tiles are locked (seat 0 of AS-E4, seat 1 of AS-E5)
    (A4, 6, {}, ("peng", 0, "5s"), "illegal_claim", "AS-R13", ("seat 0 is tian-ting", "no peng")),
    (A4, 6, {}, ("gang", 0, "5s", "zhi"), "illegal_claim", "AS-R13", ("seat 0 is tian-ting", "no gang")),
    (A5, 8, {}, ("peng", 1, "7s"), "illegal_claim", "AS-R13", ("seat 1 is tian-ting",)),
    (A5, 22, {}, ("gang", 1, "3p", "an"), "illegal_move", "AS-R13", ("seat 1 is tian-ting", "no gang")),
    (A5, 22, {}, ("gang", 1, "3p", "bu"), "illegal_move", "AS-R13", ("seat 1 is tian-ting",)),
    (A5, 22, {}, ("discard", 1, "6m"), "illegal_move", "AS-R13", ("must discard the tile it drew (3p), not 6m",)),
    # AS-R16: at R = 0 no peng or gang is legal (AS-E6's last discard 8p)
    (A6, 113, {}, ("peng", 2, "8p"), "illegal_move", "AS-R16", ("no peng with no tile left",)),
    (A6, 113, {}, ("gang", 2, "8p", "zhi"), "illegal_move", "AS-R16", ("no gang with no tile left",)),
    # AS-R6: seat 1's 234m 567m 678p 99p 123s on seat 0's 1s is 平胡, with no 豆, no 热炮, no 杀报
    (A1, 3, {}, ("hu", 1, "1s"), "illegal_claim", "AS-R6", ("平胡 cannot win on seat 0's discard 1s", "seat 1 has no")),
]


@pytest.mark.parametrize(("name", "n", "rules", "event", "code", "rule", "words"), CASES)
def test_refusal(name: str, n: int, rules: dict[str, Any], event: tuple[Any, ...], code: str, rule: str, words: tuple[str, ...]) -> None:
    game, s = state(name, n, **rules)
    refused(game, s, ev(s, *event), code, rule, *words)


def test_legal_counterparts() -> None:
    """AS-R6 `always`: the same 平胡 discard win is legal; AS-R13: the tian-ting seat discards its
    draw 3p; AS-R12: `ting` by the dealer on its first turn sets only the pending discard."""
    game, s = state(A1, 3, ping_hu_dian_pao="always")
    w = game.apply(s, ev(s, "hu", 1, "1s"))
    assert [(x.seat, x.how, x.frm) for x in w.wins] == [(1, "dianpao", 0)]
    assert w.first_1s == (0, 2, True)  # AS-S7 step 6: a won first 1s is claimed, no 冲锋鸡
    game, s = state(A5, 22)
    assert game.apply(s, ev(s, "discard", 1, "3p")).phase == "claim"
    game, s = state(A4, 2)
    t = game.apply(s, ev(s, "ting", 0))
    assert (t.ting_pending, t.ting, t.phase, t.turn) == (0, (False,) * 4, "act", 0)


def test_after_ting_discard_and_bookkeeping() -> None:
    """`after`: the 天听 discard makes the seat tian-ting (AS-R12); every discard marks the seat as
    having discarded; the draw after a 闷豆 makes the next discard a 热炮 (AS-S5: AS-E2 seat 2's 4m
    follows its an gang, kong 0); the first 1s discard and whether it was claimed (AS-E1: seat 0's,
    unclaimed; AS-E2: seat 3's, peng'ed by seat 1); the discard at R = 0 ends the hand (AS-R16)."""
    _, s = state(A4, 4)
    assert (s.ting, s.ting_pending, s.has_discarded) == ((True, False, False, False), None, (True, False, False, False))
    _, s = state(A5, 6)
    assert s.ting == (False, True, False, False)
    _, s = state(A2, 8)
    assert s.hot_pending == (None, None, 0, None)
    _, s = state(A2, 9)
    assert (s.claim_hot, s.hot_pending) == (0, (None,) * 4)
    _, s = state(A1, 3)
    assert s.first_1s == (0, 2, False)
    _, s = state(A2, 3)
    assert s.first_1s == (3, 2, False)
    _, s = state(A2, 4)
    assert s.first_1s == (3, 2, True)
    _, s = state(A6, 112)
    assert (s.wall.remaining, s.done) == (0, False)
    _, s = state(A6, 113)
    assert (s.wall.remaining, s.done) == (0, True)


def test_wins() -> None:
    """AS-H1: AS-E1 seat 1 after drawing 1s wins (234m 567m 678p 99p 123s); the dealer's dealt 14
    (2m6m9m 1p3p4p5p6p7p 1s2s2s3s3s) do not; AS-E2 seat 0's 4m 999m 222p 555s 777s + 4m wins."""
    _, s = state(A1, 12)
    assert ANSHUN.wins(s, 1, s.hands[1], "zimo") is True
    _, s = state(A1, 2)
    assert ANSHUN.wins(s, 0, s.hands[0], "zimo") is False
    _, s = state(A2, 9)
    c = list(s.hands[0])
    c[tile_id("4m")] += 1
    assert ANSHUN.wins(s, 0, tuple(c), "dianpao") is True


# A hand-chosen deal for the AS-R6 exemptions (the wall is the rest of the set in kind order after
# `head`; Anshun has no compulsory event, so the other tiles play no part).
# seat 1 waits on 9p with 234m 567m 678p 9p + 1s (平胡: sequences, three suits); seat 2 holds 5p x 4.
HANDS = [
    "1s3m3m8m8m4p4p2s2s5s5s7s7s9m",
    "2m3m4m5m6m7m6p7p8p9p1s1s9s",
    "5p5p5p5p9p1m1m4s4s6s6s8s3s",
    "1p1p2p2p3p3p7m7m6m9m4m6s3s",
]


def split(tiles: str) -> list[str]:
    return [tiles[i : i + 2] for i in range(0, len(tiles), 2)]


def deal_state(head: list[str], deal: list[str] | None = None) -> Any:
    """Start anshun (dealer 0, default rules) on `deal` (default HANDS) with the wall `head` + the rest in kind order."""
    from types import SimpleNamespace

    from engine.tiles import full_set, tile_name

    hands = [split(h) for h in (deal or HANDS)]
    rest = sorted(full_set(3, 0))
    for t in [x for h in hands for x in h] + head:
        rest.remove(tile_id(t))
    wall = head + [tile_name(t) for t in rest]
    started = SimpleNamespace(dealer=0, base=1)
    dealt = SimpleNamespace(hands=hands, wall=wall, bottom=None, stacks=None)
    return ANSHUN.start(started, dealt, ANSHUN.parse_rules({}))


def play(s: Any, steps: list[tuple[Any, ...]]) -> Any:
    """Apply steps; ("draw", seat) draws the wall head, ("discard", seat) discards the tile just drawn."""
    from engine.tiles import tile_name

    for st in steps:
        if st[0] == "draw" and len(st) == 2:
            st = ("draw", st[1], tile_name(s.wall.peek(False)))
        elif st[0] == "discard" and len(st) == 2:
            st = ("discard", st[1], tile_name(s.tile))
        s = ANSHUN.apply(s, ev(s, *st))
    return s


HOT_AN = [("discard", 0, "9m"), ("draw", 1), ("discard", 1, "9s"), ("draw", 2), ("gang", 2, "5p", "an"), ("draw", 2)]


def test_ping_hu_on_a_hot_an_gang_discard() -> None:
    """AS-R6 (ii): seat 2's an gang of 5p (闷豆), its replacement draw, then its discard 9p is a 热炮:
    seat 1's 平胡 (234m 567m 678p 111s 99p, the 1s drawn at seq 3) may win on it."""
    s = play(deal_state(["1s"]), [*HOT_AN, ("discard", 2, "9p")])
    w = ANSHUN.apply(s, ev(s, "hu", 1, "9p"))
    assert [(x.seat, x.how, x.frm, x.hot) for x in w.wins] == [(1, "dianpao", 2, 0)]


def test_ping_hu_after_another_seats_an_gang_is_refused() -> None:
    """AS-R6: seat 2's 闷豆 is not the winner's own, and seat 2's discard 9p a round later is no
    热炮: seat 1's 平胡 on it is refused (illegal_claim, the rule's three exemptions named)."""
    later = [("discard", 2), ("draw", 3), ("discard", 3), ("draw", 0), ("discard", 0), ("draw", 1), ("discard", 1), ("draw", 2)]
    s = play(deal_state(["1s"]), [*HOT_AN, *later, ("discard", 2, "9p")])
    refused(ANSHUN, s, ev(s, "hu", 1, "9p"), "illegal_claim", "AS-R6", "seat 1 has no 闷豆/转弯豆",
            "the discard is no 闷豆/转弯豆 热炮 and the discarder is not tian-ting")  # fmt: skip
    with pytest.raises(Illegal) as info:
        ANSHUN.apply(s, ev(s, "hu", 1, "9p"))
    assert info.value.message.endswith("热炮 and the discarder is not tian-ting")


def test_ping_hu_with_its_own_bu_gang() -> None:
    """AS-R6 (i): seat 1 pengs the dealer's 1s, later draws the 4th 1s and makes a 转弯豆 (confirmed
    by its replacement draw); its 平胡 234m 567m 678p 99p + kong 1s wins on seat 2's 9p."""
    steps = [("discard", 0, "1s"), ("peng", 1, "1s"), ("discard", 1, "9s"), ("draw", 2), ("discard", 2), ("draw", 3),
             ("discard", 3), ("draw", 0), ("discard", 0), ("draw", 1, "1s"), ("gang", 1, "1s", "bu"), ("draw", 1),
             ("discard", 1), ("draw", 2), ("discard", 2, "9p")]  # fmt: skip
    s = play(deal_state(["2m", "3m", "4m", "1s"]), steps)
    w = ANSHUN.apply(s, ev(s, "hu", 1, "9p"))
    assert [(x.seat, x.how, x.frm) for x in w.wins] == [(1, "dianpao", 2)]


def test_no_ting_after_a_zhi_gang() -> None:
    """AS-R12: no 天听 once anyone has made a peng or gang. Seat 1 (9m9m9m 123p 456m 789p 1s, no
    discard yet) zhi gangs the dealer's 9m and draws its replacement: its `ting` is refused."""
    deal = [HANDS[0], "9m9m9m1p2p3p4m5m6m7p8p9p1s", HANDS[2], "1p1p2p2p3p3p7m7m6m5m4m6s3s"]
    s = play(deal_state([], deal), [("discard", 0, "9m"), ("gang", 1, "9m", "zhi"), ("draw", 1)])
    refused(ANSHUN, s, ev(s, "ting", 1), "illegal_move", "AS-R12", "before any peng or gang (seat 1)")


def test_no_ting_after_an_an_gang() -> None:
    """AS-R12: an an gang (闷豆) is a gang too. Seat 2 (no discard yet, no peng in the hand) an gangs
    5p and draws its replacement: its `ting` is refused; the meld is gang_an 5p, no feeder (AS-R9)."""
    from engine.mahjong.core import Meld

    s = play(deal_state(["1s"]), HOT_AN)
    assert s.melds[2] == (Meld("gang_an", tile_id("5p"), None),)
    refused(ANSHUN, s, ev(s, "ting", 2), "illegal_move", "AS-R12", "before any peng or gang (seat 2)")


def test_bu_gang_needs_the_fourth_copy() -> None:
    """AS-R10: seat 1 pengs 1s (AS-E2, seq 3) and holds no more 1s; on its next turn (draw 2s after
    seats 2, 3, 0 play on; wall 2m 9s 2s after the replacement 3s) a bu gang of 1s is not_in_hand."""
    game, s = state(A2, 9)
    for e in [("draw", 3, "2m"), ("discard", 3, "2m"), ("draw", 0, "9s"), ("discard", 0, "9s"), ("draw", 1, "2s")]:
        s = game.apply(s, ev(s, *e))
    refused(game, s, ev(s, "gang", 1, "1s", "bu"), "not_in_hand", "AS-R10", "seat 1 does not hold the 4th copy")
