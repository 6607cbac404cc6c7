"""Specs of the hongzhong / anshun worked examples (HZ-E1..E8, AS-E1..E7) for tests/mj_golden_builder.py."""

from __future__ import annotations

from typing import Any

from tests.mj_golden_builder import cycle

H = "hongzhong"
A = "anshun"


def _hz_e4() -> list[tuple[Any, ...]]:
    ev: list[tuple[Any, ...]] = [("discard", 1, "?"), ("draw", 2, "?"), ("discard", 2, "3p"), ("peng", 0, "3p"), ("discard", 0, "?")]
    ev += cycle(1, 3)  # seats 1, 2, 3
    ev += [("draw", 0, "3p"), ("gang", 0, "3p", "bu"), ("draw", 0, "?"), ("discard", 0, "?")]
    ev += [("draw", 1, "?"), ("discard", 1, "9m"), ("gang", 3, "9m", "zhi"), ("draw", 3, "?"), ("discard", 3, "?")]
    # 59 tiles, 8 drawn so far; draws go on until R = 4 (47 more), the last by seat 2
    ev += cycle(0, 46)
    ev += [("draw", 2, "?")]
    return ev


def _as_e6() -> list[tuple[Any, ...]]:
    ev: list[tuple[Any, ...]] = [("discard", 3, "?"), ("draw", 0, "?"), ("discard", 0, "?")]
    ev += [("draw", 1, "?"), ("gang", 1, "8m", "an"), ("draw", 1, "?"), ("discard", 1, "?")]
    ev += cycle(2, 52)  # 55 tiles: 3 drawn, 52 more, R = 0 after the last
    return ev


