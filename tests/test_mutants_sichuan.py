"""Mutation-killing tests for Sichuan settlement (issue 17): the settlement record's event indexes
(SC-S11), the 3rd win on a discard (SC-R21), two wins on the last discard (SC-R22), the first winner
as next dealer (SC-R23), the rob leaving a peng (SC-R13). Expected values come from the log text and
from sichuan.md by hand (arithmetic in each docstring), never from the engine's output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sichuan_builder import Builder

from engine.mahjong.sichuan import XUELIU, XUEZHAN
from engine.replay import replay
from events.codec import parse_line, read_log

GOLDEN = Path(__file__).parent / "data" / "golden"
NAMES = sorted(p.name[len("sichuan_") : -len(".jsonl")] for p in GOLDEN.glob("sichuan_*.jsonl"))
PLAY = ("draw", "discard", "peng", "gang", "hu")


def _events(name: str) -> list[Any]:
    return [ln.event for ln in read_log(GOLDEN / f"sichuan_{name}.jsonl")]  # type: ignore[union-attr]


@pytest.mark.parametrize("name", NAMES)
def test_every_flow_names_the_event_it_comes_from(name: str) -> None:
    """SC-S11: every flow carries its event index. Read from the log itself: a gang_* flow is the seq of
    that seat's `gang` of that tile (and names the tile); a win flow the seq of one of the winner's `hu`;
    hu_zhuanyi (SC-S5) also names, as gang_seq, the discarder's last `gang` before the win; the end-of-hand
    checks (SC-S7..S9) carry the seq of the hand's last play event (SC-R22: the hand ends after the last
    discard and any hu on it), tui_shui also the refunded gang's seq."""
    evs = _events(name)
    r = replay(evs)
    assert r.error is None and r.status == "finished"
    gangs = {(e.seat, e.tile): e.seq for e in evs if e.type == "gang"}
    kinds = {(e.seat, e.tile): e.kind for e in evs if e.type == "gang"}
    hus: dict[int, list[int]] = {}
    for e in evs:
        if e.type == "hu":
            hus.setdefault(e.seat, []).append(e.seq)
    last = max(e.seq for e in evs if e.type in PLAY)
    assert r.items
    for it in r.items:
        k = it["kind"]
        if k.startswith("gang_"):
            g = gangs[(it["seat"], it["tile"])]
            # a bu gang pays when its replacement draw confirms it (SC-R12): that draw's index is accepted too
            assert it["seq"] in ((g, g + 1) if kinds[(it["seat"], it["tile"])] == "bu" else (g,)), it
        elif k in ("hu_zimo", "hu_dianpao", "hu_qianggang", "hu_zhuanyi"):
            assert it["seq"] in hus[it["seat"]], it
            if k == "hu_zhuanyi":
                before = [q for (s, _t), q in gangs.items() if s == it["from"] and q < it["seq"]]
                assert it["gang_seq"] == max(before), it
        else:
            assert k in ("hua_zhu", "da_jiao", "tui_shui"), it
            assert it["seq"] == last, it
            if k == "tui_shui":
                assert it["gang_seq"] in [q for (s, _t), q in gangs.items() if s == it["from"]], it
    for s, seqs in hus.items():  # every hu event has its flow(s)
        for q in seqs:
            assert any(it["seq"] == q and it["seat"] == s for it in r.items), (s, q)
    keys = {
        "gang": {"seq", "tile"}, "hu_zhuanyi": {"seq", "gang_seq"}, "win": {"seq", "fans", "fan", "multiplier"},
        "hua_zhu": {"seq"}, "da_jiao": {"seq", "fan"}, "tui_shui": {"seq", "gang_seq"},
    }  # fmt: skip
    for it in r.items:
        k = it["kind"]
        want = keys["gang" if k.startswith("gang_") else "win" if k in ("hu_zimo", "hu_dianpao", "hu_qianggang") else k]
        assert set(it) == {"kind", "seat", "from", "points", *want}, it
        if "multiplier" in it:  # SC-H8: M = 2^(F' - z), a power of two
            assert it["multiplier"] >= 1 and it["multiplier"] & (it["multiplier"] - 1) == 0, it


