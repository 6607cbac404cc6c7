"""Mutation-killing tests for the shared claim flow's refusals (engine/mahjong/claimflow.py, issue 17).

Each case takes a golden log of a worked example (tests/data/golden, HZ-E* / AS-E*), keeps the
events before seq n, and applies one more event by hand. The expected error code is the one
docs/rules/README.md gives for the situation, the rule id and key words are the rule files' (the
step of the flow that refuses: HZ-R3 to act, HZ-R4 discard, HZ-R5 claim window, HZ-R6 peng, HZ-R7
zhi gang, HZ-R8 an gang, HZ-R10 self-draw, HZ-R11 rob, HZ-R12 draw, HZ-C4 the wall head; AS-R* the
same steps in anshun.md). The tiles quoted are read from the log's deal and draws.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.errors import Illegal
from engine.mahjong.anshun import ANSHUN
from engine.mahjong.claimflow import ClaimGame, Table
from engine.mahjong.hongzhong import HONGZHONG
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"


def state(name: str, n: int, **rules: Any) -> tuple[ClaimGame, Table]:
    """The game and its state after the golden log's events of seq < n (rules overridden)."""
    lines = [json.loads(x) for x in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]
    game: ClaimGame = HONGZHONG if lines[0]["game"] == "hongzhong" else ANSHUN
    started = parse_line(json.dumps({**lines[0], "rules": {**lines[0]["rules"], **rules}}))
    dealt = parse_line(json.dumps(lines[1]))
    s = game.start(started, dealt, game.parse_rules(started.rules))
    for e in lines[2:]:
        if e["type"] == "settled" or e["seq"] >= n:
            break
        s = game.apply(s, parse_line(json.dumps(e)))
    return game, s


def ev(s: Table, type: str, seat: int, tile: str | None = None, kind: str | None = None) -> SimpleNamespace:
    d: dict[str, Any] = {"seq": s.seq + 1, "type": type, "seat": seat}
    if tile is not None:
        d["tile"] = tile
    if kind is not None:
        d["kind"] = kind
    return SimpleNamespace(**d)


def refused(game: ClaimGame, s: Table, e: SimpleNamespace, code: str, rule: str, *words: str) -> None:
    with pytest.raises(Illegal) as info:
        game.apply(s, e)
    assert info.value.code == code, info.value.message
    assert info.value.message.startswith(rule), info.value.message
    for w in words:
        assert w in info.value.message, info.value.message


E1 = "hongzhong_e1_zimo_wild"  # dealer 0; seat 1 = 234m 56p 99p 111s 88s 7z; wall 7p 5s 3m 7z ...
E2 = "hongzhong_e2_an_gang_jia_ma"  # seat 2 an gangs 6m at seq 6; wall 1m 6m 8s 9m ...; tail 7z
E3 = "hongzhong_e3_qiang_gang"  # seat 0 pengs 4s (seq 3), bu gangs it (seq 12), seat 3 robs
E8 = "hongzhong_e8_two_robbers"  # seat 1 bu gangs 5p at seq 12, seats 2 and 3 rob
A1 = "anshun_e1_zimo_chong_feng_ji"  # dealer 0 discards 1s at seq 2
A3 = "anshun_e3_qiang_gang_qing_yi_se"  # seat 3 bu gangs 8m at seq 12, seat 1 robs

