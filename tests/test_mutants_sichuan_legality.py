"""Mutation-killing tests for Sichuan LEGALITY (issue 17): refusals, turns and claim windows of
engine/mahjong/sichuan.py, on logs written by hand here (no builder, no golden file).

Every log starts from a hand-written deal (`huan_san_zhang` off unless a test turns it on), the wall
is the listed head tiles then the rest of the 108-tile set in sorted order (1m..9m, 1p..9p, 1s..9s).
Expected values are the refusal's error code, the rule id and key words of sichuan.md, written here
by hand; the hands are checked against SC-H1 by hand in each docstring.

Table A (dealer 0, `sichuan_xuezhan`, voids s s s m):
- seat 0: 5p 666p 111m 999m 55m 2p 4p (14; no win: 2p 4p 5p are no set)
- seat 1: 123m 456m 789m 123p 5p   → waits 5p (123m 456m 789m 123p + pair 55p), 1 fan (ping_hu)
- seat 2: 11p 34p 789p 234m 678m   → waits 2p / 5p (pair 11p), 1 fan each
- seat 3: 55p 123s 456s 789s 1p 2p → 5p is no win (555p 123s 456s 789s 1p 2p: no pair)
Seat 0 discards 5p: seats 1 and 2 may hu (SC-R8), seat 3 may peng (SC-R9).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.errors import Illegal
from engine.mahjong.sichuan import XUELIU, XUEZHAN, SichuanGame, State
from engine.tiles import full_set, parse_hand, tile_name
from events.codec import parse_event

A_HANDS = ["5p6p6p6p1m1m1m9m9m9m5m5m2p4p", "1m2m3m4m5m6m7m8m9m1p2p3p5p", "1p1p3p4p7p8p9p2m3m4m6m7m8m", "5p5p1s2s3s4s5s6s7s8s9s1p2p"]
A_VOIDS = "sssm"


class Log:
    """A hand-written log applied event by event straight to the reducer."""

    def __init__(
        self,
        hands: list[str],
        voids: str | None,
        head: str = "",
        rules: dict[str, Any] | None = None,
        dealer: int = 0,
        game: SichuanGame = XUEZHAN,
        tail: str = "",
    ) -> None:
        self.game = game
        raw = {"huan_san_zhang": False, **(rules or {})}
        self.rules = game.parse_rules(raw)
        ks = [parse_hand(h) for h in hands]
        rest = Counter(full_set())
        rest.subtract(k for h in ks for k in h)
        h_ks, t_ks = parse_hand(head), parse_hand(tail)
        rest.subtract(h_ks + t_ks)
        assert all(v >= 0 for v in rest.values()), rest
        wall = h_ks + sorted(rest.elements()) + t_ks[::-1]  # tail: the first listed tile is drawn first
        self.seq = 0
        started = self._ev({"type": "match_started", "game": game.id, "rules": raw, "players": ["a", "b", "c", "d"], "dealer": dealer, "base": 1})
        dealt = self._ev({"type": "dealt", "hands": [[tile_name(k) for k in h] for h in ks], "wall": [tile_name(k) for k in wall]})
        self.st: State = game.start(started, dealt, self.rules)
        if voids is not None:
            for s, v in enumerate(voids):
                self.do("dingque", seat=s, suit=v)

    def _ev(self, payload: dict[str, Any]) -> Any:
        ev = parse_event({"match_id": "m", "seq": self.seq, **payload})
        self.seq += 1
        return ev

    def do(self, type: str, **kw: Any) -> Log:
        self.st = self.game.apply(self.st, self._ev({"type": type, **kw}))
        return self

    def d(self, seat: int, tile: str) -> Log:
        return self.do("draw", seat=seat, tile=tile)

    def x(self, seat: int, tile: str) -> Log:
        return self.do("discard", seat=seat, tile=tile)

    def hu(self, seat: int, tile: str) -> Log:
        return self.do("hu", seat=seat, tile=tile)

    def peng(self, seat: int, tile: str) -> Log:
        return self.do("peng", seat=seat, tile=tile)

    def gang(self, seat: int, tile: str, kind: str) -> Log:
        return self.do("gang", seat=seat, tile=tile, kind=kind)

    def refuse(self, code: str, words: tuple[str, ...], type: str, **kw: Any) -> None:
        """The next event is refused with `code`; the message holds every one of `words`."""
        st, seq = self.st, self.seq
        with pytest.raises(Illegal) as ei:
            self.do(type, **kw)
        assert self.st is st
        self.seq = seq  # a refused event is not part of the log: the next event takes its seq
        assert ei.value.code == code, (ei.value.code, ei.value.message)
        for w in words:
            assert w in ei.value.message, (w, ei.value.message)


def table_a(**rules: Any) -> Log:
    return Log(A_HANDS, A_VOIDS, head="3s", rules=rules)


# ---------------------------------------------------------------- the claim window on seat 0's 5p


def test_window_hu_refusals() -> None:
    """SC-R7/R8: only the offered tile, never by the discarder, and hu claims in turn order 1, 2."""
    lg = table_a().x(0, "5p")
    lg.refuse("illegal_claim", ("SC-R7", "offered discard is 5p"), "hu", seat=1, tile="2p")
    lg.refuse("illegal_claim", ("SC-R8", "seat 0 cannot win its own discard"), "hu", seat=0, tile="5p")
    lg.refuse("not_a_win", ("SC-H1", "with 5p is not a winning hand", "void m"), "hu", seat=3, tile="5p")
    lg.hu(2, "5p")
    lg.refuse("illegal_claim", ("SC-R7", "turn order from seat 1", "seat 1 comes before seat 2"), "hu", seat=1, tile="5p")
    lg.refuse("illegal_claim", ("SC-R20", "seat 2 has already won and left the hand"), "hu", seat=2, tile="5p")
    lg.refuse("illegal_claim", ("SC-R7", "was won", "no peng after a hu"), "peng", seat=3, tile="5p")


def test_xueliu_one_hu_per_seat() -> None:
    """SC-R7 (a) at most once per seat: in 血流 the winner stays active (SC-R20) but may not hu 5p twice."""
    lg = Log(A_HANDS, A_VOIDS, head="3s", game=XUELIU).x(0, "5p").hu(2, "5p")
    lg.refuse("illegal_claim", ("SC-R7", "seat 2 already won 5p"), "hu", seat=2, tile="5p")


def test_window_two_hu_then_next_drawer() -> None:
    """SC-R7 (a) both winners in order 1, 2; SC-R20: the next draw is by the seat after the last
    winner (seat 3), seat 1 may not draw; a discard in the window is refused."""
    lg = table_a().x(0, "5p")
    lg.refuse("illegal_move", ("SC-R7", "seat 0 already discarded 5p"), "discard", seat=0, tile="6p")
    lg.refuse("not_your_turn", ("SC-R7", "seat 3 may not discard during the claim window on 5p"), "discard", seat=3, tile="1p")
    lg.hu(1, "5p").hu(2, "5p")
    assert lg.st.wins == ((), (parse_hand("5p")[0],), (parse_hand("5p")[0],), ())
    lg.refuse("not_your_turn", ("SC-R16", "seat 3 draws next, not seat 1"), "draw", seat=1, tile="3s")
    lg.d(3, "3s")
    assert (lg.st.stage, lg.st.turn) == ("act", 3)


def test_single_hu_nearest_seat() -> None:
    """SC-R7 with yi_pao_duo_xiang off: seat 1 is nearer than seat 2 (截胡); after seat 1's hu no other."""
    lg = table_a(yi_pao_duo_xiang=False).x(0, "5p")
    lg.refuse("illegal_claim", ("SC-R7", "seat 1 is nearer", "截胡"), "hu", seat=2, tile="5p")
    lg.hu(1, "5p")
    lg.refuse("illegal_claim", ("yi_pao_duo_xiang is off", "seat 1 already took the single hu on 5p"), "hu", seat=2, tile="5p")
    lg.d(2, "3s")  # SC-R20: the next active seat after the winner
    assert (lg.st.stage, lg.st.turn) == ("act", 2)


