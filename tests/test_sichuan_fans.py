"""Fan tables of the three presets (sichuan.md SC-H5/H6/H7, SC-H8): one case per fan id, the
exclusions (highest base only, 龙七对 absorbs one 根), caps, and the `paiju hand` calculator output.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.mahjong.sichuan import XUELIU, XUEZHAN


def q(cards: str, preset: str = "standard", **kw: Any) -> dict[str, Any]:
    rules = {"preset": preset, **kw.pop("rules", {})}
    return XUEZHAN.hand({"cards": cards, "rules": rules, **kw})


# (preset, cards, extra query fields, fans, fan, multiplier)
CASES: list[tuple[str, str, dict[str, Any], dict[str, int], int, int]] = [
    # ---- standard (M = 2^(F-1))
    ("standard", "123m456m789m234p55p", {}, {"ping_hu": 1}, 1, 1),
    ("standard", "111m222m333p444p55p", {}, {"dui_dui_hu": 2}, 2, 2),
    ("standard", "123m456m789m234m55m", {}, {"qing_yi_se": 3}, 3, 4),
    ("standard", "111m789m789p999s11s", {}, {"dai_yao_jiu": 3}, 3, 4),
    ("standard", "1122m3344p5566s77s", {}, {"qi_dui": 3}, 3, 4),
    ("standard", "111m333m555m777m99m", {}, {"qing_dui": 4}, 4, 8),
    ("standard", "222m555m888p222s55s", {}, {"jiang_dui": 4}, 4, 8),
    ("standard", "1111m2233p4455s66s", {}, {"long_qi_dui": 5}, 5, 16),
    ("standard", "11223355778899m", {}, {"qing_qi_dui": 5}, 5, 16),
    ("standard", "111m123m789m789m99m", {}, {"qing_yao_jiu": 5, "gen": 2}, 7, 64),
    ("standard", "1111m2233m4455m66m", {}, {"qing_long_qi_dui": 6}, 6, 32),
    ("standard", "123m456m789m234p55p", {"situation": "tian_hu"}, {"tian_hu": 6}, 6, 32),
    ("standard", "123m456m789m234p55p", {"situation": "di_hu", "zimo": True}, {"di_hu": 6}, 6, 32),
    ("standard", "123m456m789m234p55p", {"zimo": True}, {"ping_hu": 1, "zi_mo": 1}, 2, 2),
    ("standard", "123m456m234p55p", {"melds": "gang_an:9s"}, {"ping_hu": 1, "gang": 1}, 2, 2),
    ("standard", "123m456m234p55p", {"melds": "peng:2p"}, {"ping_hu": 1, "gen": 1}, 2, 2),
    ("standard", "123m456m789m234p55p", {"situation": "gang_shang_hua", "zimo": True}, {"ping_hu": 1, "zi_mo": 1, "gang_shang_hua": 1}, 3, 4),
    ("standard", "123m456m789m234p55p", {"situation": "gang_shang_pao"}, {"ping_hu": 1, "gang_shang_pao": 1}, 2, 2),
    ("standard", "123m456m789m234p55p", {"situation": "qiang_gang_hu"}, {"ping_hu": 1, "qiang_gang_hu": 1}, 2, 2),
    ("standard", "5m5m", {"melds": "peng:1p,peng:2p,gang_an:3s,peng:4s"}, {"dui_dui_hu": 2, "gang": 1, "jin_gou_diao": 1}, 4, 8),
    ("standard", "123m456m789m234p55p", {"zimo": True, "situation": "hai_di", "rules": {"hai_di": "zimo"}}, {"ping_hu": 1, "zi_mo": 1, "hai_di": 1}, 3, 4),
    ("standard", "123m456m789m234p55p", {"situation": "hai_di", "rules": {"hai_di": "zimo"}}, {"ping_hu": 1}, 1, 1),
    # ---- chengdu (additive, M = 2^F)
    ("chengdu", "123m456m789m234p55p", {}, {"ping_hu": 0}, 0, 1),
    ("chengdu", "111m222m333p444p55p", {}, {"dui_dui_hu": 1}, 1, 2),
    ("chengdu", "222m555m888p222s55s", {}, {"jiang_dui": 3}, 3, 8),
    ("chengdu", "1122m3344p5566s77s", {}, {"qi_dui": 2}, 2, 4),
    ("chengdu", "1111m2233p4455s66s", {}, {"qi_dui": 2, "gen": 1}, 3, 8),
    ("chengdu", "123m456m789m234m55m", {}, {"ping_hu": 0, "qing_yi_se": 2}, 2, 4),
    ("chengdu", "111m333m555m777m99m", {}, {"dui_dui_hu": 1, "qing_yi_se": 2}, 3, 8),
    ("chengdu", "111m789m789p999s11s", {}, {"ping_hu": 0, "dai_yao_jiu": 2}, 2, 4),
    ("chengdu", "123m456m234p55p", {"melds": "gang_an:9s"}, {"ping_hu": 0, "gen": 1}, 1, 2),
    ("chengdu", "123m456m789m234p55p", {"zimo": True}, {"ping_hu": 0}, 0, 1),
    ("chengdu", "123m456m789m234p55p", {"zimo": True, "rules": {"zi_mo_bonus": "jia_fan"}}, {"ping_hu": 0, "zi_mo": 1}, 1, 2),
    ("chengdu", "5m5m", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s"}, {"dui_dui_hu": 1, "jin_gou_diao": 1}, 2, 4),
    ("chengdu", "123m456m789m234p55p", {"situation": "tian_hu"}, {"ping_hu": 0}, 0, 1),
    ("chengdu", "123m456m789m234p55p", {"situation": "tian_hu", "rules": {"tian_di_hu": True}}, {"tian_hu": 5}, 5, 16),
    ("chengdu", "11223355778899m", {"zimo": True, "situation": "gang_shang_hua"}, {"qi_dui": 2, "qing_yi_se": 2, "gang_shang_hua": 1}, 5, 16),
    # ---- mianzhu (highest base + extras, M = 2^F)
    ("mianzhu", "123m456m789m234p55p", {}, {"ping_hu": 0, "yi_tiao_long": 1}, 1, 2),
    ("mianzhu", "111m222m333p444p55p", {}, {"dui_dui_hu": 1}, 1, 2),
    ("mianzhu", "1122m3344p5566s77s", {}, {"qi_dui": 2}, 2, 4),
    ("mianzhu", "123m345m567m789m99m", {}, {"qing_yi_se": 2}, 2, 4),
    ("mianzhu", "123m456m234p55p", {"melds": "peng:2p"}, {"ping_hu": 0, "gen": 1}, 1, 2),
    ("mianzhu", "222m555m888p222s55s", {}, {"jiang_dui": 3, "duan_yao_jiu": 1}, 4, 16),
    ("mianzhu", "111m333m555m777m99m", {}, {"qing_dui": 3}, 3, 8),
    ("mianzhu", "1111m2233p4455s66s", {}, {"long_qi_dui": 4}, 4, 16),
    ("mianzhu", "11223355778899m", {}, {"qing_qi_dui": 4}, 4, 16),
    ("mianzhu", "1111m2233m4455m66m", {}, {"qing_long_qi_dui": 5}, 5, 32),
    ("mianzhu", "123m456m789m234p55p", {"situation": "tian_hu"}, {"tian_hu": 5}, 5, 32),
    ("mianzhu", "234m456m678p345s22s", {}, {"ping_hu": 0, "duan_yao_jiu": 1}, 1, 2),
    ("mianzhu", "2m3m4m4m6m 5p5p5p 6p7p8p 2p2p 5m", {"zimo": True}, {"ping_hu": 0, "zi_mo": 1, "duan_yao_jiu": 1, "qia_xin_wu": 1}, 3, 8),
    ("mianzhu", "112233m456p789p55s", {}, {"ping_hu": 0, "zi_mei_dui": 1}, 1, 2),
    ("mianzhu", "123m456m234p55p", {"melds": "gang_zhi:9s"}, {"ping_hu": 0, "gang": 1}, 1, 2),
    ("mianzhu", "123m456m789m234p55p", {"zimo": True, "situation": "gang_shang_hua"}, {"ping_hu": 0, "zi_mo": 1, "yi_tiao_long": 1, "gang_shang_hua": 2}, 4, 16),
    ("mianzhu", "5m5m", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s"}, {"dui_dui_hu": 1}, 1, 2),
    ("mianzhu", "5m5m", {"melds": "peng:1p,peng:2p,peng:3s,peng:4s", "rules": {"jin_gou_diao": "any"}}, {"dui_dui_hu": 1, "jin_gou_diao": 1}, 2, 4),
]


@pytest.mark.parametrize(("preset", "cards", "extra", "fans", "fan", "mult"), CASES)
def test_fan_table(preset: str, cards: str, extra: dict[str, Any], fans: dict[str, int], fan: int, mult: int) -> None:
    r = q(cards, preset, **dict(extra))
    assert r == {"win": True, "fans": fans, "fan": fan, "multiplier": mult}


def test_every_fan_id_is_exercised() -> None:
    from engine.mahjong.fans_sichuan import FAN_TABLES

    seen: dict[str, set[str]] = {p: set() for p in FAN_TABLES}
    for preset, _c, _e, fans, _f, _m in CASES:
        if fans:
            seen[preset] |= set(fans)
    for preset, table in FAN_TABLES.items():
        ids = {b[0] for b in table.base} | {e[0] for e in table.extras}
        ids -= {"hai_di"} if preset != "standard" else set()
        missing = ids - seen[preset] - ({"gang_shang_pao", "qiang_gang_hu"} if preset != "standard" else set())
        assert not missing, (preset, missing)


def test_only_the_highest_base_counts_and_long_qi_dui_absorbs_one_gen() -> None:
    r = q("111m333m555m777m99m")
    assert r["fans"] == {"qing_dui": 4}  # not qing_yi_se 3 + dui_dui_hu 2
    two_fours = q("1111m2222p4455s66s")
    assert two_fours["fans"] == {"long_qi_dui": 5, "gen": 1}
    assert q("1111m2222p4455s66s", "chengdu")["fans"] == {"qi_dui": 2, "gen": 2}


def test_best_interpretation_wins() -> None:
    # 11223355778899m: seven pairs (清七对 5) beats the standard split (清一色 3)
    assert q("11223355778899m")["fan"] == 5
    # 111222333m: three triplets (清对) beats three sequences
    assert q("111222333m456m99m")["fans"] == {"qing_yi_se": 3}
    assert q("111222333m444m99m")["fans"] == {"qing_dui": 4}


def test_cap_and_void() -> None:
    r = q("1111m2233m4455m66m", rules={"fan_cap": 3})
    assert r["fan"] == 6 and r["multiplier"] == 4 and r["fans"] == {"qing_long_qi_dui": 6}
    assert q("123m456m789m234p55p", void="p") == {"win": False, "reason": "SC-H1 not a winning hand (holds the void suit)"}
    assert q("123m456m789m234p56p")["win"] is False


def test_ready_and_waits() -> None:
    r = q("1p1p 2p3p4p 5p6p7p 8p8p 9p9p9p", void="s")
    assert r == {"ready": True, "waits": ["1p", "8p"], "best_fan": 3}
    assert q("1m2m3m 4m5m6m 7m8m 2s2s 5s6s 3p", void="p") == {"ready": False, "waits": [], "best_fan": 0}
    assert q("1112345678999m")["waits"] == [f"{n}m" for n in range(1, 10)]
    assert q("123m456m789m2345p", rules={"preset": "standard"})["waits"] == ["2p", "5p"]
    assert XUELIU.hand({"cards": "1m2m3m4m5m6m7m8m2s2s2s9s9s"})["waits"] == ["3m", "6m", "9m"]


@pytest.mark.parametrize(
    "query",
    [
        {"cards": "123m456m789m234p55p7z"},
        {"cards": "123m456m"},
        {"cards": "11111m456m789m234p"},
        {"cards": "123m456m234p55p", "melds": "kong:9s"},
        {"cards": "123m456m789m234p55p", "situation": "moon"},
        {"cards": "123m456m789m234p55p", "void": "z"},
        {"cards": "12x3m"},
    ],
)
def test_bad_input_is_a_value_error(query: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        XUEZHAN.hand(query)


def test_win_tile_given_separately_or_among_the_14() -> None:
    sep = q("2m3m4m4m6m 5p5p5p 6p7p8p 2p2p", "mianzhu", win_tile="5m", zimo=True)
    among = q("2m3m4m4m5m6m 5p5p5p 6p7p8p 2p2p", "mianzhu", win_tile="5m", zimo=True)
    assert sep == among and sep["fans"]["qia_xin_wu"] == 1
    pair = q("2m3m4m4m5m6m 5p5p5p 6p7p8p 2p2p", "mianzhu", win_tile="2p", zimo=True)
    assert "qia_xin_wu" not in pair["fans"] and pair["fan"] == 2
