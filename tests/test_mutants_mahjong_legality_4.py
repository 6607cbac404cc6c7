"""Mutation-killing tests, part 4: claim flow, Anshun and Hongzhong legality (issue 17).

Each log is built by hand from docs/rules/anshun.md / hongzhong.md: the hands are written out in
the test, the wall is the rest of the tile set (sorted) after the tiles the test puts first, so
the log obeys AS-C3 (hands + wall = the 108-tile set). Expected states and settlement lines are
the rule files' (rule ids in each docstring), not the engine's output.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from engine.errors import Illegal
from engine.mahjong.anshun import ANSHUN
from engine.mahjong.claimflow import ClaimGame, Table
from engine.mahjong.core import Meld
from engine.mahjong.hongzhong import HONGZHONG, hand_wins
from engine.tiles import counts_of, full_set, tile_id, tile_name
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"


def split(text: str) -> list[str]:
    """'2m3m4m' -> ['2m', '3m', '4m']."""
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def deal(hands: list[str], front: str, red: int = 0) -> tuple[list[list[str]], list[str]]:
    """The four hands as written, the wall = `front` then the rest of the set, sorted (AS-C3)."""
    hs = [split(h) for h in hands]
    pool = Counter(tile_name(k) for k in full_set(red=red))
    for t in [x for h in hs for x in h] + split(front):
        pool[t] -= 1
        assert pool[t] >= 0, f"a fifth {t}"
    rest = sorted(pool.elements(), key=tile_id)
    return hs, split(front) + rest


def play(game: ClaimGame, hands: list[list[str]], wall: list[str], events: list[tuple[Any, ...]], **rules: Any) -> Table:
    """Apply the hand-built log: `events` are (type, seat, tile[, kind]) from seq 2 on (dealer 0)."""
    mid = "mutants_mj4"
    started = parse_line(json.dumps({"match_id": mid, "seq": 0, "type": "match_started", "game": game.id, "rules": rules,
                                     "players": ["a", "b", "c", "d"], "dealer": 0, "base": 1}))
    dealt = parse_line(json.dumps({"match_id": mid, "seq": 1, "type": "dealt", "hands": hands, "wall": wall}))
    s = game.start(started, dealt, game.parse_rules(started.rules))
    for i, e in enumerate(events):
        d: dict[str, Any] = {"match_id": mid, "seq": i + 2, "type": e[0], "seat": e[1], "tile": e[2]}
        if len(e) > 3:
            d["kind"] = e[3]
        s = game.apply(s, parse_line(json.dumps(d)))
    return s


# --- two bu gangs by one seat, the second of a 4th copy held since the deal, robbed (claim flow)
# seat 0 holds 2s2s2s and 5p5p5p; seat 1 feeds the 2s and the 5p (their 4th copies stay with seat 0);
# seat 3 waits on 5p: 1m2m3m 4m5m6m 7m8m9m 9s9s 4p6p.
TWO_BU = ["2s2s2s5p5p5p1m9m1p9p3s6s7s8s", "2s5p3p3p4p4s4s6m6m8p8p7p7p", "1s1s5s5s2p2p8m8m9s1m3m5m7m",
          "1m2m3m4m5m6m7m8m9m9s9s4p6p"]


def two_bu_gangs() -> Table:
    """AS-R10: a bu gang needs a peng and the 4th copy concealed, drawn now or earlier. The wall
    starts 1m 2m 3m 4m 5m 6m 7m: seat 1 draws 1m, 2m, 3m (keeps two, discards 3m), seats 2, 3
    draw and discard 4m, 5m, seat 0 draws 6m, bu gangs 2s (seq 18), draws 7m as its replacement
    (seq 19, the 转弯豆 of 2s stands, AS-R10), then bu gangs 5p (seq 20): the drawn tile is 7m, the
    kong tile 5p. Seat 3 robs 5p (seq 21, AS-R11: 456p completes 1m..9m, 9s9s)."""
    hands, wall = deal(TWO_BU, "1m2m3m4m5m6m7m")
    ev = [("discard", 0, "1m"), ("draw", 1, "1m"), ("discard", 1, "2s"), ("peng", 0, "2s"), ("discard", 0, "9m"),
          ("draw", 1, "2m"), ("discard", 1, "5p"), ("peng", 0, "5p"), ("discard", 0, "1p"),
          ("draw", 1, "3m"), ("discard", 1, "3m"), ("draw", 2, "4m"), ("discard", 2, "4m"), ("draw", 3, "5m"),
          ("discard", 3, "5m"), ("draw", 0, "6m"), ("gang", 0, "2s", "bu"), ("draw", 0, "7m"), ("gang", 0, "5p", "bu"),
          ("hu", 3, "5p")]  # fmt: skip
    return play(ANSHUN, hands, wall, ev)


def test_bu_gang_of_a_held_copy_offers_the_kong_tile() -> None:
    """AS-R10 / AS-R11: the tile offered to the robbers is the added tile (5p), not the tile just
    drawn (7m): seat 3's rob of 5p after seat 0's bu gang of its held 5p is legal and wins."""
    s = two_bu_gangs()
    assert [(w.seat, tile_name(w.tile), w.how, w.frm) for w in s.wins] == [(3, "5p", "qianggang", 0)]


def test_robbed_bu_gang_leaves_the_other_kong_standing() -> None:
    """AS-R11: the robbed 转弯豆 is void and the robbed seat keeps its 3-tile peng of 5p; its
    earlier 转弯豆 of 2s (confirmed by the replacement draw at seq 19) is not touched: melds
    gang_bu 2s + peng 5p, both fed by seat 1; one kong stands. AS-S6: the standing 转弯豆 is paid
    `zhuan_wan_dou_units` 1 by each of seats 1, 2, 3; nothing for 5p."""
    s = two_bu_gangs()
    assert s.melds[0] == (Meld("gang_bu", tile_id("2s"), 1), Meld("peng", tile_id("5p"), 1))
    assert [(k.seat, k.kind, tile_name(k.tile), k.confirmed) for k in s.kongs] == [(0, "bu", "2s", True)]
    dou = [(it["seat"], it["from"], it["points"], it["tile"]) for it in ANSHUN.settle(s).items if it["kind"] == "zhuan_wan_dou"]
    assert sorted(dou) == [(0, 1, 1, "2s"), (0, 2, 1, "2s"), (0, 3, 1, "2s")]


# --- the first 1s discard (冲锋鸡, AS-S7 step 6, AS-A10)
# seat 0 (dealer) discards the hand's first 1s at seq 2.
CF_HANDS = ["1s2s2s5p5p5p1m9m1p4p3s6s7s8s", "2m3m4m5m6m7m6p7p8p9p9p2s3s", "1s1s1s2m3m4m5m6m7m6p7p8p9p",
            "1m2m3m4m5m6m7m8m9m9s9s4p6p"]


def test_unclaimed_first_1s_then_a_self_draw_pays_chong_feng_ji() -> None:
    """AS-S7 step 6: seat 0's 1s at seq 2 is the first 1s discard; seat 1 draws 4s (seq 3) and
    self-draws (seq 4: 234m 567m 678p 234s 9p9p, AS-R14). Nobody made a peng, gang or hu on the 1s,
    so 冲锋鸡 is paid: the flip is the head after the win, 5m, so Y = {4m, 6m} (adjacent), 1s ∉ Y:
    each of seats 1, 2, 3 pays seat 0 2."""
    hands, wall = deal(CF_HANDS, "4s5m")
    s = play(ANSHUN, hands, wall, [("discard", 0, "1s"), ("draw", 1, "4s"), ("hu", 1, "4s")])
    assert s.first_1s == (0, 2, False)
    cf = [(it["seat"], it["from"], it["points"]) for it in ANSHUN.settle(s).items if it["kind"] == "chong_feng_ji"]
    assert sorted(cf) == [(0, 1, 2), (0, 2, 2), (0, 3, 2)]


def test_zhi_gang_of_the_first_1s_cancels_chong_feng_ji() -> None:
    """AS-S7 step 6, AS-A10 (没有被碰或杠): seat 2 zhi gangs seat 0's first 1s (seq 3, AS-R8), draws
    9p as its replacement (seq 4) and self-draws (seq 5: gang 1s + 234m 567m 678p 9p9p). The 1s
    was claimed by a gang: no 冲锋鸡 line; the 点豆 is paid by the feeder, seat 0, 1 (AS-S6)."""
    hands, wall = deal(CF_HANDS, "9p5m")
    s = play(ANSHUN, hands, wall, [("discard", 0, "1s"), ("gang", 2, "1s", "zhi"), ("draw", 2, "9p"), ("hu", 2, "9p")])
    assert s.first_1s == (0, 2, True)
    items = ANSHUN.settle(s).items
    assert [it for it in items if it["kind"] == "chong_feng_ji"] == []
    assert [(it["seat"], it["from"], it["points"]) for it in items if it["kind"] == "dian_dou"] == [(2, 0, 1)]


# --- a claim with one tile left (AS-R7 / AS-R8: R >= 1)
def test_peng_with_one_tile_left_is_legal() -> None:
    """AS-R7: peng needs R >= 1. Seat 3 holds 9s9s (TWO_BU); the last 9s is put 54th in the wall.
    Seat 0 discards 1m (seq 2), then every seat draws and discards the drawn tile (摸打); the 54th
    draw, by seat (53 + 1) mod 4 = 2, leaves R = 55 − 54 = 1 and seat 2 discards that 9s: seat 3's
    peng is legal (R = 1), then its discard; a zhi gang at R = 1 is refused only for the copies."""
    hands = [split(h) for h in TWO_BU]
    _, rest = deal(TWO_BU, "")
    rest.remove("9s")
    wall = rest[:53] + ["9s"] + rest[53:]
    ev: list[tuple[Any, ...]] = [("discard", 0, "1m")]
    for i in range(54):
        ev += [("draw", (i + 1) % 4, wall[i]), ("discard", (i + 1) % 4, wall[i])]
    s = play(ANSHUN, hands, wall, ev)
    assert (s.wall.remaining, s.phase, s.turn, tile_name(s.tile)) == (1, "claim", 2, "9s")
    ok = ANSHUN.apply(s, parse_line(json.dumps({"match_id": "mutants_mj4", "seq": s.seq + 1, "type": "peng", "seat": 3, "tile": "9s"})))
    assert (ok.phase, ok.turn, ok.melds[3][-1]) == ("act", 3, Meld("peng", tile_id("9s"), 2))
    try:
        ANSHUN.apply(s, parse_line(json.dumps({"match_id": "mutants_mj4", "seq": s.seq + 1, "type": "gang", "seat": 3, "tile": "9s", "kind": "zhi"})))
    except Illegal as e:
        assert (e.code, e.message.split()[0]) == ("not_in_hand", "AS-R8"), e.message
    else:
        raise AssertionError("zhi gang with two copies accepted")


# --- Hongzhong seven pairs with a wild (HZ-H3)
def test_seven_pairs_with_a_wild() -> None:
    """HZ-H3 (qi_dui on, wild mode): 1m1m 3m3m 5m5m 7p7p 9p9p 2s2s 8s + 7z: one kind (8s) has an odd
    natural count, w = 1 >= 1, so it is seven pairs. It is no standard win (HZ-H1: twelve natural
    tiles in six pairs and 8s, one wild can make one pair a triplet: at most 2 sets, not 4)."""
    rules = HONGZHONG.parse_rules({"qi_dui": True})
    counts = tuple(counts_of(map(tile_id, split("1m1m3m3m5m5m7p7p9p9p2s2s8s7z"))))
    assert hand_wins(rules, counts, 0) == "qi_dui"
    assert hand_wins(HONGZHONG.parse_rules({}), counts, 0) is None


# --- Hongzhong zhi gang payment: fixed amounts, not bu_gang_units (HZ-S1)
def test_zhi_gang_pays_the_fixed_amounts_of_hz_s1() -> None:
    """HZ-S1 prices the zhi gang (接杠) on its own: `discarder_3` → the 放杠 seat alone pays 3,
    `each_1` → each other seat pays 1; `bu_gang_units` is the bu gang's price only. HZ-E4 with
    bu_gang_units 2 (b = 1): seat 0's bu gang 3p is paid 2 by each of 1, 2, 3; seat 3's zhi gang 9m
    fed by seat 1 is paid 3 by seat 1 → Δ = [+6, −2 − 3, −2, −2 + 3] = [6, −5, −2, 1]; with each_1
    seats 0, 1, 2 pay 1 each → Δ = [6 − 1, −2 − 1, −2 − 1, −2 + 3] = [5, −3, −3, 1]."""
    from engine.replay import replay

    lines = [json.loads(x) for x in (GOLDEN / "hongzhong_e4_kongs_chou_zhuang.jsonl").read_text().splitlines()]
    lines = [x for x in lines if x["type"] != "settled"]
    for pay, deltas in (("discarder_3", [6, -5, -2, 1]), ("each_1", [5, -3, -3, 1])):
        evs = [{**lines[0], "rules": {**lines[0]["rules"], "bu_gang_units": 2, "zhi_gang_payment": pay}}, *lines[1:]]
        r = replay([parse_line(json.dumps(e)) for e in evs])
        assert r.error is None and r.status == "finished", r.error
        assert r.deltas == deltas, (pay, r.deltas)


def test_no_kong_at_the_reserve() -> None:
    """HZ-R7 / HZ-R8 / HZ-R9: every kong needs R > N. In a log this clause never decides: a draw
    that leaves R = N ends the hand or forces the hu (HZ-R12, HZ-R10), and those refusals come
    first. So `check` is called on the state of HZ-E4 after seat 2's last draw (seq 114, R = 4 =
    N) with the 臭庄 flag cleared: an an gang or a bu gang by seat 2 is refused under its own rule
    id, and a zhi gang of a discard there (phase claim) under HZ-R7, `no kong with 4 tiles left
    (reserve 4)`; one tile more (R = 5 > N) passes the clause."""
    import dataclasses
    from types import SimpleNamespace

    from engine.mahjong.claimflow import replace

    lines = [json.loads(x) for x in (GOLDEN / "hongzhong_e4_kongs_chou_zhuang.jsonl").read_text().splitlines()]
    started, dealt = parse_line(json.dumps(lines[0])), parse_line(json.dumps(lines[1]))
    s = HONGZHONG.start(started, dealt, HONGZHONG.parse_rules(started.rules))
    for e in lines[2:-1]:
        s = HONGZHONG.apply(s, parse_line(json.dumps(e)))
    assert (s.wall.remaining, s.done, s.phase, s.turn) == (4, True, "act", 2)
    act = replace(s, done=False)
    claim = replace(s, done=False, phase="claim", tile=tile_id("4s"))
    for st, seat, kind, rule in ((act, 2, "an", "HZ-R8"), (act, 2, "bu", "HZ-R9"), (claim, 3, "zhi", "HZ-R7")):
        try:
            HONGZHONG.check(st, SimpleNamespace(seq=115, type="gang", seat=seat, tile="4s", kind=kind))
        except Illegal as e:
            assert (e.code, e.message) == ("illegal_move", f"{rule} no kong with 4 tiles left (reserve 4)"), e.message
        else:
            raise AssertionError(f"{kind} gang at R = N accepted")
    more = replace(claim, wall=dataclasses.replace(s.wall, head=s.wall.head - 1))
    assert more.wall.remaining == 5
    HONGZHONG.check(more, SimpleNamespace(seq=115, type="gang", seat=3, tile="4s", kind="zhi"))
