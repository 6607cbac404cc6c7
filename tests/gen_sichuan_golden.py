"""Regenerates the Sichuan golden logs (tests/data/golden/sichuan_*.jsonl) from the worked examples.

Run: `.venv/bin/python tests/gen_sichuan_golden.py`. Each scenario scripts sichuan.md SC-En on the
real engine (tests/sichuan_builder.py); the trailing `settled` holds the deltas the rule file states,
so a replay that disagrees with the rule file shows `settlement_matches: false`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sichuan_builder import Builder

from engine.mahjong.sichuan import ting_value
from engine.replay import replay
from events.codec import parse_line

OUT = Path(__file__).resolve().parent / "data" / "golden"


def e1(
    rules: dict | None = None, name: str = "e1_an_gang_kong_flower", expect: list[int] | None = None, direction: str = "opposite"
) -> tuple[str, Builder, list[int]]:
    """SC-E1: an gang then 杠上花."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard"}, 0,
        ["1m2m2m3m4m5m5m7m8m8m9m 1p4p 7p", "1m1m3m6m9m 1s4s7s 2s8s9s6s 6m",
         "1p2p3p 6p7p8p 9p 2s3s4s 5s5s5s", "2m4m6m8m3m7m 1s3s6s8s9s7s 4s"],
        "spmp", reserve="5s 9p", direction=direction,
    )  # fmt: skip
    b.do("discard", 0, "9m")
    b.fill_until(2)
    b.draw(2, "5s")
    b.do("gang", 2, "5s", "an")
    b.draw(2, "9p")
    b.do("hu", 2, "9p")
    b.fill_to_end()
    return name, b, expect or [-10, -10, 30, -10]


def e2(
    rules: dict | None = None,
    name: str = "e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang",
    expect: list[int] | None = None,
    single: bool = False,
) -> tuple[str, Builder, list[int]]:
    """SC-E2: bu gang, 杠上炮 with 呼叫转移, 一炮多响, 龙七对."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard"}, 0,
        ["9s9s 3p 1p5p9p 2p 7p 1s4s7s 3s 6s 8s", "1m1m 2m3m4m 5m6m7m 7m8m9m 1p2p",
         "junk:ms", "4p4p4p4p 6p6p 8p8p 2s2s 5s5s 3p"],
        "mspm", reserve="9s 9s 2s",
    )  # fmt: skip
    b.do("discard", 0, "8s")
    b.draw(1, "9s")
    b.do("discard", 1, "9s")
    b.do("peng", 0, "9s")
    b.do("discard", 0, "6s")
    b.fill_until(0)
    b.draw(0, "9s")
    b.do("gang", 0, "9s", "bu")
    b.draw(0, "2s")
    b.do("discard", 0, "3p")
    b.do("hu", 1, "3p")
    if not single:
        b.do("hu", 3, "3p")
    b.fill_to_end()
    return name, b, expect or [-37, 4, -1, 34]


def e3(rules: dict | None = None, name: str = "e3_rob_bu_gang", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E3: robbing a bu gang (抢杠胡)."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard"}, 0,
        ["junk:ms:8s", "junk:ps", "junk:mp:5p5p6p", "3p4p 1s2s3s 2s2s2s 7s7s 7p8p9p"],
        "pmsm", reserve="5p 5p",
    )  # fmt: skip
    b.do("discard", 0, "8s")
    b.draw(1, "5p")
    b.do("discard", 1, "5p")
    b.do("peng", 2, "5p")
    b.do("discard", 2, "6p")
    b.fill_until(2)
    b.draw(2, "5p")
    b.do("gang", 2, "5p", "bu")
    b.do("hu", 3, "5p")
    b.fill_to_end()
    return name, b, expect or [0, 0, -4, 4]


def e4(rules: dict | None = None, name: str = "e4_exhaustive_hua_zhu_da_jiao_tui_shui", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E4: exhaustive draw with 花猪, 大叫 and 退税 (que_discard_first off).

    The rule file gives seat 3 `5s6s`, which with seat 1's gang of 6s would need a fifth 6s; seat 3
    holds `5s7s` instead (it is a 花猪 either way, so no flow changes).
    """
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard", "que_discard_first": False}, 0,
        ["1m2m3m 4m5m6m 7m8m 2s3s4s 7s7s 1s", "6s6s6s 1p3p5p7p9p 2s4s8s 9s9s",
         "1p1p 2p3p4p 5p6p7p 8p8p 9p9p9p", "1m2m3m 4m5m6m 7m8m 2s2s 5s7s 3p"],
        "pmsp", reserve="6s 9m",
    )  # fmt: skip
    b.do("discard", 0, "1s")
    b.fill_until(2)
    b.draw(2, "6s")
    b.do("discard", 2, "6s")
    b.do("gang", 1, "6s", "zhi")
    b.filler()  # replacement draw
    b.filler()  # and its discard
    b.fill_until(0)
    b.draw(0, "9m")
    b.do("hu", 0, "9m")
    b.fill_to_end()
    return name, b, expect or [6, 10, 18, -34]


