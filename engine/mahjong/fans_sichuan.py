"""Sichuan fan tables as data (sichuan.md SC-H5 standard, SC-H6 chengdu, SC-H7 mianzhu; SC-A16/17).

A preset is a `FanTable`: base rows (id, fan, required properties; only the highest applicable row
counts, ties → earlier row), extra rows (id, fan per unit, property giving the units), the base ids
that absorb one gen (龙七对 减1根), the flat 天胡/地胡 total T and the multiplier offset z
(M = 2^(F' − z)). Chengdu's additive reading (SC-A17) is the same model: its shapes are the base rows
and 清一色 / 带幺 / 根 are extras. Properties of an interpretation are computed by
`engine.mahjong.sichuan.interpretation_props` (SC-H3/H4); an option-gated extra names its option
in `gate` and is dropped when the option's value is not in `gate_values`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FanTable:
    base: tuple[tuple[str, int, tuple[str, ...]], ...]
    extras: tuple[tuple[str, int, str], ...]
    absorbs_gen: frozenset[str]
    flat: int
    z: int


# every property a base row may require: std (a standard split), qd (seven pairs), qing, dui, yao,
# jiang, four (some kind held 4 times), nofour.
STANDARD = FanTable(
    base=(
        ("ping_hu", 1, ()),
        ("dui_dui_hu", 2, ("dui",)),
        ("qing_yi_se", 3, ("qing",)),
        ("dai_yao_jiu", 3, ("yao",)),
        ("qi_dui", 3, ("qd", "nofour")),
        ("qing_dui", 4, ("qing", "dui")),
        ("jiang_dui", 4, ("jiang",)),
        ("long_qi_dui", 5, ("qd", "four")),
        ("qing_qi_dui", 5, ("qd", "qing", "nofour")),
        ("qing_yao_jiu", 5, ("qing", "yao")),
        ("qing_long_qi_dui", 6, ("qd", "qing", "four")),
    ),
    extras=(
        ("zi_mo", 1, "zi_mo"),
        ("gang", 1, "gang"),
        ("gen", 1, "gen"),
        ("gang_shang_hua", 1, "gang_shang_hua"),
        ("gang_shang_pao", 1, "gang_shang_pao"),
        ("qiang_gang_hu", 1, "qiang_gang_hu"),
        ("jin_gou_diao", 1, "jin_gou_diao"),
        ("hai_di", 1, "hai_di"),
    ),
    absorbs_gen=frozenset({"long_qi_dui", "qing_long_qi_dui"}),
    flat=6,
    z=1,
)

CHENGDU = FanTable(
    base=(
        ("ping_hu", 0, ()),
        ("dui_dui_hu", 1, ("dui",)),
        ("qi_dui", 2, ("qd",)),
        ("jiang_dui", 3, ("jiang",)),
    ),
    extras=(
        ("qing_yi_se", 2, "qing"),
        ("dai_yao_jiu", 2, "yao"),
        ("gen", 1, "fours"),
        ("jin_gou_diao", 1, "jin_gou_diao"),
        ("gang_shang_hua", 1, "gang_shang_hua"),
        ("gang_shang_pao", 1, "gang_shang_pao"),
        ("qiang_gang_hu", 1, "qiang_gang_hu"),
        ("hai_di", 1, "hai_di"),
        ("zi_mo", 1, "zi_mo"),
    ),
    absorbs_gen=frozenset(),
    flat=5,
    z=0,
)

MIANZHU = FanTable(
    base=(
        ("ping_hu", 0, ()),
        ("dui_dui_hu", 1, ("dui",)),
        ("qi_dui", 2, ("qd", "nofour")),
        ("qing_yi_se", 2, ("qing",)),
        ("jiang_dui", 3, ("jiang",)),
        ("qing_dui", 3, ("qing", "dui")),
        ("long_qi_dui", 4, ("qd", "four")),
        ("qing_qi_dui", 4, ("qd", "qing", "nofour")),
        ("qing_long_qi_dui", 5, ("qd", "qing", "four")),
    ),
    extras=(
        ("zi_mo", 1, "zi_mo"),
        ("duan_yao_jiu", 1, "duan_yao_jiu"),
        ("qia_xin_wu", 1, "qia_xin_wu"),
        ("zi_mei_dui", 1, "zi_mei_dui"),
        ("yi_tiao_long", 1, "yi_tiao_long"),
        ("gen", 1, "gen"),
        ("gang", 1, "gang"),
        ("gang_shang_hua", 2, "gang_shang_hua"),
        ("gang_shang_pao", 1, "gang_shang_pao"),
        ("qiang_gang_hu", 1, "qiang_gang_hu"),
        ("jin_gou_diao", 1, "jin_gou_diao"),
        ("hai_di", 1, "hai_di"),
    ),
    absorbs_gen=frozenset({"long_qi_dui", "qing_long_qi_dui"}),
    flat=5,
    z=0,
)

FAN_TABLES: dict[str, FanTable] = {"standard": STANDARD, "chengdu": CHENGDU, "mianzhu": MIANZHU}

PRESET_OPTIONS: dict[str, dict[str, object]] = {
    "standard": {},
    "chengdu": {"fan_cap": 4, "zi_mo_bonus": "jia_di", "tian_di_hu": False},
    "mianzhu": {"jin_gou_diao": "off", "zhi_gang_units": 2},
}
"""Option defaults each preset changes (sichuan.md section 6)."""