def test_pass_then_draw_by_the_next_seat() -> None:
    """SC-R7 (c): nobody claims, the next seat after 0 draws (seat 1, not seat 2); SC-R17: seats 1
    and 2 could win 5p (1 fan each) and are pass-locked at 1; seat 1's own draw clears its lock."""
    lg = table_a().x(0, "5p")
    lg.refuse("not_your_turn", ("SC-R16", "seat 1 draws next, not seat 2"), "draw", seat=2, tile="3s")
    lg.refuse("wrong_draw", ("SC-C4", "seat 1 drew 4s but the wall's head tile is 3s"), "draw", seat=1, tile="4s")
    lg.d(1, "3s")
    assert lg.st.locks == (-1, -1, 1, -1)


def test_peng_then_pass_lock() -> None:
    """SC-R9 peng by seat 3; SC-R17: seats 1 and 2 (who could win 5p, 1 fan) are pass-locked at 1,
    so seat 2's 1-fan win on seat 3's 2p (11p 234p 789p 234m 678m) is refused; SC-R5 after a peng
    only a discard."""
    lg = table_a().x(0, "5p")
    lg.refuse("illegal_claim", ("SC-R9", "seat 0 cannot claim its own discard"), "peng", seat=0, tile="5p")
    lg.refuse("not_in_hand", ("SC-R9/R10", "seat 1 holds 1 5p, peng needs 2"), "peng", seat=1, tile="5p")
    lg.refuse("illegal_claim", ("SC-R7", "peng 6p", "offered discard is 5p"), "peng", seat=3, tile="6p")
    lg.refuse("illegal_claim", ("SC-R10", "only a zhi gang claims a discard, not gang an"), "gang", seat=3, tile="5p", kind="an")
    lg.refuse("not_in_hand", ("SC-R9/R10", "seat 3 holds 2 5p, gang needs 3"), "gang", seat=3, tile="5p", kind="zhi")
    lg.peng(3, "5p")
    assert lg.st.locks == (-1, 1, 1, -1)
    assert (lg.st.stage, lg.st.turn, lg.st.after_peng) == ("act", 3, True)
    lg.refuse("illegal_move", ("SC-R5", "only discard after its peng, not gang"), "gang", seat=3, tile="5p", kind="bu")
    lg.refuse("illegal_move", ("SC-R14", "only right after its own draw"), "hu", seat=3, tile="2p")
    lg.refuse("not_your_turn", ("SC-R5", "seat 3 is to act, not seat 0"), "discard", seat=0, tile="6p")
    lg.x(3, "2p")
    lg.refuse("illegal_claim", ("SC-R17", "seat 2 is pass-locked at 1 fan", "1-fan win on 2p is not higher"), "hu", seat=2, tile="2p")
    lg.d(0, "3s")  # the next seat after 3
    assert lg.st.locks == (-1, 1, 1, -1)