def _finish(b: Builder, deltas: list[int]) -> Any:
    return replay([parse_line(x.encode()) for x in b.lines(deltas)])


S2 = "1p2p3p 4p5p6p 7p8p9p 3s4s 6s6s"  # void m, waits 2s/5s: with 5s 123p 456p 789p 345s 66s, ping_hu 1
S3 = "1s1s1s 3s4s 7s8s9s 6p7p8p 9p9p"  # void m, waits 2s/5s: with 5s 111s 345s 789s 678p 99p, ping_hu 1


def _seat0_wins_then_seat1_discards_5s(name: str, reserve: str) -> Builder:
    """Seat 0 discards 9s, self-draws 4p (ping_hu + zi_mo); seat 1 draws 9m and discards 5s."""
    b = Builder(name, "sichuan_xuezhan", {"preset": "standard"}, 0,
                ["1m2m3m 4m5m6m 7m8m9m 2p3p 5p5p 9s", "junk:ms:5s", S2, S3], "spmm", reserve=reserve)  # fmt: skip
    b.do("discard", 0, "9s")
    b.fill_until(0)
    b.draw(0, "4p")
    b.do("hu", 0, "4p")
    b.draw(1, "9m")
    b.do("discard", 1, "5s")
    return b


def test_third_win_on_a_discard_ends_the_hand_and_the_first_winner_deals() -> None:
    """SC-R21 + SC-R23. Seat 0 (void s) discards 9s, later self-draws 4p on 123m 456m 789m 2p3p 55p:
    ping_hu 1 + zi_mo 1 = 2, M = 2, seats 1, 2, 3 pay 2 each (SC-S2). Seat 1 (next after the winner,
    SC-R20) draws 9m and discards 5s; seats 2 and 3 both win it (ping_hu 1, M = 1, seat 1 pays 1 each,
    SC-S3): three seats have won, the hand ends (SC-R21) with no checks.
    Δ = [+6, -2 - 2, -2 + 1, -2 + 1] = [6, -4, -1, -1]. Next dealer: seat 0, the first winner, not the
    discarder of the 一炮多响 (that rule is for the hand's *first* win event) nor the later winners."""
    b = _seat0_wins_then_seat1_discards_5s("m-third", "4p 9m")
    b.do("hu", 2, "5s")
    b.do("hu", 3, "5s")
    v = XUEZHAN.view(b.state)
    assert v["phase"] == "end"
    assert v["next_dealer"] == 0
    assert v["pass_locks"][2] == -1 and v["pass_locks"][3] == -1  # neither passed a win (SC-R17)
    r = _finish(b, [6, -4, -1, -1])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [6, -4, -1, -1]
    assert r.settlement_matches is True


def test_later_wins_keep_the_first_winner_as_next_dealer() -> None:
    """SC-R23 + SC-R20/R21. As above, but only seat 2 takes the 5s (seat 3 passes): seat 1 pays seat 2
    1. Seat 3 (next after the last winner) draws 2s and self-draws 111s 234s 789s 678p 99p: ping_hu 1 +
    zi_mo 1 = 2, M = 2, paid by the one other active seat, 1 (SC-S2). Three have won: the hand ends.
    Δ = [+6, -2 - 1 - 2, -2 + 1, -2 + 2] = [6, -5, -1, 0]; next dealer seat 0, the first winner."""
    b = _seat0_wins_then_seat1_discards_5s("m-later", "4p 9m 2s")
    b.do("hu", 2, "5s")
    b.draw(3, "2s")
    b.do("hu", 3, "2s")
    v = XUEZHAN.view(b.state)
    assert v["phase"] == "end" and v["next_dealer"] == 0
    r = _finish(b, [6, -5, -1, 0])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [6, -5, -1, 0]


