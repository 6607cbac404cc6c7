"""Hongzhong (docs/rules/hongzhong.md): golden logs of HZ-E1..E8, corrupted logs per error code, bots."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.mahjong.hongzhong import HONGZHONG
from engine.registry import bot_action
from engine.replay import replay
from engine.sim.simulate import simulate_match
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


def run(events: list[dict[str, Any]]) -> Any:
    return replay([parse_line(json.dumps(e)) for e in events])


def flows(res: Any) -> Counter[tuple[str, int, int]]:
    c: Counter[tuple[str, int, int]] = Counter()
    for it in res.items:
        c[(it["kind"], it["seat"], it["from"])] += it["points"]
    return c


GOLDEN_CASES = {
    "hongzhong_e1_zimo_wild": ([-6, 18, -6, -6], [1], {("zi_mo", 1, o): 6 for o in (0, 2, 3)}),
    "hongzhong_e2_an_gang_jia_ma": (
        [-10, -10, 30, -10], [2], {**{("zi_mo", 2, o): 8 for o in (0, 1, 3)}, **{("gang_an", 2, o): 2 for o in (0, 1, 3)}},
    ),
    "hongzhong_e3_qiang_gang": ([-18, 0, 0, 18], [3], {("qiang_gang_hu", 3, 0): 18}),
    "hongzhong_e4_kongs_chou_zhuang": (
        [3, -4, -1, 2], [], {**{("gang_bu", 0, o): 1 for o in (1, 2, 3)}, ("gang_zhi", 3, 1): 3},
    ),
    "hongzhong_e5_si_hong_zhong": ([-6, -6, 18, -6], [2], {("si_hong_zhong", 2, o): 6 for o in (0, 1, 3)}),
    "hongzhong_e6_plain_hongzhong": ([-4, 12, -4, -4], [1], {("zi_mo", 1, o): 4 for o in (0, 2, 3)}),
    "hongzhong_e7_last_tile_birds_cut": ([-8, -8, -8, 24], [3], {("zi_mo", 3, o): 8 for o in (0, 1, 2)}),
    "hongzhong_e8_two_robbers": ([0, -36, 18, 18], [2, 3], {("qiang_gang_hu", 2, 1): 18, ("qiang_gang_hu", 3, 1): 18}),
    "hongzhong_e2v_no_jia_ma": (
        [-8, -8, 24, -8], [2], {**{("zi_mo", 2, o): 6 for o in (0, 1, 3)}, **{("gang_an", 2, o): 2 for o in (0, 1, 3)}},
    ),
    "hongzhong_e4v_huang_zhuang_huang_gang": (
        [0, 0, 0, 0], [],
        {**{("gang_bu", 0, o): 1 for o in (1, 2, 3)}, **{("gang_zhi", 3, o): 1 for o in (0, 1, 2)},
         **{("huang_zhuang_refund", o, 0): 1 for o in (1, 2, 3)}, **{("huang_zhuang_refund", o, 3): 1 for o in (0, 1, 2)}},
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden(name: str) -> None:
    deltas, winners, want = GOLDEN_CASES[name]
    res = run(load(name))
    assert res.status == "finished", res.error
    assert res.deltas == deltas
    assert res.settlement_matches is True
    assert res.winners == winners
    assert dict(flows(res)) == want


BIRDS = {
    "hongzhong_e1_zimo_wild": [(["5s", "3m", "7z", "8p"], 2, 1)],
    "hongzhong_e2_an_gang_jia_ma": [(["1m", "4p", "9s", "6s", "5m"], 3, 0)],
    "hongzhong_e3_qiang_gang": [(["2p", "5p", "9m", "3s"], 2, 1)],
    "hongzhong_e5_si_hong_zhong": [(["1p", "2p", "9s", "6s"], 2, 4)],
    "hongzhong_e6_plain_hongzhong": [(["5m", "4s"], 1, 3)],
    "hongzhong_e7_last_tile_birds_cut": [(["9p", "9s", "2m", "7z"], 3, 0)],
    "hongzhong_e8_two_robbers": [(["1s", "3m", "4p", "9m"], 2, 1), (["1s", "3m", "4p", "9m", "2s"], 2, 0)],
}


@pytest.mark.parametrize("name", sorted(BIRDS))
def test_birds_hits_r(name: str) -> None:
    res = run(load(name))
    wins = {}
    for it in res.items:
        if "birds" in it:
            assert it["fans"] == {} and it["fan"] == 0
            wins[it["seat"]] = (it["birds"], it["hits"], it["r"])
    assert [wins[s] for s in sorted(wins)] == BIRDS[name]


def test_next_dealer_after_chou_zhuang_and_robbers() -> None:
    from engine.replay import replay_with_steps

    for name, want in (("hongzhong_e4_kongs_chou_zhuang", 2), ("hongzhong_e8_two_robbers", 1), ("hongzhong_e1_zimo_wild", 1)):
        steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in load(name)])
        assert HONGZHONG.view(steps[-2].state)["next_dealer"] == want


# ---------------------------------------------------------------- corrupted logs


def _e(t: str, seat: int, tile: str | None = None, kind: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"type": t, "seat": seat}
    if tile is not None:
        d["tile"] = tile
    if kind is not None:
        d["kind"] = kind
    return d


def corrupt(name: str, at: int, new: dict[str, Any] | None, cut: bool = True) -> Any:
    ev = load(name)
    base = ev[:at] if cut else ev
    if new is not None:
        new = {"match_id": ev[0]["match_id"], "seq": at, **new}
        base = [*base, new]
    return run(base)


def _expect(res: Any, seq: int, code: str, rule: str) -> None:
    assert res.status == "invalid"
    assert res.error["seq"] == seq
    assert res.error["code"] == code, res.error
    assert rule in res.error["message"], res.error


def test_hu_on_a_discard_is_illegal_claim() -> None:
    # e1: seq 2 = seat 0's discard; a hu on it by anyone is refused (不能放炮)
    ev = load("hongzhong_e1_zimo_wild")
    tile = ev[2]["tile"]
    _expect(corrupt("hongzhong_e1_zimo_wild", 3, _e("hu", 1, tile)), 3, "illegal_claim", "HZ-R5")


def test_peng_of_hongzhong_in_wild_mode() -> None:
    ev = load("hongzhong_e6_plain_hongzhong")
    ev[0]["rules"] = {"zhama": 2}  # wild mode: the same peng of 7z is refused
    res = run(ev[:4] + [{**ev[3]}])
    _expect(res, 3, "illegal_claim", "HZ-R14")


def test_draw_wrong_tile_and_wrong_seat() -> None:
    ev = load("hongzhong_e1_zimo_wild")
    _expect(corrupt("hongzhong_e1_zimo_wild", 3, _e("draw", 1, "1m" if ev[3]["tile"] != "1m" else "2m")), 3, "wrong_draw", "HZ-C4")
    _expect(corrupt("hongzhong_e1_zimo_wild", 3, _e("draw", 2, ev[3]["tile"])), 3, "not_your_turn", "HZ-R12")


def test_not_a_win_and_not_in_hand() -> None:
    ev = load("hongzhong_e1_zimo_wild")
    # seat 0 (dealer) hu on its first turn with a non-winning hand
    tile = ev[1]["hands"][0][0]
    _expect(corrupt("hongzhong_e1_zimo_wild", 2, _e("hu", 0, tile)), 2, "not_a_win", "HZ-H1")
    missing = next(t for t in ("1m", "2m", "3m", "4m", "5m", "6m") if t not in ev[1]["hands"][0])
    _expect(corrupt("hongzhong_e1_zimo_wild", 2, _e("discard", 0, missing)), 2, "not_in_hand", "HZ-R4")


def test_forced_zimo_skipped_is_illegal_move() -> None:
    ev = load("hongzhong_e1_zimo_wild")
    _expect(corrupt("hongzhong_e1_zimo_wild", 4, _e("discard", 1, ev[3]["tile"])), 4, "illegal_move", "HZ-R10")
    # without forced_zimo the discard is fine
    ev[0]["rules"] = {"forced_zimo": False}
    res = run([*ev[:4], {"match_id": ev[0]["match_id"], "seq": 4, **_e("discard", 1, "7p")}])
    assert res.status == "incomplete"


def test_four_hongzhong_must_win_first() -> None:
    ev = load("hongzhong_e5_si_hong_zhong")
    d = ev[1]["hands"][0][0]
    _expect(corrupt("hongzhong_e5_si_hong_zhong", 2, _e("discard", 0, d)), 2, "illegal_move", "HZ-R1")


def test_late_bu_gang_is_illegal_move() -> None:
    # e3: seat 0 pengs 4s; a bu gang of it on a turn whose draw is not 4s is refused
    ev = load("hongzhong_e3_qiang_gang")
    draw_idx = next(i for i, e in enumerate(ev) if e["type"] == "draw" and e["seat"] == 0)
    bad = ev[: draw_idx + 1]
    # give seat 0 the 4th 4s: the gang of seq draw_idx+1 is on its own draw of 4s (legal) in the log;
    # here seat 0 tries a bu gang of 4s on the earlier turn right after its peng: only discard allowed
    peng_idx = next(i for i, e in enumerate(ev) if e["type"] == "peng")
    res = run([*ev[: peng_idx + 1], {"match_id": ev[0]["match_id"], "seq": peng_idx + 1, **_e("gang", 0, "4s", "bu")}])
    _expect(res, peng_idx + 1, "illegal_move", "HZ-R3")
    assert len(bad) > peng_idx


def test_rob_with_option_off_and_after_end() -> None:
    ev = load("hongzhong_e3_qiang_gang")
    ev[0]["rules"] = {"qiang_gang_hu": False}
    n = len(ev) - 2  # the rob
    _expect(run(ev[: n + 1]), n, "illegal_claim", "HZ-R11")
    ev = load("hongzhong_e1_zimo_wild")
    extra = {"match_id": ev[0]["match_id"], "seq": len(ev) - 1, **_e("discard", 1, "7p")}
    _expect(run([*ev[:-1], extra]), len(ev) - 1, "after_end", "after the match ended")


def test_draw_after_chou_zhuang_is_after_end() -> None:
    ev = load("hongzhong_e4_kongs_chou_zhuang")[:-1]
    extra = {"match_id": ev[0]["match_id"], "seq": len(ev), **_e("draw", 3, "1m")}
    res = run([*ev, extra])
    assert res.error["code"] == "after_end"


def test_wrong_phase_events() -> None:
    res = corrupt("hongzhong_e1_zimo_wild", 2, {"type": "ting", "seat": 0})
    _expect(res, 2, "wrong_phase", "HZ-R0")
    res = corrupt("hongzhong_e1_zimo_wild", 2, {"type": "dingque", "seat": 0, "suit": "m"})
    _expect(res, 2, "wrong_phase", "HZ-R0")


def test_bad_deal() -> None:
    ev = load("hongzhong_e1_zimo_wild")
    ev[1]["wall"] = ev[1]["wall"][:-1]
    res = run(ev[:2])
    assert res.error["code"] == "bad_deal" and res.error["seq"] == 1


def test_bad_rules() -> None:
    ev = load("hongzhong_e1_zimo_wild")
    ev[0]["rules"] = {"zhama": 5}
    assert run(ev[:2]).error["code"] == "bad_rules"


# ---------------------------------------------------------------- bots, calculator


@pytest.mark.parametrize("rules", [None, {"zhama": 2, "qi_dui": True, "si_hongzhong": "any_time"}, {"hongzhong_wild": False, "forced_zimo": False}])
def test_bot_playouts_finish_zero_sum(rules: dict[str, Any] | None) -> None:
    for i in range(12):
        evs = simulate_match("hongzhong", rules, 11, i)
        res = replay(evs)
        assert res.status == "finished", res.error
        assert sum(res.deltas) == 0
        assert res.settlement_matches


def test_legal_actions_and_view() -> None:
    ev = load("hongzhong_e3_qiang_gang")
    from engine.replay import replay_with_steps

    steps, _ = replay_with_steps([parse_line(json.dumps(e)) for e in ev])
    rob_state = steps[-3].state  # after the bu gang
    acts = HONGZHONG.legal_actions(rob_state)
    assert {"type": "hu", "seat": 3, "tile": "4s"} in acts
    assert any(a["type"] == "draw" and a["seat"] == 0 for a in acts)
    v = HONGZHONG.view(rob_state)
    assert v["phase"] == "rob" and len(v["hands"]) == 4 and v["wall_left"] > 0
    assert bot_action(HONGZHONG, rob_state, random.Random(1)) == {"type": "hu", "seat": 3, "tile": "4s"}


def test_hand_calculator() -> None:
    out = HONGZHONG.hand({"cards": "234m56p7z111s88s99p", "win_tile": "7p"})
    assert out["win"] is True and out["fans"] == {} and out["r"] == 1 and out["birds"] == 4
    out = HONGZHONG.hand({"cards": "234m56p7z111s88s99p"})
    assert out["ready"] and "7p" in out["waits"] and "4p" in out["waits"] and "7z" in out["waits"]
    assert HONGZHONG.hand({"cards": "1133557799m1122p"})["win"] is False
    assert HONGZHONG.hand({"cards": "1133557799m1122p", "rules": {"qi_dui": True}})["kind"] == "qi_dui"
    with pytest.raises(ValueError):
        HONGZHONG.hand({"cards": "123m"})
    with pytest.raises(ValueError):
        HONGZHONG.hand({"cards": "12x"})