def test_no_pass_lock_when_guo_shou_hu_is_off() -> None:
    """SC-R17 off (`guo_shou_hu = false`): the same 2p win of seat 2 after its pass is legal."""
    lg = table_a(guo_shou_hu=False).x(0, "5p").peng(3, "5p")
    assert lg.st.locks == (-1, -1, -1, -1)
    lg.x(3, "2p").hu(2, "2p")
    assert lg.st.wins[2] == (parse_hand("2p")[0],)


# ---------------------------------------------------------------- exchange and dingque (SC-R1..R4)


def test_exchange_phase_refusals_and_direction() -> None:
    """SC-R1: 3 tiles of one suit held by the seat, once per seat, then one direction from the
    option; SC-R2 counterclockwise: seat i's tiles go to seat i+1; SC-R3 dingque once per seat;
    SC-R4: the dealer (seat 2 here) is first to act."""
    lg = Log(A_HANDS, None, rules={"huan_san_zhang": True, "exchange_directions": ["counterclockwise"]}, dealer=0)
    lg.refuse("wrong_phase", ("SC-R1", "exchange_direction during the exchange phase"), "exchange_direction", direction="counterclockwise")
    lg.refuse("wrong_phase", ("SC-R3", "dingque during the exchange phase"), "dingque", seat=0, suit="s")
    lg.refuse("wrong_phase", ("SC-R1/R3", "discard during the exchange phase"), "discard", seat=0, tile="5p")
    lg.refuse("wrong_phase", ("SC-R0", "ting is not an event of Sichuan mahjong"), "ting", seat=0)
    lg.refuse("illegal_move", ("SC-R1", "exactly 3 tiles of one suit", "1m 1m 2p"), "exchange", seat=0, tiles=["1m", "1m", "2p"])
    lg.refuse("illegal_move", ("SC-R1", "exactly 3 tiles of one suit"), "exchange", seat=0, tiles=["1m", "1m"])
    lg.refuse("not_in_hand", ("SC-R1", "seat 0 does not hold 2m 3m 4m"), "exchange", seat=0, tiles=["2m", "3m", "4m"])
    lg.do("exchange", seat=0, tiles=["1m", "1m", "1m"])
    lg.refuse("not_your_turn", ("SC-R1", "seat 0 already chose its exchange tiles"), "exchange", seat=0, tiles=["9m", "9m", "9m"])
    lg.do("exchange", seat=1, tiles=["7m", "8m", "9m"]).do("exchange", seat=3, tiles=["1s", "2s", "3s"])
    assert lg.st.phase == "exchange"
    lg.do("exchange", seat=2, tiles=["7p", "8p", "9p"])
    assert lg.st.phase == "direction"
    lg.refuse("wrong_phase", ("SC-R1", "exchange during the direction phase"), "exchange", seat=0, tiles=["9m", "9m", "9m"])
    lg.refuse("illegal_move", ("SC-R1", "direction opposite is not in exchange_directions"), "exchange_direction", direction="opposite")
    lg.do("exchange_direction", direction="counterclockwise")
    # seat 0 gets seat 3's 123s, seat 1 gets 0's 111m, seat 2 gets 1's 789m, seat 3 gets 2's 789p
    want = [
        "5p6p6p6p9m9m9m5m5m2p4p1s2s3s",
        "1m2m3m4m5m6m1p2p3p5p1m1m1m",
        "1p1p3p4p2m3m4m6m7m8m7m8m9m",
        "5p5p4s5s6s7s8s9s1p2p7p8p9p",
    ]
    for s in range(4):
        assert sorted(k for k in range(27) for _ in range(lg.st.hands[s][k])) == sorted(parse_hand(want[s])), s
    lg.refuse("wrong_phase", ("SC-R1", "exchange_direction during the dingque phase"), "exchange_direction", direction="counterclockwise")
    lg.refuse("wrong_phase", ("SC-R1", "exchange during the dingque phase"), "exchange", seat=0, tiles=["9m", "9m", "9m"])
    lg.do("dingque", seat=1, suit="s")
    lg.refuse("not_your_turn", ("SC-R3", "seat 1 already declared its void suit"), "dingque", seat=1, suit="m")
    lg.do("dingque", seat=0, suit="p").do("dingque", seat=2, suit="s")
    assert lg.st.phase == "dingque"
    lg.refuse("wrong_phase", ("SC-R1/R3", "draw during the dingque phase"), "draw", seat=0, tile="3s")
    lg.do("dingque", seat=3, suit="m")
    assert (lg.st.phase, lg.st.stage, lg.st.turn, lg.st.first_turn) == ("play", "act", 0, True)
    assert lg.st.void == (1, 2, 2, 0)
    lg.refuse("wrong_phase", ("SC-R3", "dingque during the play phase"), "dingque", seat=3, suit="m")


