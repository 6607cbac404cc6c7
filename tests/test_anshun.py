"""Anshun (docs/rules/anshun.md): golden logs of AS-E1..E7, pattern table, corrupted logs per code, bots."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.mahjong.anshun import ANSHUN, PATTERNS, evaluate, yaobai_set
from engine.registry import bot_action
from engine.replay import replay, replay_with_steps
from engine.sim.simulate import simulate_match
from engine.tiles import counts_of, parse_hand, tile_id
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


def run(events: list[dict[str, Any]]) -> Any:
    return replay([parse_line(json.dumps(e)) for e in events])


def flows(res: Any) -> dict[tuple[str, int, int], int]:
    c: Counter[tuple[str, int, int]] = Counter()
    for it in res.items:
        c[(it["kind"], it["seat"], it["from"])] += it["points"]
    return dict(c)


def each(kind: str, seat: int, pts: int) -> dict[tuple[str, int, int], int]:
    return {(kind, seat, o): pts for o in range(4) if o != seat}


GOLDEN_CASES: dict[str, tuple[list[int], list[int], dict[tuple[str, int, int], int], dict[str, int] | None]] = {
    "anshun_e1_zimo_chong_feng_ji": (
        [2, 6, -6, -2], [1],
        {**each("hu_zimo", 1, 2), **each("ji", 1, 1), **each("ji", 3, 1), **each("chong_feng_ji", 0, 2)},
        {"ping_hu": 1},
    ),
    "anshun_e2_re_pao_men_dou": (
        [8, 9, -14, -3], [0],
        {("hu_dianpao", 0, 2): 5, ("re_pao", 0, 2): 6, **each("ji", 1, 3)},
        {"da_dui_zi": 5},
    ),
    "anshun_e3_qiang_gang_qing_yi_se": ([0, 60, 0, -60], [1], {("hu_qianggang", 1, 3): 60}, {"qing_yi_se": 10}),
    "anshun_e4_tian_ting_sha_bao": (
        [-20, -10, 40, -10], [2], {**each("hu_zimo", 2, 10), ("sha_bao", 2, 0): 10}, {"da_dui_zi": 5},
    ),
    "anshun_e5_tian_ting_dian_pao_dou": (
        [-3, 13, -1, -9], [1],
        {("hu_dianpao", 1, 3): 11, ("dian_dou", 2, 0): 1, **each("zhuan_wan_dou", 3, 1), **each("ji", 1, 1)},
        {"ping_hu": 1, "tian_ting": 10},
    ),
    "anshun_e6_huang_zhuang_jiao_pai": (
        [40, -21, 2, -21], [],
        {("jiao_pai", 0, 1): 20, ("jiao_pai", 0, 3): 20, ("jiao_pai", 2, 1): 1, ("jiao_pai", 2, 3): 1},
        None,
    ),
    "anshun_e7_dian_dou_re_pao_jin_ji": (
        [7, 6, -16, 3], [1],
        {("hu_dianpao", 1, 2): 10, ("re_pao", 1, 2): 1, **each("ji", 3, 2), **each("chong_feng_ji", 0, 3)},
        {"xiao_qi_dui": 10},
    ),
    "anshun_e1v_next_two_jin_ji": (
        [4, 8, -8, -4], [1],
        {**each("hu_zimo", 1, 2), **each("ji", 1, 2), **each("ji", 3, 1), **each("chong_feng_ji", 0, 3)},
        {"ping_hu": 1},
    ),
    "anshun_e3v_qiang_gang_single": ([0, 20, 0, -20], [1], {("hu_qianggang", 1, 3): 20}, {"qing_yi_se": 10}),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden(name: str) -> None:
    deltas, winners, want, fans = GOLDEN_CASES[name]
    res = run(load(name))
    assert res.status == "finished", res.error
    assert res.deltas == deltas
    assert res.settlement_matches is True
    assert res.winners == winners
    assert flows(res) == want
    wins = [it for it in res.items if it["kind"].startswith("hu_")]
    if fans is None:
        assert not wins
    else:
        assert all(it["fans"] == fans and it["fan"] == sum(fans.values()) for it in wins)


def test_flip_and_yaobai_in_items() -> None:
    res = run(load("anshun_e1_zimo_chong_feng_ji"))
    ji = [it for it in res.items if it["kind"] == "ji"]
    assert {it["flip"] for it in ji} == {"8s"} and all(it["yaobai"] == ["7s", "9s"] for it in ji)


# ---------------------------------------------------------------- pattern table, chickens


@pytest.mark.parametrize(
    ("hand", "melds", "want"),
    [
        ("234m567m678p99p123s", (), ("ping_hu", 1)),
        ("222p777s999m4m4m555s", (), ("da_dui_zi", 5)),
        ("1133559m9m2p2p8p8p6m6m", (), ("xiao_qi_dui", 10)),
        ("1234567m123p45s99s", (), None),
        ("123456789m55m222m", (), ("qing_yi_se", 10)),
        ("11122233355566m", (), ("qing_da_dui", 15)),
        ("11335577992244p", (), ("qing_qi_dui", 20)),
        ("11113355779m9m2p2p", (), ("long_qi_dui", 20)),
        ("11113355779922s", (), ("qing_long_qi_dui", 30)),
        ("222m33m", ("1m", "5m", "9m"), ("qing_da_dui", 15)),
        ("123m33m", ("1p", "5m", "9m"), ("ping_hu", 1)),
    ],
)
def test_pattern_table(hand: str, melds: tuple[str, ...], want: tuple[str, int] | None) -> None:
    counts = counts_of(parse_hand(hand))
    assert evaluate(counts, tuple(tile_id(t) for t in melds)) == want


def test_pattern_table_is_data() -> None:
    assert [p for _, p, _ in PATTERNS] == [1, 5, 10, 10, 15, 20, 20, 30]


def test_max_over_interpretations() -> None:
    # 111222333m + 44m + 555m: as sequences 123 123 123 it is ping_hu-shaped, as triplets da_dui; both qing
    assert evaluate(counts_of(parse_hand("11122233344555m")), ()) == ("qing_da_dui", 15)


@pytest.mark.parametrize(
    ("flip", "mode", "want"),
    [("8s", "adjacent", ["7s", "9s"]), ("9s", "adjacent", ["8s", "1s"]), ("1p", "adjacent", ["9p", "2p"]),
     ("5m", "next_two", ["6m", "7m"]), ("9m", "next_one", ["1m"]), ("8p", "next_two", ["9p", "1p"])],
)
def test_yaobai_set(flip: str, mode: str, want: list[str]) -> None:
    from engine.tiles import tile_names

    assert tile_names(yaobai_set(tile_id(flip), mode)) == want


# ---------------------------------------------------------------- corrupted logs


def at(name: str, seq: int, new: dict[str, Any]) -> Any:
    ev = load(name)[:seq]
    return run([*ev, {"match_id": ev[0]["match_id"], "seq": seq, **new}])


def _expect(res: Any, seq: int, code: str, rule: str) -> None:
    assert res.status == "invalid"
    assert res.error["seq"] == seq, res.error
    assert res.error["code"] == code, res.error
    assert rule in res.error["message"], res.error


def test_ping_hu_discard_win_refused() -> None:
    # AS-E1: seat 1 (平胡, no kong) may not win on seat 0's 1s
    _expect(at("anshun_e1_zimo_chong_feng_ji", 3, {"type": "hu", "seat": 1, "tile": "1s"}), 3, "illegal_claim", "AS-R6")
    # AS-E7: seat 3 (first in turn order after discarder 2) waits on 6m with 平胡 and no kong: refused
    ev = load("anshun_e7_dian_dou_re_pao_jin_ji")[:-1]
    mid = ev[0]["match_id"]
    hu3 = {"match_id": mid, "seq": 14, "type": "hu", "seat": 3, "tile": "6m"}
    _expect(run([*ev[:14], hu3]), 14, "illegal_claim", "AS-R6")
    # with ping_hu_dian_pao = always the same hu is accepted (一炮多响, seat 3 then seat 1)
    ev[0]["rules"] = {"ping_hu_dian_pao": "always"}
    res = run([*ev[:14], hu3, {**ev[14], "seq": 15}])
    assert res.status == "finished" and res.winners == [1, 3]
    # out of turn order: seat 1 first, then seat 3
    res = run([*ev, {**hu3, "seq": 15}])
    _expect(res, 15, "illegal_claim", "AS-R4")


def test_ping_hu_allowed_on_ting_discarder() -> None:
    # AS-E4 variant: after seat 0's 天听 discard 9p nobody can use it; seat 2 waits on 4p only → use a rules check
    ev = load("anshun_e4_tian_ting_sha_bao")
    assert run(ev).status == "finished"


def test_single_hu_when_yi_pao_duo_xiang_off() -> None:
    ev = load("anshun_e7_dian_dou_re_pao_jin_ji")[:-1]
    ev[0]["rules"] = {"yi_pao_duo_xiang": False, "ping_hu_dian_pao": "always"}
    res = run([*ev[:14], {"match_id": ev[0]["match_id"], "seq": 14, "type": "hu", "seat": 3, "tile": "6m"}, {**ev[14], "seq": 15}])
    assert res.error["code"] == "illegal_claim" and res.error["seq"] == 15 and "AS-R4" in res.error["message"]


def test_tian_ting_lock() -> None:
    # AS-E5: seat 1 is tian-ting; at seq 22 it must discard its drawn 6p
    _expect(at("anshun_e5_tian_ting_dian_pao_dou", 22, {"type": "discard", "seat": 1, "tile": "2p"}), 22, "illegal_move", "AS-R13")
    # and it may not peng another seat's discard: a forbidden claim (docs/rules/README.md: a peng or zhi
    # gang by a locked seat — 天听 — on another seat's discard is `illegal_claim`)
    _expect(at("anshun_e5_tian_ting_dian_pao_dou", 8, {"type": "peng", "seat": 1, "tile": "7s"}), 8, "illegal_claim", "AS-R13")
    _expect(at("anshun_e5_tian_ting_dian_pao_dou", 8, {"type": "gang", "seat": 1, "tile": "7s", "kind": "zhi"}), 8, "illegal_claim", "AS-R13")


def test_tian_ting_not_ready_and_late() -> None:
    # AS-E4: after ting, discarding 1m leaves 23m456m789p23s888p + 9p: not ready
    _expect(at("anshun_e4_tian_ting_sha_bao", 3, {"type": "discard", "seat": 0, "tile": "1m"}), 3, "illegal_move", "AS-R12")
    # a ting after a peng in the hand (AS-E2: seq 4 is seat 1's discard after its peng)
    _expect(at("anshun_e2_re_pao_men_dou", 4, {"type": "ting", "seat": 1}), 4, "illegal_move", "AS-R12")
    # a ting by a seat that is not to act
    _expect(at("anshun_e4_tian_ting_sha_bao", 2, {"type": "ting", "seat": 2}), 2, "not_your_turn", "AS-R12")
    # after ting the seat must discard
    _expect(at("anshun_e4_tian_ting_sha_bao", 3, {"type": "gang", "seat": 0, "tile": "8p", "kind": "an"}), 3, "illegal_move", "AS-R12")


def test_ting_option_off_is_wrong_phase() -> None:
    ev = load("anshun_e4_tian_ting_sha_bao")
    ev[0]["rules"] = {"tian_ting": False}
    _expect(run(ev[:3]), 2, "wrong_phase", "AS-R0")


def test_other_codes() -> None:
    n = "anshun_e7_dian_dou_re_pao_jin_ji"
    _expect(at(n, 3, {"type": "draw", "seat": 1, "tile": "1m"}), 3, "wrong_draw", "AS-C4")
    _expect(at(n, 3, {"type": "draw", "seat": 2, "tile": "7m"}), 3, "not_your_turn", "AS-R15")  # AS-R15 Draw
    held = set(load(n)[1]["hands"][0])
    missing = next(t for t in (f"{d}{s}" for s in "mps" for d in range(1, 10)) if t not in held)
    _expect(at(n, 2, {"type": "discard", "seat": 0, "tile": missing}), 2, "not_in_hand", "AS-R3")  # AS-R3 Discard
    _expect(at(n, 2, {"type": "hu", "seat": 0, "tile": "1s"}), 2, "not_a_win", "AS-H1")
    _expect(at(n, 2, {"type": "peng", "seat": 1, "tile": "1m"}), 2, "illegal_claim", "AS-R4")  # AS-R4 Claim window
    _expect(at(n, 2, {"type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"]}), 2, "wrong_phase", "AS-R0")
    _expect(at(n, 2, {"type": "discard", "seat": 0, "tile": "7z"}), 2, "not_in_hand", "AS-C1")
    ev = load(n)
    _expect(at(n, len(ev) - 1, {"type": "draw", "seat": 2, "tile": "1m"}), len(ev) - 1, "after_end", "after the match ended")
    ev[1]["hands"][0][0] = "7z"
    assert run(ev[:2]).error["code"] == "bad_deal"


# ---------------------------------------------------------------- bots, calculator, view


@pytest.mark.parametrize("rules", [None, {"yaobai_ji_mode": "next_one", "ji_requires_ting": True, "fan_fan": False},
                                   {"ping_hu_dian_pao": "always", "yi_pao_duo_xiang": False, "replacement_from": "tail"}])
def test_bot_playouts_finish_zero_sum(rules: dict[str, Any] | None) -> None:
    kinds: Counter[str] = Counter()
    for i in range(12):
        res = replay(simulate_match("anshun", rules, 5, i))
        assert res.status == "finished", res.error
        assert sum(res.deltas) == 0 and res.settlement_matches
        kinds.update(it["kind"] for it in res.items)
    assert kinds["ji"] > 0


def test_bot_declares_tian_ting_when_ready() -> None:
    ev = load("anshun_e4_tian_ting_sha_bao")
    steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in ev])
    s = steps[1].state  # after the deal: the dealer is ready after discarding 9p
    assert bot_action(ANSHUN, s, random.Random(0)) == {"type": "ting", "seat": 0}
    s2 = steps[2].state
    act = bot_action(ANSHUN, s2, random.Random(0))
    assert act["type"] == "discard" and act["seat"] == 0
    assert ANSHUN.try_apply(s2, act) is not None  # its 13 tiles are ready (AS-R12)
    v = ANSHUN.view(steps[3].state)
    assert v["tian_ting"] == [0] and v["phase"] == "claim"


def test_legal_actions_in_claim_window() -> None:
    ev = load("anshun_e7_dian_dou_re_pao_jin_ji")
    steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in ev])
    s = steps[13].state  # after discard {2, 6m} (热炮), seq 13
    acts = ANSHUN.legal_actions(s)
    assert {"type": "hu", "seat": 1, "tile": "6m"} in acts
    assert {"type": "hu", "seat": 3, "tile": "6m"} not in acts


def test_hand_calculator() -> None:
    out = ANSHUN.hand({"cards": "222p777s999m4m555s", "win_tile": "4m", "zimo": True})
    assert out == {"win": True, "fans": {"da_dui_zi": 5}, "fan": 5, "zimo_value": 10}
    out = ANSHUN.hand({"cards": "1p1p3p3p4p4p6p6p7p7p9p9p2p"})
    assert out == {"ready": True, "waits": ["2p"], "best_fan": 20}
    out = ANSHUN.hand({"cards": "234p567p345s678m9m", "situation": "tian_ting"})
    assert out["waits"] == ["6m", "9m"] and out["best_fan"] == 11
    with pytest.raises(ValueError):
        ANSHUN.hand({"cards": "7z7z7z"})