def test_two_wins_on_the_last_discard_then_the_checks() -> None:
    """SC-R22 with 一炮多响: seat 3 draws the last tile (R = 0) and discards 5s; seats 0 and 1 both win
    it (SC-R15 makes both compulsory; ping_hu 1, M = 1: seat 3 pays 1 to each). Only then does the hand
    end and the checks run over the unwon seats 2 and 3 (SC-S7..S9): seat 2 (void s, 123m 456m 789m
    2p3p 55p) is ready, waits 1p/4p, F_ting = ping_hu 1 → M = 2^(1-1) = 1; seat 3 (junk, not ready, no
    void tile) pays seat 2 da_jiao 1 (SC-S8). No kongs, no refunds. Δ = [+1, +1, +1, -3]."""
    b = Builder("m-lastpair", "sichuan_xuezhan", {"preset": "standard"}, 0,
                [S2 + " 9m", S3, "1m2m3m 4m5m6m 7m8m9m 2p3p 5p5p", "junk:ms:5s"], "mmsp", reserve="9m")  # fmt: skip
    b.do("discard", 0, "9m")
    b.fill_until(3, remaining=1, use_passes=True)
    b.draw(3, "9m")
    assert b.state.wall.remaining == 0
    b.do("discard", 3, "5s")
    b.do("hu", 0, "5s")
    b.do("hu", 1, "5s")
    assert b.state.ended
    r = _finish(b, [1, 1, 1, -3])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [1, 1, 1, -3]
    got = sorted((i["kind"], i["seat"], i["from"], i["points"]) for i in r.items)
    assert got == [("da_jiao", 2, 3, 1), ("hu_dianpao", 0, 3, 1), ("hu_dianpao", 1, 3, 1)]


def test_a_robbed_kong_leaves_the_peng_and_the_robber_never_passed() -> None:
    """SC-R13 on SC-E3: after `hu {3,"5p"}` robs seat 2's bu gang, seat 2 keeps the 3-tile peng of 5p
    (fed by seat 1's discard) and no 5p in hand; the robber's winning hand is frozen with the kong tile
    (SC-H1: 13 tiles + the winning tile = 14); seat 3 never passed a win, so it has no pass lock (SC-R17)."""
    evs = _events("e3_rob_bu_gang")
    hu = next(i for i, e in enumerate(evs) if e.type == "hu")
    st = XUEZHAN.start(evs[0], evs[1], XUEZHAN.parse_rules(evs[0].rules))
    for e in evs[2 : hu + 1]:
        st = XUEZHAN.apply(st, e)
    v = XUEZHAN.view(st)
    assert v["melds"][2] == [{"kind": "peng", "tiles": ["5p", "5p", "5p"], "from": 1}]
    assert "5p" not in v["hands"][2]
    assert len(v["hands"][3]) == 14 and v["hands"][3].count("5p") == 1
    assert v["pass_locks"][3] == -1


def test_xueliu_self_draw_sets_the_winning_tile_aside() -> None:
    """SC-R19 on SC-E5: after seat 1's second win (self-drawn 9m) its concealed hand is again the frozen
    13 tiles 1m2m3m 4m5m6m 7m8m 2s2s2s 9s9s (the 9m set aside), and no drawn tile is pending."""
    evs = _events("e5_xueliu_two_wins")
    hu = [i for i, e in enumerate(evs) if e.type == "hu"][1]
    assert (evs[hu].seat, evs[hu].tile) == (1, "9m")
    st = XUELIU.start(evs[0], evs[1], XUELIU.parse_rules(evs[0].rules))
    for e in evs[2 : hu + 1]:
        st = XUELIU.apply(st, e)
    v = XUELIU.view(st)
    assert v["hands"][1] == ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "2s", "2s", "2s", "9s", "9s"]
    assert v["drawn"] is None
    assert v["won"][1] == ["6m", "9m"]


