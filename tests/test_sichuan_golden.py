"""Golden logs of sichuan.md's worked examples SC-E1..E9 and option variants, replayed to the exact
deltas and settlement items (kind, receiver, payer, points) and the fan breakdown of every win.

The logs are full matches (deal, 换三张, 定缺, every draw until the end) written by
tests/gen_sichuan_golden.py; the numbers below are transcribed from the rule file, not from the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from events.codec import read_log

GOLDEN = Path(__file__).parent / "data" / "golden"

S1 = {"ping_hu": 1}
E1_FANS = {"ping_hu": 1, "gang": 1, "zi_mo": 1, "gang_shang_hua": 1}
E2_1 = {"ping_hu": 1, "gang_shang_pao": 1}
E2_3 = {"long_qi_dui": 5, "gang_shang_pao": 1}
E6_FANS = {"dui_dui_hu": 1, "qing_yi_se": 2, "gen": 2, "gang_shang_hua": 1}
E7_FANS = {"ping_hu": 0, "zi_mo": 1, "duan_yao_jiu": 1, "qia_xin_wu": 1}

# name → (deltas, [(kind, seat, from, points, fans or None, fan or None)])
CASES: dict[str, tuple[list[int], list[tuple[Any, ...]]]] = {
    "e1_an_gang_kong_flower": (
        [-10, -10, 30, -10],
        [("gang_an", 2, p, 2, None, None) for p in (0, 1, 3)] + [("hu_zimo", 2, p, 8, E1_FANS, 4) for p in (0, 1, 3)],
    ),
    "e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang": (
        [-37, 4, -1, 34],
        [("gang_bu", 0, p, 1, None, None) for p in (1, 2, 3)]
        + [
            ("hu_dianpao", 1, 0, 2, E2_1, 2),
            ("hu_zhuanyi", 1, 0, 3, None, None),
            ("hu_dianpao", 3, 0, 32, E2_3, 6),
            ("hu_zhuanyi", 3, 0, 3, None, None),
        ],
    ),
    "e3_rob_bu_gang": ([0, 0, -4, 4], [("hu_qianggang", 3, 2, 4, {"ping_hu": 1, "gen": 1, "qiang_gang_hu": 1}, 3)]),
    "e4_exhaustive_hua_zhu_da_jiao_tui_shui": (
        [6, 10, 18, -34],
        [("hu_zimo", 0, p, 2, {"ping_hu": 1, "zi_mo": 1}, 2) for p in (1, 2, 3)]
        + [
            ("gang_zhi", 1, 2, 1, None, None),
            ("hua_zhu", 1, 3, 16, None, None),
            ("hua_zhu", 2, 3, 16, None, None),
            ("da_jiao", 2, 1, 4, None, 3),
            ("tui_shui", 2, 1, 1, None, None),
        ],
    ),
    "e5_xueliu_two_wins": (
        [-2, 7, -2, -3],
        [("hu_dianpao", 1, 3, 1, S1, 1)] + [("hu_zimo", 1, p, 2, {"ping_hu": 1, "zi_mo": 1}, 2) for p in (0, 2, 3)],
    ),
    "e6_chengdu_cap_jia_di": (
        [-21, -21, -21, 63],
        [("gang_an", 3, p, 2, None, None) for p in (0, 1, 2)] * 2 + [("hu_zimo", 3, p, 17, E6_FANS, 6) for p in (0, 1, 2)],
    ),
    "e7_mianzhu_zi_kou_duan_yao_qia_xin_wu": (
        [-6, 24, -10, -8],
        [("gang_zhi", 0, 2, 2, None, None)] + [("hu_zimo", 1, p, 8, E7_FANS, 3) for p in (0, 2, 3)],
    ),
    "e8_dian_gang_hua_bao": ([-25, 0, 25, 0], [("gang_zhi", 2, 0, 1, None, None), ("hu_zimo", 2, 0, 24, E1_FANS, 4)]),
    "e9_pass_lock_last_four": ([-1, 1, 0, 0], [("hu_dianpao", 1, 0, 1, S1, 1)]),
    # option variants
    "e8_dian_gang_hua_zimo": (
        [-9, -8, 25, -8],
        [("gang_zhi", 2, 0, 1, None, None)] + [("hu_zimo", 2, p, 8, E1_FANS, 4) for p in (0, 1, 3)],
    ),
    "e8_dian_gang_hua_dian_pao": (
        [-5, 0, 5, 0],
        [("gang_zhi", 2, 0, 1, None, None), ("hu_zimo", 2, 0, 4, {"ping_hu": 1, "gang": 1, "gang_shang_hua": 1}, 3)],
    ),
    "e2_no_transfer": (
        [-34, 2, 0, 32],
        [("gang_bu", 0, p, 1, None, None) for p in (1, 2, 3)]
        + [("hu_dianpao", 1, 0, 2, E2_1, 2), ("hu_dianpao", 3, 0, 32, E2_3, 6)]
        + [("tui_shui", p, 0, 1, None, None) for p in (1, 2, 3)],
    ),
    "e1_replacement_from_tail": (
        [-10, -10, 30, -10],
        [("gang_an", 2, p, 2, None, None) for p in (0, 1, 3)] + [("hu_zimo", 2, p, 8, E1_FANS, 4) for p in (0, 1, 3)],
    ),
    "e2_single_hu_nearest": (
        [-18, 4, -17, 31],
        [("gang_bu", 0, p, 1, None, None) for p in (1, 2, 3)]
        + [("hu_dianpao", 1, 0, 2, E2_1, 2), ("hu_zhuanyi", 1, 0, 3, None, None)]
        + [("da_jiao", 3, p, 16, None, 5) for p in (0, 2)],
    ),
    "e1_exchange_clockwise": (
        [-10, -10, 30, -10],
        [("gang_an", 2, p, 2, None, None) for p in (0, 1, 3)] + [("hu_zimo", 2, p, 8, E1_FANS, 4) for p in (0, 1, 3)],
    ),
    "e1_no_exchange": (
        [-10, -10, 30, -10],
        [("gang_an", 2, p, 2, None, None) for p in (0, 1, 3)] + [("hu_zimo", 2, p, 8, E1_FANS, 4) for p in (0, 1, 3)],
    ),
    "e6_chengdu_no_cap": (
        [-69, -69, -69, 207],
        [("gang_an", 3, p, 2, None, None) for p in (0, 1, 2)] * 2 + [("hu_zimo", 3, p, 65, E6_FANS, 6) for p in (0, 1, 2)],
    ),
    "e4_huazhu_pays_winners": (
        [22, 10, 18, -50],
        [("hu_zimo", 0, p, 2, {"ping_hu": 1, "zi_mo": 1}, 2) for p in (1, 2, 3)]
        + [
            ("gang_zhi", 1, 2, 1, None, None),
            ("hua_zhu", 0, 3, 16, None, None),
            ("hua_zhu", 1, 3, 16, None, None),
            ("hua_zhu", 2, 3, 16, None, None),
            ("da_jiao", 2, 1, 4, None, 3),
            ("tui_shui", 2, 1, 1, None, None),
        ],
    ),
}


def load(name: str) -> list[Any]:
    return [ln.event for ln in read_log(GOLDEN / f"sichuan_{name}.jsonl")]  # type: ignore[union-attr]


def _key(t: tuple[Any, ...]) -> tuple[Any, ...]:
    return (t[0], t[1], t[2], t[3], sorted((t[4] or {}).items()), t[5] or 0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_replays_to_rule_file_numbers(name: str) -> None:
    deltas, items = CASES[name]
    r = replay(load(name))
    assert r.status == "finished", r.error
    assert r.deltas == deltas
    assert r.settlement_matches is True
    got = [(i["kind"], i["seat"], i["from"], i["points"], i.get("fans"), i.get("fan")) for i in r.items]
    assert sorted(map(_key, got)) == sorted(map(_key, items))
    for i in r.items:
        if i["kind"].startswith("hu_") and i["kind"] != "hu_zhuanyi":
            base = next(iter(i["fans"]))
            assert base in ("ping_hu", "dui_dui_hu", "qi_dui", "long_qi_dui", "qing_yi_se", "tian_hu", "di_hu"), base


def test_every_worked_example_has_a_golden_log() -> None:
    names = {p.stem for p in GOLDEN.glob("sichuan_*.jsonl")}
    for n in range(1, 10):
        assert any(x.startswith(f"sichuan_e{n}_") for x in names), n
    assert {f"sichuan_{k}" for k in CASES} <= names


def test_golden_winners_and_exchange_events() -> None:
    r = replay(load("e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang"))
    assert r.winners == [1, 3]
    evs = load("e1_an_gang_kong_flower")
    assert [e.type for e in evs[2:7]] == ["exchange"] * 4 + ["exchange_direction"]
    assert [e.type for e in evs[7:11]] == ["dingque"] * 4
    assert all(e.type != "exchange" for e in load("e1_no_exchange"))


@pytest.mark.parametrize(
    ("name", "dealer"),
    [
        ("e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang", 0),  # first wins: 一炮多响 → the discarder deals
        ("e3_rob_bu_gang", 3),  # a single rob: the robber
        ("e1_an_gang_kong_flower", 2),  # a self-draw
        ("e9_pass_lock_last_four", 1),  # a single discard win: the winner
    ],
)
def test_next_dealer_sc_r23(name: str, dealer: int) -> None:
    from engine.mahjong.sichuan import XUEZHAN
    from engine.replay import replay_with_steps

    steps, r = replay_with_steps(load(name))
    assert r.status == "finished"
    assert XUEZHAN.view(steps[-2].state)["next_dealer"] == dealer
