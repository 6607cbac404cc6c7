"""Who deals next across a room's matches (engine/rooms.py, ingest/rooms.py).

Expected findings come from the rule files' own statements about the worked examples: PDK E1 is won
by seat 1 and E3 is "a later match, dealer 2 = previous winner" (PDK-R2/R16), PDK E5 ends by a forfeit
("the next match is a first match"), HZ-E4 ("seat 2 deals next", 臭庄: the last drawer) and HZ-E8 ("the
robbed seat 1 deals next"), SC-E4 (seat 0 won first: first_winner), AS-E6 (荒庄: the same dealer),
ZJH E8 (seat 3 wins). A room is made of such logs by giving them a `room` and `round` (and, since the
rules name a person, by choosing who sits where: the `players` list changes no rule of one match).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analytics.lake import open_lake
from engine.rooms import Finding, RoomMatch, check_room, room_match
from events.codec import parse_event
from ingest.pipeline import ingest
from ingest.rooms import room_findings

GOLDEN = Path(__file__).parent / "data" / "golden"


def load(name: str, room: str | None = "room-1", rnd: int | None = 1, players: list[str] | None = None,
         rules: dict[str, Any] | None = None, mid: str | None = None) -> list[dict[str, Any]]:  # fmt: skip
    out = []
    for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines():
        d = json.loads(line)
        d.pop("hash", None)
        d.pop("ts", None)
        if mid is not None:
            d["match_id"] = mid
        out.append(d)
    s = {k: v for k, v in out[0].items() if k not in ("room", "round")}
    if room is not None:
        s["room"] = room
    if rnd is not None:
        s["round"] = rnd
    if players is not None:
        s["players"] = players
    if rules is not None:
        s["rules"] = {**s["rules"], **rules}
    out[0] = s
    return out


def summary(evs: list[dict[str, Any]]) -> RoomMatch:
    rm = room_match([parse_event(e) for e in evs])
    assert rm is not None
    return rm


def codes(found: list[Finding]) -> list[tuple[str, int, str, str]]:
    return [(f.match_id, f.seq, f.code, f.rule) for f in found]


# ---------------------------------------------------------------- the pure check on hand-made rooms


def rm(mid: str, rnd: int, dealer: int, nxt: int | None, players: tuple[str, ...] = ("a", "b", "c"), **kw: Any) -> RoomMatch:
    return RoomMatch(mid, kw.pop("game", "paodekuai"), "r", rnd, players, dealer, nxt, rule=kw.pop("rule", "PDK-R2"), **kw)


def test_check_room_by_hand() -> None:
    # m1 named seat 2 ("c"); m2 dealt by seat 2: fine; m2 names seat 0 ("a"), m3 dealt by seat 1: wrong
    room = [rm("m1", 1, 0, 2), rm("m2", 2, 2, 0), rm("m3", 3, 1, None)]
    assert codes(check_room(room)) == [("m3", 0, "bad_deal", "PDK-R2")]
    # the same person in another seat is the same dealer; a player who left is not checked
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 0, None, players=("c", "a", "b"))]) == []
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 1, None, players=("x", "y", "z"))]) == []
    # a round gap, a first match, another game, a previous match naming nobody: nothing to check
    assert check_room([rm("m1", 1, 0, 2), rm("m3", 3, 1, None)]) == []
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 1, 1, None)]) == []
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 1, None, game="zhajinhua")]) == []
    assert check_room([rm("m1", 1, 0, None), rm("m2", 2, 1, None)]) == []
    # PDK-R16: after a forfeit the next match is a first match (round 1)
    found = check_room([rm("m1", 1, 0, None, next_first=True, rule="PDK-R16"), rm("m2", 2, 1, None)])
    assert codes(found) == [("m2", 0, "bad_deal", "PDK-R16")] and "forfeit" in found[0].message


# ---------------------------------------------------------------- each game's rule, from its examples


def test_pao_de_kuai_later_match_is_led_by_the_previous_winner() -> None:
    e1 = summary(load("paodekuai_e1_guan_men_both_losers", rnd=1))  # seat 1 ("bo") wins
    assert (e1.next_dealer, e1.next_first, e1.rule) == (1, False, "PDK-R2")
    e3 = load("paodekuai_e3_later_match_one_loser_closed", rnd=2)  # dealer seat 2 ("cy")
    assert codes(check_room([e1, summary(e3)])) == [(e3[0]["match_id"], 0, "bad_deal", "PDK-R2")]
    e3_bo = summary(load("paodekuai_e3_later_match_one_loser_closed", rnd=2, players=["ann", "cy", "bo"]))
    assert check_room([e1, e3_bo]) == []  # "bo", the winner of E1, leads E3 from seat 2


def test_pao_de_kuai_after_a_forfeit_the_next_match_is_a_first_match() -> None:
    e5 = summary(load("paodekuai_e5_forfeit", rnd=1))
    assert e5.next_first and e5.rule == "PDK-R16"
    e3 = load("paodekuai_e3_later_match_one_loser_closed", rnd=2)
    assert codes(check_room([e5, summary(e3)])) == [(e3[0]["match_id"], 0, "bad_deal", "PDK-R16")]
    e1 = summary(load("paodekuai_e1_guan_men_both_losers", rnd=1))  # a first match after it: fine
    assert check_room([e5, e1]) == []


@pytest.mark.parametrize(
    ("name", "seat", "rule"),
    [
        ("hongzhong_e4_kongs_chou_zhuang", 2, "HZ-R15"),  # 臭庄: the last drawer, seat 2
        ("hongzhong_e8_two_robbers", 1, "HZ-R15"),  # several robbers: the robbed seat 1
        ("hongzhong_e5_si_hong_zhong", 2, "HZ-R15"),  # "Seat 2 deals next"
        ("sichuan_e4_exhaustive_hua_zhu_da_jiao_tui_shui", 0, "SC-R23"),  # seat 0 won first
        ("anshun_e6_huang_zhuang_jiao_pai", 3, "AS-R17"),  # 荒庄: the same dealer (3)
        ("zhajinhua_e8_timeout_forfeit", 3, "ZJH-R2"),  # seat 3 wins the pot
    ],
)
def test_each_game_names_the_next_dealer(name: str, seat: int, rule: str) -> None:
    s = summary(load(name))
    assert (s.next_dealer, s.rule) == (seat, rule)


def test_mahjong_room_rounds() -> None:
    e4 = summary(load("hongzhong_e4_kongs_chou_zhuang", players=["a", "b", "c", "d"]))
    later = load("hongzhong_e1_zimo_wild", rnd=2, players=["a", "b", "c", "d"])
    dealer = later[0]["dealer"]
    assert dealer != 2
    assert codes(check_room([e4, summary(later)])) == [(later[0]["match_id"], 0, "bad_deal", "HZ-R15")]
    seated = ["a", "b", "c", "d"]
    seated[dealer], seated[2] = "c", seated[dealer]
    assert check_room([e4, summary(load("hongzhong_e1_zimo_wild", rnd=2, players=seated))]) == []


@pytest.mark.parametrize(
    ("name", "rule"), [("sichuan_e4_exhaustive_hua_zhu_da_jiao_tui_shui", "SC-R23"), ("anshun_e6_huang_zhuang_jiao_pai", "AS-R17")]
)
def test_dealer_rule_random_names_nobody(name: str, rule: str) -> None:
    """The same hand twice in a room, the second time with the players moved one seat on, so that its
    dealer seat holds another person than the first hand names: `first_winner` / `winner` finds it,
    `random` ("each hand's record states its dealer and the engine accepts any seat") does not."""
    first = load(name)
    people = first[0]["players"]
    moved = people[1:] + people[:1]
    a, b = summary(first), summary(load(name, rnd=2, players=moved, mid="later"))
    assert a.next_dealer is not None and b.players[b.dealer] != a.players[a.next_dealer]
    assert codes(check_room([a, b])) == [("later", 0, "bad_deal", rule)]
    ra = summary(load(name, rules={"dealer_rule": "random"}))
    rb = summary(load(name, rnd=2, players=moved, mid="later", rules={"dealer_rule": "random"}))
    assert ra.next_dealer is None and check_room([ra, rb]) == []


# ---------------------------------------------------------------- over a real lake


def test_room_findings_over_an_ingested_lake(tmp_path: Path) -> None:
    logs = {
        "pdk-a.jsonl": load("paodekuai_e1_guan_men_both_losers", room="A", rnd=1, mid="pdk-a1"),
        "pdk-b.jsonl": load("paodekuai_e3_later_match_one_loser_closed", room="A", rnd=2, mid="pdk-a2"),
        "pdk-c.jsonl": load("paodekuai_e1_guan_men_both_losers", room="B", rnd=1, mid="pdk-b1"),
        "pdk-d.jsonl": load("paodekuai_e3_later_match_one_loser_closed", room="B", rnd=2, mid="pdk-b2",
                            players=["ann", "cy", "bo"]),
        "hz.jsonl": load("hongzhong_e4_kongs_chou_zhuang", room="H", rnd=1, mid="hz-1"),
        "hz2.jsonl": load("hongzhong_e1_zimo_wild", room="H", rnd=2, mid="hz-2", players=["a", "b", "c", "d"]),
        "solo.jsonl": load("paodekuai_e3_later_match_one_loser_closed", room=None, rnd=None, mid="no-room"),
    }  # fmt: skip
    paths = []
    for name, evs in logs.items():
        p = tmp_path / name
        p.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs))
        paths.append(str(p))
    lake = tmp_path / "lake"
    ingest(paths, lake, workers=0)
    found = room_findings(lake)
    assert codes(found) == [("hz-2", 0, "bad_deal", "HZ-R15"), ("pdk-a2", 0, "bad_deal", "PDK-R2")]
    assert codes(room_findings(lake, game="paodekuai")) == [("pdk-a2", 0, "bad_deal", "PDK-R2")]
    assert room_findings(lake, room="B") == []
    assert room_findings(lake, room="x'; DROP TABLE matches; --") == []  # a parameter, not SQL
    assert room_findings(tmp_path / "no-lake-here") == []
    # the ingest published the same findings as the lake's table (analytics.lake reads it)
    table = open_lake(lake).execute("SELECT match_id, seq, code, rule, previous FROM room_findings ORDER BY match_id")
    assert table.fetchall() == [("hz-2", 0, "bad_deal", "HZ-R15", "hz-1"), ("pdk-a2", 0, "bad_deal", "PDK-R2", "pdk-a1")]