@pytest.mark.parametrize(
    ("units", "fan_cap", "z", "want"),
    [
        (16, 0, 1, 16),  # no cap: huazhu_units itself
        (16, 4, 0, 16),  # chengdu default: C = 2^4 = 16, min(16, 16)
        (16, 3, 0, 8),  # C = 2^3 = 8
        (16, 4, 1, 8),  # standard with fan_cap 4: C = 2^(4-1) = 8
        (16, 5, 1, 16),  # C = 16
        (16, 6, 1, 16),  # C = 32 > 16
        (17, 5, 0, 17),  # C = 32 > 17
        (32, 5, 0, 32),  # C = 32 = units
        (33, 5, 0, 32),  # C = 32 < 33
        (3, 1, 1, 1),  # C = 2^0 = 1
        (1, 1, 0, 1),  # C = 2
        (2, 1, 0, 2),  # C = 2
        (5, 2, 0, 4),  # C = 4
        (1000, 40, 1, 1000),  # C = 2^39, far above
    ],
)
def test_flower_pig_penalty_is_capped_by_the_fan_cap(units: int, fan_cap: int, z: int, want: int) -> None:
    """SC-S7: H/b = min(huazhu_units, C), C = 2^(fan_cap − z) if a cap is set (fan_cap > 0), else no
    limit; each row's C is worked out by hand in its comment."""
    from engine.mahjong.sichuan import _huazhu_units

    assert _huazhu_units(units, fan_cap, z) == want


def _ting(preset: str, hand: str, void: str, melds: tuple[tuple[str, str, int], ...] = ()) -> tuple[list[str], int]:
    from engine.mahjong.core import Meld
    from engine.mahjong.sichuan import ting_value
    from engine.tiles import SUITS, counts_of, parse_hand, tile_id, tile_names

    rules = XUEZHAN.parse_rules({"preset": preset})
    ms = [Meld(k, tile_id(t), f) for k, t, f in melds]
    waits, f = ting_value(rules, counts_of(parse_hand(hand)), ms, SUITS.index(void))
    return tile_names(waits), f


def test_a_wait_on_a_kind_held_four_times_does_not_count() -> None:
    """SC-H9: a wait needs a kind the seat does not hold 4 times ("holds" counts melds). Peng 5p + one 5p
    + 123m 456m 789m: the shape waits only on the pair 5p, and all four 5p are held: not ready."""
    assert _ting("standard", "1m2m3m 4m5m6m 7m8m9m 5p", "s", (("peng", "5p", 1),)) == ([], 0)


def test_ting_value_of_a_zero_fan_hand_is_zero() -> None:
    """SC-H9 + SC-H6: chengdu ping_hu is 0 fan, so F_ting of 123m 456m 789m 2p3p 55p (waits 1p, 4p,
    both ping_hu) is 0, and 大叫 pays b·2^(0−0) = b."""
    assert _ting("chengdu", "1m2m3m 4m5m6m 7m8m9m 2p3p 5p5p", "s") == (["1p", "4p"], 0)


def test_waits_next_to_the_void_suit_count() -> None:
    """SC-H9: void m, 123s 456s 789s 2p3p 55p waits on 1p and 4p (the first and fourth tile of the suit
    after the void one); each is ping_hu 1 in standard → F_ting 1."""
    assert _ting("standard", "1s2s3s 4s5s6s 7s8s9s 2p3p 5p5p", "m") == (["1p", "4p"], 1)
    assert _ting("standard", "1m2m3m 4m5m6m 7m8m9m 2s3s 5s5s", "p") == (["1s", "4s"], 1)


