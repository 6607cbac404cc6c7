"""Anshun rules beyond the worked examples: AS-R6 with the winner's own 豆 or a 转弯豆 热炮,
`ji_requires_ting`, `fan_fan = false`."""

from __future__ import annotations

from typing import Any

from engine.replay import replay
from events.codec import parse_line
from tests.mj_golden_builder import cycle, make
from tests.test_anshun import load, run

A = "anshun"


def _items(lines: list[str]) -> list[dict[str, Any]]:
    return replay([parse_line(ln) for ln in lines]).items


OWN_DOU = {
    "game": A, "dealer": 0,
    "hands": {1: ["5m", "5m", "5m", "5m", "1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s"], 2: ["6s"]},
    "events": [("discard", 0, "?"), ("draw", 1, "9s"), ("gang", 1, "5m", "an"), ("draw", 1, "?"), ("discard", 1, "?"),
               ("draw", 2, "?"), ("discard", 2, "6s"), ("hu", 1, "6s")],
    "after": ["4s"],
    "avoid": ["1s", "3s", "5s"],
}


def test_ping_hu_on_discard_with_own_men_dou() -> None:
    # AS-R6 (i): 平胡 B = 1 from seat 2; 闷豆 2 from each other seat
    lines = make({**OWN_DOU, "name": "as_own", "deltas": [-2, 7, -3, -2]})
    kinds = sorted({it["kind"] for it in _items(lines)})
    assert kinds == ["hu_dianpao", "men_dou"]


ZHUAN_WAN_RE_PAO = {
    "game": A, "dealer": 0,
    "hands": {0: ["8m", "1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s", "9s", "2m", "3m", "4m"], 3: ["8m", "8m", "6s"]},
    "events": [("discard", 0, "8m"), ("peng", 3, "8m"), ("discard", 3, "?"), *cycle(0, 3), ("draw", 3, "8m"), ("gang", 3, "8m", "bu"),
               ("draw", 3, "?"), ("discard", 3, "6s"), ("hu", 0, "6s")],
    "after": ["4s"],
    "avoid": ["1s", "3s", "5s"],
}


def test_ping_hu_on_zhuan_wan_dou_re_pao() -> None:
    # AS-R6 (ii) + AS-S5: B = 1 and H = 3 from seat 3; the 转弯豆 is void
    lines = make({**ZHUAN_WAN_RE_PAO, "name": "as_rp", "deltas": [4, 0, 0, -4]})
    got = {(it["kind"], it["points"]) for it in _items(lines)}
    assert got == {("hu_dianpao", 1), ("re_pao", 3)}


def test_ji_requires_ting() -> None:
    # AS-E1 with ji_requires_ting: seats 0 and 3 are not ready here, so only the winner's 1s is paid
    ev = load("anshun_e1_zimo_chong_feng_ji")
    ev[0]["rules"] = {"ji_requires_ting": True}
    ev.pop()
    from engine.mahjong.anshun import ANSHUN
    from engine.replay import replay_with_steps

    steps, res = replay_with_steps([parse_line(__import__("json").dumps(e)) for e in ev])
    end = steps[-1].state
    assert not ANSHUN.ready_waits(end, 0) and not ANSHUN.ready_waits(end, 3)  # this golden's filler
    assert res.deltas == [-3, 9, -3, -3]
    assert {it["kind"] for it in res.items} == {"hu_zimo", "ji"}


def test_fan_fan_off() -> None:
    ev = load("anshun_e4_tian_ting_sha_bao")
    ev[0]["rules"] = {"fan_fan": False}
    ev.pop()
    res = run(ev)
    assert res.deltas == [-15, -5, 25, -5]
    ev = load("anshun_e1_zimo_chong_feng_ji")
    ev[0]["rules"] = {"fan_fan": False}
    assert run(ev).deltas == [2, 6, -6, -2]  # 平胡 self-draw still pays 2


def test_view_at_the_end_shows_flip() -> None:
    import json

    from engine.mahjong.anshun import ANSHUN
    from engine.replay import replay_with_steps

    ev = load("anshun_e5_tian_ting_dian_pao_dou")
    steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in ev])
    v = ANSHUN.view(steps[-2].state)
    assert v["flip"] == "1p" and v["yaobai"] == ["9p", "2p"] and v["tian_ting"] == [1] and v["next_dealer"] == 1
    assert [m["kind"] for m in v["melds"][3]] == ["gang_bu"] and [m["kind"] for m in v["melds"][2]] == ["gang_zhi"]
    json.dumps(v)