def test_dealer_two_acts_first() -> None:
    """SC-R4: play starts with the dealer (seat 2, 14 tiles) to act."""
    hands = [A_HANDS[1], A_HANDS[2], A_HANDS[0], A_HANDS[3]]
    lg = Log(hands, "sssm", dealer=2)
    assert (lg.st.stage, lg.st.turn) == ("act", 2)
    lg.refuse("not_your_turn", ("SC-R5", "seat 2 is to act, not seat 0"), "discard", seat=0, tile="1m")


# ---------------------------------------------------------------- the seat to act (SC-R5, R6, R14)


def test_seat_to_act_refusals() -> None:
    """SC-R5/R6/R14/R16 on the dealer's first turn (table A, seat 0 holds 14, no win)."""
    lg = table_a()
    lg.refuse("not_your_turn", ("SC-R16", "seat 0 already holds 14 tiles and must act, not draw"), "draw", seat=0, tile="3s")
    lg.refuse("illegal_claim", ("SC-R7", "peng 5p by seat 3", "no discard or kong tile is offered, seat 0 is to act"), "peng", seat=3, tile="5p")
    lg.refuse("illegal_claim", ("SC-R7", "no discard or kong tile is offered"), "gang", seat=0, tile="6p", kind="zhi")
    lg.refuse("illegal_claim", ("SC-R7", "hu 5p by seat 1"), "hu", seat=1, tile="5p")
    lg.refuse("not_your_turn", ("SC-R5", "seat 0 is to act, not seat 1"), "draw", seat=1, tile="3s")
    lg.refuse("not_in_hand", ("SC-R6", "seat 0 does not hold 7p"), "discard", seat=0, tile="7p")
    lg.refuse("not_in_hand", ("SC-R14", "seat 0 does not hold 7p"), "hu", seat=0, tile="7p")
    lg.refuse("not_a_win", ("SC-H1", "seat 0", "is not a winning hand (void s)"), "hu", seat=0, tile="5p")
    lg.refuse("not_in_hand", ("SC-C1", "7z does not exist"), "discard", seat=0, tile="7z")
    lg.refuse("illegal_move", ("SC-R11", "3s is seat 0's void suit"), "gang", seat=0, tile="3s", kind="an")
    lg.refuse("not_in_hand", ("SC-R11", "seat 0 holds 3 6p, an gang needs 4"), "gang", seat=0, tile="6p", kind="an")
    lg.refuse("illegal_move", ("SC-R12", "seat 0 has no peng of 6p to add to"), "gang", seat=0, tile="6p", kind="bu")