CASES: list[tuple[str, int, dict[str, Any], tuple[Any, ...], str, str, tuple[str, ...]]] = [
    # --- the dealer to act on its first turn (HZ-R2 / HZ-R3); seat 0 = 2m6m8m 1p2p4p5p6p6p9p 1s2s2s4s
    (E1, 2, {}, ("draw", 0, "7p"), "illegal_move", "HZ-R3", ("holds 14 tiles", "must act")),
    (E1, 2, {}, ("draw", 1, "7p"), "not_your_turn", "HZ-R12", ("seat 1 may not draw now", "seat 0 is to act")),
    (E1, 2, {}, ("discard", 1, "2m"), "not_your_turn", "HZ-R3", ("seat 0 is to act, not seat 1",)),
    (E1, 2, {}, ("discard", 0, "3m"), "not_in_hand", "HZ-R4", ("seat 0 has no 3m",)),
    (E1, 2, {}, ("peng", 1, "2m"), "illegal_claim", "HZ-R5", ("outside a claim window",)),
    (E1, 2, {}, ("gang", 1, "2m", "zhi"), "illegal_claim", "HZ-R5", ("outside a claim window",)),
    (E1, 2, {}, ("hu", 1, "2m"), "illegal_claim", "HZ-R10", ("seat 0 is to act", "no tile to claim")),
    (E1, 2, {}, ("hu", 0, "3m"), "not_in_hand", "HZ-R10", ("seat 0 does not hold 3m",)),
    (E1, 2, {}, ("hu", 0, "2m"), "not_a_win", "HZ-H1", ("is not a winning hand",)),
    (E1, 2, {}, ("gang", 0, "2s", "an"), "not_in_hand", "HZ-R8", ("holds 2 copies, needs 4",)),
    (E1, 2, {}, ("gang", 1, "2s", "an"), "not_your_turn", "HZ-R3", ("seat 0 is to act, not seat 1",)),
    # --- the claim window after discard {0, 6p} (HZ-R5); seat 1 holds one 6p
    (E1, 3, {}, ("draw", 2, "7p"), "not_your_turn", "HZ-R12", ("seat 1 draws next, not seat 2",)),
    (E1, 3, {}, ("draw", 1, "5s"), "wrong_draw", "HZ-C4", ("head tile is 7p, not 5s",)),
    (E1, 3, {}, ("peng", 1, "6p"), "not_in_hand", "HZ-R6", ("seat 1 holds 1 copies, needs 2",)),
    (E1, 3, {}, ("peng", 0, "6p"), "illegal_claim", "HZ-R6", ("cannot claim its own discard",)),
    (E1, 3, {}, ("peng", 1, "5p"), "illegal_claim", "HZ-R5", ("the discard is 6p, not 5p",)),
    (E1, 3, {}, ("gang", 1, "6p", "zhi"), "not_in_hand", "HZ-R7", ("seat 1 holds 1 copies, needs 3",)),
    (E1, 3, {}, ("gang", 0, "6p", "zhi"), "illegal_claim", "HZ-R7", ("cannot claim its own discard",)),
    (E1, 3, {}, ("hu", 1, "5p"), "illegal_claim", "HZ-R5", ("the discard tile is 6p, not 5p",)),
    (E1, 3, {}, ("hu", 0, "6p"), "illegal_claim", "HZ-R5", ("cannot win on its own discard",)),
    (E1, 3, {}, ("discard", 1, "2m"), "not_your_turn", "HZ-R3", ("seat 1 cannot discard", "not its turn")),
    (E1, 3, {}, ("gang", 1, "1s", "an"), "not_your_turn", "HZ-R3", ("an gang by seat 1 during the claim window of 6p",)),
    (E1, 3, {}, ("gang", 0, "2s", "an"), "not_your_turn", "HZ-R3", ("seat 0 cannot an gang",)),
    # --- after its own draw 7p, seat 1 may hu only with the drawn tile (HZ-R10; forced_zimo off)
    (E1, 4, {"forced_zimo": False}, ("hu", 1, "5p"), "illegal_move", "HZ-R10", ("must be the drawn tile 7p, not 5p",)),
    # --- after seat 0's peng of 4s (HZ-R3: discard only); seat 0 = 3m4m6m6m8m 1p6p9p 1s2s 6s
    (E3, 4, {}, ("hu", 0, "6s"), "illegal_move", "HZ-R3", ("may only discard after its peng",)),
    (E3, 4, {}, ("gang", 0, "6m", "an"), "illegal_move", "HZ-R3", ("just made a peng", "may only discard")),
    (E3, 4, {}, ("draw", 0, "7m"), "illegal_move", "HZ-R3", ("must act",)),
    # --- the rob window after seat 0's bu gang of 4s (HZ-R11); wall head 2p, tail 7p
    (E3, 13, {}, ("hu", 0, "4s"), "illegal_claim", "HZ-R11", ("cannot win on its own kong",)),
    (E3, 13, {}, ("hu", 3, "5s"), "illegal_claim", "HZ-R11", ("the kong tile is 4s, not 5s",)),
    (E3, 13, {}, ("draw", 1, "2p"), "not_your_turn", "HZ-R12", ("seat 0 draws next, not seat 1",)),
    (E3, 13, {}, ("draw", 0, "7p"), "wrong_draw", "HZ-C4", ("head tile is 2p, not 7p",)),
    (E3, 13, {"replacement_from": "tail"}, ("draw", 0, "2p"), "wrong_draw", "HZ-C4", ("tail tile is 7p, not 2p",)),
    (E3, 13, {}, ("peng", 2, "4s"), "illegal_claim", "HZ-R5", ("outside a claim window",)),
    (E3, 13, {}, ("discard", 0, "6s"), "not_your_turn", "HZ-R3", ("seat 0 cannot discard",)),
    # --- a second robber must be later in turn order from the kong seat + 1 (HZ-R11, HZ-E8)
    (E8, 14, {}, ("hu", 2, "5p"), "illegal_claim", "HZ-R11", ("hu by seat 2 out of turn order after seat 2",)),
    (E8, 14, {}, ("draw", 1, "2s"), "not_your_turn", "HZ-R12", ("seat 1 may not draw now",)),
    # --- the replacement draw owed after seat 2's an gang of 6m (HZ-R8); wall head 8s, tail 7z
    (E2, 7, {}, ("hu", 2, "6m"), "illegal_claim", "HZ-R12", ("seat 2 must draw its replacement tile first",)),
    (E2, 7, {}, ("discard", 2, "2m"), "not_your_turn", "HZ-R3", ("seat 2 cannot discard",)),
    (E2, 7, {}, ("draw", 3, "8s"), "not_your_turn", "HZ-R12", ("seat 2 draws next, not seat 3",)),
    (E2, 7, {}, ("draw", 2, "9m"), "wrong_draw", "HZ-C4", ("head tile is 8s, not 9m",)),
    (E2, 7, {"replacement_from": "tail"}, ("draw", 2, "8s"), "wrong_draw", "HZ-C4", ("tail tile is 7z, not 8s",)),
    # --- anshun: the same steps under AS rule ids (AS-R2, AS-R4, AS-R5, AS-R11, AS-R15)
    (A1, 2, {}, ("draw", 1, "6s"), "not_your_turn", "AS-R15", ("seat 1 may not draw now",)),
    (A1, 2, {}, ("discard", 0, "7z"), "not_in_hand", "AS-C1", ("7z is not a tile of anshun",)),
    (A1, 2, {}, ("hu", 1, "1s"), "illegal_claim", "AS-R14", ("no tile to claim",)),
    (A1, 2, {}, ("peng", 1, "2m"), "illegal_claim", "AS-R4", ("outside a claim window",)),
    (A1, 2, {}, ("gang", 0, "2s", "bu"), "illegal_move", "AS-R10", ("seat 0 has no peng of 2s",)),
    (A1, 3, {}, ("hu", 1, "2s"), "illegal_claim", "AS-R5", ("the discard tile is 1s, not 2s",)),
    (A1, 3, {}, ("hu", 0, "1s"), "illegal_claim", "AS-R5", ("cannot win on its own discard",)),
    (A1, 3, {}, ("draw", 1, "1m"), "wrong_draw", "AS-C4", ("head tile is 6s, not 1m",)),
    (A1, 3, {}, ("peng", 2, "1s"), "not_in_hand", "AS-R7", ("seat 2 holds 0 copies, needs 2",)),
    (A1, 3, {}, ("gang", 3, "1s", "zhi"), "not_in_hand", "AS-R8", ("seat 3 holds 0 copies, needs 3",)),
    (A1, 3, {}, ("hu", 2, "1s"), "not_a_win", "AS-H1", ("seat 2", "is not a winning hand")),
    (A3, 13, {}, ("hu", 3, "8m"), "illegal_claim", "AS-R11", ("cannot win on its own kong",)),
    (A3, 13, {}, ("hu", 2, "8m"), "not_a_win", "AS-H1", ("seat 2",)),
    (A3, 14, {}, ("hu", 0, "8m"), "illegal_claim", "AS-R11", ("hu by seat 0 out of turn order after seat 1",)),
    (A3, 14, {"yi_pao_duo_xiang": False}, ("hu", 2, "8m"), "illegal_claim", "AS-R11", ("only one hu on a tile", "already won by seat 1")),
    # --- anshun bu gang needs the 4th copy (AS-R10); seat 3 pengs 8m at seq 3, then holds no 8m
    (A3, 4, {}, ("gang", 3, "8m", "bu"), "illegal_move", "AS-R2", ("just made a peng",)),
    (A3, 12, {}, ("gang", 3, "3m", "bu"), "illegal_move", "AS-R10", ("no peng of 3m",)),
]


