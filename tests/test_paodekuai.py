"""Pao De Kuai (docs/rules/paodekuai.md): the worked examples as golden logs, their option variants,
a corrupted log for every error code the game can raise, the move types of section 4, the
options of section 6, `legal_actions`, `view` and `paiju hand paodekuai`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.cards import CARD_ID
from engine.climbing import pdk_moves as mv
from engine.climbing.paodekuai import PAODEKUAI as G
from engine.climbing.paodekuai import deck
from engine.errors import Illegal
from engine.registry import bot_action, get_game
from engine.replay import replay
from events.codec import parse_event, read_log
from events.models import Dealt, MatchStarted, Pass, Play

GOLDEN = Path(__file__).parent / "data" / "golden"


def load(name: str) -> list[dict[str, Any]]:
    """A golden log as plain dicts, without hashes (so that a test may edit it)."""
    out = []
    for line in (GOLDEN / f"paodekuai_{name}.jsonl").read_text().splitlines():
        d = json.loads(line)
        d.pop("hash", None)
        out.append(d)
    return out


def run(events: list[dict[str, Any]]) -> Any:
    return replay([parse_event(e) for e in events])


def with_rules(events: list[dict[str, Any]], **options: Any) -> list[dict[str, Any]]:
    """The log under other options, without its `settled` line."""
    out = [dict(e) for e in events if e["type"] != "settled"]
    out[0] = {**out[0], "rules": {**out[0]["rules"], **options}}
    return out


def renumber(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "seq": i} for i, e in enumerate(events)]


def ev(kind: str, seat: int, cards: str = "") -> dict[str, Any]:
    d: dict[str, Any] = {"match_id": "x", "seq": 0, "type": kind, "seat": seat}
    if cards:
        d["cards"] = cards.split()
    return d


# ---------------------------------------------------------------- worked examples (section 8)

B = {"bomb_points": 10}
EXPECTED: dict[str, tuple[list[int], list[int], list[dict[str, Any]]]] = {
    "e1_guan_men_both_losers": (
        [-32, 64, -32],
        [1],
        [
            {"kind": "guan_men", "seat": 1, "from": 0, "points": 32, "cards": 16, "factor": 2},
            {"kind": "guan_men", "seat": 1, "from": 2, "points": 32, "cards": 16, "factor": 2},
        ],
    ),
    "e2_bomb_paid_at_once_one_card_exempt": (
        [5, 20, -25],
        [0],
        [
            {"kind": "bomb", "seat": 1, "from": 0, "points": 10, "rank": "4", **B},
            {"kind": "bomb", "seat": 1, "from": 2, "points": 10, "rank": "4", **B},
            {"kind": "cards_left", "seat": 0, "from": 2, "points": 15, "cards": 15},
        ],
    ),
    "e3_later_match_one_loser_closed": (
        [-11, -32, 43],
        [2],
        [
            {"kind": "cards_left", "seat": 2, "from": 0, "points": 11, "cards": 11},
            {"kind": "guan_men", "seat": 2, "from": 1, "points": 32, "cards": 16, "factor": 2},
        ],
    ),
    "e4_baodan_must_beat": (
        [15, 0, -15],
        [0],
        [{"kind": "cards_left", "seat": 0, "from": 2, "points": 15, "cards": 15}],
    ),
    "e4_one_card_not_exempt": (
        [16, -1, -15],
        [0],
        [
            {"kind": "cards_left", "seat": 0, "from": 1, "points": 1, "cards": 1},
            {"kind": "cards_left", "seat": 0, "from": 2, "points": 15, "cards": 15},
        ],
    ),
    "e5_forfeit": (
        [32, 32, -64],
        [0, 1],
        [
            {"kind": "forfeit", "seat": 0, "from": 2, "points": 32, "cards": 16, "factor": 2},
            {"kind": "forfeit", "seat": 1, "from": 2, "points": 32, "cards": 16, "factor": 2},
        ],
    ),
    "e6a_guan_men_plus_bomb": (
        [-42, 63, -21],
        [1],
        [
            {"kind": "bomb", "seat": 1, "from": 0, "points": 10, "rank": "Q", **B},
            {"kind": "bomb", "seat": 1, "from": 2, "points": 10, "rank": "Q", **B},
            {"kind": "guan_men", "seat": 1, "from": 0, "points": 32, "cards": 16, "factor": 2},
            {"kind": "cards_left", "seat": 1, "from": 2, "points": 11, "cards": 11},
        ],
    ),
    "e6b_four_plus_one_is_trio_two": (
        [-32, 43, -11],
        [1],
        [
            {"kind": "guan_men", "seat": 1, "from": 0, "points": 32, "cards": 16, "factor": 2},
            {"kind": "cards_left", "seat": 1, "from": 2, "points": 11, "cards": 11},
        ],
    ),
    # option goldens (not worked examples of the file; deltas computed by hand from P1-P4)
    "short_trio_last_final_trio": (
        [-32, 42, -10],
        [1],
        [
            {"kind": "guan_men", "seat": 1, "from": 0, "points": 32, "cards": 16, "factor": 2},
            {"kind": "cards_left", "seat": 1, "from": 2, "points": 10, "cards": 10},
        ],
    ),
    "if_unbeaten_bomb_over_bomb_forfeit": (
        [-74, 22, 52],
        [1, 2],
        [
            {"kind": "bomb", "seat": 2, "from": 0, "points": 10, "rank": "T", **B},
            {"kind": "bomb", "seat": 2, "from": 1, "points": 10, "rank": "T", **B},
            {"kind": "forfeit", "seat": 1, "from": 0, "points": 32, "cards": 16, "factor": 2},
            {"kind": "forfeit", "seat": 2, "from": 0, "points": 32, "cards": 16, "factor": 2},
        ],
    ),
}


def test_every_golden_file_is_checked() -> None:
    names = {p.name[len("paodekuai_") : -len(".jsonl")] for p in GOLDEN.glob("paodekuai_*.jsonl")}
    assert names == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_log_replays_to_exact_deltas_and_items(name: str) -> None:
    deltas, winners, items = EXPECTED[name]
    lines = list(read_log(GOLDEN / f"paodekuai_{name}.jsonl"))
    r = replay([ln.event for ln in lines])
    assert r.status == "finished", r.error
    assert r.deltas == deltas
    assert r.recorded_deltas == deltas and r.settlement_matches is True
    assert r.winners == winners
    assert r.items == items
    assert r.chain_ok is (True if name.startswith("e1") else None)


def test_e1_is_refused_when_the_chain_is_edited() -> None:
    lines = [ln.event.to_dict() for ln in read_log(GOLDEN / "paodekuai_e1_guan_men_both_losers.jsonl")]
    lines[3]["seat"] = 0  # `pass {2}` edited: the hash no longer verifies (refused before the turn check)
    r = replay([parse_event(d) for d in lines])
    assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "bad_hash", 3)


# ---------------------------------------------------------------- option variants of the examples


@pytest.mark.parametrize(
    ("name", "options", "deltas"),
    [
        ("e1_guan_men_both_losers", {"closed_factor": 3}, [-48, 96, -48]),
        ("e1_guan_men_both_losers", {"closed_factor": 1}, [-16, 32, -16]),
        ("e2_bomb_paid_at_once_one_card_exempt", {"bomb_pay": "none"}, [15, 0, -15]),
        ("e2_bomb_paid_at_once_one_card_exempt", {"bomb_points": 5}, [10, 10, -20]),
        ("e2_bomb_paid_at_once_one_card_exempt", {"bomb_points": 0}, [15, 0, -15]),
        # the bomb ended its trick unbeaten (two passes): it is paid under if_unbeaten too
        ("e2_bomb_paid_at_once_one_card_exempt", {"bomb_pay": "if_unbeaten"}, [5, 20, -25]),
        ("e2_bomb_paid_at_once_one_card_exempt", {"one_card_exempt": False}, [6, 19, -25]),
        ("e3_later_match_one_loser_closed", {"closed_factor": 4}, [-11, -64, 75]),
        ("e5_forfeit", {"closed_factor": 4}, [64, 64, -128]),
        ("e6a_guan_men_plus_bomb", {"bomb_pay": "if_unbeaten"}, [-42, 63, -21]),
        ("e6a_guan_men_plus_bomb", {"bomb_pay": "none"}, [-32, 43, -11]),
        ("e6a_guan_men_plus_bomb", {"bomb_points": 20, "closed_factor": 1}, [-36, 67, -31]),
        ("e4_baodan_must_beat", {"baodan": False, "must_beat": False}, [15, 0, -15]),
    ],
)
def test_example_under_options(name: str, options: dict[str, Any], deltas: list[int]) -> None:
    r = run(with_rules(load(name), **options))
    assert r.status == "finished", r.error
    assert r.deltas == deltas
    assert sum(r.deltas) == 0


def test_short_trio_last_golden_needs_its_option() -> None:
    e = load("short_trio_last_final_trio")
    _refused(with_rules(e, short_trio_last=False), 11, "does_not_beat", "trio_two 8")
    # with the option off seat 1 cannot beat, so its pass is legal under must-beat
    off = with_rules(e, short_trio_last=False)
    off[11] = {k: v for k, v in off[11].items() if k != "cards"} | {"type": "pass"}
    assert run(off).status == "incomplete"


def test_if_unbeaten_golden_under_other_options() -> None:
    e = load("if_unbeaten_bomb_over_bomb_forfeit")
    assert run(with_rules(e, bomb_pay="immediate")).deltas == [-84, 42, 42]
    assert run(with_rules(e, bomb_pay="none")).deltas == [-64, 32, 32]
    # a forfeit while the TTTT bomb is still the top move: the bomb ended the match, it is paid
    early = renumber([x for x in e if x["type"] != "pass" and x["type"] != "settled"])
    r = run(early)
    assert r.deltas == [-74, 22, 52] and r.items[0]["kind"] == "bomb"


def test_base_multiplies_every_payment() -> None:
    events = with_rules(load("e6a_guan_men_plus_bomb"))
    events[0]["base"] = 3
    r = run(events)
    assert r.deltas == [-126, 189, -63]
    assert [it["points"] for it in r.items] == [30, 30, 96, 33]


def test_e5_forfeit_may_come_off_turn_and_bombs_stand() -> None:
    events = load("e2_bomb_paid_at_once_one_card_exempt")[:4]  # up to the bomb
    events.append({**events[-1], "seq": 4, "type": "forfeit", "seat": 0})
    del events[-1]["cards"]
    r = run(events)
    assert r.status == "finished"
    # bomb: seat 1 +20, 0 and 2 -10; forfeit by seat 0: 32 to each other seat
    assert r.deltas == [-74, 52, 22]
    assert r.winners == [1, 2]


def test_if_unbeaten_pays_only_the_bomb_that_holds() -> None:
    """A bomb beaten by a higher bomb earns nothing under `if_unbeaten`; the higher one does."""
    hands = _fill({0: "3s 5s 5h 5c 5d", 1: "9s 9h 9c 9d"})
    base = _start(hands, dealer=0, rules={"bomb_pay": "if_unbeaten", "must_beat": False})
    s = G.apply(base, Play(match_id="x", seq=2, seat=0, cards=["3s"]))
    s = G.apply(s, Play(match_id="x", seq=3, seat=1, cards=["9s", "9h", "9c", "9d"]))
    assert s.items == ()
    s = G.apply(s, Pass(match_id="x", seq=4, seat=2))
    assert s.items == ()  # one pass does not end the trick
    s = G.apply(s, Pass(match_id="x", seq=5, seat=0))
    assert [(i["seat"], i["from"], i["points"]) for i in s.items] == [(1, 0, 10), (1, 2, 10)]
    # immediate: both bombs of a bomb-over-bomb trick pay at once
    hands = _fill({0: "3s 5s 5h 5c 5d", 1: "9s 9h 9c 9d", 2: "Ts Th Tc Td"})
    s = _start(hands, dealer=1, rules={})
    s = G.apply(s, Play(match_id="x", seq=2, seat=1, cards=["9s", "9h", "9c", "9d"]))
    s = G.apply(s, Play(match_id="x", seq=3, seat=2, cards=["Ts", "Th", "Tc", "Td"]))
    assert [(i["seat"], i["from"]) for i in s.items] == [(1, 0), (1, 2), (2, 0), (2, 1)]


# ---------------------------------------------------------------- one corrupted log per error code


def _refused(events: list[dict[str, Any]], seq: int, code: str, rule: str) -> None:
    r = run(events)
    assert r.status == "invalid"
    assert (r.error["seq"], r.error["code"]) == (seq, code), r.error
    assert rule in r.error["message"]


def test_bad_rules() -> None:
    e = load("e1_guan_men_both_losers")
    e[0]["rules"] = {"preset": "standard", "bomb_money": 5}
    _refused(e, 0, "bad_rules", "bomb_money")
    e[0]["rules"] = {"bomb_points": 101}
    _refused(e, 0, "bad_rules", "bomb_points")
    e[0]["rules"] = {"bomb_pay": "later"}
    _refused(e, 0, "bad_rules", "bomb_pay")
    e[0]["rules"] = {"preset": "sichuan"}
    _refused(e, 0, "bad_rules", "preset")


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (lambda d: d["hands"][0].pop(), "PDK-R2"),  # 15 cards
        (lambda d: d["hands"][0].__setitem__(0, "As"), "PDK-R2"),  # not in the deck
        (lambda d: d["hands"][0].__setitem__(0, "BJ"), "PDK-R2"),
        (lambda d: d["hands"][0].__setitem__(0, d["hands"][0][1]), "PDK-R2"),  # twice
        (lambda d: d.__setitem__("bottom", ["2h"]), "PDK-R2"),
    ],
)
def test_bad_deal(edit: Any, rule: str) -> None:
    e = load("e1_guan_men_both_losers")
    edit(e[1])
    _refused(e, 1, "bad_deal", rule)


def test_bad_deal_first_match_leader_must_hold_3s() -> None:
    e = load("e1_guan_men_both_losers")
    e[0]["dealer"] = 0
    _refused(e, 1, "bad_deal", "3s holder (seat 1)")
    del e[0]["round"]  # round absent = a first match too
    _refused(e, 1, "bad_deal", "PDK-R2")
    e[0]["round"] = 2  # a later match: any leader (the previous winner, checked by ingest)
    r = run(e[:2])
    assert r.status == "incomplete"


def test_not_your_turn() -> None:
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[3]["seat"] = 0  # seat 2 is to act after the bomb
    _refused(e, 3, "not_your_turn", "PDK-R3")
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[2] = {**e[2], "seat": 2, "cards": ["5s"]}
    _refused(e, 2, "not_your_turn", "PDK-R3")


def test_not_in_hand() -> None:
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[3]["cards"] = ["3s"]  # seat 0 played it
    _refused(e, 3, "not_in_hand", "PDK-R5")
    e[3]["cards"] = ["4s", "4s"]
    _refused(e, 3, "not_in_hand", "PDK-R5")
    e[3]["cards"] = ["2h"]  # not even in the deck
    _refused(e, 3, "not_in_hand", "PDK-R5")


def test_illegal_move_non_pattern_and_as() -> None:
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[3]["cards"] = ["4s", "5c"]
    _refused(e, 3, "illegal_move", "PDK-R6")
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[3]["as"] = ["4", "4", "4", "4"]
    _refused(e, 3, "illegal_move", "PDK-R5")
    # chains do not wrap; 2 is never in a chain
    e = load("e4_baodan_must_beat")
    e[10]["cards"] = ["Qs", "Ks", "Ah", "3c", "4c"]
    _refused(e, 10, "illegal_move", "PDK-R6")
    e = load("e4_baodan_must_beat")
    e[2]["cards"] = ["Th", "Jd", "Qd", "Kd", "Ah"]  # not seat 1's cards: refused before the shape
    _refused(e, 2, "not_in_hand", "PDK-R5")


def test_illegal_move_first_lead_without_3s() -> None:
    e = load("e1_guan_men_both_losers")
    e[2]["cards"] = ["Kh", "Kc", "Kd", "2s"]
    _refused(e, 2, "illegal_move", "PDK-R4")
    # option off: the 3s holder still leads, with any move
    r = run(with_rules(e, first_play_3s=False)[:3])
    assert r.status == "incomplete" and r.error is None
    # a later match: the leader may lead anything
    e3 = load("e3_later_match_one_loser_closed")
    e3[2]["cards"] = ["6h", "6c", "6d", "7h", "7c", "7d"]
    assert run(e3[:3]).status == "incomplete"


def test_illegal_move_non_highest_single_under_baodan() -> None:
    e = load("e4_baodan_must_beat")
    e[7]["cards"] = ["Qs"]  # E4 event 6: seat 1 holds one card, seat 0's solo must be 2s
    _refused(e, 7, "illegal_move", "PDK-R10")
    r = run(with_rules(e, baodan=False)[:8])
    assert r.status == "incomplete" and r.error is None
    # seat 2's next player (seat 0) has many cards: seat 2 is free (E4 event 5 `Js`)
    assert run(load("e4_baodan_must_beat")[:7]).error is None


def test_baodan_also_binds_a_lead() -> None:
    e = load("e4_baodan_must_beat")[:9]  # … 7. pass {1}
    e.append({**e[-1], "seq": 9, "seat": 2})  # 8. pass {2}: seat 0 leads, seat 1 has 1 card
    e.append({**e[2], "seq": 10, "seat": 0, "cards": ["3c"]})
    _refused(e, 10, "illegal_move", "PDK-R10")
    e[10]["cards"] = ["Qs", "Qh"]  # a pair is not restricted
    assert run(e).error is None


def test_does_not_beat() -> None:
    e = load("e3_later_match_one_loser_closed")
    e[3]["cards"] = ["8h", "9h", "Th", "Jh", "Qh", "Kh"]  # 6-card straight on a 5-card one
    _refused(e, 3, "does_not_beat", "PDK-R8")
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[11]["cards"] = ["Jh"]  # seat 2 played Kd; the message names both moves
    r = run(e)
    assert (r.error["code"], r.error["seq"]) == ("does_not_beat", 11)
    assert "solo J" in r.error["message"] and "solo K" in r.error["message"]
    # B3: a trio_two is answered only by a trio_two (a trio_one of a higher rank does not beat)
    e6 = load("e6b_four_plus_one_is_trio_two")
    e6[4]["cards"] = ["Qs", "Qh", "Qc", "Ah"]  # 4 + own 4th card would be a bomb; this is a trio_one
    _refused(e6, 4, "does_not_beat", "trio_two 3")


def test_must_play_when_leading_and_under_must_beat() -> None:
    e = load("e4_baodan_must_beat")
    e[2] = {k: v for k, v in e[2].items() if k != "cards"} | {"type": "pass"}
    _refused(e, 2, "must_play", "PDK-R7")
    e = load("e4_baodan_must_beat")
    e[7] = {k: v for k, v in e[7].items() if k != "cards"} | {"type": "pass"}
    _refused(e, 7, "must_play", "PDK-R9")
    r = run(with_rules(e, must_beat=False)[:8])
    assert r.status == "incomplete" and r.error is None


def test_bad_field_seat_out_of_range_and_wrong_player_count() -> None:
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[4]["seat"] = 3
    _refused(e, 4, "bad_field", "seat 3")
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[0]["players"] = ["ann", "bo", "cy", "di"]
    _refused(e, 0, "bad_field", "3 players")


def test_wrong_phase_and_after_end() -> None:
    e = load("e1_guan_men_both_losers")
    e[2] = {"match_id": "pdk-e1", "seq": 2, "type": "bid", "seat": 1, "value": 1}
    _refused(e, 2, "wrong_phase", "PDK-R1")
    e = load("e1_guan_men_both_losers")
    e[2] = {"match_id": "pdk-e1", "seq": 2, "type": "timeout", "seat": 1}
    _refused(e, 2, "wrong_phase", "PDK-R1")
    e = load("e1_guan_men_both_losers")
    e.insert(6, {"match_id": "pdk-e1", "seq": 6, "type": "pass", "seat": 2})
    r = run(renumber(e))
    assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "after_end", 6)
    finished = _replay_state(load("e1_guan_men_both_losers"))
    with pytest.raises(Illegal) as err:
        G.apply(finished, Pass(match_id="x", seq=9, seat=2))
    assert err.value.code == "after_end" and "PDK-R13" in err.value.message


# ---------------------------------------------------------------- section 4: move types


def _rank_cards(ranks: str) -> tuple[int, ...]:
    """`"33344"` → counts, suits irrelevant."""
    c = [0] * mv.N_RANKS
    for ch in ranks:
        c["3456789TJQKA2".index(ch)] += 1
    return tuple(c)


@pytest.mark.parametrize(
    ("ranks", "reading"),
    [
        ("2", ("solo", 1, "2")),
        ("AA", ("pair", 1, "A")),
        ("777", ("trio", 1, "7")),
        ("7778", ("trio_one", 1, "7")),
        ("77788", ("trio_two", 1, "7")),
        ("77789", ("trio_two", 1, "7")),
        ("55558", ("trio_two", 1, "5")),  # 4带1 = 3带2
        ("555588", ("four_two", 1, "5")),
        ("555589", ("four_two", 1, "5")),
        ("5555888", ("four_three", 1, "5")),
        ("5555", ("bomb", 1, "5")),
        ("KKKK", ("bomb", 1, "K")),
        ("34567", ("straight", 5, "7")),
        ("3456789TJQKA", ("straight", 12, "A")),
        ("3344", ("pair_straight", 2, "4")),
        ("33445566778899TT", ("pair_straight", 8, "T")),
        ("333444", ("plane", 2, "4")),
        ("333444555666777", ("plane", 5, "7")),
        ("33344456", ("plane_n_wings", 2, "4")),
        ("33334444", ("plane_n_wings", 2, "4")),
        ("3334445566", ("plane_2n_wings", 2, "4")),
        ("3334445555", ("plane_2n_wings", 2, "5")),  # 4.3: the highest key
        ("333444555666", ("plane", 4, "6")),  # 4.3: the longest chain
        ("777888999JQK", ("plane_n_wings", 3, "9")),
        ("QQQKKKAAA34578J", ("plane_2n_wings", 3, "A")),
        ("333444555666789T", ("plane_n_wings", 4, "6")),
    ],
)
def test_lead_reading(ranks: str, reading: tuple[str, int, str]) -> None:
    kind, n, key = mv.lead_reading(_rank_cards(ranks))
    assert (kind, n, "3456789TJQKA2"[key]) == reading


@pytest.mark.parametrize(
    "ranks",
    ["", "34", "3355", "33445", "JQKA2", "A2345", "QKA23", "34567A", "333555", "3344556", "AAAA", "33334444555",
     "333444555666777888"],
)  # fmt: skip
def test_no_reading(ranks: str) -> None:
    assert mv.readings(_rank_cards(ranks)) == ()


def test_several_readings_section_4_2() -> None:
    assert set(mv.readings(_rank_cards("333444555666"))) == {
        ("plane", 4, 3),
        ("plane_n_wings", 3, 2),
        ("plane_n_wings", 3, 3),
    }
    assert set(mv.readings(_rank_cards("3334445555"))) == {("plane_2n_wings", 2, 1), ("plane_2n_wings", 2, 2)}


def test_beating_b1_b2_b3() -> None:
    top = mv.lead_reading(_rank_cards("333444555"))  # plane N=3 key 5
    assert mv.beat_reading(_rank_cards("444555666"), top) == ("plane", 3, 3)
    assert mv.beat_reading(_rank_cards("3333"), top) == ("bomb", 1, 0)  # B1
    assert mv.beat_reading(_rank_cards("333344445555"), top) is None  # 12 cards: not the signature
    # B2: recorded with the highest key that beats: 3334445555 read as chain 45
    t2 = ("plane_2n_wings", 2, 1)
    assert mv.beat_reading(_rank_cards("3334445555"), t2) == ("plane_2n_wings", 2, 2)
    assert mv.beat_reading(_rank_cards("3334445555"), ("plane_2n_wings", 2, 2)) is None
    # bombs by rank; nothing else beats a bomb
    assert mv.beat_reading(_rank_cards("4444"), ("bomb", 1, 0)) == ("bomb", 1, 1)
    assert mv.beat_reading(_rank_cards("3333"), ("bomb", 1, 1)) is None
    assert mv.beat_reading(_rank_cards("2"), ("bomb", 1, 0)) is None
    # B3: 3+N only by the same 3+N
    assert mv.beat_reading(_rank_cards("8889"), ("trio_two", 1, 0)) is None
    assert mv.beat_reading(_rank_cards("888"), ("trio_one", 1, 0)) is None
    assert mv.beat_reading(_rank_cards("88899"), ("trio_two", 1, 0)) == ("trio_two", 1, 5)


def test_short_trio_last_option() -> None:
    """A hand-emptying trio / winged plane may carry fewer kickers (section 6 `short_trio_last`)."""
    hands = _fill({0: "3s 4s 4h 4c 5s", 1: "9s 9h 9c 7d"})
    s = _start(hands, dealer=0, rules={"short_trio_last": True})
    s = replace(s, hands=(s.hands[0], tuple(sorted(CARD_ID[c] for c in ["9s", "9h", "9c", "7d"])), s.hands[2]))
    s = G.apply(s, Play(match_id="x", seq=2, seat=0, cards=["4s", "4h", "4c", "3s", "5s"]))
    assert s.top.move == ("trio_two", 1, 1)
    short = Play(match_id="x", seq=3, seat=1, cards=["9s", "9h", "9c", "7d"])  # 3+1 empties the hand
    after = G.apply(s, short)
    assert after.winner == 1 and after.top.move == ("trio_two", 1, 6)
    assert any(sorted(a["cards"]) == sorted(short.cards) for a in G.legal_actions(s))
    # must-beat counts the short play: seat 1 may not pass
    with pytest.raises(Illegal) as err:
        G.apply(s, Pass(match_id="x", seq=3, seat=1))
    assert err.value.code == "must_play"
    off = replace(s, rules=G.parse_rules({}))
    with pytest.raises(Illegal) as err:
        G.apply(off, short)
    assert err.value.code == "does_not_beat"
    # not the last play: the relaxation does not apply
    more = replace(s, hands=(s.hands[0], (*s.hands[1], CARD_ID["Kd"]), s.hands[2]))
    with pytest.raises(Illegal) as err:
        G.apply(more, short)
    assert err.value.code == "does_not_beat"
    # winged plane with fewer wings
    assert mv.beat_reading(_rank_cards("666777"), ("plane_n_wings", 2, 1), True) == ("plane_n_wings", 2, 4)
    assert mv.beat_reading(_rank_cards("6667778"), ("plane_2n_wings", 2, 1), True) == ("plane_2n_wings", 2, 4)
    assert mv.beat_reading(_rank_cards("6667778"), ("plane_n_wings", 2, 1), True) == ("plane_n_wings", 2, 4)
    assert mv.beat_reading(_rank_cards("6668889"), ("plane_n_wings", 2, 1), True) is None  # no chain
    assert mv.beat_reading(_rank_cards("66677789"), ("plane_n_wings", 2, 1), False) == ("plane_n_wings", 2, 4)
    assert mv.beat_reading(_rank_cards("333444"), ("plane_n_wings", 2, 4), True) is None  # key not higher


# ---------------------------------------------------------------- helpers building tables


def _fill(fixed: dict[int, str]) -> list[list[str]]:
    """A legal 48-card deal: the given cards at the given seats, the rest dealt in deck order."""
    from engine.cards import CARD_NAME

    hands: list[list[str]] = [[], [], []]
    used = set()
    for s, cards in fixed.items():
        hands[s] = cards.split()
        used |= set(hands[s])
    rest = [CARD_NAME[c] for c in deck() if CARD_NAME[c] not in used]
    for s in range(3):
        while len(hands[s]) < 16:
            hands[s].append(rest.pop())
    return hands


def _start(hands: list[list[str]], dealer: int, rules: dict[str, Any]) -> Any:
    rules = {k: v for k, v in rules.items() if k != "round"}
    holder = next(s for s, h in enumerate(hands) if "3s" in h)
    started = MatchStarted(
        match_id="x", seq=0, game="paodekuai", rules=rules, players=["a", "b", "c"], dealer=dealer, base=1,
        round=1 if holder == dealer else 2,
    )  # fmt: skip
    return G.start(started, Dealt(match_id="x", seq=1, hands=hands), G.parse_rules(rules))


def _replay_state(events: list[dict[str, Any]]) -> Any:
    parsed = [parse_event(e) for e in events if e["type"] != "settled"]
    s = G.start(parsed[0], parsed[1], G.parse_rules(parsed[0].rules))
    for e in parsed[2:]:
        s = G.apply(s, e)
    return s


# ---------------------------------------------------------------- legal_actions, view, calculator


def test_legal_actions_follow_the_rules() -> None:
    e = load("e4_baodan_must_beat")
    s = _replay_state(e[:7])  # seat 0 to act on Js, seat 1 holds one card
    acts = G.legal_actions(s)
    assert {"type": "play", "seat": 0, "cards": ["2s"]} in acts
    assert {"type": "pass", "seat": 0} not in acts  # must-beat
    assert all(len(a["cards"]) != 1 or a["cards"] == ["2s"] for a in acts)  # 报单
    for a in acts:
        G.apply(s, Play(match_id="x", seq=7, **{k: v for k, v in a.items() if k != "type"}))
    first = _replay_state(e[:2])
    lead = G.legal_actions(_replay_state(load("e1_guan_men_both_losers")[:2]))
    assert lead and all("3s" in a["cards"] for a in lead)  # first lead of a first match
    assert all(a["type"] == "play" for a in G.legal_actions(first))
    assert G.legal_actions(_replay_state(load("e1_guan_men_both_losers"))) == []


def test_legal_actions_match_the_reducer_on_random_tables() -> None:
    """Every listed action is accepted; every rejected pass is really unlisted."""
    import random

    rng = random.Random(5)
    for i in range(30):
        rules = G.parse_rules({"must_beat": bool(i % 2), "short_trio_last": bool(i % 3 == 0)})
        later = i % 4 == 0  # a later match: the previous winner leads, whoever holds 3s
        d = G.deal(rules, 3, rng, dealer=None if later else i % 3)
        started = MatchStarted(
            match_id="x", seq=0, game="paodekuai", rules=rules.options(), players=["a", "b", "c"], dealer=i % 3,
            base=1 + i % 3, round=2 if later else None,
        )  # fmt: skip
        s = G.start(started, Dealt(match_id="x", seq=1, **d), rules)
        seq = 2
        while not G.is_finished(s):
            acts = G.legal_actions(s)
            for a in acts:
                G.apply(s, parse_event({"match_id": "x", "seq": seq, **a}))
            if {"type": "pass", "seat": s.turn} not in acts:
                with pytest.raises(Illegal) as err:
                    G.apply(s, Pass(match_id="x", seq=seq, seat=s.turn))
                assert err.value.code == "must_play"
            s = G.apply(s, parse_event({"match_id": "x", "seq": seq, **bot_action(G, s, rng)}))
            seq += 1


def test_view_is_a_json_picture_of_the_table() -> None:
    s = _replay_state(load("e2_bomb_paid_at_once_one_card_exempt")[:4])
    v = G.view(s)
    json.dumps(v)
    assert v["phase"] == "follow" and v["turn"] == 2
    assert v["trick"] == {"seat": 1, "cards": ["4s", "4h", "4c", "4d"], "type": "bomb", "length": 1, "rank": "4"}
    assert v["bombs"] == [{"seat": 1, "rank": "4"}]
    assert v["cards_left"] == [15, 12, 16] and len(v["hands"][1]) == 12
    end = G.view(_replay_state(load("e2_bomb_paid_at_once_one_card_exempt")))
    assert end["phase"] == "finished" and end["turn"] is None and end["winner"] == 0


@pytest.mark.parametrize(
    ("cards", "answer"),
    [
        ("3s 3h 3d 4c", {"valid": True, "type": "trio_one", "rank": "3", "length": 1}),
        ("5s 5h 5c 5d 8s", {"valid": True, "type": "trio_two", "rank": "5", "length": 1}),
        ("5s 5h 5c 5d", {"valid": True, "type": "bomb", "rank": "5", "length": 1, "bomb": True}),
        ("3s 4h 5c 6d 7s 8s", {"valid": True, "type": "straight", "rank": "8", "length": 6}),
    ],
)
def test_hand_calculator(cards: str, answer: dict[str, Any]) -> None:
    assert get_game("paodekuai").hand({"cards": cards}) == answer


def test_hand_calculator_readings_and_refusals() -> None:
    out = G.hand({"cards": "3s 3h 3c 4s 4h 4c 5s 5h 5c 5d"})
    assert (out["type"], out["rank"], out["length"]) == ("plane_2n_wings", "5", 2)
    assert out["readings"] == [
        {"type": "plane_2n_wings", "rank": "5", "length": 2},
        {"type": "plane_2n_wings", "rank": "4", "length": 2},
    ]
    bad = G.hand({"cards": "3s 5h"})
    assert bad["valid"] is False and "PDK-R6" in bad["reason"]
    for q in ({"cards": "As"}, {"cards": "2h"}, {"cards": "3s 3s"}, {"cards": ""}, {"cards": "Xx"},
              {"cards": "3s", "rules": {"nope": 1}}):  # fmt: skip
        with pytest.raises(ValueError):
            G.hand(q)


def test_rules_model_and_presets() -> None:
    r = G.parse_rules({})
    assert r.options() == {
        "preset": "standard", "must_beat": True, "baodan": True, "first_play_3s": True, "bomb_points": 10,
        "bomb_pay": "immediate", "closed_factor": 2, "one_card_exempt": True, "short_trio_last": False,
    }  # fmt: skip
    assert all(f.description for k, f in G.Rules.model_fields.items() if k != "preset")
    with pytest.raises(Illegal):
        G.parse_rules({"closed_factor": 5})
    assert "standard" in G.presets


def test_deal_is_the_48_card_deck_and_3s_goes_to_the_dealer() -> None:
    import random

    for dealer in range(3):
        d = G.deal(G.parse_rules({}), 3, random.Random(dealer), dealer=dealer)
        cards = [c for h in d["hands"] for c in h]
        assert sorted(CARD_ID[c] for c in cards) == list(deck()) and len(deck()) == 48
        assert all(len(h) == 16 for h in d["hands"]) and "3s" in d["hands"][dealer]
    a = G.deal(G.parse_rules({}), 3, random.Random(9))
    assert a == G.deal(G.parse_rules({}), 3, random.Random(9))