def test_que_discard_first() -> None:
    """SC-R6: seat 0 declared void p and holds 5p 666p 2p 4p: it must discard a p tile first; with
    `que_discard_first` off any held tile may go."""
    lg = Log(A_HANDS, "psss", head="3s")
    lg.refuse("illegal_move", ("SC-R6", "que_discard_first", "seat 0 still holds void-suit p tiles", "not 1m"), "discard", seat=0, tile="1m")
    lg.x(0, "6p")
    off = Log(A_HANDS, "psss", head="3s", rules={"que_discard_first": False}).x(0, "1m")
    assert off.st.stage == "window"


def test_self_draw_hu_tile_must_be_the_drawn_tile() -> None:
    """SC-R14: after seat 0's 2p seat 1 draws 3s (123m 456m 789m 123p 5p 3s: no win, void s); a hu
    naming a held tile that is not the drawn one → illegal_move, the drawn one → not_a_win."""
    lg = table_a().x(0, "2p").d(1, "3s")
    lg.refuse("illegal_move", ("SC-R14", "hu tile 1m is not the drawn tile 3s"), "hu", seat=1, tile="1m")
    lg.refuse("not_a_win", ("SC-H1", "seat 1"), "hu", seat=1, tile="3s")


# ---------------------------------------------------------------- kongs and the rob (SC-R10..R13)
# Table B (dealer 0, 血战, voids s s s m), wall head 1p 8s 8s 2s 9p 4s:
# - seat 0: 1111m 222m 33p 456p 7p 9p (14, no win)
# - seat 1: 99p 123p 456m 789m 33m   → wins 9p (999p 123p 456m 789m 33m)
# - seat 2: 78p 456p 456m 678m 55m   → waits 6p / 9p (pair 55m), 1 fan
# - seat 3: 11s 33s 55s 77s 99s 2s 4s 6s (5 pairs and 3 singles: no wait)
B_HANDS = ["1m1m1m1m2m2m2m3p3p4p5p6p7p9p", "9p9p1p2p3p4m5m6m7m8m9m3m3m", "7p8p4p5p6p4m5m6m6m7m8m5m5m", "1s1s3s3s5s5s7s7s9s9s2s4s6s"]


def table_b(**rules: Any) -> Log:
    return Log(B_HANDS, "sssm", head="1p8s8s2s9p4s", rules=rules)


def to_bu_gang(lg: Log) -> Log:
    """an gang 1m, replacement 1p, discard 9p, seat 1 pengs it, fillers, seat 1 draws the 4th 9p."""
    lg.gang(0, "1m", "an")
    lg.refuse("illegal_claim", ("SC-R7", "nothing is offered, seat 0 draws next"), "hu", seat=0, tile="1p")
    lg.refuse("illegal_claim", ("SC-R7", "gang 1p by seat 0"), "gang", seat=0, tile="1p", kind="an")
    lg.refuse("illegal_move", ("SC-R16", "seat 0 must draw before it discards"), "discard", seat=0, tile="2m")
    lg.refuse("not_your_turn", ("SC-R16", "seat 0 draws next, not seat 1"), "draw", seat=1, tile="1p")
    lg.d(0, "1p").x(0, "9p").peng(1, "9p").x(1, "3m")
    lg.d(2, "8s").x(2, "8s").d(3, "8s").x(3, "8s").d(0, "2s").x(0, "2s")
    lg.refuse("not_your_turn", ("SC-R16", "seat 1 draws next, not seat 2"), "draw", seat=2, tile="9p")
    lg.d(1, "9p")
    lg.refuse("illegal_move", ("SC-R12", "seat 1 has no peng of 3m to add to"), "gang", seat=1, tile="3m", kind="bu")
    lg.refuse("not_in_hand", ("SC-R11", "seat 1 holds 1 9p, an gang needs 4"), "gang", seat=1, tile="9p", kind="an")
    return lg.gang(1, "9p", "bu")


def test_an_gang_then_replacement_draw() -> None:
    """SC-R11: an gang 1m, then the same seat's replacement draw (head 1p, SC-C4); with
    `replacement_from = tail` the head tile is refused and the tail tile (listed 9s) is drawn."""
    lg = table_b().gang(0, "1m", "an")
    assert (lg.st.stage, lg.st.turn, lg.st.repl) == ("draw", 0, True)
    lg.d(0, "1p")
    assert (lg.st.stage, lg.st.turn) == ("act", 0)
    tl = Log(B_HANDS, "sssm", head="1p", tail="9s", rules={"replacement_from": "tail"}).gang(0, "1m", "an")
    tl.refuse("wrong_draw", ("SC-C4", "seat 0 drew 1p but the wall's tail tile is 9s"), "draw", seat=0, tile="1p")
    tl.d(0, "9s")