@pytest.mark.parametrize(("name", "n", "rules", "event", "code", "rule", "words"), CASES)
def test_refusal(name: str, n: int, rules: dict[str, Any], event: tuple[Any, ...], code: str, rule: str, words: tuple[str, ...]) -> None:
    game, s = state(name, n, **rules)
    refused(game, s, ev(s, *event), code, rule, *words)


def test_legal_counterparts() -> None:
    """The same positions accept the legal event: the wall's tail under replacement_from = tail
    (HZ-C4: E3's tail is 7p, E2's 7z), the second robber in turn order (HZ-E8: 2 then 3), a rob
    in turn order after the kong seat + 1 with several robbers allowed (AS-R11)."""
    game, s = state(E3, 13, replacement_from="tail")
    t = game.apply(s, ev(s, "draw", 0, "7p"))
    assert (t.phase, t.turn, t.kongs[-1].confirmed) == ("act", 0, True)
    # the tail draw leaves the head (2p) for the next normal draw; the tail is now 9p (E3 ends 7z 9p 7p)
    assert (t.wall.remaining, t.wall.peek(False), t.wall.peek(True)) == (s.wall.remaining - 1, game_tile("2p"), game_tile("9p"))
    game, s = state(E2, 7, replacement_from="tail")
    t = game.apply(s, ev(s, "draw", 2, "7z"))
    assert (t.phase, t.turn, t.drew) == ("act", 2, True)
    game, s = state(E8, 14)
    t = game.apply(s, ev(s, "hu", 3, "5p"))
    assert [w.seat for w in t.wins] == [2, 3]


