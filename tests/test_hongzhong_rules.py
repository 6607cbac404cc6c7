"""Hongzhong rules beyond the worked examples: 点杠花包, late bu gang, rob order, the last tile."""

from __future__ import annotations

import json
from typing import Any

from engine.replay import replay
from events.codec import parse_line
from tests.mj_golden_builder import build, cycle, make, to_lines
from tests.test_hongzhong import load, run

H = "hongzhong"

GANG_HUA = {
    "game": H, "dealer": 0,
    "hands": {1: ["9m"], 3: ["9m", "9m", "9m", "1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s", "5s"]},
    "events": [("discard", 0, "?"), ("draw", 1, "?"), ("discard", 1, "9m"), ("gang", 3, "9m", "zhi"), ("draw", 3, "5s"), ("hu", 3, "5s")],
    "after": ["2m", "3m", "4m", "6m", "7m"],
    "avoid": ["7z"],
}


def _items(lines: list[str]) -> list[dict[str, Any]]:
    return replay([parse_line(ln) for ln in lines]).items


def test_gang_shang_hua_is_plain_zimo() -> None:
    # 接杠 3 from seat 1; r = 0 → 5 birds, no hit → share 2 from each
    lines = make({**GANG_HUA, "name": "hz_gsh", "deltas": [-2, -5, -2, 9]})
    kinds = {(it["kind"], it["from"]) for it in _items(lines)}
    assert ("gang_zhi", 1) in kinds and ("zi_mo", 0) in kinds


def test_dian_gang_hua_bao() -> None:
    lines = make({**GANG_HUA, "name": "hz_dgh", "rules": {"dian_gang_hua_bao": True}, "deltas": [0, -9, 0, 9]})
    win = [it for it in _items(lines) if it["kind"] == "zi_mo"]
    assert len(win) == 1 and win[0]["from"] == 1 and win[0]["points"] == 6 and win[0]["bao"] is True


def _first(spec: dict[str, Any], ok: Any) -> Any:
    for seed in range(400):
        log = build(spec, seed)
        if log is None:
            continue
        res = replay([parse_line(ln) for ln in to_lines("x", log, None)])
        if ok(res):
            return res
    raise AssertionError("no seed")


LATE = {
    "game": H, "dealer": 1,
    "hands": {1: ["4s"], 0: ["4s", "4s"]},
    "events": [("discard", 1, "4s"), ("peng", 0, "4s"), ("discard", 0, "?"), *cycle(1, 3), ("draw", 0, "4s"), ("discard", 0, "?"),
               *cycle(1, 3), ("draw", 0, "?"), ("gang", 0, "4s", "bu")],
    "avoid": ["7z"],
}


def test_late_bu_gang_refused_unless_option_off() -> None:
    res = _first(LATE, lambda r: r.error is None or "HZ-R10" not in r.error["message"])
    assert res.error["code"] == "illegal_move" and "HZ-R9" in res.error["message"]
    res = _first({**LATE, "rules": {"bu_gang_immediate": False}}, lambda r: r.error is None or "HZ-R10" not in r.error["message"])
    assert res.error is None and res.status == "incomplete"  # the kong waits for its rob window / replacement


def test_robbers_in_turn_order() -> None:
    ev = load("hongzhong_e8_two_robbers")[:-1]
    a, b = ev[-2], ev[-1]
    res = run([*ev[:-2], {**b, "seq": a["seq"]}, {**a, "seq": b["seq"]}])
    assert res.error["code"] == "illegal_claim" and "HZ-R11" in res.error["message"]  # HZ-R11 Rob the kong


def test_last_tile_without_forced_zimo() -> None:
    ev = load("hongzhong_e7_last_tile_birds_cut")
    ev[0]["rules"] = {"forced_zimo": False}
    res = run(ev)
    assert res.status == "finished" and res.deltas == [-8, -8, -8, 24]
    res = run(ev[:-2])  # the draw of the last drawable tile, no hu: 臭庄
    assert res.status == "finished" and res.deltas == [0, 0, 0, 0] and res.winners == []
    bad = {**ev[-2], "type": "discard"}
    res = run([*ev[:-2], bad])
    assert res.error["code"] == "after_end"  # HZ-R12: only a hu may follow the last drawable tile


def test_si_hongzhong_off_and_any_time() -> None:
    ev = load("hongzhong_e5_si_hong_zhong")
    ev[0]["rules"] = {"si_hongzhong": "off"}
    res = run(ev)
    assert res.error["code"] == "illegal_claim"  # not its turn: the dealer acts first
    ev[0]["rules"] = {"si_hongzhong": "any_time"}
    assert run(ev).deltas == [-6, -6, 18, -6]


def test_golden_files_are_contract_jsonl() -> None:
    for name in ("hongzhong_e1_zimo_wild", "hongzhong_e8_two_robbers"):
        for i, e in enumerate(load(name)):
            assert e["seq"] == i and isinstance(json.dumps(e), str)


def test_view_at_the_end_shows_birds() -> None:
    from engine.mahjong.hongzhong import HONGZHONG
    from engine.replay import replay_with_steps

    ev = load("hongzhong_e1_zimo_wild")
    steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in ev])
    v = HONGZHONG.view(steps[-2].state)
    assert v["phase"] == "end" and v["turn"] is None and v["winners"] == [1]
    assert v["birds"] == {1: {"birds": ["5s", "3m", "7z", "8p"], "hits": 2}}
    json.dumps(v)