SPECS: list[dict[str, Any]] = [
    {
        "name": "hongzhong_e1_zimo_wild",
        "game": H, "dealer": 0,
        "hands": {1: ["2m", "3m", "4m", "5p", "6p", "7z", "1s", "1s", "1s", "8s", "8s", "9p", "9p"]},
        "events": [("discard", 0, "?"), ("draw", 1, "7p"), ("hu", 1, "7p")],
        "after": ["5s", "3m", "7z", "8p"],
        "deltas": [-6, 18, -6, -6],
    },
    {
        "name": "hongzhong_e2_an_gang_jia_ma",
        "game": H, "dealer": 0,
        "hands": {2: ["6m", "6m", "6m", "1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "2m"]},
        "events": [("discard", 0, "?"), ("draw", 1, "?"), ("discard", 1, "?"), ("draw", 2, "6m"), ("gang", 2, "6m", "an"),
                   ("draw", 2, "?"), ("discard", 2, "?"), *cycle(3, 3), ("draw", 2, "2m"), ("hu", 2, "2m")],
        "after": ["1m", "4p", "9s", "6s", "5m"],
        "avoid": ["7z"],
        "deltas": [-10, -10, 30, -10],
    },
    {
        "name": "hongzhong_e3_qiang_gang",
        "game": H, "dealer": 1,
        "hands": {1: ["4s"], 0: ["4s", "4s"], 3: ["2s", "3s", "7z", "5m", "5m", "5m", "6p", "7p", "8p", "1m", "1m", "9p", "9p"]},
        "events": [("discard", 1, "4s"), ("peng", 0, "4s"), ("discard", 0, "?"), *cycle(1, 3), ("draw", 0, "4s"),
                   ("gang", 0, "4s", "bu"), ("hu", 3, "4s")],
        "after": ["2p", "5p", "9m", "3s"],
        "deltas": [-18, 0, 0, 18],
    },
    {
        "name": "hongzhong_e4_kongs_chou_zhuang",
        "game": H, "dealer": 1,
        "hands": {1: ["9m"], 2: ["3p"], 0: ["3p", "3p"], 3: ["9m", "9m", "9m"]},
        "events": _hz_e4(),
        "avoid_draw": {},
        "deltas": [3, -4, -1, 2],
    },
    {
        "name": "hongzhong_e5_si_hong_zhong",
        "game": H, "dealer": 0,
        "hands": {2: ["7z", "7z", "7z", "7z"]},
        "events": [("hu", 2, "7z")],
        "after": ["1p", "2p", "9s", "6s"],
        "deltas": [-6, -6, 18, -6],
    },
    {
        "name": "hongzhong_e6_plain_hongzhong",
        "game": H, "dealer": 3, "rules": {"hongzhong_wild": False, "zhama": 2},
        "hands": {3: ["7z"], 1: ["7z", "7z", "1m", "2m", "3m", "4m", "5m", "6m", "7p", "7p", "8s", "8s"]},
        "events": [("discard", 3, "7z"), ("peng", 1, "7z"), ("discard", 1, "?"), *cycle(2, 3), ("draw", 1, "8s"), ("hu", 1, "8s")],
        "after": ["5m", "4s"],
        "avoid": ["7z"],
        "deltas": [-4, 12, -4, -4],
    },
    {
        "name": "hongzhong_e7_last_tile_birds_cut",
        "game": H, "dealer": 0,
        "hands": {3: ["1m", "2m", "3m", "3p", "4p", "5p", "6s", "7s", "8s", "2p", "2p", "4m", "4m"]},
        "events": [("discard", 0, "?"), *cycle(1, 54), ("draw", 3, "4m"), ("hu", 3, "4m")],
        "after": ["9p", "9s", "2m", "7z"],
        "avoid_draw": {3: ["7z", "2p", "4m"]},
        "deltas": [-8, -8, -8, 24],
    },
    {
        "name": "hongzhong_e8_two_robbers",
        "game": H, "dealer": 0,
        "hands": {0: ["5p"], 1: ["5p", "5p"], 2: ["3p", "4p", "7z", "2m", "2m", "6s", "6s", "6s", "1p", "1p", "1p", "8m", "9m"],
                  3: ["4p", "6p", "1m", "2m", "3m", "7s", "8s", "9s", "3s", "3s", "3s", "9p", "9p"]},
        "events": [("discard", 0, "5p"), ("peng", 1, "5p"), ("discard", 1, "?"), *cycle(2, 3), ("draw", 1, "5p"),
                   ("gang", 1, "5p", "bu"), ("hu", 2, "5p"), ("hu", 3, "5p")],
        "after": ["1s", "3m", "4p", "9m", "2s"],
        "deltas": [0, -36, 18, 18],
    },
    # ---- option variants
    {
        "name": "hongzhong_e2v_no_jia_ma",
        "game": H, "dealer": 0, "rules": {"wu_hongzhong_jia_ma": False},
        "hands": {2: ["6m", "6m", "6m", "1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "2m"]},
        "events": [("discard", 0, "?"), ("draw", 1, "?"), ("discard", 1, "?"), ("draw", 2, "6m"), ("gang", 2, "6m", "an"),
                   ("draw", 2, "?"), ("discard", 2, "?"), *cycle(3, 3), ("draw", 2, "2m"), ("hu", 2, "2m")],
        "after": ["1m", "4p", "9s", "6s", "5m"],
        "avoid": ["7z"],
        "deltas": [-8, -8, 24, -8],
    },
    {
        "name": "hongzhong_e4v_huang_zhuang_huang_gang",
        "game": H, "dealer": 1, "rules": {"huang_zhuang_huang_gang": True, "zhi_gang_payment": "each_1"},
        "hands": {1: ["9m"], 2: ["3p"], 0: ["3p", "3p"], 3: ["9m", "9m", "9m"]},
        "events": _hz_e4(),
        "deltas": [0, 0, 0, 0],
    },
    # ---- anshun
    {
        "name": "anshun_e1_zimo_chong_feng_ji",
        "game": A, "dealer": 0,
        "hands": {0: ["1s"], 1: ["2m", "3m", "4m", "5m", "6m", "7m", "6p", "7p", "8p", "9p", "9p", "2s", "3s"], 3: ["9s"]},
        "events": [("discard", 0, "1s"), *cycle(1, 4), ("draw", 1, "1s"), ("hu", 1, "1s")],
        "after": ["8s"],
        "avoid": ["1s", "7s", "9s"],
        "deltas": [2, 6, -6, -2],
    },
    {
        "name": "anshun_e2_re_pao_men_dou",
        "game": A, "dealer": 3,
        "hands": {3: ["1s"], 1: ["1s", "1s"], 2: ["6p", "6p", "6p", "4m"],
                  0: ["2p", "2p", "2p", "7s", "7s", "7s", "9m", "9m", "9m", "4m", "5s", "5s", "5s"]},
        "events": [("discard", 3, "1s"), ("peng", 1, "1s"), ("discard", 1, "?"), ("draw", 2, "6p"), ("gang", 2, "6p", "an"),
                   ("draw", 2, "3s"), ("discard", 2, "4m"), ("hu", 0, "4m")],
        "after": ["2m"],
        "avoid": ["1s", "1m", "3m"],
        "deltas": [8, 9, -14, -3],
    },
    {
        "name": "anshun_e3_qiang_gang_qing_yi_se",
        "game": A, "dealer": 0,
        "hands": {0: ["8m"], 3: ["8m", "8m"], 1: ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "9m", "2m", "2m", "5m", "5m", "5m"]},
        "events": [("discard", 0, "8m"), ("peng", 3, "8m"), ("discard", 3, "?"), *cycle(0, 3), ("draw", 3, "8m"),
                   ("gang", 3, "8m", "bu"), ("hu", 1, "8m")],
        "after": ["3s"],
        "avoid": ["1s", "2s", "4s"],
        "deltas": [0, 60, 0, -60],
    },
    {
        "name": "anshun_e4_tian_ting_sha_bao",
        "game": A, "dealer": 0,
        "hands": {0: ["9p", "1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "8p", "8p"],
                  2: ["3m", "3m", "3m", "6m", "6m", "6m", "2p", "2p", "2p", "8s", "8s", "8s", "4p"]},
        "events": [("ting", 0), ("discard", 0, "9p"), ("draw", 1, "?"), ("discard", 1, "?"), ("draw", 2, "4p"), ("hu", 2, "4p")],
        "after": ["5s"],
        "avoid": ["1s", "4s", "6s"],
        "deltas": [-20, -10, 40, -10],
    },
    {
        "name": "anshun_e5_tian_ting_dian_pao_dou",
        "game": A, "dealer": 0,
        "hands": {1: ["2p", "3p", "4p", "5p", "6p", "7p", "3s", "4s", "5s", "6m", "7m", "8m", "9m"],
                  0: ["4m"], 2: ["7s", "4m", "4m", "4m"], 3: ["7s", "7s", "9m"]},
        "events": [("discard", 0, "?"), ("draw", 1, "?"), ("ting", 1), ("discard", 1, "?"), ("draw", 2, "?"), ("discard", 2, "7s"),
                   ("peng", 3, "7s"), ("discard", 3, "?"), ("draw", 0, "?"), ("discard", 0, "4m"), ("gang", 2, "4m", "zhi"),
                   ("draw", 2, "?"), ("discard", 2, "?"), ("draw", 3, "7s"), ("gang", 3, "7s", "bu"), ("draw", 3, "?"),
                   ("discard", 3, "?"), *cycle(0, 3), ("draw", 3, "?"), ("discard", 3, "9m"), ("hu", 1, "9m")],
        "after": ["1p"],
        "avoid": ["1s", "9p", "2p", "7s"],
        "avoid_draw": {1: ["6m", "9m"]},
        "deltas": [-3, 13, -1, -9],
    },
    {
        "name": "anshun_e6_huang_zhuang_jiao_pai",
        "game": A, "dealer": 3,
        "hands": {0: ["1p", "1p", "3p", "3p", "4p", "4p", "6p", "6p", "7p", "7p", "9p", "9p", "2p"],
                  2: ["1m", "2m", "3m", "4m", "5m", "6m", "2s", "3s", "4s", "7s", "8s", "5p", "5p"],
                  1: ["8m", "8m", "8m", "8m"]},
        "events": _as_e6(),
        "deltas": [40, -21, 2, -21],
    },
    {
        "name": "anshun_e7_dian_dou_re_pao_jin_ji",
        "game": A, "dealer": 0,
        "hands": {0: ["1s", "7s"], 2: ["7s", "7s", "7s", "6m"],
                  1: ["1m", "1m", "3m", "3m", "5m", "5m", "9m", "9m", "2p", "2p", "8p", "8p", "6m"],
                  3: ["4m", "5m", "2p", "3p", "4p", "5p", "6p", "7p", "1s", "2s", "3s", "9p", "9p"]},
        "events": [("discard", 0, "1s"), *cycle(1, 4)[:-1], ("discard", 0, "7s"), ("gang", 2, "7s", "zhi"), ("draw", 2, "?"),
                   ("discard", 2, "6m"), ("hu", 1, "6m")],
        "after": ["9s"],
        "avoid": ["1s", "8s"],
        "deltas": [7, 6, -16, 3],
    },
    # ---- option variants
    {
        "name": "anshun_e1v_next_two_jin_ji",
        "game": A, "dealer": 0, "rules": {"yaobai_ji_mode": "next_two"},
        "hands": {0: ["1s"], 1: ["2m", "3m", "4m", "5m", "6m", "7m", "6p", "7p", "8p", "9p", "9p", "2s", "3s"], 3: ["9s"]},
        "events": [("discard", 0, "1s"), *cycle(1, 4), ("draw", 1, "1s"), ("hu", 1, "1s")],
        "after": ["8s"],
        "avoid": ["1s", "7s", "9s"],
        "deltas": [4, 8, -8, -4],
    },
    {
        "name": "anshun_e3v_qiang_gang_single",
        "game": A, "dealer": 0, "rules": {"qiang_gang_payment": "single"},
        "hands": {0: ["8m"], 3: ["8m", "8m"], 1: ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "9m", "2m", "2m", "5m", "5m", "5m"]},
        "events": [("discard", 0, "8m"), ("peng", 3, "8m"), ("discard", 3, "?"), *cycle(0, 3), ("draw", 3, "8m"),
                   ("gang", 3, "8m", "bu"), ("hu", 1, "8m")],
        "after": ["3s"],
        "avoid": ["1s", "2s", "4s"],
        "deltas": [0, 20, 0, -20],
    },
]
