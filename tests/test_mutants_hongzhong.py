"""Mutation-killing tests for Hongzhong settlement (issue 17): the golden logs of HZ-E1..E8 re-priced
under other options and stakes (HZ-S1..S5, HZ-C stake b), the settlement record (HZ-S7), and the
kong-feed flower HZ-S5 on a log built by tests/mj_golden_builder.py (fillers chosen by its own rule,
not by the engine). Every amount is worked out by hand from hongzhong.md in the docstrings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"
NAMES = sorted(p.stem for p in GOLDEN.glob("hongzhong_*.jsonl"))


def _load(name: str) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in (GOLDEN / f"{name}.jsonl").read_text().splitlines() if '"settled"' not in ln]


def _run(evs: list[dict[str, Any]]) -> Any:
    return replay([parse_line(json.dumps(e)) for e in evs])


def _priced(name: str, base: int = 1, **rules: Any) -> Any:
    evs = _load(name)
    evs[0] = {**evs[0], "base": base, "rules": {**evs[0]["rules"], **rules}}
    r = _run(evs)
    assert r.error is None and r.status == "finished", r.error
    return r


def _flows(r: Any) -> list[tuple[str, int, int, int]]:
    return sorted((i["kind"], i["seat"], i["from"], i["points"]) for i in r.items)


def test_e2_at_other_units_and_stake() -> None:
    """HZ-E2 with an_gang_units 3, zimo_units 3, bird_units 1, b = 2: the an gang costs each other seat
    3·2 = 6 (HZ-S1); 3 hits → share = 3 + 1·3 = 6 → 12 at b = 2 from each (HZ-S3).
    Δ = [−18, −18, +54, −18]."""
    r = _priced("hongzhong_e2_an_gang_jia_ma", base=2, an_gang_units=3, zimo_units=3, bird_units=1)
    assert _flows(r) == sorted([("gang_an", 2, o, 6) for o in (0, 1, 3)] + [("zi_mo", 2, o, 12) for o in (0, 1, 3)])
    assert r.deltas == [-18, -18, 54, -18]


def test_e2_kong_flower_bao_needs_a_zhi_gang() -> None:
    """HZ-S5 is only for the replacement of a *zhi* gang: HZ-E2's win follows an an gang, so with
    dian_gang_hua_bao on the three shares are still paid by each seat (Δ as in HZ-E2)."""
    r = _priced("hongzhong_e2_an_gang_jia_ma", dian_gang_hua_bao=True)
    assert r.deltas == [-10, -10, 30, -10]
    assert not any(i.get("bao") for i in r.items)


def test_e3_rob_at_other_units() -> None:
    """HZ-E3 with zimo_units 1 and bird_units 3: h = 2 → share = 1 + 3·2 = 7; the robbed seat pays 3·7 = 21
    (HZ-S4). Δ = [−21, 0, 0, +21]."""
    r = _priced("hongzhong_e3_qiang_gang", zimo_units=1, bird_units=3)
    assert _flows(r) == [("qiang_gang_hu", 3, 0, 21)]


def test_e8_two_robbers_at_stake_three() -> None:
    """HZ-E8 at b = 3: each robber h = 2 → share 6 → seat 1 pays 3·6·3 = 54 to each. Δ = [0, −108, 54, 54]."""
    r = _priced("hongzhong_e8_two_robbers", base=3)
    assert _flows(r) == [("qiang_gang_hu", 2, 1, 54), ("qiang_gang_hu", 3, 1, 54)]


def test_e4_kongs_at_stake_two_and_an_units_do_not_touch_bu() -> None:
    """HZ-E4 at b = 2 (an_gang_units 5 has no an gang to price): bu gang 1·2 from each of 1, 2, 3; zhi
    gang discarder_3: seat 1 pays 3·2 = 6. Δ = [+6, −2 − 6, −2, −2 + 6] = [6, −8, −2, 4]."""
    r = _priced("hongzhong_e4_kongs_chou_zhuang", base=2, an_gang_units=5)
    assert _flows(r) == sorted([("gang_bu", 0, o, 2) for o in (1, 2, 3)] + [("gang_zhi", 3, 1, 6)])
    assert r.deltas == [6, -8, -2, 4]


def test_e4_huang_gang_refunds_at_stake_two() -> None:
    """HZ-S6 with huang_zhuang_huang_gang: every kong payment goes back to its payer: Δ = 0 for all, and
    each refund line mirrors its kong line (2 per bu line, 6 for the zhi)."""
    r = _priced("hongzhong_e4_kongs_chou_zhuang", base=2, huang_zhuang_huang_gang=True)
    assert r.deltas == [0, 0, 0, 0]
    refunds = sorted((i["seat"], i["from"], i["points"], i["tile"], i["seq"]) for i in r.items if i["kind"] == "huang_zhuang_refund")
    kongs = sorted((i["from"], i["seat"], i["points"], i["tile"], i["seq"]) for i in r.items if i["kind"].startswith("gang_"))
    assert refunds == kongs and len(kongs) == 4


@pytest.mark.parametrize("name", NAMES)
def test_every_flow_names_its_event_and_reason(name: str) -> None:
    """HZ-S7: each flow names its event index and reason. From the log text: a kong flow is the seq of
    that seat's `gang` of that tile, or for a bu gang of the replacement draw that confirms it (HZ-S1
    "paid when confirmed"), and names the tile; a win flow the seq of the winner's `hu`, with
    the winning tile, reason hu_qianggang for a rob (HZ-R11) else hu_zimo, and share = the amount a
    payer pays per win (HZ-S3: amount / b; for a rob or a bao win 3 shares, HZ-S4/S5)."""
    evs = _load(name)
    r = _run(evs)
    assert r.error is None
    gangs = {(e["seat"], e["tile"]): e["seq"] for e in evs if e["type"] == "gang"}
    kinds = {(e["seat"], e["tile"]): e["kind"] for e in evs if e["type"] == "gang"}
    hus = {e["seat"]: e for e in evs if e["type"] == "hu"}
    robbed = {e["seat"] for e in evs if e["type"] == "gang" and e.get("kind") == "bu"}
    b = evs[0]["base"]
    for it in r.items:
        k = it["kind"]
        if k.startswith("gang_") or k == "huang_zhuang_refund":
            owner = it["seat"] if k.startswith("gang_") else it["from"]
            g = gangs[(owner, it["tile"])]
            # an / zhi pay at the gang; a bu gang when its replacement draw confirms it (the next event, HZ-R9)
            assert it["seq"] == (g + 1 if kinds[(owner, it["tile"])] == "bu" else g), it
            assert set(it) == {"kind", "seat", "from", "points", "tile", "seq"}, it
            continue
        hu = hus[it["seat"]]
        assert (it["seq"], it["tile"]) == (hu["seq"], hu["tile"]), it
        rob = k == "qiang_gang_hu"
        assert it["reason"] == ("hu_qianggang" if rob else "hu_zimo"), it
        assert it["points"] == (3 if rob or it.get("bao") else 1) * it["share"] * b, it
        assert it["fans"] == {} and it["fan"] == 0
        if rob:
            assert it["from"] in robbed


def _s5_log(**rules: Any) -> list[dict[str, Any]]:
    from tests.mj_golden_builder import make

    spec = {
        "name": "hz_s5_bao", "game": "hongzhong", "dealer": 0, "rules": rules,
        "hands": {0: ["9m"], 2: ["9m", "9m", "9m", "1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "2m"]},
        "events": [("discard", 0, "9m"), ("gang", 2, "9m", "zhi"), ("draw", 2, "2m"), ("hu", 2, "2m")],
        "after": ["3m", "4p", "6s", "2s", "8p"], "avoid": ["7z"], "deltas": None,
    }  # fmt: skip
    return [json.loads(x) for x in make(spec) if '"settled"' not in x]


@pytest.mark.parametrize(
    ("rules", "deltas", "win_lines"),
    [
        # bao: seat 0 fed the zhi gang (pays 3 for it, discarder_3) and pays all three shares 3·2 = 6
        ({"dian_gang_hua_bao": True}, [-9, 0, 9, 0], [(0, 6)]),
        # option off (default): an ordinary self-draw, 2 from each other seat
        ({}, [-5, -2, 9, -2], [(0, 2), (1, 2), (3, 2)]),
        # each_1: every other seat pays 1 for the zhi gang; bao still puts the 6 on the feeder
        ({"dian_gang_hua_bao": True, "zhi_gang_payment": "each_1"}, [-7, -1, 9, -1], [(0, 6)]),
    ],
)
def test_kong_feed_flower(rules: dict[str, Any], deltas: list[int], win_lines: list[tuple[int, int]]) -> None:
    """HZ-S5: seat 0 discards 9m, seat 2 (9m9m9m 123p 456s 789s 2m) declares gang zhi, draws its
    replacement 2m and wins: gang 9m + 123p 456s 789s, pair 22m, no 红中 (r = 0) → 5 birds 3m 4p 6s 2s
    8p, no hit (HZ-S2) → share 2 (HZ-S3)."""
    r = _run(_s5_log(**rules))
    assert r.error is None and r.status == "finished", r.error
    wins = sorted((i["from"], i["points"]) for i in r.items if i["kind"] == "zi_mo")
    assert wins == win_lines
    assert all(i.get("bao") is (True if rules.get("dian_gang_hua_bao") else None) for i in r.items if i["kind"] == "zi_mo")
    assert r.deltas == deltas


def test_kong_feed_flower_at_stake_two_keeps_the_win_record() -> None:
    """HZ-S5 at b = 2: the feeder pays 3·2 = 6 for the zhi gang and 3·2·2 = 12 for the win;
    Δ = [−18, 0, +18, 0]. The bao line still carries the win's record (HZ-S7: birds, hits, r, share)."""
    evs = _s5_log(dian_gang_hua_bao=True)
    evs[0] = {**evs[0], "base": 2}
    r = _run(evs)
    assert r.error is None, r.error
    (w,) = [i for i in r.items if i["kind"] == "zi_mo"]
    assert (w["from"], w["points"], w["bao"]) == (0, 12, True)
    assert type(w["points"]) is int
    assert (w["birds"], w["hits"], w["r"], w["share"], w["reason"], w["tile"]) == (["3m", "4p", "6s", "2s", "8p"], 0, 0, 2, "hu_zimo", "2m")
    assert r.deltas == [-18, 0, 18, 0]