def test_no_hai_di_fan_when_the_option_is_off() -> None:
    """SC-H4/SC-H5: hai_di counts only "per option" (default off). Seat 3 draws the last tile 5p and must
    self-draw (SC-R15) 123m 456m 789m 234p 55p: ping_hu 1 + zi_mo 1 = 2, no hai_di; M = 2 from each of
    seats 0, 1, 2 (SC-S2). Δ = [-2, -2, -2, +6]."""
    hands = ["junk:ps:9s", "junk:ms", "junk:ms", "123m456m789m234p5p"]
    b = Builder("m-nohaidi", "sichuan_xuezhan", {"preset": "standard"}, 0, hands, "mpps", reserve="5p")
    b.do("discard", 0, "9s")
    b.fill_until(3, remaining=1, use_passes=True)
    b.draw(3, "5p")
    b.do("hu", 3, "5p")
    b.fill_to_end()
    r = _finish(b, [-2, -2, -2, 6])
    assert r.error is None and r.status == "finished", r.error
    w = [i for i in r.items if i["kind"] == "hu_zimo"]
    assert [i["fans"] for i in w] == [{"ping_hu": 1, "zi_mo": 1}] * 3
    assert r.deltas == [-2, -2, -2, 6]


def test_exhaustion_checks_with_two_flower_pigs_a_ready_seat_and_a_refund() -> None:
    """SC-S6..S9 with every seat unwon (que_discard_first off). Seat 3 declares an gang 7s: seats 0, 1, 2
    pay 2 each. Nobody wins; at the end seat 0 (void m, still holds 1m 5m 9m) and seat 2 (void s, holds
    1s 3s 6s 9s) are 花猪; seat 1 (void s, 123m 456m 789m 2p3p 55p) is ready, F_ting 1; seat 3 (void p,
    1m4m7m 3m6m9m 2s5s8s 9s + gang) is neither.
    SC-S7 H = 16: seats 0 and 2 each pay 16 to seats 1 and 3 (a 花猪 pays no 花猪).
    SC-S8: seat 3 pays seat 1 2^(1−1) = 1. SC-S9: seat 3 refunds 2 to each of 0, 1, 2; 花猪 0 and 2
    received no kong money. Δ0 = −16−16−2+2 = −32, Δ1 = +16+16+1−2+2 = +33, Δ2 = −32, Δ3 = +32−1+6−6 = +31."""
    b = Builder("m-exhaust", "sichuan_xuezhan", {"preset": "standard", "que_discard_first": False}, 0,
                ["1p4p7p 2s5s8s 3p6p9p 1m5m9m 4s 8p", "1m2m3m 4m5m6m 7m8m9m 2p3p 5p5p",
                 "2m5m8m 2p5p8p 3s6s9s 1s 4p 7p 8m", "7s7s7s 1m4m7m 2s5s8s 3m6m9m 9s"],
                "mssp", reserve="7s")  # fmt: skip
    b.do("discard", 0, "8p")
    b.fill_until(3)
    b.draw(3, "7s")
    b.do("gang", 3, "7s", "an")
    b.filler()  # the replacement draw
    b.filler()  # and its discard
    b.fill_to_end()
    assert XUEZHAN.view(b.state)["phase"] == "end"
    deltas = [-32, 33, -32, 31]
    r = _finish(b, deltas)
    assert r.error is None and r.status == "finished", r.error
    got = sorted((i["kind"], i["seat"], i["from"], i["points"]) for i in r.items)
    assert got == sorted(
        [("gang_an", 3, p, 2) for p in (0, 1, 2)]
        + [("hua_zhu", q, p, 16) for p in (0, 2) for q in (1, 3)]
        + [("da_jiao", 1, 3, 1)]
        + [("tui_shui", p, 3, 2) for p in (0, 1, 2)]
    )
    assert r.deltas == deltas