def test_rob_window_refusals_and_rob() -> None:
    """SC-R12/R13: after the bu gang of 9p only robs or seat 1's replacement draw; seat 2 robs
    (78p + 9p); the kong is void, seat 1 keeps a peng of 9p; next draw: seat 3 (SC-R20)."""
    lg = to_bu_gang(table_b())
    assert (lg.st.stage, lg.st.offered) == ("rob", parse_hand("9p")[0])
    lg.refuse("illegal_claim", ("SC-R12", "peng 9p", "only a hu (rob) or seat 1's replacement draw"), "peng", seat=2, tile="9p")
    lg.refuse("illegal_move", ("SC-R12", "seat 1 must draw its replacement tile"), "discard", seat=1, tile="1p")
    lg.refuse("not_your_turn", ("SC-R7", "seat 2 may not discard during the claim window on 9p"), "discard", seat=2, tile="5m")
    lg.refuse("not_your_turn", ("SC-R12", "seat 1 draws its replacement after its bu gang, not seat 2"), "draw", seat=2, tile="4s")
    lg.refuse("illegal_claim", ("SC-R7", "the offered kong tile is 9p"), "hu", seat=2, tile="6p")
    lg.refuse("illegal_claim", ("SC-R8", "seat 1 cannot win its own kong tile"), "hu", seat=1, tile="9p")
    lg.refuse("not_a_win", ("SC-H1", "seat 3"), "hu", seat=3, tile="9p")
    lg.hu(2, "9p")
    assert [m.kind for m in lg.st.melds[1]] == ["peng"]
    lg.refuse("not_your_turn", ("SC-R16", "seat 3 draws next, not seat 1"), "draw", seat=1, tile="4s")
    lg.d(3, "4s")


def test_bu_gang_confirmed_by_the_replacement_draw() -> None:
    """SC-R12: nobody robs, seat 1's replacement draw (head 4s) confirms the kong (meld gang_bu)."""
    lg = to_bu_gang(table_b()).d(1, "4s")
    assert [m.kind for m in lg.st.melds[1]] == ["gang_bu"]
    assert (lg.st.stage, lg.st.turn) == ("act", 1)


def test_rob_gang_off() -> None:
    """SC-R13 `rob_gang = false`: a bu gang cannot be robbed; seat 2 is then not locked by it."""
    lg = to_bu_gang(table_b(rob_gang=False))
    lg.refuse("illegal_claim", ("SC-R13", "rob_gang is off"), "hu", seat=2, tile="9p")
    lg.d(1, "4s")
    assert lg.st.locks[2] == -1


def test_peng_locks_the_seats_that_could_win() -> None:
    """SC-R17: seat 1's peng of 9p passes its own and seat 2's wins on it, each ping_hu 1 +
    gang_shang_pao 1 (9p is seat 0's first discard after its replacement draw, SC-H4) = 2: both
    locked at 2; seat 2's draw clears its lock (SC-R17 "ends at j's next draw")."""
    lg = table_b().gang(0, "1m", "an").d(0, "1p").x(0, "9p").peng(1, "9p")
    assert lg.st.locks == (-1, 2, 2, -1)
    lg.x(1, "3m").d(2, "8s")
    assert lg.st.locks == (-1, 2, -1, -1)


# ---------------------------------------------------------------- the bot's questions and helpers


def test_first_claimer_and_can_claim_win() -> None:
    """SC-R7/R8 as the bot asks them, on seat 0's 5p (table A): seats 1 and 2 can win (1 fan each,
    ping_hu), seat 3 cannot; the first claimer in (1, 2, 3) is 1, in (2, 3) is 2, in (3,) none."""
    game = XUEZHAN
    st = table_a().x(0, "5p").st
    assert game._first_claimer(st, (1, 2, 3)) == 1
    assert game._first_claimer(st, (2, 3)) == 2
    assert game._first_claimer(st, (3,)) == -1
    fans = [game._can_claim_win(st, j) for j in range(4)]
    assert [None if f is None else f.fan for f in fans] == [None, 1, 1, None]
    assert game._can_claim_win(st, 2, ignore_lock=True).fan == 1  # type: ignore[union-attr]
    assert game._can_claim_win(st, 3, ignore_lock=True) is None
    st2 = table_a().x(0, "5p").st  # a new state object: a fresh memo, the same answers
    assert game._first_claimer(st2, (3, 2, 1)) == 2


