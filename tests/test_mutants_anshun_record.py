"""Mutation-killing tests for the Anshun settlement record (issue 17): every worked-example golden
(AS-E1..E7 and variants, deltas frozen from anshun.md) re-priced at stake b = 3 (AS-C5: every amount is
points × b, so each delta triples and stays an integer), and each line naming its event, tile and
chicken count from the log text (AS-S7, events.md §6 items)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"
NAMES = sorted(p.stem for p in GOLDEN.glob("anshun_*.jsonl"))


def _load(name: str) -> tuple[list[dict[str, Any]], list[int]]:
    rows = [json.loads(ln) for ln in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]
    return [e for e in rows if e["type"] != "settled"], next(e["deltas"] for e in rows if e["type"] == "settled")


@pytest.mark.parametrize("name", NAMES)
def test_stake_three_triples_every_amount(name: str) -> None:
    evs, deltas = _load(name)
    evs[0] = {**evs[0], "base": 3}
    r = replay([parse_line(json.dumps(e)) for e in evs])
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == [3 * d for d in deltas]
    assert all(type(i["points"]) is int for i in r.items)


@pytest.mark.parametrize("name", NAMES)
def test_every_line_names_its_event(name: str) -> None:
    """Kong (豆) lines: the seq of that seat's `gang` of that tile, or of the replacement draw confirming a
    bu gang, and the tile; win lines: the `hu` event's seq and tile; 杀报 lines the win's seq; chicken
    lines the tile, the count held and its value; 冲锋鸡 the seq of the hand's first 1s discard."""
    evs, _ = _load(name)
    r = replay([parse_line(json.dumps(e)) for e in evs])
    gangs = {(e["seat"], e["tile"]): (e["seq"], e["kind"]) for e in evs if e["type"] == "gang"}
    hus = {e["seat"]: e for e in evs if e["type"] == "hu"}
    first_1s = next(((e["seq"], e["seat"]) for e in evs if e["type"] == "discard" and e["tile"] == "1s"), None)
    for it in r.items:
        k = it["kind"]
        if k in ("ji", "chong_feng_ji"):  # AS-S7 steps 1-2: the flip and the 摇摆 set it gives
            assert set(it) >= {"flip", "yaobai"} and isinstance(it["yaobai"], list), it
        if k in ("hu_zimo", "hu_dianpao", "hu_qianggang"):
            assert (it["seq"], it["tile"]) == (hus[it["seat"]]["seq"], hus[it["seat"]]["tile"]), it
            if k != "hu_dianpao":  # AS-S2 / AS-S4: Z from each payer, or 3·Z from the robbed seat (bao_san_jia)
                bao = k == "hu_qianggang" and evs[0]["rules"].get("qiang_gang_payment", "bao_san_jia") == "bao_san_jia"
                assert it["points"] == (3 if bao else 1) * it["zimo_value"] * evs[0]["base"], it
        elif k in ("sha_bao", "re_pao"):
            assert it["seq"] == hus[it["seat"]]["seq"], it
            if k == "re_pao":
                g = next(((t, kind) for (s, t), (_q, kind) in gangs.items() if s == it["from"]), None)
                assert g is not None and (it["kong_tile"], it["kong"]) == g, it
        elif k == "ji":
            assert it["points"] == it["count"] * it["value"] * evs[0]["base"] and it["tile"], it
        elif k == "chong_feng_ji":
            assert (it["tile"], (it["seq"], it["seat"]), type(it["jin"])) == ("1s", first_1s, bool), it
        elif k != "jiao_pai":
            q, kind = gangs[(it["seat"], it["tile"])]
            assert it["seq"] in ((q, q + 1) if kind == "bu" else (q,)), it