def test_call_transfer_hands_over_only_the_last_gang() -> None:
    """SC-S5 + SC-S9. The dealer (void m) declares an gang 1p on its first turn (SC-R5), draws 6s, an gang
    2p, draws 1s and discards 5s: seats 1, 2, 3 paid 2 per gang each (SC-S6, 6 per gang). Seat 1 (void p,
    123m 456m 789m 3s4s 66s) wins the 5s: ping_hu 1 + gang_shang_pao 1 = 2, M = 2; 呼叫转移 G = what the
    dealer received for the *last* gang (2p) = 6, not its 12 over both gangs. The hand then runs to
    exhaustion: seat 0 (3p 9p 1s 6s 7s8s9s + two gangs) is not ready and refunds its kong income except
    the transferred 2p gang: 2 to each of seats 1, 2, 3 (SC-S9).
    Δ0 = 12 − 2 − 6 − 6 = −2, Δ1 = −4 + 2 + 6 + 2 = +6, Δ2 = Δ3 = −4 + 2 = −2."""
    b = Builder("m-transfer", "sichuan_xuezhan", {"preset": "standard"}, 0,
                ["1p1p1p1p 2p2p2p2p 5s 7s8s9s 3p 9p", "1m2m3m 4m5m6m 7m8m9m 3s4s 6s6s", "junk:ps", "junk:ms"],
                "mpmp", reserve="6s 1s")  # fmt: skip
    b.do("gang", 0, "1p", "an")
    b.draw(0, "6s")
    b.do("gang", 0, "2p", "an")
    b.draw(0, "1s")
    b.do("discard", 0, "5s")
    b.do("hu", 1, "5s")
    b.fill_to_end()
    deltas = [-2, 6, -2, -2]
    r = _finish(b, deltas)
    assert r.error is None and r.status == "finished", r.error
    got = sorted((i["kind"], i["seat"], i["from"], i["points"]) for i in r.items)
    assert got == sorted(
        [("gang_an", 0, p, 2) for p in (1, 2, 3)] * 2
        + [("hu_dianpao", 1, 0, 2), ("hu_zhuanyi", 1, 0, 6)]
        + [("tui_shui", p, 0, 2) for p in (1, 2, 3)]
    )
    assert r.deltas == deltas


def _q(cards: str, preset: str = "standard", **kw: Any) -> dict[str, Any]:
    rules = {"preset": preset, **kw.pop("rules", {})}
    return XUEZHAN.hand({"cards": cards, "rules": rules, **kw})


# (cards, preset, extra query fields, fans): each fan total worked out from sichuan.md SC-H3/H5..H8 by hand
FAN_CASES: list[tuple[str, str, dict[str, Any], dict[str, int]]] = [
    # qing needs every tile of one suit (SC-H3): one 1m, one 1p or one 1s is a second suit
    ("111m123p456p789p55p", "standard", {}, {"ping_hu": 1}),
    ("111p123m456m789m55m", "standard", {}, {"ping_hu": 1}),
    ("111s123m456m789m55m", "standard", {}, {"ping_hu": 1}),
    ("111s234s567s888s99s", "standard", {}, {"qing_yi_se": 3}),  # 1s..9s only: qing (not dui: sequences)
    # yao (SC-H3, SC-A15): every set and the pair hold a 1 or a 9, melds included
    ("123m789p789s11s", "standard", {"melds": "peng:9m"}, {"dai_yao_jiu": 3}),
    ("123m789p789s11s", "standard", {"melds": "peng:1p"}, {"dai_yao_jiu": 3}),
    ("123p789p789s11s", "standard", {"melds": "peng:1m"}, {"dai_yao_jiu": 3}),
    ("123m789m789s123s1p1p", "standard", {}, {"dai_yao_jiu": 3}),  # the pair 1p
    # yi_tiao_long (mianzhu +1): 123 456 789 of one suit, here p
    ("123p456p789p55m234m", "mianzhu", {}, {"ping_hu": 0, "yi_tiao_long": 1}),
    # qia_xin_wu (mianzhu +1, SC-H3): the winning 5 in the middle of a concealed 4-5-6, in any suit; a 6
    # ending 5-6-7 is not it
    ("123m789m456p234s88s", "mianzhu", {"win_tile": "5p"}, {"ping_hu": 0, "qia_xin_wu": 1}),
    ("123m789m567p234s88s", "mianzhu", {"win_tile": "6p"}, {"ping_hu": 0}),
    # jin_gou_diao "per option" (SC-H5, SC-A3): off → never; zimo_only → only self-drawn
    ("5m5m", "standard", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s", "zimo": True, "rules": {"jin_gou_diao": "off"}},
     {"dui_dui_hu": 2, "zi_mo": 1}),
    ("5m5m", "standard", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s", "zimo": True, "rules": {"jin_gou_diao": "zimo_only"}},
     {"dui_dui_hu": 2, "zi_mo": 1, "jin_gou_diao": 1}),
    ("5m5m", "standard", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s", "rules": {"jin_gou_diao": "zimo_only"}},
     {"dui_dui_hu": 2}),
    # SC-H2 tie: 112233m 778899p 11s is dai_yao_jiu 3 (123m 123m 789p 789p 11s) and qi_dui 3; equal F and
    # equal base value → the earlier row of SC-H5, dai_yao_jiu
    ("112233m778899p11s", "standard", {}, {"dai_yao_jiu": 3}),
]  # fmt: skip