def test_claim_window_after_a_hu_refuses_peng_and_zhi() -> None:
    """AS-R7 / AS-R8: no peng or zhi gang of a tile already won. After seat 1's rob of 8m (AS-E3)
    AS-E7's hu 1 6m on seat 2's discard, then peng 6m by seat 3 or zhi gang by seat 0 is refused
    (the won check comes before the count of copies held)."""
    game, s = state("anshun_e7_dian_dou_re_pao_jin_ji", 15)
    refused(game, s, ev(s, "peng", 3, "6m"), "illegal_claim", "AS-R7", "6m was already won: no peng")
    refused(game, s, ev(s, "gang", 0, "6m", "zhi"), "illegal_claim", "AS-R8", "6m was already won: no gang")


def test_draw_with_no_tile_left_is_wrong_draw() -> None:
    """AS-R15: a draw needs R >= 1. AS-E6 ends with seat 1's discard 8p at R = 0 (荒庄, AS-R16): a
    draw by the next seat 2 is refused, `no tile may be drawn: 0 left, reserve 0`."""
    game, s = state("anshun_e6_huang_zhuang_jiao_pai", 113)
    assert s.wall.remaining == 0 and s.done
    refused(game, s, ev(s, "draw", 2, "1m"), "wrong_draw", "AS-R15", "no tile may be drawn: 0 left, reserve 0")


def test_apply_memo_is_per_state_and_event() -> None:
    """The last-apply memo returns the same result only for the same state object and the same
    event: the same discard applied to another state where it is illegal is still refused, and
    another discard on the same state gives another state (HZ-R4)."""
    game, s0 = state(E1, 2)
    a = game.apply(s0, ev(s0, "discard", 0, "6p"))
    assert game.apply(s0, ev(s0, "discard", 0, "6p")) is a
    b = game.apply(s0, ev(s0, "discard", 0, "2m"))
    assert b.tile != a.tile and b.discards[0] == (game_tile("2m"),)
    _, s1 = state(E1, 3)
    refused(game, s1, ev(s0, "discard", 0, "6p"), "not_your_turn", "HZ-R3")


def game_tile(name: str) -> int:
    from engine.tiles import tile_id

    return tile_id(name)


def test_expected_drawer() -> None:
    """HZ-R12 / AS-R15: (k+1) mod 4 after an unclaimed discard, the kong seat (replacement) after a
    kong, nobody while a seat is to act or after a won tile."""
    game, s = state(E1, 3)
    assert game._expected_drawer(s) == (1, False)
    _, s = state(E3, 13)
    assert game._expected_drawer(s) == (0, True)
    _, s = state(E2, 7)
    assert game._expected_drawer(s) == (2, True)
    _, s = state(E1, 2)
    assert game._expected_drawer(s) is None
    _, s = state(E8, 14)
    assert game._expected_drawer(s) is None
    g, s = state("anshun_e7_dian_dou_re_pao_jin_ji", 15)
    assert g._expected_drawer(s) is None