def test_first_claimer_respects_the_pass_lock() -> None:
    """SC-R17: after seat 3's peng of 5p seat 2 is locked at 1; on seat 3's 2p its 1-fan win is no
    claim (the bot must not offer it), ignoring the lock it is."""
    game = XUEZHAN
    st = table_a().x(0, "5p").peng(3, "5p").x(3, "2p").st
    assert game._first_claimer(st, (0, 1, 2)) == -1
    assert game._can_claim_win(st, 2) is None
    assert game._can_claim_win(st, 2, ignore_lock=True).fan == 1  # type: ignore[union-attr]
    st_off = Log(A_HANDS, A_VOIDS, head="3s", rules={"guo_shou_hu": False}).x(0, "5p").peng(3, "5p").x(3, "2p").st
    assert game._first_claimer(st_off, (0, 1, 2)) == 2


def test_apply_returns_the_kept_result_for_the_same_state_and_event() -> None:
    """The reducer is pure: the same state and an equal event give the same result; another event
    on the same state gives its own result."""
    lg = table_a()
    st0 = lg.st
    ev = parse_event({"match_id": "m", "seq": lg.seq, "type": "discard", "seat": 0, "tile": "5p"})
    ev2 = parse_event({"match_id": "m", "seq": lg.seq, "type": "discard", "seat": 0, "tile": "6p"})
    a = XUEZHAN.apply(st0, ev)
    assert XUEZHAN.apply(st0, ev) is a
    b = XUEZHAN.apply(st0, ev2)
    assert b is not a and b.offered == parse_hand("6p")[0] and a.offered == parse_hand("5p")[0]
    assert XUEZHAN.apply(st0, ev).offered == parse_hand("5p")[0]
    assert a.seq == ev.seq and st0.stage == "act"


def test_que_discard_first_void_m() -> None:
    """SC-R6 with void m (suit 0): seat 0 holds 111m 999m 55m, so a p tile may not go first."""
    lg = Log(A_HANDS, "msss", head="3s")
    lg.refuse("illegal_move", ("SC-R6", "seat 0 still holds void-suit m tiles", "not 6p"), "discard", seat=0, tile="6p")
    lg.x(0, "9m")


def test_is_sichuan_win_and_void() -> None:
    """SC-H1 by hand: 123m 456m 789m 123p 55p is a win unless the void suit is m or p; a meld of the
    void suit spoils it; seven pairs 11m 22m 33p 44p 55p 66p 77p is a win with void s."""
    from engine.mahjong.core import Meld
    from engine.mahjong.sichuan import _has_void, is_sichuan_win
    from engine.tiles import counts_of

    c = counts_of(parse_hand("1m2m3m4m5m6m7m8m9m1p2p3p5p5p"))
    assert is_sichuan_win(c, [], 2) is True
    assert is_sichuan_win(c, [], 0) is False
    assert is_sichuan_win(c, [], 1) is False
    assert _has_void(c, -1) is False and _has_void(c, 0) and _has_void(c, 1) and not _has_void(c, 2)
    c9 = counts_of(parse_hand("1m2m3m4m5m6m7m8m9m5p5p"))
    assert is_sichuan_win(c9, [Meld("peng", parse_hand("9s")[0], 1)], 1) is False  # 5p: void p
    assert is_sichuan_win(c9, [Meld("peng", parse_hand("9s")[0], 1)], 2) is False  # the peng is s
    assert is_sichuan_win(c9, [Meld("peng", parse_hand("9s")[0], 1)], 0) is False  # m tiles
    c9p = counts_of(parse_hand("1p2p3p4p5p6p7p8p9p5p5p"))
    assert is_sichuan_win(c9p, [Meld("peng", parse_hand("9s")[0], 1)], 0) is True
    sp = counts_of(parse_hand("1m1m2m2m3p3p4p4p5p5p6p6p7p7p"))
    assert is_sichuan_win(sp, [], 2) is True and is_sichuan_win(sp, [], 0) is False
    assert is_sichuan_win(counts_of(parse_hand("1m1m2m2m3p3p4p4p5p5p6p6p7p8p")), [], 2) is False