def e5(rules: dict | None = None, name: str = "e5_xueliu_two_wins", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E5: 血流成河, one seat wins twice; the lock forces the drawn 3p out."""
    b = Builder(
        name, "sichuan_xueliu", rules or {"preset": "standard"}, 0,
        ["1p2p3p 4p5p6p 7p8p9p 1s2s 5s5s 9p", "1m2m3m 4m5m6m 7m8m 2s2s2s 9s9s",
         "4m4m4m 5m5m5m 2p2p2p 7p7p 8p9p", "1s1s1s 3s3s3s 6s6s6s 8s8s 2m2m"],
        "mpsp", reserve="6m 3p 9m",
    )  # fmt: skip
    b.do("discard", 0, "9p")
    b.fill_until(3)
    b.draw(3, "6m")
    b.do("discard", 3, "6m")
    b.do("hu", 1, "6m")
    b.fill_until(1)
    b.draw(1, "3p")
    b.do("discard", 1, "3p")
    b.fill_until(1)
    b.draw(1, "9m")
    b.do("hu", 1, "9m")
    b.fill_to_end()
    return name, b, expect or [-2, 7, -2, -3]


def e6(rules: dict | None = None, name: str = "e6_chengdu_cap_jia_di", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E6: Chengdu cap 4 and 自摸加底."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "chengdu"}, 0,
        ["junk:ms:9s", "junk:mp", "junk:ms", "3p3p3p 4p4p4p 6p6p 8p8p 9p9p 1s"],
        "pspm", reserve="3p 6p 4p 9p",
    )  # fmt: skip
    b.do("discard", 0, "9s")
    b.fill_until(3)
    b.draw(3, "3p")
    b.do("gang", 3, "3p", "an")
    b.filler()  # replacement draw
    b.filler()  # and its discard
    b.fill_until(1)
    b.draw(1, "6p")
    b.do("discard", 1, "6p")
    b.do("peng", 3, "6p")
    b.do("discard", 3, "1s")
    b.fill_until(3)
    b.draw(3, "4p")
    b.do("gang", 3, "4p", "an")
    b.draw(3, "9p")
    b.do("hu", 3, "9p")
    b.fill_to_end()
    return name, b, expect or [-21, -21, -21, 63]


def e7(rules: dict | None = None, name: str = "e7_mianzhu_zi_kou_duan_yao_qia_xin_wu", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E7: Mianzhu 自抠, 断幺九, 掐心五, zhi gang 2 units."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "mianzhu"}, 2,
        ["9s9s9s 1p2p3p 4p5p6p 7p8p 1s1s", "2m3m4m 4m6m 5p5p5p 6p7p8p 2p2p",
         "1m1m1m 3m3m 7m8m9m 3s4s5s 6s7s 9s", "7s7s7s 8s8s8s 2s2s 5s6s 9m9m9m"],
        "mspp", reserve="5m",
    )  # fmt: skip
    b.do("discard", 2, "9s")
    b.do("gang", 0, "9s", "zhi")
    b.filler()  # replacement draw
    b.filler()  # and its discard
    b.fill_until(1)
    b.draw(1, "5m")
    b.do("hu", 1, "5m")
    b.fill_to_end()
    return name, b, expect or [-6, 24, -10, -8]


def e8(rules: dict | None = None, name: str = "e8_dian_gang_hua_bao", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E8: 点杠花 paid in full by the feeder (包)."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard"}, 0,
        ["junk:mp:8s", "junk:ms", "8s8s8s 1p2p3p 4p5p6p 7p 3s4s5s", "junk:ps"],
        "spmm", reserve="7p",
    )  # fmt: skip
    b.do("discard", 0, "8s")
    b.do("gang", 2, "8s", "zhi")
    b.draw(2, "7p")
    b.do("hu", 2, "7p")
    b.fill_to_end()
    return name, b, expect or [-25, 0, 25, 0]


def e9(rules: dict | None = None, name: str = "e9_pass_lock_last_four", expect: list[int] | None = None) -> tuple[str, Builder, list[int]]:
    """SC-E9: the pass lock, then the compulsory win in the last four tiles."""
    b = Builder(
        name, "sichuan_xuezhan", rules or {"preset": "standard"}, 0,
        ["junk:ps:1p4p9s", "1m2m3m 4m5m6m 7m8m9m 2p3p 5p5p", "junk:ps:1p4p", "junk:mp:1p4p"],
        "msms", reserve="1p 4p",
    )  # fmt: skip
    b.do("discard", 0, "9s")
    b.fill_until(3, remaining=21)
    b.draw(3, "1p")
    b.do("discard", 3, "1p")
    b.fill_until(0, remaining=4)
    b.draw(0, "4p")
    b.do("discard", 0, "4p")
    b.do("hu", 1, "4p")
    b.fill_to_end()
    return name, b, expect or [-1, 1, 0, 0]


SCENARIOS: list[Callable[[], tuple[str, Builder, list[int]]]] = [e1, e2, e3, e4, e5, e6, e7, e8, e9]


def variants() -> list[tuple[str, Builder, list[int]]]:
    """Option variants of the examples (their deltas computed by hand from the rule file)."""
    out = []
    # E8 with dian_gang_hua = zimo: each of 0, 1, 3 pays 8 (SC-S2); seat 0 also paid the zhi gang 1
    out.append(e8({"preset": "standard", "dian_gang_hua": "zimo"}, "e8_dian_gang_hua_zimo", [-9, -8, 25, -8]))
    # E8 with dian_gang_hua = dian_pao: seat 0 alone pays a discard-valued win: ping 1 + gang 1 + gsh 1 = 3 → 4
    out.append(e8({"preset": "standard", "dian_gang_hua": "dian_pao"}, "e8_dian_gang_hua_dian_pao", [-5, 0, 5, 0]))
    # E2 without 呼叫转移: seat 0 pays 2 and 32 only, and its bu gang is no longer transferred, so at the
    # exhaustive draw seat 0 (not ready) refunds the 3 units (SC-S9)
    out.append(e2({"preset": "standard", "gang_shang_pao_transfer": False}, "e2_no_transfer", [3 - 34 - 3, -1 + 2 + 1, -1 + 1, -1 + 32 + 1]))
    # E1 with replacement draws from the tail
    out.append(e1({"preset": "standard", "replacement_from": "tail"}, "e1_replacement_from_tail"))
    # E6 without the cap: F = 6 → M = 64, share 65
    out.append(e6({"preset": "chengdu", "fan_cap": 0}, "e6_chengdu_no_cap", [-4 - 65, -4 - 65, -4 - 65, 12 + 195]))
    # E4 with huazhu_pays_winners: seat 3 also pays 16 to seat 0
    out.append(e4({"preset": "standard", "que_discard_first": False, "huazhu_pays_winners": True}, "e4_huazhu_pays_winners", [22, 10, 18, -50]))
    # E2 without 一炮多响: the nearer seat 1 alone wins (2 + G 3); seat 3 stays ready on 3p (龙七对 5 →
    # 16) and collects 查大叫 from the unready seats 0 and 2 at the exhaustive draw
    out.append(e2({"preset": "standard", "yi_pao_duo_xiang": False}, "e2_single_hu_nearest", [3 - 5 - 16, -1 + 5, -1 - 16, -1 + 32], single=True))
    # E1 with the exchange passed clockwise (to the 上家)
    out.append(e1(None, "e1_exchange_clockwise", direction="clockwise"))
    # E1 without 换三张
    out.append(e1({"preset": "standard", "huan_san_zhang": False}, "e1_no_exchange"))
    return out


def main() -> None:
    built = [f() for f in SCENARIOS] + variants()
    for name, b, deltas in built:
        lines = b.lines(deltas)
        r = replay([parse_line(x.encode()) for x in lines])
        ok = r.status == "finished" and r.settlement_matches
        print(f"{name}: {r.status} {r.deltas} expected {deltas} {'OK' if ok else 'MISMATCH'} events={len(lines)}")
        if not ok:
            print(r.error)
            for it in r.items:
                print("   ", it)
            st = b.state
            for s in range(4):
                print("   seat", s, ting_value(st.rules, st.hands[s], st.melds[s], st.void[s]))
        (OUT / f"sichuan_{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