def test_seven_pairs_win_is_recorded_as_qi_dui() -> None:
    """HZ-H3/H5 with qi_dui on: seat 1 holds 1m1m 2m2m 3p3p 4p4p 6s6s 8s8s 9m and self-draws 9m: seven
    pairs only (no standard split), win kind `qi_dui`, paid like a self-draw (HZ-S3): no 红中 → r = 0 →
    5 birds 3m 4p 6p 2s 8p, no hit → share 2 from each other seat. Δ = [−2, +6, −2, −2]."""
    from tests.mj_golden_builder import make

    spec = {
        "name": "hz_qi_dui", "game": "hongzhong", "dealer": 0, "rules": {"qi_dui": True},
        "hands": {1: ["1m", "1m", "2m", "2m", "3p", "3p", "4p", "4p", "6s", "6s", "8s", "8s", "9m"]},
        "events": [("discard", 0, "?"), ("draw", 1, "9m"), ("hu", 1, "9m")],
        "after": ["3m", "4p", "6p", "2s", "8p"], "avoid": ["7z"], "deltas": None,
    }  # fmt: skip
    r = _run([json.loads(x) for x in make(spec) if '"settled"' not in x])
    assert r.error is None and r.status == "finished", r.error
    assert sorted((i["kind"], i["from"], i["points"]) for i in r.items) == [("qi_dui", o, 2) for o in (0, 2, 3)]
    assert r.deltas == [-2, 6, -2, -2]
