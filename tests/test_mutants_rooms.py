"""Mutation-killing tests for `engine/rooms.py` (issue 17): the across-matches next-dealer check.

PDK-R2/PDK-R16/SC-R23/HZ-R15/AS-R17 name who deals the next match of a room; the module's docstring
states the choices where the rule files are silent (previous match = round r-1 just before it, the
rule names a person, another game is not compared, order by ts then round then id). Expected findings
and messages are written out by hand from those sentences; `summarise` runs on a stub game.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine.rooms as rooms
from engine.replay import ReplayResult
from engine.rooms import Finding, RoomMatch, check_room, check_rooms, order_key, started_of, summarise
from events.codec import parse_event
from events.errors import ContractError


def rm(mid: str, rnd: int, dealer: int, nxt: int | None, players: tuple[str, ...] = ("a", "b", "c"),
       **kw: Any) -> RoomMatch:  # fmt: skip
    return RoomMatch(mid, kw.pop("game", "paodekuai"), kw.pop("room", "r"), rnd, players, dealer, nxt,
                     rule=kw.pop("rule", "PDK-R2"), **kw)  # fmt: skip


def test_wrong_dealer_finding_every_field() -> None:
    """m1 names seat 2 ("c"); m2 (round 2) is dealt by seat 1 ("b"): c sits at seat 2 of m2."""
    f = check_room([rm("m1", 1, 0, 2), rm("m2", 2, 1, None)])
    assert f == [Finding("m2", 0, "bad_deal", "PDK-R2",
                         "dealer 1 (b) of room r round 2: match m1 names c (seat 2) to deal next",
                         "paodekuai", "r", "m1")]  # fmt: skip
    assert f[0].to_dict() == {
        "match_id": "m2", "seq": 0, "code": "bad_deal", "rule": "PDK-R2",
        "message": "dealer 1 (b) of room r round 2: match m1 names c (seat 2) to deal next",
        "game": "paodekuai", "room": "r", "previous": "m1",
    }  # fmt: skip
    assert f[0].line() == "m2 seq 0 bad_deal PDK-R2: dealer 1 (b) of room r round 2: match m1 names c (seat 2) to deal next"
    # c sits at seat 0 of m2: the message names the seat of m2, not of m1
    f = check_room([rm("m1", 1, 0, 2), rm("m2", 2, 1, None, players=("c", "a", "b"))])
    assert [x.message for x in f] == ["dealer 1 (a) of room r round 2: match m1 names c (seat 0) to deal next"]


def test_first_match_after_a_forfeit_finding_and_it_stops_there() -> None:
    """PDK-R16: the next match is round 1; a round-2 match is a finding, and no dealer check follows."""
    f = check_room([rm("m1", 1, 0, 1, next_first=True, rule="PDK-R16"), rm("m2", 2, 0, None)])
    assert f == [Finding("m2", 0, "bad_deal", "PDK-R16",
                         "match m1 ended by a forfeit, so the next match of room r is a first match (round 1), not round 2",
                         "paodekuai", "r", "m1")]  # fmt: skip


def test_which_pairs_are_compared() -> None:
    assert check_room([]) == [] and check_room([rm("m1", 1, 0, 2)]) == []
    # round 2 after round 1: compared; round 1 after round 1 is not (a first match)
    assert len(check_room([rm("m1", 1, 0, 2), rm("m2", 2, 0, None)])) == 1
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 1, 0, None)]) == []
    # a gap (round 3 after round 1), a higher previous round: not compared
    assert check_room([rm("m1", 1, 0, 2), rm("m3", 3, 0, None)]) == []
    assert check_room([rm("m1", 3, 0, 2), rm("m2", 2, 0, None)]) == []
    # round 3 after round 2: compared
    assert len(check_room([rm("m2", 2, 0, 2), rm("m3", 3, 0, None)])) == 1
    # the right dealer: nothing; the named player absent: nothing
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 2, None)]) == []
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 0, None, players=("x", "y", "z"))]) == []
    assert check_room([rm("m1", 1, 0, 0), rm("m2", 2, 1, None, players=("x", "a", "z"))]) == []
    # another game: nothing
    assert check_room([rm("m1", 1, 0, 2), rm("m2", 2, 0, None, game="zhajinhua")]) == []
    # every pair: two findings in order
    f = check_room([rm("m1", 1, 0, 2), rm("m2", 2, 0, 1), rm("m3", 3, 0, None)])
    assert [(x.match_id, x.previous) for x in f] == [("m2", "m1"), ("m3", "m2")]
    # a forfeit before a next_dealer in the same pair list: the forfeit finding, then the next pair
    f = check_room([rm("m1", 1, 0, 2, next_first=True, rule="PDK-R16"), rm("m2", 2, 2, 2), rm("m3", 3, 0, None)])
    assert [(x.match_id, x.rule) for x in f] == [("m2", "PDK-R16"), ("m3", "PDK-R2")]


def test_order_key() -> None:
    assert order_key("2026-01-01", 2, "m") == (False, "2026-01-01", 2, "m")
    assert order_key(None, None, "m") == (True, "", 1, "m")
    assert order_key(None, 0, "m") == (True, "", 1, "m")


def test_check_rooms_groups_and_orders() -> None:
    """Rooms by (game, room); in a room by ts (none last), then round, then match id."""
    a1 = rm("a1", 1, 0, 2, ts="2026-01-01T10:00")
    a2 = rm("a2", 2, 0, None, ts="2026-01-01T11:00")  # wrong dealer after a1
    b1 = rm("b1", 1, 0, 1, room="q")
    b2 = rm("b2", 2, 0, None, room="q")  # wrong dealer after b1 (no ts: by round)
    z1 = rm("z1", 1, 0, 2, game="hongzhong", rule="HZ-R15")
    z2 = rm("z2", 2, 0, None, game="hongzhong", rule="HZ-R15")
    f = check_rooms([z2, b2, a2, b1, a1, z1])
    # sorted keys: ("hongzhong", "r"), ("paodekuai", "q"), ("paodekuai", "r")
    assert [(x.match_id, x.previous, x.room, x.rule) for x in f] == [
        ("z2", "z1", "r", "HZ-R15"), ("b2", "b1", "q", "PDK-R2"), ("a2", "a1", "r", "PDK-R2")]  # fmt: skip
    # ts first: a2 stamped before a1 comes first, so a1 (round 1) is not checked and a2 has no previous
    early = rm("a2", 2, 0, None, ts="2026-01-01T09:00")
    assert check_rooms([a1, early]) == []
    # a stamped match before an unstamped one
    assert [x.match_id for x in check_rooms([rm("u2", 2, 0, None), rm("s1", 1, 0, 2, ts="x")])] == ["u2"]
    # equal ts and round: by match id
    assert [x.match_id for x in check_rooms([rm("m2", 2, 0, None), rm("m1", 1, 0, 2), rm("m0", 1, 0, 2)])] == ["m2"]


STARTED = {"match_id": "s1", "seq": 0, "type": "match_started", "game": "paodekuai", "rules": {},
           "players": ["a", "b", "c"], "dealer": 1, "base": 1, "room": "r9", "round": 3, "ts": "T"}  # fmt: skip


class Stub:
    next_dealer_rule = "PDK-R2"
    first_match_rule = "PDK-R16"

    def __init__(self, nxt: int | None, first: bool = False) -> None:
        self.nxt, self.first = nxt, first

    def next_dealer(self, state: Any) -> int | None:
        return self.nxt

    def next_is_first_match(self, state: Any) -> bool:
        return self.first


def _summ(game: Any, monkeypatch: pytest.MonkeyPatch, status: str = "finished", state: Any = "S",
          started: dict[str, Any] | None = None) -> RoomMatch | None:  # fmt: skip
    monkeypatch.setattr(rooms, "get_game", lambda g: game)
    return summarise([parse_event(started or STARTED)], ReplayResult("s1", status=status), state)


def test_summarise_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _summ(Stub(2), monkeypatch)
    assert m == RoomMatch("s1", "paodekuai", "r9", 3, ("a", "b", "c"), 1, 2, False, "PDK-R2", "T")
    m = _summ(Stub(2, first=True), monkeypatch)
    assert (m.next_dealer, m.next_first, m.rule) == (None, True, "PDK-R16")
    # unfinished, or no state: names nobody; the rule id stays
    assert _summ(Stub(2), monkeypatch, status="incomplete").next_dealer is None
    assert _summ(Stub(2), monkeypatch, status="invalid").next_dealer is None
    assert _summ(Stub(2), monkeypatch, state=None).next_dealer is None
    assert _summ(Stub(2), monkeypatch, status="incomplete").rule == "PDK-R2"
    # no round: round 1
    no_round = {k: v for k, v in STARTED.items() if k != "round"}
    assert _summ(Stub(2), monkeypatch, started=no_round).round == 1


def test_summarise_games_without_the_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoRule:  # Dou Dizhu: no next_dealer, no rule id
        pass

    m = _summ(NoRule(), monkeypatch)
    assert (m.next_dealer, m.next_first, m.rule) == (None, False, "")

    class NoRestart:  # names a dealer, never a first match (no next_is_first_match)
        next_dealer_rule = "HZ-R15"

        def next_dealer(self, state: Any) -> int:
            return 0

    m = _summ(NoRestart(), monkeypatch)
    assert (m.next_dealer, m.next_first, m.rule) == (0, False, "HZ-R15")

    class FirstNoRuleId:
        next_dealer_rule = "PDK-R2"

        def next_dealer(self, state: Any) -> int:
            return 1

        def next_is_first_match(self, state: Any) -> bool:
            return True

    m = _summ(FirstNoRuleId(), monkeypatch)
    assert (m.next_dealer, m.next_first, m.rule) == (None, True, "PDK-R2")  # no first_match_rule: the same id


def test_started_of_and_room_match() -> None:
    s = parse_event(STARTED)
    assert started_of([s]) is s
    err = ContractError("bad_json", "x", seq=5)
    assert started_of([err, s]) is s
    no_room = parse_event({k: v for k, v in STARTED.items() if k != "room"})
    assert started_of([no_room]) is None and started_of([]) is None and started_of([err]) is None
    assert rooms.room_match([no_room]) is None
    assert summarise([no_room], ReplayResult("s1"), None) is None


def test_each_pair_is_checked_past_one_that_is_not() -> None:
    """A pair skipped (previous names nobody / the right dealer / the named player left) does not end
    the room: the next pair is still checked."""
    for first in (rm("m1", 1, 0, None), rm("m1", 1, 0, 1), rm("m1", 1, 0, 0, players=("q", "b", "c"))):
        f = check_room([first, rm("m2", 2, 1, 2), rm("m3", 3, 0, None)])  # m2 names c (seat 2): m3 dealt by a
        assert [(x.match_id, x.previous) for x in f] == [("m3", "m2")]


def test_check_rooms_orders_by_round_before_match_id_and_by_id_last() -> None:
    # the same (no) ts: round 1 "zz1" before round 2 "aa2", whose dealer (a) is not c
    assert [x.match_id for x in check_rooms([rm("aa2", 2, 0, None), rm("zz1", 1, 0, 2)])] == ["aa2"]
    # the same ts and round: by id, m0 then m1; m2 follows m1, which names a (seat 0) = m2's dealer
    assert check_rooms([rm("m1", 1, 0, 0), rm("m0", 1, 0, 2), rm("m2", 2, 0, None)]) == []