def test_last_four_compulsory_discard_win() -> None:
    """SC-E9/SC-R15: at R = 3 seat 0 discards 4p and seat 1 (123m 456m 789m 23p 55p) must hu it:
    a draw, a peng or a hu by a later seat first is refused; after the win seat 2 draws (SC-R20)."""
    import json
    from pathlib import Path

    path = Path(__file__).parent / "data" / "golden" / "sichuan_e9_pass_lock_last_four.jsonl"
    ds = [json.loads(x) for x in path.read_text().splitlines()]
    assert (ds[115]["type"], ds[115]["seat"], ds[115]["tile"]) == ("discard", 0, "4p")
    game = XUEZHAN
    st = game.start(parse_event(ds[0]), parse_event(ds[1]), game.parse_rules(ds[0]["rules"]))
    for d in ds[2:116]:
        st = game.apply(st, parse_event(d))
    assert st.wall.remaining == 3

    def refused(d: dict[str, Any]) -> str:
        with pytest.raises(Illegal) as ei:
            game.apply(st, parse_event({"match_id": ds[0]["match_id"], "seq": 116, **d}))
        return f"{ei.value.code} {ei.value.message}"

    assert refused({"type": "draw", "seat": 1, "tile": "7s"}).startswith("illegal_move SC-R15 seat 1 must hu 4p (last four tiles), not draw")
    assert refused({"type": "peng", "seat": 2, "tile": "4p"}).startswith("illegal_move SC-R15 seat 1 must hu 4p")
    assert game._must_win(st) == [1]
    st = game.apply(st, parse_event(ds[116]))
    assert st.wins[1] and st.hus == (1,)
    assert refused({"type": "draw", "seat": 3, "tile": "7s"}).startswith("not_your_turn SC-R16 seat 2 draws next, not seat 3")
    st = game.apply(st, parse_event(ds[117]))
    assert (st.stage, st.turn) == ("act", 2)


def play_out(rules: dict[str, Any]) -> Log:
    """Table A with the only 2p of the wall as its last tile: seat 0 discards 5p (passed), then each
    seat discards the tile it draws, 55 draws from seat 1 on; the 55th (R = 0) is seat 3's 2p, which
    it discards: seat 2 (11p 34p 789p 234m 678m, waits 2p / 5p) can win it."""
    lg = Log(A_HANDS, A_VOIDS, tail="2p", rules=rules).x(0, "5p")
    order = [k for k in lg.st.wall.tiles]
    for i, k in enumerate(order):
        s = (1 + i) % 4
        lg.d(s, tile_name(k))
        if i < len(order) - 1:
            lg.x(s, tile_name(k))
    assert lg.st.wall.remaining == 0 and lg.st.turn == 3
    return lg.x(3, "2p")


def test_last_discard_without_last_four_rule() -> None:
    """SC-R22 with `last_four_auto_hu = false`: the hand ends at the last discard (R = 0) and only a
    `hu` on it may follow; no draw is left (wrong_draw), no peng at R = 0; seat 2's hu ends it."""
    lg = play_out({"last_four_auto_hu": False})
    game = XUEZHAN
    hu = parse_event({"match_id": "m", "seq": lg.seq, "type": "hu", "seat": 2, "tile": "2p"})
    draw = parse_event({"match_id": "m", "seq": lg.seq, "type": "draw", "seat": 0, "tile": "2p"})
    assert game.is_finished(lg.st) and game.continues_after_end(lg.st, hu) and not game.continues_after_end(lg.st, draw)
    lg.refuse("wrong_draw", ("SC-R22", "the wall is empty"), "draw", seat=0, tile="2p")
    lg.hu(2, "2p")
    assert lg.st.ended and lg.st.phase == "end"
    lg.refuse("after_end", ("SC-R21/R22", "hu after the hand ended"), "hu", seat=1, tile="2p")


def test_last_discard_with_last_four_rule() -> None:
    """SC-R15 (default on): at R = 0 seat 2 must hu seat 3's 2p; the hand is not over before it."""
    lg = play_out({})
    game = XUEZHAN
    hu = parse_event({"match_id": "m", "seq": lg.seq, "type": "hu", "seat": 2, "tile": "2p"})
    assert not game.is_finished(lg.st) and not game.continues_after_end(lg.st, hu)
    lg.refuse("illegal_move", ("SC-R15", "seat 2 must hu 2p (last four tiles), not draw"), "draw", seat=0, tile="2p")
    lg.hu(2, "2p")
    assert lg.st.ended


def test_void_helpers_edge_tiles() -> None:
    """SC-H1/SC-R6 by hand: a lone 1p is a p tile (suit 1 = kinds 9..17), a peng of 1s is an s meld."""
    from engine.mahjong.core import Meld
    from engine.mahjong.sichuan import _has_void, is_sichuan_win
    from engine.tiles import counts_of

    assert _has_void(counts_of(parse_hand("1p")), 1) and not _has_void(counts_of(parse_hand("9p")), 2)
    assert not _has_void(counts_of(parse_hand("1s")), 1) and _has_void(counts_of(parse_hand("9m")), 0)
    c = counts_of(parse_hand("1m2m3m4m5m6m7m8m9m5p5p"))
    assert is_sichuan_win(c, [Meld("peng", parse_hand("1s")[0], 1)], 2) is False
    assert is_sichuan_win(c, [Meld("peng", parse_hand("1p")[0], 1)], 2) is True
