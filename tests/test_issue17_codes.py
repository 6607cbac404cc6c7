"""Refusal codes and `winners` the review of issue 17 found wrong, each against the rule file or the
contract (expected codes from docs/rules/README.md "Which error code a refusal gets", events.md §6):

- a `dealt` with `bottom` in Hongzhong / Anshun is `bad_deal` (HZ-C3 / AS-C3: hands and wall only);
- a card listed twice in a play is `not_in_hand` in every climbing game (PDK-R5, DDZ-R15);
- a `dealer` that is no seat is `bad_deal` (DDZ-R2, PDK-R2: `dealer` ∈ {0, 1, 2});
- a `compare` target that is no seat is `wrong_phase` (ZJH-R1: "a bad `target`");
- Zha Jin Hua `winners` after a forfeit are the seats with a positive delta (events.md §6);
- a 天听 seat's peng or zhi gang on another seat's discard is `illegal_claim` (README; AS-R13).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_event

GOLDEN = Path(__file__).parent / "data" / "golden"


def load(name: str) -> list[dict[str, Any]]:
    out = []
    for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines():
        d = json.loads(line)
        d.pop("hash", None)
        out.append(d)
    return out


def run(evs: list[dict[str, Any]]) -> Any:
    return replay([parse_event(e) for e in evs])


def error(evs: list[dict[str, Any]]) -> tuple[int, str, str]:
    r = run(evs)
    assert r.status == "invalid", r.to_dict()
    return r.error["seq"], r.error["code"], r.error["message"]


@pytest.mark.parametrize(("name", "rule"), [("hongzhong_e1_zimo_wild", "HZ-C3"), ("anshun_e1_zimo_chong_feng_ji", "AS-C3")])
def test_mahjong_deal_with_bottom_is_bad_deal(name: str, rule: str) -> None:
    ev = load(name)
    ev[1] = {**ev[1], "bottom": ["RJ", "2s", "9d"]}  # a Dou Dizhu bottom (cards, as the contract types it)
    seq, code, msg = error(ev)
    assert (seq, code) == (1, "bad_deal") and rule in msg


def _first_play(name: str) -> tuple[list[dict[str, Any]], int]:
    ev = load(name)
    i = next(i for i, e in enumerate(ev) if e["type"] == "play")
    return ev, i


@pytest.mark.parametrize(
    ("name", "rule"),
    [("paodekuai_e1_guan_men_both_losers", "PDK-R5"), ("ddz_e1_spring", "DDZ-R15"), ("ddz_e4_laizi_soft_hard", "DDZ-R15")],
)
def test_a_card_listed_twice_is_not_in_hand(name: str, rule: str) -> None:
    ev, i = _first_play(name)
    card = ev[i]["cards"][0]
    ev[i] = {k: v for k, v in ev[i].items() if k != "as"} | {"cards": [card, card]}
    seq, code, msg = error(ev[: i + 1])
    assert (seq, code) == (i, "not_in_hand") and rule in msg


@pytest.mark.parametrize(
    ("name", "rule"), [("paodekuai_e1_guan_men_both_losers", "PDK-R2"), ("ddz_e1_spring", "DDZ-R2"), ("ddz_e4_laizi_soft_hard", "DDZ-R2")]
)
def test_a_dealer_that_is_no_seat_is_bad_deal(name: str, rule: str) -> None:
    ev = load(name)
    ev[0] = {**ev[0], "dealer": 3}
    seq, code, msg = error(ev)
    assert (seq, code) == (0, "bad_deal") and rule in msg


def test_zhajinhua_compare_target_that_is_no_seat_is_wrong_phase() -> None:
    ev = load("zhajinhua_e2_compare_tie_initiator_loses")
    i = next(i for i, e in enumerate(ev) if e["type"] == "compare")
    ev[i] = {**ev[i], "target": 4}  # a 4-player match: seats 0..3
    seq, code, msg = error(ev[: i + 1])
    assert (seq, code) == (i, "wrong_phase") and "ZJH-R1" in msg


def test_zhajinhua_winners_after_a_forfeit_are_the_seats_with_a_positive_delta() -> None:
    """E8 (timeout and forfeit) with the forfeiting seat 0 holding a 豹子 and `any_holder` rewards.

    By hand: the pot is as in E8, c = [1, 2, 1, 3], P = 7 to seat 3: Δ = [−1, −2, −1, +4]; S5 with
    `any_holder`: seat 0 (a dealt-in 豹子 holder, winner or not) gets 10 × base from each other seat:
    Δ = [−1 + 30, −2 − 10, −1 − 10, 4 − 10] = [29, −12, −11, −6]. Positive: seat 0 only."""
    ev = [e for e in load("zhajinhua_e8_timeout_forfeit") if e["type"] != "settled"]
    ev[0] = {**ev[0], "rules": {"special_rewards": "any_holder"}}
    ev[1] = {**ev[1], "hands": [["9s", "9h", "9c"], *ev[1]["hands"][1:]]}
    r = run(ev)
    assert r.status == "finished" and r.deltas == [29, -12, -11, -6]
    assert r.winners == [0]
    # E8 itself: the pot winner is the one seat with a positive delta
    e8 = run(load("zhajinhua_e8_timeout_forfeit"))
    assert e8.deltas == [-1, -2, -1, 4] and e8.winners == [3]


@pytest.mark.parametrize("claim", [{"type": "peng"}, {"type": "gang", "kind": "zhi"}])
def test_tian_ting_seat_claiming_a_discard_is_illegal_claim(claim: dict[str, Any]) -> None:
    """AS-E5: seat 1 is tian-ting; at seq 8 it claims the discard of seq 7 — a forbidden claim."""
    ev = load("anshun_e5_tian_ting_dian_pao_dou")
    assert ev[7]["type"] == "discard"
    tile = ev[7]["tile"]
    seq, code, msg = error([*ev[:8], {"match_id": ev[0]["match_id"], "seq": 8, "seat": 1, "tile": tile, **claim}])
    assert (seq, code) == (8, "illegal_claim") and "AS-R13" in msg