@pytest.mark.parametrize(("cards", "preset", "extra", "fans"), FAN_CASES)
def test_fan_edges(cards: str, preset: str, extra: dict[str, Any], fans: dict[str, int]) -> None:
    r = _q(cards, preset, **dict(extra))
    assert r["win"] is True and r["fans"] == fans, r
    assert r["fan"] == sum(fans.values())


def test_a_cap_of_one_fan() -> None:
    """SC-H8: fan_cap 1 > 0 caps F' = min(F, 1): dui_dui_hu 2 → F' = 1 → M = 2^(1−1) = 1; F stays 2."""
    r = _q("111m222m333p444p55p", rules={"fan_cap": 1})
    assert (r["fans"], r["fan"], r["multiplier"]) == ({"dui_dui_hu": 2}, 2, 1)


def test_di_hu_on_a_first_draw_of_1m() -> None:
    """SC-H4 di_hu: seat 1's first draw is 1m (tile id 0), completing 123m 456m 789m 234p 55p: F_hand =
    ping_hu 1 + zi_mo 1 = 2 < T = 6, so F = 6 and fans {di_hu: 6} (SC-H8); M = 32 from seats 0, 2, 3."""
    hands = ["junk:ps:9s", "2m3m4m5m6m7m8m9m 2p3p4p 5p5p", "junk:ms", "junk:ms"]
    b = Builder("m-di1m", "sichuan_xuezhan", {}, 0, hands, "mspp", reserve="1m")
    b.do("discard", 0, "9s")
    b.draw(1, "1m")
    b.do("hu", 1, "1m")
    b.fill_to_end()
    r = _finish(b, [-32, 96, -32, -32])
    w = [i for i in r.items if i["kind"] == "hu_zimo"]
    assert [(i["from"], i["points"], i["fans"]) for i in w] == [(p, 32, {"di_hu": 6}) for p in (0, 2, 3)]
    assert r.deltas == [-32, 96, -32, -32]


def test_tian_hu_off_prices_the_declared_winning_tile() -> None:
    """SC-R14 + SC-H3: on the dealer's first turn the `hu` names the winning tile among the 14. Mianzhu with
    tian_di_hu off: the dealer (void s) holds 2m3m4m 4m5m6m 5p5p5p 6p7p8p 2p2p and declares 5m, the middle
    of 4-5-6m: ping_hu 0 + zi_mo 1 + duan_yao_jiu 1 + qia_xin_wu 1 = 3 → M = 8 from each other seat."""
    hands = ["2m3m4m 4m5m6m 5p5p5p 6p7p8p 2p2p", "junk:mp", "junk:ms", "junk:ps"]
    b = Builder("m-tian-off", "sichuan_xuezhan", {"preset": "mianzhu", "tian_di_hu": False}, 0, hands, "sspm")
    b.do("hu", 0, "5m")
    b.fill_to_end()
    r = _finish(b, [24, -8, -8, -8])
    w = [i for i in r.items if i["kind"] == "hu_zimo"]
    assert [i["fans"] for i in w] == [{"ping_hu": 0, "zi_mo": 1, "duan_yao_jiu": 1, "qia_xin_wu": 1}] * 3
    assert r.deltas == [24, -8, -8, -8]
