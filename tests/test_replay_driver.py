"""The replay driver's contract duties (events.md §5–6), on a toy game so that no rule interferes."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import pytest

import engine.replay as replay_mod
from engine.base import GameRules, Settlement, item, parse_rules
from engine.errors import Illegal
from engine.replay import group_lines, replay
from events.chain import fill_chain
from events.codec import LineError, ParsedLine, parse_event
from events.errors import ContractError


@dataclass(frozen=True)
class ToyState:
    turn: int
    passes: int


class ToyGame:
    """Seats alternate `pass`; after four passes seat 1 wins 1 point from seat 0."""

    id = "toy"
    seats = (2,)
    Rules = GameRules
    presets = {"standard": {}}

    def parse_rules(self, raw: Any) -> GameRules:
        return parse_rules(GameRules, self.presets, raw)

    def start(self, started: Any, dealt: Any, rules: Any) -> ToyState:
        if any(len(h) != 1 for h in dealt.hands):
            raise Illegal("bad_deal", "TOY-1 one card each")
        return ToyState(started.dealer, 0)

    def apply(self, state: ToyState, ev: Any) -> ToyState:
        if ev.type != "pass":
            raise Illegal("wrong_phase", f"TOY-2 only pass, got {ev.type}")
        if ev.seat != state.turn:
            raise Illegal("not_your_turn", f"TOY-3 seat {state.turn} acts, not {ev.seat}")
        return replace(state, turn=1 - state.turn, passes=state.passes + 1)

    def is_finished(self, state: ToyState) -> bool:
        return state.passes >= 4

    def settle(self, state: ToyState) -> Settlement:
        return Settlement.from_items(2, [item("toy_win", 1, 0, 1)], [1])


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_mod, "get_game", lambda g: ToyGame())


def raw_event(seq: int, typ: str = "pass", mid: str = "t1", **f: Any) -> dict[str, Any]:
    """An event of the toy two-seat game as a dict: seq 0 starts, seq 1 deals, then passes in turn."""
    base: dict[str, Any] = {"match_id": mid, "seq": seq, "type": typ}
    if typ == "match_started":
        base.update(game="ddz", rules={}, players=["a", "b"], dealer=0, base=1)
    elif typ == "dealt":
        base.update(hands=[["3s"], ["4s"]])
    elif typ == "pass":
        base.update(seat=(seq - 2) % 2)
    base.update(f)
    return base


def ev(seq: int, typ: str = "pass", mid: str = "t1", **f: Any) -> Any:
    return parse_event(raw_event(seq, typ, mid, **f))


def full(mid: str = "t1", settled: list[int] | None = None) -> list[Any]:
    out = [ev(0, "match_started", mid), ev(1, "dealt", mid)] + [ev(s, mid=mid) for s in range(2, 6)]
    if settled is not None:
        out.append(ev(6, "settled", mid, deltas=settled))
    return out


def test_finished_with_items_and_matching_settlement() -> None:
    r = replay(full(settled=[-1, 1]))
    d = r.to_dict()
    assert list(d) == ["match_id", "game", "status", "events", "error", "winners", "deltas", "items",
                       "recorded_deltas", "settlement_matches", "chain_ok"]  # fmt: skip
    assert d["status"] == "finished" and d["deltas"] == [-1, 1] and d["winners"] == [1]
    assert d["items"] == [{"kind": "toy_win", "seat": 1, "from": 0, "points": 1}]
    assert d["settlement_matches"] is True and d["chain_ok"] is None and d["events"] == 7


def test_mismatching_settlement_is_reported_not_used() -> None:
    r = replay(full(settled=[-48, 48]))
    assert r.status == "finished" and r.deltas == [-1, 1]
    assert r.recorded_deltas == [-48, 48] and r.settlement_matches is False


def test_incomplete_has_no_deltas() -> None:
    r = replay(full()[:4])
    assert (r.status, r.deltas, r.items, r.winners, r.error) == ("incomplete", None, [], [], None)


def test_out_of_order_lines_are_sorted_and_identical_resends_ignored() -> None:
    events = full()
    shuffled = [events[3], events[0], events[2], events[1], events[5], events[4], events[3]]
    r = replay(shuffled)
    # `events` counts the match's events, as the lake stores them: the re-send is the same event
    assert r.status == "finished" and r.events == 6 and r.refused == []


@pytest.mark.parametrize(
    ("mutate", "seq", "code"),
    [
        (lambda e: e[:3] + e[4:], 4, "seq_gap"),
        (lambda e: e[1:], 1, "not_started"),  # events.md §6 / issue 17: not "seq 1 follows seq -1"
        (lambda e: [ev(0, "pass"), *e[1:]], 0, "not_started"),
        (lambda e: [e[0], ev(1, "pass", seat=0), *e[2:]], 1, "wrong_phase"),
        (lambda e: [*e[:3], ev(3, "pass", seat=0), *e[4:]], 3, "not_your_turn"),
        (lambda e: [*e, ev(6, "pass", seat=0)], 6, "after_end"),
        (lambda e: [*e[:4], ev(4, "settled", deltas=[0, 0]), *e[5:]], 4, "wrong_phase"),
        (lambda e: [*e, ev(6, "settled", deltas=[-1, 1]), ev(7, "settled", deltas=[-1, 1])], 7, "after_end"),
        (lambda e: [*e, ev(6, "settled", deltas=[-1, 1, 0])], 6, "bad_field"),
        (lambda e: [*e[:3], ev(3, "pass", seat=4), *e[4:]], 3, "bad_field"),
        (lambda e: [e[0], ev(1, "dealt", hands=[["3s", "4s"], ["5s"]]), *e[2:]], 1, "bad_deal"),
        (lambda e: [ev(0, "match_started", rules={"nope": 1}), *e[1:]], 0, "bad_rules"),
        (lambda e: [ev(0, "match_started", rules={"preset": "x"}), *e[1:]], 0, "bad_rules"),
        (lambda e: [ev(0, "match_started", dealer=3), *e[1:]], 0, "bad_deal"),  # DDZ-R2 / PDK-R2: dealer is a seat
        (lambda e: [e[0], ev(1, "dealt", hands=[["3s"], ["4s"], ["5s"]]), *e[2:]], 1, "bad_deal"),
        (lambda e: [*e[:4], ev(4, "match_started"), *e[5:]], 4, "wrong_phase"),
    ],
)
def test_contract_errors_name_seq_and_code(mutate: Any, seq: int, code: str) -> None:
    r = replay(mutate(full()))
    assert r.status == "invalid"
    assert (r.error["seq"], r.error["code"]) == (seq, code), r.error
    assert r.deltas is None


def test_a_bad_line_of_this_match_stops_it_there() -> None:
    events = full()
    bad = ContractError("bad_field", "unknown field 'x'", match_id="t1", seq=3, type="pass")
    r = replay([*events[:3], bad, *events[4:]])
    assert r.status == "invalid" and r.error == {"seq": 3, "type": "pass", "code": "bad_field", "message": "unknown field 'x'"}


def test_strict_mode_raises() -> None:
    with pytest.raises(ContractError) as info:
        replay(full()[:3] + full()[4:], strict=True)
    assert info.value.code == "seq_gap" and info.value.match_id == "t1"


def test_hash_chain_verified_and_tampering_named() -> None:
    chained = fill_chain(full(settled=[-1, 1]))
    assert replay(chained).chain_ok is True
    d = chained[4].to_dict()
    d["seat"] = 1  # edit one event, keep its old hash
    tampered = [*chained[:4], parse_event(d), *chained[5:]]
    r = replay(tampered)
    assert (r.status, r.error["seq"], r.error["code"], r.chain_ok) == ("invalid", 4, "bad_hash", False)
    # a deleted line: the gap is found first, and the chain is reported broken
    r = replay([*chained[:3], *chained[4:]])
    assert r.error["code"] == "seq_gap" and r.chain_ok is False


def test_interleaved_matches_are_grouped_and_orphans_kept() -> None:
    a, b = full("A", [-1, 1]), full("B")
    lines: list[Any] = []
    for x, y in zip(a, b, strict=False):
        lines += [ParsedLine("f", 0, x), ParsedLine("f", 0, y)]
    lines.append(ParsedLine("f", 0, a[-1]))
    lines.append(LineError("f", 99, ContractError("bad_json", "not JSON"), b"{"))
    g = group_lines(lines)
    assert list(g.matches) == ["A", "B"]
    assert [replay(e).status for e in g.matches.values()] == ["finished", "finished"]
    assert len(g.orphans) == 1 and g.orphans[0].line == 99


def test_same_log_same_bytes() -> None:
    assert replay(full(settled=[-1, 1])).to_json() == replay(full(settled=[-1, 1])).to_json()
    json.loads(replay(full()).to_json())