def test_order_ok() -> None:
    """Several hu on one tile in turn order from the kong seat + 1 (HZ-R11): kong seat 1 → 2, 3, 0.
    After seat 2's rob: 3 and 0 may follow, 2 may not; with no win yet anyone may."""
    game, s = state(E8, 13)
    assert all(game._order_ok(s, j) for j in (0, 2, 3))
    _, s = state(E8, 14)
    assert [game._order_ok(s, j) for j in range(4)] == [True, False, False, True]


def test_base_continues_after_end() -> None:
    """The shared rule (anshun): after the end only a `hu` continues: on the same discard / kong
    (AS-R4 several winners, AS-R16 a hu on the R = 0 discard) or a self-draw not yet made."""
    game, s = state("anshun_e6_huang_zhuang_jiao_pai", 113)
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace(type="hu")) is True
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace(type="draw")) is False
    _, s = state(A3, 14)
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace(type="hu")) is True
    _, s = state(A1, 13)  # after seat 1's self-draw hu: phase act, a win
    assert s.done and s.phase == "act"
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace(type="hu")) is False
    _, s = state(A1, 12)  # seat 1 to act after its draw, no win
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace(type="hu")) is True
    assert ClaimGame.continues_after_end(game, s, SimpleNamespace()) is False


def test_state_keeps_the_last_seq() -> None:
    """The state carries the seq of the last event applied (HZ-R1 reads it: the four-红中 hu must be
    the hand's first event, seq 2 after the deal at seq 1): HZ-E1 after seq 2 and 3."""
    _, s = state(E1, 3)
    assert s.seq == 2
    _, s = state(E1, 4)
    assert s.seq == 3


def test_claimed_discard_leaves_the_discard_row() -> None:
    """HZ-R6 / AS-R8: a claimed discard becomes part of the claimer's meld, so it leaves the
    discarder's row (the table the bot reads, `visible`): HZ-E3 seat 0 pengs seat 1's 4s (row of
    seat 1 empty, the peng records its feeder 1); AS-E7 seat 2 zhi gangs seat 0's 7s (seat 0's row
    keeps only its earlier 1s; the kong is gang_zhi 7s fed by seat 0)."""
    from engine.mahjong.core import Meld

    _, s = state(E3, 4)
    assert s.discards[1] == ()
    assert s.melds[0] == (Meld("peng", game_tile("4s"), 1),)
    _, s = state("anshun_e7_dian_dou_re_pao_jin_ji", 12)
    assert s.discards[0] == (game_tile("1s"),)
    assert s.melds[2] == (Meld("gang_zhi", game_tile("7s"), 0),)


def test_bu_gang_meld() -> None:
    """HZ-R9: the bu gang upgrades the peng in place: gang_bu 4s, fed by seat 1 as the peng was (HZ-E3)."""
    from engine.mahjong.core import Meld

    _, s = state(E3, 13)
    assert s.melds[0] == (Meld("gang_bu", game_tile("4s"), 1),)


def test_order_ok_wraps_around() -> None:
    """Turn order from the discarder / kong seat + 1 wraps (AS-R4, HZ-R11): from seat 3 it is 0, 1, 2,
    so after seat 1's hu seat 2 may follow and seat 0 may not (a pure check on turn and wins)."""
    from engine.mahjong.claimflow import Win, replace

    game, s = state(E8, 14)
    s = replace(s, turn=3, wins=(Win(1, s.tile, "qianggang", 3, 14),))
    assert [game._order_ok(s, j) for j in (0, 2)] == [False, True]


def test_robbed_bu_gang_is_void() -> None:
    """HZ-R11 / AS-R11: a robbed bu gang is void, the robbed seat keeps its 3-tile peng: after seat
    3's rob in HZ-E3, seat 0 shows peng 4s (fed by seat 1) and no kong stands."""
    from engine.mahjong.core import Meld

    _, s = state(E3, 14)
    assert s.melds[0] == (Meld("peng", game_tile("4s"), 1),)
    assert s.kongs == ()
